"""GRR / k-RR as a selection mechanism (brr eq. 6, hetsel §III-B)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from scipy.stats import chisquare

import dpexact


def chi2_pvalue(mech, q, size=200_000, seed=0):
    draws = mech.rvs(q, size=size, random_state=seed)
    p = mech.pmf(q).to_float()
    obs = np.bincount(draws, minlength=len(q))
    keep = p * size >= 5
    exp_ = p[keep] * size
    o = obs[keep].astype(float)
    # lump the rare cells into one
    if (~keep).any():
        exp_ = np.append(exp_, p[~keep].sum() * size)
        o = np.append(o, obs[~keep].sum())
    exp_ *= o.sum() / exp_.sum()
    return chisquare(o, exp_).pvalue


def grr_row(x, n, e):
    """brr eq. (6): Pr[y | x] for y = 0..n-1, exact for rational e = e^ε."""
    return [e / (e + n - 1) if y == x else Fraction(1) / (e + n - 1) for y in range(n)]


@pytest.mark.parametrize("q", [[3, 1, 0, 0], [0, 5, 2], [1, 1, 0, -2], [2, 2, 2]])
def test_exact_matches_eq6_mixture_over_maximisers(q):
    m = dpexact.mechanism("grr", epsilon="log(3)")  # e^ε = 3
    n = len(q)
    top = [i for i, v in enumerate(q) if v == max(q)]
    rows = [grr_row(x, n, Fraction(3)) for x in top]
    expected = [sum(r[y] for r in rows) / len(rows) for y in range(n)]
    got = m.pmf(q, backend="exact").values
    assert [Fraction(int(v.p), int(v.q)) for v in got] == expected
    first = dpexact.mechanism("grr", epsilon="log(3)", tie_break="first").pmf(q, backend="exact").values
    assert [Fraction(int(v.p), int(v.q)) for v in first] == grr_row(top[0], n, Fraction(3))


def test_ball_and_float_contain_symbolic_value():
    m = dpexact.mechanism("grr", epsilon="1/2")
    q = [0, 3, 1, 1, -4]
    ex = m.pmf(q, backend="exact")
    assert m.pmf(q, backend="ball").contains(ex.values)
    f = m.pmf(q)
    truth = np.array([1 / (math.e**0.5 + 4)] * 5)
    truth[1] = math.e**0.5 / (math.e**0.5 + 4)
    assert np.all(np.abs(f.values - truth) <= f.rel_error * truth + 1e-300)
    assert abs(float(sum(m.pmf(q, backend="mp:40").values)) - 1) < 1e-35


def test_pure_dp_for_arbitrary_score_changes():
    """Every output probability lies in [1, e^ε]/(e^ε+n-1): ratio <= e^ε for any two inputs."""
    m = dpexact.mechanism("grr", epsilon="log(2)")
    rng = np.random.default_rng(3)
    for _ in range(20):
        q1 = rng.integers(-3, 3, 5).tolist()
        q2 = rng.integers(-3, 3, 5).tolist()
        p1 = m.pmf(q1, backend="exact").values
        p2 = m.pmf(q2, backend="exact").values
        assert all(a <= 2 * b and b <= 2 * a for a, b in zip(p1, p2))


@pytest.mark.parametrize("tie", ["uniform", "first"])
def test_sampler_chi_square(tie):
    m = dpexact.mechanism("grr", epsilon="1.3", tie_break=tie)
    assert chi2_pvalue(m, [1.0, 2.0, 2.0, 0.0, -1.0]) > 1e-4


def test_large_epsilon_float_no_overflow():
    p = dpexact.mechanism("grr", epsilon=800).pmf([0.0, 1.0, 0.5]).values
    assert np.all(np.isfinite(p)) and p[1] == 1.0 and p[0] == p[2] < 1e-300


@pytest.mark.parametrize("bad, exc", [({"epsilon": 0}, ValueError), ({"epsilon": "nan"}, ValueError),
                                      ({"epsilon": 1, "tie_break": "last"}, ValueError)])
def test_bad_parameters(bad, exc):
    with pytest.raises(exc):
        dpexact.mechanism("grr", **bad)


def test_bad_scores():
    m = dpexact.mechanism("grr", epsilon=1)
    with pytest.raises(ValueError, match="scores"):
        m.pmf([1.0, float("nan")])
    with pytest.raises(ValueError, match="scores"):
        m.pmf([])
    assert fmpq(1) == m.pmf([7], backend="exact").values[0]
