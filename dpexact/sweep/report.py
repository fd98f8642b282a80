"""Pictures and tables of a sweep, drawn from its stored rows.

:func:`plot_ratios` draws pf Figure 2's view of an ``optimal`` sweep: the optimality ratio
``Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]`` against ε, one panel per (n, k), one curve per
mechanism, with the proven error bar of each ratio (too small to see unless something is
wrong). :func:`table_rows` gives one line per point for any task kind.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from .spec import Point
from .store import Row

__all__ = ["table_rows", "plot_ratios", "epsilon_float"]


def epsilon_float(text: str) -> float:
    """ε as a float for plotting (exact parse, then rounded once)."""
    from ..numbers.real import Real

    return float(Real.of(text).to_float())


def _summary(task: str, res: dict[str, Any]) -> str:
    if task == "optimal":
        ratios = ", ".join(f"{m} {r:.6f}" for m, r in res["ratios"].items())
        return f"opt {res['optimal_total_error']:.8g}; ratio {ratios}"
    if task == "verify":
        if "delta" in res:  # (ε, δ): the scope's δ(ε)
            return f"{res['verdict']} (worst δ(ε) {res['worst_delta']:.6g} vs δ = {res['delta']})"
        return f"{res['verdict']} (worst log-ratio {res['worst_log_ratio']})"
    if task == "pmf":
        return f"E[err] {res['expected_error']:.10g} ± {res['error_bound']:.2g}"
    return f"{res.get('verdict')}"


def table_rows(points: Sequence[Point], rows: dict[str, Row]) -> tuple[list[str], list[list[str]]]:
    """Header and one text line per point: grid keys, status, result summary, certified, seconds."""
    grid_names = list(points[0].grid) if points else []
    header = grid_names + ["status", "result", "certified", "seconds"]
    lines = []
    for p in points:
        row = rows.get(p.key)
        cells = [", ".join(map(str, v)) if isinstance(v, list) else str(v) for v in p.grid.values()]
        if row is None:
            lines.append(cells + ["missing", "", "", ""])
        elif row.status == "failed":
            lines.append(cells + ["failed", row.error or "", "", f"{row.seconds:.2f}"])
        else:
            lines.append(cells + ["ok", _summary(p.task, row.result), row.certified or "", f"{row.seconds:.2f}"])
    return header, lines


def plot_ratios(points: Sequence[Point], rows: dict[str, Row], path: "str | Path", title: str | None = None) -> Path:
    """Ratio vs ε per (n, k) from the ``optimal`` rows of ``points``; PNG/PDF/SVG at ``path``.

    Raises ValueError if the points are not of an ``optimal`` sweep or none has a result.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if any(p.task != "optimal" for p in points):
        raise ValueError("--plot: draws optimality ratios, so it needs a task = \"optimal\" sweep")
    panels: dict[tuple[int, int], dict[str, list[tuple[float, float, float]]]] = {}
    for p in points:
        row = rows.get(p.key)
        if row is None or row.status != "ok":
            continue
        res = row.result
        curves = panels.setdefault((res["n"], res["k"]), {})
        for m, r in res["ratios"].items():
            curves.setdefault(m, []).append((epsilon_float(res["epsilon"]), r, res["ratio_error_bounds"][m]))
    if not panels:
        raise ValueError("--plot: no finished optimal results in the store for this spec")
    keys = sorted(panels)
    cols = min(3, len(keys))
    nrows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False, sharey=True)
    for ax, (n, k) in zip(axes.flat, keys):
        for m, pts in sorted(panels[(n, k)].items()):
            pts.sort()
            ax.errorbar([x for x, _, _ in pts], [y for _, y, _ in pts], yerr=[b for _, _, b in pts],
                        marker="o", ms=3, lw=1.2, label=m)
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_title(f"n = {n}, k = {k}")
        ax.set_xlabel("ε")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    axes[0][0].set_ylabel("Σ E[err(M)] / Σ E[err(M*)]")
    axes[0][0].legend()
    fig.suptitle(title or "optimality ratio vs ε (pf Figure 2 style)")
    fig.tight_layout()
    import io as _bytes_io

    from ..io import atomic_write_bytes

    buffer = _bytes_io.BytesIO()
    try:
        fig.savefig(buffer, dpi=120, format="png")
    finally:
        plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue(), name="--plot")
