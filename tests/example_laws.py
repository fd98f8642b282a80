"""The example files' laws for the tests (``examples/`` is not a package: each file is loaded by path)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example_module(name: str) -> ModuleType:
    """``examples/<name>.py`` loaded as a fresh module."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def hand(attr: str) -> Any:
    """A law of ``examples/hand_written_selection.py`` (``"module"``: the module itself)."""
    mod = example_module("hand_written_selection")
    return mod if attr == "module" else getattr(mod, attr)
