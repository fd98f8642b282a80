"""A law written by hand proved identical to a registered law, then that law's theorem (proofs/law_identity.py).

Independent checks: the identified exponent scale reproduces the law's exact pmf through the *registered*
class at random rational scores (another computation: the class's own exact method, not the symbolic
run); mutations — one weight off by 1 %, a branch far out, another tie-break, the reference itself
broken — must stop the identity, and then no proof comes from this unit.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations
from math import factorial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import sympy
from example_laws import hand

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import LInfBox
from dpexact.verification.proofs import law_identity
from dpexact.verification.proofs.law_identity import LawIdentity, identified_law

_PROPS = dict(symmetric=True, shift_invariant=True)


@pytest.mark.parametrize("name, reference, c", [("pf", "permute-and-flip", Fraction(1, 2)),
                                                ("pf_half", "permute-and-flip", Fraction(1, 4)),
                                                ("rnm_exponential", "permute-and-flip", Fraction(1, 2)),
                                                ("em", "exponential mechanism", Fraction(1, 2)),
                                                ("em_half", "exponential mechanism", Fraction(1, 4))])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_hand_laws_are_identified_and_agree_with_the_registered_class(name, reference, c, n):
    law = hand(name)
    found = identified_law(law, n)
    assert found is not None and found[0].name == reference and found[1] == c
    registered = found[0].mechanism(Real.of(c))
    rng = random.Random(n)
    for _ in range(3):
        q = [Fraction(rng.randint(-40, 40), rng.choice([1, 2, 3])) for _ in range(n)]
        mine = dpexact.pmf(law, q, backend="exact").values
        theirs = dpexact.pmf(registered, q, backend="exact").values
        assert all(sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0 for a, b in zip(mine, theirs))


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_hand_grr_is_identified_with_its_epsilon(n):
    found = identified_law(hand("grr"), n)
    assert found is not None and found[0].name == "generalized randomized response" and found[1] == 1
    registered = found[0].mechanism(Real.of(found[1]))
    for q in ([0] * n, [1] + [0] * (n - 1), [3, 3] + [-5] * (n - 2), list(range(n))):
        mine = dpexact.pmf(hand("grr"), q, backend="exact").values
        theirs = dpexact.pmf(registered, q, backend="exact").values
        assert all(sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0 for a, b in zip(mine, theirs))


def _grr_variant(first_wins: bool = False, far: bool = False):
    def pmf(q, p, ops):
        top = ops.argmax(q)
        if first_wins:  # ties broken towards the first maximiser: another law at ties only
            top = top[:1]
        e, n, k = ops.exp(p.epsilon), len(q), len(top)
        if far and ops.compare(ops.max(q), ops.from_int(5000)) > 0:  # another ε once the top passes 5000
            e = ops.exp(2 * p.epsilon)
        return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]
    return dpexact.define_mechanism("grr-variant", pmf, epsilon=1, properties=_PROPS)


def test_grr_mutations_are_not_identified():
    assert identified_law(_grr_variant(), 3)[0].name == "generalized randomized response"
    assert identified_law(_grr_variant(first_wins=True), 3) is None
    assert identified_law(_grr_variant(far=True), 3) is None


def test_hand_grr_at_n6_is_private_with_level_epsilon():
    # beyond the compact unit's n <= 5: the identity and brr eq. (6)
    v = dpexact.verify(hand("grr"), n=6)
    assert v.verdict == "private" and v.bracket.upper.upper == "1"
    assert v.bracket.upper.method == "law identity + theorem" and 1 - 1e-9 <= v.bracket.lower_float <= 1


def _pf_variant(tweak, c: str = "1/2"):
    """PF with exponent scale ``c·ε/Δ`` written as in examples/hand_written_selection.py, with
    ``tweak(q, p, ops, r, k, term, top)`` applied to each term (the mutation)."""
    def pmf(q, p, ops):
        top = ops.max(q)
        w = [ops.exp(ops.num(c) * p.epsilon * (x - top) / p.sensitivity) for x in q]
        n = len(q)
        out = []
        for r in range(n):
            total = ops.from_int(0)
            for k in range(n):
                for s in combinations([a for a in range(n) if a != r], k):
                    term = ops.num(f"{factorial(k) * factorial(n - 1 - k)}/{factorial(n)}")
                    for a in s:
                        term = term * (1 - w[a])
                    total = total + tweak(q, p, ops, r, k, term, top)
            out.append(w[r] * total)
        return out
    return dpexact.define_mechanism("pf-variant", pmf, epsilon=1, properties=_PROPS)


def test_the_unmutated_variant_is_identified():
    assert identified_law(_pf_variant(lambda q, p, ops, r, k, t, top: t), 3)[0].name == "permute-and-flip"


def test_a_term_off_by_one_percent_is_not_identified():
    law = _pf_variant(lambda q, p, ops, r, k, t, top: t * ops.num("101/100") if k == 1 else t)
    assert identified_law(law, 3) is None
    assert LawIdentity().prove(law, 3, LInfBox(1)) is None


def test_a_branch_far_out_is_not_identified():
    # the law is PF except where some score is 1000 or more below the top: a path the charts enumerate
    def tweak(q, p, ops, r, k, t, top):
        far = any(ops.compare(top - x, ops.from_int(1000)) >= 0 for x in q)
        return t * ops.num("3/2") if far and k == 1 else t
    assert identified_law(_pf_variant(tweak), 3) is None


def test_a_branch_at_a_large_absolute_score_is_not_identified():
    # PF except once the top score passes 5000 (not shift-invariant there): the chart's top L meets it
    def tweak(q, p, ops, r, k, t, top):
        return t * ops.num("3/2") if k == 1 and ops.compare(top, ops.from_int(5000)) > 0 else t
    law = _pf_variant(tweak)
    assert identified_law(law, 3) is None
    assert LawIdentity().prove(law, 3, LInfBox(1)) is None


def test_another_tie_break_is_not_identified():
    # every output's terms change only where two scores tie: a lower-dimensional set, still every input
    def tweak(q, p, ops, r, k, t, top):
        ties = sum(1 for x in q if ops.eq(x, top))
        return t * ops.num("1/2") if ties > 1 and k == 0 else t
    assert identified_law(_pf_variant(tweak), 3) is None


def test_a_broken_reference_stops_the_proof(monkeypatch):
    pf = law_identity.REFERENCES[0]
    broken = law_identity.Reference(pf.name, pf.citation, lambda c, chart: [v + v / 100 for v in pf.values(c, chart)],
                                    pf.mechanism, pf.params)
    monkeypatch.setattr(law_identity, "REFERENCES", (broken,))
    monkeypatch.setattr(law_identity, "_CACHE", {})
    assert identified_law(hand("pf"), 3) is None
    assert LawIdentity().prove(hand("pf"), 3, LInfBox(1)) is None


def test_the_proof_states_its_domain_and_the_exact_level():
    proof = LawIdentity().prove(hand("pf_half"), 4, LInfBox(1))
    assert proof.upper == "1/2" and proof.whole_domain
    assert proof.domain["n"] == 4 and proof.domain["scores"] == "R^n"
    assert "pf Theorem 1" in proof.theorem and "c = 1/4" in proof.theorem


@pytest.mark.slow
@pytest.mark.parametrize("name, level", [("pf", "1"), ("pf_half", "1/2"), ("rnm_exponential", "1")])
def test_hand_pf_at_n5_is_private_with_its_exact_level(name, level):
    v = dpexact.verify(hand(name), n=5)
    assert v.verdict == "private"
    assert v.bracket.upper.upper == level
    assert abs(v.bracket.lower_float - Real.of(level).to_float()) <= 1e-6


def _pf_at(c: str, bump: str = "1"):
    """PF with exponent scale ``c`` (ε = Δ = 1), the k = 1 terms of output 0 scaled by ``bump``."""
    return _pf_variant(lambda q, p, ops, r, k, t, top: t * ops.num(bump) if (r == 0 and k == 1) else t, c)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num=st.integers(1, 9), den=st.integers(1, 9), n=st.integers(2, 4),
       bump=st.sampled_from(["1", "1001/1000", "999/1000", "2"]))
def test_the_scale_read_is_the_law_s_and_any_bump_is_refused(num, den, n, bump):
    c = Fraction(num, den)
    found = identified_law(_pf_at(f"{num}/{den}", bump), n)
    if bump == "1":
        assert found is not None and found[0].name == "permute-and-flip" and found[1] == c
        # the theorem's level is 2cΔ on the unit box: the proof's upper end, exactly
        assert Real.of(LawIdentity().prove(_pf_at(f"{num}/{den}"), n, LInfBox(1)).upper) == Real.of(2 * c)
    else:
        assert found is None
