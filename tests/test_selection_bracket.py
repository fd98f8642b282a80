"""The ε bracket of selection mechanisms: theorems above (every n), a maximised certified witness below.

Expected values are computed independently: the closed-form levels of the theorems (c·2Δ' for
EM, ε for PF / RNM / GRR), and the witness's log-ratio recomputed in mpmath at 60 digits from
the softmax formula. Mutation tests: a mechanism with one term off is not proved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import pytest

import dpexact
from dpexact.mechanisms.exponential import ExponentialMechanism
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import LInfBox, MonotoneBox
from dpexact.verification.search.level import certify_triple, maximise_level
from dpexact.verification.proofs.selection_theorems import literature_level, theorem_proof

from example_laws import example


def _softmax_log_ratio(c, q, q2, r):
    """log(P(q)_r / P(q')_r) for Pr[r] ∝ e^{c q_r}, in mpmath at 60 digits (independent of dpexact)."""
    with mpmath.workdps(60):
        c = mpmath.mpf(c)
        a = [mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in q]
        b = [mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in q2]
        la = c * a[r] - mpmath.log(mpmath.fsum(mpmath.exp(c * x) for x in a))
        lb = c * b[r] - mpmath.log(mpmath.fsum(mpmath.exp(c * x) for x in b))
        return la - lb


def _same(a, b) -> bool:
    """Exact equality of two reals (exact strings or numbers)."""
    return (Real.of(a) - Real.of(b)).sign() == 0


def test_em_on_a_wider_box_is_violated_with_the_level_approached():
    """EM built for Δ = 1, neighbours differing by 1.0001: level c·2Δ' = 1.0001 (approached as a gap grows)."""
    v = dpexact.verify(dpexact.mechanism("em", epsilon=1), neighbourhood="box:10001/10000", n=3)
    assert v.verdict == "violated"
    b = v.bracket
    assert 1 < b.lower_float <= 1.0001
    assert _same(b.upper.upper, "10001/10000")  # closed form c·2Δ' with c = 1/2
    assert b.upper.domain["n"] == "every" and b.upper.theorem
    w = b.lower
    exact = _softmax_log_ratio(mpmath.mpf(1) / 2, w.scores, w.neighbour_scores, w.output)
    assert w.lower_float <= exact + 1e-15 and exact - w.lower_float < 1e-12
    assert b.upper_float - b.lower_float < 1e-6
    assert v.counterexample is not None and v.recheck.proved


def test_biased_coin_top1_level_two_to_six_digits():
    """The 2ε biased-coin top-1 of examples/ (define_mechanism): its level is exactly 2 (= c·2Δ, c = 1)."""
    coin = example("biased_coin_top1", "biased_coin")
    v = dpexact.verify(coin, n=3)
    assert v.verdict == "violated"
    lower = v.bracket.lower_float
    assert f"{lower:.6g}" == "2" and lower < 2
    w = v.bracket.lower
    exact = _softmax_log_ratio(1, w.scores, w.neighbour_scores, w.output)
    assert w.lower_float <= exact + 1e-15 and exact - w.lower_float < 1e-12
    # no theorem names a user's law; its law proved to be EM's at c = 1 gives EM's level 2 over R^n (the
    # theorem's), the compact branch-and-bound proves it exactly too (the face constant e^2 of a gap at
    # infinity), else the box branch-and-bound bounds its box only
    up = v.bracket.upper
    assert up is None or up.upper_float >= v.bracket.lower_float
    assert up is None or up.method in ("law identity + theorem", "compact-branch-and-bound", "branch-and-bound")
    if up is not None and up.method != "branch-and-bound":
        from dpexact.numbers.real import Real

        assert up.whole_domain and Real.of(up.upper) == Real.of(2)


@pytest.mark.parametrize("name,kw,nb,level", [
    ("em", {"epsilon": 1}, LInfBox(1), "1"),
    ("em", {"epsilon": 1}, LInfBox(2), "2"),
    ("em", {"epsilon": 1}, MonotoneBox(1), "1/2"),
    ("em", {"epsilon": 1, "monotone": True}, MonotoneBox(1), "1"),
    ("em", {"epsilon": 1, "monotone": True}, LInfBox(1), "2"),
    ("em", {"epsilon": 1}, LInfBox(1, ("1/2", 1, "1/4")), "3/4"),  # c·(Δ_(1) + Δ_(2)) = (1 + 1/2)/2
    ("pf", {"epsilon": "2*log(3)"}, LInfBox(1), "2*log(3)"),
    ("pf", {"epsilon": 1, "monotone": True}, MonotoneBox(1), "1"),
    ("pf", {"epsilon": 1}, MonotoneBox(1), "1/2"),
    ("rnm-global", {"epsilon": 1, "sensitivities": ["1/2", 1, 2]}, LInfBox(1, ("1/2", 1, 2)), "1"),
    ("rnm-gumbel", {"epsilon": 1}, LInfBox(1), "1"),
    ("rnm-laplace", {"epsilon": 1}, LInfBox(1), "1"),
    ("rnm-exp", {"epsilon": 1, "monotone": True}, LInfBox(1), "2"),
    ("grr", {"epsilon": "log(3)"}, LInfBox(5), "log(3)"),
])
def test_theorem_levels_are_the_closed_forms(name, kw, nb, level):
    p = theorem_proof(dpexact.mechanism(name, **kw), 3, nb)
    assert p is not None and p.method == "theorem" and p.theorem
    assert _same(p.upper, level)
    assert p.upper_float >= Real.of(level).to_float()


def test_theorems_do_not_apply_outside_their_side_conditions():
    # PF with Δ understated, or its monotone exponent on the box: the theorem gives 2ε (tight), not ε
    assert _same(theorem_proof(dpexact.mechanism("pf", epsilon=1, sensitivity="1/2"), 3, LInfBox(1)).upper, 2)
    assert _same(theorem_proof(dpexact.mechanism("pf", epsilon=1, monotone=True), 3, LInfBox(1)).upper, 2)
    # per-candidate noise scales (RNMH) are not the noisy-max theorem's
    assert theorem_proof(dpexact.mechanism("rnm-exp", epsilon=1, scales=["1/5", 2]), 2, LInfBox(1)) is None
    # GEM's transform has sensitivity <= 1 only on its own box
    assert theorem_proof(dpexact.mechanism("gem", epsilon=1, sensitivities=["1/2", 1]), 2, LInfBox(1, ("1", "1"))) is None


@dataclass(frozen=True)
class _HalfDeltaEM(ExponentialMechanism):
    """Mutation: EM with 2Δ replaced by Δ in the exponent, still declared as EM with its ε."""

    @property
    def exponent_scale(self) -> Real:
        return self.epsilon / self.sensitivity


def test_mutated_em_is_not_proved_and_is_refuted_at_its_level():
    m = _HalfDeltaEM(epsilon=1)
    assert theorem_proof(m, 3, LInfBox(1)) is None
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated"
    assert v.bracket.upper is None
    assert 2 - 1e-6 < v.bracket.lower_float < 2  # sup = (ε/Δ)·2Δ = 2, approached


def test_monotone_em_on_the_box_is_refuted_with_its_tight_bracket():
    """Mutation of the side condition: the monotone exponent on non-monotone neighbours, level 2ε."""
    v = dpexact.verify(dpexact.mechanism("em", epsilon=1, monotone=True), neighbourhood="box", n=3)
    assert v.verdict == "violated"
    assert _same(v.bracket.upper.upper, 2)
    assert v.bracket.upper_float - v.bracket.lower_float < 1e-6


@pytest.mark.parametrize("name,kw", [("em", {"epsilon": 1}), ("pf", {"epsilon": "2*log(3)"}),
                                     ("grr", {"epsilon": 1}), ("rnm-exp", {"epsilon": 1})])
def test_private_builtins_are_proved_with_a_tight_bracket(name, kw):
    m = dpexact.mechanism(name, **kw)
    v = dpexact.verify(m, n=3)
    assert v.verdict == "private"
    lit = literature_level(m, 3, m.neighbourhood())
    assert lit is not None and _same(v.bracket.upper.upper, lit) and _same(lit, m.epsilon)
    assert lit.to_float() - v.bracket.lower_float < 1e-6
    assert v.as_dict()["epsilon_bracket"]["upper"]["domain"]["n"] == "every"


def test_maximise_level_certifies_below_the_float_value():
    m = dpexact.mechanism("em", epsilon=1)
    nb = LInfBox(1)
    q = (Fraction(0), Fraction(0), Fraction(-2))
    ls = maximise_level(m, nb, [(q, (Fraction(1), Fraction(1), Fraction(-3)), 2)], seconds=5)
    assert ls.witness is not None and ls.witness.lower_float <= 1
    # a pair that is not a neighbour is never certified
    assert certify_triple(m, nb, q, (Fraction(3), Fraction(0), Fraction(-2)), 0) is None


def test_tolerance_is_checked():
    with pytest.raises(ValueError, match="tolerance"):
        dpexact.verify(dpexact.mechanism("em", epsilon=1), n=3, tolerance=0)
    with pytest.raises(ValueError, match="tolerance"):
        dpexact.verify(dpexact.mechanism("em", epsilon=1), n=3, tolerance=1e-3, delta="1/10")


def _half_em(claimed):
    """EM written as a user's pmf with the exponent ε/(4Δ): its level is ε/2 (approached)."""
    def pmf(q, p, ops):
        w = [ops.exp(p.epsilon * x / (4 * p.sensitivity)) for x in q]
        s = ops.sum(w)
        return [x / s for x in w]

    return dpexact.define_mechanism("half-em", pmf, epsilon=claimed,
                                    properties=dict(symmetric=True, shift_invariant=True, monotone=True))


def test_branch_and_bound_proves_a_user_law_on_its_score_box():
    from dpexact.verification.proofs.selection_bnb import SelectionBnB

    m = _half_em(1)
    res = SelectionBnB(seconds=60).run(m, 3, LInfBox(1), target=1.0)
    assert res.status == "bound below the target" and res.upper <= 1
    # the bound holds at the box's worst corner, computed independently (c = 1/4, gap 8, offsets ±1)
    corner = _softmax_log_ratio(mpmath.mpf(1) / 4, ("0", "8", "8"), ("-1", "9", "9"), 0)
    assert res.upper >= corner and res.lower <= corner + 1e-12
    assert "8" in res.domain["scores"] and res.domain["n"] == 3


def test_branch_and_bound_does_not_prove_below_the_level():
    """Mutation: the same law claiming ε = 0.45 < its level 1/2 (its level with ε = 0.45 is 0.225,
    so claim it through a parameter-free law with the exponent fixed at 1/4)."""
    def pmf(q, p, ops):
        w = [ops.exp(x / 4) for x in q]
        s = ops.sum(w)
        return [x / s for x in w]

    m = dpexact.define_mechanism("fixed-quarter", pmf, epsilon="9/20",
                                 properties=dict(symmetric=True, shift_invariant=True, monotone=True))
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated" and 0.45 < v.bracket.lower_float <= 0.5
    assert v.bracket.upper is None or v.bracket.upper_float >= v.bracket.lower_float


def test_pf_with_an_understated_delta_is_refuted_with_a_tight_bracket():
    """Mutation of PF (Δ = 1/2 on neighbours differing by 1): level 2ε = 4 log 3, lower and upper agree."""
    m = dpexact.mechanism("pf", epsilon="2*log(3)", sensitivity="1/2")
    v = dpexact.verify(m, neighbourhood="box:1", n=3)
    assert v.verdict == "violated"
    assert _same(v.bracket.upper.upper, "4*log(3)")
    assert v.bracket.upper_float - v.bracket.lower_float < 1e-9


def test_interval_gradient_encloses_the_closed_form_derivative():
    """d/dx of e^{xy}/(x + 2) and of log(1 + e^x) on a box contain the closed forms at points of it."""
    from flint import arb

    from dpexact.numbers.interval_gradient import variables

    box = arb(1).union(arb(2))  # x in [1, 2]
    x, y = variables([box, arb(3)], [(0,), (1,)], 2)
    f = (x * y).exp() / (x + 2)
    g = (x.exp() + 1).log()
    for t in (mpmath.mpf(1), mpmath.mpf("1.5"), mpmath.mpf(2)):
        df = mpmath.exp(3 * t) * (3 * (t + 2) - 1) / (t + 2) ** 2
        dg = mpmath.exp(t) / (1 + mpmath.exp(t))
        assert f.d[0].lower() <= df <= f.d[0].upper()
        assert g.d[0].lower() <= dg <= g.d[0].upper()
    # y is held at 3: its derivative of e^{xy}/(x+2) is x e^{xy}/(x+2)
    assert f.d[1].lower() <= mpmath.mpf(2) * mpmath.exp(6) / 4 <= f.d[1].upper()


def test_cli_tolerance_option():
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    r = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "1", "--n", "3", "--tolerance", "0.01", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    b = d["epsilon_bracket"]
    assert d["verdict"] == "private" and 0 <= b["upper_float"] - b["lower_float"] <= 0.01
    bad = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "1", "--tolerance", "0", "--n", "3"])
    assert bad.exit_code == 2 and "tolerance" in bad.output
    bad = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "1", "--tolerance", "1e-3", "--delta", "1/10"])
    assert bad.exit_code == 2 and "tolerance" in bad.output


