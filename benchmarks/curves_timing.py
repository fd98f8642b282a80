"""CPU seconds per certified curve at n = 10 (and the acceptance brackets), one run, with the load average.

For each mechanism: δ(ε') at 11 points of [0, ε], D_α at 8 orders, and ρ (tol 1e-9), each timed.

    PYTHONPATH=$PWD nice python benchmarks/curves_timing.py
"""

from __future__ import annotations

import json
import os
import time


def main() -> None:
    from dpexact.curves.curve import privacy_curve

    cases = [("em", 10, None), ("rnm-gumbel", 10, None), ("pf", 10, None), ("rnm-exp", 10, None), ("pf", 2, None),
             ("grr", None, 10), ("rappor", None, None), ("laplace", None, None)]
    for eps in ("0.1", "1", "4"):
        for name, n, k in cases:
            c = privacy_curve(name, eps, n, k)
            row = {"mechanism": name, "n": n, "k": k, "eps": eps, "load": os.getloadavg()[0]}
            t = time.process_time()
            pts = c.delta([repr(float(eps) * i / 10) for i in range(11)])
            row["delta_cpu"] = time.process_time() - t
            row["delta_max_width"] = max(p.upper - p.lower for p in pts)
            t = time.process_time()
            pts = c.renyi(["1.5", "2", "3", "4", "8", "16", "32", "64"], tol=1e-10)
            row["renyi_cpu"] = time.process_time() - t
            row["renyi_max_width"] = max(p.upper - p.lower for p in pts)
            t = time.process_time()
            r = c.zcdp(tol=1e-9)
            row["rho_cpu"] = time.process_time() - t
            row["rho"] = [r.lower, r.upper]
            row["rho_width"] = r.upper - r.lower
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
