"""Timing of the pmf algorithms (`dpexact bench`). Benchmarks, not tests: figures are
reported as ratios against EM measured in the same run on the same machine.

Score families (ε = 1, Δ = 1, seeded):
  * ``uniform``  — n distinct scores uniform on [0, 100): thousands of weights near the max;
  * ``spread``   — n distinct scores uniform on [0, n): few weights near the max.
"""

from __future__ import annotations

import platform
import time
from typing import Any, Callable

import numpy as np

from .numbers.backends import ball_context

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
    """PF float vs EM at n = 1e3, 1e5, 1e6; PF ball at n = 65 536; recurrence at n = 1e4.

    ``json_path`` is checked before the first timing and written atomically at the end.
    """
    import dpexact

    from .io import atomic_write_json, check_writable

    if json_path:
        check_writable(json_path, "json_path")

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
        atomic_write_json(json_path, out, indent=2)
    return out


def _max_errors(pmf_f: Any, logpmf_f: np.ndarray, ball: Any) -> tuple[float, float]:
    """(max relative error on entries >= 1e-300, max log error / max(1,|log p|) on smaller)."""
    mids = ball.to_float()
    big = mids >= 1e-300
    rel = float(np.max(np.abs(pmf_f[big] - mids[big]) / mids[big])) if big.any() else 0.0
    small = np.flatnonzero(~big)
    with ball_context(128):
        logs = np.array([float(ball.values[i].log().mid()) for i in small])
    lerr = float(np.max(np.abs(logpmf_f[small] - logs) / np.maximum(1.0, np.abs(logs)))) if small.size else 0.0
    return rel, lerr


def run_pf_accuracy(directory: str | None = None, epsilons: tuple = ("0.001", "0.01", "0.1", "1", "5"),
                    datasets: tuple | None = None, echo: Callable[[str], None] = print) -> list[dict]:
    """PF float (default quadrature) and the O(n²) recurrence against the ball backend.

    Inputs: the DPBench datasets (1024 bins; mode = counts, median = pf §6 quality) at each ε,
    and n-1 near-ties at n = 10 000 (q = (0, -U[0, 1e-3)^{n-1}), seeded). For each input:
    max relative error on entries >= 1e-300, log error on smaller entries, |sum - 1|, and the
    recurrence's max relative error.
    """
    import dpexact
    from .data.dpbench import DPBENCH_DATASETS, load_dpbench
    from .quality import median_quality, mode_quality

    inputs: list[tuple[str, np.ndarray]] = []
    for name in datasets or DPBENCH_DATASETS:
        x = load_dpbench(name, directory)
        inputs.append((f"{name}/mode", mode_quality(x).astype(float)))
        inputs.append((f"{name}/median", median_quality(x).astype(float)))
    rng = np.random.default_rng(0)
    inputs.append(("near-ties n=1e4", np.concatenate([[0.0], -rng.uniform(0, 1e-3, 9_999)])))
    rows = []
    for label, q in inputs:
        for eps in epsilons:
            m = dpexact.mechanism("pf", epsilon=eps)
            f = m.pmf(q)
            b = m.pmf(q, backend="ball")
            rel, lerr = _max_errors(f.values, f.logvalues, b)
            rec = m.pmf(q, method="recurrence").values
            mids = b.to_float()
            ok = mids >= 1e-300
            with np.errstate(invalid="ignore", divide="ignore"):
                rec_err = np.abs(rec[ok] - mids[ok]) / mids[ok]
            rec_rel = float(np.nanmax(rec_err)) if np.all(np.isfinite(rec_err)) else float("inf")
            row = {"input": label, "epsilon": eps, "n": int(q.size), "max_rel_error": rel, "stated_bound": f.rel_error,
                   "max_log_error_tiny": lerr, "sum_minus_1": abs(float(f.values.sum()) - 1.0),
                   "ball_max_rel_radius": float(np.max(b.radii()[ok] / mids[ok])), "recurrence_max_rel_error": rec_rel}
            rows.append(row)
            echo(f"{label:22s} eps={eps:6s} rel={rel:8.1e} (bound {f.rel_error:7.1e}) log-err={lerr:7.1e} "
                 f"|sum-1|={row['sum_minus_1']:7.1e} recurrence={rec_rel:8.1e}")
    return rows
