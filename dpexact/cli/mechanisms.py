"""``dpexact mechanisms``: the registered mechanisms, their parameters, defaults, citations and declared properties."""

from __future__ import annotations

from typing import Any, Optional

import typer

from .common import emit_json, output_option, prepare_output

__all__ = ["register", "catalogue"]


def catalogue() -> list[dict[str, Any]]:
    """One row per registered mechanism (:func:`dpexact.mechanisms.registry.info`) plus the
    properties it declares when built with ``epsilon=1`` and its other defaults (``None`` if
    it needs more parameters)."""
    from ..mechanisms.registry import available, info, mechanism
    from ..papers import papers_cited

    from ..mechanisms.registry import _factory
    from ..protocols import DeclaresKind

    rows = []
    for name in available():
        row = info(name)
        factory = _factory(name)  # a class that cannot be built without more parameters still declares its kind
        kind = factory.output_kind if isinstance(factory, DeclaresKind) else None
        try:
            m = mechanism(name, epsilon=1)
            row["properties"] = m.properties.as_dict()
            kind = m.output_kind
        except (ValueError, TypeError):
            row["properties"] = None
        # what the outputs are (dpexact.protocols): `pmf` serves the finite kinds, `prob` the real-valued ones
        row["output_kind"] = kind if isinstance(kind, str) else None
        row["papers"] = papers_cited(row["citations"])  # the source papers its citations point into
        rows.append(row)
    return rows


def register(app: typer.Typer) -> None:
    @app.command("mechanisms")
    def mechanisms_cmd(
        as_json: bool = typer.Option(False, "--json", help="print a JSON list"),
        output: Optional[str] = output_option(),
    ) -> None:
        """List the registered mechanisms: output kind, parameters (default), citations, declared properties."""
        target = prepare_output(output)
        from ..papers import PAPERS

        rows = catalogue()
        papers = [p.as_dict() for p in PAPERS.values()]
        emit_json({"mechanisms": rows, "papers": papers}, as_json, target, command="mechanisms", default=str)
        if as_json:
            return
        from rich.table import Table

        from .text import table_console, width

        wide = width() >= 140  # citations and summaries need room; --json has them all
        t = Table(title="registered mechanisms (any command also takes PATH.py:OBJECT or module:OBJECT)")
        for col in ("name", "outputs", "parameters") + (("citations", "summary") if wide else ()):
            t.add_column(col, overflow="fold")
        for r in rows:
            params = ", ".join(p["name"] + ("" if p["required"] else f"={p['default']}") for p in r["parameters"])
            extra = ("; ".join(r["citations"][:4]), r["summary"]) if wide else ()
            t.add_row(r["name"], r["output_kind"] or "?", params, *extra)
        c = table_console()
        c.print(t)
        if not wide:
            c.print("citations and summaries: at COLUMNS >= 140, or `dpexact mechanisms --json`")
        from ..papers import legend

        c.print("the source papers cited by short name (pf Theorem 1, hetsel eq. 4):")
        for line in legend(width(), indent="  "):
            c.print(line)
