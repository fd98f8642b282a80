"""``dpexact bench``: runs the benchmarks in ``benchmarks/`` logic shipped with the package.

The output path is checked before the benchmark starts and written atomically at the end, so
an unwritable path costs nothing and a failed write never leaves a truncated file.
"""

from __future__ import annotations

from typing import Optional

import typer


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=code)


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        quick: bool = typer.Option(False, "--quick", help="smaller sizes"),
        as_json: bool = typer.Option(False, "--json", help="print the results as JSON to stdout (progress goes to stderr)"),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="write the results as JSON to this file"),
        accuracy: bool = typer.Option(False, "--accuracy", help="PF float/recurrence vs ball on DPBench instead of timings"),
        data: str = typer.Option("", "--data", help="DPBench directory (default $DPEXACT_DPBENCH)"),
        pmf_only: bool = typer.Option(False, "--pmf-only",
                                      help="the PF / EM / floor rows only (no ball, recurrence or bracket rows)"),
        bracket_only: bool = typer.Option(False, "--bracket-only",
                                          help="the ε bracket rows on own EM / PF only (no pmf timings)"),
    ) -> None:
        """Time PF (float, ball, recurrence) against EM and a bare-numpy floor in one run, as CPU-time
        ratios (median of 7 interleaved rounds, load shown), and the ε bracket on own EM / PF
        (define_mechanism) against the scope search at n = 3, 5 (alone: --bracket-only); or --accuracy tables."""
        from ..io import atomic_write_json, check_writable

        def echo(line: str) -> None:  # with --json, stdout carries the JSON only; lines fit COLUMNS
            from .text import wrap

            for part in wrap(line, indent=line[: len(line) - len(line.lstrip())]) if line.strip() else [line]:
                typer.echo(part, err=as_json)

        if data and not accuracy:  # an option that cannot apply is refused, not ignored
            _fail("--data: the DPBench directory is read by --accuracy only (the timings use generated scores)")
        if quick and accuracy:
            _fail("--quick: applies to the timings, not to --accuracy (which reads every DPBench file)")
        if pmf_only and accuracy:
            _fail("--pmf-only: applies to the timings, not to --accuracy")
        if bracket_only and (accuracy or pmf_only):
            _fail("--bracket-only: the bracket rows alone; it cannot be combined with "
                  + ("--accuracy" if accuracy else "--pmf-only"))
        target = None
        if output is not None:
            try:
                target = check_writable(output, "--output")
            except ValueError as exc:
                _fail(str(exc))
        try:
            if bracket_only:
                from ..benchmarks import run_bracket_only

                result = run_bracket_only(quick=quick, echo=echo)
            elif accuracy:
                from ..benchmarks import run_pf_accuracy

                result: object = run_pf_accuracy(data or None, echo=echo)
            else:
                from ..benchmarks import run_pmf_benchmark

                result = run_pmf_benchmark(quick=quick, echo=echo, pmf_only=True) if pmf_only \
                    else run_pmf_benchmark(quick=quick, echo=echo)
        except (ValueError, TypeError, OSError) as exc:
            _fail(str(exc), code=1)
        from ..schemas import document

        from ..schemas.numbers import free_form

        # a float is a number or null in every document (an infinite ratio: a round timed at 0 CPU s)
        result = free_form(document("bench", result if isinstance(result, dict) else {"rows": result}))
        if target is not None:
            try:
                atomic_write_json(target, result, name="--output", indent=1)
            except OSError as exc:
                _fail(f"--output: cannot write {target} ({exc.strerror or exc}); the results were not saved", code=1)
        if as_json:
            import json

            typer.echo(json.dumps(result, indent=1, allow_nan=False))
