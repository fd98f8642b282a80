"""More laws through the proved symmetry of :mod:`dpexact.verification.proofs.compact_symmetry`, and the
hand-written PF family proved at n = 4 with it.

Independent values: EM, PF, RNM-exponential and GRR with shared ties are symmetric by their formulas;
top-1 with ties broken to the lowest index is not (at a tie), nor is a law with one candidate's exponent
changed, nor one whose candidate 0 is treated differently only 1000 below the top. That last law's level
is log((1/2 + 2e^{501}) / (1/2 + e^{500})) ≈ 1 + log 2 on the ℓ∞ box (a neighbour crossing the threshold
halves candidate 0's weight: worked out by hand), so ε = 1 must not be proved. The n = 4 levels are
pf Theorem 1's (2c·ε for exponent c·ε/Δ)."""

from __future__ import annotations

import pytest
from example_laws import hand as _hand

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import LInfBox
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_symmetry import symmetric_law
from dpexact.verification.proofs.outcome import proves

_PROPS = {"symmetric": True, "shift_invariant": True}  # declared on every law below, true or not




def _first_top(q, p, ops):
    top = ops.argmax(q)
    e, n = ops.exp(p.epsilon), len(q)
    return [e / (e + n - 1) if r == top[0] else 1 / (e + n - 1) for r in range(n)]


def _far(q, p, ops):
    top = ops.max(q)
    w = [ops.exp(ops.num("1/2") * p.epsilon * (x - top) / p.sensitivity) for x in q]
    if ops.compare(top - q[0], ops.from_int(1000)) > 0:
        w[0] = w[0] / 2
    s = ops.sum(w)
    return [v / s for v in w]


def _one_exponent(q, p, ops):
    w = [ops.exp(ops.num("1/2") * p.epsilon * x / p.sensitivity) for x in q]
    w[2] = ops.exp(ops.num("3/4") * p.epsilon * q[2] / p.sensitivity)
    s = ops.sum(w)
    return [v / s for v in w]


@pytest.mark.parametrize("attr", ["em", "pf", "rnm_exponential", "pf_half", "grr"])
def test_hand_written_laws_are_proved_symmetric_at_n3(attr):
    assert symmetric_law(_hand(attr), 3)


@pytest.mark.parametrize("law", [_first_top, _far, _one_exponent])
def test_asymmetric_laws_declared_symmetric_are_refused(law):
    m = dpexact.define_mechanism("declared-symmetric", law, epsilon=1, properties=_PROPS)
    assert not symmetric_law(m, 3)


def test_far_law_not_proved_private_and_its_level_found_with_every_root():
    m = dpexact.define_mechanism("far", _far, epsilon=1, properties=_PROPS)
    proof, _ = CompactBnB(seconds=60).bracket(m, 3, LInfBox(1))
    assert not proves(proof, m)
    assert "symmetry" not in proof.domain["coverage"]
    level = Real.of("log((1/2 + 2*exp(501))/(1/2 + exp(500)))")
    assert proof.upper_float >= float(level.to_sympy()) - 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("attr, level", [("pf", "1"), ("rnm_exponential", "1"), ("pf_half", "1/2")])
def test_hand_written_pf_family_proved_at_its_exact_level_at_n4(attr, level):
    """Two roots of 16 under the proved symmetry, the atoms' ranges deciding the derivative signs
    (:mod:`.compact_atoms`): the exact level, every real score vector of length 4."""
    m = _hand(attr)
    proof, _ = CompactBnB().bracket(m, 4, LInfBox(1))
    assert proof.details["status"] == "proved" and proof.whole_domain and "symmetry" in proof.domain["coverage"]
    assert Real.of(proof.upper) == Real.of(level) and proves(proof, m)
