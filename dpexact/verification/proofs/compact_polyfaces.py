"""Monotone coordinates moved to the faces of a pair of paths' *region*, not of its box.

The compact branch-and-bound (:mod:`.compact_bnb`) bounds the ratio ``R`` of a pair of branch paths on
a box; ``R`` is the law's ratio only on the pair's region (its comparison outcomes), a polyhedron in
the log-variables. Moving a monotone coordinate to the *box's* face lands outside the region (PF: the
neighbour's largest score is no longer the largest there, and ``R`` is not a probability ratio), so the
face constant is only a bound and the box is split without end near the region's boundary.

Here every generator is ``x_c = e^{u_c}`` (``u_c`` its log, increasing in σ) and the region is
``S = box ∩ {b_0 + Σ b_c u_c >= 0}`` (rows in the ``u``). When ``∂R/∂x_c >= 0`` on ``S``, each
point of ``S`` moves up in ``c`` inside ``S`` (a convex set, so the segment stays in it) until the box's upper end or a row with
``b_c < 0`` is tight, and ``R`` does not decrease on the way: so ``sup_S R`` is the largest of the
suprema over those faces (``<= 0``: the lower ends and the rows with ``b_c > 0``). A row face is
substituted *exactly*: ``u_c = -(b_0 + Σ_{d != c} b_d u_d) / b_c`` is the monomial
``x_c = T^{-lcd·b_0/b_c} Π x_d^{-b_d/b_c}`` (refused unless the exponents are integers), the other rows
are rewritten without ``u_c`` (adding a multiple of the tight row) and the box's ends of ``u_c`` become
rows. Each face is the same problem in one coordinate fewer, so the recursion ends in an exact
constant in ``T`` (compared with the target exactly, :func:`.compact_fractions.const_sign`) or in a
face where no coordinate is monotone, bounded by its enclosures. A tight level reached on a region
face (PF's ``e^ε`` where a neighbour's score ties the largest) is then decided exactly, not straddled.

Points at infinity (``u_c = -∞``, ``x_c = 0``) are closure points: a row ``b_c u_c + b_d u_d + … >= 0``
with ``b_c > 0`` forces the one coordinate with ``b_d < 0`` that can reach ``-∞`` there too (with none
the face is empty, with several the row is dropped: a superset). Every step keeps a superset of the
region's closure, so the bound stays a bound; any step it cannot do exactly gives up (the caller then
splits the box as before). This module only proves ``R <= target``; it never reports a level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from .compact_budget import check_deadline
from .compact_enclosure import Iv, divide, enclose_tight, exp_interval
from .compact_faces import _sign, derivative_sign
from .compact_fractions import Frac, Space, _monomial, _reduce, const_sign, free, mul, sub, subs
from .compact_polytope import Region

__all__ = ["RegionProblem", "prove_on_region", "subs_monomial", "u_rows", "MAX_NODES"]

Ext = Optional[Fraction]  # None: -∞ (a lower end, or both ends of a point at infinity)
#: faces visited per call before it gives up (each is a smaller problem of the same kind)
MAX_NODES = 4000
ROUNDS = 3
#: a coordinate's u-interval is not bisected below this width
SMALLEST = Fraction(1, 2**20)
MAX_SPLITS = 24
#: derivative signs proved by the search itself, nested at most this deep
MAX_LEVEL = 2


@dataclass
class RegionProblem:
    """``R`` on ``S``: ``ivs[c]`` the ``u``-interval of coordinate ``c`` (``(None, None)``: at ``-∞``),
    ``rows`` the constraints ``(b_0, (b_c …))`` meaning ``b_0 + Σ b_c u_c >= 0``, ``gens[c]`` the
    generator of coordinate ``c``, ``gone`` the coordinates substituted away, ``pinned`` those at a
    point that is not a power of ``T`` (their generator stays in ``R`` with a point interval)."""

    R: Frac
    ivs: list[list[Ext]]
    rows: list[tuple[Fraction, tuple[Fraction, ...]]]
    gens: list[int]
    gone: frozenset = frozenset()
    pinned: frozenset = frozenset()
    splits: int = 0  # bisections on the way here (at most MAX_SPLITS)


def u_rows(rows: list, order: list[int], factors: list[Fraction]) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Rows over log-variables (``(c_0, (c_v …), side)``, :func:`.compact_regions.linear_constraints`;
    log-variable ``v`` is coordinate ``order[v]``) as rows over the coordinates' ``u_c = f_c · v``."""
    out = []
    for c0, cs, _ in rows:
        b = [Fraction(0)] * len(factors)
        for v, x in enumerate(cs):
            if x:
                b[order[v]] += x / factors[order[v]]
        out.append((Fraction(c0), tuple(b)))
    return out


