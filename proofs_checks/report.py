"""Reports of a catalogue run that lead with the findings: counts by paper × verdict × severity,
then the refuted claims, most serious first, each with its statement and smallest reproducing
input; the full table only on request. The same summary opens ``report.md`` (``dpexact check
--report DIR``), followed by one section per paper.

Text from claims and evidence is data: the terminal renderer prints it with rich markup off, so
``Pr_GEM[out 1]`` stays ``Pr_GEM[out 1]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from .catalogue import SEVERITIES, VERDICTS, Figure, Outcome

__all__ = ["one_line", "short_evidence", "smallest_input", "summary_lines", "findings", "filter_outcomes", "full_table_rows", "write_report",
           "draw_figure"]

#: short column heads of the severities (80-column terminal)
SEVERITY_HEADS = {"false-statement": "false", "wrong-number": "number", "erratum": "erratum", "not-reproducible": "no-repro",
                  None: "unclass."}


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
    return one_line(text, width)


def one_line(text: str, width: int) -> str:
    """``text`` on one line (inner whitespace collapsed, leading indentation kept), at most ``width`` characters."""
    text = str(text)
    indent = text[: len(text) - len(text.lstrip(" "))]
    text = indent + " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _compact(v: object, limit: int = 60) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    s = json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else v
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _inline(v: Any) -> str:
    """``{"q": [5, 3, 1], "p": "1/2"}`` → ``q=[5, 3, 1], p=1/2``."""
    if isinstance(v, dict):
        return ", ".join(f"{k}={_inline(x) if isinstance(x, dict) else _compact(x, 40)}" for k, x in v.items())
    if isinstance(v, list) and v:
        return _inline(v[0])
    return _compact(v, 200)


def smallest_input(o: Outcome, width: int = 200) -> str:
    """The smallest input that reproduces a refutation, read from the evidence: a ``smallest…``
    or ``counterexample…`` entry (the first of a list), an ``example``, or the paper's number next
    to the computed one; else the evidence digest."""
    ev = o.verdict.evidence
    if not isinstance(ev, dict):
        return one_line(_compact(ev, width), width)
    for test in (lambda k: k.startswith("smallest"), lambda k: k.startswith("counterexample"), lambda k: k.endswith("example"),
                 lambda k: k in ("first", "violations")):
        for k, v in ev.items():
            if test(k.lower()):
                if isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values()):
                    first = next(iter(v))
                    return one_line(f"{first}: {_inline(v[first])}", width)
                return one_line(_inline(v), width)
    if "paper" in ev and "computed" in ev:
        comp = ev["computed"]
        if isinstance(comp, dict) and comp:
            first = next(iter(comp))
            comp = f"{_compact(comp[first], 20)} ({first})"
        return one_line(f"paper {_compact(ev['paper'], 30)}, computed {comp}", width)
    return short_evidence(o, width)


def filter_outcomes(outcomes: Iterable[Outcome], verdicts: Iterable[str] | None = None,
                    severities: Iterable[str] | None = None) -> list[Outcome]:
    """Outcomes with a verdict in ``verdicts`` and (for refutations) a severity in ``severities``
    (a severity filter keeps refuted claims only)."""
    vs, ss = set(verdicts or ()), set(severities or ())
    out = []
    for o in outcomes:
        if vs and o.verdict.verdict not in vs:
            continue
        if ss and not (o.verdict.verdict == "refuted" and o.claim.severity in ss):
            continue
        out.append(o)
    return out


def _severity_rank(o: Outcome) -> int:
    return SEVERITIES.index(o.claim.severity) if o.claim.severity in SEVERITIES else len(SEVERITIES)


def findings(outcomes: Iterable[Outcome]) -> list[Outcome]:
    """The refuted outcomes, most serious severity first (catalogue order within a severity)."""
    refuted = [o for o in outcomes if o.verdict.verdict == "refuted"]
    return sorted(refuted, key=_severity_rank)


def _counts(outcomes: list[Outcome]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the paper × verdict × severity table."""
    sev_cols = [s for s in SEVERITIES] + ([None] if any(o.verdict.verdict == "refuted" and o.claim.severity is None for o in outcomes) else [])
    head = ["paper", "claims", "holds", "inconcl.", "refuted"] + [SEVERITY_HEADS[s] for s in sev_cols]
    papers = list(dict.fromkeys(o.claim.paper for o in outcomes))
    rows = []
    for p in papers + ["total"]:
        sel = [o for o in outcomes if p == "total" or o.claim.paper == p]
        n = {v: sum(o.verdict.verdict == v for o in sel) for v in VERDICTS}
        sev = [sum(o.verdict.verdict == "refuted" and o.claim.severity == s for o in sel) for s in sev_cols]
        rows.append([p, str(len(sel)), str(n["holds"]), str(n["inconclusive"]), str(n["refuted"])] + [str(x) for x in sev])
    return head, rows


