"""The reduced LP: same optimum as the unreduced LP (cvxpy) and across solver routes."""

import math

import numpy as np
import pytest

from dpexact.lp import build_regular_lp, solve_regular_lp, solve_unreduced_lp


@pytest.mark.parametrize("boundary", ["clip", "drop"])
@pytest.mark.parametrize(
    "n,k,eps",
    [(2, 1, "0.3"), (2, 4, "0.2"), (3, 2, "1"), (3, 3, "0.3"), (3, 4, "log(3/2)"), (4, 2, "1.5"), (4, 3, "0.1"), (4, 3, "log(2)"), (5, 2, "0.5")],
)
def test_reduced_equals_unreduced(n, k, eps, boundary):
    red = solve_regular_lp(build_regular_lp(n, k, eps, boundary=boundary))
    full = solve_unreduced_lp(n, k, eps, boundary=boundary)
    assert red.optimal_total_error == pytest.approx(full.optimal_total_error, rel=1e-8, abs=1e-10)
    # the unreduced LP really has one variable per (q, r)
    assert full.variables == n * (k + 1) ** n - n * k**n


@pytest.mark.parametrize("n,k,eps", [(4, 4, "0.05"), (5, 4, "0.5"), (6, 3, "2"), (5, 5, "log(3/2)")])
def test_generation_equals_direct_simplex_and_ipm(n, k, eps):
    lp = build_regular_lp(n, k, eps)
    gen = solve_regular_lp(lp)
    sim = solve_regular_lp(lp, method="simplex", scaled=False)
    ipm = solve_regular_lp(lp, method="ipm")
    assert gen.optimal_total_error == pytest.approx(sim.optimal_total_error, rel=1e-9)
    assert gen.optimal_total_error == pytest.approx(ipm.optimal_total_error, rel=1e-8)
    assert gen.optimal_total_error == pytest.approx(gen.dual_total_error, rel=1e-9)
    assert gen.primal_infeasibility < 1e-9


def test_sizes_and_structure():
    lp = build_regular_lp(4, 4, "0.5")
    # one variable per (class, level present), one sum-to-one row per class
    assert lp.num_vars == sum(len(c.levels_present) for c in lp.classes)
    assert len(lp.classes) == math.comb(3 + 4, 4)
    # every variable has exactly one privacy row of its own, except dropped/trivial ones
    assert lp.num_privacy_rows + lp.dropped == lp.num_vars
    drop = build_regular_lp(4, 4, "0.5", boundary="drop")
    assert drop.dropped > lp.dropped  # classes with a score at level k lose their level-0 row


def test_drop_is_a_relaxation_of_clip():
    for eps in ("0.1", "0.7"):
        clip = solve_regular_lp(build_regular_lp(4, 3, eps, boundary="clip")).optimal_total_error
        drop = solve_regular_lp(build_regular_lp(4, 3, eps, boundary="drop")).optimal_total_error
        assert drop <= clip * (1 + 1e-9)


def test_objective_scales_with_sensitivity():
    a = solve_regular_lp(build_regular_lp(3, 3, "0.4")).optimal_total_error
    b = solve_regular_lp(build_regular_lp(3, 3, "0.4", sensitivity="5/2")).optimal_total_error
    assert b == pytest.approx(2.5 * a, rel=1e-12)


def test_warm_start_sweep_gives_cold_optimum():
    prev = None
    for eps in ("1", "0.7", "0.4"):
        lp = build_regular_lp(5, 4, eps)
        warm = solve_regular_lp(lp, warm_start=prev)
        cold = solve_regular_lp(lp)
        assert warm.optimal_total_error == pytest.approx(cold.optimal_total_error, rel=1e-9)
        prev = warm


