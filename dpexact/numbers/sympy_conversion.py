"""The one conversion of an exact backend value to sympy (fmpq, Fraction, int, sympy; never text)."""

from __future__ import annotations

from typing import Any

__all__ = ["exact_sympy"]


def exact_sympy(v: Any) -> Any:
    """An exact backend value (sympy, fmpq, Fraction, int) as sympy; never parses text."""
    import sympy

    if isinstance(v, (str, bytes)):
        raise TypeError("exact backend values must be numbers, not strings (parse them with Real.of)")
    if type(v).__name__ == "fmpq":
        return sympy.Rational(int(v.p), int(v.q))
    return sympy.sympify(v, strict=True)
