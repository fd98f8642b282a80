"""Exact real parameters (ε, Δ, coin biases, ...) and their conversion to every backend.

A parameter keeps its *exact* meaning and is rounded only when a backend asks for it:

* ``int``, :class:`fractions.Fraction`, ``flint.fmpq`` -> the rational itself;
* a Python ``float`` -> the exact binary64 value it holds (``0.1`` is
  3602879701896397/2**55, not 1/10); pass the string ``"0.1"`` for one tenth;
* ``str`` -> parsed exactly by :func:`dpexact.numbers.parse.parse_real` (a whitelisted
  grammar with cost limits that never evaluates code): ``"0.1"`` is 1/10, ``"1/3"`` is one
  third, and expressions such as ``"2*log(3)"`` or ``"log((3+sqrt(5))/2)"`` are kept symbolic;
* a ``sympy`` expression -> itself (symbols allowed for symbolic computations).

Conversions: :meth:`Real.to_float` (correctly rounded for rationals, via a ball otherwise),
:meth:`Real.to_mpf` (mpmath, at the current ``mp.prec``), :meth:`Real.to_arb` (a rigorous
python-flint ball containing the exact value) and :meth:`Real.to_sympy`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from .parse import parse_real

__all__ = ["Real", "as_real"]


def _parse_exact(value: Any, name: str) -> Fraction | Any:
    """Return a Fraction when ``value`` is rational, otherwise a sympy expression."""
    if isinstance(value, Real):
        return value.value
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a real number, got a bool")
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        f = float(value)
        if not math.isfinite(f):
            raise ValueError(f"{name} must be finite, got {f!r}")
        return Fraction(f)
    if type(value).__name__ == "fmpq":
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, str):
        return parse_real(value, name)  # safe grammar with cost limits; never evaluates code
    mod = type(value).__module__ or ""
    if mod.startswith("sympy"):
        return _from_sympy(value, name)
    if isinstance(value, numbers.Rational):
        return Fraction(value.numerator, value.denominator)
    raise TypeError(f"{name} must be a real number (int, float, Fraction, str or sympy), got {type(value).__name__}")


def _from_sympy(expr: Any, name: str) -> Fraction | Any:
    import sympy

    expr = sympy.sympify(expr, strict=True)  # a sympy object already: never parses text
    if expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        raise ValueError(f"{name} must be finite, got {expr}")
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if expr.is_real is False:
        raise ValueError(f"{name} must be real, got {expr}")
    return expr


@dataclass(frozen=True)
class Real:
    """An exact real number: a :class:`~fractions.Fraction` or a sympy expression."""

    value: Any  # Fraction | sympy.Expr

    @classmethod
    def of(cls, value: Any, name: str = "value") -> "Real":
        return value if isinstance(value, Real) else cls(_parse_exact(value, name))

    # -- queries ---------------------------------------------------------------------------
    @property
    def is_rational(self) -> bool:
        return isinstance(self.value, Fraction)

    @property
    def is_symbolic(self) -> bool:
        """True when the value contains free symbols (no numerical value)."""
        return not self.is_rational and bool(self.value.free_symbols)

    def sign(self) -> int:
        """Sign of the exact value, decided rigorously (ball arithmetic if needed)."""
        if self.is_rational:
            return (self.value > 0) - (self.value < 0)
        if self.is_symbolic:
            pos = self.value.is_positive
            if pos:
                return 1
            if self.value.is_negative:
                return -1
            if self.value.is_zero:
                return 0
            raise ValueError(f"sign of the symbolic value {self.value} is not decided; declare the symbol positive")
        prec = 64
        while prec <= 4096:
            b = self.to_arb(prec)
            if b > 0:
                return 1
            if b < 0:
                return -1
            prec *= 4
        import sympy

        if sympy.simplify(self.value) == 0:
            return 0
        raise ValueError(f"cannot decide the sign of {self.value}")

    # -- conversions -----------------------------------------------------------------------
    @cached_property
    def _float(self) -> float:
        if self.is_rational:
            try:
                return float(self.value)  # correctly rounded
            except OverflowError:  # beyond float64's range, like a ball midpoint: ±inf
                return math.inf if self.value > 0 else -math.inf
        if self.is_symbolic:
            raise TypeError(f"symbolic value {self.value} has no float value")
        for prec in (128, 1024):  # a wide ball (cancellation) gets one retry at higher precision
            b = self.to_arb(prec)
            if b.is_finite() and (b.rad() <= abs(b.mid()) * 2.0**-60 or b.rad() < 2.0**-1100):
                return float(b.mid())
        if b.is_finite():
            return float(b.mid())
        text = str(self.value)
        raise ValueError(f"{text if len(text) < 60 else text[:57] + '...'} has no finite enclosure at 1024 bits; "
                         "cannot round it to float64")

    def to_float(self) -> float:
        return self._float

    def __float__(self) -> float:
        return self._float

    def to_fraction(self) -> Fraction:
        if not self.is_rational:
            raise TypeError(f"{self.value} is not rational")
        return self.value

    def to_sympy(self) -> Any:
        import sympy

        if self.is_rational:
            return sympy.Rational(self.value.numerator, self.value.denominator)
        return self.value

    def to_mpf(self) -> Any:
        """mpmath value at the current ``mpmath.mp.prec`` (correctly rounded for rationals)."""
        import mpmath

        if self.is_rational:
            return mpmath.mpf(self.value.numerator) / self.value.denominator
        if self.is_symbolic:
            raise TypeError(f"symbolic value {self.value} has no numerical value")
        b = self.to_arb(mpmath.mp.prec + 30)
        return mpmath.mpf(b.mid().str(mpmath.mp.dps + 10, radius=False))

    def to_arb(self, prec: int | None = None) -> Any:
        """A python-flint ``arb`` ball that rigorously contains the exact value."""
        from flint import arb, ctx, fmpq

        old = ctx.prec
        if prec is not None:
            ctx.prec = prec
        try:
            if self.is_rational:
                return arb(fmpq(self.value.numerator, self.value.denominator))
            if self.is_symbolic:
                raise TypeError(f"symbolic value {self.value} has no numerical value")
            return sympy_to_arb(self.value)
        finally:
            ctx.prec = old

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"Real({self.value})"


def as_real(value: Any, name: str = "value") -> Real:
    """Parse ``value`` into an exact :class:`Real`; raises ``ValueError``/``TypeError`` naming ``name``."""
    return Real.of(value, name)


def sympy_to_arb(expr: Any) -> Any:
    """Rigorous ball enclosure of a closed-form sympy constant at the current ``flint.ctx.prec``.

    Supports rationals, ``+``, ``*``, powers, ``exp``, ``log``, ``sqrt``, ``pi``, ``E`` and
    the hyperbolic/trigonometric basics. Anything else raises ``TypeError``: we never fall back
    to an unverified decimal approximation.
    """
    import sympy
    from flint import arb, fmpq

    e = expr
    if e.is_Rational:
        return arb(fmpq(int(e.p), int(e.q)))
    if e.is_Float:
        return arb(fmpq(*Fraction(str(e)).as_integer_ratio()))
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    if e.is_Add:
        out = arb(0)
        for a in e.args:
            out += sympy_to_arb(a)
        return out
    if e.is_Mul:
        out = arb(1)
        for a in e.args:
            out *= sympy_to_arb(a)
        return out
    if e.is_Pow:
        base, ex = e.args
        b = sympy_to_arb(base)
        if ex.is_Integer:
            return b ** int(ex)
        if ex.is_Rational and int(ex.q) == 2 and int(ex.p) > 0:
            return b.sqrt() ** int(ex.p)
        if ex.is_Rational and int(ex.q) == 2:
            return 1 / (b.sqrt() ** (-int(ex.p)))
        return (sympy_to_arb(ex) * b.log()).exp()
    funcs = {
        sympy.exp: lambda x: x.exp(),
        sympy.log: lambda x: x.log(),
        sympy.sinh: lambda x: x.sinh(),
        sympy.cosh: lambda x: x.cosh(),
        sympy.tanh: lambda x: x.tanh(),
        sympy.sin: lambda x: x.sin(),
        sympy.cos: lambda x: x.cos(),
        sympy.atan: lambda x: x.atan(),
        sympy.Abs: lambda x: abs(x),
    }
    f = funcs.get(type(e))
    if f is not None and len(e.args) == 1:
        return f(sympy_to_arb(e.args[0]))
    raise TypeError(f"cannot enclose {expr} rigorously (unsupported function {type(e).__name__})")


def _binary(op: str):
    def method(self: Real, other: Any) -> Real:
        o = Real.of(other, "operand")
        a, b = (self, o) if not op.startswith("r") else (o, self)
        name = op.lstrip("r")
        if a.is_rational and b.is_rational:
            x, y = a.value, b.value
        else:
            x, y = a.to_sympy(), b.to_sympy()
        if name == "add":
            res = x + y
        elif name == "sub":
            res = x - y
        elif name == "mul":
            res = x * y
        else:
            if y == 0:
                raise ZeroDivisionError("division of a Real by zero")
            res = x / y
        return Real.of(res, "result")

    return method


for _op in ("add", "sub", "mul", "truediv", "radd", "rsub", "rmul", "rtruediv"):
    setattr(Real, f"__{_op}__", _binary(_op))
Real.__neg__ = lambda self: Real.of(-self.value if self.is_rational else -self.value, "result")  # type: ignore[attr-defined]


def _compare(self: Real, other: Any) -> int:
    return (self - Real.of(other, "operand")).sign()


Real.__lt__ = lambda self, other: _compare(self, other) < 0  # type: ignore[attr-defined]
Real.__le__ = lambda self, other: _compare(self, other) <= 0  # type: ignore[attr-defined]
Real.__gt__ = lambda self, other: _compare(self, other) > 0  # type: ignore[attr-defined]
Real.__ge__ = lambda self, other: _compare(self, other) >= 0  # type: ignore[attr-defined]
