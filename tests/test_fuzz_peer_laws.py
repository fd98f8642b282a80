"""Hypothesis fuzz of the finite-output peer-suite laws (sparse vector family, RAPPOR, geometric)
with extreme and hostile parameters: each case is a one-line error naming an argument, or a
finite pmf summing to one within its bound and, on float, within its bound of the ball pmf
(the oracle of :mod:`support.api_fuzz`, shared with tests/test_fuzz_api.py)."""

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.mechanisms.registry import _factory
from support.api_fuzz import Case, epsilon_pools, run_case, score_pools

NAMES = [n for n in dpexact.available() if getattr(_factory(n), "output_kind", "selection") in ("finite", "mixed")]
SVT = [n for n in NAMES if "svt" in n]
PER_CASE_SECONDS = 30.0  # a hang guard, not a timing test

eps_pool = [v for k, vs in epsilon_pools().items() if k != "strings" for v in vs]
valid_eps = [v for k, vs in epsilon_pools().items() if k in ("good", "extreme") for v in vs]
score_pool = [v for k, vs in score_pools().items() if k != "strings" for v in vs]
valid_scores = [v for k, vs in score_pools().items() if k in ("good", "extreme") for v in vs]
# mostly valid parameters, so that the laws themselves are exercised at the extremes
epsilons = st.one_of(st.sampled_from(valid_eps), st.sampled_from(valid_eps), st.sampled_from(eps_pool))
queries = st.one_of(st.sampled_from(valid_scores), st.sampled_from(valid_scores), st.sampled_from(score_pool))
_valid_thresholds = st.sampled_from([0, 1, -5, Fraction(1, 3), 1e300, -1e300, 1e-300, 10**30, "1/3"])
thresholds = st.one_of(_valid_thresholds, _valid_thresholds, _valid_thresholds, st.sampled_from([math.nan, math.inf, None, "x"]))
# cutoffs above 3 are left out: with no abort the adaptive law sums 3^n branch terms (guarded, tested apart)
_valid_cutoffs = st.sampled_from([1, 2, 3])
cutoffs = st.one_of(_valid_cutoffs, _valid_cutoffs, _valid_cutoffs, st.sampled_from([0, -1, 2.5, True]))


@pytest.mark.parametrize("name", NAMES)
def test_every_peer_law_is_exercised(name):
    assert getattr(_factory(name), "output_kind", None) in ("finite", "mixed")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(SVT), eps=epsilons, q=queries, threshold=thresholds, cutoff=cutoffs, backend=st.sampled_from(["float", "float", "ball"]))
def test_sparse_vector_laws_are_clear_errors_or_within_their_bounds(name, eps, q, threshold, cutoff, backend):
    params = {"epsilon": eps, "threshold": threshold, "cutoff": cutoff}
    out = run_case(Case(name, params, q, backend), timeout=PER_CASE_SECONDS)
    assert out.kind != "wrong", f"{name} {params} {q} {backend}: {out.reason}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([n for n in NAMES if n not in SVT]), eps=epsilons,
       q=st.one_of(queries, st.sampled_from([[0], [3], [-10], [10], [2.5]])), backend=st.sampled_from(["float", "ball", "exact"]))
def test_other_finite_laws_are_clear_errors_or_within_their_bounds(name, eps, q, backend):
    out = run_case(Case(name, {"epsilon": eps}, q, backend), timeout=PER_CASE_SECONDS)
    assert out.kind != "wrong", f"{name} {eps} {q} {backend}: {out.reason}"


@pytest.mark.parametrize("name", ["svt1", "adaptive-svt", "numerical-svt", "svt5"])
def test_float_law_reads_queries_exactly_like_the_threshold(name):
    """q_0 = T = 10^30 exactly: rounding the query to float64 (and not the threshold) moved q_0 - T
    by 2·10^13 and the float pmf said Pr[first ⊤] = 0 where the law says about 1/2."""
    out = run_case(Case(name, {"epsilon": 1, "threshold": 10**30, "cutoff": 1}, [10**30, 0], "float"), timeout=60)
    assert out.kind == "correct", out.reason
    p = dpexact.mechanism(name, epsilon=1, threshold=10**30, cutoff=1).pmf([10**30, 0])
    assert 0.3 < p.values[0] < 0.7
