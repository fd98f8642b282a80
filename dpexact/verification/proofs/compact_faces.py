"""Ratios, monotonicity tests and exact faces of the compact branch-and-bound.

A *root* is one output ``r``, one chart ``m`` (``q_m`` a largest score, :mod:`.compact_paths`), one half
of the line for ``L = q_m`` and one offset family; its coordinates are σ ∈ [0, 1] per unbounded
log-variable and the offsets ``Z``. On a box of these:

* the ratio ``R = P_i(q)_r / P_j(q')_r`` of a pair of paths is reduced once (a :class:`.compact_fractions.Frac`:
  numerator and denominator divided by their gcd, in flint), so common factors that vanish at a gap
  at infinity are gone and R is continuous on the closed box;
* a coordinate whose partial derivative ``∂R/∂v`` has one sign on the box (Moore, Kearfott & Cloud
  2009 §6, the monotonicity test) is moved to the face where R is largest and substituted exactly
  (``W = 0`` for a gap at infinity, ``Y = e^{±g·Δ}`` for an offset: a power of ``T = e^{1/L}``); R is
  then reduced again. A face where the reduced fraction has a zero denominator, or whose value is
  not a power of ``T``, is not used (the coordinate stays free).

Every map σ ↦ algebraic variable is increasing (``W = e^{g·G}``, ``G = K(1 - 1/σ)``; ``Λ = e^{g·L}``;
``M = e^{-g·L}`` on the high half), so a derivative's sign in the algebraic variable is its sign in σ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .compact_budget import check_deadline
from .compact_enclosure import Iv, enclose_tight, exp_interval, finite
from .compact_fractions import Frac, Space, div, free, from_sympy, subs
from .compact_paths import ChartLaw, ext_interval, possible_signs

__all__ = ["Root", "INFINITE", "ratio", "same_ratio_classes", "faces", "alg_env", "log_interval", "possible", "log_value", "generator_names"]

#: the ratio of a pair of paths whose denominator probability is 0 (and numerator not)
INFINITE = "infinite"


def generator_names(n: int) -> tuple[str, ...]:
    """The compact variables of every chart: Λ, M = 1/Λ, W_a and Y_a (``T`` is added by :class:`Space`)."""
    return ("Lam", "M", *[f"W{a}" for a in range(n)], *[f"Y{a}" for a in range(n)])


@dataclass
class Root:
    """One output, chart, half-line and offset family of the compact domain (module docstring)."""

    r: int
    m: int
    half: str  # "low": L <= 0 (Λ ∈ [0, 1]); "high": L >= 0 (M = 1/Λ ∈ [0, 1])
    chart: ChartLaw
    coords: list[tuple[str, str]]  # (log-variable name, kind: "L-low" | "L-high" | "G" | "Z")
    space: Space
    ratios: dict = field(default_factory=dict)
    derivs: dict = field(default_factory=dict)
    #: (pair, target) -> boxes on which the pair is proved <= target on its region (so on every sub-box)
    settled: dict = field(default_factory=dict)

    def gen(self, c: int) -> int:
        """The generator of coordinate ``c``."""
        name, kind = self.coords[c]
        label = {"L-low": "Lam", "L-high": "M"}.get(kind, ("W" if kind == "G" else "Y") + name[1:])
        return self.space.index(label)

    def scale(self, c: int) -> Fraction:
        return self.chart.scales.get(self.coords[c][0], Fraction(1))

    def is_settled(self, pair: tuple, target: Frac, box: tuple) -> bool:
        """Whether ``pair`` was proved <= ``target`` on a box containing ``box`` (so on ``box`` too)."""
        for done in self.settled.get((pair, str(target.num), str(target.den)), ()):
            if all(a <= lo and hi <= b for (a, b), (lo, hi) in zip(done, box)):
                return True
        return False

    def settle(self, pair: tuple, target: Frac, box: tuple) -> None:
        """Record that ``pair`` is proved <= ``target`` on ``box``."""
        self.settled.setdefault((pair, str(target.num), str(target.den)), []).append(box)


def _values(root: Root, side: str, i: int) -> tuple[Frac, ...]:
    """The probabilities of path ``i`` of one side as fractions of the root's generators (cached per half)."""
    chart = root.chart
    key = (root.half, side, i)
    if key not in chart.fracs:
        sym = {}
        for name, kind in root.coords:
            a = chart.algvars[name]
            c = root.coords.index((name, kind))
            sym[a] = (root.gen(c), root.scale(c), -1 if kind == "L-high" else 1)
        paths = chart.paths_q if side == "q" else chart.paths_q2
        cache: dict = chart.fracs.setdefault(("cache", root.half), {})
        chart.fracs[key] = tuple(from_sympy(v, root.space, sym, cache) for v in paths[i].values)
    return chart.fracs[key]


