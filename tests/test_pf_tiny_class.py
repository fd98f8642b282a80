"""The tiny class of the float PF quadrature (quadrature_rules.TINY_R / TINY_K / TINY_J): every weight
``p <= p_0`` goes through TINY_R power sums of log F, TINY_K + 1 terms of G and TINY_J terms of log1p,
in branch-free passes over all entries (it replaced the kernel's two medium groups: the former group A
lies inside it). Its log-series remainder claim holds against a 60-digit evaluation and fails one term
short; its G and log1p terms are needed (mutation against balls); both routes state the same classes."""

import mpmath
import numpy as np
import pytest

import dpexact
from dpexact.mechanisms.permute_and_flip import quadrature_float
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
from dpexact.mechanisms.permute_and_flip.quadrature_float import TARGET, pf_pmf_quadrature_float
from dpexact.mechanisms.permute_and_flip.quadrature_rules import CUT, TINY_R


def _run(x):
    """pf_kernel on a copy of ``x``: pmf and report vector."""
    pf_pmf_quadrature_float(x.copy(), kernel=True)  # the node rules this input needs, into the table
    xx, p = x.copy(), np.exp(x)
    pm, med = np.empty(x.size), np.empty(x.size, dtype=np.int64)
    rep = qk.pf_kernel(xx, p, 40.0, TARGET, x.size.bit_length(), qk._XI, qk._OM, qk._HAVE, pm, med)
    assert rep[12] == 0
    return p, rep


def _remainder_claims(p_t, K, p0, s_next, T):
    """The tiny weights' true log-series remainder after K terms, ``Σ_i Σ_{k>K} (p_i t)^k/k``, and the
    claim the kernel adds to Rbar, ``S_{K+1} t^{K+1}/((K+1)(1 - p_0 t))`` (``s_next``: its S_{K+1}),
    at a few t in (0, T], 60 digits."""
    mpmath.mp.dps = 60
    ps = [mpmath.mpf(float(v)) for v in p_t]
    out = []
    for frac in ("0.25", "0.5", "0.9", "1"):
        t = mpmath.mpf(T) * mpmath.mpf(frac)
        true = mpmath.fsum(-mpmath.log1p(-v * t) - mpmath.fsum((v * t) ** k / k for k in range(1, K + 1)) for v in ps)
        out.append((true, mpmath.mpf(s_next) * t ** (K + 1) / ((K + 1) * (1 - mpmath.mpf(p0) * t))))
    return out


def test_tiny_remainder_claim_and_its_mutation():
    """The tiny weights' remainder after TINY_R terms is within what the kernel adds to Rbar for them
    (its bound p_0 S^tiny_R of S^tiny_{R+1} checked against 60-digit sums); one term short (the sum stopped at R - 1, the
    claim still the R one) the true remainder exceeds the claim at every t: the bound no longer holds."""
    m = dpexact.mechanism("pf", epsilon=1)
    x = m._float_exponents(np.random.default_rng(11).uniform(0, 100, 20_000))
    _, rep = _run(x)
    T, p0, s_next = rep[1], rep[14], rep[15]
    p = np.exp(x)
    p_t = p[(p > CUT) & (p <= p0)]
    assert p_t.size > 15_000 and rep[13] < 0.1 * x.size  # most weights tiny, < 10 % medium
    mpmath.mp.dps = 60
    s_r = mpmath.fsum(mpmath.mpf(float(v)) ** TINY_R for v in p_t)
    assert mpmath.fsum(mpmath.mpf(float(v)) ** (TINY_R + 1) for v in p_t) <= s_next <= p0 * s_r * (1 + 1e-11)
    for true, claim in _remainder_claims(p_t, TINY_R, p0, s_next, T):
        assert 0 < true <= claim
    for (true_short, _), (_, claim) in zip(_remainder_claims(p_t, TINY_R - 1, p0, s_next, T),
                                           _remainder_claims(p_t, TINY_R, p0, s_next, T)):
        assert true_short > claim


