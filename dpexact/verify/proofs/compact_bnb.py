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
* **Ratios in closed form**: for each pair of paths (one for ``q``, one for ``q'``) possible on a box,
  the ratio ``R = P_path(q)_r / P_path'(q')_r`` is cancelled symbolically (sympy ``cancel``) before any
  interval is taken, so the common factors that vanish at infinity (``W_r^{ε/2Δ}``) are gone and R
  is continuous on the closed box.
* **Monotonicity and exact faces** (the notes' techniques; Moore, Kearfott & Cloud 2009 §6 for the
  monotonicity test): on a box, a variable R no longer contains is fixed; one whose partial
  derivative ``∂R/∂v`` (symbolic, enclosed in arb) has one sign is moved to the face where R is
  largest and substituted *exactly* (``W = 0``, ``Y = e^{±Δ}``), R re-cancelled. When no variable
  is left, R is an exact constant compared with ``e^{target}`` exactly
  (:func:`dpexact.numbers.real.Real.sign`): the level of a tight law (EM, PF, RNM: ``e^ε`` at the
  face of a gap at infinity) is decided as an equality, not straddled by rounding. Otherwise R's arb
  enclosure on the remaining box is the bound, and a box whose bound is above the target is split
  at the midpoint of its widest σ-coordinate.

The bound of a box is the maximum over the pairs of paths possible on it: every point of the box
takes one path on each side, so this bounds the log-ratio without smoothing a jump. When every box
is below the target, ``log-ratio <= target`` holds for every real score vector: the upper end is the
target, exact. When a face constant above ε is met, it is the next target (the level of a violated
law, proved exactly when the run at it succeeds), and the face point, moved a finite distance from
infinity, is evaluated in ball arithmetic as a certified witness (:func:`finite_witness`).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...protocols import mechanism_properties
from ..bracket import Proof, Witness
from ..neighbourhoods import LInfBox, MonotoneBox
from .compact_paths import ChartLaw, Unsupported, ext_interval, possible_signs, run_chart
from .selection_paths import point_log_ratio

__all__ = ["CompactBnB", "CompactResult", "arb_eval"]

Interval = tuple[Fraction, Fraction]
#: where the face of a gap at infinity is moved to for a finite witness: G = -K·T
WITNESS_DISTANCES = (4, 16, 64, 256, 1024, 4096)


@dataclass
class CompactResult:
    """A run at one target: proved, or the largest exact face constant above it, or the bound left."""

    proved: bool
    upper: float
    constant: Any = None  # exact log-ratio (sympy) of a face above the target
    point: tuple | None = None  # (root, σ-point) of that face
    top: Any = None  # the largest exact face log-ratio met at or below the target (a candidate level)
    top_point: tuple | None = None
    boxes: int = 0
    seconds: float = 0.0
    status: str = ""


#: the last brackets computed (prove and witness of one claim share one run)
_CACHE: dict = {}


@dataclass
class _Root:
    r: int
    m: int
    half: str  # "low": L <= 0 (Λ ∈ [0, 1]); "high": L >= 0 (M = 1/Λ ∈ [0, 1])
    chart: ChartLaw
    coords: list[tuple[str, str]]  # (log-variable name, kind: "L-low" | "L-high" | "G" | "Z")
    ratios: dict = field(default_factory=dict)
    derivs: dict = field(default_factory=dict)


def _iv_const(expr: Any) -> Any:
    """A closed-form sympy constant as an outward-rounded ``iv`` interval (via its arb ball)."""
    from mpmath import iv

    from ...numbers.real import sympy_to_arb

    if expr.is_Rational:
        return iv.mpf(int(expr.p)) / iv.mpf(int(expr.q))
    return _iv_of_arb(sympy_to_arb(expr))


def _iv_of_arb(b: Any) -> Any:
    """The arb ball ``b`` (mid ± rad, both exact dyadics) as an ``iv`` interval."""
    from mpmath import iv

    if not b.is_finite():
        return iv.mpf([float("-inf"), float("inf")])
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    mid = iv.mpf(int(m)) * iv.mpf(2) ** int(e)
    rad = iv.mpf(int(r)) * iv.mpf(2) ** int(f)
    return iv.mpf([(mid - rad).a, (mid + rad).b])


