"""The one Verdict builder (dpexact.verification.verdict.build_verdict) and the exact decision of a bracket it uses."""

from __future__ import annotations

import math

import pytest

import dpexact
from dpexact.verification.bracket import EpsilonBracket, Proof, Witness
from dpexact.verification.verdict import Scope, build_verdict

LOG2_UP = math.nextafter(math.log(2), math.inf)  # float(log 2) lies below log 2: the proof's float is one ulp up


def _proof(upper, upper_float):
    return Proof(upper_float=upper_float, method="closed-form", domain={"n": "every"}, upper=upper)


def _witness(lower, lower_float):
    return Witness(lower_float=lower_float, scores=("0",), neighbour_scores=("1",), output=0, arithmetic="exact",
                   lower=lower)


def test_an_upper_end_equal_to_epsilon_is_private_only_when_compared_exactly():
    assert math.log(2) < LOG2_UP
    b = EpsilonBracket(upper=_proof("log(2)", LOG2_UP))
    assert b.decide(math.log(2))[0] == "undecided"  # the float route cannot see the equality
    assert b.decide_exact("log(2)")[0] == "private"
    assert b.decide_exact("log(2) - 1/10**30")[0] == "undecided"


def test_a_witness_equal_to_epsilon_is_not_a_violation():
    assert EpsilonBracket(lower=_witness("1/2", 0.5)).decide_exact("1/2")[0] == "undecided"
    assert EpsilonBracket(lower=_witness("3/5", 0.6)).decide_exact("1/2")[0] == "violated"
    assert EpsilonBracket(lower=_witness(None, 0.5000001)).decide_exact("1/2")[0] == "violated"


def test_the_builder_takes_the_kind_from_the_bracket_and_the_facts_from_the_mechanism():
    m = dpexact.mechanism("pf", epsilon="log(2)")
    v = build_verdict(m, epsilon="log(2)", scope=Scope(neighbourhood="box"), seconds=0.0,
                      bracket=EpsilonBracket(upper=_proof("log(2)", LOG2_UP)), worst_log_ratio=LOG2_UP)
    assert v.verdict == "private" and v.mechanism == "pf" and v.params == m.params() and v.epsilon == "log(2)"
    assert v.reason.startswith("proved log-ratio <=") and v.worst_float_log_ratio == LOG2_UP
    assert build_verdict(m, name="mine", epsilon="log(2)", verdict="inconclusive", scope=Scope(neighbourhood="box"),
                         seconds=0.0).mechanism == "mine"
    with pytest.raises(ValueError, match="give the verdict or the bracket"):
        build_verdict(m, epsilon="log(2)", scope=Scope(neighbourhood="box"), seconds=0.0)


def test_a_proof_equal_to_an_irrational_claim_is_private_with_a_proof_reason():
    """SVT1's threshold-shift coupling proves exactly its ε (Lyu et al. 2017 Thm 1): at ε = log 2 the proof's
    float end is one ulp above float(ε), and the verdict's reason must still be the proof, not a straddle."""
    v = dpexact.verify("svt1", epsilon="log(2)", n=3, param={"threshold": 1})
    assert v.verdict == "private" and v.bracket.upper.upper == "log(2)" and v.bracket.upper.upper_float == LOG2_UP
    assert v.reason.startswith("proved log-ratio <=") and "straddles" not in v.reason
