"""The adapter registry: library name -> adapter module (one module per library, in this folder).

``LIB:CALL`` is parsed by :func:`parse_target` against this table and the adapter's own
``SAMPLERS`` / ``MAPS`` tables; a name that is not registered is refused before anything is
imported. A registered library that is not installed raises :class:`MissingLibrary`, which the
command turns into a one-line error naming the ``audit`` extra (exit 2).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

from .base import MapPoint, MapSpec, MissingLibrary, SamplerSpec

__all__ = ["ADAPTERS", "Target", "parse_target", "adapter", "load_library", "MissingLibrary", "SamplerSpec", "MapSpec",
           "MapPoint", "EXTRA"]

#: library name (as typed) -> adapter module inside this package
ADAPTERS: dict[str, str] = {
    "opendp": "opendp",
    "diffprivlib": "diffprivlib",
    "pydp": "pydp",
    "opacus": "opacus",
}

#: the optional extra that installs the libraries
EXTRA = "audit"

_TARGET = re.compile(r"(?P<lib>[a-z][a-z0-9_-]{0,31}):(?P<call>[A-Za-z_][A-Za-z0-9_]{0,63}(?::[a-z][a-z0-9-]{0,31})?)")


@dataclass(frozen=True)
class Target:
    library: str
    call: str
    kind: str  # "sampler" | "map"

    def __str__(self) -> str:
        return f"{self.library}:{self.call}"


def adapter(library: str) -> Any:
    """The adapter module of a registered library (the module only: the library is not imported)."""
    if library not in ADAPTERS:
        raise ValueError(f"LIB: unknown library {library[:40]!r}; known: {', '.join(sorted(ADAPTERS))}")
    return importlib.import_module(f"{__name__}.{ADAPTERS[library]}")


def parse_target(text: str, kind: str) -> Target:
    """``LIB:CALL`` -> a registered target of ``kind`` (``sampler`` or ``map``); ValueError otherwise."""
    if kind not in ("sampler", "map"):
        raise ValueError(f"kind must be sampler or map, got {kind!r}")
    m = _TARGET.fullmatch(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"LIB:CALL: expected LIBRARY:CALL such as opendp:make_laplace:int, got {str(text)[:60]!r}")
    mod = adapter(m["lib"])
    table = mod.SAMPLERS if kind == "sampler" else mod.MAPS
    if m["call"] not in table:
        raise ValueError(f"LIB:CALL: {m['lib']} has no audited {kind} {m['call'][:60]!r}; known: {', '.join(sorted(table))}")
    return Target(m["lib"], m["call"], kind)


def load_library(library: str) -> Any:
    """Import the library behind a registered adapter; MissingLibrary names the extra."""
    mod = adapter(library)
    try:
        return mod.load()
    except MissingLibrary as exc:
        raise MissingLibrary(f"{library}: the library {mod.LIBRARY!r} is not installed (pip install 'dpexact[{EXTRA}]'): "
                             f"{str(exc)[:120]}") from None


def targets(kind: str) -> list[Target]:
    """Every registered target of ``kind``."""
    out = []
    for lib in ADAPTERS:
        mod = adapter(lib)
        for call in (mod.SAMPLERS if kind == "sampler" else mod.MAPS):
            out.append(Target(lib, call, kind))
    return out
