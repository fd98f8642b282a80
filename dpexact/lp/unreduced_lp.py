"""The unreduced LP of pf Appendix D (one variable per (q, r), explicit symmetry), in cvxpy.

For cross-checking the symmetry reduction (:mod:`.regular_lp`) on small n, k only:
variables ``x_r(q)`` for every ``q ∈ Q(n, k)`` (not classes) and every ``r``; privacy rows
``x_r(q) >= e^{−ε} x_r(q′)`` with pf's worst-case neighbour (same ``boundary`` rule as the
reduced LP: ``"clip"`` raises scores that fall below level k back to k, ``"drop"`` omits the
row); symmetry ``x_r(q) = x_{τ(r)}(τq)`` for the adjacent transpositions ``τ`` (they
generate the symmetric group, so this is pf's "∀π" constraint); sum-to-one per ``q``;
objective ``Σ_q Σ_r x_r(q)(q* − q_r)``. Solved by HiGHS through cvxpy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..mechanisms.validation import positive_real
from .lattice import check_nk, count_vectors, lattice_vectors
from .regular_lp import Boundary

__all__ = ["UnreducedSolution", "solve_unreduced_lp", "MAX_UNREDUCED_VECTORS"]

#: the unreduced LP has n·|Q| variables: keep it small
MAX_UNREDUCED_VECTORS = 5000


@dataclass(frozen=True)
class UnreducedSolution:
    """Optimum of the unreduced LP: ``Σ_q E[err(M*, q)]`` (score units, float from HiGHS)."""

    optimal_total_error: float
    variables: int
    constraints: int
    seconds: float
    x: np.ndarray  # shape (|Q|, n)
    vectors: list[tuple[int, ...]]


def solve_unreduced_lp(n: int, k: int, epsilon: Any, *, sensitivity: Any = 1, boundary: Boundary = "clip") -> UnreducedSolution:
    """Build and solve the unreduced LP with cvxpy + HiGHS (small instances only)."""
    import cvxpy as cp
    import scipy.sparse as sp

    check_nk(n, k)
    eps = positive_real(epsilon, "epsilon")
    delta = positive_real(sensitivity, "sensitivity")
    if boundary not in ("clip", "drop"):
        raise ValueError(f"boundary must be 'clip' or 'drop', got {boundary!r}")
    if count_vectors(n, k) > MAX_UNREDUCED_VECTORS:
        raise ValueError(f"n, k: |Q({n},{k})| = {count_vectors(n, k)} exceeds {MAX_UNREDUCED_VECTORS} for the unreduced LP")
    rho = float(np.exp(-eps.to_float()))
    vecs = list(lattice_vectors(n, k))
    index = {v: i for i, v in enumerate(vecs)}
    nv = len(vecs) * n

    def var(q: tuple[int, ...], r: int) -> int:
        return index[q] * n + r

    priv_i, priv_j = [], []
    sym_i, sym_j = [], []
    for q in vecs:
        for r in range(n):
            if q[r] > 0:
                nb = list(q)
                nb[r] -= 1
                target: tuple[int, ...] | None = tuple(nb)
            else:
                nb = [l + 1 for l in q]
                nb[r] = 0
                if n == 1:
                    target = None
                elif max(nb) > k:
                    target = None if boundary == "drop" else tuple(min(l, k) for l in nb)
                else:
                    target = tuple(nb)
                if target == q:
                    target = None
            if target is not None:
                priv_i.append(var(q, r))
                priv_j.append(var(target, r))
        for a in range(n - 1):
            tq = list(q)
            tq[a], tq[a + 1] = tq[a + 1], tq[a]
            tq_t = tuple(tq)
            for r in range(n):
                tr = a + 1 if r == a else a if r == a + 1 else r
                i, j = var(q, r), var(tq_t, tr)
                if i < j:
                    sym_i.append(i)
                    sym_j.append(j)
    x = cp.Variable(nv, nonneg=True)
    m = len(priv_i)
    P = sp.csr_matrix((np.r_[np.ones(m), -rho * np.ones(m)], (np.r_[np.arange(m), np.arange(m)], np.r_[priv_i, priv_j])), shape=(m, nv))
    s = len(sym_i)
    S = sp.csr_matrix((np.r_[np.ones(s), -np.ones(s)], (np.r_[np.arange(s), np.arange(s)], np.r_[sym_i, sym_j])), shape=(s, nv))
    E = sp.csr_matrix((np.ones(nv), (np.repeat(np.arange(len(vecs)), n), np.arange(nv))), shape=(len(vecs), nv))
    cost = np.array([float(l) for q in vecs for l in q]) / len(vecs)
    cons = [E @ x == 1]
    if m:
        cons.append(P @ x >= 0)
    if s:
        cons.append(S @ x == 0)
    prob = cp.Problem(cp.Minimize(cost @ x), cons)
    t0 = time.perf_counter()
    prob.solve(solver=cp.HIGHS)
    seconds = time.perf_counter() - t0
    if prob.status != cp.OPTIMAL:
        raise RuntimeError(f"unreduced LP: solver status {prob.status}")
    total = float(prob.value) * len(vecs) * 2 * delta.to_float()
    return UnreducedSolution(total, nv, len(vecs) + m + s, seconds, np.asarray(x.value).reshape(len(vecs), n), vecs)
