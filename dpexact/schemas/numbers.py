"""One number type per JSON field: a float is a JSON number, or ``null`` when it is not finite.

JSON has no infinities and no NaN, and a field that is sometimes a number and sometimes the
string ``"inf"`` makes every reader test the type first. So every float field of a ``--json``
document is a number or null; where null can mean an infinite (or undefined) value, the exact
value is a string in the sibling field ``NAME_exact`` (``"inf"``, ``"-inf"``, ``"nan"`` or a closed
form such as ``"log(3)"``). ``tests/test_schema_number_types.py`` checks every schema for it.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["json_float", "nonfinite_text", "with_exact", "list_with_exact", "finite_or_null", "free_form"]


def json_float(x: Any) -> float | None:
    """``x`` as a JSON number, or None when it is missing or not finite (±∞, NaN)."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def nonfinite_text(x: Any) -> str | None:
    """``"inf"`` / ``"-inf"`` / ``"nan"`` for a non-finite float (the exact text beside its null), else None."""
    if x is None:
        return None
    f = float(x)
    if math.isnan(f):
        return "nan"
    return None if math.isfinite(f) else ("inf" if f > 0 else "-inf")


def with_exact(name: str, x: Any, exact: str | None = None) -> dict[str, Any]:
    """``{name: number or null}`` and, when ``exact`` is given or ``x`` is not finite, ``{name_exact: text}``
    (``exact`` when given, else ``"inf"`` / ``"-inf"`` / ``"nan"``)."""
    text = exact if exact is not None else nonfinite_text(x)
    return {name: json_float(x), **({} if text is None else {f"{name}_exact": text})}


def list_with_exact(name: str, xs: Any) -> dict[str, Any]:
    """:func:`with_exact` for a list of floats (an enclosure ``[lo, hi]``): ``{name: [number or null, ...]}``
    and, when one is not finite, ``{name_exact: [text or null, ...]}`` (the text of each null, null beside a
    number); ``{name: None}`` for ``xs`` None."""
    if xs is None:
        return {name: None}
    xs = list(xs)
    texts = [nonfinite_text(x) for x in xs]
    return {name: [json_float(x) for x in xs], **({f"{name}_exact": texts} if any(texts) else {})}


def finite_or_null(obj: Any) -> Any:
    """``obj`` with every non-finite float inside (dicts, lists, tuples) replaced by None, *without* the
    text of what it was: for values that have no key to put a sibling beside; a free-form object uses
    :func:`free_form`."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(v) for v in obj]
    return obj


def _texts(v: Any) -> Any:
    """The ``_exact`` shadow of a list: the text of each non-finite float at its place, None elsewhere (a dict
    inside carries its own siblings); None when nothing in ``v`` is non-finite."""
    if isinstance(v, float):
        return nonfinite_text(v)
    if isinstance(v, (list, tuple)):
        inner = [_texts(x) for x in v]
        return inner if any(x is not None for x in inner) else None
    return None


def free_form(obj: Any) -> Any:
    """A free-form object (a ``detail``, a check's ``evidence``, a curve's ``witness``: keys the schema does
    not list one by one) with the convention of the listed fields: every non-finite float is null and, beside
    it in the same object, ``NAME_exact`` says what it was (``"inf"``, ``"-inf"``, ``"nan"``); for a list
    holding one, ``NAME_exact`` is a list of the same shape with the text at its place and null elsewhere.
    A sibling the object already has is kept (it is the writer's exact value). A bare non-finite float with
    no key (the object itself, or an element of a top-level list) can only be null."""
    if isinstance(obj, float):
        return json_float(obj)
    if isinstance(obj, (list, tuple)):
        return [free_form(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out: dict[Any, Any] = {}
    for k, v in obj.items():
        out[k] = free_form(v)
        text = _texts(v) if isinstance(v, (float, list, tuple)) else None
        if text is not None and f"{k}_exact" not in obj:
            out[f"{k}_exact"] = text
    return out
