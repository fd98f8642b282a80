"""Calibration of `dpexact audit`'s sampler test: (1) the false-alarm rate of the correct versions of
the bug-replay suite over R runs each, with a Clopper–Pearson 95% interval, against the stated α;
(2) the stated power checked by simulation on three perturbations of known total variation.

Run: python benchmarks/audit_calibration.py [RUNS]   (default 1000; writes benchmarks/results/audit_calibration.json)
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

import numpy as np
from scipy.stats import beta

from dpexact.audit import gof, laws
from dpexact.audit.sampler import plan_sampler
from dpexact.suites.audit import BUGS, SUITE_ALPHA, SUITE_POWER, SUITE_TV


def cp(k: int, n: int) -> tuple[float, float]:
    lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return lo, hi


def main(runs: int) -> dict:
    t0, out = time.process_time(), {"runs": runs, "alpha": SUITE_ALPHA, "tv": SUITE_TV, "power": SUITE_POWER,
                                    "load": os.getloadavg()[0], "false_alarms": [], "power_checks": []}
    total_k = total_n = 0
    seen = set()
    for b, bug in enumerate(BUGS):
        # two bugs share one correct sampler (Gumbel noisy max): it is counted once, so the pooled runs are independent
        if bug.kind != "sampler" or id(bug.correct) in seen:
            continue
        seen.add(id(bug.correct))
        spec = bug.correct
        law = spec.law(spec.defaults)
        cells, pl = plan_sampler(law, SUITE_ALPHA, SUITE_TV, SUITE_POWER, None, seed=0)
        k = 0
        for r in range(runs):
            x = spec.draw(None, spec.defaults, pl.draws, np.random.default_rng([b, 10_000 + r]))  # a distinct stream per sampler and run
            k += gof.pearson(x, cells, SUITE_ALPHA, pl.null).rejected
        total_k, total_n = total_k + k, total_n + runs
        out["false_alarms"].append({"sampler": bug.name, "draws": pl.draws, "rejections": k, "rate": k / runs, "ci95": cp(k, runs)})
        print(f"false alarms {bug.name:30s} {k}/{runs} = {k / runs:.4f}  CI95 {cp(k, runs)}")
    out["false_alarm_total"] = {"rejections": total_k, "runs": total_n, "rate": total_k / total_n, "ci95": cp(total_k, total_n)}
    print("pooled", out["false_alarm_total"])
    # power: discrete Laplace(5/2) cells at the planned N; three perturbations of known TV on the cells
    law = laws.discrete_laplace(2.5)
    cells, pl = plan_sampler(law, SUITE_ALPHA, SUITE_TV, SUITE_POWER, None, seed=0)
    p = np.asarray(cells.probs)
    t = SUITE_TV
    half = np.cumsum(p) <= 0.5
    pa = p[half].sum()
    lf = p.copy(); lf[half] += t * p[half] / pa; lf[~half] -= t * p[~half] / (1 - pa)  # least favourable (d ∝ p on halves)
    two = p.copy(); i, j = np.argsort(-p)[:2]; two[i] += t; two[j] -= t  # mass moved between the two largest cells
    import mpmath

    other = laws.discrete_laplace(2.2)  # a scale change: its masses on the same cells, TV computed from them
    with mpmath.workdps(60):
        def mass(a: float, b: float) -> float:
            ks = range(max(int(a), other.lo) if a > -1e300 else other.lo, min(int(b), other.lo + len(other.probs)) if b < 1e300 else other.lo + len(other.probs))
            m = mpmath.fsum(other.pmf(k) for k in ks)
            return float(m + (other.left if a == -np.inf else 0) + (other.right if b == np.inf else 0))
        tails = np.array([mass(a, b) for a, b in zip(cells.lows, cells.highs)])
    for name, q in (("least favourable (halves)", lf), ("two largest cells", two), ("scale 2.5 -> 2.2", tails)):
        tv = float(np.abs(q - p).sum() / 2)
        rej = 0
        rng = np.random.default_rng(7)
        for _ in range(runs):
            counts = rng.multinomial(pl.draws, q)
            exp = pl.draws * p
            stat = float(np.sum((counts - exp) ** 2 / exp))
            rej += stat > pl.critical
        lam = pl.draws * float(np.sum((q - p) ** 2 / p))
        out["power_checks"].append({"perturbation": name, "tv": tv, "draws": pl.draws, "stated_power": pl.power,
                                    "noncentrality": lam, "rejections": rej, "rate": rej / runs, "ci95": cp(rej, runs)})
        print(f"power {name:28s} TV {tv:.4f}: {rej}/{runs} = {rej / runs:.4f} CI95 {cp(rej, runs)}  stated >= {pl.power:.4f} (λ = {lam:.1f})")
    out["cpu_seconds"] = time.process_time() - t0
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


if __name__ == "__main__":
    res = main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
    os.makedirs("benchmarks/results", exist_ok=True)
    with open("benchmarks/results/audit_calibration.json", "w") as f:
        json.dump(res, f, indent=1)
    print(f"cpu {res['cpu_seconds']:.1f} s, max RSS {res['max_rss_mb']:.0f} MB, load {res['load']:.2f}")
