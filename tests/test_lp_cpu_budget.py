"""max_seconds is a CPU-time budget enforced during the solve (HiGHS interrupt callbacks)."""

import pytest

from dpexact.cost_limits import CostEstimate
from dpexact.lp import solver as solver_mod
from dpexact.lp.regular_lp import build_regular_lp
from dpexact.lp.solver import BudgetSpent, solve_regular_lp


@pytest.fixture
def tiny_estimate(monkeypatch):
    """The cost model says the solve is free, so only the budget during the solve can stop it."""
    monkeypatch.setattr(solver_mod, "estimate_regular_lp_cost",
                        lambda *a, **k: CostEstimate("test", 1.0, 0.0, "test", {"solve": 0.0}))


def test_simplex_routes_stop_at_the_cpu_budget(tiny_estimate):
    lp = build_regular_lp(6, 6, "0.25")
    for method in ("generation", "simplex"):
        with pytest.raises(BudgetSpent, match="CPU-time budget"):
            solve_regular_lp(lp, method=method, max_seconds=1e-6)


def test_interior_routes_stop_at_the_cpu_budget(tiny_estimate):
    """HiGHS keeps no iterate after an interrupt, so an interior route out of budget is an error too."""
    lp = build_regular_lp(6, 6, "0.25")
    for method in ("ipm", "hipo"):
        with pytest.raises(BudgetSpent, match="CPU-time budget"):
            solve_regular_lp(lp, method=method, crossover=False, max_seconds=1e-6)


def test_a_budget_that_suffices_gives_the_optimum():
    lp = build_regular_lp(5, 5, "0.25")
    ref = solve_regular_lp(lp, method="generation").optimal_total_error
    sol = solve_regular_lp(lp, method="ipm", max_seconds=60)
    assert sol.status == "Optimal"
    assert abs(sol.optimal_total_error - ref) <= 1e-7 * ref
