"""Pure ε-DP verifier: neighbourhoods, certified pair decisions, verdicts (pf Def. 1-4, Prop. 2, Remark 1)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

import dpexact
from dpexact.verification.decide.counterexample import Counterexample
from dpexact.verification.neighbourhoods import (AnyPair, HistogramAddRemove, HistogramReplace, LInfBox, MonotoneBox,
                                           default_neighbourhood, parse_neighbourhood)
from dpexact.verification.decide.pure_dp import check_pure_dp, neighbour_pairs, prop2_check
from dpexact.verification.search.selection import grid_family, random_family, structured_family, verify
from dpexact.suites.soundness import Misclaimed


def em_log_ratio_mp(q, q2, r, c):
    """Independent closed form of log(P_EM(q)_r / P_EM(q2)_r) at 50 digits."""
    with mpmath.workdps(50):
        lz = lambda v: mpmath.log(mpmath.fsum(mpmath.exp(c * mpmath.mpf(x.numerator) / x.denominator) for x in map(Fraction, v)))  # noqa: E731
        d = Fraction(q[r]) - Fraction(q2[r])
        return float(c * mpmath.mpf(d.numerator) / d.denominator - lz(q) + lz(q2))


# -- neighbourhoods ------------------------------------------------------------------------------
def test_box_candidates_are_the_lattice_and_contained():
    nb = LInfBox(1)
    c = nb.candidates([0, 0, 0], steps=1)
    assert len(c) == 3**3 - 1
    assert len(nb.candidates([0, 0], steps=2)) == 5**2 - 1
    assert all(nb.contains([0, 0, 0], v) for v in c)
    assert not nb.contains([0, 0], [Fraction(11, 10), 0])


def test_monotone_histogram_anypair_relations():
    mb = MonotoneBox(1)
    assert mb.contains([0, 0], [1, Fraction(1, 2)]) and not mb.contains([0, 0], [1, -1])
    assert all(mb.contains([0, 0], v) for v in mb.candidates([0, 0], 2))
    h = HistogramAddRemove()
    assert len(h.candidates([3, 1])) == 4 and h.contains([3, 1], [3, 2]) and not h.contains([3, 1], [4, 2])
    rp = HistogramReplace()
    assert rp.contains([3, 1], [2, 2]) and len(rp.candidates([3, 1, 0])) == 6
    ap = AnyPair(([0, 1], [1, 0], [0, 0]))
    assert len(ap.candidates([0, 1])) == 2


def test_candidatewise_box_and_defaults():
    nb = LInfBox(1, ("1/10", 1))
    assert nb.contains([0, 0], [Fraction(1, 10), -1]) and not nb.contains([0, 0], [Fraction(1, 5), 0])
    assert isinstance(default_neighbourhood(dpexact.mechanism("em", epsilon=1, monotone=True)), MonotoneBox)
    assert isinstance(parse_neighbourhood("box:2"), LInfBox)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_bad_scores_rejected(bad):
    with pytest.raises(ValueError, match="scores"):
        LInfBox(1).candidates([0, bad])


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="sensitivity"):
        LInfBox(0)
    with pytest.raises(ValueError, match="sensitivity"):
        LInfBox(-1)
    with pytest.raises(ValueError, match="steps"):
        LInfBox(1).candidates([0, 0], steps=0)
    with pytest.raises(ValueError, match="steps"):
        LInfBox(1).candidates([0] * 12, steps=2)  # 5^12 neighbours: memory guard
    with pytest.raises(ValueError, match="n must be"):
        grid_family(7, [0, 1])
    with pytest.raises(ValueError, match="scores must not be empty"):
        LInfBox(1).candidates([])
    with pytest.raises(ValueError, match="searches"):
        verify(dpexact.mechanism("em", epsilon=1), searches=("bogus",))
    with pytest.raises(ValueError, match="count"):
        random_family(3, 0, 0, 1)
    with pytest.raises(ValueError, match="neighbourhood"):
        parse_neighbourhood("sphere")


# -- the exact maximum over a scope ---------------------------------------------------------------
def test_em_scope_maximum_matches_closed_form():
    m = dpexact.mechanism("em", epsilon=1)
    vecs = grid_family(2, [0, 1, 2])
    res = check_pure_dp(m, vecs)
    assert res.certified_all and res.counterexample is None
    pairs = neighbour_pairs(vecs, LInfBox(1))
    brute = max(max(em_log_ratio_mp(a, b, r, 0.5), em_log_ratio_mp(b, a, r, 0.5)) for a, b in pairs for r in range(2))
    assert res.worst_certified_hi == pytest.approx(brute, abs=1e-14)
    assert res.worst_certified_hi < 1  # EM never attains e^ε on finite vectors


def test_pf_tight_pairs_are_decided_exactly():
    # pf Theorem 1 proof: the Prop. 2 constraint holds with equality when q_r <= q* - 2Δ
    m = dpexact.mechanism("pf", epsilon="2*log(3)")
    res = check_pure_dp(m, [[0, 0, -2], [0, -1, -2]])
    assert res.certified_all and res.decided_exact > 0 and res.undecided == 0
    p2 = prop2_check(m, [[0, -2, -3]])
    assert p2.certified_all and p2.decided_exact >= 2  # r = 1, 2 are tight


def test_monotone_exponent_on_box_is_violated_with_exact_recheck():
    m = dpexact.mechanism("em", epsilon=1, monotone=True)
    res = check_pure_dp(m, [[0, 0]], LInfBox(1))
    cx = res.counterexample
    assert cx is not None
    rc = cx.recheck("exact")
    assert rc.proved and rc.neighbours
    expected = em_log_ratio_mp(cx.scores, cx.neighbour_scores, cx.output, 1.0)
    assert rc.log_ratio_lo == pytest.approx(expected, rel=1e-14)
    assert expected > 1


def test_misclaimed_pf_ratio_is_twice_the_claim():
    # PF at ε' = 4 log 3 attains e^{ε'} exactly (pf Thm 1 proof) while claiming 2 log 3
    m = Misclaimed(dpexact.mechanism("pf", epsilon="4*log(3)"), "2*log(3)")
    res = prop2_check(m, [[0, -2, -3]])
    cx = res.counterexample
    assert cx is not None and cx.recheck("exact").proved and cx.recheck("ball").proved
    assert cx.log_ratio_lo == pytest.approx(4 * float(mpmath.log(3)), rel=1e-14)


def test_recheck_refuses_a_non_violation():
    m = dpexact.mechanism("em", epsilon=1)
    cx = Counterexample(m, LInfBox(1), (Fraction(0), Fraction(0)), (Fraction(1), Fraction(-1)), 1, 0.0, 0.0)
    assert not cx.recheck("ball").proved
    assert not cx.recheck("exact").proved
    far = Counterexample(m, LInfBox(1), (Fraction(0), Fraction(0)), (Fraction(5), Fraction(-5)), 1, 0.0, 0.0)
    assert not far.recheck("ball").neighbours and not far.recheck("ball").proved


def test_verify_em_private_and_pf_monotone_violated():
    v = verify(dpexact.mechanism("em", epsilon="1/2", sensitivity=2), searches=("grid", "structured"))
    assert v.verdict == "private-within-scope" and v.certified and v.worst_log_ratio <= 0.5
    bad = verify(dpexact.mechanism("pf", epsilon="2*log(3)", monotone=True), LInfBox(1))
    assert bad.verdict == "violated" and bad.recheck.proved
    assert bad.counterexample.recheck("exact").proved
    d = bad.as_dict()
    assert set(d) >= {"mechanism", "params", "epsilon", "neighbourhood", "verdict", "worst_log_ratio", "certified", "scope",
                      "counterexample", "seconds"}
    assert set(d["counterexample"]) >= {"scores", "neighbour_scores", "output", "ratio"}


def test_structured_family_shapes():
    fam = structured_family(3, 1)
    assert (0, -1, -2) in fam and (0, 0, 0) in fam and (Fraction(-2), Fraction(-2), 0) in fam


def test_histogram_neighbourhood_on_mode_counts():
    # EM with monotone=True is ε-DP for add/remove-one on counts (Δ = 1, monotone quality)
    m = dpexact.mechanism("em", epsilon=1, monotone=True)
    res = check_pure_dp(m, [list(v) for v in itertools.product(range(3), repeat=3)], HistogramAddRemove())
    assert res.certified_all and res.worst_certified_hi <= 1
    # ... but not under replace-one (one count up, one down): ratio up to e^{2ε}
    res2 = check_pure_dp(m, [[0, 2, 0]], HistogramReplace())
    assert res2.counterexample is not None and res2.recheck.proved