@pytest.mark.parametrize(
    "kwargs,exc,name",
    [
        (dict(n=3, k=2, epsilon=0), ValueError, "epsilon"),
        (dict(n=3, k=2, epsilon=float("nan")), ValueError, "epsilon"),
        (dict(n=3, k=2, epsilon=float("inf")), ValueError, "epsilon"),
        (dict(n=3, k=2, epsilon="-1"), ValueError, "epsilon"),
        (dict(n=0, k=2, epsilon=1), ValueError, "n"),
        (dict(n=3, k=-1, epsilon=1), ValueError, "k"),
        (dict(n=3, k=2, epsilon=1, sensitivity=0), ValueError, "sensitivity"),
        (dict(n=3, k=2, epsilon=1, boundary="wrap"), ValueError, "boundary"),
        (dict(n=40, k=40, epsilon=1), ValueError, "classes"),
    ],
)
def test_bad_input(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        build_regular_lp(**kwargs)


def test_bad_solver_arguments():
    lp = build_regular_lp(3, 2, 1)
    with pytest.raises(ValueError, match="method"):
        solve_regular_lp(lp, method="barrier")
    with pytest.raises(ValueError, match="warm_start"):
        solve_regular_lp(lp, warm_start=solve_regular_lp(build_regular_lp(3, 3, 1)))
    with pytest.raises(ValueError, match="n, k"):
        solve_unreduced_lp(6, 6, 1)


@pytest.mark.parametrize("n,k,eps", [(4, 4, "0.05"), (5, 5, "log(3/2)"), (6, 4, "0.25")])
def test_hipo_route_matches_generation_and_certifies(n, k, eps):
    # HiPO (direct-factorisation IPM + crossover) is an optional extra; CI installs it
    # (.ci/run: pip install -e ".[test,hipo]"), so this test runs there and never skips.
    from dpexact.lp import certify_exact

    lp = build_regular_lp(n, k, eps)
    gen = solve_regular_lp(lp)
    hipo = solve_regular_lp(lp, method="hipo")
    assert hipo.method == "hipo" and hipo.iterations > 0
    assert hipo.optimal_total_error == pytest.approx(gen.optimal_total_error, rel=1e-9)
    assert hipo.primal_infeasibility < 1e-9
    if lp.rho.is_rational:  # the crossover basis is an exactly optimal basis
        assert certify_exact(hipo).certified


def test_hipo_missing_extension_is_a_clear_error(monkeypatch):
    from importlib import metadata

    real = metadata.version

    def fake(name):
        if name == "highspy-extras":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", fake)
    lp = build_regular_lp(3, 3, "0.5")
    with pytest.raises(RuntimeError, match=r"highspy-extras.*dpexact\[hipo\]"):
        solve_regular_lp(lp, method="hipo")


def test_auto_route_choice(monkeypatch):
    import dpexact.lp.cost_model as cost_model

    small = build_regular_lp(4, 4, "0.25")
    assert solve_regular_lp(small).method == "generation"
    monkeypatch.setattr(cost_model, "AUTO_SMALL_VARS", 0)  # pretend the LP is large
    low = solve_regular_lp(build_regular_lp(5, 5, "0.25"))
    high = solve_regular_lp(build_regular_lp(5, 5, "1"))
    assert low.method == "hipo" and high.method == "generation"
    ref = solve_regular_lp(build_regular_lp(5, 5, "0.25"), method="generation")
    assert low.optimal_total_error == pytest.approx(ref.optimal_total_error, rel=1e-9)


def test_generation_retries_a_round_that_highs_loses(monkeypatch):
    """A round HiGHS fails (numerical trouble, status "Not Set") is solved again from scratch."""
    import dpexact.lp.generation as generation

    lp = build_regular_lp(5, 5, "0.3")
    ref = solve_regular_lp(lp, method="generation")
    real_run = generation._run
    calls = {"n": 0}

    def flaky(h, accept_limits=False):
        calls["n"] += 1
        if calls["n"] == 2:  # the second round
            raise RuntimeError("HiGHS did not find an optimum: Not Set after 0.0 s")
        return real_run(h, accept_limits)

    monkeypatch.setattr(generation, "_run", flaky)
    sol = solve_regular_lp(lp, method="generation")
    assert calls["n"] >= 3 and ref.rounds >= 2
    assert sol.optimal_total_error == pytest.approx(ref.optimal_total_error, rel=1e-12)
    assert sol.bounds.lower <= ref.optimal_total_error * (1 + 1e-12) <= sol.bounds.upper * (1 + 2e-12)


@pytest.mark.parametrize("n,k", [(1, 3), (2, 1), (3, 4), (5, 2), (6, 6), (8, 3)])
def test_max_objective_weight_is_the_largest_weight_of_the_lp(n, k):
    from dpexact.lp.regular_lp import max_objective_weight

    lp = build_regular_lp(n, k, "1")
    weights = [int(m) * int(c) * int(lvl) for m, c, lvl in zip(lp.var_mult, lp.var_count, lp.var_level)]
    assert max_objective_weight(n, k) == max(weights, default=0)


def test_lp_refused_where_its_weights_are_not_exact_floats():
    # the proven bounds need mult·c_ℓ·ℓ < 2^53: Q(50, 1) is solved (max weight 50·C(49, 24) = 3.2e15), Q(70, 1) refused at once
    import math

    from dpexact.lp.regular_lp import max_objective_weight

    assert max_objective_weight(50, 1) == 50 * math.comb(49, 24) < 2**53 <= max_objective_weight(70, 1)
    sol = solve_regular_lp(build_regular_lp(50, 1, "1"))
    assert sol.bounds.lower <= sol.optimal_total_error <= sol.bounds.upper
    for n in (70, 100, 1022):
        with pytest.raises(ValueError, match=rf"n, k: Q\({n}, 1\).*2\^53"):
            build_regular_lp(n, 1, "1")
