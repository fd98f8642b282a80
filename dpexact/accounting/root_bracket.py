"""Where the ε search of :func:`.grid_accounting._solve` evaluates next: two points around the interpolated root.

Why: each evaluation of δ(ε) on a fine split pass walks every shifted term's profiles (measured σ = 2, q = 1/1000,
T = 1000, δ = 1e-5: ~20 ms at h = 2^-20), and bisection from the last pass's interval needs ~12 of them per end to
reach the stop width w (:data:`.grid_accounting.STOP_SHARE`). log δ(ε) is smooth, near linear over a fine pass's
bracket: the root of the straight line through (a, log F(a)) and (b, log F(b)) (regula falsi on log F) is then within
w/2 of the true one, and two evaluations at that root ± :data:`SPREAD`·w close the bracket below w.

Soundness: none here. The search keeps a point as its upper end only where its own evaluation says F <= t, as its
lower end only where F > t; where it evaluates decides the cost and, within the stop width, the width.
"""

from __future__ import annotations

import math

__all__ = ["SECANT", "bracket_step"]

#: place the search's points by interpolation (:func:`bracket_step`); False: bisection only
SECANT = True
#: the two points at the interpolated root ± SPREAD·w: each end then lies within SPREAD·w of the root when the
#: interpolation is that accurate (bisection's ends: up to w/2; the stop width is up to ~6 % of a fine pass's new width
#: after a jump of three halvings, measured σ = 2, q = 1/100, T = 100, δ = 1e-5), one more step when it is not
SPREAD = 0.1


def bracket_step(a: float, fa: float, b: float, fb: float, t: float, w: float) -> tuple[float, float] | None:
    """Two points around the root of log F − log t on the line through (a, log fa), (b, log fb) (fa > t >= fb),
    2·SPREAD·w apart, the one nearer the bracket's middle first (wherever the root falls, the other then closes the bracket);
    None when the values cannot be interpolated (0, ∞)."""
    if not (0.0 < fb <= t < fa < math.inf):
        return None
    ga, gb = math.log(fa) - math.log(t), math.log(fb) - math.log(t)
    if not ga > gb:
        return None
    m = a + (b - a) * (ga / (ga - gb))
    lo, hi = m - SPREAD * w, m + SPREAD * w
    return (hi, lo) if m < (a + b) / 2 else (lo, hi)
