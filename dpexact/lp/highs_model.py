"""The HiGHS side of the LP routes: an instance with dpexact's options, a model passed from scipy
arrays (primal, or its dual for HiPO), one run with its status turned into dpexact's outcomes.

``_new_highs`` sets the feasibility tolerances (1e-10; HiGHS's default 1e-7 for ``"hipo"``), the thread
pool and a CPU-time interrupt; ``_run`` returns HiGHS's status or raises (:class:`BudgetSpent` when
the CPU-time budget ran out, ``RuntimeError`` when HiGHS found no optimum).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..highs import silent_highs
from .cost_model import hipo_available

__all__ = ["BudgetSpent", "require_hipo"]


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

