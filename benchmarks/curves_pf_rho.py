"""PF's tight zCDP ρ at n = 3..10 (issue 34): certified brackets, witness pairs at n, ε²/8 refutation, a float screen.

For each n ∈ {3..10} and ε ∈ {0.1, 0.5, 1, 2, 4} (sensitivity Δ = 1, PF's c = ε/(2Δ)):

* ``lower`` / ``upper`` — ``privacy_curve("pf", ε, n).zcdp(tol=1e-9)``: certified over every pair of
  neighbouring score vectors at n (lower: the n = 2 curve, a limit at n; upper: the n = 2 family and the
  strip's end families where statement S is certified at ε — docs/curves.md — else ε-RR, pure ε-DP only);
  ``scope`` the curve's own statement of what the upper end rests on; ``cpu`` its CPU seconds
  (``time.process_time``) and the load average;
* ``witness_kl_ball`` — a **finite** pair at n (no limit): the n = 2 witness scores (g, 0) → (g + 1, −1) with
  the other n − 2 scores at −G (G = 120/ε, so e^{−cG} = e^{−60}), evaluated with dpexact's PF law in ball
  arithmetic; its certified KL lower end is a lower end of ρ at n (ρ >= lim_{α→1} D_α/α = KL);
  ``witness_kl_mp`` the same pair with an independent mpmath evaluation of PF
  (Pr[i] = p_i ∫_0^1 Π_{j≠i}(1 − p_j u) du, McKenna & Sheldon 2020), 50 digits;
  ``refutes_eps2_8`` — that certified lower end > ε²/8 (the claim "PF under zCDP costs ε²/8");
* ``screen_max`` — a float search (Nelder–Mead over all 2n − 1 free coordinates: scores mod shift and
  offsets in [−Δ, Δ]^n; KL both directions and D_α/α at α ∈ {1.5, 2, 4}; ``--starts`` random starts):
  the largest value found, and ``screen_frontier`` the largest violation found of the frontier conjecture
  (docs/curves.md). A screen, not a proof.

    PYTHONPATH=$PWD nice python benchmarks/curves_pf_rho.py --out benchmarks/curves_pf_rho.jsonl
    python benchmarks/curves_pf_rho.py --table benchmarks/curves_pf_rho.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

EPS = ["0.1", "0.5", "1", "2", "4"]
NS = list(range(3, 11))


def mp_pf(eps: str, scores: list, dps: int = 50) -> list:
    """PF's law in mpmath, independent of dpexact: Pr[i] = p_i ∫_0^1 Π_{j≠i} (1 − p_j u) du (Δ = 1)."""
    import mpmath

    with mpmath.workdps(dps):
        c = mpmath.mpf(eps) / 2
        m = max(mpmath.mpf(s) for s in scores)
        p = [mpmath.exp(c * (mpmath.mpf(s) - m)) for s in scores]
        out = []
        for i in range(len(p)):
            poly = [mpmath.mpf(1)]  # coefficients of Π_{j≠i} (1 − p_j u) in u
            for j in range(len(p)):
                if j != i:
                    nxt = poly + [mpmath.mpf(0)]
                    for k in range(len(poly)):
                        nxt[k + 1] -= p[j] * poly[k]
                    poly = nxt
            out.append(p[i] * sum(a / (k + 1) for k, a in enumerate(poly)))
        return out


def witness_scores(w: dict, n: int, eps: float) -> tuple[list, list]:
    """The n = 2 witness (g, 0) → (g + 1, −1), with n − 2 further scores at −G in both inputs."""
    g = w["g"] if w.get("g") is not None else 40.0
    big = 120.0 / eps
    rest = [-big] * (n - 2)
    q, q2 = [g, 0.0] + rest, [g + 1.0, -1.0] + rest
    return (q2, q) if w["direction"] == "Q||P" else (q, q2)


def ball_kl(eps: str, q: list, q2: list):
    """Certified KL(PF(q) ‖ PF(q2)) as an arb ball, from dpexact's own PF law."""
    import dpexact

    m = dpexact.mechanism("pf", epsilon=eps)
    P = m.pmf([repr(x) for x in q], backend="ball").values
    Q = m.pmf([repr(x) for x in q2], backend="ball").values
    s = 0
    for p, r in zip(P, Q):
        s = s + p * (p / r).log()
    return s