def _inputs():
    rng = np.random.default_rng(5)
    yield rng.uniform(0, 100, 3000)
    yield rng.uniform(0, 30, 1500)
    yield np.concatenate([[0.0, 0.0, -0.3], -rng.uniform(0, 3, 40), -rng.uniform(0, 90, 2000)])


@pytest.mark.parametrize("kernel", [False, True])
def test_both_routes_within_their_bound_of_balls(kernel):
    m = dpexact.mechanism("pf", epsilon=1)
    for q in _inputs():
        x = m._float_exponents(q)
        pmf, logpmf, rep = pf_pmf_quadrature_float(x.copy(), kernel=kernel)
        bound = rep.tail_rel + rep.quadrature_rel + rep.series_rel + rep.rounding_rel + 2.5 * 2.0**-53 * 710
        b = m.pmf(q, backend="ball")
        mids = b.to_float()
        ok = mids >= 1e-300
        assert np.max(np.abs(pmf[ok] - mids[ok]) / mids[ok]) <= bound <= 1e-12
        logs = np.array([float(v.log().mid()) for v in b.values])
        assert np.max(np.abs(logpmf - logs)) <= bound


def _worst_vs_balls(q, m, kernel):
    x = m._float_exponents(q)
    pmf, logpmf, rep = pf_pmf_quadrature_float(x.copy(), kernel=kernel)
    bound = rep.tail_rel + rep.quadrature_rel + rep.series_rel + rep.rounding_rel + 2.5 * 2.0**-53 * 710
    b = m.pmf(q, backend="ball")
    mids = b.to_float()
    ok = mids >= 1e-300
    logs = np.array([float(v.log().mid()) for v in b.values])
    return max(np.max(np.abs(pmf[ok] - mids[ok]) / mids[ok]), np.max(np.abs(logpmf - logs))), bound


@pytest.mark.parametrize("drop", ["G", "log1p"])
def test_the_tiny_terms_are_needed(monkeypatch, drop):
    """Mutation (numpy route, series cut at 1e-10 so that they dominate the bound): the tiny update with
    G's last term, or log1p's last term, left out while the stated bound is unchanged is caught
    against balls; the unmutated update passes on the same inputs."""
    monkeypatch.setattr(quadrature_float, "TARGET", 1e-10)
    m = dpexact.mechanism("pf", epsilon=1)
    qs = [np.random.default_rng(s).uniform(0, 100, 3000) for s in range(3)]
    for q in qs:
        err, bound = _worst_vs_balls(q, m, kernel=False)
        assert err <= bound
    name = "TINY_K" if drop == "G" else "TINY_J"
    real = quadrature_float._tiny_update

    def short(pmf, logpmf, a, c0, m0, s):
        k = getattr(quadrature_float, name)
        monkeypatch.setattr(quadrature_float, name, k - 1)
        try:
            real(pmf, logpmf, a, c0, m0, s)
        finally:
            monkeypatch.setattr(quadrature_float, name, k)

    monkeypatch.setattr(quadrature_float, "_tiny_update", short)
    caught = [err > bound for err, bound in (_worst_vs_balls(q, m, kernel=False) for q in qs)]
    assert any(caught)


@pytest.mark.parametrize("kernel", [False, True])
def test_reported_minimum_exponent_is_the_minimum(kernel):
    """The report's x_min (the kernel reads it from the bit patterns in its output pass) is min(x),
    which the caller's 2.5u|x| rounding term uses; -0.0, all-zero and huge exponents included."""
    m = dpexact.mechanism("pf", epsilon=1)
    rng = np.random.default_rng(2)
    for q in (rng.uniform(0, 100, 3000), np.zeros(700), np.r_[np.zeros(600), -1e300, -3.0], rng.uniform(0, 1e-9, 900)):
        x = m._float_exponents(q)
        if not x.min() < 0:
            x[5] = -0.0
        _, _, rep = pf_pmf_quadrature_float(x.copy(), kernel=kernel)
        assert rep.x_min == x.min()
