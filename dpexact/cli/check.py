"""``dpexact check``: run the claim catalogue of the source papers (``proofs_checks/``), or a
researcher's own catalogue written with the same records (``--catalogue``).

The catalogue is the top-level package ``proofs_checks`` (installed next to ``dpexact``; it
imports ``dpexact``, so it is imported here lazily, inside the command, to keep the layers
one-way).

Results survive faults: output paths are checked before any claim runs. ``--output FILE`` keeps
the previous complete file until this run's is complete: the running results go to
``FILE.partial`` beside it (marked ``"complete": false``, rewritten atomically as claims finish),
which is moved over ``FILE`` at the end. Ctrl-C or a failed write leaves ``FILE`` as it was and
the last good ``FILE.partial``, never truncated JSON. A character device or FIFO given as
``--output`` (``/dev/stdout``) gets the final document only, written in place.

Exit status (``--fail-on``): with ``expectation`` (the default) 0 when every verdict is the one
its claim records as expected (claims with no recorded expectation do not count), 1 when one
differs, 3 when none differs but a claim could not run because its data set is missing (a
one-line note on stderr says how to get it); with ``refutation`` 0 when every claim holds, 1 when one is refuted, 3 when none is
refuted but one is inconclusive. Either way 1 when a check crashed or the results could not be
written, 2 on bad options, 130 when interrupted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer

from .common import EXIT_FAIL, EXIT_OK, EXIT_UNDECIDED, STRICT_INT, LogProgress, exit_with

#: seconds between two rewrites of the --output file while claims run
WRITE_INTERVAL = 1.0


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=code)


def check_help() -> str:
    """The help of ``dpexact check``: what it does, then the five source papers with their citations."""
    from ..papers import legend

    papers = "\n".join(legend(78, indent="  "))
    return ("Check the papers' claims: verdict holds / refuted / inconclusive, with evidence and severity.\n\n"
            "A claim id is <paper>.<kind>.<tag>; the papers (short names pf, adp, err, brr, hetsel) are:\n\n"
            f"\b\n{papers}")


def register(app: typer.Typer) -> None:
    @app.command(help=check_help())
    def check(
        paper: Optional[list[str]] = typer.Option(None, "--paper", help="pf | adp | err | brr | hetsel, or a paper of --catalogue (repeatable)"),
        claim: Optional[list[str]] = typer.Option(None, "--claim", help="claim id, or a prefix ending in * (repeatable)"),
        catalogue: Optional[str] = typer.Option(None, "--catalogue", help="your own claims: a .py file or a module name, written with proofs_checks.claim (it is run as Python: use files you trust)"),
        quick: bool = typer.Option(False, "--quick", help="reduced scope, same claim ids"),
        verdict: Optional[list[str]] = typer.Option(None, "--verdict", help="list only claims with this verdict: holds | refuted | inconclusive (repeatable)"),
        severity: Optional[list[str]] = typer.Option(None, "--severity", help="list only refutations of this severity: false-statement | wrong-number | erratum | not-reproducible (repeatable)"),
        show_all: bool = typer.Option(False, "--all", help="also print the full table of every claim"),
        report: Optional[Path] = typer.Option(None, "--report", help="write report.md and PNG figures into this directory"),
        as_json: bool = typer.Option(False, "--json", help="print the verdicts as JSON to stdout instead of the summary"),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="write the verdicts as JSON to this file (rewritten atomically as claims finish)"),
        workers: Optional[int] = typer.Option(None, "--workers", parser=STRICT_INT, help="run the checks on N local Dask worker processes"),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="run the checks on an existing Dask cluster, e.g. tcp://host:8786"),
        resume: bool = typer.Option(False, "--resume", help="continue the run interrupted with this --output: keep the claims FILE.partial holds (same catalogue and scope), run the rest"),
        fail_on: str = typer.Option("expectation", "--fail-on", help="exit 1 when a verdict differs from its expectation (expectation), or when a claim is refuted (refutation; 3 if one is inconclusive)"),
    ) -> None:
        """Check the papers' claims: verdict holds / refuted / inconclusive, with evidence and severity."""
        import shutil

        import proofs_checks.catalogue as cat

        from .. import __version__
        from .. import io

        if fail_on not in ("expectation", "refutation"):
            _fail(f"--fail-on must be expectation or refutation, got {fail_on!r}")
        if workers is not None and scheduler is not None:  # one would be ignored: refused, as `sweep` does
            _fail("--workers: give either --scheduler (an existing cluster) or --workers (a local one)")
        bad = [v for v in verdict or () if v not in cat.VERDICTS]
        if bad:
            _fail(f"--verdict: unknown {bad}; choose from {', '.join(cat.VERDICTS)}")
        bad = [s for s in severity or () if s not in cat.SEVERITIES]
        if bad:
            _fail(f"--severity: unknown {bad}; choose from {', '.join(cat.SEVERITIES)}")
        try:
            own = cat.load_catalogue(catalogue) if catalogue else None
            claims = cat.select(paper or None, claim or None, claims=own)
        except ValueError as exc:
            _fail(str(exc))
        try:
            # --report is a directory this command makes, so an --output inside it (the README's main job:
            # --report report --output report/claims.json) is checked once that directory exists
            if report is not None:
                io.check_writable_dir(report, "--report")
            if output is not None:
                io.check_writable(output, "--output", partial=True)
        except ValueError as exc:
            _fail(str(exc))

        kept = _resumed(output, claims, quick) if resume else {}

        def document(outcomes: list, complete: bool, **extra: Any) -> dict:
            from ..schemas import document as versioned

            return versioned("check", {**cat.to_json(outcomes, __version__, quick=quick, complete=complete, total=len(claims)),
                                       **extra})

        # the running file beside --output; a device or FIFO gets the final document only
        running = None if output is None or io.is_stream(output) else io.partial_path(output)

        def save(outcomes: list, complete: bool, **extra: Any) -> None:
            target = output if complete else running
            if target is None:
                return
            try:
                io.atomic_write_json(target, document(outcomes, complete, **extra), name="--output", indent=1)
            except OSError as exc:
                kept = f"{output} is unchanged" + (f"; {running} holds the last partial result" if running is not None
                                                   and running.exists() else "")
                _fail(f"--output: cannot write {target} ({exc.strerror or exc}) after {len(outcomes)} of {len(claims)} "
                      f"claims; {kept}", 1)
            if complete and running is not None:
                running.unlink(missing_ok=True)

        done: list = [kept[c.id] for c in claims if c.id in kept]  # in catalogue order, kept first
        save(done, complete=False)  # the running file says at once that this run has started
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        to_run = [c for c in claims if c.id not in kept]
        if kept:
            typer.echo(f"resuming: {len(kept)} of {len(claims)} claims kept from {running}, {len(to_run)} to run", err=True)
        last = [time.monotonic()]

        def progress(c: Any, o: Any) -> None:
            if o is None:
                bar.update(task, description=f"checking {c.id}")
                log.update(f"checking {c.id}")
                return
            done.append(o)
            bar.advance(task)
            log.update(done=len(done))
            if time.monotonic() - last[0] >= WRITE_INTERVAL:
                save(done, complete=False)
                last[0] = time.monotonic()

        console = Console(stderr=True)
        log = LogProgress(enabled=not console.is_terminal)
        log.update("checking", len(done), len(claims))
        try:
            with log, Progress(TextColumn("{task.description}", markup=False), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                          TimeElapsedColumn(), console=console, transient=True) as bar:
                task = bar.add_task("checking", total=len(claims), completed=len(done))
                if workers is None and scheduler is None:
                    ran = cat.run(to_run, quick=quick, progress=progress)
                else:  # the sweep executor (dpexact.sweep): same outcomes, in the same order
                    from ..sweep.claims import run_claims

                    try:
                        ran = run_claims(to_run, quick, scheduler=scheduler, workers=workers, progress=progress,
                                         catalogue=catalogue)
                    except ValueError as exc:  # --workers < 1, --scheduler unreachable
                        _fail(str(exc))
        except KeyboardInterrupt:
            save(done, complete=False, interrupted=True)
            where = (f"; {running} holds them, marked incomplete; {output} is unchanged" if running is not None
                     else f"; {output} was not written" if output is not None else "")
            typer.echo(f"interrupted after {len(done)} of {len(claims)} claims{where}", err=True)
            if running is not None:
                import shlex
                import sys

                args = [a for a in sys.argv[1:] if a != "--resume"] if sys.argv[1:2] == ["check"] else []
                if args:
                    typer.echo(f"resume with:\n  {shlex.join(['dpexact', *args, '--resume'])}", err=True)
                else:
                    typer.echo("resume: the same command with --resume", err=True)
            raise typer.Exit(code=130)
        by_id = {o.claim.id: o for o in ran}
        outcomes = [kept[c.id] if c.id in kept else by_id[c.id] for c in claims]
        save(outcomes, complete=True)
        if report is not None:
            from proofs_checks.report import write_report

            try:
                write_report(outcomes, report, __version__, quick)
            except OSError as exc:
                _fail(f"--report: cannot write into {report} ({exc.strerror or exc})", 1)
        if as_json:
            import json

            typer.echo(json.dumps(document(outcomes, True), indent=1, ensure_ascii=False))
        else:
            _print_summary(outcomes, quick, verdict, severity, show_all, shutil.get_terminal_size().columns)
        crashed = [o.claim.id for o in outcomes if o.crashed]
        if crashed:
            typer.echo(f"crashed checks: {', '.join(crashed)}", err=True)
        not_run = [o for o in outcomes if o.verdict.missing_data]
        if not_run:
            from ..data import DPBENCH_ENV

            typer.echo(f"{len(not_run)} claim(s) inconclusive, not run: DPBench data missing or failing its checksum; "
                       f"get it with `dpexact data fetch dpbench --dir DIR` and set {DPBENCH_ENV}=DIR", err=True)
        exit_with(check_exit(outcomes, quick, fail_on))


