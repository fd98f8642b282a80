"""The written protocol (dpexact.protocols): every mechanism satisfies it, and the verifier,
the utility metrics and the LP ask it (size, neighbourhood, declared symmetry) instead of
probing attribute names."""

import itertools
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, ClassVar

import mpmath
import numpy as np
import pytest

import dpexact
from registered_mechanisms import NEEDS_SENSITIVITIES, build
from dpexact.lp import optimal_mechanism, optimality_ratio, total_expected_error
from dpexact.mechanisms.base import SelectionMechanism
from dpexact.mechanisms.exponential import ExponentialMechanism
from dpexact.mechanisms.neighbourhoods import LInfBox, MonotoneBox
from dpexact.numbers import Real
from dpexact.protocols import (FINITE_KINDS, KIND_METHODS, MechanismProperties, Mechanism, check_mechanism, is_mechanism,
                               mechanism_size)
from dpexact.verification.search.selection import verify





#: registered mechanisms tied to one input (a count, an LDP value) rather than a score vector
ONE_INPUT = {"truncated-geometric": ((2,), (3,)), "rappor": ((2,), (3,)), "one-time-rappor": ((2,), (3,))}


@pytest.mark.parametrize("name", dpexact.available())
def test_every_registered_mechanism_satisfies_the_protocol(name):
    m = build(name)
    assert is_mechanism(m) and check_mechanism(m, continuous=True) is m
    assert isinstance(m.properties, MechanismProperties)
    kind = m.output_kind
    assert kind in FINITE_KINDS + tuple(KIND_METHODS)
    if kind in FINITE_KINDS:
        assert isinstance(m, Mechanism)
        if kind == "selection":
            assert m.size == (3 if name in NEEDS_SENSITIVITIES else None)
            assert list(m.outputs(3)) == [0, 1, 2]
        n = m.size or 3
        outs = list(m.outputs(n))
        assert len(set(outs)) == len(outs) >= 2  # a fixed enumeration of distinct labels
        q = [0] * n if name not in ONE_INPUT else [2]
        assert len(m.pmf(q).values) == len(outs)
    else:
        for meth in KIND_METHODS[kind]:
            assert callable(getattr(m, meth))
        with pytest.raises(TypeError, match="continuous output"):
            check_mechanism(m)
    nb = m.neighbourhood()
    if name in ONE_INPUT:
        a, b = ONE_INPUT[name]
        assert nb.contains(list(a), list(b))
        # a count moves by one (ℓ∞ box); LDP makes every two inputs neighbours
        assert nb.contains([0], [2]) is (nb.name == "any-pair")
    else:
        assert nb.contains([0, 0, 0], [1, 0, 0])
        # ONE_DIFFER (CheckDP) lets one answer move; every other relation here is the ℓ∞ box
        assert nb.contains([0, 0, 0], [1, -1, 1]) is (nb.name != "one-differ")


def test_not_a_mechanism_gets_one_line_errors():
    with pytest.raises(TypeError, match="does not satisfy the dpexact Mechanism protocol"):
        check_mechanism(object())
    with pytest.raises(TypeError, match="is a class, not a mechanism instance"):
        check_mechanism(ExponentialMechanism)
    with pytest.raises(TypeError, match="does not satisfy"):
        verify(object())


def test_size_and_neighbourhood_come_from_the_mechanism():
    het = dpexact.mechanism("rnmh", epsilon=1, sensitivities=["1/2", 1])
    assert mechanism_size(het) == 2
    nb = het.neighbourhood()
    assert isinstance(nb, LInfBox) and nb.contains([0, 0], ["1/2", 1]) and not nb.contains([0, 0], [1, 1])
    assert isinstance(dpexact.mechanism("em", epsilon=1, monotone=True).neighbourhood(), MonotoneBox)
    rnm = dpexact.mechanism("rnm-exp", epsilon=1, scales=[2, 2, 2])
    assert rnm.size == 3 and not rnm.properties.symmetric
    with pytest.raises(ValueError, match="tied to 2 candidates"):
        verify(het, n=3)


@dataclass(frozen=True)
class _FixedEM(SelectionMechanism):
    """EM tied to 4 candidates under an attribute name no verifier knows (``weights``)."""

    weights: tuple = (1, 1, 1, 1)
    short_name: ClassVar[str] = "fixed-em"

    @property
    def size(self) -> int:
        return len(self.weights)

    def pmf_float(self, q, method):
        if q.size != 4:
            raise ValueError(f"scores: need 4 scores, got {q.size}")
        return ExponentialMechanism(self.epsilon).pmf(q)

    def pmf_backend(self, q, backend, method):
        if len(q) != 4:
            raise ValueError(f"scores: need 4 scores, got {len(q)}")
        return ExponentialMechanism(self.epsilon).pmf_backend(q, backend, method)


