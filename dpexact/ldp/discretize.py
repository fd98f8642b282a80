"""Discretising a continuous query range onto N equidistant points before BRR/GRR (brr §4.1).

brr §4.1: the range of the query is "equally divided" into a discrete domain
``Y = {y_1, ..., y_N}``; the true value x is first mapped to the nearest point
``y* = argmin_{y_i ∈ Y} |x − y_i|`` and y* is then perturbed by the LDP mechanism.

We read "equally divided" as N points including both endpoints, ``y_i = low + (i − 1)·L`` with
spacing ``L = (high − low)/(N − 1)``, which matches brr §5.4 ("[−c, c] is equally divided for
suitable L that gives n = 2c/L + 1 points"). A value exactly halfway between two points goes to
the lower one (the first minimiser, as ``argmin`` returns). Values outside [low, high] are
rejected (the paper assumes they were clipped). The mapping error is at most L/2.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..numbers.real import Real
from .losses import LossMatrix, check_domain, distance_loss

__all__ = ["equidistant_grid", "nearest_index", "grid_loss", "points_for_spacing"]


def _range(low: Any, high: Any) -> tuple[Fraction, Fraction]:
    lo, hi = Real.of(low, "low"), Real.of(high, "high")
    if not (lo.is_rational and hi.is_rational):
        raise ValueError("low and high must be rational")
    if not lo.value < hi.value:
        raise ValueError(f"low must be < high, got low={lo}, high={hi}")
    return lo.value, hi.value


def equidistant_grid(low: Any, high: Any, n: int) -> tuple[Fraction, ...]:
    """``y_i = low + i·(high − low)/(N − 1)`` for i = 0..N−1 (exact)."""
    n = check_domain(n, "n")
    lo, hi = _range(low, high)
    step = (hi - lo) / (n - 1)
    return tuple(lo + i * step for i in range(n))


def points_for_spacing(low: Any, high: Any, spacing: Any) -> int:
    """brr §5.4: ``n = (high − low)/L + 1``; ValueError unless L divides the range exactly."""
    lo, hi = _range(low, high)
    L = Real.of(spacing, "spacing")
    if not L.is_rational or L.value <= 0:
        raise ValueError(f"spacing must be a positive rational, got {L}")
    k = (hi - lo) / L.value
    if k.denominator != 1:
        raise ValueError(f"spacing {L} does not divide the range [{lo}, {hi}]")
    return check_domain(int(k) + 1, "n")


def nearest_index(x: Any, low: Any, high: Any, n: int) -> int:
    """Index of ``y* = argmin_i |x − y_i|`` on :func:`equidistant_grid` (ties: lower index)."""
    n = check_domain(n, "n")
    lo, hi = _range(low, high)
    v = Real.of(x, "x")
    if not v.is_rational:
        raise ValueError("x must be rational (floats are taken at their exact value)")
    if not lo <= v.value <= hi:
        raise ValueError(f"x = {v} lies outside [{lo}, {hi}]; clip it first")
    t = (v.value - lo) * (n - 1) / (hi - lo)  # position in units of L
    k = int(t)  # floor, t >= 0
    return k + 1 if t - k > Fraction(1, 2) else k


def grid_loss(low: Any, high: Any, n: int) -> LossMatrix:
    """``λ(y_i, y_j) = |y_i − y_j| = L·|i − j|`` on the grid (a multiple of brr §3's loss)."""
    return distance_loss(equidistant_grid(low, high, n), name="grid-abs")
