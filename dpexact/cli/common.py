"""Conventions shared by every subcommand: ``--json`` prints one JSON document to stdout,
``--output FILE`` writes the same document atomically (the path is checked before any work),
and integer options accept plain decimal digits only."""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

import typer

__all__ = ["STRICT_INT", "strict_int", "output_option", "prepare_output", "emit_json", "Progress", "EXIT_OK", "EXIT_FAIL",
           "EXIT_USAGE", "EXIT_UNDECIDED", "EXIT_INTERRUPTED", "VERDICT_EXIT", "exit_with", "LogProgress",
           "deprecated_alias"]

#: exit statuses, the same in every command (README, "Exit codes"): the answer, not only success
EXIT_OK = 0  # private / holds / conforms / computed
EXIT_FAIL = 1  # violated / refuted / does not conform / a row is wrong / a task failed / internal error
EXIT_USAGE = 2  # bad input: options, files, mechanism parameters
EXIT_UNDECIDED = 3  # undecided / inconclusive / private-within-scope: no proof either way
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)

#: a privacy verdict's exit status; "private-within-scope" is not a proof, so it is not 0
VERDICT_EXIT = {"private": EXIT_OK, "violated": EXIT_FAIL, "undecided": EXIT_UNDECIDED, "inconclusive": EXIT_UNDECIDED,
                "private-within-scope": EXIT_UNDECIDED}


def exit_with(code: int) -> None:
    """End the command with ``code`` (nothing to do for 0)."""
    if code != EXIT_OK:
        raise typer.Exit(code=code)

_INT_RE = re.compile(r"[+-]?[0-9]+")


