"""Plain-text rendering shared by the commands: lines that fit the terminal (``COLUMNS``), values
written the way a reader types them (``0, 1/2``, ``grid 27, random 8``), never Python reprs."""

from __future__ import annotations

import math
import shutil
import textwrap
from typing import Any, Iterable

__all__ = ["width", "wrap", "unbroken", "value", "fmt_float", "report_lines", "table_console"]


def width() -> int:
    """The terminal's columns (``COLUMNS`` when set), at least 40."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def wrap(text: str, cols: int | None = None, indent: str = "", hang: str = "    ") -> list[str]:
    """``text`` broken at spaces into lines of at most ``cols`` characters (words longer than a line
    are cut); continuation lines are indented by ``hang`` more than ``indent``. A formula made
    :func:`unbroken` stays on one line (its no-break spaces print as spaces)."""
    cols = cols or width()
    text = text[len(indent):] if indent and text.startswith(indent) else text
    lines = textwrap.wrap(text, cols, initial_indent=indent, subsequent_indent=indent + hang,
                          break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]
    return [line.replace("\u00a0", " ") for line in lines]  # formulas kept whole by unbroken()


def fmt_float(x: Any, digits: int = 6) -> str:
    if isinstance(x, str):
        return x
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return f"{x:.{digits}g}" if isinstance(x, float) else str(x)


def field_text(d: dict, name: str, digits: int = 6) -> str:
    """A document's float field ``name`` as text: its exact string ``name_exact`` where the float is
    null (not finite: ``inf``), else the float (the schemas' one-number-type rule)."""
    x = d.get(name)
    if x is None and d.get(f"{name}_exact") is not None:
        return str(d[f"{name}_exact"])
    return fmt_float(x, digits)


def value(v: Any, digits: int = 6) -> str:
    """A JSON value as a reader writes it: lists comma-separated in parentheses, mappings as
    ``key value`` pairs, booleans yes / no, floats with ``digits`` significant digits."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {value(x, digits)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        inner = ", ".join(value(x, digits) for x in v)
        return f"({inner})"
    return fmt_float(v, digits)


def table_console(**kwargs: Any) -> Any:
    """A rich console for tables at the terminal's width (``COLUMNS``), printing text literally."""
    from rich.console import Console

    return Console(width=width(), markup=False, highlight=False, **kwargs)


def _end(b: dict, side: str) -> str:
    # a bracket's float end, or its exact text where the float is null (an infinite end)
    x = b.get(f"{side}_float")
    return fmt_float(x, 9) if x is not None else str(b.get(f"{side}_exact", "-"))


def _bracket_lines(b: dict, epsilon: str, headline: str | None = None) -> Iterable[str]:
    """The headline (``privacy level ε* ∈ [lower, upper] on DOMAIN``) and the evidence of each end."""
    lo, hi = b.get("lower"), b.get("upper")
    yield headline or (f"privacy level ε* ∈ [{_end(b, 'lower')}, {_end(b, 'upper')}]"
                       f" on {b.get('domain', '?')} (claimed ε = {epsilon})")
    if lo is None:
        yield "  lower 0: no certified witness (a log-ratio is never below 0)"
    else:
        yield (f"  lower {lo['lower']}: witness q = {value(lo['scores'])}, q' = {value(lo['neighbour_scores'])}, "
               f"output {value(lo['output'])}, re-checked in {lo['arithmetic']}"
               + (f"; {lo['note']}" if lo.get("note") else ""))
    if hi is None:
        yield "  upper: no proof (unknown)"
    else:
        text = hi.get("domain_text") or value(hi.get("domain") or {})
        yield (f"  upper {hi['upper']}: proof by {hi['method']}" + (f" ({hi['theorem']})" if hi.get("theorem") else "")
               + (f"; on {text}" if text else "")
               + ("" if hi.get("whole_domain", True) else "; a bounded part of the claim's domain only"))
    fam = b.get("unbounded_family")
    if fam:  # the level over every n (the headline is the stated n's)
        ns = ", ".join(str(c["n"]) for c in fam.get("checked", ()))
        yield (f"  every n: level ∞ — witness family ({fam['index']}) with log-ratio >= {fam['bound']} for every n "
               f"({fam['argument'].split(':')[0]}, proved; evaluated from the law at n = {ns}); members: {fam['members']}")


def report_lines(d: dict, mechanism: str) -> list[str]:
    """The text report of a ``verify`` document: the ε bracket first (when there is one), then the
    verdict and its reason, the evidence and the scope."""
    cols = width()
    out: list[str] = []

    def add(text: str, indent: str = "") -> None:
        out.extend(wrap(text, cols, indent))

    add(f"{mechanism}  ε = {d['epsilon']}  neighbourhood: {d['neighbourhood']}")
    bracketed = bool(d.get("epsilon_bracket"))
    if bracketed:
        for i, line in enumerate(_bracket_lines(d["epsilon_bracket"], d["epsilon"], d.get("headline"))):
            add(line.lstrip(), "  " if i else "")
    if "delta" in d:
        add(f"verdict: {d['verdict']} for (ε, δ) = ({d['epsilon']}, {d['delta']}); certified {fmt_float(d['certified'])}; "
            f"worst δ(ε) {field_text(d, 'worst_delta')} (pure-DP log-ratio seen {field_text(d, 'worst_log_ratio')})")
    elif bracketed:  # the verdict follows from the headline; the scope's figures are diagnostics below
        add(f"verdict: {d['verdict']}; certified {fmt_float(d['certified'])}")
    else:
        add(f"verdict: {d['verdict']}; certified {fmt_float(d['certified'])}; worst log-ratio "
            f"{field_text(d, 'worst_log_ratio')} (float screen {field_text(d, 'worst_float_log_ratio')})")
    if d.get("reason"):
        add(f"reason: {d['reason']}", "  ")
    if bracketed and "delta" not in d:
        add(f"diagnostics: the scope's worst log-ratio {field_text(d, 'worst_log_ratio')} (float screen "
            f"{field_text(d, 'worst_float_log_ratio')})", "  ")
    cx = d.get("counterexample")
    if cx:
        rc = d.get("recheck") or {}
        checked = f"re-checked in {rc.get('arithmetic')}: {'proved' if rc.get('proved') else 'not proved'}"
        if "hockey_stick" in cx:
            add(f"counterexample: q = {value(cx['scores'])}, q' = {value(cx['neighbour_scores'])}, S = {value(cx['event'])}: "
                f"Pr[M(q) ∈ S] - e^ε Pr[M(q') ∈ S] = {(cx.get('hockey_stick_exact') or [None])[0] or fmt_float(cx['hockey_stick'][0])} > δ = {cx['delta']} ({checked})")
        else:
            where = "".join(f", {k} {value(cx[k])}" for k in ("box", "interval") if k in cx)
            lr, ex = cx.get("log_ratio"), cx.get("log_ratio_exact") or [None, None]
            shown = (f"[{ex[0] or fmt_float(lr[0])}, {ex[1] or fmt_float(lr[1])}]" if isinstance(lr, list) and len(lr) == 2
                     else fmt_float(lr))
            add(f"counterexample: q = {value(cx['scores'])}, q' = {value(cx['neighbour_scores'])}, output "
                f"{value(cx.get('output'))}{where}; log-ratio in {shown} > ε = {cx.get('epsilon', d['epsilon'])} ({checked})")
    s = d["scope"]
    add(f"scope: families {value(s['families']) or 'none'}; {s['vectors']} vectors, {s['pairs']} pairs, {s['triples']} "
        f"triples; decided in ball {s['decided_ball']}, exact {s['decided_exact']}, undecided {s['undecided']}")
    for note in s.get("notes", []):
        note = str(note)
        add(note if len(note) <= 400 else note[:400] + " …", "  ")
    add(f"{d['seconds']:.2f} s")
    return out


def unbroken(formula: str) -> str:
    """``formula`` with no-break spaces, so that a terminal wraps around it, never inside it.

    Args:
        formula: a short expression such as ``Σ E[err(M)] / Σ E[err(M*)]``.

    Returns:
        The same text with its spaces replaced by U+00A0 (which :func:`wrap` never breaks at).
    """
    return formula.replace(" ", "\u00a0")