def _resumed(output: Optional[Path], claims: list, quick: bool) -> dict:
    """The finished claims of ``FILE.partial`` that ``--resume`` keeps (checked against ``claims``)."""
    import json

    import proofs_checks.catalogue as cat

    from .. import io
    from .schema import MAX_DOCUMENT_BYTES

    if output is None or io.is_stream(output):
        _fail("--resume continues from --output FILE's FILE.partial: give the --output FILE of the interrupted run")
    partial = io.partial_path(output)
    if not partial.is_file():
        _fail(f"--resume: {partial} does not exist (nothing to continue; run without --resume)")
    try:
        doc = json.loads(io.read_bounded_text(partial, MAX_DOCUMENT_BYTES, "--resume"))
        return cat.outcomes_from_json(doc, claims, quick)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        msg = str(exc)
        _fail(msg if msg.startswith("--resume") else f"--resume: {partial} is not a check results file ({msg[:80]})")
    return {}


def check_exit(outcomes: list, quick: bool, fail_on: str) -> int:
    """The exit status of a finished run (module docstring): a crash is a failure either way."""
    if any(o.crashed for o in outcomes):
        return EXIT_FAIL
    if fail_on == "expectation":
        # a claim that could not run on its data is inconclusive, not a difference from its record
        differ = [o for o in outcomes if not o.verdict.missing_data
                  and o.claim.expected_verdict(quick) not in (None, o.verdict.verdict)]
        not_run = any(o.verdict.missing_data for o in outcomes)
        return EXIT_FAIL if differ else EXIT_UNDECIDED if not_run else EXIT_OK
    verdicts = {o.verdict.verdict for o in outcomes}
    return EXIT_FAIL if "refuted" in verdicts else EXIT_UNDECIDED if "inconclusive" in verdicts else EXIT_OK


