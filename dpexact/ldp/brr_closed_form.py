"""Closed-form m of BRR on the equidistant domain with loss |x − y|: brr Algorithm 3 / Theorem 1.

With a = e^ε (brr Algorithm 3, lines 2–6, transcribed literally):

    m1 = ⌊ ( sqrt(N² a + (1 − a)²/4) − (N − a/2 + 1/2) ) / (a − 1) ⌋          (line 2)
    if ε >= 1:  m = m1                                                          (line 3)
    else:
        i = ⌊ N / (e^{ε/2} + 1) + 1 ⌋                         if N is even      (line 4)
        i = ⌊ ( sqrt(a (N² − 1) + 1) − N ) / (a − 1) + 1 ⌋     if N is odd
        m2 = i if i is odd else i + 1                                           (line 5)
        m = min(m1, m2)                                                         (line 6)

Theorem 1.2 states the ε >= 1 formula alone. m1 is the largest real root bound of the
extreme input's local search: for x = 1 (losses 0, 1, ..., N − 1) the derivative of brr
eq. 9 at step i is negative iff (a − 1) i² + (2N − a + 1) i − N(N + 1) < 0, whose positive
root is the expression inside the floor. (When that root is an integer the derivative there
is exactly 0 and Algorithm 1 stops one earlier: the floor then over-counts by one.)

This module is deliberately independent of :mod:`.bipartite_rr` (no search is called): it
exists to be compared against the search of brr Algorithm 2.

All floors are exact: the argument is enclosed in an arb ball at increasing precision until
its floor is decided, then (for a possibly integral value) decided by sympy.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..mechanisms.validation import positive_real
from .losses import LossMatrix, check_domain
from ..numbers.backends import exact_sympy

__all__ = ["ClosedFormM", "closed_form_m", "exact_floor", "is_equidistant_abs"]


@dataclass(frozen=True)
class ClosedFormM:
    """brr Algorithm 3's m with its intermediate values (``m2``/``i`` are ``None`` when ε >= 1)."""

    m: int
    m1: int
    m2: int | None
    i: int | None
    branch: str  # "eps>=1" or "min(m1,m2)"


def exact_floor(expr: Any) -> int:
    """⌊expr⌋ for a closed-form real sympy expression, decided rigorously."""
    import math

    import sympy

    from ..numbers.real import sympy_to_arb

    expr = exact_sympy(expr)
    if expr.is_Rational:
        return int(math.floor(Fraction(int(expr.p), int(expr.q))))
    from ..numbers.backends import ball_context

    for prec in (64, 256, 1024, 4096):
        with ball_context(prec):
            b = sympy_to_arb(expr)
            lo, hi = b.lower().floor(), b.upper().floor()
            if lo == hi:
                return int(lo.unique_fmpz())
    val = sympy.floor(expr)
    if not val.is_Integer:
        raise ArithmeticError(f"cannot decide floor({expr})")
    return int(val)


def closed_form_m(n: int, epsilon: Any) -> ClosedFormM:
    """m of brr Algorithm 3 for the domain {1..N} and privacy ε (exact; see module docstring)."""
    import sympy

    n = check_domain(n)
    eps = positive_real(epsilon, "epsilon")
    e = eps.to_sympy()
    a = sympy.exp(e)
    N = sympy.Integer(n)
    half = sympy.Rational(1, 2)
    m1 = exact_floor((sympy.sqrt(N**2 * a + (1 - a) ** 2 / 4) - (N - a / 2 + half)) / (a - 1))
    if eps >= 1:
        return ClosedFormM(m1, m1, None, None, "eps>=1")
    if n % 2 == 0:
        i = exact_floor(N / (sympy.exp(e / 2) + 1) + 1)
    else:
        i = exact_floor((sympy.sqrt(a * (N**2 - 1) + 1) - N) / (a - 1) + 1)
    m2 = i if i % 2 == 1 else i + 1
    return ClosedFormM(min(m1, m2), m1, m2, i, "min(m1,m2)")


def is_equidistant_abs(loss: LossMatrix) -> bool:
    """Whether ``loss`` is ``c·|x − y|`` (c > 0) on N equidistant points — Algorithm 3's setting."""
    n, m = loss.shape
    if n != m or loss.kind != "loss":
        return False
    c = loss.values[0][1]
    if c <= 0:
        return False
    return all(loss.values[x][y] == c * abs(x - y) for x in range(n) for y in range(n))
