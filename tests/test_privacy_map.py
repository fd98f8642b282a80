"""Closed-form levels declared on the mechanism (protocols.PrivacyMap) and the verdict built from them
(verification/proofs/closed_forms.py); the composed kind's refutation through a component; the one noise-scale
rule (protocols.noise_unit); the one protocol check (protocols.check_mechanism)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import pytest

import dpexact
from dpexact.mechanisms.additive_noise import LaplaceMechanism
from dpexact.protocols import PrivacyLevel, PrivacyMap, check_mechanism, mechanism_properties, noise_unit
from dpexact.verification.kinds import KINDS
from dpexact.verification.proofs.closed_forms import ClosedForm, closed_form_verdict


@pytest.mark.parametrize("name,kw", [("laplace", {"epsilon": 1}), ("noisy-hist", {"epsilon": 1}),
                                     ("prefix-sum", {"epsilon": 1}), ("partial-sum", {"epsilon": 1}),
                                     ("truncated-geometric", {"epsilon": Fraction(1, 10)}), ("rappor", {}),
                                     ("one-time-rappor", {}), ("smart-sum", {"epsilon": 1})])
def test_closed_form_families_declare_a_privacy_map(name, kw):
    m = dpexact.mechanism(name, **kw)
    assert isinstance(m, PrivacyMap) and ClosedForm().supports(m, None, None)
    assert set(m.privacy_map_options) <= {"n", "relation", "neighbourhood"}


@pytest.mark.parametrize("name", ["pf", "em", "rnm-laplace", "svt1", "svt34-parallel", "noisy-max-value"])
def test_other_families_have_none(name):
    assert not isinstance(dpexact.mechanism(name, epsilon=1), PrivacyMap)


@pytest.mark.parametrize("name,kw,n,level", [
    ("laplace", {"epsilon": 1}, 3, Fraction(3)),  # all-differ: n·Δ/b, b = Δ/ε
    ("noisy-hist", {"epsilon": 1}, 3, Fraction(1)),  # one bin moves: Δ/b
    ("noisy-hist-bad", {"epsilon": Fraction(1, 10)}, 3, Fraction(10)),  # scale ε: Δ/ε = 10
    ("smart-sum", {"epsilon": Fraction(1, 10)}, 10, Fraction(1, 5)),  # 2Δ/b = 2ε (module docstring)
])
def test_the_map_states_the_level_and_the_law_attains_it(name, kw, n, level):
    """The formula's level against the paper's value, and the witness computed from the law encloses it."""
    pl = dpexact.mechanism(name, **kw).privacy_map(n)
    assert Fraction(str(pl.level)) == level
    assert pl.arithmetic == "ball:256" and pl.log_ratio.lower() <= float(level) <= pl.log_ratio.upper()
    assert float(pl.log_ratio.rad()) < 1e-60


def test_truncated_geometric_map_is_balcer_vadhan():
    """The exhaustive exact maximum equals Balcer & Vadhan Thm. 4.7's ln(1 + 2^-k) (k = 3 at ε = 1/10)."""
    m = dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10))
    pl = m.privacy_map()
    assert m.k == 3 and str(pl.level) == "log(9/8)" and (pl.level - m.stated_level()).sign() == 0
    assert pl.triples == 2 * m.n * (m.n + 1) == pl.exact_triples
    with pytest.raises(ValueError, match="takes no n"):
        m.privacy_map(3)


def test_rappor_map_is_the_papers_epsilon():
    m = dpexact.mechanism("rappor")
    pl = m.privacy_map()
    assert abs(float(pl.level.to_float()) - float(m.paper_epsilon().to_float())) < 1e-12
    assert pl.log_ratio.lower() <= float(pl.level.to_float()) <= pl.log_ratio.upper()


@dataclass(frozen=True)
class _UnderstatedLaplace(LaplaceMechanism):
    """Mutation: the formula halves the level; the law is unchanged."""

    short_name: ClassVar[str] = "understated-laplace"

    def privacy_map(self, n=None, relation=None, neighbourhood=None) -> PrivacyLevel:
        pl = super().privacy_map(n, relation, neighbourhood)
        return PrivacyLevel(**{**pl.__dict__, "level": pl.level / 2})


def test_a_wrong_formula_is_caught_by_the_law():
    """Claim ε = 2 with noise Lap(2Δ/ε) = Lap(1) on n = 3 queries: the true level is 3 > 2. The mutated map
    states 3/2 <= 2 — trusted alone it would say private; the witness's log-ratio computed from the law
    (≈ 3) refutes the claim."""
    kw = dict(epsilon=2, noise_factor=2)
    assert closed_form_verdict(LaplaceMechanism(**kw), 3).verdict == "violated"
    m = _UnderstatedLaplace(**kw)
    assert Fraction(str(m.privacy_map(3).level)) == Fraction(3, 2)
    v = closed_form_verdict(m, 3)
    assert v.verdict == "violated" and abs(v.recheck.log_ratio_lo - 3) < 1e-12
    ok = closed_form_verdict(LaplaceMechanism(epsilon=1), 1)  # n = 1: level 1 = ε
    assert ok.verdict == "private-within-scope" and ok.counterexample is None


def test_options_the_map_does_not_take_are_not_passed():
    """The router passes the mechanism's own relation; a map without options is called with none."""
    v = ClosedForm().verdict(dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10)), 5, "all-differ")
    assert v.verdict == "violated" and v.recheck.arithmetic == "exact"
    assert ClosedForm().route(dpexact.mechanism("rappor"))[0] == frozenset()


def test_composed_kind_refutes_through_a_component():
    m = dpexact.mechanism("svt34-parallel", epsilon=1)
    v = KINDS["composed"].search(m, 3, None, None)
    assert v.verdict == "violated" and v.certified and v.params == m.params()
    assert any("component" in note and "unconstrained" in note for note in v.scope.notes)


def test_one_noise_scale_rule():
    assert noise_unit(dpexact.mechanism("pf", epsilon=1)).to_fraction() == 2  # 2Δ/ε
    assert noise_unit(dpexact.mechanism("pf", epsilon=1, monotone=True)).to_fraction() == 1  # Δ/ε (pf Remark 1)
    assert noise_unit(dpexact.mechanism("laplace", epsilon=Fraction(1, 2))).to_fraction() == 2  # its own Lap(Δ/ε)
    assert noise_unit(dpexact.mechanism("rnm-laplace", epsilon=1, sensitivity=3)).to_fraction() == 6  # its noise_scale()
    assert noise_unit(dpexact.mechanism("smart-sum", epsilon=Fraction(1, 10))).to_fraction() == 10  # noise_scale(), not 2Δ/(2ε)


@dataclass(frozen=True)
class _BadSize(LaplaceMechanism):
    short_name: ClassVar[str] = "bad-size"

    @property
    def size(self):
        return 0


def test_the_one_check_validates_the_declarations():
    with pytest.raises(TypeError, match="size must be a positive int or None"):
        check_mechanism(_BadSize(epsilon=1), continuous=True)
    m = check_mechanism(dpexact.mechanism("pf", epsilon=1))
    assert mechanism_properties(m) is m.properties
