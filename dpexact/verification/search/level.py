"""The lower end of the ε bracket of a selection mechanism: the largest log-ratio found, certified.

    ε* >= max_{q ~ q', r} log( Pr[M(q) = r] / Pr[M(q') = r] )          (pf Definition 1)

The first violation a scope search meets is rarely the level: for exponential-weight laws the
supremum is approached as one score gap grows, and the searched grids stop at a few Δ. From
the best triples ``(q, q', r)`` of the search:

1. **gap scaling** — every score is moved away from ``q_r`` by a factor ``t = 1, 2, 4, …``
   (``q_s(t) = q_r + t (q_s - q_r)``) with the neighbour offsets ``z = q' - q`` kept, then
   pushed to the vertices of the neighbourhood's box that keep the sign of ``z``;
2. **local optimisation** — L-BFGS-B on the float ``logpmf`` over ``(q, z)`` (z inside the
   box), started from the best point of step 1;
3. **certification** — the maximiser is rounded to rationals, its offset clipped into the box
   exactly, its membership re-checked, and its log-ratio enclosed in ball arithmetic (raising
   the precision until the enclosure is narrow). The certified lower end of that enclosure is
   the :class:`~.bracket.Witness`.

Float values only steer the search; what is reported is always the ball enclosure's lower end
(rounded down). Budget: ``evaluations`` float log-pmfs, and ``seconds`` of this process's CPU time as
a safety cap (CPU, not wall clock: a loaded machine makes the search slower, not shorter).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ...protocols import Mechanism
from ...numbers.backends import ball_context
from ..bracket import Witness
from ..neighbourhoods import LInfBox, MonotoneBox, Neighbourhood

__all__ = ["LevelSearch", "maximise_level", "certify_triple"]

Vector = tuple[Fraction, ...]


@dataclass
class LevelSearch:
    """What :func:`maximise_level` found: the witness, the float maximum and the work done."""

    witness: Witness | None
    float_level: float
    evaluations: int
    seconds: float
    stopped: str


def _offset_box(nb: Neighbourhood, q: Vector, q2: Vector) -> tuple[list[Fraction], list[Fraction]] | None:
    """Bounds of the offset z = q' - q that keep q' a neighbour (same orthant for a monotone box)."""
    n = len(q)
    if isinstance(nb, LInfBox):
        d = nb.deltas(n)
        return [-x for x in d], list(d)
    if isinstance(nb, MonotoneBox):
        d = nb.sensitivity
        up = all(b >= a for a, b in zip(q, q2))
        return ([Fraction(0)] * n, [d] * n) if up else ([-d] * n, [Fraction(0)] * n)
    return None


class _Objective:
    """Float log-ratio ``logpmf(q)_r - logpmf(q + z)_r`` with an evaluation budget."""

    def __init__(self, mechanism: Mechanism, budget: int, deadline: float) -> None:
        self.mechanism = mechanism
        self.budget = budget
        self.deadline = deadline
        self.count = 0

    @property
    def exhausted(self) -> bool:
        return self.count >= self.budget or time.process_time() > self.deadline

    def logpmf(self, q: np.ndarray) -> np.ndarray:
        self.count += 1
        with np.errstate(all="ignore"):
            return np.asarray(self.mechanism.logpmf(q), dtype=float)

    def __call__(self, q: np.ndarray, z: np.ndarray, r: int) -> float:
        try:
            with np.errstate(all="ignore"):
                v = float(self.logpmf(q)[r] - self.logpmf(q + z)[r])
        except (ValueError, OverflowError):  # outside the law's domain (a size or cost limit, integer scores)
            return -math.inf
        if not math.isfinite(v):  # float underflow at large gaps: the ball law at the same (binary) point
            v = self._ball(q, q + z, r)
        return v if not math.isnan(v) else -math.inf

    def _ball(self, q: np.ndarray, q2: np.ndarray, r: int) -> float:
        self.count += 2
        a, b = ([Fraction(float(x)) for x in v] for v in (q, q2))
        try:
            with ball_context(128):
                p = self.mechanism.pmf(a, backend="ball:128").values[r]
                p2 = self.mechanism.pmf(b, backend="ball:128").values[r]
                if not (p > 0) or not (p2 > 0):
                    return -math.inf
                return float((p.log() - p2.log()).mid())
        except (ValueError, NotImplementedError, ArithmeticError):
            return -math.inf


def _corners(z: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """z itself and the box vertex that keeps z's signs (0 entries tried at both ends)."""
    out = [z.copy()]
    v = np.where(z > 0, hi, np.where(z < 0, lo, 0.0))
    out.append(v)
    for i in np.flatnonzero(z == 0)[:4]:
        for end in (lo[i], hi[i]):
            w = v.copy()
            w[i] = end
            out.append(w)
    return out


