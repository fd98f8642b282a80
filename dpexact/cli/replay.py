"""``dpexact replay FILE``: re-check the counterexample or witness that ``verify -o FILE`` saved
(:mod:`dpexact.verification.replay`), or the privacy-map witnesses of ``audit map -o FILE``
(:func:`dpexact.audit.maps.recheck`): no search, exact or ball arithmetic. Exit 0 when the evidence
holds, 1 when it does not, 2 when the file is malformed, names code the user did not name
(a mechanism outside the registry is built only from ``-m``), or its labels disagree with what
is checked (:mod:`dpexact.verification.replay_record`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_USAGE, emit_json, exit_with, output_option, prepare_output

__all__ = ["register"]

#: largest replay input: a verify document with its evidence is a few kilobytes
MAX_REPLAY_BYTES = 4 << 20
#: most JSON values read from it (a verify document has a few hundred)
MAX_REPLAY_VALUES = 100_000


def _malformed(message: str) -> None:
    from ..verification.replay_record import printable

    typer.echo(f"error: {printable(message, 400)}", err=True)
    raise typer.Exit(code=EXIT_USAGE)


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay_cmd(
        file: Path = typer.Argument(..., metavar="FILE", help="a document written by `dpexact verify -o FILE` (or its replay record)"),
        mechanism: Optional[str] = typer.Option(None, "--mechanism", "-m", help="PATH.py:OBJECT or module:OBJECT: the mechanism outside the registry the record names (imports (runs) it: use code you trust); the record must name the same object. Without -m only registry mechanisms are replayed"),
        arithmetic: str = typer.Option("exact", "--arithmetic", help="exact (balls where the mechanism has no exact law) | ball"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Re-check a saved counterexample / witness: exit 0 if it holds, 1 if not, 2 if the file is malformed."""
        from ..io import JsonLimitError, read_json_bounded
        from ..verification.replay import replay
        from ..verification.replay_record import printable

        if arithmetic not in ("exact", "ball"):
            _malformed(f"--arithmetic must be exact or ball, got {arithmetic[:40]!r}")
        target = prepare_output(output)
        shown = printable(file, 120)
        try:
            if not file.is_file():
                _malformed(f"FILE: {shown} is not a readable file")
        except OSError as exc:  # a name too long for the file system
            _malformed(f"FILE: cannot use {shown} ({exc.strerror or exc})")
        try:  # bounded: size, nesting and element count refused before any work
            doc = read_json_bounded(file, MAX_REPLAY_BYTES, "FILE", max_values=MAX_REPLAY_VALUES, allow_constants=False)
        except JsonLimitError as exc:
            _malformed(str(exc))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            _malformed(f"FILE: {shown} is not JSON ({str(exc)[:80]})")
        from .audit import is_map_witness_document, replay_map_witnesses

        if is_map_witness_document(doc):  # a library's privacy-map witness (`dpexact audit map`)
            if mechanism is not None or arithmetic != "exact":
                _malformed("--mechanism / --arithmetic: a map witness names no mechanism and is re-checked in ball arithmetic; drop the option")
            try:
                replay_map_witnesses(doc, shown, as_json, output)
            except ValueError as exc:
                _malformed(f"FILE: {shown}: {str(exc)[:300]}")
            return
        try:
            res = replay(doc, arithmetic, mechanism=mechanism)
        except (ValueError, TypeError, KeyError, ZeroDivisionError, OverflowError) as exc:
            _malformed(f"FILE: {shown}: {str(exc)[:300]}")
            return
        out = {"file": str(file), **res.as_dict()}
        from ..schemas import document, validate

        validate("replay", document("replay", out))  # never print what breaks the schema
        emit_json(out, as_json, target, command="replay", allow_nan=False)
        if not as_json:
            from .text import wrap

            lr = res.log_ratio
            span = "" if lr is None else f"; log-ratio in [{lr[0]:.9g}, {lr[1]:.9g}]"
            lines = [f"{res.mechanism}  ε = {res.epsilon}: {res.kind} {'holds' if res.holds else 'does NOT hold'}",
                     f"  {res.claim}  (re-checked in {res.arithmetic}; neighbours {'yes' if res.neighbours else 'no'}{span})"]
            if res.note:
                lines.append(f"  {res.note}")
            for line in lines:
                line = printable(line, 2000)
                for part in wrap(line, indent=line[: len(line) - len(line.lstrip())]):
                    typer.echo(part)
        exit_with(0 if res.holds else EXIT_FAIL)
