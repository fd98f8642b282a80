"""PF float fast paths: the exact Gauss rule for small n (single and batched) and the large-n
quadrature's weight tiers, each against exact rationals or rigorous balls, within the stated bound."""

import numpy as np
import pytest
from flint import fmpq

import dpexact
from dpexact.mechanisms.permute_and_flip.gauss_exact import SMALL_N, gauss_nodes_unit, pf_pmf_gauss_exact
from dpexact.mechanisms.permute_and_flip.polynomial import pf_pmf_polynomial_fmpq

LOG2x2 = "2*log(2)"  # p = 2^(q - q*): rational weights, exact reference


def _exact(q):
    """Exact PF pmf for p = 2^(q - q*) (integer scores) by the exact polynomial method."""
    top = max(q)
    p = [fmpq(1, 2 ** int(top - v)) for v in q]
    return np.array([float(v) for v in pf_pmf_polynomial_fmpq(p)])


@pytest.mark.parametrize("q", [[0], [0, 0], [0, -1], [0, 0, 0, -3, -3], list(range(0, -10, -1)),
                               [0] * 17, [0, -1] * 20 + [-60] * 3, list(range(0, -64, -1))])
def test_gauss_rule_small_n_against_exact_rationals(q):
    m = dpexact.mechanism("pf", epsilon=LOG2x2)
    f = m.pmf(q)
    ex = _exact(q)
    ok = ex > 0
    rel = np.abs(f.values[ok] - ex[ok]) / ex[ok]
    assert f.details["quadrature_rel"] == 0.0 and f.details["tail_rel"] == 0.0  # no truncation: n <= SMALL_N
    assert rel.max() <= f.rel_error
    assert f.rel_error <= 1e-12


def test_gauss_rule_needs_its_nodes():
    """Mutation: one node fewer than ceil(n/2) is no longer exact for the degree n-1 integrand."""
    q = [0, 0, -1, -1, -2, -3, -3, -5]  # n = 8: 4 nodes are exact, 3 are not
    x = np.log(2.0) * (np.array(q, dtype=float))
    ex = _exact(q)
    pmf, _, rel = pf_pmf_gauss_exact(x[None, :])
    assert np.max(np.abs(pmf[0] - ex) / ex) <= rel[0]
    t, omt, w = gauss_nodes_unit(3)
    p = np.exp(x)
    fac = 1 - p[None, :] * t[:, None]
    G = ((w * fac.prod(axis=1))[:, None] / fac).sum(axis=0)
    assert np.max(np.abs(p * G - ex) / ex) > 1e-6


def test_batched_rows_equal_single_calls():
    rng = np.random.default_rng(3)
    X = -rng.uniform(0, 8, size=(50, 10))
    X[:, 0] = 0.0
    X[5, 3] = -np.inf  # a weight exactly 0
    pmf, logpmf, rel = pf_pmf_gauss_exact(X)
    for b in range(X.shape[0]):
        one, lone, r1 = pf_pmf_gauss_exact(X[b:b + 1])
        assert np.array_equal(one[0], pmf[b]) and np.array_equal(lone[0], logpmf[b]) and r1[0] == rel[b]
    assert pmf[5, 3] == 0.0 and logpmf[5, 3] == -np.inf
    assert np.all(np.abs(pmf.sum(axis=1) - 1) <= 1e-14)


@pytest.mark.parametrize("eps", ["0.01", "1", "7"])
def test_large_n_tiers_against_ball(eps):
    """n > SMALL_N with large (p·T > DELTA), medium and tiny (p·T <= TINY_PT) weights at once."""
    rng = np.random.default_rng(11)
    q = np.concatenate([[0.0, 0.0, -0.3], -rng.uniform(0, 3, 40), -rng.uniform(0, 90, 2000), -rng.uniform(500, 900, 50)])
    m = dpexact.mechanism("pf", epsilon=eps)
    f = m.pmf(q)
    b = m.pmf(q, backend="ball")
    mids = b.to_float()
    ok = mids >= 1e-300
    rel = np.abs(f.values[ok] - mids[ok]) / mids[ok]
    assert q.size > SMALL_N
    assert rel.max() <= f.rel_error <= 1e-12
    logs = np.array([float(v.log().mid()) for v in b.values])
    assert np.max(np.abs(f.logvalues - logs) / np.maximum(1, np.abs(logs))) <= 1e-12
    assert f.abs_error >= f.rel_error * mids.max() * (1 - 1e-12)  # the stated max entry is the true one


# --- the large-n float quadrature's a-posteriori bounds (quadrature_float.py) -----------------------

def _worst(q, eps):
    m = dpexact.mechanism("pf", epsilon=eps)
    f, b = m.pmf(q), m.pmf(q, backend="ball")
    mids = b.to_float()
    ok = mids >= 1e-300
    return float(np.max(np.abs(f.values[ok] - mids[ok]) / mids[ok])), f


def _inputs():
    rng = np.random.default_rng(7)
    for n in (300, 3000):
        yield rng.uniform(0, 100, n)  # thousands of weights near the top at small ε: no large weight
        yield rng.integers(0, 20, n).astype(float)  # ties among the large weights
        yield rng.uniform(0, n, n)  # few weights near the top: large weights, direct node sums


@pytest.mark.parametrize("target", [1e-11, 1e-10])
def test_series_bounds_hold_when_they_dominate(monkeypatch, target):
    """With the series cut at ``target`` instead of 1e-19 the truncations dominate the stated bound,
    which must still hold against balls (and be used: some entry's error is within 10x of it).
    (Cuts above ~1e-10 give bounds beyond FLOAT_USEFUL_ERROR, which send the pmf to balls.)"""
    from dpexact.mechanisms.permute_and_flip import quadrature_float

    monkeypatch.setattr(quadrature_float, "TARGET", target)
    tight = 0.0
    for q in _inputs():
        for eps in ("0.1", "1", "7"):
            rel, f = _worst(q, eps)
            assert f.method == "quadrature" and rel <= f.rel_error, (q.size, eps, rel, f.details)
            if f.details["series_rel"] > 10 * f.details["rounding_rel"]:
                tight = max(tight, rel / f.rel_error)
    assert tight > 0.1


def test_the_series_term_of_the_bound_is_needed(monkeypatch):
    """Mutation: the same cut series with their term left out of the stated bound is caught."""
    import dataclasses

    from dpexact.mechanisms.permute_and_flip import mechanism, quadrature_float

    monkeypatch.setattr(quadrature_float, "TARGET", 1e-10)
    real = quadrature_float.pf_pmf_quadrature_float

    def without_series(x):
        pmf, logpmf, rep = real(x)
        return pmf, logpmf, dataclasses.replace(rep, series_rel=0.0)

    monkeypatch.setattr(mechanism, "pf_pmf_quadrature_float", without_series)
    caught = sum(_worst(q, eps)[0] > _worst(q, eps)[1].rel_error for q in _inputs() for eps in ("0.1", "1"))
    assert caught >= 3
