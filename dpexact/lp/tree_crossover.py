"""Crossover for the reduced LP from an interior point to a vertex, using its structure.

Structure (:mod:`.privacy_forest`): every variable ``z(v)`` has at most one privacy row
``z(v) >= ρ z(p(v))``. At an optimum every ``z > 0`` (a root value ``z > 0`` propagates down
the tree: ``z(v) >= ρ^depth z(root)``), so all ``N`` columns are basic and a basis is
determined by *which privacy rows are slack* (basic): exactly ``P − N + C`` of them for ``P``
privacy rows and ``C`` classes (the sum-to-one rows are equalities, never basic).

Identification (:func:`identify_cut_rows`): from an interior point with privacy-row slacks
``s`` and duals ``y`` (as an IPM returns them, in the z-form row scaling), the basic rows are
the ``P − N + C`` largest ``s/y`` (Tapia's indicator: on the central path ``s·y = μ``, so it
ranks by slack). :func:`tree_crossover` hands that basis to HiGHS's primal simplex, which
repairs what the identification got wrong (rank deficiency included; HiGHS swaps in
logicals). Measured at n = k = 8 from HiPO's interior point (benchmarks/README.md): 1 012
pivots at ε = 0.25, 6 558 at ε = 0.5 (HiGHS's own crossover after HiPO: 15–60 s); at
ε = 0.05, where the LP is nearly degenerate, the identification is poor and the repair can
take longer than the interior-point solve, hence the time limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .regular_lp import RegularLP

__all__ = ["identify_cut_rows", "cut_basis", "tree_crossover"]


def identify_cut_rows(lp: RegularLP, slack: np.ndarray, dual: np.ndarray) -> np.ndarray:
    """Boolean mask of the ``P − N + C`` privacy rows with the largest ``slack/dual``.

    ``slack`` and ``dual`` are the privacy rows' slacks and duals in one consistent row
    scaling (the z-form: ``z(v) − ρ z(p(v)) >= 0``).
    """
    npr = lp.num_privacy_rows
    slack = np.asarray(slack, dtype=np.float64)
    dual = np.asarray(dual, dtype=np.float64)
    if slack.shape != (npr,) or dual.shape != (npr,):
        raise ValueError(f"slack, dual: expected {npr} values each, got {slack.shape} and {dual.shape}")
    ncut = npr - lp.num_vars + len(lp.classes)
    if ncut < 0:
        raise ValueError("lp: more variables than rows can fix; no vertex with every z basic")
    score = np.maximum(slack, 0.0) / np.maximum(np.abs(dual), 1e-300)
    cut = np.zeros(npr, dtype=bool)
    if ncut:
        cut[np.argpartition(-score, ncut - 1)[:ncut]] = True
    return cut


def cut_basis(lp: RegularLP, cut: np.ndarray) -> Any:
    """The HiGHS basis of the model ``[sum-to-one rows; privacy rows]`` given by ``cut``."""
    import highspy

    basic, lower = highspy.HighsBasisStatus.kBasic, highspy.HighsBasisStatus.kLower
    basis = highspy.HighsBasis()
    basis.col_status = [basic] * lp.num_vars
    basis.row_status = [lower] * len(lp.classes) + [basic if c else lower for c in cut]
    basis.valid = True
    return basis


def tree_crossover(h: Any, lp: RegularLP, slack: np.ndarray, dual: np.ndarray, colscale: np.ndarray,
                   time_limit: float | None) -> tuple[bool, int]:
    """Find a vertex of the model held by the HiGHS instance ``h`` from an interior point.

    ``h`` holds the model of :func:`.solver._solve_direct` (sum-to-one rows, then privacy rows,
    columns ``w = z / colscale``); ``slack`` and ``dual`` are the interior point's privacy-row
    slacks and duals in that model's scaling. Returns ``(vertex found, simplex pivots)``; on
    ``False`` (time limit) ``h``'s solution is not to be used.
    """
    # a privacy row of the w-form is the z-form row times α = 1 / colscale(row's own variable)
    alpha = 1.0 / colscale[lp.row_var]
    cut = identify_cut_rows(lp, np.asarray(slack) / alpha, np.asarray(dual) * alpha)
    for name, value in (("solver", "simplex"), ("simplex_strategy", 4), ("presolve", "off"),
                        ("primal_feasibility_tolerance", 1e-10), ("dual_feasibility_tolerance", 1e-10),
                        ("time_limit", float(time_limit) if time_limit is not None else float("inf"))):
        h.setOptionValue(name, value)
    h.setBasis(cut_basis(lp, cut))
    h.run()
    ok = h.modelStatusToString(h.getModelStatus()) == "Optimal"
    return ok, int(h.getInfo().simplex_iteration_count)