def _iv_q(x: Fraction) -> Any:
    from mpmath import iv

    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def arb_eval(expr: Any, env: dict[Any, Any], cache: dict | None = None) -> Any:
    """A rigorous interval (mpmath ``iv``: endpoint arithmetic, outward rounding) of the sympy
    ``expr`` when each symbol ranges over its interval in ``env`` (rationals, +, ×, powers — a
    non-integer power of a non-negative base by its monotone ends —, exp, log and closed-form
    constants). Endpoint arithmetic, not midpoint-radius balls: wide ranges such as W ∈ [0, 1] keep
    their signs."""
    import sympy
    from mpmath import iv

    if not expr.free_symbols:
        if cache is not None and expr in cache:
            return cache[expr]
        v = _iv_const(expr)
        if cache is not None:
            cache[expr] = v
        return v
    if expr.is_Symbol:
        return env[expr]
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + arb_eval(a, env, cache)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * arb_eval(a, env, cache)
        return out
    if expr.is_Pow:
        base, ex = expr.args
        b = arb_eval(base, env, cache)
        if ex.is_Integer:
            k = int(ex)
            if k < 0:
                return 1 / (b ** (-k))
            return b ** k
        if ex.free_symbols:
            raise TypeError("a power with a variable exponent")
        e = _iv_const(ex)
        if not (e.a > 0 or e.b < 0):
            raise TypeError("a power whose exponent's sign is unknown")
        lo, hi = max(b.a, 0), b.b
        if hi < 0:
            raise ValueError("a non-integer power of a negative base")

        def pw(x: Any) -> Any:
            if x == 0:
                return iv.mpf(0) if e.a > 0 else iv.mpf([iv.inf.a if False else float("inf"), float("inf")])
            return iv.exp(e * iv.log(iv.mpf(x)))
        a, c = pw(lo), pw(hi)
        return iv.mpf([min(a.a, c.a), max(a.b, c.b)])
    if isinstance(expr, sympy.exp):
        return iv.exp(arb_eval(expr.args[0], env, cache))
    if isinstance(expr, sympy.log):
        return iv.log(arb_eval(expr.args[0], env, cache))
    raise TypeError(f"cannot enclose {type(expr).__name__}")


