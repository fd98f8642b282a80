"""``dpexact check``: run the claim catalogue of the source papers (``proofs_checks/``).

The catalogue is the top-level package ``proofs_checks`` (installed next to ``dpexact``; it
imports ``dpexact``, so it is imported here lazily, inside the command, to keep the layers
one-way). Exit status 0 when every check ran, whatever the verdicts; 1 when a check crashed (the crash is
reported and the run continues).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def check(
        paper: Optional[list[str]] = typer.Option(None, "--paper", help="pf | adp | err | brr | hetsel (repeatable)"),
        claim: Optional[list[str]] = typer.Option(None, "--claim", help="claim id, or a prefix ending in * (repeatable)"),
        quick: bool = typer.Option(False, "--quick", help="reduced scope, same claim ids"),
        report: Optional[Path] = typer.Option(None, "--report", help="write report.md and PNG figures into this directory"),
        json_out: Optional[Path] = typer.Option(None, "--json", help="write the verdicts as JSON to this file"),
    ) -> None:
        """Check the papers' claims: verdict holds / refuted / inconclusive, with evidence."""
        import json

        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        from rich.table import Table

        from .. import __version__

        import proofs_checks.catalogue as cat
        try:
            claims = cat.select(paper or None, claim or None)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2)
        console = Console(stderr=True)
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                      console=console, transient=True) as bar:
            task = bar.add_task("checking", total=len(claims))
            outcomes = cat.run_checks(
                claims, quick=quick,
                on_start=lambda c: bar.update(task, description=f"checking {c.id}"),
                on_done=lambda o: bar.advance(task),
            )
        from proofs_checks.report import short_evidence, write_report

        table = Table(title=f"dpexact check — {len(outcomes)} claims{' (quick)' if quick else ''}")
        for col, kw in (("id", {}), ("verdict", {}), ("certified", {}), ("evidence", {"overflow": "fold"}), ("seconds", {"justify": "right"})):
            table.add_column(col, **kw)
        style = {"holds": "green", "refuted": "red", "inconclusive": "yellow"}
        for o in outcomes:
            v = o.verdict.verdict + (" (crashed)" if o.crashed else "")
            table.add_row(o.claim.id, f"[{style[o.verdict.verdict]}]{v}[/]", "yes" if o.verdict.certified else "no",
                          short_evidence(o, 70), f"{o.seconds:.2f}")
        Console().print(table)
        if json_out is not None:
            json_out.parent.mkdir(parents=True, exist_ok=True)  # e.g. --report report --json report/claims.json
            json_out.write_text(json.dumps(cat.to_json(outcomes, __version__), indent=1, ensure_ascii=False), encoding="utf-8")
        if report is not None:
            write_report(outcomes, report, __version__, quick)
        crashed = [o.claim.id for o in outcomes if o.crashed]
        if crashed:
            typer.echo(f"crashed checks: {', '.join(crashed)}", err=True)
            raise typer.Exit(code=1)