def _table_lines(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]


def changed(outcomes: Iterable[Outcome], quick: bool) -> list[Outcome]:
    """Outcomes whose verdict differs from the one recorded in the claim (or whose check crashed)."""
    return [o for o in outcomes if o.crashed or (o.claim.expected_verdict(quick) not in (None, o.verdict.verdict))]


def summary_lines(outcomes: list[Outcome], quick: bool, width: int = 80, shown: list[Outcome] | None = None,
                  title: str = "", max_lines: int | None = None) -> list[str]:
    """The terminal summary (plain text, every line at most ``width`` characters).

    Counts by paper × verdict × severity; verdicts that differ from the records; then the claims
    of ``shown`` (default: the refuted ones): refutations first, grouped by severity (most serious
    first), then inconclusive, then holding claims; each as ``id: statement`` on one line and its
    smallest reproducing input (refuted) or evidence on the next. With ``max_lines`` the input
    lines of the last claims are dropped so that the summary fits (every claim keeps its line).
    """
    from dpexact.papers import PAPERS, legend

    w = max(40, width)
    lines = [one_line(title, w)] if title else []
    lines += _table_lines(*_counts(outcomes))
    cited = [p for p in dict.fromkeys(o.claim.paper for o in outcomes) if p in PAPERS]
    if cited:
        lines += legend(w, papers=cited, short=True)
    diff = changed(outcomes, quick)
    recorded = [o for o in outcomes if o.claim.expected_verdict(quick) is not None]
    expected_refutations = sum(o.claim.expected_verdict(quick) == "refuted" and not o.crashed and o.verdict.verdict == "refuted"
                               for o in outcomes)
    lines += wrap_lines(f"expectations: {len(recorded) - len([o for o in diff if o in recorded])} of {len(recorded)} verdicts "
                        f"match the catalogue's record ({expected_refutations} of the refutations are expected ones)"
                        + (f"; {len(outcomes) - len(recorded)} claims have no recorded expectation"
                           if len(recorded) < len(outcomes) else ""), w)
    if diff:
        lines += ["", f"{len(diff)} verdict(s) differ from the catalogue's record:"]
        for o in diff:
            got = "crashed" if o.crashed else o.verdict.verdict
            lines.append(one_line(f"  {o.claim.id}: expected {o.claim.expected_verdict(quick)}, got {got}", w))
    listed = findings(outcomes) if shown is None else (findings(shown) + [o for v in ("inconclusive", "holds") for o in shown
                                                                            if o.verdict.verdict == v])
    groups: list[tuple[str, list[Outcome]]] = []
    for o in listed:
        key = f"refuted, {o.claim.severity or 'unclassified'}" if o.verdict.verdict == "refuted" else o.verdict.verdict
        if not groups or groups[-1][0] != key:
            groups.append((key, []))
        groups[-1][1].append(o)
    footer = ["", one_line("more: --severity S or --verdict V for one group, --all for every claim", w)]
    statement_lines = STATEMENT_LINES if max_lines is None else 1
    heads = {id(o): wrap_lines(f"  {o.claim.id}: {o.claim.statement}", w, max_lines=statement_lines, hang=6) for o in listed}
    room = None if max_lines is None else max_lines - len(lines) - len(footer)
    # first the claims' own lines, as many as fit (each group keeps its heading); then evidence in the room left
    placed: list[tuple[str, list[Outcome]]] = []
    left_out = 0
    for key, members in groups:
        gap = 1 if max_lines is None else 0  # a blank line between groups when there is room for it
        if room is not None and room < gap + 1 + len(heads[id(members[0])]) + 1:
            left_out += len(members)
            continue
        placed.append((key, []))
        if room is not None:
            room -= gap + 1
        for o in members:
            need = len(heads[id(o)])
            if room is not None and room < need + 1:  # keep one line for "... more"
                left_out += 1
                continue
            placed[-1][1].append(o)
            if room is not None:
                room -= need
    if left_out and room is not None:
        room -= 1
    evidence = {}
    for _, members in placed:
        for o in members:
            label, text = (("smallest input", smallest_input(o, 400)) if o.verdict.verdict == "refuted"
                           else ("evidence", short_evidence(o, 400)))
            ev = wrap_lines(f"      {label}: {text}", w, max_lines=EVIDENCE_LINES, hang=4)
            if room is not None and room < len(ev):
                continue
            evidence[id(o)] = ev
            if room is not None:
                room -= len(ev)
    for key, members in placed:
        total = len(dict(groups)[key])
        lines += ([] if max_lines is not None else [""]) + [f"{key} ({total}):"]
        for o in members:
            lines += heads[id(o)] + evidence.get(id(o), [])
    if left_out:
        lines.append(one_line(f"  ... and {left_out} more not listed (--all lists every claim)", w))
    return lines + footer


