"""Hockey-stick divergence, privacy profiles and the adp lecture's Gaussian claims."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from flint import fmpq

import dpexact
from dpexact.accounting.hockey_stick import hockey_stick, privacy_profile
from dpexact.accounting.privacy_profiles import (adp_gaussian_delta_claim, adp_gaussian_sigma, gaussian_profile,
                                             gaussian_profile_ball, laplace_profile)

# dp_accounting is in the test extra: a missing install must fail, never skip
from dp_accounting.pld import privacy_loss_distribution as pld  # noqa: E402


def brute_force_delta(P, Q, w):
    """max over output sets S of P(S) - w Q(S) (independent of the per-output formula)."""
    n = len(P)
    return max(sum(P[i] - w * Q[i] for i in S) for k in range(n + 1) for S in itertools.combinations(range(n), k))


def test_exact_hockey_stick_equals_subset_maximum():
    m = dpexact.mechanism("pf", epsilon="2*log(3)")
    P = m.pmf([0, 1, -1, 0], "exact").values
    Q = m.pmf([1, 0, 0, -1], "exact").values
    for w in (1, 2, 3, 9):
        d = hockey_stick(P, Q, f"log({w})")
        assert isinstance(d, type(fmpq(0)))
        assert d == brute_force_delta(P, Q, fmpq(w))
    # at ε' = ε the mechanism is ε-DP on this pair: δ = 0 exactly
    assert hockey_stick(P, Q, "2*log(3)") == 0


def test_ball_and_float_enclose_exact():
    m = dpexact.mechanism("em", epsilon="2*log(2)")
    P = m.pmf([0, 1, -1], "exact").values
    Q = m.pmf([1, 0, 0], "exact").values
    ex = hockey_stick(P, Q, "log(3/2)")
    b = hockey_stick(P, Q, "log(3/2)", backend="ball")
    from flint import arb, ctx

    old, ctx.prec = ctx.prec, 512
    try:
        assert b.contains(arb(ex))  # a 512-bit enclosure of the exact rational
    finally:
        ctx.prec = old
    val, err = hockey_stick(np.array([float(x.p) / float(x.q) for x in P]), np.array([float(x.p) / float(x.q) for x in Q]),
                            "log(3/2)", backend="float")
    assert abs(val - float(ex.p) / float(ex.q)) <= err


def test_against_dp_accounting_two_pmfs():
    m = dpexact.mechanism("em", epsilon=1)
    P = m.pmf([0, 2, -1], "ball").values
    Q = m.pmf([1, 1, 0], "ball").values
    lp = {i: math.log(float(p.mid())) for i, p in enumerate(P)}
    lq = {i: math.log(float(q.mid())) for i, q in enumerate(Q)}
    # dp_accounting: δ = Σ max(0, upper - e^ε lower); upper = P, lower = Q
    acc = pld.from_two_probability_mass_functions(lq, lp, value_discretization_interval=1e-6)
    for e in (0.0, 0.2, 0.5):
        ours = hockey_stick(P, Q, e, backend="ball")
        theirs = acc.get_delta_for_epsilon(e)
        assert float(ours.mid()) == pytest.approx(theirs, abs=1e-5)  # their discretisation, 1e-6 per loss


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_gaussian_profile_against_dp_accounting(sigma):
    acc = pld.from_gaussian_mechanism(sigma, sensitivity=1, value_discretization_interval=1e-4)
    for e in (0.0, 0.5, 1.0, 2.0):
        b = gaussian_profile_ball(e, sigma)
        assert float(b.mid()) == pytest.approx(acc.get_delta_for_epsilon(e), abs=1e-3)  # PLD grid 1e-4
        assert gaussian_profile(e, sigma) == pytest.approx(float(b.mid()), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("b", [0.5, 1.0, 2.0])
def test_laplace_profile_against_dp_accounting(b):
    acc = pld.from_laplace_mechanism(b, sensitivity=1, value_discretization_interval=1e-5)
    for e in (0.0, 0.25, 0.5, 1.5):
        assert laplace_profile(e, b) == pytest.approx(acc.get_delta_for_epsilon(e), abs=2e-4)


def test_adp_theorem2_calibration_holds_for_eps_at_most_one():
    # adp Def. 5 / Thm 2: σ = √(2 ln(1.25/δ))Δ/ε is (ε, δ)-DP for ε <= 1 (checked rigorously on a grid)
    for delta in (1e-6, 1e-3, 0.1):
        for eps in (0.05, 0.25, 0.5, 1.0):
            s = adp_gaussian_sigma(eps, delta)
            assert gaussian_profile_ball(eps, s).upper() <= delta


def test_adp_restatement_for_every_eps_is_false():
    # adp §3: "δ(ε) = 1.25 exp(-ε²σ²/2Δ²) for every ε > 0". At σ = Δ/4, ε = 12 the true
    # (analytic) δ is ~0.11 while the formula gives ~0.014: the restatement fails for large ε.
    true = gaussian_profile_ball(12, "1/4")
    assert true.lower() > adp_gaussian_delta_claim(12, 0.25)
    # ... while it does hold at ε <= 1 for σ calibrated as in Thm 2
    assert gaussian_profile_ball(1, 2).upper() <= adp_gaussian_delta_claim(1, 2)


def test_privacy_profile_of_em_vanishes_at_its_epsilon():
    m = dpexact.mechanism("em", epsilon="2*log(2)")
    prof = privacy_profile(m, [([0, 1], [1, 0]), ([0, 0], [1, -1])], ["log(2)", "2*log(2)"])
    assert prof[1].delta == 0 and prof[0].delta > 0


def test_bad_inputs():
    with pytest.raises(ValueError, match="same length"):
        hockey_stick([fmpq(1)], [fmpq(1, 2), fmpq(1, 2)], 0)
    with pytest.raises(ValueError, match="eps_prime"):
        hockey_stick([1.0], [1.0], float("nan"), backend="float")
    with pytest.raises(ValueError, match="sigma"):
        gaussian_profile(1, 0)
    with pytest.raises(ValueError, match="delta"):
        adp_gaussian_sigma(1, 2)
    with pytest.raises(ValueError, match="backend"):
        hockey_stick([1.0], [1.0], 0, backend="mp")