def ratio(root: Root, i: int, j: int) -> Frac | str | None:
    """``P_i(q)_r / P_j(q')_r`` reduced; None when ``P_i(q)_r = 0``; :data:`INFINITE` when only ``P_j(q')_r`` is 0."""
    p = _values(root, "q", i)[root.r]
    p2 = _values(root, "q2", j)[root.r]
    if p.is_zero():
        return None
    if p2.is_zero():
        return INFINITE
    return div(p, p2)


def same_ratio_classes(root: Root, pq: list[int], pq2: list[int]) -> list[tuple[list[int], list[int]]]:
    """The pairs of paths ``pq × pq2`` as products of classes: paths of one side whose probability of
    output ``r`` is the same reduced fraction share a class, so every pair of a product has one ratio.
    A law that branches only to compute the same value (EM shifted by ``ops.max``: each path divides by
    another top score, which cancels) has one class per side."""
    out = []
    for side, idx in (("q", pq), ("q2", pq2)):
        classes: dict[tuple[str, str], list[int]] = {}
        for i in idx:
            p = _values(root, side, i)[root.r]
            classes.setdefault((str(p.num), str(p.den)), []).append(i)
        out.append(list(classes.values()))
    return [(ci, cj) for ci in out[0] for cj in out[1]]


def log_value(kind: str, s: Fraction, scale: Fraction) -> Fraction:
    """The log-variable at σ = s (s > 0 for the unbounded kinds): ``K(1 - 1/σ)`` for G and the low
    half of L, ``K(1/σ - 1)`` for the high half, σ itself for an offset."""
    if kind == "Z":
        return s
    return scale * (1 - 1 / s) if kind in ("G", "L-low") else scale * (1 / s - 1)


def _exponent(root: Root, c: int, s: Fraction, scale: Fraction) -> Fraction | None:
    """The log of the algebraic value at σ = s (``g·G``, ``g·L``, ``-g·L`` or ``g·Z``); None at 0 (σ = 0)."""
    kind = root.coords[c][1]
    if s == 0 and kind != "Z":
        return None
    return root.scale(c) * log_value(kind, s, scale) * (-1 if kind == "L-high" else 1)


def alg_env(root: Root, box: tuple, scale: Fraction) -> list[Iv]:
    """Intervals of every generator on ``box`` (increasing maps: the ends' images; ``T`` a point)."""
    env = [Iv(0.0, 0.0)] * (root.space.t + 1)
    env[root.space.t] = exp_interval(Fraction(1, root.space.lcd))
    for c, (lo, hi) in enumerate(box):
        a, b = (_exponent(root, c, s, scale) for s in (lo, hi))
        env[root.gen(c)] = Iv(0.0 if a is None else exp_interval(a).a, 0.0 if b is None else exp_interval(b).b)
    return env


def log_interval(kind: str, lo: Fraction, hi: Fraction, scale: Fraction) -> Any:
    """The log-variable's extended-real interval on a σ-interval (module docstring's maps)."""
    inf = float("inf")
    if kind == "Z":
        return ext_interval(lo, hi)
    if kind == "L-high":  # L = K(1/σ - 1), decreasing in σ
        return ext_interval(scale * (1 / hi - 1) if hi else inf, scale * (1 / lo - 1) if lo else inf)
    return ext_interval(scale * (1 - 1 / lo) if lo else -inf, scale * (1 - 1 / hi) if hi else -inf)


def possible(path: Any, names: list, logs: dict) -> bool:
    """Whether every constraint of ``path`` can hold somewhere on the box (``logs``: log-variable intervals)."""
    return all(allowed & possible_signs(d, names, logs) for d, allowed in path.constraints)


def _at(root: Root, R: Frac, c: int, s: Fraction, scale: Fraction) -> Frac | None:
    """R at coordinate ``c`` = σ ``s``, exactly (None: not a power of ``T``, or a zero denominator)."""
    x = _exponent(root, c, s, scale)
    if x is None:
        return subs(R, root.space, root.gen(c), None)
    k = x * root.space.lcd
    if k.denominator != 1:
        return None
    return subs(R, root.space, root.gen(c), int(k))