#: lines of a statement and of its evidence in the summary (the rest is in --json and the report)
STATEMENT_LINES, EVIDENCE_LINES = 2, 2


def wrap_lines(text: str, width: int, max_lines: int | None = None, hang: int = 4) -> list[str]:
    """``text`` wrapped at spaces to ``width`` (continuation lines indented ``hang`` more), at most
    ``max_lines`` lines (the last one ends with … when cut)."""
    import textwrap

    text = str(text)
    indent = text[: len(text) - len(text.lstrip(" "))]
    out = textwrap.wrap(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent + " " * hang,
                        break_on_hyphens=False) or [indent]
    if max_lines is not None and len(out) > max_lines:
        out = out[:max_lines]
        out[-1] = out[-1][: width - 1] + "…" if len(out[-1]) + 1 > width else out[-1] + "…"
    return out


def full_table_rows(outcomes: list[Outcome], width: int = 70) -> list[tuple[str, ...]]:
    """Rows (id, verdict, severity, certified, evidence, seconds) of the ``--all`` table."""
    return [(o.claim.id, o.verdict.verdict + (" (crashed)" if o.crashed else ""),
             (o.claim.severity or "") if o.verdict.verdict == "refuted" else "", "yes" if o.verdict.certified else "no",
             short_evidence(o, width), f"{o.seconds:.2f}") for o in outcomes]


def _styles(labels: list[str]) -> dict[str, dict[str, Any]]:
    """Colour, line style and marker of each series, so that no two are drawn alike.

    Series that differ only in what precedes their last ``", "`` (``"BRR/GRR, e^(ε/2) = 2"`` and
    ``"paper Asym., e^(ε/2) = 2"``) are a pair: one colour per shared suffix, one line style per
    prefix. Otherwise each series gets its own colour and the line styles cycle too, so that two
    curves that coincide stay distinguishable (dashes over a solid line).
    """
    import matplotlib

    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    dashes = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "v", "D", "x"]
    parts = [lb.rsplit(", ", 1) if ", " in lb else [lb, ""] for lb in labels]
    suffixes = list(dict.fromkeys(p[1] for p in parts))
    prefixes = list(dict.fromkeys(p[0] for p in parts))
    paired = all(p[1] for p in parts) and 1 < len(suffixes) < len(labels)
    out = {}
    for i, (lb, (pre, suf)) in enumerate(zip(labels, parts)):
        if paired:
            c, d, m = suffixes.index(suf), prefixes.index(pre), prefixes.index(pre)
        else:
            c, d, m = i, i, i
        out[lb] = {"color": colours[c % len(colours)], "linestyle": dashes[d % len(dashes)], "marker": markers[m % len(markers)]}
    return out


