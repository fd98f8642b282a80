"""Starting points for the lower end on the law's own branch boundaries, wherever they are.

A hand-written law may change behaviour at any constant (a bonus once ``q_0 > 5000``); its level is
then approached where a score pair *crosses* that boundary, often with the other scores far away
(the bonus counts most when candidate 0 is unlikely). The compact analysis (:mod:`.compact_paths`)
already runs the law symbolically on each chart ``q_m = L``, ``q_a = L + G_a`` (``G_a <= 0``),
``q'_a = q_a + Z_a``, and every comparison the law makes is a constraint ``d(L, G, Z) ⋛ 0`` with ``d``
affine. This module reads those hyperplanes (it changes nothing in the compact unit) and places
candidate pairs on them:

* gaps ``G_a ∈ {0, -S}`` for S in :data:`GAPS` (in units of Δ: the far-away others of the supremum);
* every offset corner ``Z`` of the neighbourhood;
* ``L`` solved from the hyperplane (``d = 0``) and moved by ``0`` and ``±Δ/2``, so that q and q' lie
  on either side of it; a hyperplane without ``L`` is solved for one gap instead.

Float log-pmfs rank the candidates (both directions, every output); the best few are returned as
starts for :func:`..search.level.maximise_level` and certified in ball arithmetic by the caller.
Nothing here proves anything: it only looks where the law's branches are.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from ...protocols import AnyMechanism
from ..neighbourhoods import LInfBox, MonotoneBox, Neighbourhood

__all__ = ["branch_starts", "hyperplanes", "GAPS"]

#: gap sizes S (units of the largest Δ) given to the non-top scores: 0 (ties) to far away
GAPS = (0, 8, 64, 256)

Triple = tuple[tuple[Fraction, ...], tuple[Fraction, ...], int]


def _families(nb: Neighbourhood, n: int) -> list[list[tuple[Fraction, Fraction]]]:
    if isinstance(nb, LInfBox):
        return [[(-Fraction(x), Fraction(x)) for x in nb.deltas(n)]]
    d = Fraction(nb.sensitivity)
    return [[(Fraction(0), d)] * n, [(-d, Fraction(0))] * n]


def hyperplanes(mechanism: AnyMechanism, nb: Neighbourhood, n: int, deadline: float) -> list[tuple[int, Fraction, dict[str, Fraction]]]:
    """``(chart m, c0, {variable: coefficient})`` of every comparison the law makes on every chart (rational
    coefficients only), deduplicated; empty when the symbolic run declines or runs out of time."""
    from .compact_budget import OutOfBudget
    from .compact_paths import Unsupported, affine, run_chart

    out: dict[tuple, tuple[int, Fraction, dict[str, Fraction]]] = {}
    for zf in _families(nb, n):
        for m in range(n):
            try:
                chart = run_chart(mechanism, n, m, zf, deadline)
            except (Unsupported, OutOfBudget):
                return sorted(out.values(), key=lambda t: -abs(t[1]))
            names = list(chart.logvars.values())
            keys = list(chart.logvars.keys())
            for path in [*chart.paths_q, *chart.paths_q2]:
                for d, _signs in path.constraints:
                    got = affine(d, names)
                    if got is None or not got[0].is_Rational or not all(c.is_Rational for c in got[1]):
                        continue
                    c0 = Fraction(int(got[0].p), int(got[0].q))
                    cs = {k: Fraction(int(c.p), int(c.q)) for k, c in zip(keys, got[1]) if c != 0}
                    if cs:
                        out[(m, c0, tuple(sorted(cs.items())))] = (m, c0, cs)
    # comparisons with a constant first: the ones no box near the origin meets
    return sorted(out.values(), key=lambda t: -abs(t[1]))


def _points(m: int, c0: Fraction, cs: dict[str, Fraction], n: int, zf: list[tuple[Fraction, Fraction]],
            dmax: Fraction) -> list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """Pairs on both sides of one hyperplane (module docstring)."""
    others = [a for a in range(n) if a != m]
    corners = list(itertools.product(*[sorted({lo, Fraction(0), hi}) for lo, hi in zf]))
    out = []
    for gaps in itertools.product(*[[-s * dmax for s in GAPS]] * len(others)):
        g = dict(zip(others, gaps))
        for z in corners:
            if not any(z):
                continue
            rest = c0 + sum(cs.get(f"G{a}", 0) * g[a] for a in others) + sum(cs.get(f"Z{a}", 0) * z[a] for a in range(n))
            if cs.get("L"):
                base = [(-rest / cs["L"], g)]
            else:  # a comparison of gaps only: solve for the first gap it names (it must stay <= 0)
                a = next((a for a in others if cs.get(f"G{a}")), None)
                if a is None:
                    continue
                ga = g[a] - rest / cs[f"G{a}"]
                if ga > 0:
                    continue
                base = [(Fraction(0), {**g, a: ga})]
            for L, gg in base:
                for h in (Fraction(0), dmax / 2, -dmax / 2):
                    q = tuple(L + h + (gg[a] if a != m else 0) for a in range(n))
                    out.append((q, tuple(x + dz for x, dz in zip(q, z))))
    return out


def branch_starts(mechanism: AnyMechanism, nb: Neighbourhood, n: int, *, seconds: float = 3.0,
                  keep: int = 4) -> list[Triple]:
    """The ``keep`` best float triples ``(q, q', r)`` placed on the law's branch boundaries (module
    docstring), best first, within ``seconds`` of CPU for the symbolic run and as many for the ranking; empty for a law the compact unit does not run (:class:`.compact_bnb.CompactBnB`'s
    ``supports``) or without comparisons."""
    from .compact_bnb import CompactBnB

    if not CompactBnB().supports(mechanism, n, nb) or not isinstance(nb, (LInfBox, MonotoneBox)):
        return []
    planes = hyperplanes(mechanism, nb, n, time.process_time() + seconds)  # the symbolic run, then the ranking:
    stop = time.process_time() + seconds  # each its own CPU budget (a slow run must not leave the ranking none)
    dmax = Fraction(max(nb.deltas(n))) if isinstance(nb, LInfBox) else Fraction(nb.sensitivity)
    cache: dict[tuple[Fraction, ...], np.ndarray | None] = {}

    def logpmf(q: tuple[Fraction, ...]) -> np.ndarray | None:
        if q not in cache:
            try:
                with np.errstate(all="ignore"):
                    cache[q] = np.asarray(mechanism.logpmf(np.array([float(x) for x in q])), dtype=float)
            except (ValueError, OverflowError, ArithmeticError):
                cache[q] = None
        return cache[q]

    ranked: list[tuple[float, Triple]] = []
    for zf in _families(nb, n):
        for m, c0, cs in planes:
            for q, q2 in _points(m, c0, cs, n, zf, dmax):
                if time.process_time() > stop:
                    break
                if not nb.contains(q, q2):
                    continue
                a, b = logpmf(q), logpmf(q2)
                if a is None or b is None:
                    continue
                with np.errstate(all="ignore"):
                    for x, y, qa, qb in ((a, b, q, q2), (b, a, q2, q)):
                        d = x - y
                        d[np.isnan(d)] = -math.inf
                        r = int(np.argmax(d))
                        if math.isfinite(d[r]):
                            ranked.append((float(d[r]), (qa, qb, r)))
    ranked.sort(key=lambda t: t[0], reverse=True)
    out: list[Triple] = []
    for _, t in ranked:
        if t not in out:
            out.append(t)
        if len(out) >= keep:
            break
    return out
