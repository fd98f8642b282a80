"""The privacy rows of the reduced LP as a forest (:mod:`.regular_lp`).

Every variable ``z(v) = z(c, ℓ)`` has at most one privacy row, ``z(v) >= e^{−ε} z(p(v))``, and
the row's other variable ``p(v)`` (the worst-case neighbour q′ of pf App. D, with the selected
candidate one level higher relative to the others) is its *parent*. Following parents
strictly raises the selected candidate's height above the other scores (clipping collapses
everything into "selected alone on top, all others at level k", a root), so the parent
links form a forest (one tree for ``boundary="clip"``). Sweeps over this forest, leaves to
roots or roots to leaves, are what :mod:`.tree_bounds` and :mod:`.tree_crossover` are made of.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .regular_lp import RegularLP

__all__ = ["PrivacyForest", "privacy_forest", "forest_depths"]


@dataclass(frozen=True)
class PrivacyForest:
    """Parent links of the privacy rows.

    Attributes:
        parent: ``parent[v]`` = the other variable of ``v``'s privacy row, ``-1`` for a root.
        depth: distance to the root of ``v``'s tree.
        levels: ``levels[d]`` = the variables at depth ``d`` (``levels[0]``: the roots).
        max_children: largest number of children of one variable.
    """

    parent: np.ndarray
    depth: np.ndarray
    levels: list[np.ndarray]
    max_children: int

    @property
    def max_depth(self) -> int:
        return len(self.levels) - 1

    def subtree_sums(self, values: np.ndarray, rho: float) -> np.ndarray:
        """``S(v) = values(v) + ρ Σ_{children w} S(w)`` (leaves to roots, float64)."""
        out = np.array(values, dtype=np.float64, copy=True)
        for grp in reversed(self.levels[1:]):
            np.add.at(out, self.parent[grp], rho * out[grp])
        return out


def forest_depths(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Root and depth of every node of the forest ``parent`` (``-1`` = root).

    Pointer doubling, O(N log depth) numpy work.

    Raises:
        ValueError: the links contain a cycle.
    """
    n = parent.size
    top = np.where(parent >= 0, parent, np.arange(n))
    depth = (parent >= 0).astype(np.int64)
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2))))) + 2):
        nxt = top[top]
        moving = nxt != top
        if not moving.any():
            return top, depth
        depth = depth + np.where(moving, depth[top], 0)
        top = nxt
    raise ValueError("parent: the links contain a cycle")


def privacy_forest(lp: RegularLP) -> PrivacyForest:
    """The forest of ``lp``'s privacy rows (cached on the LP)."""
    if "forest" in lp._cache:
        return lp._cache["forest"]
    nv = lp.num_vars
    parent = np.full(nv, -1, dtype=np.int64)
    if np.unique(lp.row_var).size != lp.row_var.size:
        raise ValueError("lp: a variable has two privacy rows; the rows do not form a forest")
    parent[lp.row_var] = lp.row_other
    _, depth = forest_depths(parent)
    order = np.argsort(depth, kind="stable")
    bounds = np.flatnonzero(np.diff(depth[order])) + 1
    levels = np.split(order, bounds)
    children = np.bincount(parent[parent >= 0], minlength=nv)
    forest = PrivacyForest(parent, depth, levels, int(children.max(initial=0)))
    lp._cache["forest"] = forest
    return forest
