"""The lattice proof (verification/proofs/lattice_noisy_max.py): report-noisy-max with two-sided
geometric noise, stated by ``examples/geometric_noisy_max.py``, proved for every integer score vector.

Independent values: the example's own exact law (polynomials in α, evaluated in mpmath at 40 digits)
on a grid of integer vectors gives the largest log-ratio a proved level must cover, and approaches
it (the level is a supremum at infinity); the stated-law screen is mutation-tested with a law one
term away from its statement (the noise exponent ε/Δ instead of ε/2Δ)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

import dpexact
from dpexact.mechanisms.neighbourhoods import LInfBox, MonotoneBox
from dpexact.protocols import IntegerNoise
from dpexact.verification.decide.noisy_argmax_law import reference_pmf, screen_stated_law
from dpexact.verification.proofs import PROOFS
from dpexact.verification.proofs.lattice_noisy_max import LatticeNoisyMax

from example_laws import EXAMPLES, example_module

EXAMPLE = EXAMPLES / "geometric_noisy_max.py"
GNM = example_module("geometric_noisy_max")


class HalfNoise(GNM.GeometricNoisyMax):
    """One term changed: α = e^(−ε/Δ) (level 2ε), while the statement still says rate ε/(2Δ)."""

    def _alpha(self, backend):
        return backend.exp(backend.from_real(-self.epsilon / self.sensitivity))


class HalfNoiseStated(HalfNoise):
    """The same law, stated truthfully: rate ε/Δ."""

    def integer_noise(self) -> IntegerNoise:
        return IntegerNoise(rate=self.epsilon / self.sensitivity)


class UnknownFamily(GNM.GeometricNoisyMax):
    def integer_noise(self) -> IntegerNoise:
        return IntegerNoise(rate=self.epsilon / 2, family="discrete-gaussian")


def _law(q, rate):
    """Pr[M(q) = ·] from the example's exact polynomials, α = e^(−rate), mpmath 40 digits."""
    nums, den = GNM.exact_law(list(q))
    with mpmath.workdps(40):
        a = mpmath.exp(-mpmath.mpf(rate))
        ev = lambda p: sum(mpmath.mpf(c.numerator) / c.denominator * a**k for k, c in p.items())
        d = ev(den)
        return [ev(x) / d for x in nums]


def _brute_level(offsets, rate, vectors):
    """max over the vectors q, integer offsets z and outputs r of log P(q)_r − log P(q + z)_r."""
    cache = {}

    def P(q):
        if q not in cache:
            cache[q] = _law(q, rate)
        return cache[q]

    best = -1
    for q in vectors:
        for z in offsets:
            q2 = tuple(a + b for a, b in zip(q, z))
            for r in range(len(q)):
                best = max(best, float(mpmath.log(P(q)[r] / P(q2)[r])))
    return best


GRID = [(0, a, b) for a in range(-3, 4) for b in range(-3, 4)] + [(0, g, g) for g in (6, 10, 14)]
BOX1 = list(itertools.product((-1, 0, 1), repeat=3))
MONO1 = [z for z in BOX1 if all(x >= 0 for x in z) or all(x <= 0 for x in z)]
BOX2 = [z for z in itertools.product((-2, -1, 0, 1, 2), repeat=3) if z[0] in (-2, 2)]  # the worst sit at |z| = 2


@pytest.mark.parametrize("nb, offsets, level", [(LInfBox(1), BOX1, 1), (MonotoneBox(1), MONO1, Fraction(1, 2)),
                                                (LInfBox(2), BOX2, 2)])
def test_proved_level_covers_and_approaches_the_exact_law(nb, offsets, level):
    """The unit's level (rate·k: k = 2⌊Δ⌋ on a box, ⌊Δ⌋ monotone) is above every log-ratio of the exact law
    on the grid, and within 0.02 of the largest (the supremum is approached as the gap grows)."""
    m = GNM.GeometricNoisyMax(epsilon=1)
    proof = LatticeNoisyMax().prove(m, 3, nb)
    assert proof is not None and proof.whole_domain and proof.domain["scores"] == "Z^n"
    assert Fraction(proof.upper) == level
    brute = _brute_level(offsets, 0.5, GRID)
    assert brute <= float(level) + 1e-12
    assert brute >= float(level) - 0.02


