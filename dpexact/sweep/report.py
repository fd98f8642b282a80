"""Pictures and tables of a sweep, drawn from its stored rows.

:func:`plot_ratios` draws pf Figure 2's view of an ``optimal`` sweep: the optimality ratio
``Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]`` against ε, one panel per (n, k), one curve per
mechanism, with the proven error bar of each ratio (too small to see unless something is
wrong). :func:`table_rows` lays a sweep out with one column per mechanism.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from .spec import Point
from .store import Row

__all__ = ["table_rows", "plot_ratios", "epsilon_float", "legend_name", "Y_AXES"]


def epsilon_float(text: str) -> float:
    """ε as a float for plotting (exact parse, then rounded once)."""
    from ..numbers.real import Real

    return float(Real.of(text).to_float())


#: short verdict names of the --table cells (a legend is printed under the table)
SHORT_VERDICTS = {"private-within-scope": "in-scope", "inconclusive": "inconcl."}


def _cell(task: str, res: dict[str, Any], mechanism: str | None) -> str:
    """One result in a few characters: a ratio, a verdict with its worst level, an expected error."""
    if task == "optimal":
        return f"{res['ratios'][mechanism]:.6f}" if mechanism is not None else f"{res['optimal_total_error']:.8g}"
    if task == "verify":
        short = SHORT_VERDICTS.get(res["verdict"], res["verdict"])
        key, prefix, digits = ("worst_delta", "δ(ε)≈", 3) if "delta" in res else ("worst_log_ratio", "", 4)
        w = res.get(key)
        if isinstance(w, (int, float)) and not isinstance(w, bool):
            return f"{short} {prefix}{w:.{digits}g}"
        # null (not finite): the exact text beside it; a record stored before #36 holds the text itself
        return f"{short} {prefix}{res.get(key + '_exact', w)}"
    if task == "pmf":
        return f"{res['expected_error']:.8g}"
    return f"{res.get('verdict')}"


def table_rows(points: Sequence[Point], rows: dict[str, Row]) -> tuple[list[str], list[list[str]], list[str]]:
    """Header, lines and notes of ``sweep --table``: one line per combination of the grid values
    that vary, **one column per mechanism** (an ``optimal`` sweep: the optimum, then each
    mechanism's ratio); grid values shared by every point, failures and the verdict legend go to
    the notes, so the table stays narrow."""
    if not points:
        return [], [], []
    task = points[0].task
    keys = list(points[0].grid)
    varying = [k for k in keys if len({_text(p.grid.get(k)) for p in points}) > 1]
    fixed = [k for k in keys if k not in varying]
    pivot = "mechanism" if "mechanism" in keys else None
    line_keys = [k for k in varying if k != pivot]
    if task == "optimal":
        mechs = list(dict.fromkeys(m for p in points if (r := rows.get(p.key)) is not None and r.status == "ok"
                                   for m in r.result["ratios"]))
        columns: list[str | None] = [None, *mechs]
        names = ["optimum", *mechs]
    elif pivot is not None:
        columns = list(dict.fromkeys(p.grid[pivot] for p in points))
        names = [str(c) for c in columns]
    else:
        columns, names = [None], ["result"]
    lines: dict[tuple, list[str]] = {}
    notes = [f"every point: " + ", ".join(f"{k} {_text(points[0].grid[k])}" for k in fixed if not (k == pivot and len(columns) == 1))] \
        if fixed else []
    for p in points:
        at = tuple(_text(p.grid[k]) for k in line_keys)
        cells = lines.setdefault(at, [""] * len(columns))
        row = rows.get(p.key)
        targets = [columns.index(p.grid[pivot])] if pivot is not None and task != "optimal" else range(len(columns))
        for i in targets:
            if row is None:
                cells[i] = "missing"
            elif row.status == "failed":
                cells[i] = "failed"
            else:
                mech = p.grid[pivot] if pivot is not None and task != "optimal" else columns[i]
                cells[i] = _cell(task, row.result, mech if task == "optimal" else None)
        if row is not None and row.status == "failed":
            error = row.error or ""
            notes.append(f"failed: {', '.join(f'{k} {_text(v)}' for k, v in p.grid.items())}: "
                         + (error if len(error) <= 150 else error[:149] + "…"))
    if task == "verify":
        notes.append("cells: verdict and worst log-ratio (in-scope = private-within-scope, inconcl. = inconclusive)")
    if task == "optimal":
        notes.append("cells: Σ E[err(M*)] (optimum) and each mechanism's optimality ratio (>= 1, 1 = optimal)")
    return [*line_keys, *names], [[*k, *v] for k, v in lines.items()], notes


def _text(v: Any) -> str:
    return ", ".join(map(str, v)) if isinstance(v, list) else str(v)


#: y-axis layouts of :func:`plot_ratios`
Y_AXES = ("per-panel", "shared", "log")


def legend_name(mechanism: str) -> str:
    """A short legend entry: ``OBJECT`` of ``PATH.py:OBJECT`` / ``module:OBJECT``, else the name."""
    return mechanism.rpartition(":")[2] or mechanism


def plot_ratios(points: Sequence[Point], rows: dict[str, Row], path: "str | Path", title: str | None = None,
                y: str = "per-panel") -> Path:
    """Ratio vs ε per (n, k) from the ``optimal`` rows of ``points``; PNG/PDF/SVG at ``path``.

    ``y``: ``per-panel`` (each panel its own linear range, the default: one mechanism with large
    ratios does not flatten the others elsewhere), ``shared`` (one linear range) or ``log`` (one
    logarithmic range). Legend entries are short names (:func:`legend_name`).

    Raises ValueError if the points are not of an ``optimal`` sweep or none has a result.
    """
    if y not in Y_AXES:
        raise ValueError(f"--plot-y must be one of {', '.join(Y_AXES)}, got {str(y)[:40]!r}")
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
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False, sharey=y != "per-panel")
    for ax, (n, k) in zip(axes.flat, keys):
        for m, pts in sorted(panels[(n, k)].items()):
            pts.sort()
            ax.errorbar([x for x, _, _ in pts], [y for _, y, _ in pts], yerr=[b for _, _, b in pts],
                        marker="o", ms=3, lw=1.2, label=legend_name(m))
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        if y == "log":
            from matplotlib.ticker import FormatStrFormatter

            ax.set_yscale("log")
            for axis in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
                axis(FormatStrFormatter("%g"))  # plain ratios, not 1.2×10^0
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
