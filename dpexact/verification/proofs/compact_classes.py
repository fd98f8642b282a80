"""The rows every member of a class of branch paths satisfies: one region problem per class.

A class (:func:`.compact_paths.same_ratio_classes`) is a set of paths of one side with the same
probability of the output, so every pair of the class has one ratio ``R``; bounding ``R`` once on a
set containing the *union* of the members' regions bounds every pair at once (a superset is sound,
a subset is not). PF's neighbour paths with the same largest score ``a`` differ in the order their
comparisons were made, but each lies in ``{q'_a >= q'_b for all b}``: that polyhedron is what this
module finds, from the members' own rows.

A candidate row (any member's) is kept only when it is *implied* on every member's region within the
box: ``max(-row) <= 0`` there, bounded by weak LP duality (:meth:`.compact_polytope.Region.upper`,
exact rationals). The bound is an upper bound, so a kept row holds on each member's region (closure
included) — a row it cannot show implied is dropped, which only enlarges the set. The union of
the regions then lies in the kept rows' polyhedron.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

from .compact_polytope import region_of

__all__ = ["class_rows", "covered", "record", "stabiliser"]

#: sums of two rows taken per member, rounds and rows at most (a larger closure only keeps more rows)
CLOSURE_ROUNDS = 4
MAX_CLOSURE = 400


def class_rows(root: Any, box: tuple, members: list[list], order: list[int], scale: Fraction) -> list:
    """Rows (:func:`.compact_regions.linear_constraints` form) that hold on every member's region in
    ``box`` (``members``: each member path's rows); a member with no point in ``box`` may be left out
    by the caller (it adds nothing to the union)."""
    if not members:
        return []
    if len(members) == 1:
        return list(members[0])
    closures = [_closure(rows) for rows in members]
    regions = None
    k = len(root.coords)
    seen: set = set()
    out = []
    for closure in closures:
        for key in closure:
            if key in seen:
                continue
            seen.add(key)
            c0, cs = key
            if all(key in other for other in closures):
                out.append((c0, cs, 1))  # a sum of each member's rows: implied exactly
                continue
            if regions is None:
                regions = [region_of(root, box, rows, order, scale) for rows in members]
            neg = [Fraction(0)] * k
            for v, c in enumerate(cs):
                neg[order[v]] = -c
            if all(_at_most_zero(reg.upper(-c0, tuple(neg))) for reg in regions):
                out.append((c0, cs, 1))
    return out


def _normal(c0: Fraction, cs: tuple) -> tuple | None:
    """The row scaled by a positive factor so its first nonzero coefficient is ±1 (None: no variable)."""
    lead = next((abs(c) for c in cs if c), None)
    if lead is None:
        return None
    return (Fraction(c0) / lead, tuple(Fraction(c) / lead for c in cs))


def _closure(rows: list) -> set:
    """The member's rows and their sums two at a time where a variable cancels, to a fixed point
    (bounded): PF's comparisons chained (``q_a >= q_b``, ``q_b >= q_c`` give ``q_a >= q_c``). Each is a
    nonnegative combination of the member's rows, so it holds on its region."""
    out = {x for x in (_normal(c0, cs) for c0, cs, _ in rows) if x is not None}
    for _ in range(CLOSURE_ROUNDS):
        new = set()
        items = list(out)
        for i, (a0, a) in enumerate(items):
            for b0, b in items[i + 1:]:
                if not any(x and y and x == -y for x, y in zip(a, b)):
                    continue
                x = _normal(a0 + b0, tuple(p + q for p, q in zip(a, b)))
                if x is not None and x not in out:
                    new.add(x)
        if not new or len(out) + len(new) > MAX_CLOSURE:
            break
        out |= new
    return out


def _at_most_zero(up: Any) -> bool:
    return up is not None and up <= 0


# -- the stabiliser's permutations as exact isomorphisms of class problems -----------------------
def stabiliser(root: Any) -> list[dict[int, int]]:
    """Coordinate maps of the permutations of the candidates that fix the root's output ``r`` and
    chart ``m`` (``G_a -> G_σ(a)``, ``Z_a -> Z_σ(a)``, ``L`` fixed), where the swapped coordinates
    have the same kind and scale (so a row in the log-variables maps to a row); identity left out.
    Nothing here assumes the law is symmetric: a map is used only when it carries one problem
    *exactly* onto another (:func:`covered`)."""
    names = {name: c for c, (name, _) in enumerate(root.coords)}
    n = sum(1 for _, kind in root.coords if kind == "Z")
    others = [a for a in range(n) if a not in (root.r, root.m)]
    out = []
    for perm in itertools.permutations(others):
        if list(perm) == others:
            continue
        sigma = dict(zip(others, perm))
        cmap = {}
        for c, (name, kind) in enumerate(root.coords):
            if kind in ("G", "Z") and int(name[1:]) in sigma:
                cmap[c] = names.get(name[0] + str(sigma[int(name[1:])]), -1)
            else:
                cmap[c] = c
        if all(d >= 0 and root.coords[d][1] == root.coords[c][1] and root.scale(d) == root.scale(c)
               for c, d in cmap.items()):
            out.append(cmap)
    return out


def _permute_poly(p: Any, root: Any, gmap: dict[int, int]) -> Any:
    out = {}
    for e, coef in p.to_dict().items():
        new = [int(x) for x in e]
        for g, h in gmap.items():
            new[h] = int(e[g])
        out[tuple(new)] = coef
    return root.space.ctx.from_dict(out)


def _rowset(rows: list, order: list[int], cmap: dict[int, int] | None = None) -> frozenset:
    """The rows in coordinates (``cmap`` applied), each scaled to a normal form: a set to compare."""
    out = set()
    k = len(order)
    inv = {c: v for v, c in enumerate(order)}
    for c0, cs, _ in rows:
        new = [Fraction(0)] * k
        for v, x in enumerate(cs):
            c = order[v]
            new[inv[cmap[c] if cmap else c]] = x
        key = _normal(c0, tuple(new))
        if key is not None:
            out.add(key)
    return frozenset(out)


def record(store: list, R: Any, rows: list, box: tuple, order: list[int]) -> None:
    """A class problem proved ``<= target``: ``R`` on ``box ∩ rows``."""
    store.append((R, _rowset(rows, order), tuple(box)))


def covered(store: list, root: Any, maps: list, R: Any, rows: list, box: tuple, order: list[int]) -> bool:
    """Whether a map of the stabiliser carries ``R`` on ``box ∩ rows`` onto (a subset of) a proved
    problem: the permuted ratio equal exactly (cross-multiplied polynomials), the permuted box inside
    its box and its rows among the permuted rows. Then the supremum here is the supremum of the
    proved ratio on a subset of its set (a change of variables), so ``<= target`` too."""
    if not store:
        return False
    for cmap in maps:
        gmap = {root.gen(c): root.gen(d) for c, d in cmap.items()}
        pbox = [None] * len(box)
        for c, d in cmap.items():
            pbox[d] = box[c]
        cand = [(Rp, rs) for Rp, rs, b in store
                if all(a <= lo and hi <= z for (a, z), (lo, hi) in zip(b, pbox))]
        if not cand:
            continue
        num, den = _permute_poly(R.num, root, gmap), _permute_poly(R.den, root, gmap)
        prows = None
        for Rp, rs in cand:
            if num * Rp.den != Rp.num * den:
                continue
            prows = _rowset(rows, order, cmap) if prows is None else prows
            if rs <= prows:
                return True
    return False
