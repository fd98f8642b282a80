"""``dpexact sweep SPEC.toml --store DIR``: a grid of tasks on Dask with a resumable results store."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_INTERRUPTED, STRICT_INT, LogProgress, emit_json, output_option, prepare_output

__all__ = ["register"]

#: rows of the table printed when neither --table nor --json is given
SUMMARY_ROWS = 20


def register(app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep_cmd(
        spec_path: Path = typer.Argument(..., metavar="SPEC.toml", help="the sweep spec (task kind and grid)"),
        store_dir: Path = typer.Option(..., "--store", help="results directory (one Parquet file per finished task)"),
        as_json: bool = typer.Option(False, "--json", help="print a JSON list, one object per grid point"),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="address of an existing Dask scheduler, e.g. tcp://host:8786"),
        workers: Optional[int] = typer.Option(None, "--workers", parser=STRICT_INT, help="local worker processes (default: the CPUs; 0: serial, no Dask)"),
        retry_failed: bool = typer.Option(False, "--retry-failed", help="run again the points whose stored result failed"),
        plot: Optional[Path] = typer.Option(None, "--plot", help="draw ratio vs ε per (n, k) from the store into this PNG"),
        plot_y: str = typer.Option("per-panel", "--plot-y", help="--plot's y-axes: per-panel (each panel its own range) | shared | log"),
        table: bool = typer.Option(False, "--table", help="print the grid's results as a table, one column per mechanism"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Run a grid of optimal / verify / pmf / check tasks; re-running resumes where it stopped."""
        from rich.console import Console

        from ..io import check_writable
        from ..sweep.executor import DRAIN_SECONDS
        from ..sweep import ResultStore, load_spec, point_record, run_sweep
        from ..sweep.report import Y_AXES, plot_ratios, table_rows

        err = Console(stderr=True)
        target = prepare_output(output)
        try:
            spec = load_spec(spec_path)
            if workers is not None and workers < 0:
                raise ValueError(f"--workers must be >= 0, got {workers}")
            if scheduler is not None and workers is not None:
                raise ValueError("--workers: give either --scheduler (an existing cluster) or --workers (a local one)")
            if plot_y not in Y_AXES:
                raise ValueError(f"--plot-y must be one of {', '.join(Y_AXES)}, got {plot_y[:40]!r}")
            if plot is None and plot_y != "per-panel":
                raise ValueError("--plot-y applies to --plot only")
            if plot is not None:
                if spec.task != "optimal":
                    raise ValueError("--plot: draws optimality ratios, so it needs a task = \"optimal\" sweep")
                check_writable(plot, "--plot")
            store = ResultStore(store_dir)
        except (ValueError, TypeError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2)
        bar = _ProgressBar(err)
        try:
            with bar:
                report = run_sweep(spec, store, scheduler=scheduler, workers=workers, retry_failed=retry_failed,
                                   on_progress=bar.update, on_interrupt=lambda m: err.print(
                                       f"interrupted: storing the {m} running task(s) first (at most {DRAIN_SECONDS:g} s); "
                                       "Ctrl-C again to abandon them", markup=False))
        except (ValueError, TypeError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2)
        except OSError as exc:  # the store could not be written (disk full): finished results stay in it
            typer.echo(f"error: --store: cannot write in {store_dir} ({exc.strerror or exc}); the results stored so far are "
                       "kept, run the same command to resume", err=True)
            raise typer.Exit(code=1)
        except KeyboardInterrupt:
            done = len(ResultStore(store_dir).scan().rows)
            resume = ["dpexact", "sweep", str(spec_path), "--store", str(store_dir)]
            resume += ["--scheduler", scheduler] if scheduler else ["--workers", str(workers)] if workers is not None else []
            # the same outputs as the command the user gave (--retry-failed is done: the failed rows ran again)
            resume += (["--json"] if as_json else []) + (["--table"] if table else []) + (["--output", output] if output else [])
            resume += (["--plot", str(plot)] if plot is not None else []) + (["--plot-y", plot_y] if plot_y != "per-panel" else [])
            typer.echo(f"interrupted: {done} finished result(s) are in {store_dir}; resume with:\n  {shlex.join(resume)}",
                       err=True)
            raise typer.Exit(code=EXIT_INTERRUPTED)
        for path, reason in report.corrupt:
            err.print(f"corrupt store file {path} ({reason}): not used; its task was run again", markup=False)
        if as_json or target is not None:
            emit_json({"task": spec.task, "points": [point_record(p, report.rows.get(p.key)) for p in report.points]},
                      as_json, target, command="sweep")
        failed = report.failed
        err.print(f"{len(report.points)} points: {len(report.computed)} computed, {len(report.skipped)} already in the store, "
                  f"{len(failed)} failed", markup=False)
        if table or not as_json:  # without --table a short table (the first rows), never a silent stdout
            from rich.table import Table

            from .text import table_console, wrap

            header, lines, notes = table_rows(report.points, report.rows)
            if not table and len(lines) > SUMMARY_ROWS:
                notes = [f"the first {SUMMARY_ROWS} of {len(lines)} rows: --table prints them all, --json every result"] + notes
                lines = lines[:SUMMARY_ROWS]
            t = Table(title=f"sweep {spec_path.name} ({spec.task})")
            for h in header:
                t.add_column(h, overflow="fold")
            for line in lines:
                t.add_row(*line)
            out = table_console(stderr=as_json)
            out.print(t)
            for note in notes:
                for part in wrap(note):
                    out.print(part)
        if plot is not None:
            try:
                plot_ratios(report.points, report.rows, plot, title=f"{spec_path.name}: optimality ratio vs ε", y=plot_y)
            except ValueError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(code=1)
            err.print(f"figure written to {plot}", markup=False)
        if failed or report.missing:
            raise typer.Exit(code=1)


class _ProgressBar:
    """rich progress bar: done / running / failed of this run's jobs, with an ETA."""

    def __init__(self, console: object) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._p = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("running {task.fields[running]} · failed {task.fields[failed]}"),
                           TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=True)
        self._task = None
        self._log = LogProgress(enabled=not console.is_terminal)  # type: ignore[attr-defined]
        self._log.update("sweep")

    def __enter__(self) -> "_ProgressBar":
        self._log.__enter__()
        self._p.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._p.__exit__(*exc)
        self._log.__exit__()

    def update(self, prog: object) -> None:
        self._log.update(f"sweep (running {prog.running}, failed {prog.failed})",  # type: ignore[attr-defined]
                         prog.done + prog.failed, prog.total)  # type: ignore[attr-defined]
        if self._task is None:
            self._task = self._p.add_task("sweep", total=prog.total, running=0, failed=0)  # type: ignore[attr-defined]
        self._p.update(self._task, completed=prog.done + prog.failed, running=prog.running, failed=prog.failed)  # type: ignore[attr-defined]