#: the summary's line budget without filters or --all
SUMMARY_LINES = 60


def _print_summary(outcomes: list, quick: bool, verdict: Optional[list[str]], severity: Optional[list[str]], show_all: bool,
                   width: int) -> None:
    """The findings first, then with --all every selected claim (plain text: user text printed literally)."""
    from proofs_checks.report import SEVERITY_HEADS, filter_outcomes, full_table_rows, one_line, summary_lines

    filtered = bool(verdict or severity)
    shown = filter_outcomes(outcomes, verdict, severity) if filtered else None
    title = f"dpexact check: {len(outcomes)} claims{' (quick scope)' if quick else ''}"
    for line in summary_lines(outcomes, quick, width, shown, title, None if filtered or show_all else SUMMARY_LINES):
        typer.echo(line)
    if show_all:
        typer.echo("")
        typer.echo(one_line(f"every claim: id, verdict, severity, certified, seconds; evidence below", width))
        for cid, v, sev, cert, ev, sec in full_table_rows(shown if filtered else outcomes, width):
            head = f"{v}{' ' + SEVERITY_HEADS.get(sev, sev) if sev else ''}  certified {cert}  {sec} s"
            if len(cid) + len(head) + 2 <= width:
                typer.echo(f"{cid}  {head}")
            else:
                typer.echo(one_line(cid, width))
                typer.echo(f"  {head}")
            typer.echo(one_line(f"    {ev}", width))
