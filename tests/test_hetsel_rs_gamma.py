"""RS_γ (hetsel Algorithm 1) and its truncated-negative-binomial variant (Appendix C)."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpexact
from test_grr_selection import chi2_pvalue

Q = [1.0, 1.0, -1.0, 0.3]
S = ["1", "1.8", "1", "0.5"]


def k_pmf(kind, gamma, eta, kmax):
    """P[K = k], k = 1..kmax, straight from hetsel Alg. 1 (geometric) / App. C Definition 1."""
    k = np.arange(1, kmax + 1)
    if kind == "geometric":
        return gamma * (1 - gamma) ** (k - 1)
    if eta == 0:
        return (1 - gamma) ** k / (k * math.log(1 / gamma))
    prod = np.cumprod([(l + eta) / (l + 1) for l in range(kmax)])
    return (1 - gamma) ** k / (gamma**-eta - 1) * prod


def truncated_mixture(q, b, pk):
    """Σ_k P[K=k] Pr[r | K=k], Pr[r | K=k] = k/n ∫ f_r G^{k-1} (no closed-form summation)."""
    q, b = np.asarray(q), np.asarray(b)
    n = q.size
    ks = np.arange(1, pk.size + 1)
    out = []
    for r in range(n):
        def f(y):
            G = np.mean(stats.laplace.cdf(y, loc=q, scale=b))
            return stats.laplace.pdf(y, loc=q[r], scale=b[r]) / n * float(np.sum(pk * ks * G ** (ks - 1)))
        pts = sorted(set(q.tolist()))
        val, _ = integrate.quad(f, q.min() - 60 * b.max(), q.max() + 60 * b.max(), points=pts, limit=500,
                                epsabs=1e-14, epsrel=1e-12)
        out.append(val)
    return np.array(out)


@pytest.mark.parametrize("name, kw, kind", [
    ("rs-gamma", {"gamma": "0.3"}, "geometric"),
    ("rs-gamma-tnb", {"gamma": "0.3"}, "tnb"),
    ("rs-gamma-tnb", {"gamma": "0.3", "eta": "0.5"}, "tnb"),
    ("rs-gamma-tnb", {"gamma": "0.3", "eta": "-0.5"}, "tnb"),
])
def test_closed_form_mixture_equals_truncated_sum_over_k(name, kw, kind):
    m = dpexact.mechanism(name, epsilon="0.8", sensitivities=S, **kw)
    eta = float(kw.get("eta", 0))
    pk = k_pmf(kind, 0.3, eta, 400)
    assert abs(pk.sum() - 1) < 1e-12
    b = [float(x.to_float()) for x in m._scales(len(Q))]
    brute = truncated_mixture(Q, b, pk)
    ball = m.pmf(Q, backend="ball")
    assert np.max(np.abs(brute - ball.to_float())) < 1e-9
    f = m.pmf(Q)
    assert np.max(np.abs(f.values - ball.to_float())) <= f.abs_error
    assert np.all(ball.radii() < 1e-30)


def test_gamma_one_outputs_a_uniform_candidate():
    m = dpexact.mechanism("rs-gamma", epsilon=1, sensitivities=S, gamma=1)
    assert m.pmf(Q, backend="ball").contains([dpexact.numbers.real.Real.of("1/4").to_sympy()] * 4)


def test_ball_sums_to_one_and_mp_agrees():
    m = dpexact.mechanism("rs-gamma", epsilon="0.5", sensitivities=S)  # γ = 0.05 (paper default)
    ball = m.pmf(Q, backend="ball")
    assert ball.total().contains(1)
    mp = m.pmf(Q, backend="mp:30")
    assert np.max(np.abs(mp.to_float() - ball.to_float())) <= max(mp.abs_error, 1e-16)


def test_default_noise_factors():
    assert str(dpexact.mechanism("rs-gamma", epsilon=1).noise) == "3"          # Algorithm 1: Lap(3Δ_a/ε)
    assert str(dpexact.mechanism("rs-gamma-tnb", epsilon=1).noise) == "2"      # (2+η), η = 0
    assert str(dpexact.mechanism("rs-gamma-tnb", epsilon=1, eta=1).noise) == "3"


@pytest.mark.parametrize("name, kw", [("rs-gamma", {}), ("rs-gamma", {"gamma": "0.5"}), ("rs-gamma-tnb", {}),
                                      ("rs-gamma-tnb", {"eta": "0.5"}), ("rs-gamma-tnb", {"eta": "-0.5"})])
def test_sampler_chi_square(name, kw):
    m = dpexact.mechanism(name, epsilon="1", sensitivities=S, **kw)
    assert chi2_pvalue(m, Q, size=60_000, seed=11) > 1e-4


@pytest.mark.parametrize("name, kw, match", [
    ("rs-gamma", {"gamma": 0}, "gamma"),
    ("rs-gamma", {"gamma": "1.5"}, "gamma"),
    ("rs-gamma-tnb", {"gamma": 1}, "gamma"),
    ("rs-gamma-tnb", {"eta": -1}, "eta"),
    ("rs-gamma", {"sensitivities": ["1", "-2"]}, "sensitivities"),
    ("rs-gamma", {"sensitivities": ["1", "0"]}, "sensitivities"),
    ("rs-gamma", {"noise_factor": 0}, "noise_factor"),
    ("rs-gamma", {"monotone": True}, "monotone"),
])
def test_bad_parameters(name, kw, match):
    with pytest.raises(ValueError, match=match):
        dpexact.mechanism(name, epsilon=1, **kw)


def test_length_mismatch_and_no_exact_backend():
    m = dpexact.mechanism("rs-gamma", epsilon=1, sensitivities=["1", "2"])
    with pytest.raises(ValueError, match="sensitivities"):
        m.pmf([1, 2, 3])
    with pytest.raises(ValueError, match="exact"):
        m.pmf([1, 2], backend="exact")


@pytest.mark.parametrize("name,eps,sens,q", [("rs-gamma", "5", [10**6, 100, 10], [100, 100, -1000]),
                                             ("rs-gamma-tnb", "1", [1, 1, 10**6], [0, "1/2", 1]),
                                             ("rs-gamma-tnb", "5", [10, 10**6, 1], ["1/2", -3, 100])])
def test_float_resolves_sensitivities_orders_of_magnitude_apart(name, eps, sens, q):
    """Narrow densities inside a wide cluster: the float quadrature lost 1e-4 of mass under a 1e-13
    bound; it must agree with the rigorous ball within its stated bound."""
    m = dpexact.mechanism(name, epsilon=eps, sensitivities=sens)
    p = m.pmf(q, "float")
    b = m.pmf(q, "ball")
    for x, v in zip(p.values, b.values):
        assert abs(x - float(v.mid())) <= p.abs_error + float(v.rad())
