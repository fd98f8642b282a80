"""A selection law on one box of (scores, neighbour offsets): every branch it takes, with pins.

The branch-and-bound (:mod:`.selection_bnb`) bounds ``log P(q)_r - log P(q + z)_r`` on boxes. A law
that branches on the scores (``argmax``, ties, thresholds, ``x == c``) is run here through the
certified comparisons of :mod:`dpexact.numbers.comparisons` with a branch oracle installed: a
comparison the box leaves open is answered once with each possible outcome class and the law is
re-run along each answer (a depth-first enumeration of the paths). Every point of the box takes
one of the enumerated paths and each path's value is an interval enclosure over the whole box, so

    sup_B P(q)_r <= max_paths sup P_path(B)_r,    inf_B P(q')_r >= min_paths inf P_path(B')_r

is a bound of the law's jump, never a smoothing of it. A box on which a single path is taken is
smooth, and only then are its interval gradients (:mod:`dpexact.numbers.interval_gradient`) used
(monotonicity, mean-value form).

**Branch constants.** When the open comparison is between one input score (``q_a`` or
``q'_a = q_a + z_a``) and a number with a known exact rational value ``c`` (``ops.num("37/100")``,
a score fixed by shift invariance), the key ``(side, a, c)`` is recorded; the caller then splits
the box *at* ``c``: the slice where the input equals ``c`` becomes a box of its own (``q_a ∈ [c, c]``
an exact point, or ``q'_a`` pinned to ``c`` with ``q_a`` clipped to ``c - z``-range), and the rest
carries the key in ``noteq``, which removes the outcome "equal" from that comparison there. So a
law that misbehaves only at ``q = c`` is evaluated exactly at ``c`` instead of being bisected
forever around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from ...numbers.comparisons import ExactBall, deciding_with, exact_value
from ...numbers.real import Real
from ...protocols import IntervalLaw

__all__ = ["Box", "BoxValue", "Key", "MAX_PATHS", "LawRaised", "PathOrder", "evaluate_box", "mean_value_bound", "point_log_ratio", "input_balls"]

Interval = tuple[Fraction, Fraction]
#: ``(side, a, c)``: input ``q_a`` (side "q") or ``q'_a`` (side "q2") compared with the exact ``c``
Key = tuple[str, int, Fraction]

#: branches enumerated per side of one box before it counts as undecidable (its bound is +inf)
MAX_PATHS = 256


@dataclass(frozen=True)
class Box:
    """Output ``r``; intervals of ``q_0..q_{n-1}, z_0..z_{n-1}``; ``pins[a]``: ``q'_a`` fixed at an
    exact value (then ``z_a = q'_a - q_a`` is no variable and its interval is ``(0, 0)``); ``noteq``:
    keys whose equality slice lies in another box."""

    r: int
    iv: tuple[Interval, ...]
    pins: tuple[Fraction | None, ...]
    noteq: frozenset[Key] = frozenset()

    @property
    def n(self) -> int:
        return len(self.pins)

    def q2_interval(self, a: int) -> Interval:
        pin = self.pins[a]
        if pin is not None:
            return (pin, pin)
        (ql, qh), (zl, zh) = self.iv[a], self.iv[self.n + a]
        return (ql + zl, qh + zh)

    def replace(self, i: int, iv: Interval) -> "Box":
        out = list(self.iv)
        out[i] = iv
        return Box(self.r, tuple(out), self.pins, self.noteq)


@dataclass
class BoxValue:
    """Rounded-up bound of the log-ratio on a box, its gradient when one path is taken, the keys met."""

    bound: float
    grad: list | None
    keys: list[Key]
    paths: int
    coords: set[int]
    paths_values: tuple[list, list] | None = None  # (value, branch) per branch on each side, as duals


class _Fork(Exception):
    """An open comparison beyond the replayed prefix: the outcomes to try and its key (or None)."""

    def __init__(self, trace: tuple[int, ...], outcomes: tuple[int, ...] = (), key: Key | None = None,
                 coords: set[int] | None = None) -> None:
        super().__init__("branch")
        self.trace, self.outcomes, self.key, self.coords = trace, outcomes, key, coords or set()


class _Infeasible(Exception):
    """The outcomes asked of a path contradict each other (``a > b`` after ``b > a``): no point of the
    box takes it, so the law is not run along it."""


class LawRaised(Exception):
    """The law raised on a consistent branch path of a box: a failure of the law, reported as such
    (``error``: the law's exception; ``path``: the outcomes replayed; ``side``: "q" or "q2")."""

    def __init__(self, error: BaseException, path: tuple[int, ...], side: str) -> None:
        super().__init__(f"the law raised {type(error).__name__}({str(error)[:120]!r}) on the branch path "
                         f"{list(path)} of the {'scores' if side == 'q' else 'neighbour scores'}")
        self.error, self.path, self.side = error, path, side


Node = tuple


class PathOrder:
    """The order constraints one path has asked of: nodes are the law's inputs (by index), exact
    constants (by value) and other computed numbers (by identity, kept alive so an identity is
    never reused), and each recorded outcome is an edge ``u >= v`` (strict or not).

    A set of such constraints among reals (constants fixed in their known order) is feasible iff no
    cycle of the graph contains a strict edge (the order-constraint case of difference constraints:
    Cormen et al., *Introduction to Algorithms*, §24.4, with zero weights); so the outcome
    ``a - b > 0`` is possible iff ``b >= a`` is not derivable, ``= 0`` iff neither ``a > b`` nor
    ``b > a`` is. ``≠`` outcomes add no edge (the check stays sound, not complete)."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.index: dict[Node, int] = {}
        self.edges: dict[tuple[int, int], bool] = {}  # (u, v) -> strict: value(u) >= value(v) (> if strict)
        self.keep: list[Any] = []

    def node(self, x: Any, inputs: dict[int, tuple[str, int]]) -> int:
        lab = inputs.get(id(x))
        if lab is not None:
            key: Node = ("x", lab[1])
        else:
            c = exact_value(x)
            if c is not None and c.is_rational:
                key = ("c", c.to_fraction())
            else:
                key = ("o", id(x))
                self.keep.append(x)
        if key not in self.index:
            self.index[key] = len(self.nodes)
            self.nodes.append(key)
            if key[0] == "c":  # constants among themselves: their known order
                i = self.index[key]
                for other, j in list(self.index.items()):
                    if other[0] == "c" and j != i:
                        if other[1] < key[1]:
                            self.edges[(i, j)] = True
                        elif other[1] > key[1]:
                            self.edges[(j, i)] = True
                        else:
                            self.edges[(i, j)] = self.edges[(j, i)] = False
        return self.index[key]

    def _closure(self) -> list[list[bool | None]]:
        """``m[u][v]``: None (nothing derived), False (u >= v), True (u > v)."""
        k = len(self.nodes)
        m: list[list[bool | None]] = [[None] * k for _ in range(k)]
        for u in range(k):
            m[u][u] = False
        for (u, v), strict in self.edges.items():
            m[u][v] = strict or bool(m[u][v])
        for w in range(k):
            for u in range(k):
                if m[u][w] is None:
                    continue
                for v in range(k):
                    if m[w][v] is not None:
                        st = bool(m[u][w]) or bool(m[w][v])
                        if m[u][v] is None or (st and not m[u][v]):
                            m[u][v] = st
        return m

    def possible(self, i: int, j: int) -> set[int]:
        """The signs of ``value(i) - value(j)`` consistent with the recorded outcomes."""
        m = self._closure()
        out = set()
        if m[j][i] is None:
            out.add(1)
        if m[i][j] is None:
            out.add(-1)
        if not m[i][j] and not m[j][i]:
            out.add(0)
        return out

    def record(self, i: int, j: int, signs: set[int]) -> None:
        """Record that ``value(i) - value(j)`` has one of ``signs``."""
        def edge(u: int, v: int, strict: bool) -> None:
            self.edges[(u, v)] = strict or self.edges.get((u, v), False)

        if signs == {1}:
            edge(i, j, True)
        elif signs == {-1}:
            edge(j, i, True)
        elif signs == {0}:
            edge(i, j, False)
            edge(j, i, False)
        elif signs == {0, 1}:
            edge(i, j, False)
        elif signs == {-1, 0}:
            edge(j, i, False)


class _PathOracle:
    """Answers every comparison of one run of the law (``trace``): a decided one as decided, an open
    one by ``prefix`` (the branch being replayed) and, beyond it, by forking; with ``force`` it
    replays ``prefix`` whatever the enclosures say (the same branch's formula at another point)."""

    def __init__(self, inputs: dict[int, tuple[str, int]], noteq: frozenset[Key], prefix: tuple[int, ...],
                 force: bool = False, exact: dict[tuple[str, int], Interval] | None = None) -> None:
        self.inputs, self.noteq, self.prefix, self.force = inputs, noteq, prefix, force
        self.exact = exact or {}
        self.trace: list[int] = []
        self.order = PathOrder()

    def key(self, a: Any, b: Any) -> tuple[Key, int] | None:
        """``(key, s)`` when one operand is an input and the other has an exact rational value c;
        ``s`` = +1 when the input is ``a`` (the signs asked are those of ``a - b``), else -1."""
        for x, y, s in ((a, b, 1), (b, a, -1)):
            lab = self.inputs.get(id(x))
            if lab is not None:
                c = exact_value(y)
                if c is not None and c.is_rational:
                    return (lab[0], lab[1], c.to_fraction()), s
        return None

    def decide(self, a: Any, b: Any, classes: tuple[tuple[int, ...], ...]) -> int:
        k = len(self.trace)
        if self.force:
            if k >= len(self.prefix):
                raise _Fork(())  # not the replayed branch's program: no value here
            out = self.prefix[k]
        else:
            found = self.key(a, b) if len(classes) > 1 else None
            key = None
            if found is not None:  # an input against an exact c: the box's exact interval decides more
                key, sign = found
                lo, hi = self.exact[key[:2]]
                c = key[2]
                possible = {s * sign for s, ok in ((-1, lo < c), (0, lo <= c <= hi and key not in self.noteq),
                                                   (1, hi > c)) if ok}
                narrowed = tuple(c2 for c2 in (tuple(s for s in cl if s in possible) for cl in classes) if c2)
                classes = narrowed or classes
            # the outcomes consistent with the path so far (a > b after b > a is no path; x = x holds)
            i, j = self.order.node(a, self.inputs), self.order.node(b, self.inputs)
            feasible = self.order.possible(i, j)
            classes = tuple(c2 for c2 in (tuple(s for s in cl if s in feasible) for cl in classes) if c2)
            if not classes:
                raise _Infeasible()
            if len(classes) == 1:
                out = classes[0][0]
            elif k < len(self.prefix):
                out = self.prefix[k]
            else:
                raise _Fork(tuple(self.trace), tuple(c[0] for c in classes), key, _coordinates(a) | _coordinates(b))
            taken = next((cl for cl in classes if out in cl), None)
            if taken is None:  # a replayed outcome the path now excludes
                raise _Infeasible()
            self.order.record(i, j, set(taken))
        self.trace.append(out)
        return out


def _coordinates(x: Any) -> set[int]:
    """The box coordinates an interval dual depends on (its derivative not exactly 0)."""
    from ...numbers.interval_gradient import Dual

    return {i for i, g in enumerate(x.d) if not g.is_zero()} if isinstance(x, Dual) else set()


def _ball(iv: Interval, prec: int) -> Any:
    from flint import arb, fmpq

    lo, hi = iv
    if lo == hi:  # an exact point: ties and ``x == c`` decided exactly
        out = ExactBall(arb(fmpq(lo.numerator, lo.denominator)))
        out.exact = Real(lo)
        return out
    return arb(fmpq(lo.numerator, lo.denominator)).union(arb(fmpq(hi.numerator, hi.denominator)))


def input_balls(box: Box, prec: int, duals: bool) -> tuple[list, list]:
    """The balls (interval duals when ``duals``) of q and q' on ``box``."""
    n = box.n
    qb = [_ball(box.iv[a], prec) for a in range(n)]
    q2b = [_ball(box.q2_interval(a), prec) for a in range(n)]
    if not duals:
        return qb, q2b
    from ...numbers.interval_gradient import variables

    q = variables(qb, [(a,) for a in range(n)], 2 * n)
    q2 = variables(q2b, [(() if box.pins[a] is not None else (a, n + a)) for a in range(n)], 2 * n)
    return q, q2


def _side(mechanism: IntervalLaw, r: int, balls: list, side: str, box: Box, prec: int,
          keys: list[Key], coords: set[int]) -> list[tuple[Any, tuple[int, ...]]] | None:
    """``(P(·)_r, branch)`` along every branch the law takes on these balls (None: more than
    :data:`MAX_PATHS`)."""
    inputs = {id(b): (side, a) for a, b in enumerate(balls)}
    exact = {(side, a): (box.iv[a] if side == "q" else box.q2_interval(a)) for a in range(box.n)}
    todo: list[tuple[int, ...]] = [()]
    out: list[tuple[Any, tuple[int, ...]]] = []
    while todo:
        prefix = todo.pop()
        oracle = _PathOracle(inputs, box.noteq, prefix, exact=exact)
        try:
            with deciding_with(oracle):
                out.append((mechanism.pmf_on_balls(balls, prec)[r], tuple(oracle.trace)))
        except _Fork as f:
            if f.key is not None and f.key not in keys:
                keys.append(f.key)
            coords |= f.coords
            todo.extend(f.trace + (o,) for o in f.outcomes)
            if len(out) + len(todo) > MAX_PATHS:
                return None
        except _Infeasible:
            continue  # no point of the box takes this path
        except (ArithmeticError, ValueError, TypeError, AttributeError):
            raise  # undecidable enclosures, or no interval duals: the caller's fallbacks
        except Exception as exc:  # the law fails on a consistent path: its failure, reported
            raise LawRaised(exc, tuple(oracle.trace), side) from exc
    return out


def _replay(mechanism: IntervalLaw, r: int, point: Sequence[Fraction], branch: tuple[int, ...], prec: int) -> Any:
    """The formula of one branch at a point (its decisions replayed), a ball; None if it fails."""
    balls = [_ball((v, v), prec) for v in point]
    try:
        with deciding_with(_PathOracle({}, frozenset(), branch, force=True)):
            return mechanism.pmf_on_balls(balls, prec)[r]
    except Exception:  # the branch's formula fails at the point: no mean-value form from it
        return None


def evaluate_box(mechanism: IntervalLaw, box: Box, prec: int, gradients: bool) -> BoxValue:
    """The bound of ``log P(q)_r - log P(q')_r`` over ``box``: the worst over the branches of
    ``log sup P - log inf P'`` (module docstring), and the gradient when one branch is taken."""
    import math

    from flint import arb

    from ...numbers.interval_gradient import Dual

    keys: list[Key] = []
    coords: set[int] = set()
    for duals in ((True, False) if gradients else (False,)):
        q, q2 = input_balls(box, prec, duals)
        try:
            ps = _side(mechanism, box.r, q, "q", box, prec, keys, coords)
            p2s = _side(mechanism, box.r, q2, "q2", box, prec, keys, coords)
        except (TypeError, AttributeError):
            if duals:
                continue  # not differentiable in duals: plain balls
            return BoxValue(math.inf, None, keys, 0, coords)
        except (ArithmeticError, ZeroDivisionError, ValueError):
            return BoxValue(math.inf, None, keys, 0, coords)
        break
    if ps is None or p2s is None:
        return BoxValue(math.inf, None, keys, MAX_PATHS, coords)
    npaths = len(ps) + len(p2s)
    duals_ok = all(isinstance(p, Dual) for p, _ in ps + p2s)
    vals = [p.v if isinstance(p, Dual) else p for p, _ in ps]
    vals2 = [p.v if isinstance(p, Dual) else p for p, _ in p2s]
    hi = max(arb(v.upper()) for v in vals)
    lo = min(arb(v.lower()) for v in vals2)
    if not (hi > 0):
        return BoxValue(-math.inf, None, keys, npaths, coords)  # P(q)_r = 0 on the whole box: no loss
    bound = _up(hi.log().upper() - lo.log().lower()) if lo > 0 else math.inf
    grad = None
    if duals_ok and len(ps) == 1 and len(p2s) == 1 and vals[0] > 0 and vals2[0] > 0:
        grad = [a / vals[0] - b / vals2[0] for a, b in zip(ps[0][0].d, p2s[0][0].d)]  # one branch: smooth
    return BoxValue(bound, grad, keys, npaths, coords, (ps, p2s) if duals_ok else None)


def mean_value_bound(mechanism: IntervalLaw, box: Box, val: BoxValue, centre: tuple[Sequence[Fraction], Sequence[Fraction]],
                     prec: int) -> tuple[float, Any]:
    """``(bound, f(c))``: the smaller of ``val.bound`` and the worst over pairs of branches of the
    mean-value form ``f(c) + Σ_i |∂_i f(B)| h_i`` — each branch's formula is smooth on the whole
    box, ``f(c)`` is that formula at the centre c (its decisions replayed), and each branch's
    value on the box is first narrowed to ``p(c) + [-1, 1] Σ |∂_i p(B)| h_i`` (the softmax's
    ``v / Σw`` suffers the dependency problem). ``f(c)`` is returned (a ball) when one branch
    without any comparison is taken on each side: it is then the law's own value at c."""
    import math

    if val.paths_values is None or not math.isfinite(val.bound) and val.bound < 0:
        return val.bound, None
    ps, p2s = val.paths_values
    n = box.n
    qc, q2c = centre
    cs = list(qc) + [(b - a) if box.pins[i] is None else Fraction(0) for i, (a, b) in enumerate(zip(qc, q2c))]
    half = [_arb_of(max(hi_ - c, c - lo_)) for (lo_, hi_), c in zip(box.iv, cs)]
    at_q = [_replay(mechanism, box.r, qc, br, prec) for _, br in ps]
    at_q2 = [_replay(mechanism, box.r, q2c, br, prec) for _, br in p2s]
    if not all(v is not None and v.is_finite() and v > 0 for v in at_q + at_q2):
        return val.bound, None
    vals = [_refine(p, c, half) for (p, _), c in zip(ps, at_q)]
    vals2 = [_refine(p, c, half) for (p, _), c in zip(p2s, at_q2)]
    if not all(v > 0 for v in vals + vals2):
        return val.bound, None
    bound = min(val.bound, _up(max(v.upper() for v in vals).log().upper() - min(v.lower() for v in vals2).log().lower()))
    glog = [[g / v for g in p.d] for (p, _), v in zip(ps, vals)]  # ∂ log p = ∂p / p
    glog2 = [[g / v for g in p.d] for (p, _), v in zip(p2s, vals2)]
    worst = -math.inf
    for gi, ci in zip(glog, at_q):
        for gj, cj in zip(glog2, at_q2):
            mv = ci.log() - cj.log()
            for i in range(2 * n):
                if not half[i].is_zero():
                    g = gi[i] - gj[i]
                    mv += max(abs(g.lower()), abs(g.upper())) * half[i]
            u = _up(mv.upper())
            worst = max(worst, math.inf if math.isnan(u) else u)
    plain = len(ps) == 1 and len(p2s) == 1 and not ps[0][1] and not p2s[0][1]
    return min(bound, worst), (at_q[0].log() - at_q2[0].log()) if plain else None


def _refine(p: Any, at_centre: Any, half: list) -> Any:
    """``p(c) + [-1, 1] Σ_i |∂_i p(B)| h_i``, intersected with the direct enclosure ``p.v``."""
    from flint import arb

    rad = arb(0)
    for g, h in zip(p.d, half):
        if not h.is_zero():
            rad += max(abs(g.lower()), abs(g.upper())) * h
    mv = at_centre + rad * arb(0, 1)
    return mv.intersection(p.v) if p.v.is_finite() and mv.is_finite() and mv.overlaps(p.v) else mv


def _arb_of(x: Fraction) -> Any:
    from flint import arb, fmpq

    return arb(fmpq(x.numerator, x.denominator))


def point_log_ratio(mechanism: IntervalLaw, r: int, q: Sequence[Fraction], q2: Sequence[Fraction], prec: int) -> Any:
    """The log-ratio at one point as a ball (exact inputs: every branch decided), None where it is
    not finite or not decidable."""
    a = [_ball((v, v), prec) for v in q]
    b = [_ball((v, v), prec) for v in q2]
    try:
        p = mechanism.pmf_on_balls(a, prec)[r]
    except (ArithmeticError, ZeroDivisionError, ValueError):
        return None
    except Exception as exc:  # the law fails at a point of its domain: its failure, reported
        raise LawRaised(exc, (), "q") from exc
    try:
        p2 = mechanism.pmf_on_balls(b, prec)[r]
    except (ArithmeticError, ZeroDivisionError, ValueError):
        return None
    except Exception as exc:
        raise LawRaised(exc, (), "q2") from exc
    if not (p > 0) or not (p2 > 0):
        return None
    return p.log() - p2.log()


def _up(x: Any) -> float:
    import math

    f = float(x)
    return f if f >= x else math.nextafter(f, math.inf)