def subs_monomial(a: Frac, space: Space, i: int, exps: dict[int, int]) -> Frac | None:
    """``a`` at ``x_i = Π x_g^{e_g}`` (``exps``: generator -> integer exponent, ``T`` included), reduced;
    None when the denominator vanishes there."""
    mono = _monomial(space, exps)

    def poly(p: Any) -> tuple[Any, int]:
        out = space.ctx.from_dict({})
        top = 0
        for e, c in p.to_dict().items():
            top = max(top, int(e[i]))
        up, down = mono.num, mono.den
        for e, c in p.to_dict().items():
            k = int(e[i])
            rest = list(e)
            rest[i] = 0
            term = space.ctx.from_dict({tuple(rest): c})
            out += term * up ** k * down ** (top - k)
        return out, top
    n, tn = poly(a.num)
    d, td = poly(a.den)
    if d.is_zero():
        return None
    # value = n / down^tn  ÷  d / down^td
    out = _reduce(n, d)
    shift = td - tn
    if shift:
        out = mul(out, Frac(mono.den ** shift, space.ctx.constant(1)) if shift > 0
                  else Frac(space.ctx.constant(1), mono.den ** (-shift)))
    return out


def prove_on_region(p: RegionProblem, space: Space, target: Frac, et: Iv, deadline: float | None,
                    cache: dict, budget: list[int] | None = None, level: int = 0, tops: list | None = None) -> bool:
    """Whether ``R <= target`` on the region's closure (module docstring); False: not shown (no claim).
    ``level`` counts the derivative signs being proved by this same search (:func:`_exact_sign`);
    ``tops`` collects the exact constants met at the faces (candidates for the level: a run at one
    of them proves it or fails, so a candidate outside the region's closure costs a run, never a
    wrong bound)."""
    budget = [MAX_NODES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        return False
    check_deadline(deadline)
    # coordinates at a point: substituted (or pinned) first
    for c, (lo, hi) in enumerate(p.ivs):
        if c in p.gone or c in p.pinned or lo != hi:
            continue
        q = _at_end(p, space, c, lo)
        if q is None:
            return False
        if q == "empty":
            return True
        p = q
    ivs = _tighten(p.ivs, p.rows, p.gone | p.pinned)
    if ivs is None:
        return True  # no point of the box is in the region
    p = RegionProblem(p.R, ivs, p.rows, p.gens, p.gone, p.pinned, p.splits)
    depends = free(p.R, space)
    loose = [c for c in range(len(ivs)) if c not in p.gone and c not in p.pinned and p.gens[c] in depends]
    if not loose and not any(p.gens[c] in depends for c in p.pinned):
        if const_sign(sub(p.R, target), space) not in (-1, 0):
            return False
        if tops is not None:
            tops.append(p.R)
        return True
    env = _env(p, space)
    region = Region(p.ivs, p.rows, {p.gens[c]: (c, Fraction(1)) for c in range(len(ivs))}, space.t, space.lcd)
    moves = []
    memo: dict = {}  # box signs on this node's env: the region pass does not enclose them again
    # the box's enclosures first for every coordinate (cheap), then the region's (greedy duals)
    for reg in (None, region):
        for c in loose:
            sign = derivative_sign(p.R, space, p.gens[c], env, cache, reg, memo)
            if sign:
                moves = [(c, sign)]
                break
        if moves:
            break
    if not moves:
        # R linear-fractional in x_c, its denominator of one sign: monotone on every segment, either way
        fractional = [c for c in loose if _degree(p.R.num, p.gens[c]) <= 1 and _degree(p.R.den, p.gens[c]) <= 1
                      and _sign(p.R.den, env, region, strict=True, memo=memo)]
        if fractional:
            c = min(fractional, key=lambda c: sum(1 for _, b in p.rows if b[c]))
            moves = [(c, 1), (c, -1)]
    if not moves and level < MAX_LEVEL:
        for c in loose:
            sign = _exact_sign(p, space, c, env, region, deadline, cache, budget, level, memo)
            if sign:
                moves = [(c, sign)]
                break
    if moves:
        c = moves[0][0]
        faces = [("end", ivs[c][1] if sign > 0 else ivs[c][0]) for _, sign in moves]
        # a row in u_c alone is a bound the tightened box end already is
        faces += [("row", k) for k, (_, b) in enumerate(p.rows) if b[c] and any((b[c] < 0) == (sign > 0) for _, sign in moves)
                  and any(x for d, x in enumerate(b) if d != c)]
        for kind, what in faces:
            q = _at_end(p, space, c, what) if kind == "end" else _at_row(p, space, c, what)
            if q is None:
                return False
            if q == "empty":
                continue
            if not prove_on_region(q, space, target, et, deadline, cache, budget, level, tops):
                return False
        return True
    v = divide(enclose_tight(p.R.num, env), enclose_tight(p.R.den, env))
    if v is not None and v.b <= et.a:
        return True
    up = region.ratio_upper(p.R.num, p.R.den)
    if up is not None and up <= et.a:
        return True
    # no monotone coordinate and a loose enclosure: bisect the coordinate whose generator's interval is
    # widest (the enclosures are in the generators: a gap already beyond -10^10 is x ∈ [0, e^-10^10], a point
    # in effect; measured in u every interval reaching -∞ was "widest" and the first of them was halved
    # towards -∞ until MAX_SPLITS, PF at n = 5). Any choice is sound: it only decides what is split
    if not loose or p.splits >= MAX_SPLITS:
        return False
    c = max(loose, key=lambda c: _x_width(*ivs[c]))
    lo, hi = ivs[c]
    if lo is not None and hi - lo < SMALLEST:
        return False
    mid = hi - max(Fraction(1), 2 * abs(hi)) if lo is None else (lo + hi) / 2
    for part in ([lo, mid], [mid, hi]):
        q = [list(x) for x in ivs]
        q[c] = part
        if not prove_on_region(RegionProblem(p.R, q, p.rows, p.gens, p.gone, p.pinned, p.splits + 1), space, target, et,
                               deadline, cache, budget, level, tops):
            return False
    return True


def _exact_sign(p: RegionProblem, space: Space, c: int, env: list[Iv], region: Region, deadline: float | None,
                cache: dict, budget: list[int], level: int, memo: dict | None = None) -> int:
    """+1 / -1 when ``∂R/∂x_c >= 0`` / ``<= 0`` on the region (each segment along ``c`` stays in it), proved by this
    same search on the polynomial ``N_x D - N D_x`` (its sign is the derivative's where ``D`` has one
    strict sign) against the target 0: its own monotone coordinates, region faces and exact constants
    decide a sign that is 0 on a face (PF: ``3(w - 1)(w - T)`` at ``w = 1``), which enclosures straddle."""
    import flint

    g = p.gens[c]
    sd = _sign(p.R.den, env, region, strict=True, memo=memo)
    if not sd:
        return 0
    nx, dx = p.R.num.derivative(g), p.R.den.derivative(g)
    # ∂(N/D)/∂x = (N_x D - N D_x) / D²: the sign of N_x D - N D_x; with D_x = 0 it is N_x / D: sign(D)·sign(N_x)
    both = nx * p.R.den - p.R.num * dx if not dx.is_zero() else sd * nx
    if both.is_zero():
        return 1
    one = space.ctx.constant(1)
    zero = Frac(space.ctx.from_dict({}), one)
    seen = {(v > 0) - (v < 0) for v in (_float_value(both, space, x) for x in _samples(p, space))}
    if {1, -1} <= seen:
        return 0  # the derivative takes both signs at points of the region: not monotone
    for sign in ((-1,) if -1 in seen else (1,) if 1 in seen else (1, -1)):
        # sign·both >= 0  <=>  -sign·both <= 0
        q = RegionProblem(Frac(-sign * both, one), p.ivs, p.rows, p.gens, p.gone, p.pinned, p.splits)
        if prove_on_region(q, space, zero, Iv(flint.arb(0), flint.arb(0)), deadline, cache, budget, level + 1):
            return sign
    return 0


def _samples(p: RegionProblem, space: Space, count: int = 24) -> list[dict[int, float]]:
    """Float points of the region (generator -> value), for choosing which sign to try to prove
    (a choice only: a wrong guess costs time, never soundness); deterministic."""
    import random

    rng = random.Random(len(p.rows) * 31 + len(p.gone))
    out = []
    free_c = [c for c in range(len(p.ivs)) if c not in p.gone]
    for _ in range(count * 4):
        u = {}
        for c in free_c:
            lo, hi = p.ivs[c]
            if hi is None:
                break
            a = float(hi) - 6.0 if lo is None else float(lo)
            u[c] = a + (float(hi) - a) * rng.choice((0.0, 0.5, 1.0, rng.random()))
        else:
            if all(float(b0) + sum(float(x) * u.get(d, 0.0) for d, x in enumerate(b) if x) >= -1e-12 for b0, b in p.rows):
                out.append({p.gens[c]: math.exp(u[c]) for c in free_c})
                if len(out) >= count:
                    break
    return out


def _float_value(poly: Any, space: Space, x: dict[int, float]) -> float:
    """The sign-carrying float value scaled by its largest term (logs: a power of ``T`` in the
    thousands does not overflow), or 0.0 when it is within rounding of 0 (no sign read from it)."""
    terms = []
    for e, c in poly.to_dict().items():
        lt = math.log(abs(float(c))) + int(e[space.t]) / space.lcd
        for g, k in enumerate(e[:space.t]):
            if k:
                v = x.get(g, 0.0)
                if v <= 0.0:
                    lt = -math.inf
                    break
                lt += int(k) * math.log(v)
        terms.append((1.0 if c > 0 else -1.0, lt))
    top = max((lt for _, lt in terms), default=-math.inf)
    if top == -math.inf:
        return 0.0
    parts = [s * math.exp(lt - top) for s, lt in terms]
    total, size = math.fsum(parts), math.fsum(abs(v) for v in parts)
    return 0.0 if abs(total) <= 1e-9 * size else total


def _x_width(lo: Ext, hi: Ext) -> float:
    """The width of ``[e^lo, e^hi]`` (``lo`` None: ``[0, e^hi]``) in floats: a choice of what to split only."""
    assert hi is not None
    top = math.exp(min(float(hi), 50.0))
    return top - (0.0 if lo is None else math.exp(min(float(lo), 50.0)))


def _degree(poly: Any, g: int) -> int:
    return 0 if poly.is_zero() else int(poly.degrees()[g])


def _env(p: RegionProblem, space: Space) -> list[Iv]:
    env = [Iv(0.0, 0.0)] * (space.t + 1)
    env[space.t] = exp_interval(Fraction(1, space.lcd))
    for c, (lo, hi) in enumerate(p.ivs):
        if c in p.gone:
            continue
        env[p.gens[c]] = Iv(0.0 if lo is None else exp_interval(lo).a, 0.0 if hi is None else exp_interval(hi).b)
    return env


def _at_end(p: RegionProblem, space: Space, c: int, value: Ext) -> RegionProblem | str | None:
    """The face ``u_c = value`` (None: ``-∞``, ``x_c = 0``); "empty" when the closure has no point there."""
    ivs = [list(x) for x in p.ivs]
    rows = []
    forced = []
    for b0, b in p.rows:
        if not b[c]:
            rows.append((b0, b))
            continue
        if value is not None:
            rows.append((b0 + b[c] * value, tuple(x if d != c else Fraction(0) for d, x in enumerate(b))))
        elif b[c] > 0:
            # b_c u_c -> -∞: only a coordinate with b_d < 0 that reaches -∞ can keep the row
            down = [d for d, x in enumerate(b) if x < 0 and d not in p.gone and ivs[d][0] is None]
            if not down:
                return "empty"
            if len(down) == 1:
                forced.append(down[0])
        # b_c < 0 at -∞: the row holds; several candidates: dropped (a superset)
    ivs[c] = [value, value]
    gone, pinned = set(p.gone), set(p.pinned)
    if value is None:
        R = subs(p.R, space, p.gens[c], None)
        gone.add(c)
    else:
        k = value * space.lcd
        if k.denominator == 1:
            R = subs(p.R, space, p.gens[c], int(k))
            gone.add(c)
        else:
            R, _ = p.R, pinned.add(c)
    if R is None:
        return None
    out = RegionProblem(R, ivs, rows, p.gens, frozenset(gone), frozenset(pinned), p.splits)
    for d in forced:
        if d in out.gone:
            continue
        nxt = _at_end(out, space, d, None)
        if nxt is None or nxt == "empty":
            return nxt
        out = nxt
    return out


def _at_row(p: RegionProblem, space: Space, c: int, k: int) -> RegionProblem | str | None:
    """The face where row ``k`` is tight, ``u_c`` substituted (module docstring)."""
    b0, b = p.rows[k]
    bc = b[c]
    if any(b[d] for d in p.pinned):
        return None
    t_exp = -b0 * space.lcd / bc
    exps = {space.t: t_exp}
    for d, x in enumerate(b):
        if d != c and x:
            if d in p.gone:
                return None
            exps[p.gens[d]] = -x / bc
    if any(e.denominator != 1 for e in exps.values()):
        return None
    R = subs_monomial(p.R, space, p.gens[c], {g: int(e) for g, e in exps.items() if e})
    if R is None:
        return None
    # u_c = -(b0 + Σ b_d u_d)/bc: every other row plus a multiple of row k, and c's box ends as rows
    rows = []
    for j, (a0, a) in enumerate(p.rows):
        if j == k:
            continue
        if not a[c]:
            rows.append((a0, a))
            continue
        lam = -a[c] / bc
        rows.append((a0 + lam * b0, tuple(x + lam * y if d != c else Fraction(0) for d, (x, y) in enumerate(zip(a, b)))))
    lo, hi = p.ivs[c]
    zero_c = tuple(-y / bc if d != c else Fraction(0) for d, y in enumerate(b))
    if hi is not None:  # hi - u_c >= 0
        rows.append((hi + b0 / bc, tuple(-x for x in zero_c)))
    if lo is not None:  # u_c - lo >= 0
        rows.append((-lo - b0 / bc, zero_c))
    ivs = [list(x) for x in p.ivs]
    return RegionProblem(R, ivs, rows, p.gens, p.gone | {c}, p.pinned, p.splits)


def _tighten(ivs: list[list[Ext]], rows: list, gone: frozenset) -> list[list[Ext]] | None:
    """The ``u``-intervals narrowed by the rows (HC4 revise on linear rows, as
    :func:`.compact_regions.narrow`); None when a row cannot hold on the box. Upper ends are finite."""
    out = [list(x) for x in ivs]
    for _ in range(ROUNDS):
        changed = False
        for b0, b in rows:
            sups: list[Ext] = []
            for d, x in enumerate(b):
                if not x or d in gone:
                    sups.append(Fraction(0))
                    continue
                lo, hi = out[d]
                end = hi if x > 0 else lo
                sups.append(None if end is None else x * end)
            missing = sum(1 for s in sups if s is None)
            total = b0 + sum((s for s in sups if s is not None), Fraction(0))
            if missing == 0 and total < 0:
                return None
            if missing > 1:
                continue
            for d, x in enumerate(b):
                if not x or d in gone:
                    continue
                if sups[d] is None:
                    rest = total
                elif missing:
                    continue
                else:
                    rest = total - sups[d]
                bound = -rest / x
                lo, hi = out[d]
                if x > 0 and (lo is None or bound > lo):
                    if lo is None and hi is None:
                        return None  # a point at -∞ cannot be bounded below
                    out[d][0], changed = bound, True
                elif x < 0 and (hi is None or bound < hi):
                    out[d][1], changed = bound, True
                lo, hi = out[d]
                if lo is not None and hi is not None and lo > hi:
                    return None
        if not changed:
            break
    return out
