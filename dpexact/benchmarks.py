"""Timing of the pmf algorithms (`dpexact bench`). Benchmarks, not tests.

Every figure is a **ratio against a floor measured in the same run**, interleaved (one call of
each contender in turn, ``repeat`` rounds), the **median** of the per-round ratios, in **CPU
time** (``time.process_time``: a machine shared with other work slows the wall clock, not the
CPU time of this process). The floors: bare numpy ``exp``/``sum``/divide on the same array
(the least any float pmf of this kind can cost) and EM's float pmf. The load average is
reported with every row (``os.getloadavg``, 1 minute, at the row's start and end).

Score families (ε = 1, Δ = 1, seeded):
  * ``uniform``  — n distinct scores uniform on [0, 100): thousands of weights near the max;
  * ``spread``   — n distinct scores uniform on [0, n): few weights near the max.

Bracket rows (:mod:`.benchmarks_bracket`): CPU seconds of the ε bracket on own EM / own PF
(``define_mechanism`` laws) against the finite-scope search's, one round, ratio computed live.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Any, Callable

import numpy as np

from .numbers.backends import ball_context
from .schemas.numbers import with_exact

__all__ = ["run_pmf_benchmark", "run_bracket_only", "interleaved", "best_time"]


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


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def interleaved(fns: dict[str, Callable[[], Any]], repeat: int = 7, inner: int = 1) -> dict[str, Any]:
    """CPU seconds per call of each function, measured in turn ``repeat`` times (``inner`` calls
    per measurement, for calls too short for the clock): ``{"seconds": {name: median},
    "rounds": {name: [per round]}, "load": [before, after]}``. Ratios are taken per round."""
    load0 = _load()
    rounds: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():  # untimed: first-call costs (imports, node tables, caches)
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.process_time()
            for _ in range(inner):
                fn()
            rounds[name].append((time.process_time() - t) / inner)
    return {"seconds": {k: statistics.median(v) for k, v in rounds.items()}, "rounds": rounds, "load": [load0, _load()]}


def _ratio(m: dict[str, Any], a: str, b: str) -> float:
    """Median over rounds of ``a / b`` (same round: same machine state)."""
    return statistics.median(x / y if y > 0 else float("inf") for x, y in zip(m["rounds"][a], m["rounds"][b]))


def _scores(family: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if family == "uniform":
        return rng.uniform(0, 100, n)
    if family == "spread":
        return rng.uniform(0, n, n)
    raise ValueError(f"unknown family {family!r}")


def _floor(q: np.ndarray) -> Callable[[], Any]:
    """Bare numpy: ``w = exp(c(q - max q)); w / Σ w`` — no validation, no bound."""
    def run() -> Any:
        w = np.exp(0.5 * (q - q.max()))
        return w / w.sum()
    return run


def run_pmf_benchmark(quick: bool = False, json_path: str | None = None, echo: Callable[[str], None] = print,
                      repeat: int = 7, bracket: bool = True, pmf_only: bool = False) -> dict:
    """PF float vs EM float vs the numpy floor at n = 10, 1e3, 1e4, 1e5, 1e6; PF ball at n = 65 536
    against EM float; the O(n²) recurrence at n = 1e4 against the quadrature (module docstring);
    with ``bracket``, the ε bracket's CPU time on own EM / own PF at n = 3 and 5 (``quick``: 3)
    against the scope search's (:mod:`.benchmarks_bracket`, measured live in this run);
    ``pmf_only``: the first rows only (`dpexact bench --pmf-only`, minutes less on a loaded machine).

    ``json_path`` is checked before the first timing and written atomically at the end.
    """
    import dpexact

    from .io import check_writable

    if json_path:
        check_writable(json_path, "json_path")
    if repeat < 5:
        raise ValueError(f"repeat must be at least 5 (a median of 5 or more), got {repeat}")

    pf = dpexact.mechanism("pf", epsilon=1)
    em = dpexact.mechanism("em", epsilon=1)
    sizes = (10, 1_000, 10_000, 100_000) if quick else (10, 1_000, 10_000, 100_000, 1_000_000)
    rows = []
    echo(f"CPU time per call, median of {repeat} interleaved rounds; ratios per round, then the median")
    for family in ("uniform", "spread"):
        for n in sizes:
            q = _scores(family, n)
            inner = max(1, 20_000 // n)
            m = interleaved({"floor": _floor(q), "em": lambda: em.pmf(q), "pf": lambda: pf.pmf(q)}, repeat, inner)
            row = {"what": f"PF float / EM float, {family}", "n": n, "floor_s": m["seconds"]["floor"],
                   "em_s": m["seconds"]["em"], "pf_s": m["seconds"]["pf"], "ratio": _ratio(m, "pf", "em"),
                   "em_over_floor": _ratio(m, "em", "floor"), "pf_over_floor": _ratio(m, "pf", "floor"),
                   "repeat": repeat, "load": m["load"]}
            rows.append(row)
            echo(f"{family:8s} n={n:>8d}  floor {row['floor_s']*1e3:8.3f} ms  EM {row['em_s']*1e3:8.3f} ms  "
                 f"PF {row['pf_s']*1e3:8.3f} ms  PF/EM = {row['ratio']:5.2f}  EM/floor = {row['em_over_floor']:5.2f}  "
                 f"load {m['load'][0]:.1f}-{m['load'][1]:.1f}")
    if pmf_only:
        return _finish({"machine": platform.platform(), "python": platform.python_version(),
                        "clock": "process_time (CPU)", "repeat": repeat, "rows": rows}, json_path)
    n_ball = 8192 if quick else 65_536
    q = _scores("uniform", n_ball)
    m = interleaved({"em": lambda: em.pmf(q), "ball": lambda: pf.pmf(q, backend="ball")}, repeat=5)
    rows.append({"what": "PF ball (128 bits)", "n": n_ball, "seconds": m["seconds"]["ball"], "em_s": m["seconds"]["em"],
                 "ratio_to_em_float": _ratio(m, "ball", "em"), "repeat": 5, "load": m["load"]})
    echo(f"PF ball n={n_ball}: {m['seconds']['ball']:.3f} CPU s = {rows[-1]['ratio_to_em_float']:.0f}x EM float  "
         f"load {m['load'][0]:.1f}-{m['load'][1]:.1f}")
    n_rec = 2_000 if quick else 10_000
    q = _scores("uniform", n_rec)
    m = interleaved({"quadrature": lambda: pf.pmf(q), "recurrence": lambda: pf.pmf(q, method="recurrence")}, repeat=5)
    rows.append({"what": "PF recurrence / PF quadrature", "n": n_rec, "recurrence_s": m["seconds"]["recurrence"],
                 "quadrature_s": m["seconds"]["quadrature"], "ratio": _ratio(m, "recurrence", "quadrature"),
                 "repeat": 5, "load": m["load"]})
    echo(f"PF recurrence n={n_rec}: {m['seconds']['recurrence']:.3f} CPU s ({rows[-1]['ratio']:.0f}x the quadrature)  "
         f"load {m['load'][0]:.1f}-{m['load'][1]:.1f}")
    if bracket:
        from .benchmarks_bracket import run_bracket_benchmark

        rows.extend(run_bracket_benchmark((3,) if quick else (3, 5), echo=echo))
    return _finish({"machine": platform.platform(), "python": platform.python_version(),
                    "clock": "process_time (CPU)", "repeat": repeat, "rows": rows}, json_path)


def run_bracket_only(quick: bool = False, echo: Callable[[str], None] = print) -> dict:
    """The bracket rows of :func:`run_pmf_benchmark` alone (`dpexact bench --bracket-only`): own EM / own PF at
    n = 3 and 5 (``quick``: 3), the bracket's CPU time against the scope search's, measured live."""
    from .benchmarks_bracket import run_bracket_benchmark

    rows = run_bracket_benchmark((3,) if quick else (3, 5), echo=echo)
    return {"machine": platform.platform(), "python": platform.python_version(), "clock": "process_time (CPU)",
            "rows": rows}


def _finish(out: dict, json_path: str | None) -> dict:
    if json_path:
        from .io import atomic_write_json

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
                   "ball_max_rel_radius": float(np.max(b.radii()[ok] / mids[ok])),
                   **with_exact("recurrence_max_rel_error", rec_rel)}  # null + "inf": the recurrence failed
            rows.append(row)
            echo(f"{label:22s} eps={eps:6s} rel={rel:8.1e} (bound {f.rel_error:7.1e}) log-err={lerr:7.1e} "
                 f"|sum-1|={row['sum_minus_1']:7.1e} recurrence={rec_rel:8.1e}")
    return rows
