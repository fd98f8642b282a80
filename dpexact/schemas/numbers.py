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

__all__ = ["json_float", "nonfinite_text", "with_exact", "list_with_exact", "finite_or_null"]


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
    """``obj`` with every non-finite float inside (dicts, lists, tuples) replaced by None: for
    free-form ``detail`` objects whose keys the schema does not list one by one."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(v) for v in obj]
    return obj
