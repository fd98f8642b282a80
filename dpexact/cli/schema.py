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
#: CPU seconds jsonschema spends per JSON value (measured: 1.5 s for 10^5 values of a oneOf array,
#: 16 s for 10^6, on this machine's cores); a document whose estimate exceeds the CLI budget is refused
SECONDS_PER_VALUE = 16e-6


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
        from ..cost_limits import DEFAULT_CLI_MAX_SECONDS
        from ..io import JsonLimitError, read_json_bounded
        from ..verification.replay_record import printable  # text from the file or its name never drives a terminal

        try:  # bounded: size, element count (validation time) and nesting refused before any work
            doc = read_json_bounded(validate, MAX_DOCUMENT_BYTES, "--validate",
                                    max_values=int(DEFAULT_CLI_MAX_SECONDS / SECONDS_PER_VALUE))
        except JsonLimitError as exc:
            cost = (f" (validation costs about {SECONDS_PER_VALUE * 1e6:.0f} µs per value: estimated more than the "
                    f"{DEFAULT_CLI_MAX_SECONDS:.0f} s budget)") if "JSON values" in str(exc) else ""
            typer.echo(f"error: {printable(exc, 400)}{cost}", err=True)
            raise typer.Exit(code=EXIT_USAGE)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            typer.echo(f"error: --validate: cannot read {printable(validate, 120)} as JSON ({printable(exc, 200)})", err=True)
            raise typer.Exit(code=EXIT_USAGE)
        try:
            check(command, doc)
        except ValueError as exc:
            typer.echo(f"does not follow: {printable(exc, 2000)}")
            raise typer.Exit(code=EXIT_FAIL)
        typer.echo(f"{printable(validate, 2000)} follows the {command} schema {SCHEMA_VERSION}")