@dataclass(frozen=True)
class CompactBnB:
    """The compactified branch-and-bound as a proof unit (module docstring).

    Args:
        seconds: CPU budget of one run (this process's CPU time).
        max_boxes: box budget of one run.
        prec: arb precision of the enclosures.
        max_n: largest n attempted (the charts and paths grow with n).
    """

    seconds: float = 30.0
    max_boxes: int = 4000
    prec: int = 96
    max_n: int = 5
    name: str = "compact-branch-and-bound"

    def supports(self, mechanism: object, n: int | None, relation: object) -> bool:
        from ...mechanisms.defined import FunctionMechanism
        from ...mechanisms.loader import GuardedMechanism

        inner = mechanism.inner if isinstance(mechanism, GuardedMechanism) else mechanism
        return (isinstance(inner, FunctionMechanism) and inner.pmf_function is not None
                and mechanism_properties(mechanism).certified and isinstance(relation, (LInfBox, MonotoneBox))
                and isinstance(n, int) and 2 <= n <= self.max_n and (mechanism.size in (None, n))
                and (not isinstance(relation, LInfBox) or relation.sensitivities is None
                     or len(relation.sensitivities) == n))

    # -- the unit protocol ------------------------------------------------------------------------
    def prove(self, mechanism: Any, n: int | None, relation: Any) -> Proof | None:
        """The proof when its upper end is finite (else None: another unit may bound the law)."""
        out = self._cached(mechanism, n, relation)
        return None if out is None or not math.isfinite(out[0].upper_float) else out[0]

    def witness(self, mechanism: Any, n: int | None, relation: Any) -> Witness | None:
        out = self._cached(mechanism, n, relation)
        return None if out is None else out[1]

    def _cached(self, mechanism: Any, n: int | None, relation: Any) -> tuple[Proof, Witness | None] | None:
        key = (id(mechanism), n, relation.describe(), self)
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is mechanism:
            return hit[1]
        out = self.bracket(mechanism, n, relation)
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = (mechanism, out)
        return out

    def bracket(self, mechanism: Any, n: int | None, relation: Any) -> tuple[Proof, Witness | None] | None:
        """``(proof, witness)``: the proof of ``log-ratio <= upper`` on ℝⁿ and, where a face above ε
        was met, a finite certified witness near it (None: the law cannot be compactified)."""
        import sympy

        from ...numbers.real import Real

        assert isinstance(n, int)
        try:
            roots = self._roots(mechanism, n, relation)
        except Unsupported as exc:
            return None if "raised" not in str(exc) else (self._proof(mechanism, n, relation, math.inf, None, 0, 0.0,
                                                                       f"undecided: {exc}"), None)
        eps = Real.of(mechanism.epsilon)
        target = eps.to_sympy()
        boxes, secs = 0, 0.0
        witness = None
        deadline = time.process_time() + self.seconds  # one CPU budget for every run of this claim
        for _ in range(6):
            res = self.run(roots, n, relation, target, deadline)
            boxes, secs = boxes + res.boxes, secs + res.seconds
            if res.constant is not None and (Real.of(res.constant) - Real.of(target)).sign() > 0:
                w = finite_witness(mechanism, roots, res.point, relation, self.prec)
                if w is not None and (witness is None or w.lower_float > witness.lower_float):
                    witness = w
                target = res.constant
                continue
            if res.proved:
                level = target
                if res.top is not None and (Real.of(res.top) - Real.of(target)).sign() < 0:
                    tight = self.run(roots, n, relation, res.top, deadline)  # the largest face value: the level?
                    boxes, secs = boxes + tight.boxes, secs + tight.seconds
                    if tight.proved:
                        level = res.top
                if res.top_point is not None and witness is None:
                    witness = finite_witness(mechanism, roots, res.top_point, relation, self.prec)
                return self._proof(mechanism, n, relation, float(_up(Real.of(level))), _text(level),
                                   boxes, secs, "proved", witness), witness
            return self._proof(mechanism, n, relation, res.upper, None, boxes, secs, res.status, witness), witness
        return self._proof(mechanism, n, relation, math.inf, None, boxes, secs, "too many face constants", witness), witness

    def _proof(self, mechanism: Any, n: int, relation: Any, upper: float, exact: str | None, boxes: int, secs: float,
               status: str, witness: Witness | None = None) -> Proof:
        domain = {"n": n, "epsilon": str(mechanism.epsilon), "neighbourhood": relation.describe(), "scores": "R^n",
                  "coverage": f"every real score vector of length {n} (charts q_m = max q, gaps compactified to "
                              "[0, 1] with their limits), every neighbour, every output"}
        point = {} if witness is None else {"best_point": {"scores": list(witness.scores),
                                                           "neighbour_scores": list(witness.neighbour_scores),
                                                           "output": witness.output}}
        return Proof(upper, "compact-branch-and-bound", domain, upper=exact, details={
            **point, "boxes": boxes, "seconds": round(secs, 3), "status": status,
            "statement": f"log P(q)_r - log P(q')_r <= {exact if exact is not None else upper} for every q in R^{n}, "
                         f"every neighbour q' ({relation.describe()}) and every output r"})

    # -- the search -------------------------------------------------------------------------------
    def _roots(self, mechanism: Any, n: int, nb: Any) -> list[tuple[_Root, list[Interval]]]:
        if isinstance(nb, LInfBox):
            d = [Fraction(x) for x in nb.deltas(n)]
            zfams = [[(-x, x) for x in d]]
        else:
            d = [Fraction(nb.sensitivity)] * n
            zfams = [[(Fraction(0), x) for x in d], [(-x, Fraction(0)) for x in d]]
        out = []
        for zf in zfams:
            for m in range(n):
                chart = run_chart(mechanism, n, m, zf)
                for half in ("low", "high"):
                    coords = [("L", f"L-{half}")] + [(f"G{a}", "G") for a in range(n) if a != m] + \
                             [(f"Z{a}", "Z") for a in range(n)]
                    box = [(Fraction(0), Fraction(1))] * n + [zf[a] for a in range(n)]
                    for r in range(n):
                        out.append((_Root(r, m, half, chart, coords), box))
        return out

    def run(self, roots: list, n: int, nb: Any, target: Any, deadline: float | None = None) -> CompactResult:
        """One branch-and-bound at ``target`` (an exact sympy value of the log-ratio)."""
        from mpmath import iv

        saved = iv.prec
        iv.prec = self.prec
        try:
            return self._run(roots, n, nb, target, time.process_time() + self.seconds if deadline is None else deadline)
        finally:
            iv.prec = saved

    def _run(self, roots: list, n: int, nb: Any, target: Any, deadline: float) -> CompactResult:
        import sympy

        from ...numbers.backends import ball_context
        from ...numbers.real import Real

        c0, t0 = time.process_time(), time.perf_counter()
        scale = max(Fraction(x) for x in (nb.deltas(n) if isinstance(nb, LInfBox) else [nb.sensitivity]))
        heap: list = []
        count = 0
        top, top_point = None, None

        with ball_context(self.prec):
            et = _iv_const(sympy.exp(target))
            lt = _iv_const(sympy.sympify(target))
            for k, (root, box) in enumerate(roots):
                heap.append((0.0, count, k, tuple(box)))
                count += 1
            heapq.heapify(heap)
            while heap:
                if count >= self.max_boxes or time.process_time() > deadline:
                    worst = -heap[0][0] if heap[0][0] < 0 else math.inf
                    return CompactResult(False, max(worst, float(lt.b)), boxes=count,
                                         seconds=time.perf_counter() - t0, status="budget")
                _, _, k, box = heapq.heappop(heap)
                root = roots[k][0]
                bound, split, const, fixed, tops = self._box(root, box, n, scale, target, et)
                for value, where in tops:
                    if top is None or (Real.of(value) - Real.of(top)).sign() > 0:
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
                    return CompactResult(False, bound, boxes=count, seconds=time.perf_counter() - t0,
                                         status="box narrower than 2^-40 above the target")
                mid = (lo + hi) / 2
                for part in ((lo, mid), (mid, hi)):
                    child = list(box)
                    child[split] = part
                    heapq.heappush(heap, (-bound, count, k, tuple(child)))
                    count += 1
        return CompactResult(True, float(lt.b), boxes=count, seconds=time.perf_counter() - t0, status="proved",
                             top=top, top_point=top_point)

    def _box(self, root: _Root, box: tuple, n: int, scale: Fraction, target: Any, et: Any) -> tuple:
        """``(bound, split, constant, fixed)``: split None when every pair is <= target on the box; a
        coordinate to split otherwise (-1: unbounded); ``constant`` an exact face value above it."""
        import sympy
        from mpmath import iv

        chart = root.chart
        logs = {chart.logvars[name]: _log_interval(kind, lo, hi, scale) for (name, kind), (lo, hi) in zip(root.coords, box)}
        names = list(chart.logvars.values())
        pq = [i for i, p in enumerate(chart.paths_q) if _possible(p, names, logs)]
        pq2 = [j for j, p in enumerate(chart.paths_q2) if _possible(p, names, logs)]
        worst, split = -math.inf, None
        tops: list = []
        widths = [float(hi - lo) for lo, hi in box]
        for i in pq:
            for j in pq2:
                key = (i, j)
                if key not in root.ratios:
                    root.ratios[key] = _ratio(chart, root, i, j)
                R = root.ratios[key]
                if R is None:
                    continue  # P(q)_r = 0 on this path: no loss
                if R is sympy.oo:
                    return math.inf, -1, None, None, tops
                cur, fixed, free = self._faces(root, R, box, scale)
                if not free:
                    from ...numbers.real import Real

                    if cur == 0:
                        continue
                    if (Real.of(cur) - Real.of(sympy.exp(target))).sign() > 0:
                        return math.inf, None, sympy.log(cur), fixed, tops
                    tops.append((sympy.log(cur), fixed))
                    continue
                env = _alg_env(root, box, scale, fixed)
                try:
                    v = arb_eval(cur, env)
                except (TypeError, ValueError, ZeroDivisionError):
                    v = None
                if v is None or not _finite(v) or not (v.b <= et.a):
                    b = math.inf if v is None or not _finite(v) or not (v.b > 0) else float(iv.log(iv.mpf(v.b)).b)
                    wide = [c for c in free if widths[c] > 0]
                    if not wide:
                        return math.inf, -1, None, None, tops
                    if b > worst or split is None:
                        worst = max(worst, b)
                        split = max(wide, key=lambda c: widths[c])
        return worst, split, None, None, tops

    def _faces(self, root: _Root, R: Any, box: tuple, scale: Fraction) -> tuple[Any, dict, list[int]]:
        """R with every coordinate it does not depend on dropped, every monotone one moved to its
        largest face and substituted exactly (module docstring); the coordinates left free."""
        import sympy

        cur = R
        fixed: dict[int, Fraction] = {}
        syms = [root.chart.algvars[name] if not (kind == "L-high") else _M for name, kind in root.coords]
        for c, (lo, hi) in enumerate(box):
            if lo == hi and syms[c] in cur.free_symbols:
                nxt = _substitute(cur, syms[c], _alg_exact(root.coords[c][1], lo, scale))
                if nxt is not None:
                    fixed[c], cur = lo, nxt
        while True:
            free = [c for c in range(len(box)) if c not in fixed and syms[c] in cur.free_symbols]
            if not free:
                return cur, fixed, []
            env = _alg_env(root, box, scale, fixed)
            moved = False
            for c in free:
                sign = self._derivative_sign(cur, syms[c], env, root.derivs)
                if sign:
                    end = box[c][1] if sign > 0 else box[c][0]
                    nxt = _substitute(cur, syms[c], _alg_exact(root.coords[c][1], end, scale))
                    if nxt is None:
                        continue
                    fixed[c], cur = end, nxt
                    moved = True
                    break
            if not moved:
                return cur, fixed, free

    @staticmethod
    def _derivative_sign(cur: Any, v: Any, env: dict, cache: dict) -> int:
        """+1 / -1 when ``∂cur/∂v`` is >= 0 / <= 0 on the box (weakly: the supremum is then on that
        face), 0 when its sign is not decided. The derivative is cancelled and factored once, and
        its numerator and denominator enclosed separately (fewer dependencies than the quotient)."""
        import sympy

        key = (cur, v)
        if key not in cache:
            num, den = sympy.factor(sympy.cancel(sympy.diff(cur, v))).as_numer_denom()
            cache[key] = (sympy.factor_terms(num), sympy.factor_terms(den))
        num, den = cache[key]
        if num == 0:
            return 1
        try:
            a, b = arb_eval(num, env), arb_eval(den, env)
        except (TypeError, ValueError, ZeroDivisionError):
            return 0
        # a denominator that vanishes only on the box's boundary (a factor sqrt(W) at W = 0) leaves
        # the sign in the interior, and the function is continuous on the closed box
        if not (_finite(a) and _finite(b)) or not ((b.a >= 0 and b.b > 0) or (b.b <= 0 and b.a < 0)):
            return 0
        sa = 1 if a.a >= 0 else -1 if a.b <= 0 else 0
        return sa * (1 if b.b > 0 else -1)


