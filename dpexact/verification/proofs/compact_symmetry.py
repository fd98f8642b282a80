"""A proved permutation symmetry of a ``define_mechanism`` law: the compact search's roots cut to two orbits.

The compact branch-and-bound (:mod:`.compact_bnb`) has one root per output ``r`` and chart ``m`` (``q_m``
a largest score): n² of them. If the law *commutes with permutations* — for every permutation ``π`` of
the candidates and every real score vector ``q``,

    P(π·q)_b = P(q)_{π(b)},   where (π·q)_b = q_{π(b)},                                   (E)

— then the log-ratio at ``(π·q, π·q', b)`` is the one at ``(q, q', π(b))``; ``π·q`` lies in chart
``π⁻¹(m)`` when ``q`` lies in chart ``m``, and a neighbourhood whose offset box is the same in every
coordinate (ℓ∞ with one Δ, monotone) maps neighbours to neighbours. So the supremum over root
``(r, m)`` equals the one over ``(π⁻¹(r), π⁻¹(m))``: the roots fall into two orbits, ``r = m`` and
``r != m``, and one representative of each bounds them all (at n = 4: 2 roots of 16).

(E) is never taken from a declaration: it is *proved* here over every real score vector, for the
transposition (0 1) and the cycle (0 1 … n-1), which generate the symmetric group (if (E) holds for
σ and ρ it holds for ρ∘σ: ``P(σ·(ρ·q))_b = P(ρ·q)_{σ(b)} = P(q)_{ρ(σ(b))}`` and ``σ·(ρ·q) = (ρ∘σ)·q``).

**The proof.** On each chart (log-variables ``L = q_m``, gaps ``G_a <= 0``, as in
:mod:`.compact_paths`) the law is run symbolically on ``q`` and on ``π·q`` *with one path oracle*, so
every comparison of either run is one constraint of one combined path and every point of the chart
takes one enumerated combined path. On each path, the two sides of (E) are exact rational functions
(:mod:`.compact_fractions`) after the path's equalities (``d = 0``, ties) are eliminated exactly (a
pivot log-variable written through the others, its generator substituted as a monomial); (E) holds on
the path when their difference is the zero rational function, or when the path's constraints have no
real solution (Fourier–Motzkin elimination with strictness, exact rationals). Any other outcome — a
difference that is not zero on a feasible path, a law that raises, an irrational constant, a bound
exceeded — leaves (E) unproved, and the search keeps every root.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ...protocols import AnyMechanism

__all__ = ["feasible", "generators", "orbit_representatives", "proved_symmetric"]

#: combined paths per chart and permutation before the proof gives up
MAX_PATHS = 2048
#: inequalities Fourier–Motzkin may hold at once before it gives up (treated as feasible: no proof)
MAX_ROWS = 400

Row = tuple[Fraction, tuple[Fraction, ...], bool]  # c0 + c·v >= 0 (strict: > 0)


def generators(n: int) -> list[tuple[int, ...]]:
    """The transposition (0 1) and the cycle (0 1 … n-1), as maps ``b -> π(b)``: they generate S_n."""
    swap = tuple([1, 0] + list(range(2, n)))
    cycle = tuple((b + 1) % n for b in range(n))
    return [swap] if n == 2 else [swap, cycle]


def orbit_representatives(n: int) -> set[tuple[int, int]]:
    """The roots ``(r, m)`` kept under a proved symmetry: ``(0, 0)`` (``r = m``) and ``(1, 0)`` (``r != m``)."""
    return {(0, 0), (1, 0)} if n >= 2 else {(0, 0)}


def proved_symmetric(mechanism: AnyMechanism, n: int, deadline: float | None = None) -> bool:
    """Whether (E) (module docstring) is proved for every permutation and every real score vector of
    length ``n`` by ``deadline`` (CPU time); False when any step cannot show it (never an error)."""
    from .compact_budget import OutOfBudget, TooLarge
    from .compact_paths import Unsupported

    if n < 2:
        return False
    try:
        return all(_chart_holds(mechanism, n, m, pi, deadline) for pi in generators(n) for m in range(n))
    except (Unsupported, TooLarge, ZeroDivisionError, OutOfBudget):
        return False  # not shown in time: the search keeps every root (and meets its own deadline itself)


def _chart_holds(mechanism: AnyMechanism, n: int, m: int, pi: tuple[int, ...], deadline: float | None) -> bool:
    import sympy

    from ...mechanisms.defined import BackendOperations
    from .compact_budget import check_deadline
    from .compact_paths import (
        SymbolicBackend,
        Unsupported,
        _Fork,
        _Oracle,
        _sym,
        _unit,
        ext_interval,
    )

    logvars: dict[str, Any] = {"L": sympy.Symbol("L", real=True)}
    algvars: dict[str, Any] = {"L": sympy.Symbol("Lam", positive=True)}
    for a in range(n):
        if a != m:
            logvars[f"G{a}"] = sympy.Symbol(f"G{a}", real=True)
            algvars[f"G{a}"] = sympy.Symbol(f"W{a}", nonnegative=True)
    inf = float("inf")
    root = {logvars["L"]: ext_interval(-inf, inf)}
    root.update({logvars[f"G{a}"]: ext_interval(-inf, 0) for a in range(n) if a != m})
    names = list(logvars.values())
    q = [logvars["L"] + (logvars[f"G{a}"] if a != m else 0) for a in range(n)]
    q_pi = [q[pi[b]] for b in range(n)]
    coefficients: dict[Any, set[Fraction]] = {}
    namespace = mechanism._namespace(lambda v: v.to_sympy())
    todo: list[tuple[int, ...]] = [()]
    paths = []
    while todo:
        check_deadline(deadline)
        prefix = todo.pop()
        oracle = _Oracle(prefix, names, root)
        ops = BackendOperations(SymbolicBackend(oracle, logvars, algvars, coefficients))
        try:
            v1 = [_sym(v) for v in mechanism.pmf_function(list(q), namespace, ops)]
            v2 = [_sym(v) for v in mechanism.pmf_function(list(q_pi), namespace, ops)]
        except _Fork as f:
            todo.extend(tuple(oracle.trace) + (o,) for o in f.outcomes)
            if len(paths) + len(todo) > MAX_PATHS:
                return False
            continue
        except Unsupported:
            return False
        except Exception:  # noqa: BLE001 - the law raised on a path: (E) not shown, the search keeps every root
            return False
        if len(v1) != n or len(v2) != n:
            return False
        paths.append((tuple(oracle.allowed.items()), v1, v2))
    scales = {k: _unit(coefficients.get(v, set())) for k, v in logvars.items()}
    space, symbols = _space(n, m, algvars, scales, paths)
    from .compact_fractions import from_sympy, sub

    cache: dict = {}
    for constraints, v1, v2 in paths:
        check_deadline(deadline)
        rows, equalities = _rows(constraints, names, m, logvars)
        if rows is None:
            return False  # a constraint that is not affine with rational coefficients
        pivots = _eliminate(equalities, len(names))
        if pivots is None:
            continue  # the equalities have no solution: no point takes this path
        rows = [_substitute_row(r, pivots) for r in rows]
        if not feasible(rows, len(names)):
            continue
        subst = _monomials(pivots, names, logvars, scales, space)
        if subst is None:
            return False
        for b in range(n):
            diff = sub(from_sympy(v2[b], space, symbols, cache), from_sympy(v1[pi[b]], space, symbols, cache))
            for gen, exps in subst:
                if diff.is_zero():
                    break
                diff = _at_monomial(diff, space, gen, exps)
            if not diff.is_zero():
                return False
    return True


def _space(n: int, m: int, algvars: dict[str, Any], scales: dict[str, Fraction], paths: list) -> tuple[Any, dict]:
    """The generators (the chart's algebraic variables, then ``T = e^{1/lcd}``) and the sympy symbol
    map of :func:`.compact_fractions.from_sympy`."""
    import sympy

    from .compact_fractions import Space, lcm_of

    dens = []
    for _, v1, v2 in paths:
        for v in (*v1, *v2):
            for e in sympy.sympify(v).atoms(sympy.exp):
                if e.args[0].is_Rational:
                    dens.append(int(e.args[0].q))
    keys = list(algvars)
    space = Space(tuple(str(algvars[k]) for k in keys), lcm_of(dens))
    symbols = {algvars[k]: (i, scales[k], 1) for i, k in enumerate(keys)}
    return space, symbols


def _rows(constraints: Sequence, names: list, m: int, logvars: dict) -> tuple[list[Row] | None, list]:
    """A path's constraints as rows ``c0 + c·v >= 0`` (strict or not) and equalities ``c0 + c·v = 0``,
    with the chart's ``G_a <= 0``; ``d != 0`` (both strict signs allowed) is dropped (a superset)."""
    from .compact_paths import affine

    rows: list[Row] = []
    eqs = []
    k = len(names)
    for name, v in logvars.items():
        if name.startswith("G"):
            i = names.index(v)
            rows.append((Fraction(0), tuple(Fraction(-1) if j == i else Fraction(0) for j in range(k)), False))
    for d, allowed in constraints:
        if allowed == frozenset({-1, 0, 1}) or allowed == frozenset({-1, 1}):
            continue
        aff = affine(d, names)
        if aff is None or not aff[0].is_Rational or not all(c.is_Rational for c in aff[1]):
            return None, []
        c0 = Fraction(int(aff[0].p), int(aff[0].q))
        cs = tuple(Fraction(int(c.p), int(c.q)) for c in aff[1])
        if allowed == frozenset({0}):
            eqs.append((c0, cs))
        elif allowed <= {0, 1}:
            rows.append((c0, cs, 0 not in allowed))
        else:
            rows.append((-c0, tuple(-c for c in cs), 0 not in allowed))
    return rows, eqs


def _eliminate(eqs: list, k: int) -> dict[int, tuple[Fraction, tuple[Fraction, ...]]] | None:
    """Reduced row echelon form of the equalities: pivot ``v -> (k0, k)`` with ``v = k0 + k·free``
    (no pivot on the right); None when they are inconsistent."""
    pivots: dict[int, tuple[Fraction, tuple[Fraction, ...]]] = {}
    for c0, cs in eqs:
        c0, cs = _apply(c0, cs, pivots)
        nz = [i for i, c in enumerate(cs) if c]
        if not nz:
            if c0 != 0:
                return None
            continue
        p = nz[0]
        # cs[p]·v_p + c0 + Σ_{others} = 0  ->  v_p = -(c0 + Σ)/cs[p]
        val = (-c0 / cs[p], tuple(Fraction(0) if i == p else -c / cs[p] for i, c in enumerate(cs)))
        for key, (a0, a) in list(pivots.items()):
            if a[p]:
                pivots[key] = (a0 + a[p] * val[0], tuple(x + a[p] * y if i != p else Fraction(0)
                                                          for i, (x, y) in enumerate(zip(a, val[1]))))
        pivots[p] = val
    return pivots


def _apply(c0: Fraction, cs: tuple[Fraction, ...], pivots: dict) -> tuple[Fraction, tuple[Fraction, ...]]:
    cs = list(cs)
    for p, (a0, a) in pivots.items():
        if cs[p]:
            f = cs[p]
            c0 += f * a0
            cs = [x + f * y if i != p else Fraction(0) for i, (x, y) in enumerate(zip(cs, a))]
    return c0, tuple(cs)


def _substitute_row(row: Row, pivots: dict) -> Row:
    c0, cs = _apply(row[0], row[1], pivots)
    return c0, cs, row[2]


def feasible(rows: list[Row], k: int) -> bool:
    """Whether ``{v ∈ ℝᵏ : every row}`` may be non-empty (Fourier–Motzkin with strictness, exact);
    True also when the elimination grows beyond :data:`MAX_ROWS` (no emptiness claimed)."""
    rows = [r for r in rows]
    for v in range(k):
        pos = [r for r in rows if r[1][v] > 0]
        neg = [r for r in rows if r[1][v] < 0]
        rest = [r for r in rows if r[1][v] == 0]
        for a0, a, sa in pos:
            for b0, b, sb in neg:
                # a/a_v + b/(-b_v) cancels v; strict when either is
                fa, fb = 1 / a[v], 1 / -b[v]
                rest.append((a0 * fa + b0 * fb, tuple(x * fa + y * fb for x, y in zip(a, b)), sa or sb))
                if len(rest) > MAX_ROWS:
                    return True
        rows = list(set(rest))
    for c0, _, strict in rows:
        if c0 < 0 or (strict and c0 == 0):
            return False
    return True


def _monomials(pivots: dict, names: list, logvars: dict, scales: dict, space: Any) -> list | None:
    """Each pivot's generator as a monomial of the free generators and ``T``: ``A_v = e^{g_v v}`` with
    ``v = k0 + Σ k_d d`` is ``T^{lcd·g_v·k0} Π A_d^{g_v k_d / g_d}`` (None when an exponent is not an
    integer)."""
    key_of = {v: k for k, v in logvars.items()}
    out = []
    for p, (k0, ks) in pivots.items():
        gp = scales[key_of[names[p]]]
        exps = {space.t: gp * k0 * space.lcd}
        for d, x in enumerate(ks):
            if x:
                exps[list(logvars).index(key_of[names[d]])] = gp * x / scales[key_of[names[d]]]
        if any(Fraction(e).denominator != 1 for e in exps.values()):
            return None
        out.append((list(logvars).index(key_of[names[p]]), {g: int(e) for g, e in exps.items() if e}))
    return out


def _at_monomial(a: Any, space: Any, gen: int, exps: dict[int, int]) -> Any:
    from .compact_polyfaces import subs_monomial

    out = subs_monomial(a, space, gen, exps)
    if out is None:
        raise ZeroDivisionError("a zero denominator at a tie")
    return out
