"""A law's permutation symmetry proved, never declared (dpexact.verification.proofs.compact_symmetry),
and the compact branch-and-bound's roots cut to two orbits only under that proof.

Independent values: EM, PF, RNM-exponential and GRR with shared ties are symmetric by their formulas;
top-1 with ties broken to the lowest index is not (at a tie), nor is a law whose candidate 0 is
treated differently only 1000 below the top. That last law's level is
log((1/2 + 2e^{501}) / (1/2 + e^{500})) ≈ 1 + log 2 on the ℓ∞ box (a neighbour crossing the
threshold halves candidate 0's weight: worked out by hand), so ε = 1 must not be proved."""

from __future__ import annotations

import importlib.util
from fractions import Fraction as F
from pathlib import Path

import pytest

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import LInfBox
from dpexact.verification.proofs import compact_bnb
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_symmetry import (
    feasible,
    generators,
    proved_symmetric,
)
from dpexact.verification.proofs.outcome import proves

_PROPS = {"symmetric": True, "shift_invariant": True}  # declared on every law below, true or not


def _hand(attr: str):
    path = Path(__file__).resolve().parents[1] / "examples" / "hand_written_selection.py"
    spec = importlib.util.spec_from_file_location("hand_written_selection", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, attr)


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


def test_generators_generate_the_symmetric_group():
    import itertools

    for n in (2, 3, 4):
        group = {tuple(range(n))}
        frontier = set(group)
        while frontier:
            new = {tuple(g[h[b]] for b in range(n)) for g in generators(n) for h in frontier} - group
            group |= new
            frontier = new
        assert group == set(itertools.permutations(range(n)))


@pytest.mark.parametrize("attr", ["em", "pf", "rnm_exponential", "pf_half", "grr"])
@pytest.mark.parametrize("n", [3, 4])
def test_symmetric_laws_are_proved_symmetric(attr, n):
    assert proved_symmetric(_hand(attr), n)


@pytest.mark.parametrize("law", [_first_top, _far, _one_exponent])
def test_asymmetric_laws_declared_symmetric_are_refused(law):
    m = dpexact.define_mechanism("declared-symmetric", law, epsilon=1, properties=_PROPS)
    for n in (3, 4):
        assert not proved_symmetric(m, n)


def test_feasible_sees_a_strict_cycle_and_a_consistent_order():
    one = F(1)
    z = F(0)
    # v0 > v1, v1 > v2, v2 > v0: empty;   v0 >= v1 >= v2: not
    cycle = [(z, (one, -one, z), True), (z, (z, one, -one), True), (z, (-one, z, one), True)]
    assert not feasible(cycle, 3)
    weak = [(z, (one, -one, z), False), (z, (z, one, -one), False), (z, (-one, z, one), False)]
    assert feasible(weak, 3)  # all equal
    assert not feasible(cycle[:2] + [(z, (-one, z, one), False)], 3)  # v2 >= v0 with v0 > v1 > v2


def test_far_law_not_proved_private_and_its_level_found_with_every_root():
    m = dpexact.define_mechanism("far", _far, epsilon=1, properties=_PROPS)
    proof, _ = CompactBnB(seconds=60).bracket(m, 3, LInfBox(1))
    assert not proves(proof, m)
    assert "symmetry" not in proof.details
    level = Real.of("log((1/2 + 2*exp(501))/(1/2 + exp(500)))")
    assert proof.upper_float >= float(level.to_sympy()) - 1e-9


def test_mutation_trusting_the_declared_symmetry_gives_a_false_private(monkeypatch):
    """The violation lives where candidate 0 is not the largest: the two orbit representatives (chart
    0) never see it. Taking the declaration instead of the proof proves a false ε = 1."""
    m = dpexact.define_mechanism("far", _far, epsilon=1, properties=_PROPS)
    monkeypatch.setattr(compact_bnb, "proved_symmetric", lambda *a: True)
    proof, _ = CompactBnB(seconds=60).bracket(m, 3, LInfBox(1))
    assert proves(proof, m)  # wrong: this is what the proof of (E) prevents


def test_unequal_offsets_keep_every_root():
    m = _hand("pf")
    unit = CompactBnB(seconds=60)
    import sympy

    _, _, note = unit._roots(m, 3, LInfBox(1, sensitivities=(1, 1, 2)), sympy.Integer(1), None)
    assert note == ""
    roots, _, note = unit._roots(m, 3, LInfBox(1), sympy.Integer(1), None)
    assert note and {(root.r, root.m) for root, _ in roots} == {(0, 0), (1, 0)}


@pytest.mark.slow
@pytest.mark.parametrize("attr, level", [("pf", "1"), ("rnm_exponential", "1"), ("pf_half", "1/2")])
def test_hand_written_pf_family_proved_at_its_exact_level_at_n4(attr, level):
    """Two roots of 16 under the proved symmetry, the atoms' ranges deciding the derivative signs:
    the exact level (pf Theorem 1: 2c·ε for exponent c·ε/Δ), every real score vector of length 4."""
    m = _hand(attr)
    proof, _ = CompactBnB().bracket(m, 4, LInfBox(1))
    assert proof.details["status"] == "proved" and proof.whole_domain and "symmetry" in proof.details
    assert Real.of(proof.upper) == Real.of(level) and proves(proof, m)
