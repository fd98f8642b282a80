"""``dpexact bench``: runs the benchmarks in ``benchmarks/`` logic shipped with the package."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        quick: bool = typer.Option(False, "--quick", help="smaller sizes"),
        json_out: str = typer.Option("", "--json", help="write results to this JSON file"),
        accuracy: bool = typer.Option(False, "--accuracy", help="PF float/recurrence vs ball on DPBench instead of timings"),
        data: str = typer.Option("", "--data", help="DPBench directory (default $DPEXACT_DPBENCH)"),
    ) -> None:
        """Time PF (float, ball, recurrence) against EM in one run; or --accuracy tables."""
        if accuracy:
            import json

            from ..benchmarks import run_pf_accuracy

            rows = run_pf_accuracy(data or None)
            if json_out:
                with open(json_out, "w") as fh:
                    json.dump(rows, fh, indent=1)
            return
        from ..benchmarks import run_pmf_benchmark

        run_pmf_benchmark(quick=quick, json_path=json_out or None)
