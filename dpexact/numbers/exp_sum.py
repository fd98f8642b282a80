"""`ExpSum`: exact numbers of the form ``Σ_k c_k · e^{r_k}`` with rational ``c_k`` and ``r_k``.

The ring ``Q[exp(Q)]`` is closed under ``+``, ``-`` and ``×`` (``e^a · e^b = e^{a+b}``), so
every integral of a piecewise-exponential function with rational rates and breakpoints — the
laws of the sparse-vector family and of Laplace noise on rational inputs — is an ``ExpSum``.
By the Lindemann–Weierstrass theorem the ``e^{r}`` of distinct rationals are linearly
independent over ``Q``: an ``ExpSum`` with no non-zero coefficient is exactly zero and any
other is non-zero, so its sign is decided by evaluating it in ball arithmetic at increasing
precision (:meth:`ExpSum.sign`), never by a tolerance.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["ExpSum", "as_fmpq"]


def as_fmpq(x: Any) -> Any:
    """A Python int / Fraction / fmpq as ``flint.fmpq`` (errors name the type)."""
    from flint import fmpq

    if type(x).__name__ == "fmpq":
        return x
    if isinstance(x, bool):
        raise TypeError("expected a rational, got bool")
    if isinstance(x, int):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    raise TypeError(f"expected a rational (int, Fraction, fmpq), got {type(x).__name__}")


class ExpSum:
    """``Σ c_k e^{r_k}``: ``terms`` maps the exponent ``r_k`` (fmpq) to ``c_k`` (fmpq, non-zero)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict | None = None) -> None:
        self.terms = {r: c for r, c in (terms or {}).items() if c != 0}

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def const(cls, c: Any) -> "ExpSum":
        from flint import fmpq

        return cls({fmpq(0): as_fmpq(c)})

    @classmethod
    def exp(cls, r: Any, c: Any = 1) -> "ExpSum":
        """``c · e^r``."""
        return cls({as_fmpq(r): as_fmpq(c)})

    # -- arithmetic ---------------------------------------------------------------------
    def _coerce(self, other: Any) -> "ExpSum":
        return other if isinstance(other, ExpSum) else ExpSum.const(other)

    def __add__(self, other: Any) -> "ExpSum":
        o = self._coerce(other)
        t = dict(self.terms)
        for r, c in o.terms.items():
            t[r] = t.get(r, 0) + c
        return ExpSum(t)

    __radd__ = __add__

    def __neg__(self) -> "ExpSum":
        return ExpSum({r: -c for r, c in self.terms.items()})

    def __sub__(self, other: Any) -> "ExpSum":
        return self + (-self._coerce(other))

    def __rsub__(self, other: Any) -> "ExpSum":
        return self._coerce(other) - self

    def __mul__(self, other: Any) -> "ExpSum":
        if not isinstance(other, ExpSum):
            c = as_fmpq(other)
            return ExpSum({r: v * c for r, v in self.terms.items()})
        t: dict = {}
        for r1, c1 in self.terms.items():
            for r2, c2 in other.terms.items():
                r = r1 + r2
                t[r] = t.get(r, 0) + c1 * c2
        return ExpSum(t)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "ExpSum":
        c = as_fmpq(other)
        if c == 0:
            raise ZeroDivisionError("ExpSum division by zero")
        return ExpSum({r: v / c for r, v in self.terms.items()})

    def is_zero(self) -> bool:
        return not self.terms

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, Fraction)) or type(other).__name__ == "fmpq":
            other = ExpSum.const(other)
        return isinstance(other, ExpSum) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    # -- evaluation ---------------------------------------------------------------------
    def to_arb(self, prec: int | None = None) -> Any:
        """A rigorous ``arb`` enclosure (at ``prec`` bits, default the current flint precision)."""
        from flint import arb, ctx

        old = ctx.prec
        if prec is not None:
            ctx.prec = prec
        try:
            s = arb(0)
            for r, c in self.terms.items():
                s += arb(c) * (arb(r).exp() if r != 0 else arb(1))
            return s
        finally:
            ctx.prec = old

    def sign(self, max_prec: int = 1 << 16) -> int:
        """Exact sign: 0 iff no term is left; otherwise arb at doubling precision decides it."""
        if not self.terms:
            return 0
        prec = 128
        while prec <= max_prec:
            b = self.to_arb(prec)
            if b > 0:
                return 1
            if b < 0:
                return -1
            prec *= 2
        raise ArithmeticError(f"ExpSum.sign undecided at {max_prec} bits ({len(self.terms)} terms)")

    def to_sympy(self) -> Any:
        import sympy

        from .sympy_conversion import exact_sympy

        s = sympy.Integer(0)
        for r, c in sorted(self.terms.items()):
            cs = exact_sympy(c)
            s += cs if r == 0 else cs * sympy.exp(exact_sympy(r))
        return s

    def to_float(self) -> float:
        return float(self.to_arb(128).mid())

    def __repr__(self) -> str:
        return f"ExpSum({self.to_sympy()})"
