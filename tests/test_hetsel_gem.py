"""GEM / mGEM (hetsel eqs. 6-7) and combined GEM (Algorithm 2)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import spearmanr

import dpexact
from dpexact.mechanisms.heterogeneous.combined_gem import spearman_sign
from dpexact.mechanisms.report_noisy_max import ReportNoisyMax
from test_grr_selection import chi2_pvalue

Q = [1, 1, -1, -1, "0.2"]
S = ["1", "1.8", "1", "1.8", "1.2"]


def transform_float(q, d, t):
    """Brute-force eq. (7) in float: min over a' of ((q_a - q_a') - t(Δ_a - Δ_a'))/(Δ_a + Δ_a')."""
    return np.array([min(((qa - qb) - t * (da - db)) / (da + db) for qb, db in zip(q, d)) for qa, da in zip(q, d)])


@pytest.mark.parametrize("name, sign", [("gem", 1), ("mgem", -1)])
def test_transform_against_eq7(name, sign):
    m = dpexact.mechanism(name, epsilon="0.7", sensitivities=S, beta="0.1")
    t = sign * 2 * math.log(5 / 0.1) / 0.7
    exact = [x.to_float() for x in m.transformed_scores(Q)]
    qf = [float(Fraction(x)) for x in Q]
    df = [float(Fraction(x)) for x in S]
    assert np.allclose(exact, transform_float(qf, df, t), rtol=1e-13, atol=1e-13)
    assert max(exact) == 0.0


def test_two_candidate_behaviour_section_va():
    """hetsel §V-A: q1 < q2, Δ1 > Δ2 -> GEM keeps candidate 2 optimal (q2' = 0, q1' < 0)."""
    m = dpexact.mechanism("gem", epsilon=1, sensitivities=["2", "1"])
    q1p, q2p = m.transformed_scores([0, 1])
    assert q2p.to_float() == 0 and q1p.to_float() < 0
    mm = dpexact.mechanism("mgem", epsilon="0.1", sensitivities=["2", "1"])
    a, b = mm.transformed_scores([0, 1])  # small ε: mGEM favours the larger-Δ, lower-score candidate
    assert a.to_float() == 0 and b.to_float() < 0


@pytest.mark.parametrize("name", ["gem", "mgem"])
def test_pmf_equals_rnm_integral_of_definition(name):
    """Exact PF-law pmf (polynomial) vs rigorous integration of RNM-Exp on q' (independent)."""
    m = dpexact.mechanism(name, epsilon="0.9", sensitivities=S)
    exact = m.pmf(Q, backend="exact")
    qp = m.transformed_scores(Q)
    rnm = ReportNoisyMax(epsilon="0.9", sensitivity=1, noise="exponential").pmf(qp, backend="ball")
    assert rnm.contains(exact.values)
    ball = m.pmf(Q, backend="ball")
    assert ball.contains(exact.values)
    f = m.pmf(Q)
    mids = ball.to_float()
    assert np.all(np.abs(f.values - mids) <= f.rel_error * mids)


def test_em_selector_closed_form():
    m = dpexact.mechanism("gem", epsilon="0.9", sensitivities=S, selector="em")
    qp = np.array([x.to_float() for x in m.transformed_scores(Q)])
    w = np.exp(0.45 * qp)
    assert np.allclose(m.pmf(Q).values, w / w.sum(), rtol=1e-13)


@pytest.mark.parametrize("name, kw", [("gem", {}), ("mgem", {}), ("gem", {"selector": "em"}),
                                      ("combined-gem", {}), ("combined-gem", {"epsilon_c": "0.2"})])
def test_sampler_chi_square(name, kw):
    m = dpexact.mechanism(name, epsilon="1.5", sensitivities=S, **kw)
    assert chi2_pvalue(m, [float(Fraction(x)) for x in Q], size=100_000, seed=3) > 1e-4


def test_spearman_sign_matches_scipy():
    rng = np.random.default_rng(2)
    for _ in range(50):
        x = rng.integers(0, 4, 7).astype(float)
        y = rng.integers(0, 4, 7).astype(float)
        rho = spearmanr(x, y).statistic
        expected = 0 if not np.isfinite(rho) or abs(rho) < 1e-12 else int(np.sign(rho))
        assert spearman_sign(x, y) == expected


@pytest.mark.parametrize("scores, bit", [([3, 2, 1, 0, -1], 0), ([-1, 0, 1, 2, 3], 1)])
def test_combined_gem_is_the_algorithm2_mixture(scores, bit):
    sens = ["1", "1.2", "1.4", "1.6", "1.8"]
    m = dpexact.mechanism("combined-gem", epsilon="2", epsilon_c="log(3)", sensitivities=sens)
    assert m.correlation_bit(scores) == bit
    eg = dpexact.numbers.real.Real.of("2 - log(3)")
    gem = dpexact.mechanism("gem", epsilon=eg, sensitivities=sens).pmf(scores).values
    mgem = dpexact.mechanism("mgem", epsilon=eg, sensitivities=sens).pmf(scores).values
    pi = 3 / 4 if bit else 1 / 4  # 2RR with e^{ε_c} = 3 keeps the bit w.p. 3/4
    f = m.pmf(scores)
    assert np.allclose(f.values, pi * mgem + (1 - pi) * gem, rtol=1e-14)
    ex = m.pmf(scores, backend="exact")
    assert m.pmf(scores, backend="ball").contains(ex.values)


@pytest.mark.parametrize("name, kw, match", [
    ("gem", {"beta": 0}, "beta"),
    ("gem", {"beta": 1}, "beta"),
    ("mgem", {"beta": "-0.1"}, "beta"),
    ("gem", {"selector": "pf"}, "selector"),
    ("gem", {"sensitivities": ["1", "-1"]}, "sensitivities"),
    ("combined-gem", {"epsilon_c": 1}, "epsilon_c"),
    ("combined-gem", {"epsilon_c": 0}, "epsilon_c"),
])
def test_bad_parameters(name, kw, match):
    with pytest.raises(ValueError, match=match):
        dpexact.mechanism(name, epsilon=1, **kw)


def test_length_mismatch():
    with pytest.raises(ValueError, match="sensitivities"):
        dpexact.mechanism("gem", epsilon=1, sensitivities=["1", "2"]).pmf([1, 2, 3])
