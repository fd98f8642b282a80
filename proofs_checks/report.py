"""Markdown + PNG report of a catalogue run (``dpexact check --report DIR``)."""

from __future__ import annotations

import json
from pathlib import Path

from .catalogue import Figure, Outcome

__all__ = ["short_evidence", "write_report", "draw_figure"]


def short_evidence(o: Outcome, width: int = 90) -> str:
    """A one-line digest of the evidence (the crash message for crashed checks)."""
    ev = o.verdict.evidence
    if o.crashed:
        text = ev.get("crash", "crashed")
    elif isinstance(ev, dict):
        keys = [k for k in ev if k not in ("rows", "sample", "traceback")]
        text = "; ".join(f"{k}={_compact(ev[k])}" for k in keys[:3])
    else:
        text = _compact(ev)
    return text if len(text) <= width else text[: width - 1] + "…"


def _compact(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    s = json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else v
    return s if len(s) <= 60 else s[:59] + "…"


def draw_figure(fig: Figure, path: Path) -> None:
    """Draw one comparison plot with matplotlib's Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(6, 4))
    for label, ys in fig.series.items():
        ax.plot(fig.x, ys, marker="." if len(fig.x) < 40 else None, label=label)
    for h in fig.hline:
        ax.axhline(h, color="grey", lw=0.8, ls="--")
    if fig.logx:
        ax.set_xscale("log")
    if fig.logy:
        ax.set_yscale("log")
    ax.set_xlabel(fig.xlabel)
    ax.set_ylabel(fig.ylabel)
    ax.set_title(fig.title, fontsize=10)
    ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)


def write_report(outcomes: list[Outcome], directory: str | Path, version: str, quick: bool) -> Path:
    """Write ``report.md`` and one PNG per claim with a figure into ``directory``; return the Markdown path."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    counts = {v: sum(1 for o in outcomes if o.verdict.verdict == v) for v in ("holds", "refuted", "inconclusive")}
    lines = [
        f"# dpexact claim check (dpexact {version}{', quick scope' if quick else ''})",
        "",
        f"{len(outcomes)} claims: {counts['holds']} hold, {counts['refuted']} refuted, {counts['inconclusive']} inconclusive"
        f" ({sum(o.crashed for o in outcomes)} crashed).",
        "",
        "| id | verdict | certified | seconds | evidence |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(f"| `{o.claim.id}` | {o.verdict.verdict}{' (crashed)' if o.crashed else ''} | {'yes' if o.verdict.certified else 'no'} | "
                     f"{o.seconds:.2f} | {short_evidence(o).replace('|', '/')} |")
    lines.append("")
    for o in outcomes:
        lines += [f"## `{o.claim.id}` — {o.verdict.verdict}", "", f"*{o.claim.location}*", "", f"> {o.claim.statement}", "",
                  f"**Scope.** {o.verdict.scope}", "", f"**Certified.** {'yes' if o.verdict.certified else 'no'}", ""]
        if o.verdict.figure is not None:
            png = f"{o.claim.id.replace('.', '_')}.png"
            draw_figure(o.verdict.figure, d / png)
            lines += [f"![{o.claim.id}]({png})", ""]
        ev = {k: v for k, v in o.verdict.evidence.items() if k != "traceback"} if isinstance(o.verdict.evidence, dict) else o.verdict.evidence
        lines += ["```json", json.dumps(ev, indent=1, ensure_ascii=False, default=str)[:6000], "```", ""]
    path = d / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
