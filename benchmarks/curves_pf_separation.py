"""PF at every n (issue 34): a float screen of the one open step ("separation", docs/curves.md) — not a proof.

Lemma M (proved, docs/curves.md; checked in tests/test_curves_pf_mixture.py) reduces every n to n = 3 with a
random third candidate: for outputs i (offset 0) and j (offset ε) the masses (P_i, Q_i, P_j, Q_j) are an average
over a law π of those of the n = 3 pairs (ρ, 1, c) → (ρ, κ, s c), s ∈ [κ, 1], with ρ = a_i/a_j fixed. The n = 2
frontier then holds at every n if, for every ρ > 0 and x ∈ [κ, 1], a λ >= 0 separates:

    ψ(c, s) <= λ φ(c, s) for all c ∈ (0, ∞], s ∈ [κ, 1],  φ = P_j − a(x) Q_j,  ψ = P_i − B(x) Q_i,

(a(x), B(x)) the frontier point; then averaging gives P_j <= a Q_j ⇒ P_i <= B Q_i. Such λ exists iff
L = max_{φ>0} ψ/φ <= U = min_{φ<0} ψ/φ (and ψ <= 0 where φ = 0). This screen evaluates L, U on a grid of
(c, s) for a grid of (ρ, x) and prints the smallest relative margin (U − L)/|U| and where it occurs, and the
largest ψ over grid points with φ <= 0 (a direct n = 3 violation would be > 0).

    nice python benchmarks/curves_pf_separation.py --out benchmarks/curves_pf_separation.jsonl
    nice python benchmarks/curves_pf_separation.py --rho 7 --x 11 --beta 500 --s 21 --beta-exp 12 \
        --rho-exp="-10,-4;4,10" --eps 0.1,1,4            # the far ends of ρ
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np

EPS = [0.1, 0.5, 1.0, 2.0, 4.0]


def win3(A, B, C):
    """Pr[scale-A uniform is the smallest] among uniforms of scales A, B, C (inverse scales may be 0: absent)."""
    iA, iB, iC = 1 / A, 1 / B, 1 / C
    m = 1 / np.maximum(np.maximum(iA, iB), iC)
    return iA * (m - m * m * (iB + iC) / 2 + m ** 3 * iB * iC / 3)


def margins(eps: float, rho: float, x: float, beta: np.ndarray, s: np.ndarray, b_scale: float = 1.0) -> dict:
    """L, U and the direct check at (ρ, x); ``b_scale`` != 1 moves the frontier (a mutation for the tests)."""
    kap = math.exp(-eps)
    Bt, S = np.meshgrid(beta, s)
    with np.errstate(divide="ignore"):
        c = 1 / Bt
    Pi, Pj = win3(rho, 1.0, c), win3(1.0, rho, c)
    Qi, Qj = win3(rho, kap, S * c), win3(kap, rho, S * c)
    a, b = x * x / (2 * x - kap), b_scale * (2 * x - x * x) / kap
    phi, psi = Pj - a * Qj, Pi - b * Qi
    scale = np.maximum(Pi + Pj, 1e-300)  # the four masses vanish as c → 0: compare φ, ψ to their size
    tiny = np.abs(phi) <= 1e-12 * scale
    pos, neg = (phi > 0) & ~tiny, (phi < 0) & ~tiny
    L = max(0.0, float(np.max(psi[pos] / phi[pos]))) if pos.any() else 0.0
    U = float(np.min(psi[neg] / phi[neg])) if neg.any() else math.inf
    direct = float(np.max((psi / scale)[phi <= 0])) if (phi <= 0).any() else -math.inf
    at_zero = float(np.max((psi / scale)[tiny])) if tiny.any() else -math.inf
    return {"L": L, "U": U, "direct": direct, "at_zero": at_zero}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rho", type=int, default=161, help="points of ρ = a_i/a_j, log-spaced in [10^A, 10^B]")
    ap.add_argument("--rho-exp", default="-4,4", help="A,B (several ranges: A,B;C,D)")
    ap.add_argument("--beta-exp", type=float, default=8, help="1/c log-spaced in [10^-E, 10^E] (and 0)")
    ap.add_argument("--eps", default=",".join(map(str, EPS)))
    ap.add_argument("--out", default=None, help="append the rows (jsonl) to this file")
    ap.add_argument("--x", type=int, default=21, help="points of the frontier parameter x in [κ, 1]")
    ap.add_argument("--beta", type=int, default=600, help="points of 1/c, log-spaced in [1e-8, 1e8] (and 0)")
    ap.add_argument("--s", type=int, default=41, help="points of s ∈ [κ, 1]")
    args = ap.parse_args()
    beta = np.concatenate([[0.0], np.logspace(-args.beta_exp, args.beta_exp, args.beta)])
    rhos = np.concatenate([np.logspace(*map(float, r.split(",")), args.rho) for r in args.rho_exp.split(";")])
    for eps in map(float, args.eps.split(",")):
        t0 = time.process_time()
        kap = math.exp(-eps)
        s = np.linspace(kap, 1, args.s)
        worst, worst_direct, worst_zero = (math.inf, None), -math.inf, -math.inf
        for x in np.linspace(kap, 1, args.x):
            for rho in rhos:
                r = margins(eps, float(rho), float(x), beta, s)
                rel = (r["U"] - r["L"]) / abs(r["U"]) if math.isfinite(r["U"]) and r["U"] != 0 else math.inf
                if rel < worst[0]:
                    worst = (rel, {"rho": float(rho), "x": float(x), "L": r["L"], "U": r["U"]})
                worst_direct, worst_zero = max(worst_direct, r["direct"]), max(worst_zero, r["at_zero"])
        row = json.dumps({"eps": eps, "min_relative_margin": worst[0], "at": worst[1],
                          "max_psi_where_phi_le_0": worst_direct, "max_psi_where_phi_0": worst_zero,
                          "grid": vars(args), "cpu": round(time.process_time() - t0, 1),
                          "load": os.getloadavg()[0]})
        print(row, flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(row + "\n")


if __name__ == "__main__":
    main()
