"""A polynomial's range on a pair of paths' region through its *atoms*: Bernstein bounds, not term by term.

The laws of the compact branch-and-bound are polynomials in a few products of the generators, not in
the generators themselves: PF's probability on the neighbour's path where candidate ``m`` has the largest
score is ``Σ_S c_S Π_{a ∈ S} (1 - p'_a)`` with ``p'_a = W_a Y_a / Y_m ∈ [0, 1]`` on the region. Expanded
in the generators it has terms of both signs, and a term-by-term enclosure (:mod:`.compact_polytope`)
ranges every monomial independently and straddles 0; in the ``p'_a`` it is multi-affine with its range
at the vertices of ``[0, 1]³``, where every value is a positive sum.

So a polynomial ``p`` (non-``T`` exponents ``e_k``) is written, for a reference term ``m``, as
``p / x^{e_m} = Σ_k c_k Π_i a_i^{n_{ki}}`` with *atoms* ``a_i = x^{α_i}`` (Laurent monomials, linearly
independent exponents ``α_i``) and non-negative integers ``n_{ki}`` with ``e_k - e_m = Σ_i n_{ki} α_i``
(found: the differences that are not a sum of two others, :func:`atoms_of`). The identity is exact for
every point with positive generators. Each atom ranges over the region's bound of its monomial
(:meth:`.compact_polytope.Region.monomial_range`, weak LP duality: a superset of the atom's values),
the atoms independently over that box (a superset again), and the polynomial's range over the box is
enclosed by its Bernstein coefficients (Garloff 1986; Zettler & Garloff 1998, the tensor form): each
axis's monomial coefficients on ``[lo, hi]`` mapped to Bernstein coefficients, whose minimum and maximum
bound the polynomial on the box. For a multi-affine polynomial these are its values at the box's
vertices, so its range on the atom box is exact. ``x^{e_m} > 0`` at every point with positive
generators, so ``p`` has the sign of the enclosure there, and on the closure by continuity.

Every step is a bound (a superset of the values), so a sign read from it is a proof; the choice of the
reference and the atoms affects only the width. Arithmetic is arb (balls, exact rational inputs, atom
ends rounded outward).
"""

from __future__ import annotations

from math import comb
from typing import Any

__all__ = ["MAX_CELLS", "atoms_of", "bernstein_range"]

#: Bernstein coefficients (Π (degree + 1) over the atoms) above which the range is not attempted
MAX_CELLS = 20000
#: polynomials above this many terms are not decomposed (the pair test is quadratic)
MAX_TERMS = 400
#: reference terms tried per polynomial
REFERENCES = 6

_ATOMS: dict = {}


def atoms_of(exps: list[tuple[int, ...]]) -> list[tuple[int, list[tuple[int, ...]], list[tuple[int, ...]]]]:
    """Every ``(reference index, atoms α_i, multi-indices n_k)`` found for the exponent vectors
    ``exps`` (the non-``T`` parts of a polynomial's terms, distinct): each reference tried (at most
    :data:`REFERENCES`) whose differences are non-negative integer combinations of linearly
    independent atoms (cached; the caller keeps the first whose atoms are bounded on its region)."""
    key = tuple(exps)
    if key in _ATOMS:
        return _ATOMS[key]
    out = []
    if 1 < len(exps) <= MAX_TERMS:
        for k in range(len(exps)):
            dec = _decompose(exps, k)
            if dec is not None:
                out.append(dec)
                if len(out) >= REFERENCES:
                    break
    if len(_ATOMS) > 20000:
        _ATOMS.clear()
    _ATOMS[key] = out
    return out


def _decompose(exps: list[tuple[int, ...]], k: int) -> tuple[int, list[tuple[int, ...]], list[tuple[int, ...]]] | None:
    import flint

    m = exps[k]
    diffs = [tuple(x - y for x, y in zip(e, m)) for e in exps]
    nonzero = [d for d in diffs if any(d)]
    present = set(nonzero)
    atoms = []
    for d in nonzero:
        # an atom is a difference that is not the sum of two others
        if not any(tuple(x - y for x, y in zip(d, d1)) in present for d1 in nonzero if d1 != d):
            atoms.append(d)
    if not atoms:
        return None
    a = flint.fmpq_mat(len(atoms), len(m), [x for d in atoms for x in d])
    if a.rank() < len(atoms):
        return None
    # n·A = d: solve through the normal equations (A Aᵀ invertible for independent rows), then check
    gram = a * a.transpose()
    inv = gram.inv()
    multi = []
    for d in diffs:
        if not any(d):
            multi.append((0,) * len(atoms))
            continue
        row = flint.fmpq_mat(1, len(m), list(d))
        n = row * a.transpose() * inv
        ns = [n[0, i] for i in range(len(atoms))]
        if any(x < 0 or x.q != 1 for x in ns):
            return None
        back = [sum((int(ns[i].p) * atoms[i][j] for i in range(len(atoms))), 0) for j in range(len(m))]
        if tuple(back) != d:
            return None  # d is not in the atoms' span
        multi.append(tuple(int(x.p) for x in ns))
    return k, atoms, multi


def bernstein_range(coeffs: dict[tuple[int, ...], Any], box: list[tuple[Any, Any]]) -> tuple[Any, Any] | None:
    """``(lower, upper)`` (exact arb ends) of ``Σ c_n Π a_i^{n_i}`` (``coeffs``: multi-index -> arb)
    for ``a_i`` in ``box[i]`` (finite arb ends, ``lo <= hi``): the least and largest Bernstein
    coefficient of the polynomial on the box; None when the tensor has more than :data:`MAX_CELLS`
    cells."""
    import flint

    dims = len(box)
    deg = [max((n[i] for n in coeffs), default=0) for i in range(dims)]
    cells = 1
    for d in deg:
        cells *= d + 1
    if cells > MAX_CELLS:
        return None
    grid = dict(coeffs)
    zero = flint.arb(0)
    for i in range(dims):
        d = deg[i]
        if d == 0:
            continue
        lo, hi = box[i]
        w = hi - lo
        lo_pow = [flint.arb(1)]
        w_pow = [flint.arb(1)]
        for _ in range(d):
            lo_pow.append(lo_pow[-1] * lo)
            w_pow.append(w_pow[-1] * w)
        fibres: dict[tuple, list] = {}
        for n, c in grid.items():
            rest = n[:i] + (0,) + n[i + 1:]
            fibres.setdefault(rest, [zero] * (d + 1))[n[i]] = c
        out = {}
        for rest, c in fibres.items():
            # a = lo + w·t: the coefficients in t, then the Bernstein coefficients on t ∈ [0, 1]
            ct = [sum((comb(k, j) * lo_pow[k - j] * c[k] for k in range(j, d + 1)), zero) * w_pow[j] for j in range(d + 1)]
            for k in range(d + 1):
                b = sum((ct[j] * comb(k, j) / comb(d, j) for j in range(k + 1)), zero)
                out[rest[:i] + (k,) + rest[i + 1:]] = b
        grid = out
    vals = list(grid.values())
    if not vals:
        return zero, zero
    if len(vals) < cells:
        vals.append(zero)  # a cell never written is a zero coefficient
    low = min(v.lower() for v in vals)
    high = max(v.upper() for v in vals)
    return flint.arb(low), flint.arb(high)
