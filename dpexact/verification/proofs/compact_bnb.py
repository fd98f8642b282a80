"""Branch-and-bound over the compactified score space: an upper end for every real score vector.

For a selection mechanism written with ``define_mechanism`` (a pmf in backend operations), n
candidates and an ℓ∞ or monotone box of neighbours, this bounds

    ε* = sup { log P(q)_r - log P(q + z)_r :  q ∈ ℝⁿ,  z in the offset box,  r }

over the **whole** score space, with no declared property used (neither shift invariance nor
symmetry: every output and every chart is visited).

* **Charts and compact coordinates** (:mod:`.compact_paths`): in chart ``m`` the score ``q_m = L``
  is a largest one and ``q_a = L + G_a`` with ``G_a <= 0``. Each unbounded log-variable gets a
  compact coordinate σ ∈ [0, 1] with ``G = K(1 - 1/σ)`` (σ = 0 is G = -∞) and ``L = K(1 - 1/σ)`` or
  ``L = K(1/σ - 1)`` for the two halves of the line; the law is a closed form in the algebraic
  variables ``W_a = e^{G_a}``, ``Λ = e^L`` (or ``M = 1/Λ``) and ``Y_a = e^{Z_a}``, all ranging over
  closed bounded intervals that contain their limits (W = 0 is the gap at infinity). Every map
  σ ↦ algebraic variable is increasing, so a derivative's sign in the algebraic variable is its sign
  in σ. Bisection in σ reaches any score constant in a few steps (σ = 1/1001 is a gap of -1000K).
* **Ratios as exact rational functions** (:mod:`.compact_fractions`): each algebraic variable is
  ``e^{g·v}`` with ``g`` the unit of the law's exponents (EM's ``e^{εq/2Δ}`` is ``W``, not ``W^{1/2}``),
  and each constant ``e^{p/q}`` a power of ``T = e^{1/L}``, so every probability of every branch path
  is a rational function with rational coefficients (flint ``fmpq_mpoly``). For each pair of paths
  (one for ``q``, one for ``q'``) possible on a box the ratio ``R = P_path(q)_r / P_path'(q')_r`` is
  reduced by a polynomial gcd before any interval is taken, so the common factors that vanish at
  infinity are gone and R is continuous on the closed box (:mod:`.compact_faces`).
* **Monotonicity and exact faces** (the notes' techniques; Moore, Kearfott & Cloud 2009 §6 for the
  monotonicity test): on a box, a variable R no longer contains is fixed; one whose partial
  derivative ``∂R/∂v`` (exact, its numerator and denominator enclosed in arb) has one sign is moved
  to the face where R is largest and substituted *exactly* (``W = 0``, ``Y = e^{±g·Δ}``), R reduced
  again. When no variable is left, R is an exact constant in ``T`` compared with ``e^{target}``
  exactly (:func:`.compact_fractions.const_sign`: ``T`` is transcendental, so the difference is 0
  exactly when its numerator is the zero polynomial): the level of a tight law (EM, GRR: ``e^ε`` at a
  face) is decided as an equality, not straddled by rounding. Otherwise R's enclosure on the box
  (:mod:`.compact_enclosure`) is the bound, and a box whose bound is above the target is split at the
  midpoint of its widest σ-coordinate.

* **Path regions** (:mod:`.compact_regions`, :mod:`.compact_polytope`): a pair's ratio is the law's only
  where both paths are taken, and outside that region its denominator may vanish (PF: the neighbour's
  path where another score is the largest). Each box is narrowed to a box containing the pair's region
  before the pair is bounded; a monotone face that is not a power of ``T`` is pinned as a point; a sign
  the box leaves open is decided on the region (exponent ranges bounded by its constraints); a face
  constant is a level only inside the region (:func:`face_in_region`), else it is a loose bound and the
  box is split.
* **Region faces** (:mod:`.compact_polyfaces`): where that leaves a pair open, the monotone coordinates
  are moved to the faces of the pair's region itself (a tight comparison substituted exactly as a
  monomial), recursively down to exact constants; a pair proved so on a box is settled on every
  sub-box (PF / RNM-exponential at n = 3: every pair on the root boxes).

* **Fewer roots and pairs**: a law whose symmetry is proved from its paths (:mod:`.compact_symmetry`) on an
  offset box equal in every coordinate visits roots (r, m) = (0, 0) and (1, 0) only; pairs of paths whose
  output-r probabilities are the same fractions on each side (EM shifted by ``ops.max``) are a class of one
  ratio, bounded once on the hull of the members' narrowed boxes (a superset of their regions).

The bound of a box is the maximum over the pairs of paths possible on it: every point of the box
takes one path on each side, so this bounds the log-ratio without smoothing a jump. When every box
is below the target, ``log-ratio <= target`` holds for every real score vector: the upper end is the
target, exact. When a face constant above ε is met, it is the next target (the level of a violated
law, proved exactly when the run at it succeeds), and the face point, moved a finite distance from
infinity, is evaluated in ball arithmetic as a certified witness (:func:`finite_witness`).

**Bounded cost.** One CPU budget per claim (``seconds``, this process's time) is checked in every loop
(the law's symbolic runs, boxes, pairs of paths, faces), every exact step is polynomial arithmetic
on bounded polynomials (:mod:`.compact_budget`), and no step calls sympy's ``simplify``, ``factor``,
``cancel`` or ``limit``. A run that meets its budget, an expression
too large or a face constant it cannot decide gives up: the unit then proves nothing (``prove`` is
None and the next unit of :data:`dpexact.verification.proofs.PROOFS` is tried); ``bracket`` still reports
the run's status.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...protocols import AnyMechanism, Neighbourhood, mechanism_properties
from ..bracket import Proof, Witness
from ..neighbourhoods import LInfBox, MonotoneBox
from .compact_budget import OutOfBudget, TooLarge, check_deadline
from .compact_classes import class_rows, covered, record, stabiliser
from .compact_enclosure import divide, enclose_tight, log_upper, of_ball
from .compact_faces import (
    INFINITE,
    Root,
    _exponent,
    alg_env,
    faces,
    generator_names,
    log_interval,
    possible,
    ratio,
    same_ratio_classes,
)
from .compact_fractions import (
    Frac,
    Space,
    const_ball,
    const_sign,
    const_text,
    free,
    from_sympy,
    sub,
)
from .compact_paths import Unsupported, exponent_lcd, free_of_l, run_chart
from .compact_polyfaces import RegionProblem, prove_on_region, u_rows
from .compact_polytope import region_of
from .compact_regions import linear_constraints, narrow
from .compact_symmetry import symmetric_law
from .compact_witness import finite_witness

__all__ = ["CompactBnB", "CompactResult", "finite_witness"]

Interval = tuple[Fraction, Fraction]
#: faces a pair's region search may visit on one box before the box is split instead
REGION_NODES = 3000


@dataclass
class CompactResult:
    """A run at one target: proved, or the largest exact face constant above it, or the bound left."""

    proved: bool
    upper: float
    constant: Frac | None = None  # exact ratio e^{log-ratio} of a face above the target (a constant in T)
    point: tuple | None = None  # (root, σ-point) of that face
    top: Frac | None = None  # the largest exact face ratio met at or below the target (a candidate level)
    top_point: tuple | None = None
    boxes: int = 0
    seconds: float = 0.0
    status: str = ""


#: the last brackets computed (prove and witness of one claim share one run)
_CACHE: dict = {}


@dataclass(frozen=True)
class CompactBnB:
    """The compactified branch-and-bound as a proof unit (module docstring).

    Args:
        seconds: CPU budget of one claim (this process's CPU time), every run included; None: 45 at
            n = 4 (PF at ε/2 there: ~16-22 CPU-s for its two runs, at ε and at the level, load ~7),
            15 otherwise (n = 5 PF: single pairs of paths exhaust 3,000 region faces in ~30 CPU-s each;
            a larger budget only delays the next unit).
        max_boxes: box budget of one run.
        prec: precision (bits) of the enclosures.
        max_n: largest n attempted (the charts and paths grow with n).
        narrow_paths: narrow each box to a pair of paths' region before enclosing its ratio
            (:mod:`.compact_regions`; off only to measure what it buys).
        region_faces: where a box's faces leave a pair undecided, move monotone coordinates to the
            faces of the pair's region instead (:mod:`.compact_polyfaces`; off only to measure it).
        symmetry: when the law is *proved* to commute with permutations and the offset box is the
            same in every coordinate, search one root per orbit (:mod:`.compact_symmetry`; off only
            to measure it).
        class_regions: a class of pairs with one ratio is bounded once on the rows every member
            satisfies (:mod:`.compact_classes`) before its pairs are bounded alone (off only to
            measure it); ``class_maps``: a class problem the stabiliser's permutations carry exactly
            onto a proved one is not solved again (:func:`.compact_classes.covered`).
    """

    seconds: float | None = None
    max_boxes: int = 60000
    prec: int = 96
    max_n: int = 5
    narrow_paths: bool = True
    region_faces: bool = True
    symmetry: bool = True
    class_regions: bool = True
    class_maps: bool = True
    name: str = "compact-branch-and-bound"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: object) -> bool:
        from ...mechanisms.defined import FunctionMechanism
        from ...mechanisms.loader import GuardedMechanism

        inner = mechanism.inner if isinstance(mechanism, GuardedMechanism) else mechanism
        return (isinstance(inner, FunctionMechanism) and inner.pmf_function is not None
                and mechanism_properties(mechanism).certified and isinstance(relation, (LInfBox, MonotoneBox))
                and isinstance(n, int) and 2 <= n <= self.max_n and (inner.size in (None, n))
                and (not isinstance(relation, LInfBox) or relation.sensitivities is None
                     or len(relation.sensitivities) == n))

    # -- the unit protocol ------------------------------------------------------------------------
    def prove(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Proof | None:
        """The proof when a run completed (its upper end is then exact); None otherwise (budget,
        expression size, an undecided constant: another unit may bound the law)."""
        out = self._cached(mechanism, n, relation)
        return None if out is None or out[0].details.get("status") != "proved" else out[0]

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Witness | None:
        out = self._cached(mechanism, n, relation)
        return None if out is None else out[1]

    def gave_up(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> bool:
        """Whether the run applied to the law and stopped on its budget (CPU or boxes: :class:`OutOfBudget`),
        not because the law is outside the compact forms (a non-integer exponent, an expression too large)
        or unbounded."""
        out = self._cached(mechanism, n, relation)
        return out is not None and out[0].details.get("status") in ("gave up: CPU budget spent",
                                                                     f"gave up: {self.max_boxes} boxes")

    def _cached(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> tuple[Proof, Witness | None] | None:
        key = (id(mechanism), n, relation.describe(), self)
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is mechanism:
            return hit[1]
        out = self.bracket(mechanism, n, relation)
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = (mechanism, out)
        return out

    def bracket(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> tuple[Proof, Witness | None] | None:
        """``(proof, witness)``: the proof of ``log-ratio <= upper`` on ℝⁿ (status ``proved``) or the
        status of the run that gave up, and, where a face above ε was met, a finite certified witness
        near it (None: the law cannot be compactified)."""
        import sympy
        from mpmath import iv

        from ...numbers.backends import ball_context
        from ...numbers.real import Real

        assert isinstance(n, int)
        deadline = time.process_time() + self._budget(n)  # one CPU budget for every run of this claim
        saved = iv.prec
        iv.prec = self.prec
        try:
            with ball_context(self.prec):
                eps = Real.of(mechanism.epsilon).to_sympy()
                try:
                    roots, space = self._roots(mechanism, n, relation, eps, deadline)
                    target = from_sympy(sympy.exp(eps), space, {})
                except Unsupported as exc:
                    if "raised" not in str(exc):
                        return None
                    return self._proof(mechanism, n, relation, math.inf, None, 0, 0.0, f"undecided: {exc}"), None
                except (OutOfBudget, TooLarge, ZeroDivisionError) as exc:
                    return self._proof(mechanism, n, relation, math.inf, None, 0, 0.0, f"gave up: {exc}"), None
                return self._targets(mechanism, n, relation, roots, space, target, str(eps), deadline)
        finally:
            iv.prec = saved

    def _targets(self, mechanism: AnyMechanism, n: int, relation: Neighbourhood | str | None, roots: list, space: Space, target: Frac,
                 claim_text: str, deadline: float) -> tuple[Proof, Witness | None]:
        """Runs at the claimed ε (``target`` is e^ε), then at each exact face constant above it (the
        level of a violated law)."""
        boxes, secs = 0, 0.0
        witness = None
        text = claim_text
        symmetric = all(root.m == 0 for root, _ in roots)  # n >= 2: every chart is visited otherwise
        for _ in range(6):
            res = self.run(roots, space, n, relation, target, deadline)
            boxes, secs = boxes + res.boxes, secs + res.seconds
            if res.constant is not None:
                assert res.point is not None
                w = finite_witness(mechanism, roots, res.point, relation, self.prec)
                if w is not None and (witness is None or w.lower_float > witness.lower_float):
                    witness = w
                target, text = res.constant, const_text(res.constant, space)
                continue
            if res.proved:
                level, level_text = target, text
                if res.top is not None and const_sign(sub(res.top, target), space) == -1:
                    tight = self.run(roots, space, n, relation, res.top, deadline)  # the largest face value: the level?
                    boxes, secs = boxes + tight.boxes, secs + tight.seconds
                    if tight.proved:
                        level, level_text = res.top, const_text(res.top, space)
                if res.top_point is not None and res.top_point[1] is not None and witness is None:
                    witness = finite_witness(mechanism, roots, res.top_point, relation, self.prec)
                upper = log_upper(const_ball(level, space).upper())
                return self._proof(mechanism, n, relation, upper, level_text, boxes, secs, "proved", witness,
                                   symmetric), witness
            return self._proof(mechanism, n, relation, res.upper, None, boxes, secs, res.status, witness, symmetric), witness
        return self._proof(mechanism, n, relation, math.inf, None, boxes, secs, "too many face constants",
                           witness, symmetric), witness

    def _proof(self, mechanism: AnyMechanism, n: int, relation: Neighbourhood | str | None, upper: float, exact: str | None, boxes: int, secs: float,
               status: str, witness: Witness | None = None, symmetric: bool = False) -> Proof:
        domain = {"n": n, "epsilon": str(mechanism.epsilon), "neighbourhood": relation.describe(), "scores": "R^n",
                  "coverage": f"every real score vector of length {n} (charts q_m = max q, gaps compactified to "
                              "[0, 1] with their limits), every neighbour, every output"
                              + ("; the roots (r, m) = (0, 0) and (1, 0) stand for every output and chart by the "
                                 "law's symmetry, proved from its branch paths" if symmetric else "")}
        point = {} if witness is None else {"best_point": {"scores": list(witness.scores),
                                                           "neighbour_scores": list(witness.neighbour_scores),
                                                           "output": witness.output}}
        return Proof(upper, "compact-branch-and-bound", domain, upper=exact, details={
            **point, "boxes": boxes, "seconds": round(secs, 3), "status": status,
            "statement": f"log P(q)_r - log P(q')_r <= {exact if exact is not None else upper} for every q in R^{n}, "
                         f"every neighbour q' ({relation.describe()}) and every output r"})

    def _budget(self, n: int) -> float:
        return self.seconds if self.seconds is not None else 45.0 if n == 4 else 15.0

    # -- the search -------------------------------------------------------------------------------
    def _roots(self, mechanism: AnyMechanism, n: int, nb: Neighbourhood, eps: Any,
               deadline: float) -> tuple[list[tuple[Root, list[Interval]]], Space]:
        """Every root (output, chart, half, offset family) with its box (one per orbit under a proved
        symmetry), and the generators' space."""
        if isinstance(nb, LInfBox):
            d = [Fraction(x) for x in nb.deltas(n)]
            zfams = [[(-x, x) for x in d]]
        else:
            d = [Fraction(nb.sensitivity)] * n
            zfams = [[(Fraction(0), x) for x in d], [(-x, Fraction(0)) for x in d]]
        # a symmetric law on a symmetric offset box: roots (0, 0) and (1, 0) stand for every (r, m)
        # (a permuted pair has the same log-ratio); the symmetry is proved from the law's paths, not read
        sym = self.symmetry and len(set(d)) == 1 and symmetric_law(mechanism, n, deadline)
        charts = [(zf, run_chart(mechanism, n, m, zf, deadline)) for zf in zfams for m in (range(1) if sym else range(n))]
        space = Space(generator_names(n), exponent_lcd([c for _, c in charts], eps, d))
        out = []
        for zf, chart in charts:
            # a chart whose every path is free of L (values and comparisons: a law of the gaps only,
            # found from its closed forms, not from a declaration) takes the same values on both
            # halves of the line: the low one covers it
            for half in ("low",) if free_of_l(chart) else ("low", "high"):
                coords = [("L", f"L-{half}")] + [(f"G{a}", "G") for a in range(n) if a != chart.m] + \
                         [(f"Z{a}", "Z") for a in range(n)]
                box = [(Fraction(0), Fraction(1))] * n + [zf[a] for a in range(n)]
                for r in range(2) if sym else range(n):
                    out.append((Root(r, chart.m, half, chart, coords, space), box))
        return out, space

    def run(self, roots: list, space: Space, n: int, nb: Neighbourhood, target: Frac,
            deadline: float | None = None) -> CompactResult:
        """One branch-and-bound at ``target`` (the exact constant e^{log-ratio}); a run that meets the
        deadline or a step too large ends with status ``gave up`` and its bound so far."""
        t0 = time.perf_counter()
        state: dict = {"count": 0, "worst": math.inf}
        try:
            return self._run(roots, space, n, nb, target,
                             time.process_time() + self._budget(n) if deadline is None else deadline, state)
        except (OutOfBudget, TooLarge, ZeroDivisionError) as exc:
            return CompactResult(False, state["worst"], boxes=state["count"], seconds=time.perf_counter() - t0,
                                 status=f"gave up: {exc}")

    def _run(self, roots: list, space: Space, n: int, nb: Neighbourhood, target: Frac, deadline: float,
             state: dict) -> CompactResult:
        t0 = time.perf_counter()
        scale = max(Fraction(x) for x in (nb.deltas(n) if isinstance(nb, LInfBox) else [nb.sensitivity]))
        heap: list = []
        count = 0
        top, top_point = None, None
        et = of_ball(const_ball(target, space, self.prec))
        for k, (root, box) in enumerate(roots):
            heap.append((-math.inf, count, k, tuple(box)))  # no bound yet: first, and +∞ while left
            count += 1
        heapq.heapify(heap)
        while heap:
            # what is proved so far: every popped box <= target, every box left <= its parent's bound
            state["count"], state["worst"] = count, max(-heap[0][0], log_upper(et.b))
            if count >= self.max_boxes:
                raise OutOfBudget(f"{self.max_boxes} boxes")
            check_deadline(deadline)
            _, _, k, box = heapq.heappop(heap)
            root = roots[k][0]
            bound, split, const, fixed, tops = self._box(root, box, n, scale, target, et, deadline)
            for value, where in tops:
                if top is None or const_sign(sub(value, top), space) == 1:
                    top, top_point = value, (k, where)
            if const is not None:
                return CompactResult(False, math.inf, constant=const, point=(k, fixed), boxes=count,
                                     seconds=time.perf_counter() - t0, status="face above the target")
            if split is None:
                continue  # proved on this box
            if split < 0:
                return CompactResult(False, math.inf, boxes=count, seconds=time.perf_counter() - t0,
                                     status="a box the law leaves unbounded (a ratio with a zero denominator)")
            lo, hi = box[split]
            if hi - lo < Fraction(1, 2**40):
                return CompactResult(False, state["worst"], boxes=count, seconds=time.perf_counter() - t0,
                                     status="box narrower than 2^-40 above the target")
            mid = (lo + hi) / 2
            for part in ((lo, mid), (mid, hi)):
                child = list(box)
                child[split] = part
                heapq.heappush(heap, (-bound, count, k, tuple(child)))
                count += 1
        return CompactResult(True, log_upper(et.b), boxes=count, seconds=time.perf_counter() - t0, status="proved",
                             top=top, top_point=top_point)

    def _box(self, root: Root, box: tuple, n: int, scale: Fraction, target: Frac, et: Any, deadline: float) -> tuple:
        """``(bound, split, constant, fixed, tops)``: split None when every pair is <= target on the
        box; a coordinate to split otherwise (-1: unbounded); ``constant`` an exact face ratio above
        the target (an undecided comparison with it gives up: :class:`TooLarge`)."""
        chart = root.chart
        logs = {chart.logvars[name]: log_interval(kind, lo, hi, scale) for (name, kind), (lo, hi) in zip(root.coords, box)}
        names = list(chart.logvars.values())
        pq = [i for i, p in enumerate(chart.paths_q) if possible(p, names, logs)]
        pq2 = [j for j, p in enumerate(chart.paths_q2) if possible(p, names, logs)]
        worst, split = -math.inf, None
        tops: list = []
        widths = [float(hi - lo) for lo, hi in box]
        kinds = [kind for _, kind in root.coords]
        order = [[name for name, _ in root.coords].index(k) for k in chart.logvars]
        rows = chart.fracs.setdefault("rows", {})
        lin = {(side, i): linear_constraints(p, names, rows) for side, paths, idx in
               (("q", chart.paths_q, pq), ("q2", chart.paths_q2, pq2)) for i, p in enumerate(paths) if i in idx}
        todo = []
        # the largest classes first: a smaller one is then often a permuted image of a proved one
        for ci, cj in sorted(same_ratio_classes(root, pq, pq2), key=lambda c: -len(c[0]) * len(c[1])):
            members = [(i, j) for i in ci for j in cj if not root.is_settled((i, j), target, box)]
            if len(members) == 1 and self._covered_pair(root, members[0], box, kinds, order, lin, scale, target):
                root.settle(members[0], target, box)
                continue
            if len(members) > 1 and self._class(root, ci, cj, (pq, pq2), box, kinds, order, lin, scale, target,
                                                et, deadline, tops):
                for key in members:
                    root.settle(key, target, box)
                continue
            todo += members
        for i, j in todo:
            check_deadline(deadline)
            key = (i, j)
            if key not in root.ratios:
                root.ratios[key] = ratio(root, i, j)
            R = root.ratios[key]
            if R is None:
                continue  # P(q)_r = 0 on this path: no loss
            if root.is_settled(key, target, box):
                continue  # proved on a box containing this one
            # the pair's ratio is the law's only where both paths are taken: enclose it there
            sub_box = narrow(box, kinds, order, lin[("q", i)] + lin[("q2", j)], scale) if self.narrow_paths else box
            if sub_box is None:
                continue  # no point of the box takes this pair of paths
            if R == INFINITE:
                return math.inf, -1, None, None, tops
            assert isinstance(R, Frac)
            env = alg_env(root, sub_box, scale)
            region = region_of(root, sub_box, lin[("q", i)] + lin[("q2", j)], order, scale) if self.narrow_paths else None
            cur, fixed, loose, face_env, pinned = faces(root, R, sub_box, scale, env, deadline, region)
            if not loose and not pinned:
                if cur.is_zero():
                    continue
                side = const_sign(sub(cur, target), root.space)
                if side is None:
                    raise TooLarge("a face constant against e^target is not decided exactly")
                # a face is a level only if it is in the closure of the pair's region (the law's
                # values approach it there); a face outside is a loose bound: split the box
                face_box = tuple((fixed[c], fixed[c]) if c in fixed else sub_box[c] for c in range(len(box)))
                inside = face_in_region(face_box, kinds, order, lin[("q", i)] + lin[("q2", j)], scale)
                if side > 0:
                    if inside:
                        return math.inf, None, cur, fixed, tops
                    # the box's face is outside the region: bound R on the region itself
                    up = region_of(root, sub_box, lin[("q", i)] + lin[("q2", j)], order, scale).ratio_upper(R.num, R.den)
                    if up is not None and up <= et.a:
                        continue
                    if self._on_region(root, R, sub_box, lin[("q", i)] + lin[("q2", j)], order, scale, target, et, deadline, tops):
                        root.settle(key, target, box)
                        continue
                    used = {order[v] for _, cs, _ in lin[("q", i)] + lin[("q2", j)] for v, x in enumerate(cs) if x}
                    used |= {c for c in range(len(box)) if root.gen(c) in free(R, root.space)}
                    wide = [c for c in used if widths[c] > 0]
                    if not wide:
                        return math.inf, -1, None, None, tops
                    worst, split = math.inf, max(wide, key=lambda c: widths[c])
                    continue
                if inside:
                    tops.append((cur, fixed))
                continue
            v = divide(enclose_tight(cur.num, face_env), enclose_tight(cur.den, face_env))
            if (v is None or not (v.b <= et.a)) and region is not None:
                up = region.ratio_upper(cur.num, cur.den)  # the pair's region, not only its box
                if up is not None and up <= et.a:
                    continue
            if (v is None or not (v.b <= et.a)) and region is not None and \
                    self._on_region(root, R, sub_box, lin[("q", i)] + lin[("q2", j)], order, scale, target, et, deadline, tops):
                root.settle(key, target, box)
                continue
            if v is None or not (v.b <= et.a):
                b = math.inf if v is None or not (v.b > 0) else log_upper(v.b)
                # a pinned face above the target: split it (a child's face may be exact)
                wide = [c for c in loose if widths[c] > 0] or [c for c in pinned if widths[c] > 0]
                if not wide:
                    return math.inf, -1, None, None, tops
                if b > worst or split is None:
                    worst = max(worst, b)
                    split = max(wide, key=lambda c: widths[c])
        return worst, split, None, None, tops

    def _class(self, root: Root, ci: list[int], cj: list[int], possible_idx: tuple, box: tuple, kinds: list[str],
               order: list[int], lin: dict, scale: Fraction, target: Frac, et: Any, deadline: float, tops: list) -> bool:
        """Whether every pair of a class (paths of each side with the same probability of output r, so one
        ratio R) is <= target on ``box``: R bounded once on a box containing the union of their regions
        (the hull of each side's narrowed boxes, intersected). A bound on a superset is a bound, so a
        True is a proof for each member; False: not shown this way (each pair is then bounded alone)."""
        check_deadline(deadline)
        R = ratio(root, ci[0], cj[0])
        if R is None:
            return True  # P(q)_r = 0 on every member: no loss
        if R == INFINITE:
            return False
        assert isinstance(R, Frac)
        hull = box
        alive: dict = {}
        for side, cls, idx in (("q", ci, possible_idx[0]), ("q2", cj, possible_idx[1])):
            parts = {i: b for i, b in ((i, narrow(box, kinds, order, lin[(side, i)], scale)) for i in cls) if b is not None}
            alive[side] = [i for i in cls if i in parts]
            if len(cls) == len(idx):
                continue  # every path possible on the box: their union covers it
            if not parts:
                return True  # no point of the box takes a path of the class
            hull = tuple((max(h[0], min(b[c][0] for b in parts.values())), min(h[1], max(b[c][1] for b in parts.values())))
                         for c, h in enumerate(hull))
            if any(lo > hi for lo, hi in hull):
                return True
        if not alive["q"] or not alive["q2"]:
            return True  # no point of the box takes a pair of the class
        cur, fixed, loose, face_env, pinned = faces(root, R, hull, scale, alg_env(root, hull, scale), deadline, None)
        if not loose and not pinned:
            if cur.is_zero():
                return True
            side_sign = const_sign(sub(cur, target), root.space)
            if side_sign is None or side_sign > 0:
                # the box's face, maybe outside every region: R once on the rows all members satisfy
                return self._class_region(root, R, alive, hull, lin, order, scale, target, et, deadline, tops)
            # a candidate level if the face may meet a member's region on each side (necessary; a face
            # let through that is outside only makes the tight run prove a looser, still true, bound)
            face_box = tuple((fixed[c], fixed[c]) if c in fixed else hull[c] for c in range(len(box)))
            if all(any(face_in_region(face_box, kinds, order, lin[(side, i)], scale) for i in cls)
                   for side, cls in (("q", ci), ("q2", cj))):
                tops.append((cur, fixed))
            return True
        v = divide(enclose_tight(cur.num, face_env), enclose_tight(cur.den, face_env))
        if v is not None and bool(v.b <= et.a):
            return True
        return self._class_region(root, R, alive, hull, lin, order, scale, target, et, deadline, tops)

    def _covered_pair(self, root: Root, pair: tuple, box: tuple, kinds: list[str], order: list[int], lin: dict,
                      scale: Fraction, target: Frac) -> bool:
        """Whether one pair (a class of one) is carried exactly onto a proved class problem by the
        stabiliser (:func:`.compact_classes.covered`); False: bounded alone as before."""
        if not (self.class_regions and self.class_maps and self.narrow_paths):
            return False
        store = root.settled.get(("class problems", str(target.num), str(target.den)))
        if not store:
            return False
        i, j = pair
        if pair not in root.ratios:
            root.ratios[pair] = ratio(root, i, j)
        R = root.ratios[pair]
        if R is None or R == INFINITE:
            return False
        rows = lin[("q", i)] + lin[("q2", j)]
        sub_box = narrow(box, kinds, order, rows, scale)
        if sub_box is None:
            return False
        maps = root.settled.setdefault(("stabiliser",), stabiliser(root))
        return covered(store, root, maps, R, rows, sub_box, order)

    def _class_region(self, root: Root, R: Frac, alive: dict, hull: tuple, lin: dict, order: list[int],
                      scale: Fraction, target: Frac, et: Any, deadline: float, tops: list) -> bool:
        """``R <= target`` on the polyhedron of the rows implied on every live member's region
        (:func:`.compact_classes.class_rows`, one side each): it contains the union of the class's
        regions in ``hull``, so a proof there is a proof for each pair (:meth:`_on_region`)."""
        if not self.class_regions or not self.narrow_paths:
            return False  # the class's rows are its paths' regions: off with the narrowing too
        rows = []
        for side in ("q", "q2"):
            rows += class_rows(root, hull, [lin[(side, i)] for i in alive[side]], order, scale)
        # a class carried exactly onto a proved one by the stabiliser is proved (a change of variables)
        store = root.settled.setdefault(("class problems", str(target.num), str(target.den)), [])
        maps = root.settled.setdefault(("stabiliser",), stabiliser(root)) if self.class_maps else []
        if covered(store, root, maps, R, rows, hull, order):
            return True
        if not self._on_region(root, R, hull, rows, order, scale, target, et, deadline, tops):
            return False
        record(store, R, rows, hull, order)
        return True

    def _on_region(self, root: Root, R: Frac, box: tuple, rows: list, order: list[int], scale: Fraction,
                   target: Frac, et: Any, deadline: float, tops: list) -> bool:
        """Whether ``R <= target`` on the pair's region in ``box``, monotone coordinates moved to the
        region's faces (:mod:`.compact_polyfaces`); False: not shown (the box is split as before).
        The exact face constants it met join ``tops`` (candidate levels, with no σ-point)."""
        if not rows or not self.region_faces:
            return False
        k = len(box)
        factors = [root.scale(c) * (-1 if root.coords[c][1] == "L-high" else 1) for c in range(k)]
        ivs = [[_exponent(root, c, lo, scale), _exponent(root, c, hi, scale)] for c, (lo, hi) in enumerate(box)]
        problem = RegionProblem(R, ivs, u_rows(rows, order, factors), [root.gen(c) for c in range(k)])
        found: list = []
        try:
            ok = prove_on_region(problem, root.space, target, et, deadline, root.derivs, [REGION_NODES], tops=found)
        except (TooLarge, ZeroDivisionError):
            return False  # a step it cannot take exactly: not shown here
        if ok:
            best = None
            for value in found:
                if best is None or const_sign(sub(value, best), root.space) == 1:
                    best = value
            if best is not None:
                tops.append((best, None))  # no σ-point: the level's witness comes from the search below
        return ok


def face_in_region(face_box: tuple, kinds: list[str], order: list[int], rows: list, scale: Fraction) -> bool:
    """Whether a face (its fixed coordinates as points) may meet the closure of a pair's region: the
    narrowing leaves it non-empty (a necessary condition; a face it lets through that is outside only
    loosens the upper end, which stays a bound)."""
    return narrow(face_box, kinds, order, rows, scale) is not None