_M = None  # replaced at import below (the symbol of 1/Λ)


def _init_m() -> Any:
    import sympy

    return sympy.Symbol("M", nonnegative=True)


_M = _init_m()


def _ratio(chart: ChartLaw, root: _Root, i: int, j: int) -> Any:
    """``cancel(P_i(q)_r / P_j(q')_r)`` in the root's algebraic variables (Λ = 1/M on the high half);
    None when ``P_i(q)_r = 0``; ``oo`` when only ``P_j(q')_r`` is 0."""
    import sympy

    p = chart.paths_q[i].values[root.r]
    p2 = chart.paths_q2[j].values[root.r]
    if p == 0:
        return None
    if p2 == 0:
        return sympy.oo
    R = p / p2
    if root.half == "high":
        R = R.subs(chart.algvars["L"], 1 / _M)
    return sympy.cancel(sympy.powsimp(sympy.powdenest(R, force=True), force=True))


def _substitute(cur: Any, v: Any, value: Any) -> Any:
    """``cur`` at ``v = value``, cancelled; at ``value = 0`` where the formula is 0/0 there, its limit
    from above (the face of a gap at infinity is a limit, and the supremum over the box of a function
    monotone in ``v`` is the supremum over the others of that limit); None when neither is finite."""
    import sympy

    bad = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
    out = sympy.cancel(cur.subs(v, value))
    if not out.has(*bad):
        return out
    if value != 0:
        return None
    try:
        out = sympy.cancel(sympy.limit(cur, v, 0, "+"))
    except (NotImplementedError, ValueError, TypeError):
        return None
    return None if out.has(*bad) or out.has(sympy.Limit) else out