def faces(root: Root, R: Frac, box: tuple, scale: Fraction, env: list[Iv],
          deadline: float | None, region: Any = None) -> tuple[Frac, dict, list[int], list[Iv], set[int]]:
    """R with every coordinate it does not depend on dropped, every monotone one moved to its largest
    face (module docstring): ``(R', fixed σ per coordinate, free coordinates, env', pinned)``.

    A monotone coordinate whose face is a power of ``T`` is substituted exactly (``fixed``); one whose
    face is not (an end inside the chart, e.g. where a path's region ends) is *pinned*: its generator
    is the face's point interval in ``env'`` (the supremum over the box is the supremum over that
    face, so later derivative tests and the enclosure run on the face). ``region``
    (:class:`.compact_polytope.Region`, optional) decides the signs the box's enclosure leaves open;
    it is moved to each face too."""
    cur = R
    fixed: dict[int, Fraction] = {}
    pinned: set[int] = set()
    env = list(env)
    gens = [root.gen(c) for c in range(len(box))]

    def at_face(c: int, s: Fraction) -> None:
        if region is not None:
            region.move_to_face(c, log_value(root.coords[c][1], s, scale) if (s != 0 or root.coords[c][1] == "Z") else None)

    def pin(c: int, s: Fraction) -> None:
        x = _exponent(root, c, s, scale)
        env[gens[c]] = Iv(0.0, 0.0) if x is None else exp_interval(x)
        pinned.add(c)
        at_face(c, s)

    for c, (lo, hi) in enumerate(box):
        if lo == hi and gens[c] in free(cur, root.space):
            nxt = _at(root, cur, c, lo, scale)
            if nxt is not None:
                fixed[c], cur = lo, nxt
                at_face(c, lo)
            else:
                pin(c, lo)
    while True:
        check_deadline(deadline)
        depends = free(cur, root.space)
        loose = [c for c in range(len(box)) if c not in fixed and c not in pinned and gens[c] in depends]
        if not loose:
            return cur, fixed, [], env, pinned
        moved = False
        for c in loose:
            check_deadline(deadline)
            # a sign on the region's cylinder along c: every point of the region moves to the face inside it
            sign = derivative_sign(cur, root.space, gens[c], env, root.derivs, None if region is None else region.without(c))
            if sign:
                end = box[c][1] if sign > 0 else box[c][0]
                nxt = _at(root, cur, c, end, scale)
                if nxt is None:
                    pin(c, end)
                else:
                    fixed[c], cur = end, nxt
                    at_face(c, end)
                moved = True
                break
        if not moved:
            return cur, fixed, loose, env, pinned


def derivative_sign(cur: Frac, space: Space, i: int, env: list[Iv], cache: dict, region: Any = None,
                    memo: dict | None = None) -> int:
    """+1 / -1 when ``∂cur/∂x_i`` is >= 0 / <= 0 on the box (weakly: the supremum is then on that
    face), 0 when its sign is not decided.

    With ``cur = N/D`` and ``D`` of one sign on the box (it may vanish on the boundary only: a factor
    ``W`` at ``W = 0``; the function is continuous on the closed box), ``∂cur/∂x`` has the sign of
    ``N_x D - N D_x``; when ``N`` (or ``D``) does not depend on ``x`` that is ``-N·D_x`` (``N_x·D``),
    whose factors are enclosed separately (smaller polynomials, less dependency). ``memo`` (one per
    environment, :func:`_sign`) keeps each polynomial's box sign, so a second pass with a region does
    not enclose it on the box again."""
    key = (str(cur.num), str(cur.den), i)
    if key not in cache:
        nx, dx = cur.num.derivative(i), cur.den.derivative(i)
        cache[key] = (nx, dx, None if nx.is_zero() or dx.is_zero() else _content_free(nx * cur.den - cur.num * dx))
    nx, dx, both = cache[key]
    if nx.is_zero() and dx.is_zero():
        return 1
    sd = _sign(cur.den, env, region, strict=True, memo=memo)
    if not sd:
        return 0
    if both is None:
        if dx.is_zero():
            return _sign(nx, env, region, memo=memo) * sd
        return -_sign(cur.num, env, region, memo=memo) * _sign(dx, env, region, memo=memo)
    return _sign(both, env, region, memo=memo)


def _sign(p: Any, env: list[Iv], region: Any = None, strict: bool = False, memo: dict | None = None) -> int:
    """+1 / -1 when ``p >= 0`` / ``<= 0`` on the box (``strict``: and not identically 0 on it), else 0;
    the region's enclosure (:mod:`.compact_polytope`) when the box's leaves it open.

    ``memo`` (valid for one ``env`` only: the caller makes one per box) keeps the box's answer per
    polynomial object (the object is kept in it, so its ``id`` is not reused), so the region pass after
    a box pass encloses each polynomial on the box once: a cache of a computed sign, never a guess."""
    key = (id(p), strict)
    hit = None if memo is None else memo.get(key)
    if hit is not None:
        s, q = hit[0], hit[1]
    else:
        q = _content_free(p)
        s = _box_sign(q, env, strict)
        if memo is not None:
            memo[key] = (s, q, p)
    if s:
        return s
    return 0 if region is None else region.sign(q, strict)


def _box_sign(p: Any, env: list[Iv], strict: bool) -> int:
    e = enclose_tight(p, env)
    if finite(e):
        if e.a >= 0 and (not strict or e.b > 0):
            return 1
        if e.b <= 0 and (not strict or e.a < 0):
            return -1
    return 0


def _content_free(p: Any) -> Any:
    """``p`` divided by its monomial content (a positive rational times a monomial in the generators,
    all >= 0): same sign, weakly, on the box; a factor like ``T²`` or ``W`` no longer widens it."""
    c = p.term_content()
    if c.is_zero():
        return p
    return p / (c / c.leading_coefficient())
