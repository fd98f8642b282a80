"""Exponential mechanism: exact closed form, rigorous balls, float within its a-priori bound."""

import math

import numpy as np
import pytest
from flint import fmpq

import dpexact


def test_exact_values_on_lattice():
    m = dpexact.mechanism("em", epsilon="2*log(3)")  # weights 3^(q - q*)
    vals = m.pmf([2, 1, 1, 0], backend="exact").values
    w = [fmpq(1), fmpq(1, 3), fmpq(1, 3), fmpq(1, 9)]
    assert list(vals) == [v / sum(w) for v in w]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("eps", ["0.01", "1", "20"])
def test_float_within_bound_of_ball(seed, eps):
    q = np.random.default_rng(seed).normal(scale=30, size=500)
    m = dpexact.mechanism("em", epsilon=eps)
    f = m.pmf(q)
    b = m.pmf(q, backend="ball")
    mids = b.to_float()
    ok = mids > 1e-300
    assert np.max(np.abs(f.values[ok] - mids[ok]) / mids[ok]) <= f.rel_error
    lb = np.array([float(v.log().mid()) for v in b.values])
    assert np.max(np.abs(m.logpmf(q) - lb) / np.maximum(1, np.abs(lb))) <= 1e-12


def test_ball_contains_symbolic_exact():
    m = dpexact.mechanism("em", epsilon="1/3")
    q = [1, 0, "1/2"]
    assert m.pmf(q, backend="ball").contains(m.pmf(q, backend="exact").values)


def test_mp_backend_agrees_with_ball():
    m = dpexact.mechanism("em", epsilon="0.3")
    q = [4, 1, 0, 0, -7]
    mp = m.pmf(q, backend="mp:40")
    b = m.pmf(q, backend="ball:200")
    for x, y in zip(mp.values, b.values):
        assert abs(float(x) - float(y.mid())) <= 1e-30


def test_utility_bound_prop1():
    """pf Prop. 1: E[err] <= (2Δ/ε) log n on random vectors."""
    from dpexact.utility import expected_error

    rng = np.random.default_rng(0)
    for n in (2, 10, 300):
        for _ in range(5):
            q = rng.normal(scale=rng.uniform(0.1, 50), size=n)
            e = expected_error(dpexact.mechanism("em", epsilon=0.5), q).as_float
            assert e <= 2 / 0.5 * math.log(n)


def test_monotone_exponent():
    q = [0.0, -1.0]
    p = dpexact.mechanism("em", epsilon=1, monotone=True).pmf(q).values
    assert abs(p[1] / p[0] - math.exp(-1.0)) < 1e-15
