"""Hypothesis fuzz of every registered mechanism's pmf with odd, extreme and hostile inputs.

Each case must end in a one-line ValueError/TypeError naming an argument, or in a finite pmf
that sums to one within its stated bound and (float backend) lies within its stated bound of
the rigorous ball pmf; every case runs under a time limit (:mod:`support.api_fuzz`).
Numeric strings are left to the exact parser's own tests.
"""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.mechanisms.registry import _factory
from support.api_fuzz import REQUIRED, Case, epsilon_pools, random_case, run_case, score_pools

#: the score-vector selection mechanisms; the peer-suite mechanisms (other output kinds) have their
#: own bad-input tests (tests/test_peer_*.py) and conformance (tests/test_conformance.py)
NAMES = [n for n in dpexact.available() if getattr(_factory(n), "output_kind", "selection") == "selection"]
PER_CASE_SECONDS = 30.0  # a hang guard (this is not a timing test; the machine may be loaded)

finite_or_not = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
extreme_floats = st.sampled_from([0.0, -0.0, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 1.7e308, -1.7e308, 1e-12, 1e7])
score_entries = st.one_of(
    st.floats(min_value=-1e308, max_value=1e308, allow_nan=False),
    extreme_floats,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.fractions(max_denominator=10**6),
)
scores = st.one_of(
    st.lists(score_entries, min_size=1, max_size=4),
    st.lists(finite_or_not, max_size=4),
    st.sampled_from([v for k, vs in score_pools().items() if k != "strings" for v in vs]),
    st.lists(st.integers(-3, 3), min_size=1, max_size=6).map(np.array),
)
epsilons = st.one_of(
    st.sampled_from([v for k, vs in epsilon_pools().items() if k != "strings" for v in vs]),
    st.floats(min_value=1e-300, max_value=1e300),
    finite_or_not,
    st.fractions(min_value=Fraction(1, 10**9), max_value=10**9),
)
backends = st.sampled_from(["float", "float", "float", "ball", "mp", "exact"])


def _assert_ok(case: Case) -> None:
    out = run_case(case, timeout=PER_CASE_SECONDS)
    assert out.kind != "wrong", f"{case}: {out.reason}"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), eps=epsilons, q=scores, backend=backends)
def test_pmf_is_clear_error_or_within_its_bound(name, eps, q, backend):
    _assert_ok(Case(name, {"epsilon": eps, **REQUIRED.get(name, {})}, q, backend))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_parameters_of_every_kind(seed):
    """Mechanism-specific parameters (p, γ, η, β, Δ_a, Δ, monotone), good and hostile."""
    _assert_ok(random_case(random.Random(seed), NAMES, strings=False))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("eps", [1e-300, 1e-12, 1, 1e4, 1e20, 1e300])
def test_issue_reproducers_every_mechanism(name, eps):
    """Scores (1, 0, 0) and (0, 0, -1e7) at extreme ε: never NaN, never outside the bound."""
    for q in ([1, 0, 0], [0, 0, -1e7]):
        _assert_ok(Case(name, {"epsilon": eps, **REQUIRED.get(name, {})}, q, "float"))


def test_oracle_flags_a_wrong_bound():
    """The oracle itself: a float pmf whose stated bound is too tight is reported as wrong."""
    from dataclasses import replace

    from dpexact.numbers.pmf_compare import bound_violations

    m = dpexact.mechanism("em", epsilon=1)
    p = m.pmf([1, 0, 0])
    ball = m.pmf([1, 0, 0], backend="ball")
    assert bound_violations(p, ball) == []
    shifted = replace(p, values=p.values + 1e-9)
    assert bound_violations(shifted, ball)
    assert not math.isnan(p.abs_error)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_cases_long(seed):
    _assert_ok(random_case(random.Random(seed), NAMES, strings=False))


@pytest.mark.parametrize("name", ["em", "pf", "rnm-global", "err"])
def test_exact_backend_refuses_astronomical_rational_weights(name):
    """ε = log 3 on scores ±1.7e308 would make e^{c d} = 3^{k} with k ~ 1e308 (a hang): refused."""
    import sympy

    out = run_case(Case(name, {"epsilon": sympy.log(3), **REQUIRED.get(name, {})}, [1.7e308, -1.7e308], "exact"),
                   timeout=PER_CASE_SECONDS)
    assert out.kind == "clear-error" and "exact backend" in out.reason
