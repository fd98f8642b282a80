"""Solve the reduced LP (:mod:`.regular_lp`) with HiGHS (highspy), from scipy.sparse matrices.

Several routes, same LP, same optimum:

``method="auto"`` (default)
    ``"generation"`` for small LPs (<= ``AUTO_SMALL_VARS`` variables) and for ε >=
    ``AUTO_GENERATION_EPSILON`` (there the optimum is PF or a few exchanges away from it and
    generation needs a handful of pivots, 2 s at n = k = 10); otherwise ``"hipo"`` when the
    optional HiPO extra is installed (else ``"generation"``). The solution's ``method`` names
    the route taken.
``method="generation"`` (the one that scales with n and k for large ε)
    The LP in chain form (the ℓ >= 1 privacy rows substituted), solved by row and column
    generation from PF's basis (:mod:`.generation`).
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
from typing import Any, Literal, get_args

import numpy as np

from ..cost_limits import CostEstimate, check_cost
from .cost_model import estimate_regular_lp_cost
from .generation import chain_form, solve_generation
from .highs_model import BudgetSpent, _new_highs, _pass_dual_model, _pass_model, _run, require_hipo
from .regular_lp import RegularLP
from .solution import LPSolution, _primal_violation, _total_error
from .tree_bounds import optimum_bounds
from .cost_model import AUTO_GENERATION_EPSILON, AUTO_SMALL_VARS, hipo_available, resolve_method  # noqa: F401

__all__ = ["LPSolution", "BudgetSpent", "solve_regular_lp", "chain_form", "hipo_available", "require_hipo"]

Method = Literal["auto", "generation", "simplex", "ipm", "hipo", "pdlp", "forest-ipm", "forest-cg"]
_METHODS = get_args(Method)


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
        return solve_generation(lp, warm_start, time_limit, threads, tol, options, cpu_deadline)
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
        # the normal equations with METIS is what HiPO picks for this LP anyway (n = k = 6..8), after
        # analysing the augmented system and AMD too: naming them skips ~1.7 of its ~2.3 s of analysis
        options = {"run_crossover": "off", "hipo_system": "normaleq", "hipo_ordering": "metis", **(options or {})}
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
        # costs scaled to max 1 (they are mean errors per vector, 3e-7 … 6e-3 at n = k = 8, which HiGHS
        # flags as "excessively small"); the dual's u and y scale by the same factor, its row duals (w) do not
        cmax = float(np.max(d["cost"], initial=0.0))
        cost_scale = 1.0 / cmax if cmax > 0 else 1.0
        _pass_dual_model(hd, {**d, "cost": d["cost"] * cost_scale})
        status, seconds = _run(hd, accept_limits=accept)
        info = hd.getInfo()
        if int(info.ipm_iteration_count) == 0:
            raise RuntimeError("method='hipo': HiGHS did not run HiPO (it fell back to another solver)")
        iterations = int(info.ipm_iteration_count)
        dsol = hd.getSolution()
        w = -np.asarray(dsol.row_dual)  # the dual LP's row duals are −(primal variables)
        cv = np.asarray(dsol.col_value)
        u, priv_dual = cv[:n_eq] / cost_scale, cv[n_eq:] / cost_scale
        priv_slack = d["A_ub"] @ w
        z = w * d["colscale"]
        dual_infeasibility = float(info.max_primal_infeasibility) / cost_scale  # the dual LP's primal side
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
