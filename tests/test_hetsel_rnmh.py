"""RNM at the global Δ (hetsel eq. 3), RNMH (eq. 4), RNMH-Laplace, and the HG / MSE metrics."""

import math

import numpy as np
import pytest

import dpexact
from dpexact.mechanisms.heterogeneous import hg, squared_error
from dpexact.numbers.real import Real
from test_grr_selection import chi2_pvalue


@pytest.mark.parametrize("d1, d2", [("1", "2"), ("2", "1"), ("0.5", "0.5"), ("3", "0.25")])
def test_two_candidate_closed_forms_section_va(d1, d2):
    """hetsel §V-A: Pr(lower wins) = e^{-ε(q2-q1)/(2Δ)}/2 (RNM) and e^{-ε(q2-q1)/(2Δ1)}/(1+Δ2/Δ1) (RNMH)."""
    eps, q = 1.0, [0, 1]
    D1, D2 = float(Real.of(d1)), float(Real.of(d2))
    rnmh = dpexact.mechanism("rnmh", epsilon=eps, sensitivities=[d1, d2]).pmf(q, backend="ball")
    expected = math.exp(-eps / (2 * D1)) / (1 + D2 / D1)
    assert abs(float(rnmh.values[0].mid()) - expected) < 1e-14
    assert float(rnmh.values[0].rad()) < 1e-30
    glob = dpexact.mechanism("rnm-global", epsilon=eps, sensitivities=[d1, d2])
    assert abs(glob.pmf(q).values[0] - math.exp(-eps / (2 * max(D1, D2))) / 2) < 1e-15
    quad = glob.pmf(q, backend="ball", method="quadrature")
    assert quad.contains(glob.pmf(q, backend="exact").values)
    # HG(RNM, RNMH) > 0 iff Δ1 < Δ2 (hetsel §V-A)
    h = hg(glob, dpexact.mechanism("rnmh", epsilon=eps, sensitivities=[d1, d2]), q, backend="ball")
    if D1 < D2:
        assert h.value > 0
    elif D1 > D2:
        assert h.value < 0


def test_rnmh_laplace_scale_option():
    q = [0.0, 0.4, -0.3]
    s = ["1", "2", "0.5"]
    a = dpexact.mechanism("rnmh-laplace", epsilon=1, sensitivities=s, noise_factor=2).pmf(q, backend="ball")
    b = dpexact.mechanism("rnm-laplace", epsilon=1, scales=["2", "4", "1"]).pmf(q, backend="ball")
    assert np.allclose(a.to_float(), b.to_float(), atol=1e-30, rtol=0)
    # halving the noise scales is the same as doubling ε
    c = dpexact.mechanism("rnmh-laplace", epsilon=2, sensitivities=s, noise_factor=2).pmf(q, backend="ball")
    d = dpexact.mechanism("rnmh-laplace", epsilon=1, sensitivities=s).pmf(q, backend="ball")
    assert np.allclose(c.to_float(), d.to_float(), atol=1e-30, rtol=0)


@pytest.mark.parametrize("name", ["rnmh", "rnmh-laplace", "rnm-global"])
def test_sampler_chi_square(name):
    m = dpexact.mechanism(name, epsilon="0.8", sensitivities=["1", "2", "0.5", "1"])
    assert chi2_pvalue(m, [0.0, 0.4, -0.3, 1.0], size=100_000, seed=5) > 1e-4


def test_squared_error_exact_and_float():
    m = dpexact.mechanism("rnm-global", epsilon="2*log(2)", sensitivities=["1", "1", "1"])
    q = [2, 0, 1]
    p = m.pmf(q, backend="exact").values
    expected = p[1] * 4 + p[2] * 1
    assert squared_error(m, q, backend="exact").value == expected
    f = squared_error(m, q)
    assert abs(f.as_float - float(expected.p) / float(expected.q)) <= f.error_bound


def test_rnmh_not_dp_like_rnm():
    """hetsel §IV-A: RNMH is not ε-DP — its pmf ratio on neighbours can exceed e^ε."""
    m = dpexact.mechanism("rnmh", epsilon=1, sensitivities=["0.01", "1"])
    a = m.pmf([0, 0.5], backend="ball").values[0]
    b = m.pmf([0, -0.5], backend="ball").values[0]  # q2 moved by Δ2 = 1
    assert (b / a) > math.e


def test_bad_sensitivities():
    with pytest.raises(ValueError, match="sensitivities"):
        dpexact.mechanism("rnmh", epsilon=1, sensitivities=["1", "-1"])
    with pytest.raises(ValueError, match="sensitivities"):
        dpexact.mechanism("rnmh", epsilon=1, sensitivities=["1", "2"]).pmf([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="sensitivities"):
        dpexact.mechanism("rnmh", epsilon=1, sensitivities=[])
