"""The untilted masses of a tilted grid measure (:mod:`.grid_measure`) and their suffix sums, with each mass's error
scale: what δ(ε)'s evaluation reads (:func:`.grid_measure._terms`, :func:`.grid_measure._delta_lower_suffix`,
:func:`.grid_measure.raw_total_untilted`, :meth:`.shifted_terms.Profile._parts`), computed once per measure and cached
(the bisections of ε(δ) evaluate δ at many ε on the same measures).

Masses. The entry v_j at the grid point x_j stands for m_j = v_j·2^scale·e^{−θx_j}; it is computed as
mass_j = fl(v_j·exp(a_j)), a_j = fl(fl(scale·fl(ln2)) − fl(θx̂_j)), x̂_j the float location (within u|x_j|: j·h is
exact, the shift added once). With B_j = |scale·ln2| + θ|x_j|, a_j is within (2u + u²)|scale·ln2| (ln2 and the
product) + 2.001uθ|x_j| (x̂_j and the product) + u(|c| + |θx̂_j|) (the difference) <= 4.001u·B_j of scale·ln2 − θx_j,
so e^{a_j} is within e^{4.001uB_j} − 1 <= 4.01u·B_j relative (B_j <= 1e12, checked); exp within 4 ulp <= 8u of e^{a_j}
(numpy's exp, as assumed in :mod:`.grid_measure`; a_j in [−708, 709]: a normal result), the product u: mass_j is within
5u·B_j + 10u relative of m_j (a subnormal product within 2^-1075 absolute). The readers use rel = 8u·suf[i] + 16u with
suf[i] >= (1 − 4u)·max_{j>=i} B_j (the computed B_j: ln2, scale·ln2, θ|x| and the sum rounded) as the masses' share of
their error (:func:`.grid_measure._terms`: 2·rel with expm1 and the product, widened by (1 ± rel)·e^{±4rel}), which
this bound stays inside. Entries whose a_j leaves [−708, 709] (exp overflows where v_j·e^{a_j} may still be finite, or
is subnormal) or with B_j > 1e12 take exp(log v_j + a_j) instead, error scale |log v_j| + B_j (log 4 ulp, one more
addition): the log would cost as much as the exp, on every entry.

Since x increases and θ >= 0, a is non-increasing (the range check is at the two ends) and max_{j>=i}|x_j| =
max(|x_i|, |x_{n−1}|) (|x| is convex along the grid): suf needs no running maximum.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .grid_measure import GridMeasure

__all__ = ["CACHE_ENTRIES", "masses", "suffix_sums", "untilted"]

_PRE: dict[int, tuple] = {}
_SUF: dict[int, tuple] = {}
#: the most entries the evaluation caches (:func:`untilted`, :func:`suffix_sums`) keep, each (~3 float arrays an entry).
#: One end of a fine split pass must fit: past it every evaluation of the bisection recomputes every term (measured:
#: σ = 0.5, q = 1/1000, T = 1000, δ = 1e-10, 19M entries at 2^-16: 0.62 s an evaluation at 2^23 against 0.095 s at
#: 2^-15; the pass 29.7 s → 11.4 s at 2^25, the row's peak memory 1.8 GB)
CACHE_ENTRIES = 2**25


def masses(v: np.ndarray, x: np.ndarray, theta: float, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """(untilted masses v_j·2^scale·e^{−θx_j}, suffix maxima of their error scales) of entries v at increasing
    float locations x, θ >= 0 (module docstring: each mass within 5u·B_j + 10u relative, B_j <= suf[j])."""
    n = len(x)
    c = scale * math.log(2)
    a = np.multiply(x, -theta)  # −θx̂_j: fl(θx̂_j) negated
    if n and not (a[0] + c > 709 or a[-1] + c < -708) and abs(c) + theta * max(-x[0], x[-1]) <= 1e12:
        suf = np.empty(n)
        ax = abs(float(x[-1]))
        k = int(np.searchsorted(x, -ax, side="left"))  # x_j < −|x_{n−1}| <= 0 before k: |x_j| = −x_j, decreasing
        np.add(abs(c), a[:k], out=suf[:k])
        suf[k:] = abs(c) + theta * ax
        a += c
        with np.errstate(under="ignore"):
            mass = np.multiply(v, np.exp(a, out=a), out=a)
    else:
        pos = v > 0
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            lv = np.where(pos, np.log(np.where(pos, v, 1.0)), 0.0)
            B = abs(c) + theta * np.abs(x)
            far = (a + c > 709) | (a + c < -708) | (B > 1e12)
            mass = np.where(pos, np.where(far, np.exp(lv + c + a), v * np.exp(np.where(far, 0.0, a + c))), 0.0)
        big = np.where(pos, np.where(far, np.abs(lv), 0.0) + B, 0.0)
        suf = np.maximum.accumulate(big[::-1])[::-1] if n else big
    return mass, suf


def untilted(m: GridMeasure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(locations x, untilted masses, suffix maxima of each entry's error scale) of ``m`` (module docstring)."""
    hit = _PRE.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    x = m.locations()
    mass, suf = masses(m.v, x, m.theta, m.scale)
    if len(_PRE) > 256 or sum(len(h[1][0]) for h in _PRE.values()) + len(x) > CACHE_ENTRIES:
        _PRE.clear()
    _PRE[id(m)] = (m, (x, mass, suf))
    return x, mass, suf


def suffix_sums(m: GridMeasure) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(locations, Σ_{j>=i} mass_j, Σ_{j>=i} mass_j·e^{−x_j}, the error scales' suffix maxima, max |x|), once per
    measure; each sum of k non-negative terms within γ_k of its exact value (any order)."""
    hit = _SUF.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    x, mass, suf = untilted(m)
    with np.errstate(over="ignore", under="ignore"):
        s1 = np.cumsum(mass[::-1])[::-1]
        s2 = np.cumsum((mass * np.exp(-x))[::-1])[::-1]
    xmax = max(abs(float(x[0])), abs(float(x[-1]))) if len(x) else 0.0  # x increases
    # the cache holds its measures alive: bounded by entries, not only by count (the fine-grid terms of a q = 1/10,
    # T = 10^4 row are ~10^6 entries each; a count bound of 256 let one run reach 18 GB)
    if len(_SUF) > 256 or sum(len(h[1][0]) for h in _SUF.values()) + len(x) > CACHE_ENTRIES:
        _SUF.clear()
    _SUF[id(m)] = (m, (x, s1, s2, suf, xmax))
    return x, s1, s2, suf, xmax
