"""``dpexact bench``: runs the benchmarks in ``benchmarks/`` logic shipped with the package."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        quick: bool = typer.Option(False, "--quick", help="smaller sizes"),
        json_out: str = typer.Option("", "--json", help="write results to this JSON file"),
    ) -> None:
        """Time PF (float, ball, recurrence) against EM in one run; report ratios."""
        from ..benchmarks import run_pmf_benchmark

        run_pmf_benchmark(quick=quick, json_path=json_out or None)
