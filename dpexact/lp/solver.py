"""Solve the reduced LP (:mod:`.regular_lp`) with HiGHS (highspy), from scipy.sparse matrices.

Several routes, same LP, same optimum:

``method="auto"`` (default)
    ``"generation"`` for small LPs (<= ``AUTO_SMALL_VARS`` variables) and for ε >=
    ``AUTO_GENERATION_EPSILON`` (there the optimum is PF or a few exchanges away from it and
    generation needs a handful of pivots, 2 s at n = k = 10); otherwise ``"hipo"`` when the
    optional HiPO extra is installed (else ``"generation"``). The solution's ``method`` names
    the route taken.
``method="generation"`` (the one that scales with n and k for large ε)
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
``method="forest-ipm" | "forest-cg"``
    Interior point on the LP with its privacy forest eliminated (:mod:`.forest_ipm`): the class
    system dense (``"forest-ipm"``, up to ~10⁴ classes) or matrix-free by CG (``"forest-cg"``,
    any size, moderate accuracy within the time budget). Never picked by ``"auto"``: slower
    than the routes above wherever measured (benchmarks/README.md).
``method="simplex" | "ipm" | "hipo" | "pdlp"``
    The full LP in one HiGHS call (dual simplex / IPX interior point / HiPO interior point /
    PDLP first-order), on the z- or w-variables. The simplex routes are slow beyond n = k = 7
    at small ε: the LP is nearly dual degenerate (many tiny reduced costs), so even a warm
    start from the optimal basis at a nearby ε needs thousands of pivots.
    ``"hipo"`` (HiGHS's direct-factorisation IPM, optional extra ``dpexact[hipo]``: it needs
    the ``highspy-extras`` binary of the same version as ``highspy``; all cores by default)
    is the fastest route for small ε at n = k = 8 (benchmarks/README.md); its Cholesky factor
    grows ×10–13 per step of n = k (2.3 GB at n = k = 9, ~21 s per iteration), so it does
    not reach n = k = 10 (extrapolated ~2e9 entries, ~16 GB, ~3e13 flops per iteration). ``"pdlp"`` needs only matrix products and runs at any
    size, to moderate accuracy.
    *Crossover* (``crossover=True``): ``"ipm"`` uses HiGHS's; ``"hipo"`` and ``"pdlp"`` use
    :mod:`.tree_crossover` (basis identified from the interior point, repaired by HiGHS's
    primal simplex). With ``crossover=False`` the interior solution is returned as it is.

Accuracy: HiGHS's feasibility tolerances (1e-10 here; the default 1e-7 for ``"hipo"``);
:class:`LPSolution` reports the primal and dual objective values and max infeasibilities
measured on the *full* LP, and **proven bounds** on the optimum (:mod:`.tree_bounds`, float64
with rounding-error analysis) for every route, vertex or not. Exact statements come from
:mod:`.exact_certificate`. A returned basis is always a basis of the z-form LP (columns ``z``,
rows sum-to-one + privacy) so that it can be certified exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from ..highs import silent_highs
from ..cost_limits import CostEstimate, check_cost
from .cost_model import estimate_regular_lp_cost
from .regular_lp import RegularLP
from .solution import LPSolution, _primal_violation, _total_error
from .tree_bounds import optimum_bounds
from .cost_model import AUTO_GENERATION_EPSILON, AUTO_SMALL_VARS, hipo_available, resolve_method  # noqa: F401

__all__ = ["LPSolution", "solve_regular_lp", "chain_form", "hipo_available"]

Method = Literal["auto", "generation", "simplex", "ipm", "hipo", "pdlp", "forest-ipm", "forest-cg"]
_METHODS = get_args(Method)

def _new_highs(method: str, time_limit: float | None, threads: int | None, options: dict[str, Any] | None,
               cpu_deadline: float | None = None) -> Any:
    """A HiGHS instance for ``method``; ``cpu_deadline`` (a ``time.process_time()`` value) interrupts
    the simplex and interior-point iterations once this process has spent that much CPU time."""
    import highspy

    h = silent_highs()
    if cpu_deadline is not None:
        def _stop(event: Any) -> None:
            if time.process_time() > cpu_deadline:
                event.interrupt()

        h.cbSimplexInterrupt += _stop
        h.cbIpmInterrupt += _stop
    h.setOptionValue("solver", method)
    if method != "hipo":  # HiPO's crossover stalls at 1e-10 (> 5 min at n = k = 8, ε = 0.05)
        h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        h.setOptionValue("dual_feasibility_tolerance", 1e-10)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if threads is not None:
        # HiGHS keeps one global thread pool, sized by the first solve in the process; a
        # different size is refused ("Not Set") unless the pool is reset first
        highspy.Highs.resetGlobalScheduler(True)
        h.setOptionValue("threads", int(threads))
    for name, value in (options or {}).items():
        h.setOptionValue(name, value)
    return h


def _pass_model(h: Any, cost: np.ndarray, a_csc: Any, row_lo: np.ndarray, row_hi: np.ndarray,
                col_lo: np.ndarray | None = None, col_hi: np.ndarray | None = None) -> None:
    """Pass ``min cost·x  s.t.  row_lo <= A x <= row_hi,  col_lo <= x <= col_hi`` (default x >= 0)."""
    import highspy

    n_rows, n_cols = a_csc.shape
    model = highspy.HighsLp()
    model.num_col_ = n_cols
    model.num_row_ = n_rows
    model.col_cost_ = np.asarray(cost, dtype=np.float64)
    model.col_lower_ = np.zeros(n_cols) if col_lo is None else col_lo
    model.col_upper_ = np.full(n_cols, highspy.kHighsInf) if col_hi is None else col_hi
    model.row_lower_ = row_lo
    model.row_upper_ = row_hi
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = a_csc.indptr.astype(np.int32)
    model.a_matrix_.index_ = a_csc.indices.astype(np.int32)
    model.a_matrix_.value_ = a_csc.data.astype(np.float64)
    model.a_matrix_.num_col_ = n_cols
    model.a_matrix_.num_row_ = n_rows
    h.passModel(model)


def _pass_dual_model(h: Any, d: dict[str, Any]) -> None:
    """The dual of ``min c·w  s.t.  A_eq w = 1, A_ub w >= 0, w >= 0`` as a HiGHS model.

    ``max Σ u  s.t.  A_eqᵀ u + A_ubᵀ y <= c,  u free, y >= 0`` (passed as a minimisation);
    the primal ``w`` is minus the row duals of its solution.
    """
    import highspy
    import scipy.sparse as sp

    n_eq, n_ub = d["A_eq"].shape[0], d["A_ub"].shape[0]
    at = sp.hstack([d["A_eq"].T, d["A_ub"].T]).tocsc()  # rows = primal variables
    inf = highspy.kHighsInf
    _pass_model(h, np.concatenate([-np.ones(n_eq), np.zeros(n_ub)]), at,
                np.full(at.shape[0], -inf), np.asarray(d["cost"], dtype=np.float64),
                col_lo=np.concatenate([np.full(n_eq, -inf), np.zeros(n_ub)]), col_hi=np.full(n_eq + n_ub, inf))


def require_hipo() -> None:
    """Raise ``RuntimeError`` unless HiPO is available (HiGHS would silently fall back to simplex)."""
    if not hipo_available():
        from importlib import metadata

        try:
            extras = metadata.version("highspy-extras")
        except metadata.PackageNotFoundError:
            extras = "not installed"
        raise RuntimeError(
            f"method='hipo' needs highspy-extras of the same version as highspy "
            f"(highspy {metadata.version('highspy')}, highspy-extras {extras}); "
            f"install it with: pip install 'dpexact[hipo]'"
        )


def _run(h: Any, accept_limits: bool = False) -> tuple[str, float]:
    """Run HiGHS; raise unless it reports an optimum (or, if accepted, an iterate cut by a limit)."""
    t0 = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - t0
    status = h.modelStatusToString(h.getModelStatus())
    if status == "Interrupted by user":
        status = "CPU-time budget reached"  # the only interrupt dpexact sets (_new_highs)
    if status in ("Time limit reached", "Iteration limit reached", "CPU-time budget reached") and accept_limits:
        sol = h.getSolution()
        if sol.value_valid and sol.dual_valid:
            return status, seconds
    if status == "CPU-time budget reached":
        raise BudgetSpent(f"HiGHS did not find an optimum within the CPU-time budget (max_seconds); "
                          f"stopped after {seconds:.1f} s of wall time")
    if status != "Optimal":
        raise RuntimeError(f"HiGHS did not find an optimum: {status} after {seconds:.1f} s")
    return status, seconds


class BudgetSpent(RuntimeError):
    """The CPU-time budget (``max_seconds``) ran out before HiGHS reached an optimum."""


def solve_regular_lp(
    lp: RegularLP,
    *,
    method: Method = "auto",
    scaled: bool = True,
    warm_start: "LPSolution | None" = None,
    time_limit: float | None = None,
    threads: int | None = None,
    tol: float = 1e-9,
    crossover: bool = True,
    crossover_time_limit: float | None = None,
    options: dict[str, Any] | None = None,
    max_seconds: float | None = None,
    max_memory: Any = "default",
    progress: Any = None,
) -> LPSolution:
    """Solve ``lp`` with HiGHS; raise ``RuntimeError`` unless HiGHS reports an optimum.

    Args:
        lp: the reduced LP.
        method: ``"auto"`` (default), ``"generation"``, ``"simplex"``, ``"ipm"``, ``"hipo"``
            or ``"pdlp"`` (module docstring).
        scaled: direct routes only: solve in ``w = e^{εℓ} z`` (recommended).
        warm_start: a previous solution of an LP with the same (n, k, boundary), e.g. the
            previous ε of a sweep. Generation: its active columns and rows start the
            restricted LP; direct simplex: its HiGHS basis.
        time_limit: wall-clock seconds per HiGHS call (HiGHS's ``time_limit``). The interior
            routes return the iterate reached at a time or iteration limit (``status`` says which; ``"hipo"``/``"pdlp"`` then
            still try the tree crossover) with its proven ``bounds``; the simplex and
            generation routes raise ``RuntimeError`` unless optimal.
        threads: HiGHS threads (``"hipo"``: default all cores, else HiGHS's default).
        tol: generation pricing / row-violation tolerance.
        crossover: interior-point routes: turn the interior solution into a vertex
            (``"ipm"``: HiGHS's crossover; ``"hipo"``, ``"pdlp"``: :mod:`.tree_crossover`).
            Without a vertex, ``z`` is the proven-feasible point of ``bounds`` and exact
            certification is not available.
        crossover_time_limit: seconds for the tree crossover (default: twice the interior
            solve plus 10 s); when exceeded, the interior solution is returned (``is_vertex``
            False, still with proven ``bounds``) instead of an error.
        options: further HiGHS options (name -> value).
        max_seconds: a budget of CPU seconds (this process's CPU time, every thread counted,
            ``time.process_time``): the estimate of :mod:`.cost_model` must fit in it (else
            :class:`~dpexact.cost_limits.CostLimitError` before HiGHS starts), and HiGHS's
            simplex and interior-point iterations are interrupted once the solve has spent it
            (checked at every iteration through HiGHS's interrupt callbacks; HiGHS keeps no
            iterate then, so it raises :class:`BudgetSpent`), so a loaded machine makes a solve
            slower but does not make it fail. ``"pdlp"`` and the forest routes have no such
            callback: they get the budget as their wall-clock ``time_limit``. ``None``: no time check.
        max_memory: memory budget in bytes (default half the physical RAM; ``None`` disables).
        progress: ``progress(kind, text)`` callback (``"forest-ipm"``, ``"forest-cg"``: one note per
            iteration with the proven width so far).

    Every solution carries ``bounds`` (:func:`.tree_bounds.optimum_bounds`), a proven float64
    interval around the optimum computed from the returned primal and class duals.
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}, got {method!r}")
    if method == "auto":
        method = _auto_method(lp)
    if method == "hipo":
        require_hipo()
    if not (isinstance(tol, float) and 0 < tol < 1e-3):
        raise ValueError(f"tol must be a float in (0, 1e-3), got {tol!r}")
    if warm_start is not None and (warm_start.lp.n, warm_start.lp.k, warm_start.lp.boundary) != (lp.n, lp.k, lp.boundary):
        raise ValueError("warm_start: must come from an LP with the same n, k and boundary")
    if not isinstance(crossover, bool):
        raise TypeError(f"crossover must be a bool, got {crossover!r}")
    if crossover_time_limit is not None and not (isinstance(crossover_time_limit, (int, float)) and crossover_time_limit > 0):
        raise ValueError(f"crossover_time_limit must be a positive number of seconds, got {crossover_time_limit!r}")
    est = estimate_regular_lp_cost(lp.n, lp.k, lp.epsilon.to_float(), method=method, time_limit=time_limit)
    solve_only = CostEstimate(est.what, est.memory_bytes, est.parts["solve"], est.model, {"solve": est.parts["solve"]})
    check_cost(solve_only, max_seconds=max_seconds, max_memory=max_memory)
    cpu_deadline = None
    if max_seconds is not None:  # the estimate is a model: the budget itself is enforced while solving
        if method in ("pdlp", "forest-ipm", "forest-cg"):  # no per-iteration callback: a wall-clock limit
            time_limit = float(max_seconds) if time_limit is None else time_limit
        else:
            cpu_deadline = time.process_time() + float(max_seconds)
    if method in ("forest-ipm", "forest-cg"):
        from .forest_ipm import solve_forest_ipm

        for name, value in (("warm_start", warm_start), ("threads", threads), ("options", options)):
            if value is not None:
                raise ValueError(f"{name}: not used by method={method!r} (no HiGHS call, no basis)")

        return solve_forest_ipm(lp, linear_solver="dense" if method == "forest-ipm" else "cg",
                                time_limit=time_limit, max_memory=max_memory, progress=progress)
    if method == "generation":
        return _solve_generation(lp, warm_start, time_limit, threads, tol, options, cpu_deadline)
    return _solve_direct(lp, method, scaled, warm_start, time_limit, threads, options, crossover, crossover_time_limit,
                         cpu_deadline)


def _auto_method(lp: RegularLP) -> str:
    return resolve_method("auto", lp.num_vars, lp.epsilon.to_float())


def _solve_direct(lp, method, scaled, warm_start, time_limit, threads, options, crossover, crossover_time_limit,
                  cpu_deadline=None) -> LPSolution:
    import os

    import highspy
    import scipy.sparse as sp

    from .tree_crossover import tree_crossover

    if method == "hipo" and threads is None:
        threads = os.cpu_count() or 1
    if method == "ipm":
        options = {"run_crossover": "on" if crossover else "off", **(options or {})}
    elif method == "hipo":
        options = {"run_crossover": "off", **(options or {})}
    elif method == "pdlp":  # HiGHS has no iterate to return from a presolved model at a limit
        options = {"presolve": "off", **(options or {})}
    d = lp.float_arrays(scaled)
    a = sp.vstack([d["A_eq"], d["A_ub"]]).tocsc()
    n_eq = d["A_eq"].shape[0]
    n_rows = a.shape[0]
    row_lo = np.concatenate([np.ones(n_eq), np.zeros(n_rows - n_eq)])
    row_hi = np.concatenate([np.ones(n_eq), np.full(n_rows - n_eq, highspy.kHighsInf)])
    # an interior-point or first-order iterate cut by a limit is still useful: its proven
    # bounds say how far from the optimum it is (and the tree crossover may still finish it)
    accept = method in ("hipo", "pdlp", "ipm")
    if method == "hipo":
        # HiPO on the dual LP: its normal equations factor faster than the primal's here
        # (n = k = 8, ε < 0.6: 14–23 s against 19–33 s, benchmarks/README.md)
        hd = _new_highs(method, time_limit, threads, options, cpu_deadline)
        _pass_dual_model(hd, d)
        status, seconds = _run(hd, accept_limits=accept)
        info = hd.getInfo()
        if int(info.ipm_iteration_count) == 0:
            raise RuntimeError("method='hipo': HiGHS did not run HiPO (it fell back to another solver)")
        iterations = int(info.ipm_iteration_count)
        dsol = hd.getSolution()
        w = -np.asarray(dsol.row_dual)  # the dual LP's row duals are −(primal variables)
        cv = np.asarray(dsol.col_value)
        u, priv_dual = cv[:n_eq], cv[n_eq:]
        priv_slack = d["A_ub"] @ w
        z = w * d["colscale"]
        dual_infeasibility = float(info.max_primal_infeasibility)  # the dual LP's primal side
        vertex = False
        h = None
        if crossover:
            h = _new_highs("simplex", time_limit, threads, None, cpu_deadline)
            _pass_model(h, d["cost"], a, row_lo, row_hi)
    else:
        h = _new_highs(method, time_limit, threads, options, cpu_deadline)
        _pass_model(h, d["cost"], a, row_lo, row_hi)
        if warm_start is not None and warm_start.basis is not None and warm_start.method == method:
            h.setBasis(warm_start.basis)
        status, seconds = _run(h, accept_limits=accept)
        info = h.getInfo()
        iterations = int(info.simplex_iteration_count) + int(info.ipm_iteration_count) + int(info.pdlp_iteration_count)
        sol = h.getSolution()
        z = np.asarray(sol.col_value) * d["colscale"]
        u = np.asarray(sol.row_dual)[:n_eq]
        priv_slack, priv_dual = np.asarray(sol.row_value)[n_eq:], np.asarray(sol.row_dual)[n_eq:]
        dual_infeasibility = float(info.max_dual_infeasibility)
        vertex = method == "simplex" or (crossover and method == "ipm")
    if crossover and method in ("hipo", "pdlp"):
        t0 = time.perf_counter()
        limit = crossover_time_limit if crossover_time_limit is not None else 2 * seconds + 10
        ok, pivots = tree_crossover(h, lp, priv_slack, priv_dual, d["colscale"], limit)
        seconds += time.perf_counter() - t0
        iterations += pivots
        vertex = ok
        if ok:
            sol = h.getSolution()
            z = np.asarray(sol.col_value) * d["colscale"]
            u = np.asarray(sol.row_dual)[:n_eq]
            dual_infeasibility = float(h.getInfo().max_dual_infeasibility)
    basis = h.getBasis() if h is not None else None
    col_basic = row_basic = None
    if vertex and basis is not None and basis.valid:
        col_basic = np.array([s == highspy.HighsBasisStatus.kBasic for s in basis.col_status])
        row_basic = np.array([s == highspy.HighsBasisStatus.kBasic for s in basis.row_status])
    else:
        basis = None
    bounds = optimum_bounds(lp, z, u)
    if col_basic is None:
        z = bounds.z  # an interior point: report the proven-feasible mixture instead
    return LPSolution(
        lp=lp,
        z=z,
        optimal_total_error=_total_error(lp, z),
        dual_total_error=bounds.lower if col_basic is None else float(np.sum(u)) * lp.objective_scale().to_float(),
        seconds=seconds,
        status=status,
        method=method,
        primal_infeasibility=_primal_violation(lp, z),
        dual_infeasibility=dual_infeasibility,
        col_basic=col_basic,
        row_basic=row_basic,
        iterations=iterations,
        active_columns=lp.num_vars,
        active_rows=n_rows,
        basis=basis,
        bounds=bounds,
    )


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


def _solve_generation(lp, warm_start, time_limit, threads, tol, options, cpu_deadline=None) -> LPSolution:
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
