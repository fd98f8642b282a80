"""The MGF route against the grid route on random DP-SGD laws: two independent certified methods must give intersecting
intervals. Prints each law, both intervals, the routes' CPU, and a summary (laws where the MGF route answered, where the
two intervals are disjoint — which would be a bug in one of them).

    python benchmarks/accounting_mgf_crosscheck.py [--laws 40] [--seed 7]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from dpexact import Accountant
    from dpexact.accounting import accountant as acc_mod

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--laws", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    answered = disjoint = 0
    for _ in range(args.laws):
        sigma = str(Fraction(round(10 ** rng.uniform(math.log10(0.6), math.log10(5)), 2)).limit_denominator(100))
        q = str(Fraction(round(10 ** rng.uniform(-3, math.log10(0.9)), 4)).limit_denominator(10000))
        T = int(10 ** rng.uniform(math.log10(16), math.log10(5000)))
        delta = f"1e-{rng.randint(3, 18)}"
        ev = {"kind": "gaussian", "sigma": sigma, "poisson": q, "count": T}
        out = {}
        for mode in ("mgf", "grid"):
            acc_mod.MGF_FIRST = mode == "mgf"
            t0 = time.process_time()
            r = Accountant([ev], max_seconds=30).epsilon_for_delta(delta, 1e-6)
            out[mode] = (r, time.process_time() - t0)
        acc_mod.MGF_FIRST = True
        m, g = out["mgf"][0], out["grid"][0]
        route = m.detail.get("route")
        answered += route == "mgf"
        meet = m.lower <= g.upper and g.lower <= m.upper
        disjoint += not meet
        print(f"σ={sigma} q={q} T={T} δ={delta}: {route} [{m.lower:.12g}, {m.upper:.12g}] ({out['mgf'][1]:.3f} s) | grid "
              f"[{g.lower:.12g}, {g.upper:.12g}] ({out['grid'][1]:.3f} s) | {'intersect' if meet else 'DISJOINT'}", flush=True)
    print(f"laws {args.laws}: MGF route answered {answered}; disjoint intervals {disjoint}")


if __name__ == "__main__":
    main()
