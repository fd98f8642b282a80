"""The generation route of :func:`.solver.solve_regular_lp` (``method="generation"``): the LP in chain
form, solved by row and column generation with HiGHS's dual simplex.

*Chain form.* Write every privacy row with ℓ >= 1 as ``w(c, ℓ) = w(c′, ℓ−1) + t(c, ℓ)``
with a slack ``t >= 0`` (scaled variables ``w = e^{εℓ} z``). Unrolling the chain
``c → c − e_ℓ + e_{ℓ−1} → … → c − e_ℓ + e_0`` expresses each ``w(c, ℓ)`` as
``a(c − e_ℓ + e_0) + Σ t`` with ``a(c) = w(c, 0)``: the ℓ >= 1 rows become bounds
``t >= 0``; what is left are the sum-to-one rows and the ℓ = 0 rows
``a(c) − e^{−ε} a(c″) >= 0`` (an exact reformulation, pf App. D's substitution without
dropping anything).
*Row and column generation.* With every ``t = 0`` and no ℓ = 0 row the system is square
and its solution is PF (pf App. D, "relaxed LP"). The optimum differs from PF in few places
(slack ℓ >= 1 rows and tight ℓ = 0 rows only in some classes), so we solve a restricted
LP (all ``a``, the active ``t`` columns, the active ℓ = 0 rows), then price every missing
column (reduced cost ``< −tol``) and check every missing row (violation ``> tol``), add
them, re-solve from the previous basis (HiGHS keeps it across ``addCols``/``addRows``),
and stop when nothing is missing: then the restricted solution, with the missing ``t`` at
0 and the missing rows basic, is primal and dual feasible for the *full* LP, i.e. optimal.

Measured (benchmarks/README.md): 0.1–2.5 s at n = k = 8 and 10 for ε >= 0.7 (PF optimal or a few
exchanges away); > 300 s at n = k = 8, ε = 0.25, where ``"auto"`` takes HiPO instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .highs_model import BudgetSpent, _new_highs, _pass_model, _run
from .regular_lp import RegularLP
from .solution import LPSolution, _primal_violation, _total_error
from .tree_bounds import optimum_bounds

__all__ = ["ChainForm", "chain_form", "solve_generation"]


@dataclass(frozen=True)
class ChainForm:
    """The LP in chain form (see the module docstring), float64.

    Columns: one per z-variable ``i`` (``a(c)`` if level 0, else the slack ``t_i`` of its ℓ >= 1 row).
    ``a_eq`` (classes × columns) and ``cost`` come from substituting ``w_i = Σ_{j on chain(i)} col_j``;
    ``chain_of``: CSR matrix (variables × columns), ``w = chain_of @ col``.
    ``r0_var, r0_other``: the ℓ = 0 rows ``a[r0_var] − ρ a[r0_other] >= 0``.
    """

    a_eq: Any
    cost: np.ndarray
    chain_of: Any
    r0_var: np.ndarray
    r0_other: np.ndarray
    r0_row: np.ndarray  # index of each ℓ=0 row among lp's privacy rows
    pos_row: np.ndarray  # for each variable with level >= 1: index of its privacy row
    colscale: np.ndarray


def chain_form(lp: RegularLP) -> ChainForm:
    """Build the chain-form matrices of ``lp`` (O(Σ_i ℓ_i) work)."""
    import scipy.sparse as sp

    rho = lp.rho_float()
    nv, nc = lp.num_vars, len(lp.classes)
    lvl = lp.var_level
    up = np.full(nv, -1, dtype=np.int64)  # the other end of the ℓ >= 1 row of variable i
    pos_row = np.full(nv, -1, dtype=np.int64)
    is_pos = lvl[lp.row_var] > 0
    up[lp.row_var[is_pos]] = lp.row_other[is_pos]
    pos_row[lp.row_var[is_pos]] = np.flatnonzero(is_pos)
    # chain_of: row i has ones at i, up[i], up[up[i]], ... (levels ℓ, ℓ−1, …, 0)
    rows, cols = [], []
    cur = np.arange(nv)
    alive = np.ones(nv, dtype=bool)
    while alive.any():
        idx = np.flatnonzero(alive)
        rows.append(idx)
        cols.append(cur[idx])
        nxt = up[cur[idx]]
        alive[idx] = nxt >= 0
        cur[idx[nxt >= 0]] = nxt[nxt >= 0]
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    chain_of = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(nv, nv))
    colscale = rho ** lvl.astype(np.float64)
    coef = lp.var_count * colscale  # sum-to-one coefficient of w_i
    mult = np.array([float(m) for m in lp.var_mult]) / float(lp.num_vectors)
    wcost = mult * lp.var_count * lvl * colscale
    eq_w = sp.csr_matrix((coef, (lp.var_class, np.arange(nv))), shape=(nc, nv))
    a_eq = (eq_w @ chain_of).tocsc()
    cost = chain_of.T @ wcost
    r0 = np.flatnonzero(~is_pos)
    return ChainForm(a_eq, np.asarray(cost), chain_of, lp.row_var[r0], lp.row_other[r0], r0, pos_row, colscale)


def solve_generation(lp, warm_start, time_limit, threads, tol, options, cpu_deadline=None) -> LPSolution:
    import highspy
    import scipy.sparse as sp

    cf = chain_form(lp)
    nv, nc = lp.num_vars, len(lp.classes)
    rho = lp.rho_float()
    lvl = lp.var_level
    n0 = cf.r0_var.size
    # initial restricted LP: all a(c) columns (+ warm-start t columns), no ℓ=0 rows (+ warm start)
    col_on = lvl == 0
    row_on = np.zeros(n0, dtype=bool)
    if warm_start is not None and warm_start.active_mask is not None:
        col_on |= warm_start.active_mask[0]
        row_on |= warm_start.active_mask[1]
    cols = np.flatnonzero(col_on)
    h = _new_highs("simplex", time_limit, threads, options, cpu_deadline)
    a0 = cf.a_eq[:, cols]
    rows0 = np.flatnonzero(row_on)
    if rows0.size:
        a_r = _r0_matrix(cf, rows0, nv, rho)[:, cols]
        a_all = sp.vstack([a0, a_r]).tocsc()
        lo = np.concatenate([np.ones(nc), np.zeros(rows0.size)])
        hi = np.concatenate([np.ones(nc), np.full(rows0.size, highspy.kHighsInf)])
    else:
        a_all, lo, hi = a0.tocsc(), np.ones(nc), np.ones(nc)
    # HiGHS sees costs scaled to max 1 (the per-vector costs ≈ mult/|Q| go down to 1e-9 at
    # n = k = 10, which HiGHS flags as "excessively small"); pricing is relative to it too
    cmax = float(cf.cost.max(initial=0.0))
    cost_scale = 1.0 / cmax if cmax > 0 else 1.0
    _pass_model(h, cf.cost[cols] * cost_scale, a_all, lo, hi)
    col_list = list(cols)  # HiGHS column j <-> chain column col_list[j]
    row_list = list(rows0)  # HiGHS row nc + j <-> ℓ=0 row row_list[j]
    seconds = 0.0
    rounds = 0
    iters = 0
    a_eq_csr = cf.a_eq.tocsr()
    while True:
        rounds += 1
        try:
            status, sec = _run(h)
        except BudgetSpent:
            raise
        except RuntimeError:
            # the warm-started dual simplex can lose numerical control on large restricted LPs
            # (n = k = 10, ε = 0.65: "Increasing Markowitz threshold", then status "Not Set");
            # solve that round again from scratch with the primal simplex
            h.clearSolver()
            h.setOptionValue("simplex_strategy", 4)
            status, sec = _run(h)
            h.setOptionValue("simplex_strategy", 1)
        seconds += sec
        info = h.getInfo()
        iters += int(info.simplex_iteration_count)
        sol = h.getSolution()
        x = np.zeros(nv)
        x[col_list] = np.asarray(sol.col_value)
        w = cf.chain_of @ x
        # missing rows violated?
        viol = -(w[cf.r0_var] - rho * w[cf.r0_other])
        new_rows = np.flatnonzero((viol > tol * np.maximum(1.0, w[cf.r0_var])) & ~row_on)
        # missing columns with negative reduced cost?
        dual = np.asarray(sol.row_dual) / cost_scale
        u = dual[:nc]
        v = np.zeros(n0)
        if row_list:
            v[row_list] = dual[nc:]
        red = cf.cost - a_eq_csr.T @ u - _r0_transpose_times(cf, v, nv, rho)
        new_cols = np.flatnonzero((red * cost_scale < -tol) & ~col_on)  # relative to the largest cost
        if new_rows.size == 0 and new_cols.size == 0:
            break
        if new_cols.size:
            sub = cf.a_eq[:, new_cols]
            if row_list:
                sub = sp.vstack([sub, _r0_matrix(cf, np.array(row_list), nv, rho)[:, new_cols]]).tocsc()
            else:
                sub = sub.tocsc()
            h.addCols(int(new_cols.size), cf.cost[new_cols] * cost_scale, np.zeros(new_cols.size),
                      np.full(new_cols.size, highspy.kHighsInf), int(sub.nnz),
                      sub.indptr[:-1].astype(np.int32), sub.indices.astype(np.int32), sub.data)
            col_on[new_cols] = True
            col_list.extend(int(c) for c in new_cols)
        if new_rows.size:
            pos = {c: j for j, c in enumerate(col_list)}
            starts, idx, vals = [], [], []
            for r in new_rows:
                starts.append(len(idx))
                i, o = int(cf.r0_var[r]), int(cf.r0_other[r])
                for var, coef in ((i, 1.0), (o, -rho)):
                    if var not in pos:  # a level-0 column is always present
                        raise AssertionError("level-0 column missing")
                    idx.append(pos[var])
                    vals.append(coef)
            h.addRows(int(new_rows.size), np.zeros(new_rows.size), np.full(new_rows.size, highspy.kHighsInf),
                      len(idx), np.array(starts, dtype=np.int32), np.array(idx, dtype=np.int32), np.array(vals))
            row_on[new_rows] = True
            row_list.extend(int(r) for r in new_rows)
    z = w * cf.colscale
    # basis of the z-form: all z basic except z whose ... (see _z_basis)
    basis = h.getBasis()
    col_basic, row_basic = _z_basis(lp, cf, basis, col_list, row_list)
    scale = lp.objective_scale().to_float()
    return _GenerationSolution(
        lp=lp,
        z=z,
        optimal_total_error=_total_error(lp, z),
        dual_total_error=float(np.sum(u)) * scale,
        seconds=seconds,
        status=status,
        method="generation",
        primal_infeasibility=_primal_violation(lp, z),
        dual_infeasibility=float(max(0.0, -red.min())),
        col_basic=col_basic,
        row_basic=row_basic,
        rounds=rounds,
        iterations=iters,
        active_columns=len(col_list),
        active_rows=nc + len(row_list),
        active_mask=(col_on.copy(), row_on.copy()),
        bounds=optimum_bounds(lp, z, u),
    )


@dataclass(frozen=True)
class _GenerationSolution(LPSolution):
    active_mask: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)


LPSolution.active_mask = None  # type: ignore[attr-defined]  # direct routes carry no active set


def _r0_matrix(cf: ChainForm, rows: np.ndarray, nv: int, rho: float) -> Any:
    import scipy.sparse as sp

    m = rows.size
    return sp.csr_matrix(
        (np.concatenate([np.ones(m), np.full(m, -rho)]),
         (np.concatenate([np.arange(m), np.arange(m)]), np.concatenate([cf.r0_var[rows], cf.r0_other[rows]]))),
        shape=(m, nv),
    )


def _r0_transpose_times(cf: ChainForm, v: np.ndarray, nv: int, rho: float) -> np.ndarray:
    out = np.zeros(nv)
    np.add.at(out, cf.r0_var, v)
    np.add.at(out, cf.r0_other, -rho * v)
    return out


def _z_basis(lp: RegularLP, cf: ChainForm, basis: Any, col_list: list[int], row_list: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Map the chain-form basis to a z-form basis.

    z(c, ℓ >= 1) are affine in the chain columns and taken basic; a(c) = z(c, 0) keeps its
    status; a basic slack t_i <-> its ℓ >= 1 row basic; a nonbasic t_i <-> the row tight;
    missing t columns are nonbasic (row tight); missing ℓ = 0 rows are basic.
    """
    import highspy

    nv, nc = lp.num_vars, len(lp.classes)
    col_basic = lp.var_level > 0
    row_basic = np.zeros(nc + lp.num_privacy_rows, dtype=bool)
    row_basic[nc + cf.r0_row] = True  # ℓ=0 rows: basic unless active and nonbasic
    basic = highspy.HighsBasisStatus.kBasic
    col_status = [st == basic for st in basis.col_status]  # one conversion, not one per access
    row_status = [st == basic for st in basis.row_status]
    for j, c in enumerate(col_list):
        b = col_status[j]
        if lp.var_level[c] == 0:
            col_basic[c] = b
        else:
            row_basic[nc + cf.pos_row[c]] = b
    for j, r in enumerate(row_list):
        row_basic[nc + cf.r0_row[r]] = row_status[nc + j]
    row_basic[:nc] = row_status[:nc]
    return col_basic, row_basic
