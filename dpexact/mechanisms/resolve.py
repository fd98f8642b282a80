"""A mechanism from what a user gives: a registry name, ``PATH.py:OBJECT`` / ``module:OBJECT``, or an object.

The keywords are the CLI's option names: ``epsilon``, ``sensitivity``, ``monotone`` and ``param`` (a
dict of further constructor parameters). They build a mechanism from a name; given with a mechanism
object they cannot apply, and are an error (the object already carries its parameters).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..protocols import AnyMechanism, check_mechanism
from .registry import mechanism as build

__all__ = ["resolve_mechanism"]


def resolve_mechanism(mechanism: str | object, *, epsilon: Any = None, sensitivity: Any = None, monotone: bool = False,
                      param: Mapping[str, Any] | None = None) -> AnyMechanism:
    """The mechanism named or given by ``mechanism``, checked once against the protocol.

    Raises:
        ValueError: a parameter given twice (``epsilon=`` and ``param={"epsilon": …}``), or
            parameters given with a mechanism object.
        TypeError: ``param`` not a mapping; an object that is not a mechanism.
    """
    options: dict[str, Any] = {}
    if epsilon is not None:
        options["epsilon"] = epsilon
    if sensitivity is not None:
        options["sensitivity"] = sensitivity
    if monotone:
        options["monotone"] = True
    if param is not None and not isinstance(param, Mapping):
        raise TypeError(f"param must be a mapping of parameter names to values, got {type(param).__name__}")
    extra = dict(param or {})
    clash = sorted(set(options) & set(extra))
    if clash:
        raise ValueError(f"param {clash[0]!r} conflicts with the keyword {clash[0]}=: give it once")
    if isinstance(mechanism, str):
        return build(mechanism, **options, **extra)
    if options or extra:
        given = sorted({**options, **extra})[0]
        raise ValueError(f"{given}: a mechanism object carries its own parameters; give {given} to its constructor, "
                         f"or name the mechanism (registry name or PATH.py:OBJECT)")
    return check_mechanism(mechanism, continuous=True)
