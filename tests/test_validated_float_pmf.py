"""The declared fast entry for validated float scores (:class:`dpexact.protocols.ValidatedFloatPmf`)
and the unthreaded dot product the float pmfs and metrics use."""

from fractions import Fraction

import numpy as np
import pytest

import dpexact
from dpexact.benchmarks_bracket import own_em
from dpexact.mechanisms.validation import float_scores
from dpexact.numbers.dot import DOT_CHUNK, dot_unthreaded
from dpexact.protocols import ValidatedFloatPmf
from dpexact.utility import expected_error

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("name", ["em", "pf", "rnm-exp"])
@pytest.mark.parametrize("n", [5, 300, 1_999])
def test_same_pmf_as_the_public_route(name, n):
    """Same values, log-values and stated bounds as ``pmf`` (which validates and copies)."""
    m = dpexact.mechanism(name, epsilon=1)
    assert isinstance(m, ValidatedFloatPmf)
    scores = RNG.uniform(0, 50, n)
    q = float_scores(scores)
    a, b = m.pmf(scores), m.pmf_float_validated(q)
    assert np.array_equal(a.values, b.values) and (a.rel_error, a.abs_error) == (b.rel_error, b.abs_error)
    assert np.array_equal(q, scores)  # read, never written


def test_em_beyond_the_blas_threshold():
    """EM at n = 20 000 (its E|x| by pieces): same pmf and bound as the public route."""
    m = dpexact.mechanism("em", epsilon=1)
    scores = RNG.uniform(0, 50, 20_000)
    a, b = m.pmf(scores), m.pmf_float_validated(float_scores(scores))
    assert np.array_equal(a.values, b.values) and a.rel_error == b.rel_error


def test_useless_float_bound_still_goes_to_balls():
    """ε = 10^4 on spread scores: the float bound is useless and ``pmf`` answers from balls; so does the entry."""
    m = dpexact.mechanism("pf", epsilon=10_000)
    q = float_scores([0.0, 1e-3, 2e-3, 0.5])
    a, b = m.pmf(q), m.pmf_float_validated(q)
    assert a.method == b.method and np.array_equal(a.values, b.values)


def test_a_mechanism_with_its_own_pmf_gets_it():
    m = own_em()
    q = float_scores([0.0, 1.0, 2.5])
    a, b = m.pmf(q), m.pmf_float_validated(q)
    assert np.array_equal(a.values, b.values) and a.error_kind == b.error_kind == "rigorous"


@pytest.mark.parametrize("bad", [[0.0, 1.0], np.array([0, 1]), np.zeros((2, 2)), np.zeros(0)])
def test_anything_but_a_validated_array_is_refused(bad):
    with pytest.raises(TypeError, match="float_scores"):
        dpexact.mechanism("em", epsilon=1).pmf_float_validated(bad)


def test_nan_is_never_a_silent_number():
    """A NaN slipped past the caller's validation: the NaN bound sends it to the ball route, which refuses."""
    with pytest.raises(ValueError, match="bounded by nan"):
        dpexact.mechanism("em", epsilon=1).pmf_float_validated(np.array([0.0, np.nan, 1.0]))


@pytest.mark.parametrize("n", [10, DOT_CHUNK, DOT_CHUNK + 1, 5 * DOT_CHUNK + 17])
def test_dot_unthreaded_against_exact_sum(n):
    """Against the correctly rounded sum (math.fsum of the exact products' two halves): within the
    blocked-summation bound ``(n + ⌈n/C⌉)·u·Σ|a_i b_i|``."""
    a, b = RNG.uniform(-1, 1, n), RNG.uniform(0, 1, n)
    exact = sum((Fraction(x) * Fraction(y) for x, y in zip(a.tolist(), b.tolist())), Fraction(0))
    got = dot_unthreaded(a, b)
    bound = (n + -(-n // DOT_CHUNK) + 2) * 2.0**-53 * float(np.sum(np.abs(a * b))) * 1.01
    assert abs(Fraction(got) - exact) <= Fraction(bound)


def test_expected_error_reads_the_scores_once_and_keeps_its_bound():
    """The metric's float route (one validation, the entry, the unthreaded dot) against the ball route."""
    m = dpexact.mechanism("em", epsilon="1/2")
    scores = RNG.uniform(0, 30, 2_000)
    f = expected_error(m, scores)
    b = expected_error(m, scores, "ball")
    assert abs(f.as_float - float(b.value.mid())) <= f.error_bound + float(b.value.rad())
    assert f.error_bound < 1e-9 * f.as_float