def test_fixed_size_mechanism_gets_a_default_plan_of_its_size():
    v = verify(_FixedEM(epsilon=1), searches=("grid", "structured"))
    assert v.verdict == "private-within-scope" and v.certified
    assert v.scope.families["grid"] == 2**4  # the n = 4 grid on {0, Δ}: built from size, not from guesses


def test_em_base_measure_is_exact_without_underflow():
    """diffprivlib's EM returns NaN on this input; the stable form gives exactly (0, 1/2, 1/2)."""
    m = dpexact.mechanism("em", epsilon=1, measure=[0, 1, 1])
    q = [0, -2000, -2000]
    assert [str(v) for v in m.pmf(q, "exact").values] == ["0", "1/2", "1/2"]
    f = m.pmf(q)
    assert list(f.values) == [0.0, 0.5, 0.5]
    b = m.pmf(q, "ball")
    assert b.contains([0, Fraction(1, 2), Fraction(1, 2)]) and b.radii().max() == 0.0
    assert [float(v.mid()) for v in b.values] == [0.0, 0.5, 0.5]
    assert np.array_equal(m.logpmf(q), [-np.inf, np.log(0.5), np.log(0.5)])
    assert m.size == 3 and not m.properties.symmetric


def test_em_measure_against_the_formula():
    mu, q, c = [1, 2, "1/3"], [0, 1, 2], mpmath.mpf(1) / 2
    m = dpexact.mechanism("em", epsilon=1, measure=mu)
    with mpmath.workdps(40):
        w = [mpmath.mpf(1), 2 * mpmath.exp(c), mpmath.exp(2 * c) / 3]
        ref = [x / sum(w) for x in w]
        p = m.pmf(q)
        assert all(abs(a - float(b)) <= p.rel_error * float(b) for a, b in zip(p.values, ref))
        ex = m.pmf(q, "exact").values
        assert all(abs(Real.of(a).to_mpf() - b) < mpmath.mpf(10) ** -35 for a, b in zip(ex, ref))
        assert m.pmf(q, "ball").contains(ex)
    draws = m.rvs(q, size=60_000, random_state=3)
    counts = np.bincount(draws, minlength=3)
    from scipy.stats import chisquare

    assert chisquare(counts, 60_000 * np.array([float(x) for x in ref])).pvalue > 1e-4


@pytest.mark.parametrize("bad, match", [([-1, 1], "measure\\[0\\] must be >= 0"), ([0, 0], "positive entry"), ([], "empty"),
                                        ("1,2", "measure must be a sequence")])
