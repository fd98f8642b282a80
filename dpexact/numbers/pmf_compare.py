"""Rigorous checks of a computed :class:`Pmf` against its own error statement.

These are the oracles of the extreme-input scan and the API fuzz: a float or mp pmf is
*wrong* when a rigorous reference (a ball pmf) proves that some entry lies farther from the
truth than the pmf's stated ``abs_error`` / ``rel_error``; a pmf is *not normalised* when its
total differs from 1 by more than its stated bounds allow. Every comparison is done in arb
ball arithmetic, so a reported violation is certain (the ball radius is given the benefit of
the doubt).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .pmf import Pmf

__all__ = ["Violation", "bound_violations", "is_finite", "normalisation_violation", "ball_is_normalised", "to_arb"]

U = 2.0**-53


@dataclass(frozen=True)
class Violation:
    """Entry ``index`` is provably farther than ``bound`` from the truth (by at least ``excess``)."""

    index: int
    value: float
    reference: str
    bound: float
    excess: float

    def __str__(self) -> str:
        return f"entry {self.index}: {self.value!r} vs {self.reference}, bound {self.bound:.3g}, off by >= {self.excess:.3g}"


def to_arb(v: Any) -> Any:
    """An exact arb for a float / mpf / arb value (arb values are returned unchanged)."""
    from flint import arb

    name = type(v).__name__
    if name == "arb":
        return v
    if name == "mpf":
        man, exp = int(v.man), int(v.exp)
        sign = -1 if v < 0 else 1
        return arb(sign * abs(man)) * arb(2) ** exp if man else arb(0)
    return arb(float(v))


def is_finite(p: Pmf) -> bool:
    """Every value and the stated bounds are finite numbers (NaN-free; radii finite for balls)."""
    try:
        for v in p.values:
            if type(v).__name__ == "arb":
                if not v.is_finite():
                    return False
            elif type(v).__name__ == "fmpq":
                continue
            elif not math.isfinite(float(v)):
                return False
    except (TypeError, ValueError):
        return False
    return not (math.isnan(p.abs_error) or (p.rel_error is not None and math.isnan(p.rel_error)))


def bound_violations(p: Pmf, ball: Pmf) -> list[Violation]:
    """Entries of ``p`` that the rigorous ``ball`` pmf proves to be outside ``p``'s stated bound.

    Violation of the absolute bound: ``|p_r - B_r| - rad(B_r) > abs_error``. Of the relative
    bound: ``|p_r - B_r| - rad(B_r) > rel_error · sup|B_r|``. Both are decided in arb.
    """
    from flint import arb, ctx

    out: list[Violation] = []
    old = ctx.prec
    ctx.prec = max(old, 256)
    try:
        for i, (v, b) in enumerate(zip(p.values, ball.values, strict=True)):
            d = (to_arb(v) - b).abs_lower()  # certainly <= |p_r - truth|
            if not d.is_finite():
                continue
            bounds = [p.abs_error]
            # the relative bound covers entries in float64's normal range (below 2^-1022 an
            # entry may underflow; Pmf.logvalues carries it)
            if p.rel_error is not None and (p.backend != "float" or b.abs_upper() >= arb(2.0**-1022)):
                bounds.append(p.rel_error * float(b.abs_upper()))
            for bd in bounds:
                if math.isfinite(bd) and d > arb(bd):
                    out.append(Violation(i, float(to_arb(v).mid()), b.str(10), bd, float((d - arb(bd)).mid())))
                    break
    finally:
        ctx.prec = old
    return out


def normalisation_violation(p: Pmf) -> float:
    """How far ``Σ p_r`` is provably from 1 beyond what the stated bounds allow (0.0 if consistent).

    Allowed slack: ``min(n·abs_error, rel_error·Σ p_r)`` plus the rounding of the check's own
    float sum (``n u``). For a ball pmf: 0.0 iff the ball sum contains 1.
    """
    from flint import arb, ctx

    n = len(p.values)
    if n and type(p.values[0]).__name__ == "arb":
        return 0.0 if ball_is_normalised(p) else math.inf
    old = ctx.prec
    ctx.prec = max(old, 256)
    try:
        total = arb(0)
        for v in p.values:
            total += to_arb(v)  # exact sum of the returned numbers
        off = (total - 1).abs_lower()
        slack = n * p.abs_error if math.isfinite(p.abs_error) else math.inf
        if p.rel_error is not None:
            slack = min(slack, p.rel_error * float(total.abs_upper()))
        if not off.is_finite():
            return math.inf
        excess = float((off - arb(slack)).mid()) if math.isfinite(slack) else 0.0
        return max(0.0, excess)
    finally:
        ctx.prec = old


def ball_is_normalised(p: Pmf) -> bool:
    """Whether the sum of the balls contains 1 (a rigorous pmf must)."""
    from flint import arb

    total = arb(0)
    for v in p.values:
        total += v
    return bool(total.contains(1))
