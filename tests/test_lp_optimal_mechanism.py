"""The LP-optimal mechanism as an object, and optimality ratios (pf §5, Figure 2, Theorem 3)."""

import itertools

import numpy as np
import pytest
from flint import fmpq

import dpexact
from dpexact.lp import (
    LEMMA7_THRESHOLD,
    build_regular_lp,
    certify_exact,
    dual_feasibility_threshold,
    optimal_mechanism,
    optimality_ratio,
    solve_regular_lp,
    total_expected_error,
)


@pytest.fixture(scope="module")
def opt44():
    return optimal_mechanism(4, 4, "log(3/2)", certify=True)


def test_pmf_is_a_distribution_and_symmetric(opt44):
    q = [0, -2, -2, -8]
    p = opt44.pmf(q, "exact")
    assert sum(p.values, fmpq(0)) == 1
    for perm in itertools.permutations(range(4)):
        pp = opt44.pmf([q[i] for i in perm], "exact").values
        assert list(pp) == [p.values[i] for i in perm]
    # shift invariance on the lattice
    assert opt44.pmf([5, 3, 3, -3], "exact").values == p.values
    assert np.allclose(opt44.pmf(q).values, [float(v) for v in p.values], rtol=1e-15)


def test_optimal_mechanism_satisfies_prop2_privacy_on_the_lattice(opt44):
    """x_r(q) >= e^{-ε} x_r(q + 2Δ e_r) for every q in Q(4, 4) and r (clip rule at the boundary)."""
    from dpexact.lp import lattice_vectors

    rho = fmpq(2, 3)
    for lv in lattice_vectors(4, 4):
        q = [-2 * l for l in lv]
        p = opt44.pmf(q, "exact").values
        for r in range(4):
            q2 = list(q)
            q2[r] += 2
            top = max(q2)
            q2 = [max(v, top - 8) for v in q2]  # back into the bounded lattice (monotone clip)
            assert p[r] >= rho * opt44.pmf(q2, "exact").values[r]


def test_off_lattice_and_wrong_length(opt44):
    with pytest.raises(ValueError, match="scores"):
        opt44.pmf([0, -1, -2, -2])
    with pytest.raises(ValueError, match="scores"):
        opt44.pmf([0, -2, -2, -10])
    with pytest.raises(ValueError, match="scores"):
        opt44.pmf([0, -2, -2])


def test_rvs_frequencies(opt44):
    q = [0, -2, -2, -8]
    draws = opt44.rvs(q, size=20000, random_state=0)
    freq = np.bincount(draws, minlength=4) / draws.size
    p = opt44.pmf(q).values
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / draws.size) + 1e-12)


def test_optimal_mechanism_total_error_is_the_lp_optimum(opt44):
    tot = total_expected_error(opt44, 4, 4, backend="exact")
    assert tot.value == opt44.certificate.optimum


def test_exact_ratio_one_above_threshold_and_above_one_below():
    # Theorem 3: ε = log 3 > log((3+√5)/2) -> PF optimal exactly
    for eps, expect_one in (("log(3)", True), ("log(3/2)", False)):
        lp = build_regular_lp(4, 4, eps)
        sol = solve_regular_lp(lp)
        cert = certify_exact(sol)
        r = optimality_ratio(dpexact.mechanism("pf", epsilon=eps), sol, backend="exact", certificate=cert)
        assert r.error_kind == "exact"
        assert (r.value == 1) == expect_one
        assert r.value >= 1


def test_pf_optimal_wherever_the_dual_is_feasible():
    # the finite-k dual threshold (< Lemma 7's) already implies PF optimal: check LP at ε between them
    th = float(dual_feasibility_threshold(5, 3).epsilon_star.mid())
    eps = (th + LEMMA7_THRESHOLD.to_float()) / 2
    sol = solve_regular_lp(build_regular_lp(5, 3, eps))
    r = optimality_ratio(dpexact.mechanism("pf", epsilon=eps), sol)
    assert abs(r.value - 1) <= r.error_bound


def test_n2_pf_is_optimal_for_every_epsilon():
    for eps in ("0.05", "0.3", "0.9"):
        sol = solve_regular_lp(build_regular_lp(2, 5, eps))
        r = optimality_ratio(dpexact.mechanism("pf", epsilon=eps), sol)
        assert abs(r.value - 1) <= r.error_bound


@pytest.mark.parametrize("eps", ["0.1", "0.5", "1", "2"])
def test_ratios_ordered_pf_le_em_and_at_least_one(eps):
    sol = solve_regular_lp(build_regular_lp(4, 4, eps))
    pf = optimality_ratio(dpexact.mechanism("pf", epsilon=eps), sol)
    em = optimality_ratio(dpexact.mechanism("em", epsilon=eps), sol)
    assert pf.value >= 1 - pf.error_bound
    assert em.value >= pf.value - em.error_bound - pf.error_bound  # Theorem 2 (PF never worse than EM)


def test_ratio_bad_input():
    sol = solve_regular_lp(build_regular_lp(3, 2, "0.5"))
    with pytest.raises(ValueError, match="epsilon"):
        optimality_ratio(dpexact.mechanism("pf", epsilon="0.6"), sol)
    sol0 = solve_regular_lp(build_regular_lp(3, 0, "0.5"))
    with pytest.raises(ValueError, match="k"):
        optimality_ratio(dpexact.mechanism("pf", epsilon="0.5"), sol0)
    with pytest.raises(ValueError, match="backend"):
        optimal_mechanism(3, 2, "0.5").pmf([0, -2, -4], "exact")
