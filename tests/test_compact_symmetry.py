"""The compact branch-and-bound's two reductions on own laws (dpexact/verification/proofs/compact_symmetry.py,
compact_bnb's classes of pairs of paths with one ratio), and their mutations.

Independent values: EM with weights e^{c·q} has level 2cΔ on the ℓ∞ box (McSherry & Talwar 2007), and a
softmax whose last candidate has exponent 2c is not symmetric: with the shift by the top score its level,
2ε, is reached at output n-1 only (its weight moves by 2·2cΔ against the others' top), recomputed here in
mpmath at a witness placed by hand.
"""

from __future__ import annotations

import mpmath
import pytest

import dpexact
from dpexact.benchmarks_bracket import own_em, own_pf
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import compact_bnb
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_symmetry import symmetric_law


def _softmax(cs):
    """Pr[r] ∝ e^{k_r c q_r}, c = ε/2Δ, k_r from ``cs`` (the last entry repeated), shifted by ops.max."""
    def pmf(q, p, ops):
        c = p.epsilon / (2 * p.sensitivity)
        top = ops.max(q)
        w = [ops.exp(ops.num(cs[min(i, len(cs) - 1)]) * c * (x - top)) for i, x in enumerate(q)]
        s = ops.sum(w)
        return [v / s for v in w]
    return pmf


def _far(q, p, ops):
    """EM, but candidate 1's exponent doubles once q_0 - q_1 > 1000: asymmetric at large gaps only."""
    c = p.epsilon / (2 * p.sensitivity)
    top = ops.max(q)
    c1 = 2 * c if ops.compare(q[0] - q[1], 1000) > 0 else c
    w = [ops.exp((c1 if i == 1 else c) * (x - top)) for i, x in enumerate(q)]
    s = ops.sum(w)
    return [v / s for v in w]


def _last_doubled(n=3):
    return dpexact.define_mechanism("last-doubled", _softmax(["1"] * (n - 1) + ["2"]), epsilon=1,
                                    properties=dict(symmetric=True, shift_invariant=True))  # a false declaration


@pytest.mark.parametrize("n", [3, 5])
def test_symmetry_is_proved_for_em_and_pf_written_with_a_max_shift(n):
    assert symmetric_law(own_em(), n)
    assert symmetric_law(own_pf(), n)


@pytest.mark.parametrize("n", [2, 3])
def test_symmetry_is_refused_for_an_asymmetric_law_even_when_declared(n):
    assert not symmetric_law(_last_doubled(n), n)
    # asymmetric only beyond a score gap of 1000: the paths carry the branch, so it is seen
    assert not symmetric_law(dpexact.define_mechanism("far", _far, epsilon=1,
                                                      properties=dict(symmetric=True)), n)


def _level_witness_last_doubled(gap=64):
    """log P(q)_2 - log P(q')_2 at q = (0, 0, -gap), q' = q + (1, 1, -1), c = 1/2, in mpmath (the law
    shifts by the top score: P_r ∝ e^{k_r c (q_r - max q)})."""
    with mpmath.workdps(50):
        c = mpmath.mpf(1) / 2

        def logp(q):
            top = max(q)
            ws = [mpmath.exp(c * (q[0] - top)), mpmath.exp(c * (q[1] - top)), mpmath.exp(2 * c * (q[2] - top))]
            return mpmath.log(ws[2] / mpmath.fsum(ws))
        return float(logp([0, 0, -gap]) - logp([1, 1, -gap - 1]))


def test_the_symmetry_premise_is_load_bearing(monkeypatch):
    """Mutation: a symmetry taken from the declaration (the check answering True) visits roots (0, 0) and
    (1, 0) only and proves an upper end below the law's level; the proved check visits every root."""
    m, nb = _last_doubled(), parse_neighbourhood("box", _last_doubled())
    level = _level_witness_last_doubled()
    assert level > 1.99  # the level, 2, is approached as the last candidate falls away
    proof, _ = CompactBnB(seconds=60).bracket(m, 3, nb)
    assert proof.details["status"] == "proved" and Real.of(proof.upper) == Real.of(2)
    monkeypatch.setattr(compact_bnb, "symmetric_law", lambda *a: True)
    wrong, _ = CompactBnB(seconds=60).bracket(m, 3, nb)
    assert wrong.upper_float < level  # unsound without the proof of the premise


def test_own_em_at_n5_is_proved_exactly():
    """Own EM (ops.max shift: 16 paths per chart side at n = 5, each pair of paths the same ratio) at its
    level: `undecided` before the two reductions (measured: budget spent in 60 CPU-s, 25 boxes)."""
    m = own_em()
    proof, witness = CompactBnB(seconds=15).bracket(m, 5, parse_neighbourhood("box", m))
    assert proof.details["status"] == "proved" and Real.of(proof.upper) == Real.of(1)
    assert witness is not None and 1 - 1e-6 <= witness.lower_float <= 1


def _em_15():
    return dpexact.define_mechanism("em-1.5", _softmax(["3/2"]), epsilon=1)


def test_pairs_with_one_ratio_still_find_a_violation():
    """An own EM at 3ε/2 shifted by ops.max (its pairs of paths in classes of one ratio) keeps its level 1.5."""
    m = _em_15()
    proof, witness = CompactBnB(seconds=30).bracket(m, 3, parse_neighbourhood("box", m))
    assert proof.details["status"] == "proved" and abs(proof.upper_float - 1.5) < 1e-9
    assert witness is not None and witness.lower_float > 1.5 - 1e-6


def test_a_class_answering_without_its_bound_is_caught(monkeypatch):
    """Mutation: a class of pairs settled without bounding its ratio proves ε = 1 for the 1.5 law (so the
    test above fails on it)."""
    monkeypatch.setattr(CompactBnB, "_class", lambda self, *a, **k: True)
    m = _em_15()
    proof, _ = CompactBnB(seconds=30).bracket(m, 3, parse_neighbourhood("box", m))
    assert proof.upper_float < 1.5


def test_a_degree_in_t_beyond_the_bound_is_refused_before_flint_sees_it():
    """A face far out (the soundness benchmark's em-low, reached once the classes change the boxes' order)
    substituted T^21523359038 into a ratio, and flint's gcd aborted the process: the bound is checked."""
    from dpexact.verification.proofs.compact_budget import TooLarge
    from dpexact.verification.proofs.compact_fractions import MAX_T_DEGREE, Space, _reduce

    space = Space(("W0",), 1)
    w, t = space.ctx.gens()
    with pytest.raises(TooLarge):
        _reduce(t ** (MAX_T_DEGREE + 1) + w, t + 2)
    assert not _reduce(t ** MAX_T_DEGREE + w, t + 2).is_zero()
