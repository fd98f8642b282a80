"""adp claims (proofs_checks/adp/): independent recomputations
(scipy.stats normal cdf, numpy softmax, dp_accounting PLD composition)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm

from test_proofs_checks_reference import em_pmf
from claim_runs import run




def delta_exact(eps: float, sigma: float, sens: float = 1.0) -> float:
    """Balle & Wang (2018) Thm 8 with scipy (log-space for the second term)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return float(norm.cdf(a - b) - math.exp(eps + norm.logcdf(-a - b)))


def sigma_classical(eps: float, delta: float) -> float:
    return math.sqrt(2 * math.log(1.25 / delta)) / eps


def test_theorem_2_gaussian_eps_at_most_one():
    v = run("adp.theorem.2")
    assert v.certified
    for eps in (0.05, 0.5, 1.0):
        for d in (1e-3, 1e-6, 1e-10):
            assert delta_exact(eps, sigma_classical(eps, d)) <= d
    w = v.evidence["worst_delta_exact/delta"]
    assert delta_exact(w["epsilon"], sigma_classical(w["epsilon"], w["delta"])) == pytest.approx(w["delta_exact"], rel=1e-9)


def test_gaussian_calibration_fails_above_one():
    v = run("adp.text.gaussian-eps-above-one")
    assert v.certified
    eps, d = v.evidence["smallest_failing_eps"]
    assert delta_exact(eps, sigma_classical(eps, d)) > d


def test_gaussian_delta_of_epsilon():
    v = run("adp.text.gaussian-delta-of-epsilon")  # the quick grid (σ = 1/4 up to ε = 5) already fails
    assert v.certified
    b = v.evidence["violations"][0]
    s = float(Fraction(b["sigma"]))
    assert delta_exact(b["epsilon"], s) > 1.25 * math.exp(-b["epsilon"] ** 2 * s**2 / 2)


def test_privacy_loss_is_gaussian():
    v = run("adp.text.gaussian-plrv")
    assert v.certified
    from scipy.integrate import quad

    s = 2.0  # Δ = 1: L(y) = log(φ_σ(y) / φ_σ(y − 1)) computed from the densities
    L = lambda y: norm.logpdf(y, 0, s) - norm.logpdf(y, 1, s)  # noqa: E731
    m = quad(lambda y: L(y) * norm.pdf(y, 0, s), -60, 60, epsabs=1e-13)[0]
    var = quad(lambda y: (L(y) - m) ** 2 * norm.pdf(y, 0, s), -60, 60, epsabs=1e-13)[0]
    assert m == pytest.approx(1 / 8, rel=1e-9) and var == pytest.approx(1 / 4, rel=1e-9)


def test_gaussian_tail_bound():
    v = run("adp.text.gaussian-tail-bound")
    assert v.certified
    t = np.linspace(0.01, 12, 5000)
    assert np.all(2 * norm.sf(t) <= 2 * np.exp(-(t**2) / 2))


def test_gaussian_vs_laplace_variance():
    v = run("adp.text.gaussian-vs-laplace-variance")
    assert v.certified
    assert v.evidence["threshold_float"] == pytest.approx(1.25 / math.e, rel=1e-15)
    assert 2 * math.log(1.25 / 0.5) < 2  # Var_Gauss/(Δ/ε)^2 at δ = 1/2 vs Var_Laplace/(Δ/ε)^2 = 2


def test_basic_composition():
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    v = run("adp.theorem.1")
    assert v.certified
    # independent: dp_accounting PLD of k Laplace(ε) releases at ε_total = kε gives δ ≈ 0
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.LaplaceDpEvent(noise_multiplier=2.0), 10)  # ε = 1/2 each
    assert acc.get_delta(5.0) < 1e-9
    row = v.evidence["sample"][0]
    from proofs_checks.adp.composition import rr_hockey_stick_basic

    H, pos = rr_hockey_stick_basic([Fraction(e) for e in row["eps"]], [Fraction(0)] * len(row["eps"]))
    assert H == 0 and pos == 0


def _rr_hockey_stick_float(eps: float, k: int, eps_total: float) -> float:
    a, b = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    return sum(max(0.0, math.comb(k, i) * (a ** (k - i) * b**i - math.exp(eps_total) * b ** (k - i) * a**i)) for i in range(k + 1))


def test_advanced_composition():
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    v = run("adp.theorem.3")
    assert v.certified
    t = v.evidence["tightest"]
    if t["delta"] == "0":
        assert _rr_hockey_stick_float(float(Fraction(t["eps"])), t["k"], t["eps_tilde"]) == pytest.approx(t["H"], rel=1e-6, abs=1e-15)
    # independent: 100 Laplace(ε = 0.1) releases (pure ε-DP) via dp_accounting at ε̃ with δ' = 1e-6
    eps, k, dp = 0.1, 100, 1e-6
    et = eps * math.sqrt(2 * k * math.log(1 / dp)) + k * eps * (math.exp(eps) - 1) / (math.exp(eps) + 1)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.LaplaceDpEvent(noise_multiplier=1 / eps), k)
    assert acc.get_delta(et) <= dp
    assert _rr_hockey_stick_float(eps, k, et) <= dp


def test_tanh_approximation():
    v = run("adp.text.tanh-approximation")
    assert v.certified
    e = 1e-4
    assert (math.exp(e) - 1) / (math.exp(e) + 1) / (e / 2) == pytest.approx(1, abs=1e-8)


def test_theorem_4_em_privacy():
    v = run("adp.theorem.4")
    assert v.certified and v.evidence["max_ratio/e^eps"] <= 1
    q, eps = np.array([0.0, -0.4, -3.0, -1.0]), 1.0
    r = 2
    q2 = q + np.where(np.arange(4) == r, 1.0, -1.0)
    assert em_pmf(q2, eps)[r] / em_pmf(q, eps)[r] <= math.exp(eps)


def test_theorem_5_em_utility():
    v = run("adp.theorem.5")
    assert v.certified and v.evidence["max Pr/δ"] <= 1
    k, eps, d = 50, 1.0, 0.01
    T = 2 * (math.log(k) + math.log(1 / d)) / eps
    q = np.array([0.0] + [-T] * (k - 1))  # the worst-case vector sits exactly at the threshold
    assert em_pmf(q, eps)[1:].sum() <= d


def test_voting_sentence_drops_factor_two():
    v = run("adp.text.voting-bound-without-factor-two")
    assert v.certified
    k, eps, d = 1000, 0.5, 0.01
    T = (math.log(k) + math.log(1 / d)) / eps
    q = np.array([0.0] + [-T] * (k - 1))
    assert em_pmf(q, eps)[1:].sum() == pytest.approx(v.evidence["counterexamples"][0]["Pr[E>=T]"], rel=1e-9)
    assert em_pmf(q, eps)[1:].sum() > d


def test_voting_example_46():
    v = run("adp.text.voting-example-46")
    assert v.certified
    assert round(4 * (math.log(1000) + math.log(100))) == 46 and round(math.sqrt(1000) / 0.5) == 63


def test_equation_2_plrv_condition():
    v = run("adp.equation.2")
    assert v.certified
    s, eps = 1.0, 0.5
    mu = 1 / (2 * s * s)
    p_abs = norm.cdf((-eps - mu) / math.sqrt(2 * mu)) + norm.sf((eps - mu) / math.sqrt(2 * mu))
    assert delta_exact(eps, s) < p_abs