def test_a_branching_law_is_split_not_smoothed():
    """GRR on the argmax written with the backend's certified comparisons: on a box straddling a
    tie the law is run along each branch and the bound is the worst over them — the jump's ratio
    e^ε is kept (upper >= ε, never a smoothed value below it) and bounded (upper finite, ε up to
    rounding); the jump's own ratio is found as a witness."""
    from dpexact.verification.proofs.selection_bnb import SelectionBnB

    def pmf(q, p, ops):
        top = 0
        for i in range(1, len(q)):
            if ops.backend.compare(q[i], q[top]) > 0:
                top = i
        e = ops.exp(p.epsilon)
        d = e + len(q) - 1
        return [e / d if i == top else 1 / d for i in range(len(q))]

    m = dpexact.define_mechanism("grr-user", pmf, epsilon=1, properties=dict(shift_invariant=True))
    res = SelectionBnB(seconds=3).run(m, 2, LInfBox(1), target=1.0)
    assert 1 <= res.upper <= 1 + 1e-12 and 1 - 1e-12 <= res.lower <= 1
    q, q2 = (Fraction(0), Fraction(-1, 2)), (Fraction(-1), Fraction(1, 2))
    w = certify_triple(m, LInfBox(1), q, q2, 0)
    assert w is not None and 1 - 1e-12 < w.lower_float <= 1  # e^ε/d over 1/d: exactly ε