def _scale_and_push(obj: _Objective, q: np.ndarray, z: np.ndarray, r: int, lo: np.ndarray, hi: np.ndarray,
                    max_abs: float, tol: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Step 1 (module docstring): the best (value, q, z) over scale factors and vertex offsets."""
    best = (obj(q, z, r), q, z)
    spread = q - q[r]
    if not np.any(spread):
        spread = np.where(np.arange(q.size) == r, 0.0, 1.0)
    t, stall = 1.0, 0
    while not obj.exhausted:
        qt = q[r] + t * spread
        if np.max(np.abs(qt)) > max_abs:
            break
        improved = False
        for zc in _corners(z, lo, hi):
            v = obj(qt, zc, r)
            if v > best[0] + tol:
                best, improved = (v, qt, zc), True
            if obj.exhausted:
                break
        stall = 0 if improved else stall + 1
        if stall >= 3:
            break
        t *= 2.0
    return best


def _polish(obj: _Objective, q: np.ndarray, z: np.ndarray, r: int, lo: np.ndarray, hi: np.ndarray,
            radius: float, maxiter: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Step 2: L-BFGS-B on (q, z) in a box of half-width ``radius`` around q and z in its box."""
    from scipy.optimize import minimize

    n = q.size

    def f(x: np.ndarray) -> float:
        if obj.exhausted:
            raise StopIteration
        v = obj(x[:n], x[n:], r)
        return -v if math.isfinite(v) else (-1e6 if v > 0 else 1e6)

    x0 = np.concatenate([q, z])
    bounds = [(float(a) - radius, float(a) + radius) for a in q] + list(zip(lo.tolist(), hi.tolist()))
    best = (obj(q, z, r), q, z)
    try:
        opt = minimize(f, x0, method="L-BFGS-B", bounds=bounds, options={"maxiter": maxiter})
        x = opt.x
    except (StopIteration, ValueError, FloatingPointError):
        return best
    v = obj(x[:n], x[n:], r)
    return (v, x[:n], x[n:]) if v > best[0] else best


def _rational_pair(q: np.ndarray, z: np.ndarray, lo: Sequence[Fraction], hi: Sequence[Fraction],
                   denominator: int) -> tuple[Vector, Vector]:
    qa = tuple(Fraction(float(v)).limit_denominator(denominator) for v in q)
    zz = [min(max(Fraction(float(v)).limit_denominator(denominator), a), b) for v, a, b in zip(z, lo, hi)]
    return qa, tuple(a + d for a, d in zip(qa, zz))


def certify_triple(mechanism: Mechanism, nb: Neighbourhood, q: Vector, q2: Vector, r: int, prec: int = 128,
                   note: str = "") -> Witness | None:
    """The ball enclosure of ``log(P(q)_r / P(q')_r)`` as a :class:`Witness` (its lower end, rounded
    down), at 128 bits and, when the enclosure is wider than 1e-12 or a probability is not yet
    proved positive, at up to 1024 bits; None when q' is not a neighbour of q or the enclosure has
    no finite lower end."""
    if q == q2 or not nb.contains(q, q2):
        return None
    lo = -math.inf
    arith = ""
    for p in (prec, 4 * prec, 8 * prec):
        with ball_context(p):
            try:
                a = mechanism.pmf(list(q), backend=f"ball:{p}").values[r]
                b = mechanism.pmf(list(q2), backend=f"ball:{p}").values[r]
            except (ValueError, NotImplementedError):
                return None
            if not (a > 0):  # a tiny probability whose ball straddles 0: more bits, before giving up
                continue
            if not (b > 0):
                if b.upper() <= 0 and a > 0:  # Pr[M(q') = r] = 0 < Pr[M(q) = r]: unbounded loss
                    return Witness(math.inf, tuple(map(str, q)), tuple(map(str, q2)), r, f"ball:{p}", unbounded=True,
                                   note=note)
                continue
            lr = a.log() - b.log()
            f = float(lr.lower())
            lo = f if f <= lr.lower() else math.nextafter(f, -math.inf)
            arith = f"ball:{p}"
            if float(lr.rad()) < 1e-12:
                break
    if not math.isfinite(lo):
        return None
    return Witness(lo, tuple(map(str, q)), tuple(map(str, q2)), r, arith, note=note)


def maximise_level(mechanism: Mechanism, nb: Neighbourhood, starts: Sequence[tuple[Vector, Vector, int]], *,
                   seconds: float = 20.0, evaluations: int = 4000, target: float | None = None,
                   tolerance: float = 1e-7, max_abs: float | None = None, denominator: int = 2**20,
                   prec: int = 128) -> LevelSearch:
    """Maximise the log-ratio from ``starts`` (module docstring) and certify the best point found.

    Args:
        starts: triples ``(q, q', r)`` to climb from (the search's worst ones, the counterexample).
        seconds, evaluations: the budget (CPU seconds of this process, float log-pmfs).
        target: a proved upper end; the search stops once the float maximum is within
            ``tolerance`` of it.
        max_abs: largest |score| the gap scaling may reach (default ``2^24·Δ``; where the float
            law underflows the ball law is evaluated instead).
        denominator: rational rounding of the maximiser.
    """
    t0 = time.perf_counter()
    obj = _Objective(mechanism, evaluations, time.process_time() + seconds)
    delta = float(mechanism.sensitivity)
    max_abs = max_abs if max_abs is not None else 2.0**24 * max(delta, 1.0)
    tol = min(tolerance, 1e-3) / 100
    best: tuple[float, np.ndarray, np.ndarray, int, list, list] | None = None
    stopped = "starts exhausted"
    for q, q2, r in starts:
        box = _offset_box(nb, q, q2)
        if box is None:
            continue
        lo_f, hi_f = (np.array([float(x) for x in b]) for b in box)
        qf = np.array([float(x) for x in q])
        zf = np.array([float(b - a) for a, b in zip(q, q2)])
        v, qs, zs = _scale_and_push(obj, qf, zf, r, lo_f, hi_f, max_abs, tol)
        if best is None or v > best[0]:
            best = (v, qs, zs, r, box[0], box[1])
        if obj.exhausted:
            stopped = "budget"
            break
        if target is not None and best[0] >= target - tolerance:
            stopped = "within tolerance of the proved upper end"
            break
    if best is None:
        return LevelSearch(None, -math.inf, obj.count, time.perf_counter() - t0, "no start in a box neighbourhood")
    v, qs, zs, r, lo, hi = best
    if not obj.exhausted and not (target is not None and v >= target - tolerance):
        lo_f, hi_f = np.array([float(x) for x in lo]), np.array([float(x) for x in hi])
        radius = max(1.0, float(np.max(np.abs(qs - qs[r]))))
        v2, q2s, z2s = _polish(obj, qs, zs, r, lo_f, hi_f, radius, 60)
        if v2 > v:
            v, qs, zs = v2, q2s, z2s
    qa, qb = _rational_pair(qs, zs, lo, hi, denominator)
    w = certify_triple(mechanism, nb, qa, qb, r, prec, note=f"maximised from {len(starts)} start(s), float {v:.12g}")
    return LevelSearch(w, v, obj.count, time.perf_counter() - t0, "budget" if obj.exhausted else stopped)


def level_starts(mechanism: Mechanism, nb: Neighbourhood, n: int, triples: Sequence[tuple[Vector, Vector, int]] = ()
                 ) -> list[tuple[Vector, Vector, int]]:
    """``triples`` (the search's counterexample and worst pair) followed by the canonical extremal
    shapes of selection mechanisms: the last candidate ``2Δ`` below the others, its neighbour with
    the others raised and it lowered (a box), or the others raised (a monotone box); and the top
    candidate ``Δ/2`` ahead, overtaken in the neighbour."""
    out = [t for t in triples if t is not None]
    if n < 2:
        return out
    if isinstance(nb, LInfBox):
        d = nb.deltas(n)
        dmax = max(d)
        q = tuple([Fraction(0)] * (n - 1) + [-2 * dmax])
        out.append((q, tuple(a + dz for a, dz in zip(q, list(d[:-1]) + [-d[-1]])), n - 1))
        # the top candidate overtaken (laws that jump at the argmax: GRR, noisy argmax)
        q = tuple([Fraction(0)] + [-dmax / 2] * (n - 1))
        out.append((q, tuple(a + (-d[0] if i == 0 else d[i]) for i, a in enumerate(q)), 0))
        # the candidate with the smallest Δ as the low one (candidate-wise boxes)
        k = min(range(n), key=lambda i: d[i])
        if k != n - 1:
            q = tuple(-2 * dmax if i == k else Fraction(0) for i in range(n))
            out.append((q, tuple(a + (-d[i] if i == k else d[i]) for i, a in enumerate(q)), k))
    elif isinstance(nb, MonotoneBox):
        d = nb.sensitivity
        q = tuple([Fraction(0)] * (n - 1) + [-2 * d])
        out.append((q, tuple(a + (d if i < n - 1 else 0) for i, a in enumerate(q)), n - 1))
        q = tuple([Fraction(0)] + [-d / 2] * (n - 1))
        out.append((q, tuple(a + (0 if i == 0 else d) for i, a in enumerate(q)), 0))
    return out
