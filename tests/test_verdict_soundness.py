"""'private' only for a proof over the whole input domain; sound branch paths; premises screened.

The audit's unsound cases are regression tests here: an exponential mechanism whose exponent is 1.5×
too large only for scores below −1000 (declared symmetric), its shift-invariant variant (branch on
``top − x >= 1000``), and an EM at ε/4 that becomes uniform once the spread reaches 1000 — each got
``private`` (or an upper end below its level) from a branch-and-bound over [−8, 8]^n. Their levels are
derived by hand in the test (closed forms at the witness, evaluated in mpmath independently of
dpexact). Mutation tests: the whole-domain rule is switched off / a premise is made false, and the
verdict or the screen changes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

import dpexact
from dpexact.verification.bracket import EpsilonBracket, Proof, Witness

from example_laws import example


def _softmax(u, ops):
    top = ops.max(u)
    w = [ops.exp(x - top) for x in u]
    s = ops.sum(w)
    return [v / s for v in w]


def em_low_pmf(q, p, ops):
    """EM at c = ε/4Δ, the exponent 1.5× too large for scores below −1000."""
    c = p.epsilon / (4 * p.sensitivity)
    return _softmax([(c * 3 / 2 if ops.compare(x, ops.num("-1000")) < 0 else c) * x for x in q], ops)


def em_low_shift_pmf(q, p, ops):
    """The shift-invariant variant: 1.5× once top − x >= 1000."""
    c = p.epsilon / (4 * p.sensitivity)
    top = ops.max(q)
    return _softmax([(c * 3 / 2 if ops.compare(top - x, ops.num("1000")) >= 0 else c) * (x - top) for x in q], ops)


def em_uniform_pmf(q, p, ops):
    """EM at ε/4 (c = ε/8Δ) that becomes uniform once the spread reaches 1000."""
    if ops.compare(ops.max(q) + ops.max([-x for x in q]), ops.num("1000")) >= 0:
        return [ops.from_int(1) / len(q) for _ in q]
    c = p.epsilon / (8 * p.sensitivity)
    return _softmax([c * x for x in q], ops)


EM_LOW = dpexact.define_mechanism("em-low", em_low_pmf, epsilon=1, properties=dict(symmetric=True))
EM_LOW_SHIFT = dpexact.define_mechanism("em-low-shift", em_low_shift_pmf, epsilon=1,
                                        properties=dict(symmetric=True, shift_invariant=True))
EM_UNIFORM = dpexact.define_mechanism("em-uniform", em_uniform_pmf, epsilon=1,
                                      properties=dict(symmetric=True, shift_invariant=True))


def _lse(u):
    m = max(u)
    return m + mpmath.log(mpmath.fsum(mpmath.exp(x - m) for x in u))


def test_hand_derived_levels_of_the_audit_cases():
    """The levels the regression tests rely on, in mpmath from the laws' definitions:
    em-low at q = (0, −1000, −1000), q' = (0, −1001, −1001), output 1: (1/4)(−1000) − (3/8)(−1001) plus
    the normalisers = 125.375 (the audit's figure); em-uniform's level is
    sup_{s' < 1000} c s' + log((2 + e^{−c s'})/3) = 125 + log(2/3) + O(e^{−125}) (c = 1/8)."""
    with mpmath.workdps(50):
        c, c2 = mpmath.mpf(1) / 4, mpmath.mpf(3) / 8
        u = [0, c * -1000, c * -1000]
        u2 = [0, c2 * -1001, c2 * -1001]
        lr = (u[1] - _lse(u)) - (u2[1] - _lse(u2))
        assert abs(lr - mpmath.mpf("125.375")) < 1e-30
        # the law agrees at those points (ball, 256 bits)
        pa = EM_LOW.pmf(["0", "-1000", "-1000"], backend="ball:256").values[1]
        pb = EM_LOW.pmf(["0", "-1001", "-1001"], backend="ball:256").values[1]
        assert abs(float((pa.log() - pb.log()).mid()) - 125.375) < 1e-12
        c = mpmath.mpf(1) / 8
        level = c * 1000 + mpmath.log((2 + mpmath.exp(-c * 1000)) / 3)
        assert abs(level - (125 + mpmath.log(mpmath.mpf(2) / 3))) < 1e-50


@pytest.mark.parametrize("m,least", [(EM_LOW, 125), (EM_LOW_SHIFT, 125), (EM_UNIFORM, 124)],
                         ids=["em-low", "em-low-shift", "em-uniform"])
def test_audit_cases_are_violated_with_their_level(m, least):
    """Each was ``private`` (or had an upper end below its level) from the box [-8, 8]^3: now
    ``violated``, with a certified witness at the large scores where the law breaks."""
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated" and v.recheck is not None and v.recheck.proved
    assert v.bracket.lower_float >= least
    assert v.bracket.upper is None or v.bracket.upper_float >= v.bracket.lower_float
    assert max(abs(Fraction(x)) for x in v.bracket.lower.scores) >= 999  # found beyond any box


def test_a_box_proof_is_private_within_scope_and_a_whole_domain_proof_private():
    """The decision rule itself; mutation: the same bound on R^n decides private."""
    box = Proof(0.9, "branch-and-bound", {"n": 3, "scores": "[-8, 8]^3", "bounded": True})
    whole = Proof(0.9, "theorem", {"n": "every", "scores": "R^n"})
    assert not box.whole_domain and whole.whole_domain
    assert Proof(0.9, "exhaustive", {"scores": "{0..5}"}).whole_domain
    assert not Proof(0.9, "branch-and-bound", {"scores": "box"}).whole_domain
    kind, why = EpsilonBracket(upper=box).decide_exact(1)
    assert kind == "private-within-scope" and "[-8, 8]^3" in why and "only" in why
    assert EpsilonBracket(upper=whole).decide_exact(1)[0] == "private"
    assert EpsilonBracket(upper=box).decide(1.0)[0] == "private-within-scope"
    assert "a bounded part" in EpsilonBracket(upper=box).domain
    assert EpsilonBracket(upper=whole).headline("1").startswith("privacy level ε* ∈ [0, 0.9] on scores R^n")


def test_a_whole_domain_upper_end_below_a_certified_witness_raises():
    w = Witness(1.5, ("0",), ("1",), 0, "ball:128")
    with pytest.raises(AssertionError, match="above the proved upper end"):
        EpsilonBracket(w, Proof(1.0, "theorem", {"scores": "R^n"}))
    # a box proof below a witness outside the box is not a contradiction (the router drops it)
    EpsilonBracket(w, Proof(1.0, "branch-and-bound", {"scores": "[-8, 8]^1", "bounded": True}))


def test_proves_refuses_a_box_proof():
    from dpexact.verification.proofs.outcome import proves

    m = dpexact.mechanism("em", epsilon=1)
    assert not proves(Proof(0.5, "branch-and-bound", {"scores": "[-8, 8]^3", "bounded": True}, upper="1/2"), m)
    assert proves(Proof(0.5, "theorem", {"scores": "R^n"}, upper="1/2"), m)


def test_the_box_verdict_names_its_box_in_the_headline(monkeypatch):
    """A private-within-scope verdict from the branch-and-bound: exit 3 and the box in the headline.
    (top1_ties is proved over R^n by the compact branch-and-bound, next test; without that unit the
    box branch-and-bound is the upper end.)"""
    from typer.testing import CliRunner

    from dpexact.cli.main import app
    from dpexact.verification import proofs

    monkeypatch.setattr(proofs, "PROOFS", [u for u in proofs.PROOFS if u.name != "compact-branch-and-bound"])
    r = CliRunner().invoke(app, ["verify", "-m", "examples/branching_laws.py:top1_ties", "-e", "1", "--n", "3"])
    assert r.exit_code == 3, r.output
    text = " ".join(ln.strip() for ln in r.stdout.splitlines())
    head = text[text.index("privacy level ε* ∈ ["):text.index("(claimed ε")]
    assert "<= 8" in head and "a bounded part of the claim's domain" in head
    assert text.index("privacy level") < text.index("verdict:")
    assert "verdict: private-within-scope" in r.stdout


def test_a_whole_domain_proof_of_an_own_law_is_private_on_r_n():
    """top1_ties (a define_mechanism law with ties) at n = 3: the compact branch-and-bound proves its
    level over every real score vector, so the verdict is private, exit 0, the headline on R^n."""
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    r = CliRunner().invoke(app, ["verify", "-m", "examples/branching_laws.py:top1_ties", "-e", "1", "--n", "3"])
    assert r.exit_code == 0, r.output
    text = " ".join(ln.strip() for ln in r.stdout.splitlines())
    assert "verdict: private" in text and "compact-branch-and-bound" in text and "R^n" in text


# -- branch paths ---------------------------------------------------------------------------------------------
def test_path_order_refuses_inconsistent_outcomes():
    from dpexact.verification.proofs.selection_paths import PathOrder

    o = PathOrder()
    objs = [object(), object(), object()]
    inputs = {id(x): ("q", a) for a, x in enumerate(objs)}
    i, j, k = (o.node(x, inputs) for x in objs)
    assert o.possible(i, i) == {0}  # x = x
    o.record(i, j, {1})  # a > b
    assert o.possible(j, i) == {-1}  # b > a is no longer possible
    o.record(j, k, {0, 1})  # b >= c
    assert o.possible(k, i) == {-1}  # transitivity: c > a and c = a are impossible
    assert o.possible(k, j) == {-1, 0}
    # constants: x > 5 then x < 3 is no path
    o2 = PathOrder()
    x = o2.node(object(), inputs)
    five = o2.node(5, inputs)
    three = o2.node(3, inputs)
    o2.record(x, five, {1})
    assert o2.possible(x, three) == {1}


def idx_pmf(q, p, ops):
    """GRR on the first maximiser, found by comparisons whose outcomes must be consistent: on an
    inconsistent path no candidate is >= all others and ``ties[0]`` raises IndexError."""
    n = len(q)
    ties = [a for a in range(n) if all(ops.compare(q[a], q[b]) >= 0 for b in range(n) if b != a)]
    best = ties[0]
    e = ops.exp(p.epsilon)
    return [e / (e + n - 1) if r == best else 1 / (e + n - 1) for r in range(n)]


def test_a_law_is_never_run_along_an_inconsistent_path():
    """Before: IndexError raised raw (exit 1, 'internal error'); now the law runs on consistent paths
    only and the branch-and-bound bounds it (level ε: the first maximiser overtaken)."""
    from dpexact.verification.neighbourhoods import LInfBox
    from dpexact.verification.proofs.selection_bnb import SelectionBnB

    m = dpexact.define_mechanism("idx", idx_pmf, epsilon=1)
    res = SelectionBnB(seconds=4, max_boxes=400).run(m, 3, LInfBox(1), target=1.0)
    assert "raised" not in res.status and res.upper >= res.lower
    assert res.lower <= 1 + 1e-12


def test_a_law_that_raises_on_a_consistent_path_is_reported_as_its_failure():
    from dpexact.verification.neighbourhoods import LInfBox
    from dpexact.verification.proofs.selection_bnb import SelectionBnB

    def pmf(q, p, ops):
        if ops.compare(q[0], q[1] + 5) > 0:
            return [][3]
        return _softmax([p.epsilon / 2 * x for x in q], ops)

    m = dpexact.define_mechanism("raiser", pmf, epsilon=1)
    res = SelectionBnB(seconds=4, max_boxes=400).run(m, 3, LInfBox(1), target=1.0)
    assert res.upper == math.inf and "the law raised IndexError" in res.status


def test_x_equals_x_on_a_wide_ball_and_max_of_a_tie():
    from flint import arb

    from dpexact.numbers.comparisons import EQUAL, ball_decide

    x = arb(0, 10)
    assert ball_decide(x, x, EQUAL) == 0

    def tie_pmf(q, p, ops):
        top = ops.max([ops.max(q) * 2 - ops.max(q), ops.max(q) + 0])  # two computed values that tie
        return _softmax([p.epsilon / 2 * (x - top) for x in q], ops)

    m = dpexact.define_mechanism("tie", tie_pmf, epsilon=1)
    ball = m.pmf(["0", "1/3", "2/3"], backend="ball:128").values
    with mpmath.workdps(40):
        w = [mpmath.exp(mpmath.mpf(x) / 2) for x in (0, mpmath.mpf(1) / 3, mpmath.mpf(2) / 3)]
        ref = [x / mpmath.fsum(w) for x in w]
    for b, r in zip(ball, ref):
        assert abs(float(b.mid()) - float(r)) < 1e-15 and float(b.rad()) < 1e-12


# -- premises ---------------------------------------------------------------------------------------------------
def test_the_false_shift_invariance_of_em_gap18_is_refused_and_not_used():
    """em_gap18 computes max + min (not the spread) and declares shift invariance: the premise screen
    and conform refute it with a certified pair q, q + c·1; the branch-and-bound does not use it.
    Mutation: the corrected sibling em_spread18 keeps its premise."""
    from dpexact.conformance.checks import conform
    from dpexact.verification.decide.premises import screen_premises
    from dpexact.verification.neighbourhoods import LInfBox
    from dpexact.verification.proofs.selection_bnb import SelectionBnB

    bad, good = example("branching_laws", "em_gap18"), example("branching_laws", "em_spread18")
    s = screen_premises(bad, 3)
    assert "shift_invariant" in s.refuted and "symmetric" in s.kept
    x = s.refuted["shift_invariant"]
    assert len({b - a for a, b in zip(x.a, x.b)}) == 1 and x.a != x.b  # a shift q + c·1
    assert screen_premises(good, 3).kept == {"symmetric", "shift_invariant"}
    rep = conform(bad, draws=200)
    assert rep.check("shift-invariant").passed is False and "refuted" in rep.check("shift-invariant").message
    assert conform(good, draws=200).check("shift-invariant").passed
    _, dom = SelectionBnB()._roots(bad, 3, LInfBox(1))
    assert "shift invariance" not in dom.get("premises", "") and "premises_refuted" in dom
    assert dom["scores"].startswith("[-8, 8]^3")
    _, dom2 = SelectionBnB()._roots(good, 3, LInfBox(1))
    assert "shift invariance" in dom2["premises"]


# -- one headline ---------------------------------------------------------------------------------------------
def test_laplace_headlines_agree_with_their_evidence():
    """``--n 1``: the density-ratio proof's witness is the lower end (not "no certified witness" beside
    a level of 1); ``box:2``: the map's formula alone is no proof, so the density-ratio theorem is run on the
    box asked for: the bracket is the exact level [2, 2] it states (issue 31) — never "exact level 2"
    beside "upper: no proof"."""
    v = dpexact.verify(dpexact.mechanism("laplace", epsilon=1), n=1)
    assert v.verdict == "private" and v.bracket.lower is not None
    assert abs(v.bracket.lower_float - 1) < 1e-12 and v.bracket.upper.whole_domain
    d = v.as_dict()
    assert d["headline"].startswith("privacy level ε* ∈ [1, 1] on scores R^n") and d["epsilon_bracket"]["whole_domain"]
    w = dpexact.verify(dpexact.mechanism("laplace", epsilon=1), neighbourhood="box:2")
    assert w.verdict == "violated" and abs(w.bracket.lower_float - 2) < 1e-12
    assert w.bracket.upper is not None and w.bracket.upper.upper == "2" and w.bracket.upper.method == "density-ratio"
    assert "states the level 2" in w.reason and "density-ratio theorem proves it" in w.reason
    assert w.as_dict()["headline"].startswith("privacy level ε* ∈ [2, 2] on scores R^n")


def test_a_law_that_raises_in_the_search_is_an_inconclusive_verdict_naming_it():
    """Before: ``error: … pmf raised IndexError`` with exit 2 (a usage error); the law's own failure is
    now an inconclusive verdict (exit 3) that names it."""
    def pmf(q, p, ops):
        if ops.compare(q[0], q[1] + ops.num("3/2")) > 0:
            return [][3]
        return _softmax([p.epsilon / 2 * x for x in q], ops)

    m = dpexact.define_mechanism("raiser", pmf, epsilon=1)
    v = dpexact.verify(m, n=3)
    assert v.verdict == "inconclusive" and "IndexError" in v.reason and "defect of the law" in v.reason
