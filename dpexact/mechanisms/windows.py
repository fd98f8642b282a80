"""Clusters of overlapping noise windows, for quadratures that must resolve every scale.

A noisy score ``q_a + b_a Z`` has its mass (up to ``e^{-W}``) in the window
``[q_a + t_lo b_a, q_a + t_hi b_a]``. Report-noisy-max style pmfs integrate, for candidate
``r``, a density concentrated in ``r``'s window; integrating each *cluster* of overlapping
windows in a local coordinate ``y - c`` (``c`` a score of the cluster) resolves noise scales
far below the spacing of float64 numbers near the scores (ε = 1e20 on scores of size 1) and
spreads far above the scales (scores 0 and -1e7 with b = 3), which a quadrature over the
whole line misses. Used by :mod:`.report_noisy_max` and :mod:`.heterogeneous.rs_gamma`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..numbers.real import Real

__all__ = ["FloatReach", "ExactReach", "clusters"]


class FloatReach:
    """Window comparisons in float64 with a margin: two windows are kept apart only when their
    gap exceeds the window widths by a relative 1e-9 (far above the rounding of the differences),
    so a float decision never splits overlapping windows."""

    def __init__(self, q: np.ndarray, b: np.ndarray, t_lo: float, t_hi: float):
        self.q, self.b, self.lo, self.hi = q, b, t_lo, t_hi

    def _diff(self, x: int, y: int) -> float:
        with np.errstate(over="ignore"):
            return float(self.q[x] - self.q[y])

    def overlaps(self, right_of_left: int, left_of_right: int) -> bool:
        """Whether ``q_l + t_lo b_l <= q_r + t_hi b_r`` (l = left_of_right, r = right_of_left)."""
        reach = self.hi * self.b[right_of_left] - self.lo * self.b[left_of_right]
        return self._diff(left_of_right, right_of_left) <= reach * (1 + 1e-9)

    def reaches_further_right(self, x: int, y: int) -> bool:
        return self._diff(x, y) > self.hi * (self.b[y] - self.b[x])

    def reaches_further_left(self, x: int, y: int) -> bool:
        return self._diff(x, y) < self.lo * (self.b[y] - self.b[x])


class ExactReach:
    """The same comparisons decided exactly (scores and scales exact Reals, t_lo/t_hi exact)."""

    def __init__(self, q: list[Real], b: list[Real], t_lo: Real, t_hi: Real):
        self.q, self.b, self.lo, self.hi = q, b, t_lo, t_hi

    def overlaps(self, right_of_left: int, left_of_right: int) -> bool:
        x, y = left_of_right, right_of_left
        return ((self.q[x] - self.q[y]) - (self.hi * self.b[y] - self.lo * self.b[x])).sign() <= 0

    def reaches_further_right(self, x: int, y: int) -> bool:
        return ((self.q[x] - self.q[y]) - self.hi * (self.b[y] - self.b[x])).sign() > 0

    def reaches_further_left(self, x: int, y: int) -> bool:
        return ((self.q[x] - self.q[y]) - self.lo * (self.b[y] - self.b[x])).sign() < 0


def clusters(order: list[int], reach: Any) -> list[list[int]]:
    """Merge the windows of candidates visited in increasing score order into disjoint clusters.

    A cluster keeps the members whose windows reach furthest left and right; a new candidate
    opens a cluster, which swallows the previous ones while their windows overlap (clusters
    stay disjoint and ordered, so only the last one can overlap a newcomer). Members are
    returned in increasing score order.
    """
    out: list[tuple[list[int], int, int]] = []
    for i in order:
        mem, lft, rgt = [i], i, i
        while out and reach.overlaps(out[-1][2], lft):
            pm, pl, pr = out.pop()
            mem = pm + mem
            lft = pl if reach.reaches_further_left(pl, lft) else lft
            rgt = rgt if reach.reaches_further_right(rgt, pr) else pr
        out.append((mem, lft, rgt))
    return [m for m, _, _ in out]
