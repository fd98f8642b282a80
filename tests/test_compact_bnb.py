"""The compact branch-and-bound (dpexact.verification.proofs.compact_bnb): proofs over every real score
vector for laws written with define_mechanism, exact at tight levels, and its mutations.

Independent values: the exponential mechanism with weights exp(c·ε·q/(2Δ)) has level exactly c·ε on
the ℓ∞ box of radius Δ (McSherry & Talwar 2007, Thm 6, tight as one gap grows); GRR on the best
candidate has level ε (its two probabilities' ratio is e^ε, brr eq. 6)."""

from __future__ import annotations

import math

import pytest
from example_laws import hand as _hand

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import PROOFS, compact_faces
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.outcome import proves

SI = dict(symmetric=True, shift_invariant=True)


def _em(c: str, label: str = "own-em") -> object:
    def pmf(q, p, ops):
        w = [ops.exp(ops.num(c) * p.epsilon * x / (2 * p.sensitivity)) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]
    return dpexact.define_mechanism(label, pmf, epsilon=1, properties=SI)


def _grr(q, p, ops):
    top = ops.argmax(q)
    e, n, k = ops.exp(p.epsilon), len(q), len(top)
    return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]


def _bracket(m, n=2, **kw):
    return CompactBnB(**kw).bracket(m, n, parse_neighbourhood("box", m))


def test_registered_before_the_box_branch_and_bound():
    names = [u.name for u in PROOFS]
    assert names.index("compact-branch-and-bound") < names.index("selection-branch-and-bound")


def test_em_tight_level_is_proved_exactly_on_every_real_score_vector():
    m = _em("1")
    proof, witness = _bracket(m)
    assert proof.domain["scores"] == "R^n" and proof.details["status"] == "proved"
    assert Real.of(proof.upper) == Real.of(1)  # exactly ε, not one ulp above
    assert proves(proof, m)
    assert witness is not None and 1 - 1e-6 <= witness.lower_float <= 1


def test_em_half_upper_end_is_its_level_not_the_claim():
    proof, witness = _bracket(_em("1/2"))
    assert Real.of(proof.upper) == Real.of("1/2")
    assert witness.lower_float >= 0.5 - 1e-6


@pytest.mark.parametrize("c", ["3/2", "3"])
def test_violated_em_bracket_is_closed_at_c(c):
    m = _em(c)
    proof, witness = _bracket(m)
    assert Real.of(proof.upper) == Real.of(c)
    assert not proves(proof, m)
    assert float(Real.of(c).to_float()) - 1e-6 <= witness.lower_float <= float(Real.of(c).to_float())
    # the witness is a real pair of neighbours, re-checked on the mechanism's own law
    q, q2 = [Real.of(x).to_float() for x in witness.scores], [Real.of(x).to_float() for x in witness.neighbour_scores]
    p, p2 = m.pmf(q, backend="ball").values[witness.output], m.pmf(q2, backend="ball").values[witness.output]
    assert float((p.log() - p2.log()).lower()) >= witness.lower_float - 1e-12


def test_grr_tie_branches_proved_exactly():
    m = dpexact.define_mechanism("my-grr", _grr, epsilon=1, properties=SI)
    proof, _ = _bracket(m)
    assert Real.of(proof.upper) == Real.of(1) and proves(proof, m)


# -- mutations: weaken one term and the route must stop proving ----------------------------------
def test_mutation_perturbed_exact_constant_is_not_proved():
    m = _em("1001/1000")  # the exponent's constant moved by 1e-3: level 1.001
    proof, _ = _bracket(m)
    assert not proves(proof, m)
    assert Real.of(proof.upper) == Real.of("1001/1000")


@pytest.mark.slow  # a 20 s CPU budget: the law's branch makes every face a limit computation
def test_mutation_tail_changed_beyond_a_large_gap_is_not_proved():
    def pmf(q, p, ops):  # EM whose exponent doubles once a score trails the best by 40 or more
        top = ops.max(q)
        w = [ops.exp((ops.num(2) if ops.compare(top - x, ops.num(40)) >= 0 else ops.num(1))
                     * p.epsilon * (x - top) / (2 * p.sensitivity)) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]
    m = dpexact.define_mechanism("em-tail-40", pmf, epsilon=1, properties=SI)
    out = _bracket(m, seconds=20)
    assert out is not None
    proof, witness = out
    assert not proves(proof, m)  # no "private": a branch at gap 40 lies inside the compact chart
    if witness is not None:
        assert witness.lower_float > 1


def test_mutation_without_exact_faces_the_tight_level_is_not_reached(monkeypatch):
    monkeypatch.setattr(compact_faces, "_at", lambda root, R, c, s, scale: None)
    proof, _ = _bracket(_em("1"), seconds=3, max_boxes=300)
    assert proof.details["status"] != "proved" and proof.upper_float > 1


def test_a_law_outside_the_compact_forms_is_declined():
    def pmf(q, p, ops):  # a score inside a logarithm: no closed form in the compact variables
        w = [ops.exp(p.epsilon * ops.log(1 + x * x) / 2) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]
    m = dpexact.define_mechanism("log-scores", pmf, epsilon=1, properties=dict(symmetric=True))
    assert _bracket(m) is None
    assert CompactBnB().prove(m, 2, parse_neighbourhood("box", m)) is None


