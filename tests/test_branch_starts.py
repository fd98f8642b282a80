"""Lower-end starts on a law's branch boundaries (verification/proofs/branch_starts.py).

The own corpus's ``em-bonus-1-past-5000`` (EM at c = 1/4 with a bonus 1 on candidate 0 once q_0 > 5000,
level 3/2 derived by hand) had lower end 0.5 against its proved upper end 3/2: its supremum needs q_0 to
cross 5000 with the other scores far above, where no start of the maximiser looked.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import dpexact
from dpexact.verification.proofs import branch_starts as bs
from dpexact.verification.search.level import certify_triple
from support.own_corpus import CORPUS, reference_log_ratio


def _entry(name):
    return next(e for e in CORPUS if e.name == name)


def test_hyperplanes_find_the_constant():
    """The law's comparison q_0 > 5000 is read from its symbolic run (on every chart: L + G_0 = 5000 or L = 5000)."""
    e = _entry("em-bonus-1-past-5000")
    m = e.mechanism
    planes = bs.hyperplanes(m, m.neighbourhood(), 3, deadline=None)
    assert planes and abs(planes[0][1]) == 5000
    consts = {abs(c0) for _, c0, _ in planes}
    assert 5000 in consts


@pytest.mark.parametrize("name,level", [("em-bonus-1-past-5000", Fraction(3, 2)), ("em-bonus-1/2-past-5000", Fraction(1))])
def test_branch_start_reaches_the_level(name, level):
    """The best start, certified in balls, is within 1e-9 of the derived level; the independent mpmath
    reference at the same triple agrees."""
    e = _entry(name)
    m = e.mechanism
    starts = bs.branch_starts(m, m.neighbourhood(), 3)
    assert starts
    q, q2, r = starts[0]
    assert float(q[0]) > 5000 >= float(q2[0])  # the pair crosses the branch
    w = certify_triple(m, m.neighbourhood(), q, q2, r)
    assert float(level) - 1e-9 <= w.lower_float <= float(level)
    ref = reference_log_ratio(e, [str(x) for x in q], [str(x) for x in q2], r)
    assert abs(float(ref) - w.lower_float) < 1e-12


def test_mutation_no_far_gaps(monkeypatch):
    """Without the far-away other scores (GAPS = (0,)) the bonus is shared with tied candidates and the
    best start stays well below 3/2: the gaps are what reach the supremum."""
    e = _entry("em-bonus-1-past-5000")
    m = e.mechanism
    monkeypatch.setattr(bs, "GAPS", (0,))
    q, q2, r = bs.branch_starts(m, m.neighbourhood(), 3)[0]
    assert certify_triple(m, m.neighbourhood(), q, q2, r).lower_float < 1.45


def test_mutation_no_constants(monkeypatch):
    """Without the law's comparisons (no hyperplanes) there is nothing to place: no starts."""
    e = _entry("em-bonus-1-past-5000")
    monkeypatch.setattr(bs, "hyperplanes", lambda *a, **k: [])
    assert bs.branch_starts(e.mechanism, e.mechanism.neighbourhood(), 3) == []


def test_registered_mechanisms_get_no_starts():
    """Only laws the compact unit runs (define_mechanism pmfs) are read; a registered EM gets none."""
    from dpexact.mechanisms.registry import mechanism

    m = mechanism("em", epsilon=1)
    assert bs.branch_starts(m, m.neighbourhood(), 3) == []


@pytest.mark.slow
def test_verify_closes_the_bonus_bracket():
    """The whole verifier: em-bonus-1-past-5000 is violated with its bracket closed at [3/2 - 1e-9, 3/2] (it was
    undecided, [0.5, 3/2], before the branch starts)."""
    e = _entry("em-bonus-1-past-5000")
    v = dpexact.verify(e.mechanism, n=3)
    assert v.verdict == "violated" and v.bracket.closed()
    assert 1.5 - 1e-9 <= v.bracket.lower_float <= 1.5 and v.bracket.upper.upper == "3/2"
    w = v.bracket.lower
    ref = reference_log_ratio(e, list(w.scores), list(w.neighbour_scores), w.output)
    assert abs(float(ref) - w.lower_float) < 1e-12
