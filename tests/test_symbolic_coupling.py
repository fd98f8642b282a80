"""Couplings as theorems (verification/proofs/symbolic_coupling.py): every n, ε, Δ, c — and mutation tests."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
import sympy

import dpexact
from dpexact.mechanisms.sparse_vector.adaptive import AdaptiveSVT
from dpexact.mechanisms.sparse_vector.mechanism import SVT1, SVT2
from dpexact.mechanisms.sparse_vector.numerical import NumericalSVT
from dpexact.protocols import CouplingUnits
from dpexact.verification.proofs import first_proof
from dpexact.verification.proofs.symbolic_coupling import CUTOFF, threshold_theorem
from dpexact.verification.proofs.threshold_coupling import coupling_bound

PRIVATE = [("svt1", {}, "all-differ"), ("svt1", {"monotone": True}, "monotone"), ("svt2", {}, "all-differ"),
           ("numerical-svt", {}, "all-differ"), ("gap-svt", {}, "all-differ"), ("adaptive-svt", {}, "all-differ")]


@pytest.mark.parametrize("name,extra,relation", PRIVATE)
def test_private_for_every_n_epsilon_and_cutoff(name, extra, relation):
    m = dpexact.mechanism(name, epsilon="1/10", threshold=1, cutoff=2, **extra)
    th = threshold_theorem(m, relation)
    assert th is not None and th.holds and set(th.for_every) == {"epsilon", "Delta", "c"}
    assert sympy.simplify(th.ratio - 1) == 0  # the literature's bound is exactly ε (tight coupling)
    _, p = first_proof(m, None, relation)
    assert p.domain["n"] == "every" and p.domain["epsilon"] == "(0, inf)" and p.upper == "1/10"


def test_svt1_n40_private_with_theorem():
    v = dpexact.verify(dpexact.mechanism("svt1", epsilon="1/10", threshold=1, cutoff=1), n=40, relation="all-differ")
    assert v.verdict == "private"
    assert "Lyu" in v.bracket.upper.theorem and v.bracket.upper.domain["n"] == "every"


def test_svt4_bound_is_lyu_su_li():
    """Lyu, Su & Li 2017 §4: Algorithm 4 is ((1 + 6c)/4)·ε-DP — 7/40 at ε = 1/10, c = 1."""
    th = threshold_theorem(dpexact.mechanism("svt4", epsilon="1/10", threshold=1, cutoff=1), "all-differ")
    assert not th.holds and th.bound == sympy.Rational(7, 40)
    assert sympy.simplify(th.ratio - (1 + 6 * CUTOFF) / 4) == 0
    th3 = threshold_theorem(dpexact.mechanism("svt4", epsilon="1/2", threshold=1, cutoff=3), "all-differ")
    assert th3.bound == sympy.Rational(19, 4) * sympy.Rational(1, 2)
    v = dpexact.verify(dpexact.mechanism("svt4", epsilon="1/10", threshold=1, cutoff=1), n=10, relation="all-differ")
    assert v.verdict == "violated" and v.bracket.upper.upper == "7/40" and v.bracket.lower.lower_float > 0.1


@pytest.mark.parametrize("name", ["svt3", "bad-gap-svt", "svt6", "bad-adaptive-svt"])
def test_no_coupling_for_the_not_private(name):
    m = dpexact.mechanism(name, epsilon="1/10", threshold=1, **({"cutoff": 2} if name != "svt6" else {}))
    assert threshold_theorem(m, "all-differ") is None


# -- mutation tests: one cost term off by (1 + 1/1000) is proved at no n -----------------------------

_OFF = Fraction(1001, 1000)


def _scale_factor(u: CouplingUnits, kind: str, index: int) -> CouplingUnits:
    fs = list(u.kinds[kind])
    f = fs[index]
    fs[index] = (f[0], f[1] / _OFF)  # cost = Δ·r/b: dividing b multiplies the cost term by 1 + 1/1000
    return dataclasses.replace(u, kinds={**u.kinds, kind: fs})


@dataclasses.dataclass(frozen=True)
class SVT1TopOff(SVT1):
    def coupling_units(self):
        return _scale_factor(super().coupling_units(), "T", 0)


@dataclasses.dataclass(frozen=True)
class SVT1ThresholdOff(SVT1):
    def coupling_units(self):
        u = super().coupling_units()
        return dataclasses.replace(u, threshold_scale=u.threshold_scale / _OFF)


@dataclasses.dataclass(frozen=True)
class NumericalReleaseOff(NumericalSVT):
    def coupling_units(self):
        return _scale_factor(super().coupling_units(), "T", 1)


@dataclasses.dataclass(frozen=True)
class AdaptiveTopOff(AdaptiveSVT):
    def coupling_units(self):
        return _scale_factor(super().coupling_units(), "top", 0)


@dataclasses.dataclass(frozen=True)
class AdaptiveMiddleOff(AdaptiveSVT):
    def coupling_units(self):
        return _scale_factor(super().coupling_units(), "middle", 1)


@dataclasses.dataclass(frozen=True)
class SVT2RedrawOff(SVT2):
    def coupling_units(self):
        u = super().coupling_units()
        return dataclasses.replace(u, redraw_scale=u.redraw_scale / _OFF)


@dataclasses.dataclass(frozen=True)
class SVT1ScalesOff(SVT1):
    """The mutation in the law itself: the query noise 1/1000 narrower (the factors follow noise_scales())."""

    def noise_scales(self):
        b1, b2, b1r = super().noise_scales()
        return b1, b2 / _OFF, b1r


MUTANTS = [SVT1TopOff, SVT1ThresholdOff, NumericalReleaseOff, AdaptiveTopOff, AdaptiveMiddleOff, SVT2RedrawOff,
           SVT1ScalesOff]


@pytest.mark.parametrize("cls", MUTANTS)
def test_mutated_cost_term_is_proved_at_no_n(cls):
    m = cls(epsilon="1/10", threshold=1, cutoff=2 if cls is SVT2RedrawOff else 1)
    th = threshold_theorem(m, "all-differ")
    assert th is not None and not th.holds
    assert th.bound > sympy.Rational(1, 10)  # the bound for every n exceeds ε
    assert first_proof(m, None, "all-differ")[1].upper != "1/10"
    # the proof does not depend on n; the router falls back to the per-n search, which never says private
    assert dpexact.verify(m, n=2, relation="all-differ").verdict != "private"


@pytest.mark.parametrize("cls", [SVT1TopOff, NumericalReleaseOff, SVT1ScalesOff])
def test_mutated_cost_term_per_n_coupling_also_fails(cls):
    """The per-n check of the law's factors (threshold_coupling, a shift per output) agrees from n = 4 on (c = 1).

    Below that, a shift chosen per output proves the (true) small-n statement: with k ⊥ before the ⊤ the
    shift s = 0 costs k·ε/4 + (1 + 1/1000)·ε/4 <= ε for k <= 2.
    """
    m = cls(epsilon="1/10", threshold=1, cutoff=1)
    for n in range(4, 8):
        assert coupling_bound(m, n, "all-differ").bound > Fraction(1, 10)


@dataclasses.dataclass(frozen=True)
class AdaptiveBudgetOff(AdaptiveSVT):
    def coupling_units(self):
        return dataclasses.replace(super().coupling_units(), budget=self.budget + 3)


@dataclasses.dataclass(frozen=True)
class SVT1BottomAbove(SVT1):
    """⊥ stated as an ⊤-type factor: a kind in any number with a positive cost."""

    def coupling_units(self):
        u = super().coupling_units()
        return dataclasses.replace(u, kinds={**u.kinds, "F": [("above", u.kinds["F"][0][1])]})


@dataclasses.dataclass(frozen=True)
class SVT1UnitsUnderstated(SVT1):
    """Units claiming one ⊤ while the outputs (cutoff 2) have two: caught by the re-check against the outputs."""

    def coupling_units(self):
        return dataclasses.replace(super().coupling_units(), budget=1)


def test_other_mutations():
    assert not threshold_theorem(AdaptiveBudgetOff(epsilon="1/10", threshold=1, cutoff=2), "all-differ").holds
    assert threshold_theorem(SVT1BottomAbove(epsilon="1/10", threshold=1, cutoff=1), "all-differ") is None
    assert threshold_theorem(SVT1UnitsUnderstated(epsilon="1/10", threshold=1, cutoff=2), "all-differ") is None


def test_noisy_max_every_n():
    _, p = first_proof(dpexact.mechanism("rnm-laplace", epsilon="1/10"), 5, "all-differ")
    assert p.upper == "1/10" and p.domain["n"] == "every" and p.domain["epsilon"] == "(0, inf)"
    _, p = first_proof(dpexact.mechanism("rnm-exp", epsilon="1/10", monotone=True), 5, "all-differ")
    assert p.upper == "1/5"  # monotone scale Δ/ε on ALL_DIFFER: 2ε, its true level