def screen(eps: float, n: int, starts: int, seed: int) -> tuple[float, float]:
    """Float search of sup D_α/α (α → 1: KL; 1.5, 2, 4) and of the frontier violation over all inputs at n."""
    import numpy as np
    from scipy.optimize import minimize

    xg, wg = np.polynomial.legendre.leggauss((n + 2) // 2 + 1)
    u, w = (xg + 1) / 2, wg / 2

    def pf(s):
        p = np.exp(s - s.max())
        return np.array([p[i] * np.dot(w, np.prod(1 - np.outer(u, np.delete(p, i)), axis=1)) for i in range(n)])

    h = eps / 2

    def pair(z):
        s = np.concatenate([[0.0], 30 * np.tanh(z[: n - 1] / 10)])
        return pf(s), pf(s + h * np.tanh(z[n - 1:]))

    def value(z, a):
        P, Q = pair(z)
        if min(P.min(), Q.min()) < 1e-250:
            return 0.0
        if a == 1:
            return float(np.sum(P * np.log(P / Q)))
        return float(np.log(np.sum(P ** a * Q ** (1 - a))) / (a - 1) / a)

    kap = math.exp(-eps)

    def frontier_violation(z):
        P, Q = pair(z)
        if min(P.min(), Q.min()) < 1e-250:
            return -1.0
        r = P / Q
        ri, rj = r.max(), r.min()
        if rj >= 1 / (2 - kap):
            return float(ri - math.exp(eps))
        x = rj + math.sqrt(max(rj * (rj - kap), 0.0))
        return float(ri - (1 - (1 - x) ** 2) / kap)

    rng = np.random.default_rng(seed)
    best, worst_front = -1.0, -1.0
    for a in (1, 1.5, 2, 4):
        for _ in range(starts):
            z0 = np.concatenate([rng.normal(0, 3, n - 1), rng.normal(0, 3, n)])
            r = minimize(lambda z, a=a: -value(z, a), z0, method="Nelder-Mead",
                         options={"maxiter": 400 * n, "xatol": 1e-10, "fatol": 1e-15})
            best = max(best, -r.fun)
    for _ in range(starts):
        z0 = np.concatenate([rng.normal(0, 3, n - 1), rng.normal(0, 3, n)])
        r = minimize(lambda z: -frontier_violation(z), z0, method="Nelder-Mead",
                     options={"maxiter": 400 * n, "xatol": 1e-12, "fatol": 1e-15})
        worst_front = max(worst_front, -r.fun)
    return best, worst_front


def table(path: str) -> str:
    """The markdown table of benchmarks/README.md from the rows in ``path``."""
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    head = ("| ε | n | ρ lower (n = 2 limit) | ρ upper (certified) | width | witness pair at n: KL (certified lower end) "
            "| > ε²/8 | screen max | frontier screen | CPU s | load |")
    out = [head, "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['eps']} | {r['n']} | {r['lower']:.10f} | {r['upper']:.10f} | {r['width']:.2e} "
                   f"| {r['witness_kl_ball_lower']:.10f} | {'yes' if r['refutes_eps2_8'] else 'NO'} "
                   + (f"| {r['screen_max']:.10f} | {r['screen_frontier']:.1e} " if "screen_max" in r else "| — | — ")
                   + f"| {r['cpu']:.2f} | {r['load']:.1f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", default=None, help="print the markdown table of a jsonl written by --out, and stop")
    ap.add_argument("--out", default=None)
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--no-screen", action="store_true")
    ap.add_argument("--screen-ns", default=None, help="screen only these n (default: every n)")
    ap.add_argument("--ns", default=",".join(map(str, NS)))
    ap.add_argument("--eps", default=",".join(EPS))
    args = ap.parse_args()
    if args.table:
        print(table(args.table))
        return
    from flint import arb

    from dpexact.curves.curve import privacy_curve
    from dpexact.curves.supremum import down

    out = open(args.out, "w") if args.out else None  # noqa: SIM115 — rows are flushed one by one as they come
    for eps in args.eps.split(","):
        for n in map(int, args.ns.split(",")):
            e = float(eps)
            t = time.process_time()
            curve = privacy_curve("pf", eps, n)
            r = curve.zcdp(tol=1e-9)
            cpu = time.process_time() - t
            q, q2 = witness_scores(r.witness, n, e)
            kl_ball = ball_kl(eps, q, q2)
            P, Q = mp_pf(eps, q), mp_pf(eps, q2)
            import mpmath

            kl_mp = float(sum(p * mpmath.log(p / s) for p, s in zip(P, Q)))
            row = {"n": n, "eps": eps, "lower": r.lower, "upper": r.upper, "width": r.upper - r.lower,
                   "cpu": round(cpu, 3), "load": os.getloadavg()[0],
                   "witness": {"P_scores": q, "Q_scores": q2, "g": r.witness.get("g"), "direction": r.witness.get("direction")},
                   "witness_kl_ball_lower": down(kl_ball), "witness_kl_mp": kl_mp,
                   "eps2_8": e * e / 8, "refutes_eps2_8": bool(kl_ball > arb(eps) ** 2 / 8),
                   "scope": curve.scope}
            if not args.no_screen and (args.screen_ns is None or n in map(int, args.screen_ns.split(","))):
                t = time.process_time()
                row["screen_max"], row["screen_frontier"] = screen(e, n, args.starts, seed=n * 100 + int(10 * e))
                row["screen_cpu"] = round(time.process_time() - t, 1)
            print(json.dumps(row), flush=True)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