def strict_int(value: Any) -> int:
    """An integer written with decimal digits and an optional sign only (``parser=`` of an option).

    Python's ``int()`` also reads ``9_9`` as 99 and accepts surrounding whitespace and
    non-ASCII digits; a command-line count that silently differs from what was typed is refused.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    if not _INT_RE.fullmatch(text):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{shown!r} is not an integer (digits only, no separators)")
    return int(text)


def deprecated_alias(new: str, new_value: Any, old: str, old_value: Any) -> Any:
    """The value of option ``new``, or of its former name ``old`` (kept for one release, with a
    note on stderr); both given is a usage error. One meaning per option name across commands."""
    if old_value is None:
        return new_value
    if new_value is not None:
        typer.echo(f"error: {old} is the former name of {new}: give {new} only", err=True)
        raise typer.Exit(code=EXIT_USAGE)
    PENDING_NOTES.append(f"note: {old} is deprecated and will be removed in the next release; use {new}")
    return old_value


#: notes printed on stderr when the command ends without a usage error (a usage error stays one line)
PENDING_NOTES: list[str] = []


def flush_notes(printed: bool = True) -> None:
    """Print (or, after a usage error, drop) the pending notes."""
    notes = list(PENDING_NOTES)
    PENDING_NOTES.clear()
    if printed:
        for note in notes:
            typer.echo(note, err=True)


#: ``typer.Option(..., parser=STRICT_INT)``: every integer option of the CLI
STRICT_INT = strict_int


def output_option() -> Any:
    """The ``--output/-o FILE`` option, same spelling and meaning in every command."""
    return typer.Option(None, "--output", "-o", help="also write the JSON result to this file (atomically)")


def prepare_output(output: "Optional[str | Path]") -> Optional[Path]:
    """Check ``--output`` before any work; a bad path ends the command with exit status 2."""
    if output is None:
        return None
    from ..io import check_writable

    try:
        return check_writable(output, "--output")
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None


def emit_json(result: Any, as_json: bool, target: Optional[Path], *, command: str, **dump_kwargs: Any) -> None:
    """Write ``result`` to ``target`` (atomically) and, with ``--json``, print it to stdout, as the
    versioned document of ``command`` (:func:`dpexact.schemas.document`)."""
    from ..schemas import document

    # JSON has no infinities: a float field is a number or null (dpexact.schemas.numbers), so a stray
    # inf / NaN is a bug to fail on, never an ``Infinity`` token a strict reader rejects
    dump_kwargs.setdefault("allow_nan", False)
    result = document(command, result)
    if target is not None:
        from ..io import atomic_write_json

        try:
            atomic_write_json(target, result, name="--output", **dump_kwargs)
        except OSError as exc:
            typer.echo(f"error: --output: cannot write {target} ({exc.strerror or exc}); the result was not saved", err=True)
            raise typer.Exit(code=1) from None
    if as_json:
        typer.echo(json.dumps(result, **dump_kwargs))


#: seconds between two progress lines in a log (stderr not a terminal); DPEXACT_PROGRESS_SECONDS overrides
PROGRESS_SECONDS = 10.0


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class LogProgress:
    """Plain progress lines on stderr when stderr is not a terminal (a CI log, a file): at most one
    every ``every`` seconds (``DPEXACT_PROGRESS_SECONDS``, default :data:`PROGRESS_SECONDS`), from
    a timer thread, so a long phase with no news still shows it is alive:

        progress: checking pf.theorem.3  12/54  elapsed 1m05s  ETA 3m47s

    The ETA assumes the remaining items cost what the finished ones did on average. A terminal
    gets the rich display instead (nothing is printed here)."""

    def __init__(self, every: float | None = None, enabled: bool | None = None) -> None:
        if every is None:
            try:
                every = float(os.environ.get("DPEXACT_PROGRESS_SECONDS", PROGRESS_SECONDS))
            except ValueError:
                every = PROGRESS_SECONDS
        self.every = every if math.isfinite(every) and every > 0 else PROGRESS_SECONDS
        self.enabled = (not sys.stderr.isatty()) if enabled is None else enabled
        self.phase, self.done, self.total = "", None, None  # type: tuple[str, int | None, int | None]
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "LogProgress":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="dpexact-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def update(self, phase: str | None = None, done: int | None = None, total: int | None = None) -> None:
        if phase is not None:
            self.phase = " ".join(phase.split())
        if done is not None:
            self.done = done
        if total is not None:
            self.total = total

    def line(self) -> str:
        """One line at most ``COLUMNS`` wide (the phase is shortened, never the numbers)."""
        import shutil

        elapsed = time.monotonic() - self._t0
        tail = f"  {self.done or 0}/{self.total}" if self.total else ""
        tail += f"  elapsed {_duration(elapsed)}"
        if self.total and self.done:
            tail += f"  ETA {_duration(elapsed / self.done * max(0, self.total - self.done))}"
        phase = self.phase or "working"
        room = max(10, shutil.get_terminal_size((80, 24)).columns - len("progress: ") - len(tail))
        return f"progress: {phase if len(phase) <= room else phase[: room - 1] + '…'}{tail}"

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            print(self.line(), file=sys.stderr, flush=True)


class Progress:
    """A spinner with elapsed time on stderr when stderr is a terminal (stdout stays clean for
    ``--json``), plain progress lines when it is not (:class:`LogProgress`), plus one-line notes
    (LP size, solve time) printed on stderr either way."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True, markup=False, highlight=False)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                 console=self.console, transient=True)
        self.task: Any = None
        self.log = LogProgress(enabled=not self.console.is_terminal)

    def __enter__(self) -> "Progress":
        self.log.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.log.__exit__()
        if self.task is not None:
            self.progress.stop()

    def step(self, description: str) -> None:
        if not self.console.is_terminal:  # a log file or a pipe gets no spinner frames (nor a blank line)
            self.log.update(description)
            return
        if self.task is None:  # started by the first phase: an early error prints nothing else
            self.progress.start()
            self.task = self.progress.add_task(description, total=None)
        else:
            self.progress.update(self.task, description=description)

    def note(self, line: str) -> None:
        from .text import wrap

        for part in wrap(line, self.console.width):
            self.progress.console.print(part, soft_wrap=True)

    def report(self, kind: str, text: str) -> None:
        """The ``progress(kind, text)`` callback of the library's long computations (``"step"``: a
        phase starts; ``"note"``: a line to keep)."""
        (self.step if kind == "step" else self.note)(text)