def _finite(x: Any) -> bool:
    return x.a == x.a and x.b == x.b and abs(x.a) != float("inf") and abs(x.b) != float("inf")


def _possible(path: Any, names: list, logs: dict) -> bool:
    return all(allowed & possible_signs(d, names, logs) for d, allowed in path.constraints)


def _log_interval(kind: str, lo: Fraction, hi: Fraction, scale: Fraction) -> Any:
    """The log-variable's extended-real interval on a σ-interval (module docstring's maps)."""
    inf = float("inf")
    if kind == "Z":
        return ext_interval(lo, hi)
    if kind == "L-high":  # L = K(1/σ - 1), decreasing in σ
        return ext_interval(scale * (1 / hi - 1) if hi else inf, scale * (1 / lo - 1) if lo else inf)
    return ext_interval(scale * (1 - 1 / lo) if lo else -inf, scale * (1 - 1 / hi) if hi else -inf)


def _alg_exact(kind: str, s: Fraction, scale: Fraction) -> Any:
    """The exact algebraic value at σ = s (W, Λ, M or Y)."""
    import sympy

    if kind == "Z":
        return sympy.exp(sympy.Rational(s.numerator, s.denominator))
    if s == 0:
        return sympy.Integer(0)
    g = scale * (1 - 1 / s) if kind in ("G", "L-low") else -scale * (1 / s - 1)
    return sympy.exp(sympy.Rational(g.numerator, g.denominator))


