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

from fractions import Fraction
from typing import Any

from .compact_polytope import region_of

__all__ = ["class_rows"]

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
