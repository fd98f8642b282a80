"""Branch-and-bound over boxes of (scores, neighbour offsets): an upper end for any interval law.

For a selection mechanism that evaluates its law on boxes (:class:`~dpexact.protocols.IntervalLaw`:
the pmfs of ``define_mechanism`` run in arb), n candidates and an ℓ∞ or monotone box of
neighbours, it bounds

    sup { log P(q)_r - log P(q + z)_r :  q in D,  z in the offset box,  r }

over a **stated** score domain D (the law has no compact parametrisation in general):

* **shift invariance** (declared, conformance-checked) fixes ``q_r = 0`` and
  ``D = {q : |q_a - q_r| <= G}``; without it ``D = [-G, G]^n``;
* **symmetry** (declared) with a uniform box leaves one output (r = 0) and orders the other
  scores ``q_1 >= q_2 >= …`` (boxes entirely outside the order are dropped);
* on a box B of (q, z) the law is run on interval duals (:mod:`dpexact.numbers.interval_gradient`):
  a coordinate whose derivative has one sign on B is fixed at the face where the log-ratio is
  largest (monotonicity test: offsets go to the Δ-box's corners, scores to the domain's faces),
  and the bound is the smaller of ``log sup P(B_q)_r - log inf P(B_q + B_z)_r`` and the
  mean-value form ``f(c) + Σ_i |∂_i f(B)| h_i`` (rounded up); the box with the largest bound is split on its widest
  coordinate (relative to the root's width) until every remaining bound is below the target
  or the budget (boxes, seconds) runs out;
* a law that branches (``argmax``, ties, ``x == c``) raises ``ArithmeticError`` on a box that
  straddles a branch: that box's bound is +∞ and it is split; a straddling box narrower than
  ``MIN_WIDTH`` ends the run undecided;
* each box's test point (its shortest decimal, so that a branch at a constant a user wrote is hit)
  is evaluated as a point: the best one is a candidate for the lower end; a box left undecidable
  is split on the coordinate whose collapse makes it decidable.

The upper end at any time is the largest bound over the remaining boxes — a proof for every
(q, z) in D, whatever the budget did. Interval enclosures over-estimate by O(width), so a law
whose level is reached only as a gap grows (exponential weights) cannot be proved *tight* this
way; on a bounded D its supremum is below the limit and the proof is of that D only.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...numbers.backends import ball_context
from ...protocols import IntervalLaw, mechanism_properties
from ..bracket import Proof
from ..neighbourhoods import LInfBox, MonotoneBox

__all__ = ["SelectionBnB", "BnBResult", "MIN_WIDTH"]

#: a box this narrow whose law is still undecidable ends the run (a discontinuity at a point)
MIN_WIDTH = 1e-9

Interval = tuple[Fraction, Fraction]


@dataclass
class BnBResult:
    """Upper end (a proof over ``domain``), the best point found and the work done."""

    upper: float
    lower: float
    lower_point: tuple | None
    boxes: int
    seconds: float
    status: str
    domain: dict[str, Any] = field(default_factory=dict)


def _ball(iv: Interval, prec: int) -> Any:
    from flint import arb, fmpq

    lo, hi = iv
    a = arb(fmpq(lo.numerator, lo.denominator))
    return a if lo == hi else a.union(arb(fmpq(hi.numerator, hi.denominator)))


def _shortest_decimal(lo: Fraction, hi: Fraction) -> Fraction:
    """The point of [lo, hi] with the fewest decimal digits (nearest the centre among those): a
    box's test point, so that a law branching at a constant a user wrote (``x == 0.37``) is
    evaluated on it once the box is narrow enough."""
    if lo == hi:
        return lo
    mid = (lo + hi) / 2
    for k in range(0, 19):
        step = Fraction(1, 10**k)
        c = round(mid / step) * step
        if lo <= c <= hi:
            return c
        c = -((-lo) // step) * step  # the first multiple of the step at or above lo
        if c <= hi:
            return c
    return mid


def _arb_of(x: Fraction) -> Any:
    from flint import arb, fmpq

    return arb(fmpq(x.numerator, x.denominator))


def _up(x: Any) -> float:
    f = float(x)
    return f if f >= x else math.nextafter(f, math.inf)


def _down(x: Any) -> float:
    f = float(x)
    return f if f <= x else math.nextafter(f, -math.inf)


@dataclass(frozen=True)
class SelectionBnB:
    """The branch-and-bound as a proof unit (``supports`` / ``prove``; module docstring).

    Args:
        score_range: G in units of the neighbourhood's largest Δ (the stated domain).
        max_boxes, seconds: the budget; ``seconds_refuted`` once a box centre is above the
            target (the claim is then refuted and the bound only brackets the level).
        gradients: use interval gradients (:mod:`dpexact.numbers.interval_gradient`) for the
            monotonicity test and the mean-value form.
        prec: arb precision.
    """

    score_range: int = 8
    max_boxes: int = 20_000
    seconds: float = 45.0
    seconds_refuted: float = 10.0
    prec: int = 96
    gradients: bool = True
    name: str = "selection-branch-and-bound"

    def supports(self, mechanism: Any, n: int | None, relation: Any) -> bool:
        return (isinstance(mechanism, IntervalLaw) and mechanism_properties(mechanism).certified
                and isinstance(relation, (LInfBox, MonotoneBox)) and isinstance(n, int) and 2 <= n <= 6
                and (not isinstance(relation, LInfBox) or relation.sensitivities is None
                     or len(relation.sensitivities) == n))

    def witness(self, mechanism: Any, n: int | None, relation: Any) -> None:
        """None here: the best test point of a run is in its proof's ``details["best_point"]``,
        which the router certifies beside the level search's maximiser."""
        return None

    def prove(self, mechanism: Any, n: int | None, relation: Any, tolerance: float = 1e-6) -> Proof | None:
        """A :class:`Proof` of the largest bound left, the target being the claimed ε (``inf`` when
        some box stayed undecidable)."""
        if not self.supports(mechanism, n, relation):
            return None
        from ...numbers.real import Real

        res = self.run(mechanism, n, relation, target=Real.of(mechanism.epsilon).to_float(), tolerance=tolerance)
        # an infinite bound (a box the law's branches leave undecidable) is still reported: the
        # method applied and could not bound the level, which is "undecided", not "no method"
        return Proof(res.upper, "branch-and-bound", res.domain, details={
            "boxes": res.boxes, "seconds": round(res.seconds, 3), "status": res.status,
            "best_point_log_ratio": res.lower,
            **({} if res.lower_point is None else {"best_point": {
                "scores": [str(x) for x in res.lower_point[0]], "neighbour_scores": [str(x) for x in res.lower_point[1]],
                "output": res.lower_point[2]}})})

    # -- the search -----------------------------------------------------------------------------
    def _roots(self, mechanism: Any, n: int, nb: Any) -> tuple[list[tuple[int, list[Interval]]], dict[str, Any]]:
        """Root boxes ``(r, [q intervals] + [z intervals])`` and the domain they cover."""
        props = mechanism_properties(mechanism)
        if isinstance(nb, LInfBox):
            d = list(nb.deltas(n))
            zboxes = [[(-x, x) for x in d]]
            uniform = nb.sensitivities is None
        else:
            d = [nb.sensitivity] * n
            zboxes = [[(Fraction(0), x) for x in d], [(-x, Fraction(0)) for x in d]]
            uniform = True
        g = Fraction(self.score_range) * max(d)
        outputs = [0] if props.symmetric and uniform else list(range(n))
        roots = []
        for r in outputs:
            qbox = [((Fraction(0), Fraction(0)) if props.shift_invariant and a == r else (-g, g)) for a in range(n)]
            for zb in zboxes:
                roots.append((r, qbox + list(zb)))
        scores = (f"|q_a - q_r| <= {g} for the output r (shift invariance fixes q_r = 0)" if props.shift_invariant
                  else f"[-{g}, {g}]^{n}")
        if props.symmetric and uniform:
            scores += "; output 0 and q_1 >= ... >= q_{n-1} suffice (symmetry)"
        return roots, {"n": n, "epsilon": str(mechanism.epsilon), "neighbourhood": nb.describe(), "scores": scores}

    def run(self, mechanism: Any, n: int, nb: Any, target: float | None = None, tolerance: float = 1e-6) -> BnBResult:
        t0 = time.perf_counter()
        roots, domain = self._roots(mechanism, n, nb)
        ordered = mechanism_properties(mechanism).symmetric and domain["scores"].endswith("(symmetry)")
        widths = [max(float(hi - lo) for (_, box) in roots for (lo, hi) in [box[i]]) or 1.0 for i in range(2 * n)]
        heap: list = []
        best = (-math.inf, None)
        count = 0

        def evaluate(r: int, box: list[Interval]) -> None:
            nonlocal best, count
            count += 1
            if ordered and any(box[i][1] < box[i + 1][0] for i in range(1, n - 1)):
                return  # outside q_1 >= q_2 >= ... (another box covers its permutation)
            grad = self._gradient(mechanism, r, box, n) if self.gradients else None
            for _ in range(2 * n):  # monotone coordinates: only the face where f is largest matters
                if grad is None:
                    break
                face = [(hi, hi) if g > 0 else (lo, lo) if g < 0 else (lo, hi) for (lo, hi), g in zip(box, grad)]
                if face == box:
                    break
                box = face  # on the face the other derivatives may have a sign now
                grad = self._gradient(mechanism, r, box, n)
            ub = self._bound(mechanism, r, box, n)
            mid = [_shortest_decimal(lo, hi) for lo, hi in box]
            centre = self._point(mechanism, r, mid, n)
            lb = -math.inf if centre is None else _down(centre.lower())
            if lb > best[0]:
                best = (lb, (tuple(mid[:n]), tuple(a + b for a, b in zip(mid[:n], mid[n:])), r))
            if grad is not None and centre is not None:  # mean-value form f(c) + Σ |∂_i f(B)| h_i
                mv = centre.upper()
                for (lo, hi), g in zip(box, grad):
                    if hi != lo:
                        mv += max(abs(g.lower()), abs(g.upper())) * _arb_of((hi - lo) / 2)
                ub = min(ub, _up(mv))
            heapq.heappush(heap, (-ub, count, r, box))

        with ball_context(self.prec):
            for r, box in roots:
                evaluate(r, box)
            status = "bound below the target"
            while heap:
                ub = -heap[0][0]
                if target is not None and ub <= target and ub - best[0] <= max(tolerance, target - best[0]):
                    break
                if ub - best[0] <= tolerance:
                    status = "within tolerance"
                    break
                if count >= self.max_boxes or time.perf_counter() - t0 > self.seconds:
                    status = "budget"
                    break
                if target is not None and best[0] > target and time.perf_counter() - t0 > self.seconds_refuted:
                    status = "budget (a box centre is above the target: the bound brackets a refuted level)"
                    break
                _, _, r, box = heapq.heappop(heap)
                i = max(range(2 * n), key=lambda k: float(box[k][1] - box[k][0]) / widths[k])
                if ub == math.inf:  # a branch undecidable on the box: split the coordinate it depends on
                    i = self._branch_coordinate(mechanism, r, box, n, i)
                lo, hi = box[i]
                if float(hi - lo) < MIN_WIDTH:
                    heapq.heappush(heap, (-ub, count, r, box))
                    status = "undecidable box narrower than 1e-9 (a discontinuity at a point)"
                    break
                m = (lo + hi) / 2
                for half in ((lo, m), (m, hi)):
                    child = list(box)
                    child[i] = half
                    evaluate(r, child)
        upper = -heap[0][0] if heap else -math.inf
        return BnBResult(upper, best[0], best[1], count, time.perf_counter() - t0, status, domain)

    def _branch_coordinate(self, mechanism: Any, r: int, box: list[Interval], n: int, default: int) -> int:
        """The first coordinate whose collapse to a point makes the law decidable on the box (the
        branch depends on it), else ``default``."""
        for i, (lo, hi) in enumerate(box):
            if lo == hi:
                continue
            m = _shortest_decimal(lo, hi)
            if math.isfinite(self._bound(mechanism, r, box[:i] + [(m, m)] + box[i + 1:], n)):
                return i
        return default

    def _gradient(self, mechanism: Any, r: int, box: list[Interval], n: int) -> list | None:
        """Enclosures of ∂f/∂(q, z) over the box (None when the law is not differentiable in duals
        or a branch is undecidable on the box)."""
        from ...numbers.interval_gradient import Dual, variables

        k = 2 * n
        q = variables([_ball(iv, self.prec) for iv in box[:n]], [(i,) for i in range(n)], k)
        q2 = variables([_ball((a[0] + b[0], a[1] + b[1]), self.prec) for a, b in zip(box[:n], box[n:])],
                       [(i, n + i) for i in range(n)], k)
        try:
            p = mechanism.pmf_on_balls(q, self.prec)[r]
            p2 = mechanism.pmf_on_balls(q2, self.prec)[r]
            if not isinstance(p, Dual) or not isinstance(p2, Dual) or not (p > 0) or not (p2 > 0):
                return None
            f = p.log() - p2.log()
        except (ArithmeticError, ZeroDivisionError, ValueError, TypeError, AttributeError):
            return None
        return list(f.d)

    def _point(self, mechanism: Any, r: int, x: list[Fraction], n: int) -> Any:
        """The log-ratio at one point as a ball (None where it is not finite or not decidable)."""
        q = [_ball((v, v), self.prec) for v in x[:n]]
        q2 = [_ball((a + b, a + b), self.prec) for a, b in zip(x[:n], x[n:])]
        try:
            p = mechanism.pmf_on_balls(q, self.prec)[r]
            p2 = mechanism.pmf_on_balls(q2, self.prec)[r]
        except (ArithmeticError, ZeroDivisionError, ValueError):
            return None
        if not (p > 0) or not (p2 > 0):
            return None
        return p.log() - p2.log()

    def _bound(self, mechanism: Any, r: int, box: list[Interval], n: int, lower: bool = False) -> float:
        """Rounded-up bound of the log-ratio on ``box`` (rounded-down value at a point when ``lower``)."""
        q = [_ball(iv, self.prec) for iv in box[:n]]
        q2 = [_ball((a[0] + b[0], a[1] + b[1]), self.prec) for a, b in zip(box[:n], box[n:])]
        try:
            p = mechanism.pmf_on_balls(q, self.prec)[r]
            p2 = mechanism.pmf_on_balls(q2, self.prec)[r]
        except (ArithmeticError, ZeroDivisionError, ValueError):
            return -math.inf if lower else math.inf
        if lower:
            if not (p > 0) or not (p2 > 0):
                return -math.inf
            return _down((p.log() - p2.log()).lower())
        if not (p2 > 0):
            return math.inf
        if not (p.upper() > 0):
            return -math.inf  # P(q)_r = 0 on the whole box: no loss
        from flint import arb

        return _up(arb(p.upper()).log().upper() - arb(p2.lower()).log().lower())
