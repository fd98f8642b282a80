"""The savings table: "ε at δ = 1e-6 after k selections" for EM and PF (docs/curves.md, benchmarks/README.md).

Columns per (mechanism, n, ε₀, k):
  dpexact_lower / dpexact_upper — certified: upper through the certified Rényi curve composed additively
      (dpexact.curves.compose; a certified PLD accountant will replace it), lower from the k-fold of a
      witness pair (exact binomial law, arb);
  (dpexact_upper = min(dpexact_rdp, exact_rr_kfold): the Rényi route, and the exact binomial k-fold of
      ε₀-RR, certified for any ε₀-DP mechanism — Kairouz, Oh & Viswanath 2015);
  dpexact_pld_fft — the exported dominating PLD (connect the dots on the certified δ, grid 0.01) composed
      by dp_accounting's FFT (float; pessimistic discretisation but not certified);
  dp_acc_em_rr — the ε₀-DP dominating pair (ε-randomised response PLD, `from_privacy_parameters`), what
      an accountant that treats EM by its pure-DP label uses;
  dp_acc_pf_laplace — Laplace(1/ε₀) PLD (`from_laplace_mechanism`), the "PF is Laplace" event;
  zcdp_em — ρ = ε₀²/8 per step (Cesar & Rogers 2021), k·ρ converted with the same CKS formula;
  basic — k·ε₀.

    nice python benchmarks/curves_savings.py --out benchmarks/curves_savings.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

DELTA = 1e-6


def cks(rho_alpha, k: int, delta: float) -> float:
    best = math.inf
    for j in range(1, 400):
        a = 1 + j / 40
        best = min(best, k * rho_alpha(a) + math.log1p(-1 / a) - (math.log(delta) + math.log(a)) / (a - 1))
    return max(best, 0.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/curves_savings.jsonl")
    ap.add_argument("--eps", default="0.1,0.5,1,2")
    ap.add_argument("--ks", default="10,100,1000")
    ap.add_argument("--ns", default="2,5,10,100")
    ap.add_argument("--interval", type=float, default=1e-2)
    ap.add_argument("--mechs", default="em,pf")
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args()
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    from dpexact.curves.compose import DEFAULT_ALPHAS, pure_dp_epsilon, rdp_epsilon_from_points, witness_epsilon_lower
    from dpexact.curves.curve import privacy_curve

    ks = [int(x) for x in args.ks.split(",")]
    ns = [int(x) for x in args.ns.split(",")]
    with open(args.out, "a" if args.append else "w") as fh:
        for mech in args.mechs.split(","):
            for eps in args.eps.split(","):
                e0 = float(eps)
                rr = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, 0.0), value_discretization_interval=1e-3)
                lap = pld.from_laplace_mechanism(1 / e0, sensitivity=1.0, value_discretization_interval=1e-3)
                cache: dict = {}
                for n in ns:
                    # EM: the same curve for every n >= 2; PF: n = 2 tight, n >= 3 one bracket for all n
                    key = "all" if mech == "em" else ("2" if n == 2 else ">=3")
                    t0 = time.process_time()
                    if key not in cache:
                        c = privacy_curve(mech, eps, n)
                        pts = c.renyi(list(DEFAULT_ALPHAS), tol=1e-9)
                        exp = c.to_dp_accounting(args.interval)
                        cache[key] = (c, pts, exp, {})
                    c, pts, exp, per_k = cache[key]
                    for k in ks:
                        if k not in per_k:
                            rdp = rdp_epsilon_from_points(pts, k, DELTA).upper
                            kov = pure_dp_epsilon(e0, k, DELTA).upper
                            lo = witness_epsilon_lower(c, k, DELTA, grid=8).lower
                            fft = float(exp.self_compose(k).get_epsilon_for_delta(DELTA))
                            per_k[k] = (lo, min(rdp, kov), fft, rdp, kov)
                        lo, up, fft, rdp, kov = per_k[k]
                        row = {"mechanism": mech, "n": n, "eps0": e0, "k": k, "delta": DELTA,
                               "dpexact_lower": lo, "dpexact_upper": up, "dpexact_pld_fft": fft,
                               "dpexact_rdp": rdp, "exact_rr_kfold": kov,
                               "dp_acc_em_rr": float(rr.self_compose(k).get_epsilon_for_delta(DELTA)),
                               "dp_acc_pf_laplace": float(lap.self_compose(k).get_epsilon_for_delta(DELTA)),
                               "zcdp_em": cks(lambda a: a * e0 * e0 / 8, k, DELTA) if mech == "em" else None,
                               "basic": k * e0, "tight_family": c.tight,
                               "cpu_seconds": time.process_time() - t0, "load": os.getloadavg()[0]}
                        fh.write(json.dumps(row) + "\n")
                        fh.flush()
                        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
