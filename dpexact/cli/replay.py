"""``dpexact replay FILE``: re-check the counterexample or witness that ``verify -o FILE`` saved
(:mod:`dpexact.verify.replay`): no search, exact or ball arithmetic. Exit 0 when the evidence
holds, 1 when it does not, 2 when the file is malformed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_USAGE, emit_json, exit_with, output_option, prepare_output

__all__ = ["register"]


def _malformed(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=EXIT_USAGE)


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay_cmd(
        file: Path = typer.Argument(..., metavar="FILE", help="a document written by `dpexact verify -o FILE` (or its replay record)"),
        arithmetic: str = typer.Option("exact", "--arithmetic", help="exact (balls where the mechanism has no exact law) | ball"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Re-check a saved counterexample / witness: exit 0 if it holds, 1 if not, 2 if the file is malformed."""
        from ..verify.replay import replay

        if arithmetic not in ("exact", "ball"):
            _malformed(f"--arithmetic must be exact or ball, got {arithmetic[:40]!r}")
        target = prepare_output(output)
        if not file.is_file():
            _malformed(f"FILE: {file} is not a readable file")
        from ..io import read_bounded_text
        from .schema import MAX_DOCUMENT_BYTES

        try:  # bounded: a huge file is refused without reading it all
            doc = json.loads(read_bounded_text(file, MAX_DOCUMENT_BYTES, "FILE"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            _malformed(f"FILE: {file} is not JSON ({str(exc)[:80]})")
        rec = doc.get("replay", doc) if isinstance(doc, dict) and doc.get("command") == "verify" else doc
        if isinstance(doc, dict) and doc.get("command") == "verify" and "replay" not in doc:
            _malformed(f"FILE: {file} holds a {doc.get('verdict')} verdict with no replayable evidence "
                       "(no counterexample, no bracket witness)")
        try:
            res = replay(rec, arithmetic)
        except (ValueError, TypeError, KeyError, ZeroDivisionError) as exc:
            _malformed(f"FILE: {file}: {str(exc)[:300]}")
            return
        out = {"file": str(file), **res.as_dict(), "mechanism": rec["mechanism"], "epsilon": str(rec.get("epsilon")),
               "delta": rec.get("delta"), "neighbourhood": rec.get("neighbourhood")}
        emit_json(out, as_json, target, command="replay")
        if not as_json:
            from .text import wrap

            lr = res.log_ratio
            span = "" if lr is None else f"; log-ratio in [{lr[0]:.9g}, {lr[1]:.9g}]"
            lines = [f"{rec['mechanism']}  ε = {rec.get('epsilon')}: {res.kind} {'holds' if res.holds else 'does NOT hold'}",
                     f"  {res.claim}  (re-checked in {res.arithmetic}; neighbours {'yes' if res.neighbours else 'no'}{span})"]
            if res.note:
                lines.append(f"  {res.note}")
            for line in lines:
                for part in wrap(line, indent=line[: len(line) - len(line.lstrip())]):
                    typer.echo(part)
        exit_with(0 if res.holds else EXIT_FAIL)
