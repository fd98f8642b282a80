"""The kernel's grouped series (quadrature_kernel.pf_kernel's docstring): the medium weights in two
groups by magnitude, each with its own log-series length. The grouped pmf agrees with the ungrouped
one (``k_a = 0``) within both stated bounds and with the 128-bit ball pmf within its own; group A's
remainder claim holds against a 60-digit evaluation, and fails when A's series is one term short."""

import mpmath
import numpy as np
import pytest

import dpexact
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
from dpexact.mechanisms.permute_and_flip.quadrature_float import TARGET, pf_pmf_quadrature_float


def _run(x, k_a):
    """pf_kernel on a copy of ``x`` with group A's length cap ``k_a`` (0: one group): pmf, report
    vector, A's indices."""
    pf_pmf_quadrature_float(x.copy(), kernel=True)  # the node rules this input needs, into the table
    xx, p = x.copy(), np.exp(x)
    pm, med, med_b = np.empty(x.size), np.empty(x.size, dtype=np.int64), np.empty(x.size, dtype=np.int64)
    rep = qk.pf_kernel(xx, p, 40.0, TARGET, x.size.bit_length(), qk._XI, qk._OM, qk._HAVE, pm, med, med_b, k_a)
    assert rep[12] == 0
    return p, rep, med[: int(rep[14])].copy()


def _bound(rep):
    return rep[7] + rep[8] + rep[9] + rep[10]


def _inputs():
    rng = np.random.default_rng(37)
    yield rng.uniform(0, 100, 20_000)  # T < 1, every weight in the series: A and B both large
    yield rng.uniform(0, 100, 1000)  # T = 1 with large weights
    yield np.concatenate([[0.0, 0.0, -0.3], -rng.uniform(0, 3, 40), -rng.uniform(0, 90, 2000)])


@pytest.mark.parametrize("eps", ["0.1", "1", "7"])
def test_grouped_agrees_with_ungrouped_within_both_bounds(eps):
    m = dpexact.mechanism("pf", epsilon=eps)
    for q in _inputs():
        x = m._float_exponents(q)
        g, rg, _ = _run(x, qk.K_A)
        u, ru, _ = _run(x, 0)
        assert ru[14] == 0  # k_a = 0: no group A
        # B's log-series length and G's are the ungrouped ones (the report is unchanged)
        assert rg[5] == ru[5] and rg[6] == ru[6] and rg[0] == ru[0]
        ok = u > 1e-300
        assert np.all(np.abs(g[ok] - u[ok]) <= (_bound(rg) + _bound(ru)) * u[ok])


def test_grouped_within_its_bound_of_balls():
    m = dpexact.mechanism("pf", epsilon=1)
    q = np.random.default_rng(3).uniform(0, 60, 3000)
    x = m._float_exponents(q)
    g, rg, _ = _run(x, qk.K_A)
    assert rg[14] > 0 and rg[15] < rg[5]  # a real split: A shorter than B
    mids = m.pmf(q, backend="ball").to_float()
    ok = mids >= 1e-300
    assert np.max(np.abs(g[ok] - mids[ok]) / mids[ok]) <= _bound(rg) + 2.5 * 2.0**-53 * 710 <= 1e-12


def _remainder_claims(p_a, K, T):
    """Group A's true log-series remainder after K terms, ``Σ_i Σ_{k>K} (p_i t)^k/k``, and the claim the
    kernel's Rbar adds, ``S_{A,K+1} t^{K+1}/((K+1)(1 - p_A t))``, at a few t in (0, T], 60 digits."""
    mpmath.mp.dps = 60
    ps = [mpmath.mpf(float(v)) for v in p_a]
    p_max = max(ps)
    out = []
    for frac in ("0.25", "0.5", "0.9", "1"):
        t = mpmath.mpf(T) * mpmath.mpf(frac)
        true = mpmath.fsum(-mpmath.log1p(-v * t) - mpmath.fsum((v * t) ** k / k for k in range(1, K + 1)) for v in ps)
        s_next = mpmath.fsum(v ** (K + 1) for v in ps)
        out.append((true, s_next * t ** (K + 1) / ((K + 1) * (1 - p_max * t))))
    return out


def test_group_a_remainder_claim_and_its_mutation():
    """A's remainder after its K_A terms is within what the kernel adds to Rbar for it; one term short
    (the sum stopped at K_A - 1, the claim still the K_A one) the true remainder exceeds the claim at
    every t: the bound no longer holds."""
    m = dpexact.mechanism("pf", epsilon=1)
    x = m._float_exponents(np.random.default_rng(11).uniform(0, 100, 20_000))
    _, rep, idx = _run(x, qk.K_A)
    K, T = int(rep[15]), rep[1]
    assert len(idx) > 1000 and 2 <= K <= qk.K_A < rep[5]
    p_a = np.exp(x[idx])
    for true, claim in _remainder_claims(p_a, K, T):
        assert 0 < true <= claim
    short = _remainder_claims(p_a, K - 1, T)
    for (true_short, _), (_, claim) in zip(short, _remainder_claims(p_a, K, T)):
        assert true_short > claim
