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
  mean-value form ``f(c) + Σ_i |∂_i f(B)| h_i`` (rounded up); the box with the largest bound is split
  on the coordinate with the largest smear ``|∂_i f(B)| w_i`` (the one that blurs the mean-value
  form most; Kearfott's maximal-smear rule, Moore, Kearfott & Cloud 2009 §6), else its widest
  (relative to the root's width), until every remaining bound is below the target or the budget
  (boxes, seconds) runs out;
* a law that branches (``argmax``, ties, thresholds, ``x == c``) is run along every branch it
  takes on the box (:mod:`.selection_paths`: the certified comparisons with a branch oracle), the
  bound being the worst over them, and the gradient is used only where one branch is taken; a
  comparison of one input score with an exact constant c splits the box **at** c — the slice
  ``q_a = c`` (or ``q'_a = c``) becomes a box of its own, the rest excludes the equality — so a
  law that misbehaves at one score value is evaluated there exactly;
* each box's test point (its shortest decimal, so that a branch at a constant a user wrote is hit)
  is evaluated as a point: the best one is a candidate for the lower end; a box whose branches
  cannot be enumerated (more than ``MAX_PATHS``) has the bound +∞ and is split on the coordinate
  whose collapse makes it finite; such a box narrower than ``MIN_WIDTH`` ends the run undecided.

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
from typing import Any, Protocol, Sequence

from ...numbers.backends import ball_context
from ...protocols import IntervalLaw, Mechanism, mechanism_properties
from ..bracket import Proof
from ..neighbourhoods import LInfBox, MonotoneBox
from .selection_paths import Box, Key, LawRaised, evaluate_box, mean_value_bound, point_log_ratio

__all__ = ["SelectionBnB", "BnBResult", "MIN_WIDTH", "witness_in_domain"]

#: a box this narrow whose law is still undecidable ends the run (a discontinuity at a point)
MIN_WIDTH = 1e-9
#: the lower end is climbed at the end of a run from the best test point of each of the
#: CLIMB_SLICES best slices (boxes with the same pinned inputs), CLIMB_STARTS kept per slice
CLIMB_STARTS = 1
CLIMB_SLICES = 8

Interval = tuple[Fraction, Fraction]


class BoxLaw(IntervalLaw, Mechanism, Protocol):
    """What the branch-and-bound runs on: a mechanism whose law evaluates on boxes."""


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
        max_boxes, seconds: the budget (seconds of this process's CPU time, not wall clock: a loaded
            machine makes the proof slower, not weaker); ``seconds_refuted`` once a box centre is
            above the target (the claim is then refuted and the bound only brackets the level).
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

    def supports(self, mechanism: object, n: int | None, relation: object) -> bool:
        return (isinstance(mechanism, IntervalLaw) and mechanism_properties(mechanism).certified
                and isinstance(relation, (LInfBox, MonotoneBox)) and isinstance(n, int) and 2 <= n <= 6
                and (not isinstance(relation, LInfBox) or relation.sensitivities is None
                     or len(relation.sensitivities) == n))

    def witness(self, mechanism: object, n: int | None, relation: object) -> None:
        """None here: the best test point of a run is in its proof's ``details["best_point"]``,
        which the router certifies beside the level search's maximiser."""
        return None

    def prove(self, mechanism: object, n: int | None, relation: object, tolerance: float = 1e-6) -> Proof | None:
        """A :class:`Proof` of the largest bound left, the target being the claimed ε (``inf`` when
        some box stayed undecidable)."""
        if not self.supports(mechanism, n, relation):
            return None
        assert isinstance(mechanism, IntervalLaw) and isinstance(mechanism, Mechanism)  # supports() checked it
        assert isinstance(relation, (LInfBox, MonotoneBox)) and isinstance(n, int)
        from ...numbers.real import Real

        res = self.run(mechanism, n, relation, target=Real.of(mechanism.epsilon).to_float(),  # type: ignore[arg-type]
                       tolerance=tolerance)
        # an infinite bound (a box the law's branches leave undecidable) is still reported: the
        # method applied and could not bound the level, which is "undecided", not "no method"
        return Proof(res.upper, "branch-and-bound", res.domain, details={
            "boxes": res.boxes, "seconds": round(res.seconds, 3), "status": res.status,
            "score_radius": str(_radius(relation, n, self.score_range)),
            "relative_to_output": "shift invariance" in res.domain.get("premises", ""),
            "best_point_log_ratio": res.lower,
            **({} if res.lower_point is None else {"best_point": {
                "scores": [str(x) for x in res.lower_point[0]], "neighbour_scores": [str(x) for x in res.lower_point[1]],
                "output": res.lower_point[2]}})})

    # -- the search -----------------------------------------------------------------------------
    def _roots(self, mechanism: "BoxLaw", n: int, nb: "LInfBox | MonotoneBox") -> tuple[list[tuple[int, list[Interval]]],
                                                                                     dict[str, Any]]:
        """Root boxes ``(r, [q intervals] + [z intervals])`` and the domain they cover. A declared
        symmetry or shift invariance shrinks the domain only when the premise screen
        (:func:`~dpexact.verification.decide.premises.screen_premises`) does not refute it; the domain
        names the premises used (declared and screened, not proved)."""
        from ..decide.premises import screen_premises

        screen = screen_premises(mechanism, n)
        sym, shift = "symmetric" in screen.kept, "shift_invariant" in screen.kept
        if isinstance(nb, LInfBox):
            d = list(nb.deltas(n))
            zboxes = [[(-x, x) for x in d]]
            uniform = nb.sensitivities is None
        else:
            d = [nb.sensitivity] * n
            zboxes = [[(Fraction(0), x) for x in d], [(-x, Fraction(0)) for x in d]]
            uniform = True
        g = _radius(nb, n, self.score_range)
        outputs = [0] if sym and uniform else list(range(n))
        roots = []
        for r in outputs:
            qbox = [((Fraction(0), Fraction(0)) if shift and a == r else (-g, g)) for a in range(n)]
            for zb in zboxes:
                roots.append((r, qbox + list(zb)))
        scores = (f"|q_a - q_r| <= {g} for the output r (shift invariance fixes q_r = 0)" if shift
                  else f"[-{g}, {g}]^{n}")
        if sym and uniform:
            scores += "; output 0 and q_1 >= ... >= q_{n-1} suffice (symmetry)"
        used = [x for x, ok in (("symmetry", sym and uniform), ("shift invariance", shift)) if ok]
        # a bounded box, never the whole domain: the verdict it supports is "private-within-scope"
        domain = {"n": n, "epsilon": str(mechanism.epsilon), "neighbourhood": nb.describe(), "scores": scores,
                  "bounded": True}
        if used:
            domain["premises"] = f"{' and '.join(used)} (declared; screened at scales up to 1e4, not proved)"
        if screen.refuted:
            domain["premises_refuted"] = screen.note() + " (not used)"
        return roots, domain

    def run(self, mechanism: "BoxLaw", n: int, nb: "LInfBox | MonotoneBox", target: float | None = None,
            tolerance: float = 1e-6) -> BnBResult:
        t0 = time.perf_counter()
        c0 = time.process_time()  # the budget: CPU time
        roots, domain = self._roots(mechanism, n, nb)
        ordered = domain["scores"].endswith("(symmetry)")
        widths = [max(float(hi - lo) for (_, box) in roots for (lo, hi) in [box[i]]) or 1.0 for i in range(2 * n)]
        heap: list = []
        best: tuple[float, tuple | None] = (-math.inf, None)
        count = 0
        keys_of: dict[int, tuple[list[Key], set[int], list[float] | None]] = {}
        starts: dict[tuple, list] = {}  # pins -> heap of the CLIMB_STARTS best (lb, count, point, box)
        domain_g = _radius(nb, n, self.score_range)
        fixed = "shift invariance" in domain.get("premises", "")

        def evaluate(box: Box) -> None:
            nonlocal best, count
            count += 1
            if ordered and any(box.iv[i][1] < box.iv[i + 1][0] for i in range(1, n - 1)):
                return  # outside q_1 >= q_2 >= ... (another box covers its permutation)
            val = evaluate_box(mechanism, box, self.prec, self.gradients)
            keys, coords = val.keys, val.coords
            for _ in range(2 * n):  # monotone coordinates: only the face where f is largest matters
                if val.grad is None:
                    break
                face = _face(box, val.grad)
                if face == box:
                    break
                box = face  # on the face the other derivatives may have a sign now
                val = evaluate_box(mechanism, box, self.prec, self.gradients)
                keys = keys + [k for k in val.keys if k not in keys]
            qp, q2p = _test_point(box)
            ub, lr = mean_value_bound(mechanism, box, val, (qp, q2p), self.prec)
            if lr is None:
                lr = point_log_ratio(mechanism, box.r, qp, q2p, self.prec)
            lb = -math.inf if lr is None else _down(lr.lower())
            if lb > best[0]:
                best = (lb, (tuple(qp), tuple(q2p), box.r))
            if math.isfinite(lb):  # the best test points of each slice (pins), climbed at the end
                group = starts.setdefault(box.pins, [])
                item = (lb, count, (lb, (tuple(qp), tuple(q2p), box.r)), box)
                (heapq.heappush if len(group) < CLIMB_STARTS else heapq.heappushpop)(group, item)
            smear = None if val.grad is None else [
                float(max(abs(g.lower()), abs(g.upper()))) * float(hi - lo) for g, (lo, hi) in zip(val.grad, box.iv)]
            keys_of[count] = (keys, coords if val.grad is None else set(), smear)
            heapq.heappush(heap, (-ub, count, box))

        try:
            with ball_context(self.prec):
                for r, iv in roots:
                    evaluate(Box(r, tuple(iv), (None,) * n))
                status = "bound below the target"
                while heap:
                    ub = -heap[0][0]
                    if target is not None and ub <= target and ub - best[0] <= max(tolerance, target - best[0]):
                        break
                    if ub - best[0] <= tolerance:
                        status = "within tolerance"
                        break
                    if count >= self.max_boxes or time.process_time() - c0 > self.seconds:
                        status = "budget"
                        break
                    if target is not None and best[0] > target and time.process_time() - c0 > self.seconds_refuted:
                        status = "budget (a test point is above the target: the bound brackets a refuted level)"
                        break
                    _, k, box = heapq.heappop(heap)
                    keys, coords, smear = keys_of.pop(k, ([], set(), None))
                    children = _split_at_constant(box, keys)
                    if children is None:
                        # a box where the law branches: split a coordinate its open comparisons depend on
                        where = [j for j in coords if box.iv[j][0] != box.iv[j][1]] or range(2 * n)
                        if smear is not None and max(smear) > 0 and all(math.isfinite(x) for x in smear):
                            i = max(where, key=lambda j: smear[j])  # the coordinate that blurs the bound most
                        else:
                            i = max(where, key=lambda j: float(box.iv[j][1] - box.iv[j][0]) / widths[j])
                        if ub == math.inf:  # a law undecidable on the box: split the coordinate it depends on
                            i = self._branch_coordinate(mechanism, box, i)
                        lo, hi = box.iv[i]
                        if float(hi - lo) < MIN_WIDTH:
                            heapq.heappush(heap, (-ub, k, box))
                            status = "undecidable box narrower than 1e-9 (a discontinuity at a point)"
                            break
                        m = (lo + hi) / 2
                        children = [box.replace(i, (lo, m)), box.replace(i, (m, hi))]
                    for child in children:
                        evaluate(child)
                tops = sorted((max(g, key=lambda x: x[:2]) for g in starts.values()), reverse=True, key=lambda x: x[:2])
                for _, _, start, sbox in tops[:CLIMB_SLICES]:
                    best = max(best, self._climb(mechanism, nb, start, sbox, domain_g, fixed, c0), key=lambda x: x[0])
        except LawRaised as exc:  # a failure of the law, not of the proof: no bound, and why
            return BnBResult(math.inf, best[0], best[1], count, time.perf_counter() - t0, str(exc), domain)
        upper = -heap[0][0] if heap else -math.inf
        if best[0] > upper:  # a bound below a point it covers: the arithmetic is wrong, never a result
            raise AssertionError(f"branch-and-bound: upper end {upper!r} below its own test point's {best[0]!r}")
        return BnBResult(upper, best[0], best[1], count, time.perf_counter() - t0, status, domain)

    def _climb(self, mechanism: "BoxLaw", nb: "LInfBox | MonotoneBox", best: tuple, box: Box, g: Fraction,
               fixed: bool, c0: float) -> tuple:
        """The best test point improved by a pattern search over exact points (steps G, G/2, …,
        2^-30 G on each score and offset, inside the score domain and the neighbourhood), the
        inputs pinned on a branch constant staying there: the maximum of a law that jumps at
        ``q = c`` lies on the slice, where a float optimiser never looks. Any point is a valid
        lower end; this only makes it the slice's maximum."""
        lb, (q, q2, r) = best
        n = len(q)
        q, z = list(q), [b - a for a, b in zip(q, q2)]
        pins = box.pins

        def point(q: list, z: list) -> tuple[list, list]:
            return q, [pins[a] if pins[a] is not None else q[a] + z[a] for a in range(n)]

        def value(q: list, z: list) -> float:
            qq, qq2 = point(q, z)
            if any(abs(x) > g for x in qq) or not nb.contains(tuple(qq), tuple(qq2)):
                return -math.inf
            lr = point_log_ratio(mechanism, r, qq, qq2, self.prec)
            return -math.inf if lr is None else _down(lr.lower())

        deltas = list(nb.deltas(n)) if isinstance(nb, LInfBox) else [nb.sensitivity] * n
        for _ in range(2):  # the vertices first: the bounds of each coordinate (a pinned q_a: c ± Δ_a)
            for i in range(2 * n):
                a = i % n
                if (i < n and fixed and a == r) or (i >= n and pins[a] is not None):
                    continue
                ends = ((-g, g) if i < n and pins[a] is None else (-deltas[a], deltas[a]) if i >= n
                        else (max(-g, pins[a] - deltas[a]), min(g, pins[a] + deltas[a])))
                for e in ends:
                    qt, zt = list(q), list(z)
                    (qt if i < n else zt)[a] = e
                    v = value(qt, zt)
                    if v > lb:
                        lb, q, z = v, qt, zt
        step = g
        while step > g / 2**30 and time.process_time() - c0 < self.seconds + self.seconds_refuted:
            moved = False
            for i in range(2 * n):
                a = i % n
                if (i < n and fixed and a == r) or (i >= n and pins[a] is not None):
                    continue  # q_r fixed by shift invariance; a pinned q'_a has no free offset
                for sgn in (1, -1):
                    qt, zt = list(q), list(z)
                    (qt if i < n else zt)[a] += sgn * step
                    v = value(qt, zt)
                    if v > lb:
                        lb, q, z, moved = v, qt, zt, True
                        break
            if not moved:
                step /= 2
        qq, qq2 = point(q, z)
        return lb, (tuple(qq), tuple(qq2), r)

    def _branch_coordinate(self, mechanism: "BoxLaw", box: Box, default: int) -> int:
        """The first coordinate whose collapse to a point makes the law's bound finite on the box
        (its branches depend on it), else ``default``."""
        for i, (lo, hi) in enumerate(box.iv):
            if lo == hi:
                continue
            m = _shortest_decimal(lo, hi)
            if math.isfinite(evaluate_box(mechanism, box.replace(i, (m, m)), self.prec, False).bound):
                return i
        return default


def _radius(nb: "LInfBox | MonotoneBox", n: int, score_range: int = SelectionBnB.score_range) -> Fraction:
    """G, the score domain's radius: ``score_range`` times the neighbourhood's largest Δ."""
    return Fraction(score_range) * max(list(nb.deltas(n)) if isinstance(nb, LInfBox) else [nb.sensitivity])


def witness_in_domain(proof: Proof, scores: Sequence[Any], output: int) -> bool:
    """Whether a witness's scores lie in a branch-and-bound proof's score domain (True for any other
    proof): a bound proved on |q_a| <= G (or |q_a - q_r| <= G) says nothing about a witness beyond it."""
    if proof.method != "branch-and-bound" or "score_radius" not in proof.details:
        return True
    g = Fraction(proof.details["score_radius"])
    q = [Fraction(x) for x in scores]
    base = q[output] if proof.details.get("relative_to_output") else Fraction(0)
    return all(abs(x - base) <= g for x in q)


def _face(box: Box, grad: list) -> Box:
    """The face of ``box`` where f is largest along each coordinate whose derivative has one sign;
    an end lying on an excluded slice (``noteq``) is kept as an interval (the point itself takes
    the other branch, so the face would not be the limit of this box's law)."""
    n = box.n
    iv = list(box.iv)
    for i, ((lo, hi), g) in enumerate(zip(box.iv, grad)):
        if lo == hi or not (g > 0 or g < 0):
            continue
        end = hi if g > 0 else lo
        iv[i] = (end, end)
    for side, a, c in box.noteq:
        if side == "q" and iv[a] == (c, c):
            iv[a] = box.iv[a]
        elif side == "q2" and box.pins[a] is None and iv[a][0] == iv[a][1] and iv[n + a][0] == iv[n + a][1] \
                and iv[a][0] + iv[n + a][0] == c:
            iv[n + a] = box.iv[n + a]
    return Box(box.r, tuple(iv), box.pins, box.noteq)


def _test_point(box: Box) -> tuple[list[Fraction], list[Fraction]]:
    """The box's test point (shortest decimals, so that a branch at a constant a user wrote is hit)."""
    n = box.n
    q = [_shortest_decimal(lo, hi) for lo, hi in box.iv[:n]]
    q2 = [box.pins[a] if box.pins[a] is not None else q[a] + _shortest_decimal(*box.iv[n + a]) for a in range(n)]
    return q, q2


def _split_at_constant(box: Box, keys: list[Key]) -> list[Box] | None:
    """Children that split ``box`` at the first branch constant met inside it (module docstring of
    :mod:`.selection_paths`): the slice where the input equals c, and the rest with that equality
    excluded; None when no key applies."""
    n = box.n
    for key in keys:
        side, a, c = key
        if key in box.noteq:
            continue
        if side == "q":
            lo, hi = box.iv[a]
            if not lo <= c <= hi or lo == hi:
                continue
            rest = box.noteq | {key}
            out = [box.replace(a, (c, c))]
            out += [Box(box.r, box.replace(a, part).iv, box.pins, rest) for part in ((lo, c), (c, hi)) if part[0] < part[1]]
            return out
        if box.pins[a] is not None:
            continue
        (ql, qh), (zl, zh) = box.iv[a], box.iv[n + a]
        lo, hi = max(ql, c - zh), min(qh, c - zl)
        if lo > hi:
            continue
        iv = list(box.iv)
        iv[a], iv[n + a] = (lo, hi), (Fraction(0), Fraction(0))
        pins = tuple(c if b == a else p for b, p in enumerate(box.pins))
        return [Box(box.r, tuple(iv), pins, box.noteq), Box(box.r, box.iv, box.pins, box.noteq | {key})]
    return None
