"""Rigorous intervals for the compact branch-and-bound's enclosures (exact dyadic ends, arb arithmetic).

Every generator of the compact variables is non-negative (``W, Λ, M ∈ [0, 1]``, ``Y = e^{g·Z} > 0``,
``T = e^{1/L} > 0``), so on a box each monomial ``c·Π x_i^{e_i}`` ranges exactly over the products of
the ends: a polynomial's enclosure is a sum of monomial ranges (term by term, :func:`enclose`). Each
end is computed as an arb ball at the current precision (``flint.ctx.prec``, set by the caller) and
rounded outward to an exact dyadic number (``arb.lower()`` / ``arb.upper()``). Precision matters: at a
tight level the bound of a box beside the face is within a few ulps of ``e^ε``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

__all__ = ["Iv", "exp_interval", "enclose", "divide", "log_upper", "finite", "of_ball"]


class Iv(NamedTuple):
    """A closed interval ``[a, b]`` with exact (zero-radius) arb ends."""

    a: Any
    b: Any


def exp_interval(x: Fraction) -> Iv:
    """``e^x`` for a rational ``x``, enclosed."""
    import flint

    b = flint.arb(flint.fmpq(x.numerator, x.denominator)).exp()
    return Iv(b.lower(), b.upper())


def of_ball(b: Any) -> Iv:
    """The arb ball ``b`` as an interval with exact ends."""
    return Iv(b.lower(), b.upper())


def enclose(p: Any, env: list[Iv]) -> Iv:
    """The polynomial ``p`` (flint ``fmpq_mpoly``) when generator ``i`` ranges over ``env[i]`` (all >= 0)."""
    import flint

    lo = flint.arb(0)
    hi = flint.arb(0)
    for exps, c in p.to_dict().items():
        mlo = flint.arb(c)
        mhi = flint.arb(c)
        for i, e in enumerate(exps):
            if e:
                x = env[i]
                mlo *= x.a ** int(e)
                mhi *= x.b ** int(e)
        if c >= 0:
            lo += mlo
            hi += mhi
        else:
            lo += mhi
            hi += mlo
    return Iv(lo.lower(), hi.upper())


def divide(n: Iv, d: Iv) -> Iv | None:
    """``n / d`` for ``d`` not containing 0 (None otherwise)."""
    if not (finite(n) and finite(d)) or (d.a <= 0 and d.b >= 0):
        return None
    qs = [n.a / d.a, n.a / d.b, n.b / d.a, n.b / d.b]
    return Iv(min(q.lower() for q in qs), max(q.upper() for q in qs))


def log_upper(x: Any) -> float:
    """A float upper bound of ``log x`` for ``x > 0``."""
    import math

    return math.nextafter(float(x.log().upper()), math.inf)


def finite(x: Iv) -> bool:
    """Whether both ends are finite numbers."""
    return bool(x.a.is_finite() and x.b.is_finite())
