"""`BoundedFloat`: a float64 value with a running a-priori bound on its absolute error.

The float backend's scalar number type: a pmf written once against the backend operations
(:mod:`.backends`) runs on it and comes back with a proven error bound, the way the same code
on the ball backend comes back with rigorous radii.

Model (Higham, *Accuracy and Stability of Numerical Algorithms*, §2.2, round to nearest):
``fl(a ∘ b) = (a ∘ b)(1 + δ)``, ``|δ| <= u = 2^-53`` for ``+ - * / sqrt`` (IEEE 754 correctly
rounded), and ``|δ| <= 2u`` for ``exp``, ``log``, ``log1p``, ``expm1`` (glibc's libm is
documented to stay below 1 ulp for these). Each operation propagates the operands' error
bounds exactly to first and second order (no linearisation drop) and adds its own rounding;
the bound itself is formed in float64 and then enlarged by ``(1 + 8u)`` plus the smallest
subnormal, so that its own rounding is covered. Overflow, a division by an interval that
contains 0 or a logarithm of an interval that reaches 0 raise ``ValueError``: no silent wrong
number.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["BoundedFloat", "U"]

U = 2.0**-53
_TINY = 5e-324


def _up(x: float) -> float:
    """Enlarge a non-negative float64 bound so that the rounding in forming it is covered."""
    if not math.isfinite(x):
        raise ValueError("float error bound overflowed; use the mp or ball backend")
    return x * (1 + 8 * U) + _TINY


class BoundedFloat:
    """``v`` with ``|truth - v| <= e``. Arithmetic with ints, floats and Fractions is supported."""

    __slots__ = ("v", "e")
    #: numpy defers to this class, so that ``array * x`` reaches :meth:`__rmul__`
    __array_ufunc__ = None

    def __init__(self, v: float, e: float = 0.0) -> None:
        if not math.isfinite(v):
            raise ValueError(f"float value {v} is not finite; use the mp or ball backend")
        self.v = float(v)
        self.e = float(e)

    @classmethod
    def of(cls, x: Any) -> "BoundedFloat":
        """An exact number rounded to float64 (error 0 when it is a float already)."""
        if isinstance(x, BoundedFloat):
            return x
        try:
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                v = float(x)
                return cls(v, 0.0 if v == x else U * abs(v))
            if isinstance(x, Fraction):
                v = float(x)  # correctly rounded
                return cls(v, 0.0 if Fraction(v) == x else U * abs(v))
        except OverflowError:
            raise ValueError(f"{x} is beyond the float64 range; use the mp or ball backend") from None
        from .real import Real

        r = Real.of(x)
        if r.is_rational:
            return cls.of(r.value)
        v = r.to_float()  # midpoint of a 128-bit ball: within u|v| (plus 2^-128 relative)
        return cls(v, _up(2 * U * abs(v)))

    # -- arithmetic --------------------------------------------------------------------------
    # With a numpy array the result is the plain float64 array of values: vectorised code (an
    # integrand) states its own relative error, e.g. ``integrate(..., f_rel_error=...)``.
    def __add__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return self.v + other
        o = BoundedFloat.of(other)
        v = self.v + o.v
        return BoundedFloat(v, _up(self.e + o.e + U * abs(v)))

    __radd__ = __add__

    def __neg__(self) -> "BoundedFloat":
        return BoundedFloat(-self.v, self.e)

    def __sub__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return self.v - other
        return self + (-BoundedFloat.of(other))

    def __rsub__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return other - self.v
        return BoundedFloat.of(other) + (-self)

    def __mul__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return self.v * other
        o = BoundedFloat.of(other)
        v = self.v * o.v
        return BoundedFloat(v, _up(abs(self.v) * o.e + abs(o.v) * self.e + self.e * o.e + U * abs(v)))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return self.v / other
        o = BoundedFloat.of(other)
        lo = abs(o.v) - o.e
        if not lo > 0:
            raise ValueError("division by a float interval that contains 0; use the ball backend")
        v = self.v / o.v
        prop = (self.e * abs(o.v) + abs(self.v) * o.e) / (abs(o.v) * lo)
        return BoundedFloat(v, _up(prop + U * abs(v)))

    def __rtruediv__(self, other: Any) -> "BoundedFloat":
        if isinstance(other, np.ndarray):
            return other / self.v
        return BoundedFloat.of(other) / self

    def __pow__(self, k: int) -> "BoundedFloat":
        if not isinstance(k, int) or k < 0:
            raise TypeError("BoundedFloat powers: a non-negative integer exponent")
        out = BoundedFloat(1.0)
        for _ in range(k):
            out = out * self
        return out

    # -- elementary functions ----------------------------------------------------------------
    def exp(self) -> "BoundedFloat":
        try:
            v = math.exp(self.v)
        except OverflowError:
            raise ValueError("exp overflows float64; use the mp or ball backend") from None
        return BoundedFloat(v, _up(v * math.expm1(self.e) * (1 + 2 * U) + 2 * U * v))

    def expm1(self) -> "BoundedFloat":
        try:
            v = math.expm1(self.v)
            g = math.exp(self.v)
        except OverflowError:
            raise ValueError("expm1 overflows float64; use the mp or ball backend") from None
        return BoundedFloat(v, _up(g * math.expm1(self.e) * (1 + 2 * U) + 2 * U * abs(v)))

    def log(self) -> "BoundedFloat":
        lo = self.v - self.e
        if not lo > 0:
            raise ValueError("log of a float interval that reaches 0; use the ball backend")
        v = math.log(self.v)
        return BoundedFloat(v, _up(-math.log1p(-self.e / self.v) * (1 + 2 * U) + 2 * U * abs(v)))

    def log1p(self) -> "BoundedFloat":
        lo = 1 + self.v - self.e
        if not lo > 0:
            raise ValueError("log1p of a float interval that reaches -1; use the ball backend")
        v = math.log1p(self.v)
        return BoundedFloat(v, _up(self.e / (lo * (1 - 2 * U)) + 2 * U * abs(v)))

    def sqrt(self) -> "BoundedFloat":
        lo = self.v - self.e
        if lo < 0:
            raise ValueError("sqrt of a float interval that reaches below 0; use the ball backend")
        v = math.sqrt(self.v)
        den = math.sqrt(lo) + v
        prop = self.e / den if den > 0 else math.sqrt(self.e)
        return BoundedFloat(v, _up(prop * (1 + 2 * U) + U * v))

    # -- queries -----------------------------------------------------------------------------
    def sign(self) -> int | None:
        """+1 / -1 when the whole interval ``[v - e, v + e]`` is on one side of 0, else ``None``."""
        if self.v - self.e > 0:
            return 1
        if self.v + self.e < 0:
            return -1
        if self.v == 0 and self.e == 0:
            return 0
        return None

    def __float__(self) -> float:
        return self.v

    def __repr__(self) -> str:
        return f"BoundedFloat({self.v!r} ± {self.e:.3g})"