def test_em_measure_bad_input(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        dpexact.mechanism("em", epsilon=1, measure=bad)
    with pytest.raises(ValueError, match="measure has 2 entries"):
        dpexact.mechanism("em", epsilon=1, measure=[1, 2]).pmf([0, 1, 2])


@pytest.fixture(scope="module")
def opt44():
    return optimal_mechanism(4, 4, "log(3/2)", certify=True)


def _brute_total(mu: list[int], eps: Any, k: int = 4) -> mpmath.mpf:
    """Σ over every vector of Q(4, k) of E[err], straight from Pr[r] ∝ μ_r exp(ε q_r / 2)."""
    total = mpmath.mpf(0)
    for lv in itertools.product(range(k + 1), repeat=len(mu)):
        if min(lv) != 0:
            continue
        q = [-2 * l for l in lv]
        w = [m * mpmath.exp(eps * x / 2) for m, x in zip(mu, q)]
        total += sum(wi * (0 - x) for wi, x in zip(w, q)) / sum(w)
    return total


def test_non_symmetric_em_ratio_equals_the_brute_force_sum(opt44):
    mu = [1, 2, 3, 4]
    m = dpexact.mechanism("em", epsilon="log(3/2)", measure=mu)
    sol, cert = opt44.solution, opt44.certificate
    with mpmath.workdps(40):
        eps = mpmath.log(mpmath.mpf(3) / 2)
        brute = _brute_total(mu, eps)
        opt = mpmath.mpf(int(cert.optimum.p)) / int(cert.optimum.q)
        ratio = brute / opt
    for backend in ("float", "ball"):
        r = optimality_ratio(m, sol, backend=backend, certificate=cert)
        assert abs(mpmath.mpf(r.as_float) - ratio) <= r.error_bound + 1e-15 * ratio, backend
    # the class-based shortcut (valid only for symmetric mechanisms) gives a different number
    classes = total_expected_error(ExponentialMechanism("log(3/2)"), 4, 4)
    assert abs(classes.as_float - float(brute)) > 1e-3
    # a uniform measure is symmetric again and agrees with plain EM
    u = dpexact.mechanism("em", epsilon="log(3/2)", measure=[2, 2, 2, 2])
    assert u.properties.symmetric
    assert abs(total_expected_error(u, 4, 4).as_float - classes.as_float) < 1e-12


def test_optimality_ratio_refuses_a_size_mismatch(opt44):
    m = dpexact.mechanism("em", epsilon="log(3/2)", measure=[1, 2, 3])
    with pytest.raises(ValueError, match="tied to 3 candidates"):
        optimality_ratio(m, opt44.solution)


def test_a_false_symmetry_declaration_is_refused_by_the_ratio(opt44):
    @dataclass(frozen=True)
    class Liar(ExponentialMechanism):
        @property
        def properties(self):
            return MechanismProperties(symmetric=True)

    with pytest.raises(ValueError, match="declares symmetry .* differ beyond their bounds"):
        optimality_ratio(Liar("log(3/2)", measure=(1, 2, 3, 4)), opt44.solution)


@dataclass(frozen=True)
class _NoisyThresholdBit(SelectionMechanism):
    """A non-selection mechanism: outputs ⊥/⊤ for query 0, Pr[⊤] = e^{c q_0} / (1 + e^{c q_0}), c = ε/Δ·scale."""

    scale: Any = 1
    short_name: ClassVar[str] = "threshold-bit"
    output_kind: ClassVar[str] = "finite"

    def outputs(self, n):
        return ("⊥", "⊤")

    def pmf_backend(self, q, backend, method):
        from dpexact.numbers import Pmf, Real

        c = self.epsilon / self.sensitivity * Real.of(self.scale)
        w = backend.exp(backend.from_real(c * q[0]))
        one = backend.from_int(1)
        vals = (one / (one + w), w / (one + w))
        if backend.name == "exact":
            from dpexact.numbers import ExactBackend

            kind, vals = ExactBackend.field(list(vals))
            return Pmf(tuple(vals), "exact", "logistic", 0.0, 0.0, "exact")
        if backend.name == "mp":
            return Pmf(vals, str(backend), "logistic", 1e-40, 1e-40, "estimate")
        return Pmf(vals, str(backend), "logistic", 0.0, max(float(v.rad()) for v in vals), "rigorous")

    def pmf_float(self, q, method):
        from dpexact.numbers import Pmf

        x = float(self.epsilon / self.sensitivity * self.scale) * q[0]
        top = 1 / (1 + np.exp(-x))
        return Pmf(np.array([1 - top, top]), "float", "logistic", 1e-15, 1e-15, "a-priori")

    def sample(self, q, rng, size):
        return (rng.random(size) < self.pmf_float(q, None).values[1]).astype(np.int64)


def test_a_finite_output_space_flows_through_verify_and_conformance():
    ok = _NoisyThresholdBit(epsilon=1)
    assert list(ok.outputs(3)) == ["⊥", "⊤"] and ok.pmf([0, 5, 7]).values.size == 2
    v = verify(ok, searches=("grid", "structured"))
    assert v.verdict == "private-within-scope" and v.certified and v.worst_log_ratio <= 1
    bad = verify(_NoisyThresholdBit(epsilon=1, scale=2), searches=("grid",))
    assert bad.verdict == "violated" and bad.certified
    assert dpexact.conform(ok).passed
    from dpexact.utility import expected_error

    with pytest.raises(TypeError, match="needs a selection mechanism"):
        expected_error(ok, [1, 0])
    from dpexact.utility import error_tail

    with pytest.raises(TypeError, match="needs a selection mechanism"):
        error_tail(ok, [1, 0])


def test_a_continuous_mechanism_is_refused_where_a_finite_output_space_is_needed():
    class NoisyValue:  # the extension point: a density instead of a pmf
        short_name, epsilon, sensitivity, size, output_kind = "noisy-value", 1, 1, None, "continuous"
        properties = MechanismProperties()

        def neighbourhood(self):
            return LInfBox(1)

        def pdf(self, scores, x, backend="float"):
            return 0.5

        def logpdf(self, scores, x):
            return -0.69

        def rvs(self, scores, size=None, random_state=None):
            return 0.0

        def params(self):
            return {}

    m = NoisyValue()
    assert check_mechanism(m, continuous=True) is m
    with pytest.raises(TypeError, match="continuous output"):
        verify(m)
    with pytest.raises(TypeError, match="continuous output"):
        total_expected_error(m, 3, 2)
