"""Neighbouring relations for the verifiers: the relations themselves (re-exported from
:mod:`dpexact.mechanisms.neighbourhoods`, where mechanisms can return them), the mechanism's own
relation and the ``--neighbourhood`` parser."""

from __future__ import annotations

from typing import Any, Iterable

from ..mechanisms.neighbourhoods import (
    MAX_CANDIDATES,
    AnyPair,
    HistogramAddRemove,
    HistogramReplace,
    LInfBox,
    MonotoneBox,
    Vector,
    as_vector,
)
from ..mechanisms.query_neighbourhoods import RELATIONS, relation_neighbourhood
from ..numbers.parse import excerpt
from ..protocols import AnyMechanism, Neighbourhood

__all__ = [
    "Neighbourhood",
    "LInfBox",
    "MonotoneBox",
    "HistogramAddRemove",
    "HistogramReplace",
    "AnyPair",
    "Vector",
    "as_vector",
    "default_neighbourhood",
    "parse_neighbourhood",
    "own_relation",
    "query_relation",
    "MAX_CANDIDATES",
    "RELATIONS",
    "relation_neighbourhood",
]


def default_neighbourhood(mechanism: AnyMechanism) -> Neighbourhood:
    """The relation the claim of a checked mechanism refers to: ``mechanism.neighbourhood()`` (the
    mechanism was checked once at the entry point; only the returned relation is checked here)."""
    nb = mechanism.neighbourhood()
    if not isinstance(nb, Neighbourhood):
        raise TypeError(f"mechanism: neighbourhood() returned {type(nb).__name__}, not a Neighbourhood (see dpexact.protocols)")
    return nb


def parse_neighbourhood(spec: str, mechanism: AnyMechanism | None = None, inputs: Iterable[Any] | None = None) -> Neighbourhood:
    """``default`` | ``box[:Δ]`` | ``box:Δ1,Δ2,...`` | ``monotone[:Δ]`` | ``add-remove`` | ``replace`` | ``any-pair``."""
    if not isinstance(spec, str):
        raise TypeError(f"neighbourhood must be a string, got {type(spec).__name__}")
    name, sep, arg = spec.strip().lower().partition(":")
    if sep and not arg.strip():
        raise ValueError(f"neighbourhood {excerpt(spec)}: empty value after ':'")
    if arg and name not in ("box", "monotone"):
        raise ValueError(f"neighbourhood {excerpt(spec)}: {name!r} takes no ':' value")
    delta: Any = arg if arg else (mechanism.sensitivity if mechanism is not None else 1)
    if name == "default":
        if mechanism is None:
            raise ValueError("neighbourhood 'default' needs a mechanism")
        return default_neighbourhood(mechanism)
    if name == "box":
        if "," in arg:
            return LInfBox(1, tuple(s.strip() for s in arg.split(",")))
        return LInfBox(delta)
    if name == "monotone":
        return MonotoneBox(delta)
    if name == "add-remove":
        return HistogramAddRemove()
    if name == "replace":
        return HistogramReplace()
    if name == "any-pair":
        if inputs is None:
            raise ValueError("neighbourhood 'any-pair' needs the set of inputs")
        return AnyPair(tuple(inputs))
    raise ValueError(f"unknown neighbourhood {excerpt(spec)}; choose default, box[:Δ], monotone[:Δ], add-remove, replace, any-pair")


def own_relation(mechanism: AnyMechanism) -> str | None:
    """``"monotone"`` when the mechanism's claim is about monotone neighbours, else None (the default)."""
    try:
        nb = mechanism.neighbourhood()
    except (AttributeError, TypeError, ValueError):
        return None
    return "monotone" if isinstance(nb, MonotoneBox) else None


def query_relation(mechanism: AnyMechanism) -> str:
    """The query relation of the mechanism's own claim: ``"one-differ"`` / ``"monotone"`` when its
    neighbourhood says so, else ``"all-differ"``."""
    from ..mechanisms.query_neighbourhoods import OneDiffer

    try:
        nb = mechanism.neighbourhood()
    except (AttributeError, TypeError, ValueError):
        return "all-differ"
    return "one-differ" if isinstance(nb, OneDiffer) else (own_relation(mechanism) or "all-differ")
