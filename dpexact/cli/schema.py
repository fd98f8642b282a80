"""``dpexact schema COMMAND``: the published JSON Schema of a command's ``--json`` document
(:mod:`dpexact.schemas`); ``--validate FILE`` checks a saved document against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_USAGE

__all__ = ["register"]


#: largest --json document read back (bytes)
MAX_DOCUMENT_BYTES = 64 << 20


def register(app: typer.Typer) -> None:
    @app.command("schema")
    def schema_cmd(
        command: str = typer.Argument(..., metavar="COMMAND", help="a command with --json: verify, pmf, sweep, ... (`dpexact schema list`)"),
        validate: Optional[Path] = typer.Option(None, "--validate", help="check this saved --json document against the schema (exit 0 if it follows it, 1 if not)"),
    ) -> None:
        """Print the JSON Schema of COMMAND's --json document (schema_version in every document), or check a file."""
        from ..schemas import COMMANDS, SCHEMA_VERSION, schema
        from ..schemas import validate as check

        if command == "list":
            from .text import wrap

            for line in wrap(f"schema_version {SCHEMA_VERSION}: " + ", ".join(COMMANDS)):
                typer.echo(line)
            return
        if command not in COMMANDS:
            typer.echo(f"error: COMMAND must be one of {', '.join(COMMANDS)} (or list), got {command[:40]!r}", err=True)
            raise typer.Exit(code=EXIT_USAGE)
        if validate is None:
            typer.echo(json.dumps(schema(command), indent=1, ensure_ascii=False))
            return
        from ..io import read_bounded_text

        try:  # bounded: /dev/zero or a FIFO without writer is an error, not a hang
            doc = json.loads(read_bounded_text(validate, MAX_DOCUMENT_BYTES, "--validate"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            typer.echo(f"error: --validate: cannot read {validate} as JSON ({exc})", err=True)
            raise typer.Exit(code=EXIT_USAGE)
        try:
            check(command, doc)
        except ValueError as exc:
            typer.echo(f"does not follow: {exc}")
            raise typer.Exit(code=EXIT_FAIL)
        typer.echo(f"{validate} follows the {command} schema {SCHEMA_VERSION}")
