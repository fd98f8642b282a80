"""The tree-eliminated interior point (dpexact/lp/forest_ipm.py) against the generation route.

Independent method: the generation route (HiGHS simplex on the chain form, a vertex certified
optimal by pricing) gives the optimum; the forest routes' proven intervals must contain it.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpexact.cost_limits import CostLimitError
from dpexact.lp.cost_model import estimate_regular_lp_cost, resolve_method
from dpexact.lp.forest_ipm import FOREST_ROUTES, forest_form, solve_forest_ipm
from dpexact.lp.regular_lp import build_regular_lp
from dpexact.lp.solver import solve_regular_lp


@pytest.mark.parametrize("n,k,eps", [(4, 4, "1/4"), (5, 5, "1/2"), (6, 6, "1/4"), (6, 6, "1"), (5, 6, "1/10")])
def test_dense_interval_contains_generation_optimum(n, k, eps):
    lp = build_regular_lp(n, k, eps)
    ref = solve_regular_lp(lp, method="generation")
    sol = solve_regular_lp(lp, method="forest-ipm")
    b = sol.bounds
    assert sol.method == "forest-ipm" and not sol.is_vertex
    assert b.lower <= ref.optimal_total_error <= b.upper
    assert b.relative_width <= 1e-8
    # the returned z is the proven-feasible point whose objective is below the upper end
    assert sol.primal_infeasibility <= 1e-12
    assert sol.optimal_total_error <= b.upper * (1 + 1e-12)


def test_cg_interval_is_valid():
    lp = build_regular_lp(5, 5, "1/4")
    ref = solve_regular_lp(lp, method="generation")
    sol = solve_regular_lp(lp, method="forest-cg", time_limit=60)
    assert sol.bounds.lower <= ref.optimal_total_error <= sol.bounds.upper
    assert sol.bounds.relative_width < 0.05


def test_elimination_is_exact():
    """Â (T x) = 1 and ĉ·x = objective for the slacks x of the generation optimum."""
    lp = build_regular_lp(5, 5, "1/2")
    ref = solve_regular_lp(lp, method="generation")
    form = forest_form(lp)
    x = form.slacks_from_z(ref.z)
    assert np.allclose(form.z_from_slacks(x), ref.z, rtol=0, atol=1e-14)
    assert np.abs(form.a @ x - 1).max() < 1e-12
    scale = lp.objective_scale().to_float() / float(lp.num_vectors)  # 2Δ
    assert form.cost @ x * float(lp.num_vectors) * scale == pytest.approx(ref.optimal_total_error, rel=1e-12)


def test_wrong_elimination_cannot_prove_a_wrong_interval(monkeypatch):
    """Mutation: a corrupted ĉ steers the iterates elsewhere, but the proof (tree_bounds) is
    computed from the LP itself, so the interval still contains the optimum — it only stops
    being narrow."""
    lp = build_regular_lp(5, 5, "1/4")
    ref = solve_regular_lp(lp, method="generation")
    form = forest_form(lp)
    bad = form.cost.copy()
    bad[::7] *= 1.5
    monkeypatch.setitem(lp._cache, "forest_form", type(form)(form.a, form.a_t, form.a_sq, bad, form.forest, form.rho))
    sol = solve_forest_ipm(lp, max_iterations=40)
    assert sol.bounds.lower <= ref.optimal_total_error <= sol.bounds.upper
    assert sol.bounds.relative_width > 1e-6


def test_dense_refuses_beyond_memory_with_estimate():
    lp = build_regular_lp(6, 6, "1/4")
    with pytest.raises(CostLimitError, match="dense class system of 462 classes"):
        solve_forest_ipm(lp, max_memory=1e5)


def test_auto_never_picks_a_forest_route():
    for n, k in [(6, 6), (8, 8), (10, 10)]:
        for eps in (0.05, 0.25, 0.5, 0.7, 2.0):
            assert resolve_method("auto", 10**6 if n == 10 else 30459, eps) not in FOREST_ROUTES


def test_cost_model_refuses_dense_at_n10():
    est = estimate_regular_lp_cost(10, 10, "1/4", method="forest-ipm")
    assert est.memory_bytes > 24 * 92378**2


def test_bad_arguments():
    lp = build_regular_lp(3, 3, 1)
    with pytest.raises(ValueError, match="linear_solver"):
        solve_forest_ipm(lp, linear_solver="lu")
    with pytest.raises(ValueError, match="target_width"):
        solve_forest_ipm(lp, target_width=0)


def test_cg_time_budget_returns_a_valid_interval():
    lp = build_regular_lp(6, 6, "1/4")
    ref = solve_regular_lp(lp, method="generation")
    sol = solve_forest_ipm(lp, linear_solver="cg", time_limit=0.3)
    assert sol.status == "Time limit reached"
    assert sol.bounds.lower <= ref.optimal_total_error <= sol.bounds.upper


def test_options_that_cannot_apply_are_errors():
    lp = build_regular_lp(3, 3, 1)
    with pytest.raises(ValueError, match="threads"):
        solve_regular_lp(lp, method="forest-ipm", threads=2)
    with pytest.raises(ValueError, match="options"):
        solve_regular_lp(lp, method="forest-cg", options={"presolve": "off"})
