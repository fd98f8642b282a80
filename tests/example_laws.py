"""The example files' laws for the tests (``examples/`` is not a package: each file is loaded by path)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example_module(name: str) -> ModuleType:
    """``examples/<name>.py`` loaded as a fresh module (registered in ``sys.modules`` under ``name``: dataclasses
    look their module up there while a class is built)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def example(name: str, attr: str) -> Any:
    """The object ``attr`` (a law, a mechanism class) of ``examples/<name>.py``."""
    return getattr(example_module(name), attr)


def hand(attr: str) -> Any:
    """A law of ``examples/hand_written_selection.py`` (``"module"``: the module itself)."""
    mod = example_module("hand_written_selection")
    return mod if attr == "module" else getattr(mod, attr)
