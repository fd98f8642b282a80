"""A law's symmetry in its candidates, proved from its own branch paths over every real score vector.

The compact branch-and-bound (:mod:`.compact_bnb`) bounds one root per output ``r`` and chart ``m`` (``q_m``
a largest score): n² roots per half-line and offset family. When the law is symmetric,

    P(x)_i = P(q)_{perm[i]}   with   x = (q_{perm[0]}, ..., q_{perm[n-1]}),   for every q ∈ ℝⁿ, i, perm,

and the offset box is the same in every coordinate, root ``(r, m)`` and root ``(π r, π m)`` bound the same
supremum (a neighbour pair and its permuted copy have the same log-ratio at the permuted output), so the
roots ``(0, 0)`` and ``(1, 0)`` cover all of them. A declaration is not enough (a false one would let the
proof skip the roots where the law breaks), so it is shown here:

* for ``perm`` in the generators of the symmetric group, the transposition ``(0 1)`` and the cycle
  ``(0 1 … n-1)``, and for every chart ``m`` (the charts cover ℝⁿ), the law is run symbolically at ``q`` and at
  its permutation (:func:`.compact_paths.run_permuted`: every consistent branch path, as closed forms);
* every pair of paths (one of each run) whose comparison outcomes can hold together (no constraint allowed
  with disjoint signs in the two) must give the same probabilities, output ``i`` of the permuted run against
  output ``perm[i]`` of the other, as exact rational functions (:mod:`.compact_fractions`: reduced by their
  gcd, so equal functions have equal numerators and denominators) after the pair's equalities (``G_a = 0``:
  a tie) are substituted — equal on the pair's common region, which is all that is needed.

Any step it cannot take (an equality it cannot solve, an exponent that is not a multiple of the unit, the
budget) answers False: no symmetry is used and every root is visited. Invariance under the generators at
every point gives invariance under the whole group.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Any

from ...protocols import AnyMechanism
from .compact_budget import OutOfBudget, TooLarge, check_deadline
from .compact_faces import generator_names
from .compact_fractions import Space, from_sympy, sub
from .compact_paths import Path, Unsupported, affine, ext_interval, possible_signs, run_permuted

__all__ = ["symmetric_law", "generators", "paths_agree", "solve_equalities", "region_empty"]


def generators(n: int) -> list[list[int]]:
    """The transposition (0 1) and the cycle (0 1 … n-1), as ``perm`` lists (module docstring)."""
    swap = [1, 0, *range(2, n)]
    cycle = [*range(1, n), 0]
    return [swap] if swap == cycle else [swap, cycle]


def symmetric_law(mechanism: AnyMechanism, n: int, deadline: float | None = None) -> bool:
    """Whether the law is symmetric in its candidates over every real score vector (module docstring)."""
    try:
        for m in range(n):
            base, logvars, algvars = run_permuted(mechanism, n, m, list(range(n)), deadline)
            for perm in generators(n):
                other, _, _ = run_permuted(mechanism, n, m, perm, deadline)
                for a in base:
                    for b in other:
                        check_deadline(deadline)
                        if not paths_agree(a, b, perm, logvars, algvars, n):
                            return False
    except (Unsupported, OutOfBudget, TooLarge, ZeroDivisionError, ValueError):
        return False
    return True


def solve_equalities(constraints: Any, logvars: dict) -> dict[Any, Any] | None:
    """The equalities among ``constraints`` (``(d, {0})``), solved one variable at a time (a gap before L):
    ``{variable: affine expression}``; ``{"empty": True}`` when one no point satisfies; None when one is not
    affine (nothing can be said)."""
    import sympy

    names = list(logvars.values())
    solved: dict[Any, Any] = {}
    for d, allowed in constraints:
        if allowed != frozenset({0}):
            continue
        e = sympy.expand(sympy.sympify(d).xreplace(solved))
        aff = affine(e, names)
        if aff is None:
            return None
        c0, cs = aff
        pick = next((v for v, c in zip(names, cs) if c != 0 and v != logvars["L"]), None)
        if pick is None:
            pick = next((v for v, c in zip(names, cs) if c != 0), None)
        if pick is None:
            if c0 != 0:
                return {"empty": True}  # an equality no point satisfies
            continue
        c = dict(zip(names, cs))[pick]
        value = sympy.expand(pick - e / c)
        solved = {v: sympy.expand(x.xreplace({pick: value})) for v, x in solved.items()}
        solved[pick] = value
    return solved


def region_empty(constraints: Any, solved: dict, logvars: dict) -> bool:
    """Whether interval arithmetic shows that no point of the chart (``G_a <= 0``) satisfies ``constraints``
    once the equalities ``solved`` are substituted (True is a proof; False says nothing)."""
    import sympy

    names = list(logvars.values())
    inf = float("inf")
    box = {v: ext_interval(-inf, 0 if str(v).startswith("G") else inf) for v in names}
    for d, allowed in constraints:
        e = sympy.expand(sympy.sympify(d).xreplace(solved))
        if not (allowed & possible_signs(e, names, box)):
            return True
    return False


def paths_agree(a: Path, b: Path, perm: list[int], logvars: dict, algvars: dict, n: int) -> bool:
    """Whether paths ``a`` (at q) and ``b`` (at the permuted q, or another law's path on the same chart) give
    the same law where both are taken: output ``perm[i]`` of ``a`` against output ``i`` of ``b``, as exact
    rational functions after the pair's equalities are substituted (module docstring)."""
    import sympy

    ca, cb = dict(a.constraints), dict(b.constraints)
    if any(not (ca[d] & cb[d]) for d in ca.keys() & cb.keys()):
        return True  # no point takes both paths
    names = list(logvars.values())
    alg = {logvars[k]: algvars[k] for k in logvars}
    both = [*a.constraints, *b.constraints]
    solved = solve_equalities(both, logvars)
    if solved is None:
        return False
    # an equality no point satisfies, or another outcome no point of the chart (G_a <= 0) allows once the
    # equalities are substituted: no point takes both paths
    if solved.get("empty") or region_empty(both, solved, logvars):
        return True
    algsub = {}
    for v, x in solved.items():
        aff = affine(x, names)
        if aff is None:
            return False
        c0, cs = aff
        out = sympy.exp(c0)
        for u, cu in zip(names, cs):
            if cu != 0:
                out = out * alg[u] ** cu
        algsub[alg[v]] = out
    pairs = [(sympy.sympify(a.values[perm[i]]).xreplace(algsub), sympy.sympify(b.values[i]).xreplace(algsub))
             for i in range(n)]
    space, symbols = _space([x for p in pairs for x in p], algvars)
    cache: dict = {}
    return all(sub(from_sympy(x, space, symbols, cache), from_sympy(y, space, symbols, cache)).is_zero()
               for x, y in pairs)


def _space(exprs: list[Any], algvars: dict) -> tuple[Space, dict]:
    """The generators' space of these closed forms: ``T = e^{1/lcd}`` for their constants, and each algebraic
    variable with the unit ``1/D``, D the common denominator of its exponents."""
    import sympy

    dens, exps = [1], [1]
    for e in exprs:
        for x in e.atoms(sympy.exp):
            if x.args[0].is_Rational:
                dens.append(int(x.args[0].q))
        for x in e.atoms(sympy.Pow):
            if x.base.is_Symbol and x.exp.is_Rational:
                exps.append(int(x.exp.q))
    unit = Fraction(1, lcm(*exps))
    labels = {"L": "Lam"}
    names = generator_names(len([k for k in algvars if k.startswith("Z")]))
    space = Space(names, lcm(*dens))
    symbols = {}
    for k, s in algvars.items():
        label = labels.get(k, ("W" if k.startswith("G") else "Y") + k[1:])
        symbols[s] = (space.index(label), unit, 1)
    return space, symbols