def test_a_violation_beyond_the_grid_is_found_by_gap_scaling():
    """The audit's EM whose exponent doubles once the score spread reaches 18 Δ: the grids stop
    at a few Δ; the lower end's gap scaling reaches the spread and certifies the violation."""
    def pmf(q, p, ops):
        c = p.epsilon / (2 * p.sensitivity)
        hi = lo = q[0]
        for x in q[1:]:
            hi = x if ops.backend.compare(x, hi) > 0 else hi
            lo = x if ops.backend.compare(x, lo) < 0 else lo
        if ops.backend.compare(hi - lo, ops.num(18)) >= 0:
            c = 2 * c
        w = [ops.exp(c * (x - hi)) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]

    m = dpexact.define_mechanism("em-gap18", pmf, epsilon=1, properties=dict(symmetric=True, shift_invariant=True))
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated" and v.recheck is not None and v.recheck.proved
    w = v.bracket.lower
    spreads = [max(map(Fraction, s)) - min(map(Fraction, s)) for s in (w.scores, w.neighbour_scores)]
    assert max(spreads) >= 18 > min(spreads) and w.lower_float > 1


def test_certify_raises_precision_for_a_tiny_probability():
    """At gap 128 the 128-bit ball of RNMH-Laplace's quadrature straddles 0; more bits certify the
    log-ratio, which agrees with the float quadrature's value at a moderate gap (its limit, 2)."""
    from dpexact.numbers.backends import ball_context

    m = dpexact.mechanism("rnmh-laplace", epsilon=1)
    nb = LInfBox(Fraction(1))
    q, q2 = (Fraction(0), Fraction(128), Fraction(128)), (Fraction(-1), Fraction(129), Fraction(129))
    with ball_context(128):
        assert not m.pmf(list(q), backend="ball:128").values[0] > 0  # why a second precision is needed
    w = certify_triple(m, nb, q, q2, 0)
    assert w is not None and w.arithmetic != "ball:128"
    import numpy as np

    ref = float(m.logpmf(np.array([0.0, 32.0, 32.0]))[0] - m.logpmf(np.array([-1.0, 33.0, 33.0]))[0])
    assert abs(w.lower_float - ref) < 1e-9


def test_lower_end_is_at_least_the_searchs_certified_violation():
    v = dpexact.verify("rnmh-laplace", epsilon=1, n=3)
    assert v.verdict == "violated" and v.bracket is not None and v.bracket.lower is not None
    assert v.bracket.lower_float >= v.counterexample.as_dict()["log_ratio"][0] - 1e-12