def draw_figure(fig: Figure, path: Path) -> None:
    """Draw one comparison plot with matplotlib's Agg backend: the legend outside the axes (it never
    covers a curve), paired series in one colour (:func:`_styles`), each series over its own x when
    the figure gives ``xs``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, ax = plt.subplots(figsize=(8, 4))
    styles = _styles(list(fig.series))
    for label, ys in fig.series.items():
        x = fig.xs.get(label, fig.x)
        st = styles[label]
        ax.plot(x, ys, color=st["color"], linestyle=st["linestyle"], marker=st["marker"] if len(x) < 40 else None,
                markersize=3, label=label, alpha=0.9)
    for h in fig.hline:
        ax.axhline(h, color="grey", lw=0.8, ls="--")
    if fig.logx:
        ax.set_xscale("log")
    if fig.logy:
        ax.set_yscale("log")
    ax.set_xlabel(fig.xlabel)
    ax.set_ylabel(fig.ylabel)
    ax.set_title(fig.title, fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    f.tight_layout()
    import io

    from dpexact.io import atomic_write_bytes

    buffer = io.BytesIO()
    try:
        f.savefig(buffer, dpi=110, format="png", bbox_inches="tight")  # keeps the outside legend
    finally:
        plt.close(f)
    atomic_write_bytes(path, buffer.getvalue(), name="--report")


def _md(text: str) -> str:
    return str(text).replace("|", "\\|")


def write_report(outcomes: list[Outcome], directory: str | Path, version: str, quick: bool) -> Path:
    """Write ``report.md`` (summary, refuted claims by severity, then one section per paper) and
    one PNG per claim with a figure into ``directory`` (atomically); return the Markdown path."""
    from dpexact.io import atomic_write_text

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    n = {v: sum(o.verdict.verdict == v for o in outcomes) for v in VERDICTS}
    lines = [f"# dpexact claim check (dpexact {version}{', quick scope' if quick else ''})", "",
             f"{len(outcomes)} claims: {n['holds']} hold, {n['refuted']} refuted, {n['inconclusive']} inconclusive"
             f" ({sum(o.crashed for o in outcomes)} crashed).", ""]
    from dpexact.papers import PAPERS, citation

    cited = [p for p in dict.fromkeys(o.claim.paper for o in outcomes) if p in PAPERS]
    if cited:
        lines += ["## The papers", "", "Claim ids start with the paper's short name:", ""]
        lines += [f"- **{p}** — {citation(p)}" + (f" <{PAPERS[p].url}>" if PAPERS[p].url else "") for p in cited] + [""]
    head, rows = _counts(outcomes)
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows] + [""]
    diff = changed(outcomes, quick)
    if diff:
        lines += ["## Verdicts that differ from the catalogue's record", ""]
        lines += [f"- `{o.claim.id}`: expected {o.claim.expected_verdict(quick)}, got {'crashed' if o.crashed else o.verdict.verdict}"
                  for o in diff] + [""]
    lines += ["## Refuted claims, most serious first", ""]
    for o in findings(outcomes):
        expl = f" *{o.claim.explanation}*" if o.claim.explanation else ""
        lines.append(f"- **{o.claim.severity or 'unclassified'}** `{o.claim.id}` ({o.claim.location}): {o.claim.statement}"
                     f" — input: `{smallest_input(o, 300)}`.{expl}")
    lines.append("")
    for paper in dict.fromkeys(o.claim.paper for o in outcomes):
        sel = [o for o in outcomes if o.claim.paper == paper]
        lines += [f"## {paper}", "", "| id | verdict | severity | certified | seconds | evidence |", "|---|---|---|---|---|---|"]
        for o, row in zip(sel, full_table_rows(sel, 90)):
            lines.append(f"| `{row[0]}` | {row[1]} | {row[2]} | {row[3]} | {row[5]} | {_md(row[4])} |")
        lines.append("")
        for o in sel:
            lines += [f"### `{o.claim.id}` — {o.verdict.verdict}", "", f"*{o.claim.location}*", "", f"> {o.claim.statement}", ""]
            if o.verdict.verdict == "refuted":
                lines += [f"**Severity.** {o.claim.severity or 'unclassified'}" + (f" — {o.claim.explanation}" if o.claim.explanation else ""), ""]
            lines += [f"**Scope.** {o.verdict.scope}", "", f"**Certified.** {'yes' if o.verdict.certified else 'no'}", ""]
            if o.verdict.figure is not None:
                png = f"{o.claim.id.replace('.', '_')}.png"
                draw_figure(o.verdict.figure, d / png)
                lines += [f"![{o.claim.id}]({png})", ""]
            ev = {k: v for k, v in o.verdict.evidence.items() if k != "traceback"} if isinstance(o.verdict.evidence, dict) else o.verdict.evidence
            lines += ["```json", json.dumps(ev, indent=1, ensure_ascii=False, default=str)[:6000], "```", ""]
    return atomic_write_text(d / "report.md", "\n".join(lines), name="--report")