def _alg_env(root: _Root, box: tuple, scale: Fraction, fixed: dict) -> dict:
    """arb balls of the algebraic variables on ``box`` (increasing maps: the ends' images)."""
    from mpmath import iv

    env = {}
    for c, ((name, kind), (lo, hi)) in enumerate(zip(root.coords, box)):
        sym = root.chart.algvars[name] if kind != "L-high" else _M

        def val(s: Fraction) -> Any:
            if kind == "Z":
                return iv.exp(_iv_q(s))
            if s == 0:
                return iv.mpf(0)
            g = scale * (1 - 1 / s) if kind in ("G", "L-low") else -scale * (1 / s - 1)
            return iv.exp(_iv_q(g))
        a, b = val(lo), val(hi)
        env[sym] = iv.mpf([a.a, b.b])
    return env


def _text(x: Any) -> str:
    """An exact log-ratio as the text :func:`dpexact.numbers.real.Real.of` reads back."""
    import sympy

    x = sympy.nsimplify(x) if not x.is_Rational else x
    return str(x)


def _up(x: Any) -> float:
    f = float(x.to_float())
    return math.nextafter(f, math.inf)


def finite_witness(mechanism: Any, roots: list, point: tuple, nb: Any, prec: int) -> Witness | None:
    """A certified lower end near a face point: each coordinate at infinity (σ = 0) moved to a gap of
    ``-K·T`` (T in :data:`WITNESS_DISTANCES`), the rest at the face or the box's lower end, the
    log-ratio evaluated on the mechanism's own law in ball arithmetic; the best one."""
    from ...numbers.backends import ball_context

    k, fixed = point
    root, box = roots[k]
    n = len(root.coords) // 2 + (1 if len(root.coords) % 2 else 0)
    n = (len(root.coords) + 0) // 2
    scale = max(Fraction(x) for x in (nb.deltas(len(root.chart.paths_q[0].values)) if isinstance(nb, LInfBox)
                                     else [nb.sensitivity]))
    n = len(root.chart.paths_q[0].values)
    best = None
    with ball_context(prec):
        for t in WITNESS_DISTANCES:
            s0 = Fraction(1, 1 + t)
            vals: dict[str, Fraction] = {}
            for c, (name, kind) in enumerate(root.coords):
                s = fixed.get(c, box[c][0] if kind == "Z" else box[c][1])
                if kind == "Z":
                    vals[name] = s
                    continue
                s = s0 if s == 0 else s
                vals[name] = scale * (1 - 1 / s) if kind in ("G", "L-low") else scale * (1 / s - 1)
            q = [vals["L"] + (vals[f"G{a}"] if a != root.m else 0) for a in range(n)]
            q2 = [q[a] + vals[f"Z{a}"] for a in range(n)]
            if not nb.contains(tuple(q), tuple(q2)):
                continue
            lr = point_log_ratio(mechanism, root.r, q, q2, prec)
            if lr is None:
                continue
            lo = float(lr.lower())
            lo = math.nextafter(lo, -math.inf)
            if best is None or lo > best[0]:
                best = (lo, q, q2)
    if best is None:
        return None
    lo, q, q2 = best
    return Witness(lower_float=lo, scores=tuple(str(x) for x in q), neighbour_scores=tuple(str(x) for x in q2),
                   output=root.r, arithmetic=f"ball:{prec}",
                   note="a face of the compact branch-and-bound moved a finite distance from infinity")
