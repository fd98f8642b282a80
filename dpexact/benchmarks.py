"""Timing of the pmf algorithms (`dpexact bench`). Benchmarks, not tests: figures are
reported as ratios against EM measured in the same run on the same machine.

Score families (ε = 1, Δ = 1, seeded):
  * ``uniform``  — n distinct scores uniform on [0, 100): thousands of weights near the max;
  * ``spread``   — n distinct scores uniform on [0, n): few weights near the max.
"""

from __future__ import annotations

import json
import platform
import time
from typing import Any, Callable

import numpy as np

__all__ = ["run_pmf_benchmark", "best_time"]


def best_time(fn: Callable[[], Any], repeat: int = 5, budget: float = 20.0) -> float:
    """Best wall time of ``repeat`` calls (fewer if the budget in seconds is exhausted)."""
    best = float("inf")
    start = time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return best


def _scores(family: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if family == "uniform":
        return rng.uniform(0, 100, n)
    if family == "spread":
        return rng.uniform(0, n, n)
    raise ValueError(f"unknown family {family!r}")


def run_pmf_benchmark(quick: bool = False, json_path: str | None = None, echo: Callable[[str], None] = print) -> dict:
    """PF float vs EM at n = 1e3, 1e5, 1e6; PF ball at n = 65 536; recurrence at n = 1e4."""
    import dpexact

    pf = dpexact.mechanism("pf", epsilon=1)
    em = dpexact.mechanism("em", epsilon=1)
    sizes = (1_000, 100_000) if quick else (1_000, 100_000, 1_000_000)
    rows = []
    for family in ("uniform", "spread"):
        for n in sizes:
            q = _scores(family, n)
            t_em = best_time(lambda: em.pmf(q))
            t_pf = best_time(lambda: pf.pmf(q))
            rows.append({"what": f"PF float / EM float, {family}", "n": n, "em_s": t_em, "pf_s": t_pf, "ratio": t_pf / t_em})
            echo(f"{family:8s} n={n:>8d}  EM {t_em*1e3:8.2f} ms  PF {t_pf*1e3:8.2f} ms  PF/EM = {t_pf/t_em:5.2f}")
    n_ball = 8192 if quick else 65_536
    q = _scores("uniform", n_ball)
    t_ball = best_time(lambda: pf.pmf(q, backend="ball"), repeat=1)
    t_em = best_time(lambda: em.pmf(q))
    rows.append({"what": "PF ball (128 bits)", "n": n_ball, "seconds": t_ball, "ratio_to_em_float": t_ball / t_em})
    echo(f"PF ball n={n_ball}: {t_ball:.2f} s")
    n_rec = 2_000 if quick else 10_000
    q = _scores("uniform", n_rec)
    t_rec = best_time(lambda: pf.pmf(q, method="recurrence"), repeat=1)
    t_pf = best_time(lambda: pf.pmf(q))
    rows.append({"what": "PF recurrence / PF quadrature", "n": n_rec, "recurrence_s": t_rec, "quadrature_s": t_pf, "ratio": t_rec / t_pf})
    echo(f"PF recurrence n={n_rec}: {t_rec:.2f} s ({t_rec/t_pf:.0f}x the quadrature)")
    out = {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(out, fh, indent=2)
    return out
