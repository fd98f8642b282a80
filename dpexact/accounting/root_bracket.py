"""The ε search of the grid route (:func:`solve`): the float ε where a certified, non-increasing δ(ε) crosses δ,
its points placed around the interpolated root.

Why: each evaluation of δ(ε) on a fine split pass walks every shifted term's profiles (measured σ = 2, q = 1/1000,
T = 1000, δ = 1e-5: ~20 ms at h = 2^-20), and bisection from the last pass's interval needs ~12 of them per end to
reach the stop width w (:data:`STOP_SHARE`). log δ(ε) is smooth, near linear over a fine pass's
bracket: the root of the straight line through (a, log F(a)) and (b, log F(b)) (regula falsi on log F) is then within
w/2 of the true one, and two evaluations at that root ± :data:`SPREAD`·w close the bracket below w.

Soundness: none here. The search keeps a point as its upper end only where its own evaluation says F <= t, as its
lower end only where F > t; where it evaluates decides the cost and, within the stop width, the width.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["SECANT", "STOP_SHARE", "bracket_step", "next_guess", "solve"]

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


#: with a last interval of width W, the bisection also stops within W·STOP_SHARE (a pass narrows an interval ~4×
#: per halving, so its ends lose at most ~1 % of the new width; ~10 evaluations of δ instead of ~20)
STOP_SHARE = 2.0**-10


def solve(F: Any, t: float, want_upper: bool, rel: float = 0.0, guess: tuple[float, float] | None = None) -> float:
    """Upper end: the least float ε found with F(ε) <= t; lower end: the greatest with F(ε) > t (F non-increasing).

    Only the returned point's own evaluation certifies it, so the search may stop early, start anywhere and place
    its points as it likes: ``rel`` stops the search once the bracket is within rel·ε (a loss of at most that much
    width), ``guess`` (the last pass's interval) is tried as the first bracket, each of its ends kept only where F
    confirms it, and the search stops within :data:`STOP_SHARE` of its width. Inside the bracket the points are placed
    by :func:`.bracket_step`, or bisection when its last step did not halve the bracket."""
    a, b = 0.0, 1.0
    fa, fb = math.nan, math.nan
    stop = 0.0
    if guess is not None and 0.0 < guess[0] < guess[1] and math.isfinite(guess[1]):
        g_lo, g_hi = guess
        pad = max(g_hi - g_lo, rel * g_hi)
        stop = (g_hi - g_lo) * STOP_SHARE
        lo_try, hi_try = max(g_lo - pad, 0.0), g_hi + pad
        f = F(hi_try)
        if f <= t:
            b, fb = hi_try, f
            if lo_try > 0:
                f = F(lo_try)
                if f > t:
                    a, fa = lo_try, f
                else:
                    b, fb = lo_try, f
    if not fa > t:  # ε = 0 is evaluated only when no confirmed point above it is known (F non-increasing)
        fa = F(0.0)
        if fa <= t:
            return 0.0
    if not fb <= t:
        while True:
            f = F(b)
            if f <= t:
                fb = f
                break
            a, fa, b = b, f, b * 2
            if b > 2.0**20:
                return math.inf if want_upper else a
    halve = False  # the last interpolation did not halve the bracket: bisect once
    for _ in range(200):
        w = max(rel * b, stop)
        if not b - a > w or not a < (a + b) / 2 < b:
            break
        width = b - a
        pts = None if (halve or not SECANT) else bracket_step(a, fa, b, fb, t, w)
        if pts is None:
            pts = ((a + b) / 2,)
        for m in pts:
            if not a < m < b:
                break
            f = F(m)
            if f > t:
                a, fa = m, f
            else:
                b, fb = m, f
        halve = b - a > width / 2
    return b if want_upper else a


def next_guess(guess: tuple[float, float] | None, now: tuple[float, float]) -> tuple[float, float] | None:
    """The next bisection's guess: the intersection of the last guess (itself an intersection of passes) and this
    pass's interval; None while it has no finite positive ends (a one-end pass's first interval)."""
    lo, hi = now if guess is None else (max(now[0], guess[0]), min(now[1], guess[1]))
    return (lo, hi) if 0.0 < lo < hi < math.inf else None
