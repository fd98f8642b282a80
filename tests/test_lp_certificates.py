"""pf App. D dual recurrence, Lemma 7, exact certification and ball enclosures."""

import math

import mpmath
import pytest
from flint import arb, fmpq

import dpexact
from dpexact.lp import (
    LEMMA7_THRESHOLD,
    build_regular_lp,
    certify_exact,
    dual_certificate,
    dual_feasibility_threshold,
    enclose_optimum,
    lemma7_sum,
    solve_regular_lp,
    total_expected_error,
)


def test_lemma7_closed_form_and_threshold():
    # at ρ = e^{-ε*} = (3-√5)/2 the infinite sum is exactly 1 (pf Lemma 7)
    rho = (-LEMMA7_THRESHOLD.to_arb(200)).exp()
    assert lemma7_sum(rho).contains(1)
    assert (LEMMA7_THRESHOLD.to_arb(200) - (arb(5).sqrt() * 0.5 + 0.5).log() * 2).contains(0)  # = 2 log φ
    # closed form vs partial sums
    r = fmpq(2, 5)
    assert abs(float(lemma7_sum(r)) - float(lemma7_sum(r, 200))) < 1e-15
    assert lemma7_sum(r, 3) == r + 2 * r**2 + 3 * r**3


@pytest.mark.parametrize("n,k", [(3, 2), (4, 4), (5, 3)])
def test_dual_objective_equals_pf_total_error(n, k):
    """Complementary slackness: Σ y (dual objective) = −Σ_q E[err(PF, q)], computed independently from PF's pmf."""
    for eps in ("log(2)", "log(3)", "log(3/2)"):
        cert = dual_certificate(n, k, eps)
        pf = total_expected_error(dpexact.mechanism("pf", epsilon=eps), n, k, backend="exact")
        assert cert.dual_objective == -pf.value


@pytest.mark.parametrize("n,k", [(2, 3), (3, 3), (4, 4), (6, 2), (3, 8)])
def test_dual_feasible_from_the_threshold_up(n, k):
    for eps in ("log((3+sqrt(5))/2)", "1", "1.5", "3", "log(3)"):
        cert = dual_certificate(n, k, eps, backend="ball")
        assert cert.feasible and cert.bounds_10_11, eps
    assert dual_certificate(n, k, "log(3)").feasible  # exact rational arithmetic


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_feasibility_threshold_is_the_finite_lemma7_root(k):
    """For n >= 3 the first infeasibility is at Σ_{t<=k} t ρ^t = 1 (independent: mpmath root finding)."""
    th = dual_feasibility_threshold(4, k)
    if k == 1:
        assert th.epsilon_star is None  # Σ_{t<=1} t ρ^t = ρ < 1 always
        return
    rho = mpmath.findroot(lambda r: sum(t * r**t for t in range(1, k + 1)) - 1, 0.4)
    assert float(th.epsilon_star.mid()) == pytest.approx(-float(mpmath.log(rho)), abs=1e-12)
    assert th.epsilon_star < LEMMA7_THRESHOLD.to_arb()
    e = float(th.epsilon_star.mid())
    assert dual_certificate(4, k, e + 1e-6, backend="ball").feasible
    assert not dual_certificate(4, k, e - 1e-6, backend="ball").feasible


def test_n2_dual_always_feasible():
    assert dual_feasibility_threshold(2, 6).epsilon_star is None
    assert dual_certificate(2, 6, "0.01", backend="ball").feasible


@pytest.mark.parametrize("eps", ["log(2)", "log(3/2)", "log(3)", "log(11/10)"])
def test_exact_certification_n4_k4(eps):
    lp = build_regular_lp(4, 4, eps)
    for method in ("generation", "simplex"):
        sol = solve_regular_lp(lp, method=method)
        cert = certify_exact(sol)
        assert cert.certified, cert.failure
        assert all(cert.checks.values())
        assert float(cert.optimum) == pytest.approx(sol.optimal_total_error, rel=1e-10)
        # the exact optimum never exceeds PF's exact total error (PF is feasible)
        pf = total_expected_error(dpexact.mechanism("pf", epsilon=eps), 4, 4, backend="exact").value
        assert cert.optimum <= pf


def test_enclosure_contains_exact_optimum():
    for eps in ("log(2)", "log(3/2)"):
        sol = solve_regular_lp(build_regular_lp(4, 3, eps))
        exact = certify_exact(sol).optimum
        enc = enclose_optimum(sol)
        assert enc.lower.lower() <= arb(exact) <= enc.upper.upper()
        assert enc.width < 1e-8


def test_enclosure_irrational_epsilon_brackets_pf_when_optimal():
    # ε = 1.2 > log((3+√5)/2): PF is optimal (Theorem 3), so PF's rigorous total lies in the enclosure
    sol = solve_regular_lp(build_regular_lp(4, 3, "1.2"))
    enc = enclose_optimum(sol, prec=128)
    pf = total_expected_error(dpexact.mechanism("pf", epsilon="1.2"), 4, 3, backend="ball")
    lo, hi = enc.lower.lower(), enc.upper.upper()
    assert lo <= pf.value.upper() and pf.value.lower() <= hi
    assert enc.width < 1e-8


def test_certify_rejects_irrational_rho():
    sol = solve_regular_lp(build_regular_lp(3, 2, "0.5"))
    with pytest.raises(ValueError, match="epsilon"):
        certify_exact(sol)
    with pytest.raises(ValueError, match="epsilon"):
        dual_certificate(3, 2, "0.5", backend="exact")
