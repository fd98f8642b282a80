"""A lower-end scan at large score scales: where a user's law may branch and no box looks.

A law written by hand can change behaviour at any constant — a score below −1000, a spread of
1000 — far outside the few Δ that the scope search and the branch-and-bound's score box cover. This
scan evaluates the float log-pmf on the lattice of score vectors

    q ∈ {−s, 0, s}^n,   q' = q + z,   z a vertex of the neighbourhood's offset box (or 0 per coordinate),

for each scale s in :data:`SCALES` (10³ … 10⁴ Δ, and one Δ beyond each, so that a comparison
``x < −1000`` or ``top − x >= 1000`` is met on both sides), compares both directions of every pair
and every output, and certifies the best triples in ball arithmetic
(:func:`~.level.certify_triple`). It finds laws that misbehave at such scales; it proves nothing
(no finite scan catches a law that branches at an arbitrary constant — the verdict's upper end
needs a proof over the whole domain for that). Float values only rank candidates; the witness is
the ball enclosure's lower end.

Budget: at most ``evaluations`` float log-pmfs (a seeded sample of the lattice when it is larger)
and ``seconds`` of CPU time.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction
from typing import Sequence

import numpy as np

from ...protocols import Mechanism
from ..bracket import Witness
from ..neighbourhoods import LInfBox, MonotoneBox, Neighbourhood
from .level import certify_triple

__all__ = ["SCALES", "scan_scales"]

#: score scales, in units of the largest Δ: 10^3 .. 10^4 (the constants a user most often writes)
SCALES = (1000, 2000, 5000, 10_000)


def _offsets(nb: Neighbourhood, n: int) -> list[tuple[Fraction, ...]]:
    """The neighbour offsets tried: each coordinate at −Δ_a, 0 or +Δ_a (ℓ∞ box), or all in one orthant
    (monotone box); the zero offset excluded."""
    if isinstance(nb, LInfBox):
        d = nb.deltas(n)
        choices = [(-x, Fraction(0), x) for x in d]
        out = itertools.product(*choices)
    elif isinstance(nb, MonotoneBox):
        d = nb.sensitivity
        out = itertools.chain(itertools.product((Fraction(0), d), repeat=n), itertools.product((-d, Fraction(0)), repeat=n))
    else:
        return []
    return [z for z in dict.fromkeys(out) if any(z)]


def scan_scales(mechanism: Mechanism, nb: Neighbourhood, n: int, *, seconds: float = 2.0, evaluations: int = 4000,
                certify: int = 3, scales: Sequence[int] = SCALES, seed: int = 0) -> Witness | None:
    """The best certified witness of the lattice scan (module docstring), or None.

    Args:
        mechanism: a selection mechanism with a float ``logpmf`` and a ball ``pmf``.
        nb: its score neighbourhood (ℓ∞ or monotone box; any other: None).
        n: the number of candidates (the n asked for).
        seconds, evaluations: the budget (CPU seconds of this process, float log-pmfs).
        certify: how many of the best float triples are certified in ball arithmetic.
        scales: the scales s, in units of the largest Δ.
        seed: the sample of the lattice when it is over budget.
    """
    offsets = _offsets(nb, n)
    if not offsets or n < 2:
        return None
    dmax = max(nb.deltas(n)) if isinstance(nb, LInfBox) else nb.sensitivity
    deadline = time.process_time() + seconds
    cache: dict[tuple[Fraction, ...], np.ndarray | None] = {}

    def logpmf(q: tuple[Fraction, ...]) -> np.ndarray | None:
        if q not in cache:
            try:
                with np.errstate(all="ignore"):
                    cache[q] = np.asarray(mechanism.logpmf(np.array([float(x) for x in q])), dtype=float)
            except (ValueError, OverflowError, ArithmeticError):  # outside the law's domain (integer scores)
                cache[q] = None
        return cache[q]

    pairs: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]] = []
    for s in scales:
        for base in (Fraction(s) * dmax, Fraction(s + 1) * dmax):
            for pattern in itertools.product((-base, Fraction(0), base), repeat=n):
                if not any(pattern):
                    continue
                pairs.extend((pattern, tuple(a + b for a, b in zip(pattern, z))) for z in offsets)
    if 2 * len(pairs) > evaluations:
        pairs = random.Random(seed).sample(pairs, evaluations // 2)
    ranked: list[tuple[float, tuple, tuple, int]] = []
    for q, q2 in pairs:
        if time.process_time() > deadline:
            break
        a, b = logpmf(q), logpmf(q2)
        if a is None or b is None:
            continue
        with np.errstate(all="ignore"):
            for x, y, qa, qb in ((a, b, q, q2), (b, a, q2, q)):
                d = x - y
                d[np.isnan(d)] = -math.inf
                r = int(np.argmax(d))
                if d[r] > -math.inf:
                    ranked.append((float(d[r]), qa, qb, r))
    ranked.sort(key=lambda t: t[0], reverse=True)
    best: Witness | None = None
    for v, q, q2, r in ranked[:certify]:
        w = certify_triple(mechanism, nb, q, q2, r, note=f"score-scale scan ({len(cache)} float log-pmfs), float {v:.12g}")
        if w is not None and (best is None or w.lower_float > best.lower_float):
            best = w
    return best
