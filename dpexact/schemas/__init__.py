"""The published shape of every ``--json`` document: a version, one JSON Schema file per command.

Every document a command prints with ``--json`` (or writes with ``--output``) is a JSON object
that starts with

    {"schema_version": "1.1", "command": "<command>", ...}

and validates against ``<command>.schema.json`` in this package (JSON Schema draft 2020-12;
``dpexact schema COMMAND`` prints it, ``dpexact schema COMMAND --validate FILE`` checks a file).
Commands whose result is a list put it under one key (``points``, ``rows``, ``mechanisms``).

Conventions the schemas state: a number known exactly is given as a float *and*, beside it, as
an exact string under the same name with the suffix ``_exact`` (``expected_error`` /
``expected_error_exact``). Every field has one JSON type: a float is a number, or null when it is
not finite, and then the sibling ``NAME_exact`` string says what it is (``"inf"``, ``"-inf"``,
``"nan"`` or a closed form); an exact end or label is a string (``"inf"`` included). The writers use
:mod:`dpexact.schemas.numbers`; ``tests/test_schema_number_types.py`` fails on a field that admits
both a number and a string (a mechanism's output, an index or text naming an output set, and a
parameter's default are the listed exceptions).

Versioning: the minor number grows when keys are added (old readers keep working), the major
number when a key is removed, renamed or changes meaning.

A sweep's task records (:mod:`dpexact.sweep.tasks`) are these same documents, so a stored result
names the schema it follows.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["SCHEMA_VERSION", "COMMANDS", "document", "schema", "validate"]

#: the version every document carries (see the module docstring for what a change means)
SCHEMA_VERSION = "1.1"

#: commands with a ``--json`` document, each with its ``<command>.schema.json``
COMMANDS = ("account", "audit", "bench", "bench-audit", "bench-peers", "bench-verifier", "check", "conform", "curve", "delta", "ldp", "mechanisms", "optimal",
            "optimal-ldp", "pmf", "prob", "replay", "sweep", "verify")


def document(command: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``schema_version`` and ``command`` in front (the keys of ``body`` follow)."""
    if command not in COMMANDS:
        raise ValueError(f"no schema for command {command!r}")
    rest = {k: v for k, v in body.items() if k not in ("schema_version", "command")}
    return {"schema_version": SCHEMA_VERSION, "command": command, **rest}


@lru_cache(maxsize=None)
def _text(command: str) -> str:
    if command not in COMMANDS:
        raise ValueError(f"COMMAND must be one of {', '.join(COMMANDS)}, got {command!r}")
    return resources.files(__name__).joinpath(f"{command}.schema.json").read_text(encoding="utf-8")


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema of ``command``'s document (a fresh dict)."""
    return json.loads(_text(command))


def validate(command: str, doc: Any) -> None:
    """Raise ValueError (first error, with its JSON path) unless ``doc`` follows ``command``'s schema."""
    import jsonschema

    s = schema(command)
    validator = jsonschema.Draft202012Validator(s)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(document)"
        raise ValueError(f"{command} document does not follow schema {s.get('$id', command)} at {where}: {e.message}")
