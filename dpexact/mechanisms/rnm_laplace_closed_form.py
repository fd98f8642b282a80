"""Report noisy max with a common Laplace scale in closed form (exact and fast ball).

With ``Z_s ~ Lap(b)`` i.i.d. and ``u = (x - q_r)/b`` (pf Appendix F's integral),

    Pr[M(q) = r] = ∫ ½e^{-|u|} Π_{s≠r} F(u - δ_s) du,   δ_s = (q_s - q_r)/b,

with ``F`` the standard Laplace cdf. Each factor ``F(u - δ_s) = Pr[ν < u - δ_s]`` is the "below"
tail of :mod:`.sparse_vector.threshold_integral` (Laurent polynomial of degree ≤ 1 in ``e^u``
on each side of ``δ_s``), and ``½e^{-|u|}`` is its threshold density with ``k = 1``; the
integral is the same piecewise-exponential closed form: exact in ``Q[exp(Q)]`` when ε/Δ and the
scores are rational, a rigorous ball otherwise. Cost O(n³) arithmetic operations per pmf.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..numbers.backends import ball_context
from ..numbers.real import Real
from .sparse_vector.threshold_integral import Ops, ball_ops, exact_ops, laurent_segment

__all__ = ["rnm_laplace_values", "rnm_laplace_ball", "rnm_laplace_exact"]


def rnm_laplace_values(q: list[Real], b: Real, ops: Ops) -> list[Any]:
    """``[Pr[M(q) = r]]_r`` in the number system ``ops`` (common scale b)."""
    out = []
    for r in range(len(q)):
        fac = [((q[s] - q[r]) / b, False) for s in range(len(q)) if s != r]
        out.append(laurent_segment(ops, Fraction(1), fac))
    return out


def rnm_laplace_ball(q: list[Real], b: Real, prec: int, target_bits: int = 60, max_prec: int = 4096) -> list[Any]:
    """Rigorous balls; precision doubled until every relative radius is below ``2^-target_bits``.

    Rational inputs are memoised (the float and ball pmfs of one vector share one computation).
    """
    if b.is_rational and all(x.is_rational for x in q):
        return list(_ball_cached(tuple(x.value for x in q), b.value, prec, target_bits, max_prec))
    return _ball(q, b, prec, target_bits, max_prec)


@lru_cache(maxsize=1 << 16)
def _ball_cached(q: tuple, b: Fraction, prec: int, target_bits: int, max_prec: int) -> tuple:
    return tuple(_ball([Real.of(x) for x in q], Real.of(b), prec, target_bits, max_prec))


def _ball(q: list[Real], b: Real, prec: int, target_bits: int, max_prec: int) -> list[Any]:
    p = prec
    while True:
        with ball_context(p):
            vals = rnm_laplace_values(q, b, ball_ops(p))
            ok = all(v.rad() <= abs(v.mid()) * 2.0**-target_bits for v in vals)
        if ok or p >= max_prec:
            return vals
        p *= 2


def rnm_laplace_exact(q: list[Real], b: Real) -> list[Any]:
    """Exact values as :class:`~dpexact.numbers.exp_sum.ExpSum` (rational b and scores)."""
    return rnm_laplace_values(q, b, exact_ops())