def test_upper_end_is_never_below_a_certified_point():
    # soundness against an independent evaluation: random neighbours of the 3ε EM never exceed the upper end
    import random

    m = _em("3")
    proof, _ = _bracket(m)
    rng = random.Random(1)
    for _ in range(30):
        q = [rng.randint(-60, 60) for _ in range(2)]
        z = [rng.choice((-1, 0, 1)) for _ in range(2)]
        q2 = [a + b for a, b in zip(q, z)]
        for r in range(2):
            p, p2 = m.pmf(q, backend="ball").values[r], m.pmf(q2, backend="ball").values[r]
            assert float((p.log() - p2.log()).lower()) <= proof.upper_float + 1e-12
    assert math.isfinite(proof.upper_float)


# -- exact rational functions, hand-written laws, bounded cost ----------------------------------


def test_constants_in_t_are_compared_exactly():
    """e^{1/2}·e^{1/2} = E is an identity of polynomials in T = e^{1/2} (decided 0, not a straddling
    ball); e^{1/2} > e^{1/3}; (1 + E)e^{1/2} / (e^{1/2} + e^{3/2}) = 1."""
    import sympy

    from dpexact.verification.proofs.compact_fractions import (
        Space,
        const_sign,
        from_sympy,
        sub,
    )

    sp = Space(("x",), 6)
    f = lambda e: from_sympy(sympy.sympify(e), sp, {})  # noqa: E731
    assert const_sign(sub(f("exp(1/2)*exp(1/2)"), f("E")), sp) == 0
    assert const_sign(sub(f("exp(1/2)"), f("exp(1/3)")), sp) == 1
    assert const_sign(sub(f("(1 + E)*exp(1/2)/(exp(1/2) + exp(3/2))"), f("1")), sp) == 0
    assert const_sign(sub(f("(1 + E)*exp(1/2)/(exp(1/2) + exp(3/2))"), f("1 + 1/10**30")), sp) == -1


@pytest.mark.parametrize("attr, n, level", [("em", 3, "1"), ("em", 4, "1"), ("em_half", 3, "1/2"), ("grr", 3, "1")])
def test_hand_written_laws_proved_at_their_exact_level(attr, n, level):
    m = _hand(attr)
    proof, witness = CompactBnB().bracket(m, n, parse_neighbourhood("box", m))
    assert proof.details["status"] == "proved" and proof.whole_domain
    assert Real.of(proof.upper) == Real.of(level) and proves(proof, m)
    if attr != "grr":  # GRR's worst pair is at a tie (the lower end is the search's)
        assert float(Real.of(level).to_float()) - 1e-6 <= witness.lower_float


def test_violated_em_at_n3_closed_at_2():
    m = _em("2")
    proof, witness = _bracket(m, n=3)
    assert Real.of(proof.upper) == Real.of(2) and not proves(proof, m)
    assert 2 - 1e-6 <= witness.lower_float <= 2


def test_mutation_without_the_exact_identity_the_tight_level_is_not_proved(monkeypatch):
    """Only balls for face constants (the polynomial identity in T removed): e^ε against e^ε is never
    decided, the run gives up instead of proving the tight level."""
    from dpexact.verification.proofs import compact_bnb, compact_fractions

    def balls_only(a, space):
        for prec in (128, 512, 4096):
            v = compact_fractions._poly_at_t(a.num, space, prec) * compact_fractions._poly_at_t(a.den, space, prec)
            if v > 0:
                return 1
            if v < 0:
                return -1
        return None
    monkeypatch.setattr(compact_bnb, "const_sign", balls_only)
    m = _em("1")
    proof, _ = _bracket(m, seconds=5)
    assert proof.details["status"] != "proved"
    assert CompactBnB(seconds=5).prove(m, 2, parse_neighbourhood("box", m)) is None


def test_mutation_without_gcd_reduction_the_faces_at_infinity_are_lost(monkeypatch):
    """Ratios not reduced (no gcd): the factor that vanishes at a gap at infinity stays in numerator
    and denominator, the face W = 0 is 0/0 and EM's tight level is no longer proved."""
    from dpexact.verification.proofs import compact_fractions
    from dpexact.verification.proofs.compact_fractions import Frac

    monkeypatch.setattr(compact_fractions, "_reduce", lambda n, d: Frac(compact_fractions._check(n), compact_fractions._check(d)))
    proof, _ = _bracket(_em("1"), seconds=5, max_boxes=2000)
    assert proof.details["status"] != "proved"


def test_a_law_it_cannot_close_gives_up_within_its_budget():
    """PF written by hand at n = 5: the unit does not close it in 3 CPU-s; it stops at its CPU budget
    (this process's time) and proves nothing, so the next unit is tried. (At n = 4 it was the law
    used here until one region problem per class of pairs proved it in ~3 CPU-s.)"""
    import time

    m = _hand("pf")
    unit = CompactBnB(seconds=3)
    t = time.process_time()
    assert unit.prove(m, 5, parse_neighbourhood("box", m)) is None
    assert time.process_time() - t < 3 + 5  # the budget, the law's symbolic runs and one step past it
