"""The trapezoidal Bromwich inversion (accounting/mgf_inversion) against the Gaussian mechanism's closed form.

One Gaussian step with μ = Δ/σ has the privacy loss N(μ²/2, μ²) (Dong, Roth & Su 2019), so m(z) = exp(μ²z(z + 1)/2),
|m(c + it)| = m(c)e^{−μ²t²/2} <= V/|t| with V = m(c)/(μ√e), and the T-fold δ(ε) is Balle & Wang's (2018, Thm 8)
Φ(μ_T/2 − ε/μ_T) − e^ε Φ(−μ_T/2 − ε/μ_T), μ_T = μ√T: every input here is computed in mpmath at 40 digits, and the
interval must contain the closed form (also at 40 digits).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from flint import arb

from dpexact.accounting import mgf_inversion
from dpexact.accounting.mgf_inversion import trapezoid_delta

mp.mp.dps = 40


def _closed(mu: float, T: int, eps: float) -> mp.mpf:
    muT = mp.mpf(mu) * mp.sqrt(T)
    e = mp.mpf(eps)
    return mp.ncdf(muT / 2 - e / muT) - mp.e**e * mp.ncdf(-muT / 2 - e / muT)


def _m(mu: float, z: complex) -> mp.mpc:
    z = mp.mpc(z)
    return mp.exp(mp.mpf(mu) ** 2 * z * (z + 1) / 2)


def _few_bits(x: float, bits: int = 10) -> float:
    e = math.floor(math.log2(x)) - bits + 1
    return math.floor(x / 2.0**e) * 2.0**e


def _inputs(mu: float, T: int, eps: float, P_sd: float = 9.0, N: int | None = None):
    """c at the saddle point of T·log m(c) − cε, period P >= P_sd·μ√T, nodes to where V/t < 1 comfortably."""
    c = eps / (T * mu * mu) - 0.5
    sd = mu * math.sqrt(T)
    # k <= −1 aliases are e^{−cP} each: P also long enough for that to be 1e-12 of δ
    P = P_sd * sd if P_sd < 9 else max(P_sd * sd, (-math.log(float(_closed(mu, T, eps))) + 28) / c)
    dt = _few_bits(2 * math.pi / P)
    V = float(_m(mu, c).real) / (mu * math.sqrt(math.e)) * (1 + 1e-12)
    if N is None:
        N = int(2 * V / float(_m(mu, c).real) / dt) + 2 + int(10 / (sd * dt))
    t = np.arange(N) * dt
    vals = [_m(mu, complex(c, x)) for x in t]
    m = np.array([complex(float(v.real), float(v.imag)) for v in vals])
    E = np.array([2.0**-50 * float(abs(v)) + 2.0**-1074 for v in vals])
    c2 = c + math.sqrt(80) / sd
    m_c2 = arb(mp.nstr(_m(mu, c2).real, 30)) * arb(1, 1e-25)
    return m, E, c, dt, V, c2, m_c2


@pytest.mark.parametrize("mu,T,eps", [(0.5, 100, 25.0), (0.5, 1000, 180.0), (1.0, 10, 12.0), (0.2, 400, 20.0),
                                      (0.5, 100, 35.0)])
def test_contains_the_closed_form_and_is_narrow(mu, T, eps):
    m, E, c, dt, V, c2, m_c2 = _inputs(mu, T, eps)
    lo, hi, parts = trapezoid_delta(m, E, c, dt, T, eps, V, c2, m_c2)
    truth = _closed(mu, T, eps)
    assert lo <= truth <= hi, (lo, float(truth), hi, parts)
    assert (hi - lo) <= 1e-9 * float(truth), (hi - lo, float(truth), parts)


# the two bounded parts of the rule, each on a case where it is large: a period of 2.5 σ_T (the k ≠ 0 alias terms are
# large, the rule's sum S exceeds δ, only S − A is a lower end), and 5 nodes (the rest, bounded through V, is large)
PARTS = {"alias": ("alias_bound", (0.5, 100, 25.0), {"P_sd": 2.5}, 1e-3),
         "truncation": ("tail_bound", (1.0, 10, 12.0), {"N": 5}, 1e-6)}


@pytest.mark.parametrize("part", sorted(PARTS))
def test_bounded_part_is_counted(part):
    _, (mu, T, eps), kw, share = PARTS[part]
    m, E, c, dt, V, c2, m_c2 = _inputs(mu, T, eps, **kw)
    lo, hi, parts = trapezoid_delta(m, E, c, dt, T, eps, V, c2, m_c2)
    truth = _closed(mu, T, eps)
    assert lo <= truth <= hi
    assert parts[part] > share * float(truth)


@pytest.mark.parametrize("part", sorted(PARTS))
def test_mutation_bounded_part_dropped_fails(monkeypatch, part):
    fn, (mu, T, eps), kw, _ = PARTS[part]
    m, E, c, dt, V, c2, m_c2 = _inputs(mu, T, eps, **kw)
    monkeypatch.setattr(mgf_inversion, fn, lambda *a, **k: arb(0))
    lo, hi, _ = trapezoid_delta(m, E, c, dt, T, eps, V, c2, m_c2)
    assert not lo <= _closed(mu, T, eps) <= hi


def test_mutation_node_errors_are_carried():
    """Each m_n moved by 1e-6 relative with E_n unchanged: the interval no longer holds the truth (T = 100 amplifies)."""
    mu, T, eps = 0.5, 100, 25.0
    m, E, c, dt, V, c2, m_c2 = _inputs(mu, T, eps)
    lo, hi, _ = trapezoid_delta(m * (1 + 1e-6), E, c, dt, T, eps, V, c2, m_c2)
    assert not lo <= _closed(mu, T, eps) <= hi
    lo, hi, _ = trapezoid_delta(m * (1 + 1e-6), E + 1e-6 * np.abs(m) * 1.01, c, dt, T, eps, V, c2, m_c2)
    assert lo <= _closed(mu, T, eps) <= hi


def test_kappa_is_the_maximum():
    """κ(c₂) = max_u (1 − e^{−u})e^{−c₂u}: compared with a dense scan in mpmath."""
    for c2 in (0.5, 3.0, 40.0):
        us = [mp.mpf(k) / 2000 * 20 / (1 + c2) for k in range(1, 4000)]
        scan = max((1 - mp.e ** (-u)) * mp.e ** (-c2 * u) for u in us)
        kappa = (mp.mpf(c2) / (1 + c2)) ** c2 / (1 + c2)
        assert scan <= kappa <= scan * (1 + 1e-5)


def test_bad_inputs():
    m = np.ones(3, dtype=complex)
    with pytest.raises(ValueError, match="same non-zero length"):
        trapezoid_delta(m, np.ones(2), 1.0, 0.5, 1, 0.0, 1.0, 2.0, arb(1))
    with pytest.raises(ValueError, match="c > 0"):
        trapezoid_delta(m, np.ones(3), 0.0, 0.5, 1, 0.0, 1.0, 2.0, arb(1))
    with pytest.raises(ValueError, match="exact"):
        trapezoid_delta(np.ones(1 << 12, dtype=complex), np.ones(1 << 12), 1.0, 0.1, 1, 0.0, 1.0, 2.0, arb(1))
