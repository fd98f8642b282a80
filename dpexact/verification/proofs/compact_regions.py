"""A box of the compact branch-and-bound narrowed to the region of one pair of branch paths.

A path of a law (:mod:`.compact_paths`) holds where its comparison outcomes hold: constraints
``sign(d) ∈ S`` with ``d = c_0 + Σ c_v v`` affine in the log-variables (``L``, the gaps ``G_a``, the
offsets ``Z_a``). The ratio of a pair of paths (one for ``q``, one for ``q'``) is the law's ratio only
on the points of the box where both paths are taken, and outside that region its denominator may
vanish (PF: the neighbour's path where another score is the largest divides by that score's weight).
So before a pair's ratio is enclosed, the box is narrowed to a box that still contains the pair's
region (constraint propagation, the HC4 "revise" step of Benhamou et al. 1999 on linear constraints):
for ``d >= 0``,

    c_v · v >= -c_0 - Σ_{u != v} sup(c_u · u),

a bound on ``v`` (an upper one when ``c_v < 0``); ``d <= 0`` is ``-d >= 0``, ``d = 0`` both, and a strict
outcome (``d > 0``) is narrowed to its closure (a superset: sound). Two rounds over the constraints of
both paths; an empty result means no point of the box takes the pair. The narrowed log-variable
intervals are mapped back to σ (``G = K(1 - 1/σ)``, ``L = K(1/σ - 1)`` on the high half, ``Z = σ``:
monotone maps), rounded outward, and intersected with the box. The supremum of the ratio over the
narrowed box bounds the law's log-ratio on the pair's region, which is all the pair has to bound.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

__all__ = ["narrow", "linear_constraints", "to_log"]

Ext = Optional[Fraction]  # None: an infinite end
#: σ-ends with a denominator above this are rounded outward to multiples of 2^-64
MAX_DENOMINATOR = 2**64
ROUNDS = 2


def linear_constraints(path: Any, names: list, cache: dict) -> list[tuple[Fraction, tuple[Fraction, ...], int]]:
    """The path's constraints usable for narrowing, as ``(c_0, (c_v ...), side)`` meaning
    ``side · d >= 0`` (one entry per side for ``d = 0``); constraints with an irrational constant or
    coefficient, or with both strict sides allowed, are left out (no narrowing: sound)."""
    from .compact_paths import affine

    out = []
    for d, allowed in path.constraints:
        key = (d, allowed)
        if key not in cache:
            rows = []
            sides = [s for s, ok in ((1, allowed <= {0, 1}), (-1, allowed <= {-1, 0})) if ok]
            aff = affine(d, names) if sides else None
            if aff is not None and aff[0].is_Rational and all(c.is_Rational for c in aff[1]):
                c0 = Fraction(int(aff[0].p), int(aff[0].q))
                cs = tuple(Fraction(int(c.p), int(c.q)) for c in aff[1])
                rows = [(s * c0, tuple(s * c for c in cs), 1) for s in sides]
            cache[key] = rows
        out += cache[key]
    return out


def to_log(kind: str, lo: Fraction, hi: Fraction, scale: Fraction) -> tuple[Ext, Ext]:
    if kind == "Z":
        return lo, hi
    if kind == "L-high":  # L = K(1/σ - 1), decreasing
        return scale * (1 / hi - 1) if hi else None, scale * (1 / lo - 1) if lo else None
    return scale * (1 - 1 / lo) if lo else None, scale * (1 - 1 / hi) if hi else None


def _to_sigma(kind: str, lo: Ext, hi: Ext, scale: Fraction) -> tuple[Fraction, Fraction]:
    """The σ-interval of a log-variable interval (None ends are infinite), before intersection."""
    if kind == "Z":
        return (lo if lo is not None else Fraction(-10**9)), (hi if hi is not None else Fraction(10**9))
    if kind == "L-high":  # σ = K/(K + L), decreasing in L
        s_lo = Fraction(0) if hi is None else (scale / (scale + hi) if scale + hi > 0 else Fraction(1))
        s_hi = Fraction(1) if lo is None or scale + lo <= 0 else scale / (scale + lo)
        return s_lo, s_hi
    # σ = K/(K - G), increasing in G
    s_lo = Fraction(0) if lo is None or scale - lo <= 0 else scale / (scale - lo)
    s_hi = Fraction(1) if hi is None or scale - hi <= 0 else scale / (scale - hi)
    return s_lo, s_hi


def _round(x: Fraction, up: bool) -> Fraction:
    if x.denominator <= MAX_DENOMINATOR:
        return x
    k = x * MAX_DENOMINATOR
    n = -((-k.numerator) // k.denominator) if up else k.numerator // k.denominator
    return Fraction(n, MAX_DENOMINATOR)


def narrow(box: tuple, kinds: list[str], order: list[int], rows: list, scale: Fraction) -> tuple | None:
    """``box`` (σ per coordinate) narrowed to the region of ``rows`` (:func:`linear_constraints`,
    coefficients indexed by log-variable; ``order[v]`` is the coordinate of log-variable ``v``); None
    when the region does not meet the box."""
    if not rows:
        return box
    iv: list[list[Ext]] = [list(to_log(kinds[order[v]], *box[order[v]], scale)) for v in range(len(order))]
    changed_any = False
    for _ in range(ROUNDS):
        changed = False
        for c0, cs, _side in rows:
            # sup of each term c_u·u (None: +∞)
            sups: list[Ext] = []
            for c, (lo, hi) in zip(cs, iv):
                if c == 0:
                    sups.append(Fraction(0))
                else:
                    end = hi if c > 0 else lo
                    sups.append(None if end is None else c * end)
            finite = [s for s in sups if s is not None]
            missing = len(sups) - len(finite)
            total = sum(finite, Fraction(0))
            if missing > 1:
                continue
            for v, c in enumerate(cs):
                if c == 0:
                    continue
                if sups[v] is None:
                    rest = total
                elif missing:
                    continue
                else:
                    rest = total - sups[v]
                bound = (-c0 - rest) / c
                lo, hi = iv[v]
                if c > 0 and (lo is None or bound > lo):
                    iv[v][0], changed = bound, True
                elif c < 0 and (hi is None or bound < hi):
                    iv[v][1], changed = bound, True
                lo, hi = iv[v]
                if lo is not None and hi is not None and lo > hi:
                    return None
        changed_any |= changed
        if not changed:
            break
    if not changed_any:
        return box
    out = list(box)
    for v, c in enumerate(order):
        s_lo, s_hi = _to_sigma(kinds[c], iv[v][0], iv[v][1], scale)
        lo, hi = max(box[c][0], _round(s_lo, False)), min(box[c][1], _round(s_hi, True))
        if lo > hi:
            return None
        out[c] = (lo, hi)
    return tuple(out)
