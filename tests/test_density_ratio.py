"""Density-ratio proofs for real-valued outputs (verification/proofs/density_ratio.py) and their mutation tests."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

import dpexact
from dpexact.mechanisms.additive_noise import LaplaceMechanism, PartialSum
from dpexact.protocols import LaplacePieces
from dpexact.verification.proofs.density_ratio import DensityRatioProof, pl_sup

from example_laws import example


def test_laplace_private_proved():
    v = dpexact.verify(dpexact.mechanism("laplace", epsilon=1), n=1)
    assert v.verdict == "private" and v.bracket.upper.method == "density-ratio" and v.bracket.upper.upper == "1"
    assert v.bracket.upper.domain["epsilon"] == "(0, inf)"


@pytest.mark.parametrize("name,params,n,level", [
    ("smart-sum", {"epsilon": "1/10", "block": 2}, 10, "1/5"),  # claim 2ε: ‖D e_j‖₁ = 2 (Chan, Shi & Song)
    ("partial-sum", {"epsilon": "1/10"}, 5, "1/10"),
    ("noisy-hist", {"epsilon": "1/10"}, 5, "1/10"),
    ("noisy-hist", {"epsilon": "1/10", "coordinates": "0"}, 5, "1/10"),
    ("laplace", {"epsilon": "1/10", "copies": 20}, 1, "1/10"),
])
def test_private_rows_proved(name, params, n, level):
    v = dpexact.verify(dpexact.mechanism(name, **params), n=n)
    assert v.verdict == "private" and v.bracket.upper.upper == level


@pytest.mark.parametrize("name,params,n,level", [
    ("partial-sum", {"epsilon": "1/10", "noise_factor": "1/2"}, 5, Fraction(1, 5)),  # Lap(1/(2ε)): 2ε
    ("noisy-hist-bad", {"epsilon": "1/10"}, 5, Fraction(10)),  # scale ε: Δ/ε = 10
    ("prefix-sum", {"epsilon": "1/10", "relation": "all-differ"}, 10, Fraction(1)),  # n·ε
])
def test_violated_with_closed_bracket(name, params, n, level):
    m = dpexact.mechanism(name, **params)
    assert Fraction(str(m.privacy_map(n).level)) == level  # the family's own closed form (its privacy map)
    v = dpexact.verify(m, n=n)
    assert v.verdict == "violated"
    b = v.bracket
    assert Fraction(b.upper.upper) == level and level - Fraction(1, 10**12) <= b.lower_float <= level


def test_own_laplace_private_and_underscaled_at_its_level():
    MyLaplace = example("own_continuous", "MyLaplace")
    v = dpexact.verify(MyLaplace(epsilon="1/2"), n=3)
    assert v.verdict == "private"
    v = dpexact.verify(MyLaplace(epsilon="1/2", factor="1/2"), n=3)  # README's example: level ε/f = 1
    assert v.verdict == "violated" and v.bracket.upper.upper == "1"
    assert 1 - 1e-12 <= v.bracket.lower_float <= 1.0
    assert DensityRatioProof().prove(example("own_continuous", "MyGaussian")(epsilon="1/2"), 2, None) is None


def test_pl_sup_tails():
    assert pl_sup([Fraction(0)], lambda x: x, Fraction(0), Fraction(1))[0] == math.inf
    assert pl_sup([Fraction(0), Fraction(2)], lambda x: -abs(x - 1), Fraction(1), Fraction(-1))[0] == -1


# -- mutations -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class PiecesOff(PartialSum):
    """Declares a scale 1/1000 wider than its law: the pieces no longer match the law, no proof."""

    def density_pieces(self, n):
        p = super().density_pieces(n)
        return LaplacePieces(p.centres, tuple(b * Fraction(1001, 1000) for b in p.scales))


@dataclasses.dataclass(frozen=True)
class NarrowLaplace(LaplaceMechanism):
    """Noise 1/1000 narrower (law and pieces together): level (1 + 1/1000)·ε, not private."""

    def noise_scale(self):
        return super().noise_scale() / Fraction(1001, 1000)


def test_mutations_are_not_proved():
    assert DensityRatioProof().prove(PiecesOff(epsilon="1/10"), 5, None) is None
    assert dpexact.verify(PiecesOff(epsilon="1/10"), n=5).verdict != "private"
    v = dpexact.verify(NarrowLaplace(epsilon=1), n=1)
    assert v.verdict == "violated" and Fraction(v.bracket.upper.upper) == Fraction(1001, 1000)


def test_noisy_max_value_bracket_closes_at_n_epsilon_over_two():
    """Ding et al.'s bug: the released maximum is nε/2-DP (left tail: G ∝ e^{Σ(x - q_i)/b}); bracket closed."""
    from dpexact.numbers.exp_sum import ExpSum

    m = dpexact.mechanism("noisy-max-value", epsilon="1/10", noise="laplace")
    v = dpexact.verify(m, n=5)
    assert v.verdict == "violated" and v.bracket.upper.upper == "1/4"
    assert 0.25 - 1e-12 <= v.bracket.lower_float <= 0.25
    # independent: exact interval probabilities left of every query, all queries moved by Δ = 1
    q, q2 = [0] * 5, [1] * 5
    lower_q = m.interval_probability(q, -30, -20, "exact")
    upper_q = m.interval_probability(q2, -30, -20, "exact")
    assert (ExpSum.const(1) * lower_q - ExpSum.exp(Fraction(1, 4)) * upper_q).sign() == 0  # ratio exactly e^{nΔ/b}
    assert dpexact.verify(dpexact.mechanism("noisy-max-value", epsilon="1/10", noise="exponential"), n=5).bracket.upper is None


def test_every_n_by_the_declared_column_bound_and_its_mutation():
    from dpexact.mechanisms.smart_sum import SmartSum

    v = dpexact.verify(dpexact.mechanism("smart-sum", epsilon="1/10", block=2), n=10)
    assert v.verdict == "private" and v.bracket.upper.domain["n"] == "every" and v.bracket.upper.upper == "1/5"

    @dataclasses.dataclass(frozen=True)
    class Understated(SmartSum):
        """Declares one column entry per query: false from n = 2 on (a query also enters its block end)."""

        def density_pieces(self, n):
            p = super().density_pieces(n)
            return LaplacePieces(p.centres, p.scales, column_bound=p.column_bound * Fraction(1000, 1001))

    v = dpexact.verify(Understated(epsilon="1/10", block=2), n=10)
    assert v.bracket.upper.domain["n"] == 10  # only the per-n level: the every-n statement was refused
    assert v.verdict == "private" and v.bracket.upper.upper == "1/5"
