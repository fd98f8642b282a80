"""Permute-and-flip pmf: independent methods agree (brute force over permutations, exact
polynomial, exact recurrence, rigorous balls, float quadrature within its stated bound)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

import dpexact

LOG2x2 = "2*log(2)"  # with Δ = 1, p = exp(ε(q - q*)/2) = 2^(q - q*): rational weights


def brute_force_lemma1(p: list[fmpq]) -> list[fmpq]:
    """pf Lemma 1 by enumerating every permutation (independent of Lemma 2)."""
    n = len(p)
    out = [fmpq(0)] * n
    perms = list(itertools.permutations(range(n)))
    for perm in perms:
        survive = fmpq(1)
        for r in perm:
            out[r] += survive * p[r]
            survive *= 1 - p[r]
    return [v / len(perms) for v in out]


@pytest.mark.parametrize("scores", [[0, 0, 0], [3, 2, 0], [0, -1, -1, -3, 0], [5, 0, 0, 0, -2], [1, 0]])
def test_exact_polynomial_matches_brute_force_permutations(scores):
    m = dpexact.mechanism("pf", epsilon=LOG2x2)
    exact = m.pmf(scores, backend="exact")
    top = max(scores)
    p = [fmpq(1, 2 ** (top - s)) for s in scores]
    assert list(exact.values) == brute_force_lemma1(p)
    assert sum(exact.values) == 1


def test_exact_recurrence_equals_polynomial_method():
    rng = np.random.default_rng(1)
    m = dpexact.mechanism("pf", epsilon=LOG2x2)
    for _ in range(5):
        q = rng.integers(-6, 1, size=9).tolist()
        assert m.pmf(q, backend="exact").values == m.pmf(q, backend="exact", method="recurrence").values


def test_irrational_weights_give_symbolic_exact_values_enclosed_by_balls():
    m = dpexact.mechanism("pf", epsilon=1)
    q = [Fraction(2, 3), 0, 0, Fraction(-1, 2)]
    ex = m.pmf(q, backend="exact")
    assert ex.details["field"] == "sympy"
    ball = m.pmf(q, backend="ball")
    assert ball.contains(ex.values)


@pytest.mark.parametrize("seed", range(4))
def test_ball_contains_exact_rationals(seed):
    rng = np.random.default_rng(seed)
    q = rng.integers(-12, 1, size=rng.integers(2, 40)).tolist()
    m = dpexact.mechanism("pf", epsilon=LOG2x2)
    assert m.pmf(q, backend="ball").contains(m.pmf(q, backend="exact").values)
    # a ball at low precision still contains the truth
    assert m.pmf(q, backend="ball:60").contains(m.pmf(q, backend="exact").values)


def _float_vs_ball(m, q):
    f = m.pmf(q)
    b = m.pmf(q, backend="ball")
    mids = b.to_float()
    assert np.all(b.radii() <= 1e-25 * np.maximum(mids, 1e-300))
    ok = mids >= 1e-300
    rel = np.abs(f.values[ok] - mids[ok]) / mids[ok]
    return rel.max(), f


@pytest.mark.parametrize(
    "scores_fn",
    [
        lambda rng: rng.normal(size=60),
        lambda rng: np.round(rng.normal(size=300) * 3),  # many ties
        lambda rng: np.concatenate([[0.0], -rng.uniform(0, 1e-3, 1999)]),  # near-ties
        lambda rng: rng.uniform(0, 2000, 1500),  # spread
    ],
)
@pytest.mark.parametrize("eps", ["0.001", "0.1", "1", "5"])
def test_float_quadrature_within_its_bound_against_ball(scores_fn, eps):
    rng = np.random.default_rng(7)
    q = scores_fn(rng)
    m = dpexact.mechanism("pf", epsilon=eps)
    rel, f = _float_vs_ball(m, q)
    assert rel <= f.rel_error
    assert rel <= 1e-12
    assert abs(f.values.sum() - 1) <= 1e-14


def test_logpmf_of_underflowing_entries_against_ball():
    m = dpexact.mechanism("pf", epsilon=1)
    q = np.array([0.0, -1.0, -2.0, -1500.0, -3000.0])
    lf = m.logpmf(q)
    b = m.pmf(q, backend="ball")
    for v, l in zip(b.values, lf):
        ref = float(v.log().mid())
        assert abs(l - ref) <= 1e-12 * max(1.0, abs(ref))
    assert m.pmf(q).values[-1] == 0.0 and np.isfinite(lf[-1])


@pytest.mark.parametrize("n", [2, 3, 10, 50])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_worst_case_closed_forms_prop4_exact(n, k):
    """pf Prop. 4, eqs. (7)-(8), with ε = 2 log 2, Δ = 1, c = -k: p = 2^-k, log(1/p)·2Δ/ε = k."""
    q = [-k] * (n - 1) + [0]
    p = fmpq(1, 2**k)
    pf_closed = k * (1 - (1 - (1 - p) ** n) / (n * p))
    em_closed = k * (1 - 1 / (1 + (n - 1) * p))
    from dpexact.utility import expected_error

    assert expected_error(dpexact.mechanism("pf", epsilon=LOG2x2), q, "exact").value == pf_closed
    assert expected_error(dpexact.mechanism("em", epsilon=LOG2x2), q, "exact").value == em_closed


@pytest.mark.parametrize("n", [2, 5, 1000])
@pytest.mark.parametrize("c", [-0.01, -1.0, -7.5, -40.0])
def test_worst_case_closed_forms_prop4_float(n, c):
    from dpexact.utility import expected_error

    import mpmath

    eps = 0.7
    with mpmath.workdps(50):  # the closed forms cancel badly in float64 when p << 1/n
        p = mpmath.exp(mpmath.mpf(eps) / 2 * c)
        pf_closed = float(2 / mpmath.mpf(eps) * mpmath.log(1 / p) * (1 - (1 - (1 - p) ** n) / (n * p)))
        em_closed = float(2 / mpmath.mpf(eps) * mpmath.log(1 / p) * (1 - 1 / (1 + (n - 1) * p)))
    q = [c] * (n - 1) + [0.0]
    e_pf = expected_error(dpexact.mechanism("pf", epsilon=eps), q)
    e_em = expected_error(dpexact.mechanism("em", epsilon=eps), q)
    assert abs(e_pf.as_float - pf_closed) <= 1e-12 * pf_closed
    assert abs(e_em.as_float - em_closed) <= 1e-12 * em_closed


def test_monotone_variant_uses_epsilon_over_delta():
    q = [3.0, 1.0, 0.5, 0.0]
    mono = dpexact.mechanism("pf", epsilon=1, sensitivity=2, monotone=True).pmf(q, backend="exact").values
    std = dpexact.mechanism("pf", epsilon=2, sensitivity=2).pmf(q, backend="exact").values
    assert mono == std


def test_recurrence_is_exact_on_small_inputs_in_float():
    m = dpexact.mechanism("pf", epsilon=LOG2x2)
    q = [0, -1, -1, -2, -5, 0]
    rec = m.pmf(q, method="recurrence").values
    ex = m.pmf(q, backend="exact").to_float()
    assert np.max(np.abs(rec - ex) / ex) < 1e-13


def test_sampler_runs_algorithm_1():
    m = dpexact.mechanism("pf", epsilon=1)
    draws = m.rvs([0.0, 0.0, -100.0], size=4000, random_state=3)
    assert set(np.unique(draws)) == {0, 1}  # the -100 candidate has probability e^-50
    assert isinstance(m.rvs([1.0, 0.0], random_state=1), int)


score_lists = st.lists(st.integers(-30, 30), min_size=1, max_size=12)


@pytest.mark.parametrize("name", ["pf", "em"])
@settings(max_examples=60, deadline=None)
@given(scores=score_lists, eps=st.sampled_from(["0.05", "1", "3"]), rnd=st.randoms(use_true_random=False))
def test_pmf_invariants(name, scores, eps, rnd):
    """Non-negative, sums to one, symmetric under permutation, shift-invariant (pf Def. 3)."""
    m = dpexact.mechanism(name, epsilon=eps)
    q = np.array(scores, dtype=float)
    p = m.pmf(q)
    assert np.all(p.values >= 0)
    assert abs(p.values.sum() - 1) <= 1e-14
    perm = list(range(len(scores)))
    rnd.shuffle(perm)
    pp = m.pmf(q[perm])
    assert np.allclose(pp.values, p.values[perm], rtol=2 * p.rel_error, atol=0)
    shifted = m.pmf(q + 17.0)  # exact in float for these integers
    assert np.allclose(shifted.values, p.values, rtol=2 * p.rel_error, atol=0)


@pytest.mark.parametrize(
    "kwargs,scores,err",
    [
        ({"epsilon": 0}, [1, 0], ValueError),
        ({"epsilon": -1}, [1, 0], ValueError),
        ({"epsilon": "nan"}, [1, 0], ValueError),
        ({"epsilon": 1, "sensitivity": 0}, [1, 0], ValueError),
        ({"epsilon": 1, "sensitivity": -2}, [1, 0], ValueError),
        ({"epsilon": 1}, [], ValueError),
        ({"epsilon": 1}, [1, float("nan")], ValueError),
        ({"epsilon": 1}, [1, float("inf")], ValueError),
        ({"epsilon": 1}, [[1, 0], [0, 1]], ValueError),
        ({"epsilon": 1}, "3,2", TypeError),
        ({"epsilon": 1, "monotone": "yes"}, [1, 0], TypeError),
    ],
)
@pytest.mark.parametrize("name", ["pf", "em"])
def test_bad_input_raises(name, kwargs, scores, err):
    with pytest.raises(err):
        dpexact.mechanism(name, **kwargs).pmf(scores)


@pytest.mark.parametrize("name", ["pf", "em"])
def test_bad_backend_and_method_raise(name):
    m = dpexact.mechanism(name, epsilon=1)
    with pytest.raises(ValueError, match="backend"):
        m.pmf([1, 0], backend="quad")
    with pytest.raises(ValueError, match="method"):
        m.pmf([1, 0], method="magic")
    with pytest.raises(ValueError, match="scores"):
        m.pmf(list(range(1000)), backend="exact")  # exact backend size guard