def test_reference_law_encloses_the_example_law():
    """The screen's own evaluation of the stated law (arb, truncated sum + tail radius) encloses the
    example's exact polynomials, and each law sums to 1."""
    noise = GNM.GeometricNoisyMax(epsilon=1).integer_noise()
    for q in [(2, 1, 0), (0, 0, -1, 3), (5, 5, 5), (0, 30)]:
        ref = reference_pmf(noise, q)
        exact = _law(q, 0.5)
        for b, x in zip(ref, exact):
            assert float(b.rad()) < 1e-25
            assert abs(float(b.mid()) - float(x)) <= float(b.rad()) + 1e-30
        assert abs(float(sum(exact)) - 1) < 1e-30 and sum(ref[1:], ref[0]).contains(1)


def test_example_is_private_on_every_integer_vector():
    v = dpexact.verify(f"{EXAMPLE}:GeometricNoisyMax", epsilon=1, n=3)
    assert v.verdict == "private" and v.bracket.upper.whole_domain
    assert v.bracket.upper.upper == "1" and v.bracket.upper.domain["scores"] == "Z^n"
    # the exact law's log-ratio at q = (0, 14, 14), q' = (−1, 15, 15) is 0.99998..: the lower end is certified
    assert _brute_level([(-1, 1, 1)], 0.5, [(0, 14, 14)]) <= v.bracket.lower_float <= 1


def test_a_law_one_term_off_its_statement_is_not_proved():
    """Mutation: α = e^(−ε/Δ) in the pmf, rate ε/(2Δ) stated → the screen refutes it, nothing is proved,
    and the verifier finds the violation (the law's level is 2ε)."""
    m = HalfNoise(epsilon=1)
    s = screen_stated_law(m, 3)
    assert not s.agrees and "Pr[M(" in s.refuted
    assert LatticeNoisyMax().prove(m, 3, LInfBox(1)) is None
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated" and v.bracket.lower_float > 1.9
    assert v.bracket.upper is None or not (v.bracket.upper.method == "theorem" and v.bracket.upper.upper == "1")


def test_the_violated_variant_at_2eps_is_closed_exactly():
    """Stated truthfully (rate ε/Δ), the 2ε law is violated at ε = 1 with bracket [≈2, 2]: upper exact."""
    m = HalfNoiseStated(epsilon=1)
    assert screen_stated_law(m, 3).agrees
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated"
    assert v.bracket.upper is not None and v.bracket.upper.upper == "2" and v.bracket.upper.whole_domain
    assert 2 - 1e-3 <= v.bracket.lower_float <= 2


def test_unit_declines_what_it_does_not_read():
    unit = LatticeNoisyMax()
    m = GNM.GeometricNoisyMax(epsilon=1)
    assert any(isinstance(u, LatticeNoisyMax) for u in PROOFS)
    assert not unit.supports(UnknownFamily(epsilon=1), 3, LInfBox(1))
    assert not unit.supports(m, 3, "all-differ")
    assert unit.prove(m, 3, LInfBox(1, sensitivities=(1, 1))) is None  # a candidate-wise box tied to n = 2
    assert not unit.supports(dpexact.mechanism("em", epsilon=1), 3, LInfBox(1))


def test_conform_checks_the_stated_law():
    from dpexact.conformance.checks import conform

    rows = {c.name: c for c in conform(HalfNoise(epsilon=1), draws=2000).checks}
    assert rows["stated-law"].passed is False and "not the law stated" in rows["stated-law"].message
    rows = {c.name: c for c in conform(GNM.GeometricNoisyMax(epsilon=1), draws=2000).checks}
    assert rows["stated-law"].passed is True
