"""Proven float64 bounds on the LP optimum (tree sweeps), the privacy forest, interior routes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.lp import build_regular_lp, certify_exact, enclose_optimum, optimality_ratio, solve_regular_lp, total_expected_error
from dpexact.lp.privacy_forest import forest_depths, privacy_forest
from dpexact.lp.solver import _primal_violation
from dpexact.lp.tree_bounds import optimum_bounds

EXACT_CASES = [(4, 4, "log(2)", "clip"), (4, 4, "log(3/2)", "clip"), (5, 3, "log(5/4)", "clip"), (3, 5, "log(2)", "drop")]


def _exact(n, k, eps, boundary):
    lp = build_regular_lp(n, k, eps, boundary=boundary)
    sol = solve_regular_lp(lp, method="simplex")
    cert = certify_exact(sol)
    assert cert.certified
    return lp, sol, float(cert.optimum)


@pytest.mark.parametrize("n,k,eps,boundary", EXACT_CASES)
def test_bounds_of_a_vertex_contain_the_exact_optimum_tightly(n, k, eps, boundary):
    lp, sol, opt = _exact(n, k, eps, boundary)
    for method in ("generation", "simplex"):
        b = solve_regular_lp(lp, method=method).bounds
        assert b.lower <= opt <= b.upper
        assert b.relative_width < 1e-10


@pytest.mark.parametrize("n,k,eps,boundary", EXACT_CASES[:2])
@settings(max_examples=15, deadline=None)
@given(scale=st.floats(1e-12, 1e-2), seed=st.integers(0, 2**32 - 1))
def test_bounds_stay_valid_for_perturbed_solutions(n, k, eps, boundary, scale, seed):
    """Any primal/dual guess gives a valid interval; the exact optimum (fmpq certificate) stays inside."""
    lp, sol, opt = _exact(n, k, eps, boundary)
    rng = np.random.default_rng(seed)
    good = _class_duals(lp, sol)
    z = sol.z * (1 + scale * rng.standard_normal(sol.z.size))
    y = good * (1 + scale * rng.standard_normal(good.size)) + scale * rng.standard_normal(good.size)
    b = optimum_bounds(lp, z, y)
    assert b.lower <= opt <= b.upper
    assert _primal_violation(lp, b.z) <= 1e-15


def _class_duals(lp, sol):
    cert = certify_exact(sol)
    return np.array([float(v) for v in cert.y[: len(lp.classes)]]) / lp.num_vectors


def test_bounds_from_nothing_are_the_anchor_and_zero():
    """u = 0 is dual feasible (costs >= 0) and z = 0 falls back to the anchor, EM at ε/2."""
    lp = build_regular_lp(4, 3, "log(2)")
    b = optimum_bounds(lp, np.zeros(lp.num_vars), np.zeros(len(lp.classes)))
    assert -1e-300 < b.lower <= 0.0  # 0, rounded down
    em_half = total_expected_error(dpexact.mechanism("em", epsilon="log(2)/2"), 4, 3, backend="exact")
    assert em_half.as_float <= b.upper <= em_half.as_float * (1 + 1e-12)
    assert b.mixing == 0.0


def test_interior_point_routes_bracket_the_vertex_optimum():
    lp = build_regular_lp(6, 5, "0.3")
    opt = solve_regular_lp(lp).optimal_total_error
    for method in ("hipo", "pdlp"):
        sol = solve_regular_lp(lp, method=method, crossover=False)
        assert not sol.is_vertex and sol.basis is None
        assert sol.bounds.lower <= opt * (1 + 1e-12) and opt <= sol.bounds.upper * (1 + 1e-12)
        assert sol.bounds.relative_width < 1e-5
        assert sol.primal_infeasibility <= 1e-15  # z is the proven-feasible mixture
        assert sol.optimal_total_error == pytest.approx(sol.bounds.upper, rel=1e-12)
    # the ball enclosure from a vertex (independent arb code) overlaps
    enc = enclose_optimum(solve_regular_lp(lp, method="simplex"))
    assert float(enc.lower.lower()) <= sol.bounds.upper and sol.bounds.lower <= float(enc.upper.upper())


def test_tree_crossover_gives_a_vertex_that_certifies():
    lp = build_regular_lp(5, 5, "log(3/2)")
    for method in ("hipo", "pdlp"):
        sol = solve_regular_lp(lp, method=method)
        assert sol.is_vertex
        assert certify_exact(sol).certified


def test_limited_interior_iterate_is_returned_with_valid_bounds():
    lp = build_regular_lp(6, 6, "0.25")
    opt = solve_regular_lp(lp).optimal_total_error
    cut = {"pdlp_iteration_limit": 300}
    sol = solve_regular_lp(lp, method="pdlp", crossover=False, options=cut)
    assert sol.status == "Iteration limit reached"
    assert sol.bounds.lower <= opt * (1 + 1e-12) and opt <= sol.bounds.upper * (1 + 1e-12)
    assert sol.bounds.relative_width > 1e-6  # a rough iterate, and the bounds say so
    with pytest.raises(RuntimeError, match="Iteration limit"):
        solve_regular_lp(lp, method="simplex", options={"simplex_iteration_limit": 10})


def test_ratio_error_bound_comes_from_the_proven_interval():
    lp = build_regular_lp(5, 4, "0.4")
    vertex = solve_regular_lp(lp)
    interior = solve_regular_lp(lp, method="hipo", crossover=False)
    pf = dpexact.mechanism("pf", epsilon="0.4")
    r_v, r_i = optimality_ratio(pf, vertex), optimality_ratio(pf, interior)
    assert abs(r_v.as_float - r_i.as_float) <= r_v.error_bound + r_i.error_bound
    assert r_i.error_bound >= r_i.as_float * interior.bounds.relative_width * 0.5


def test_bad_input():
    lp = build_regular_lp(3, 3, "0.5")
    z, u = np.zeros(lp.num_vars), np.zeros(len(lp.classes))
    with pytest.raises(ValueError, match="z"):
        optimum_bounds(lp, z[:-1], u)
    with pytest.raises(ValueError, match="class_duals"):
        optimum_bounds(lp, z, u[:-1])
    with pytest.raises(ValueError, match="finite"):
        optimum_bounds(lp, np.full(lp.num_vars, np.nan), u)
    with pytest.raises(TypeError, match="crossover"):
        solve_regular_lp(lp, method="hipo", crossover="no")
    with pytest.raises(ValueError, match="crossover_time_limit"):
        solve_regular_lp(lp, method="hipo", crossover_time_limit=-1)


@pytest.mark.parametrize("n,k,boundary", [(4, 4, "clip"), (5, 3, "drop")])
def test_privacy_forest_and_subtree_sums(n, k, boundary):
    lp = build_regular_lp(n, k, "0.7", boundary=boundary)
    f = privacy_forest(lp)
    assert (f.parent[lp.row_var] == lp.row_other).all()
    assert sum(g.size for g in f.levels) == lp.num_vars
    nonroot = f.parent >= 0
    assert (f.depth[nonroot] == f.depth[f.parent[nonroot]] + 1).all()
    if boundary == "clip":
        assert f.levels[0].size == 1  # one tree
    rng = np.random.default_rng(0)
    x = rng.standard_normal(lp.num_vars)
    rho = 0.6
    naive = x.copy()
    for v in sorted(range(lp.num_vars), key=lambda v: -f.depth[v]):  # deepest first, one by one
        if f.parent[v] >= 0:
            naive[f.parent[v]] += rho * naive[v]
    assert np.allclose(f.subtree_sums(x, rho), naive, rtol=1e-12, atol=1e-12)


def test_forest_depths_rejects_a_cycle():
    with pytest.raises(ValueError, match="cycle"):
        forest_depths(np.array([1, 2, 0]))


def test_tree_crossover_out_of_time_returns_the_interior_solution():
    lp = build_regular_lp(6, 6, "0.05")
    ref = solve_regular_lp(lp, method="generation").optimal_total_error
    sol = solve_regular_lp(lp, method="pdlp", options={"pdlp_iteration_limit": 400},
                           crossover_time_limit=1e-9)
    assert not sol.is_vertex and sol.basis is None
    assert sol.bounds.lower <= ref * (1 + 1e-12) and ref <= sol.bounds.upper * (1 + 1e-12)


def test_identify_cut_rows_picks_a_basis_sized_set_by_slack_over_dual():
    from dpexact.lp.tree_crossover import identify_cut_rows

    lp = build_regular_lp(4, 4, "0.5")
    npr = lp.num_privacy_rows
    ncut = npr - lp.num_vars + len(lp.classes)
    slack = np.linspace(0.0, 1.0, npr)
    dual = np.ones(npr)
    cut = identify_cut_rows(lp, slack, dual)
    assert cut.sum() == ncut and cut[-ncut:].all()  # the largest slacks
    with pytest.raises(ValueError, match="slack, dual"):
        identify_cut_rows(lp, slack[:-1], dual)
