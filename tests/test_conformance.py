"""Conformance: every registered mechanism conforms; deliberately broken variants are caught
with a message naming the failed property."""

import shutil
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

import dpexact
from registered_mechanisms import NEEDS_SENSITIVITIES, build
from dpexact.cli.main import app
from dpexact.mechanisms.exponential import ExponentialMechanism
from dpexact.mechanisms.permute_and_flip import PermuteAndFlip
from dpexact.protocols import MechanismProperties
from dpexact.conformance.checks import conform

from conftest import REPO

#: ball quadrature / threshold integrals of these take 5-15 s on two shared cores: run under -m slow
SLOW = {"rs-gamma", "rs-gamma-tnb", "rnm-gumbel", "combined-gem", "bad-gap-svt", "svt34-parallel"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in dpexact.available()])
def test_every_registered_mechanism_conforms(name):
    m = build(name)
    rep = conform(m)
    assert rep.passed, [f"{c.name}: {c.message}" for c in rep.failures]
    assert rep.check("bad-input").passed
    kind = m.output_kind
    if kind in ("selection", "finite", "mixed", "composed"):
        assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed
        assert rep.check("float-within-bound").passed
    if kind in ("mixed", "composed"):
        assert rep.check("box-marginal").passed  # composed: SVT3's released values
    if kind in ("interval", "continuous"):
        assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed
        assert rep.check("ball-encloses-exact").passed
        assert rep.check("float-within-bound").passed is None  # ball / exact laws only: not applicable, not passed
    if kind == "continuous":  # every coordinate (and the joint orthants of several), not the first coordinate only
        assert "every coordinate" in rep.check("sampler-agrees").message
        if len(np.atleast_1d(m.rvs([0.0, 0.0, 0.0], random_state=0))) > 1:
            assert "joint orthants" in rep.check("sampler-agrees").message


def test_conformance_on_non_default_parameters():
    for m in (dpexact.mechanism("em", epsilon="1/2", measure=[1, 0, 3]), dpexact.mechanism("grr", epsilon=2, tie_break="first"),
              dpexact.mechanism("pf", epsilon="2*log(3)", monotone=True),
              dpexact.mechanism("svt1", epsilon=1, cutoff=2, monotone=True),
              dpexact.mechanism("noisy-max-value", epsilon=1, release="index-value"),
              dpexact.mechanism("noisy-max-value", epsilon=1, noise="exponential", release="index-value")):
        rep = conform(m)
        assert rep.passed, [f"{c.name}: {c.message}" for c in rep.failures]
        if m.output_kind == "mixed":  # the joint (index, value) law integrates to the index law
            assert rep.check("box-marginal").passed and rep.check("sampler-agrees").passed


def test_the_example_conforms(tmp_path):
    shutil.copy(REPO / "examples" / "geometric_noisy_max.py", tmp_path / "geometric_noisy_max.py")
    m = dpexact.mechanism(f"{tmp_path / 'geometric_noisy_max.py'}:GeometricNoisyMax", epsilon=1)
    rep = conform(m)
    assert rep.passed and rep.check("ball-encloses-exact").passed and rep.check("symmetric").passed


# -- broken variants ------------------------------------------------------------------------------

def _off_by_a_percent(q, p, ops):
    w = [ops.exp(p.epsilon * x / 2) for x in q]
    s = ops.sum(w)
    return [v / s * ops.num("101/100") if i == 0 else v / s for i, v in enumerate(w)]


@dataclass(frozen=True)
class _PFSampledAsEM(PermuteAndFlip):
    """PF's pmf with EM's sampler: the sampler disagrees with the pmf."""

    def sample(self, q, rng, size):
        return ExponentialMechanism(self.epsilon).sample(q, rng, size)


@dataclass(frozen=True)
class _FalselySymmetricEM(ExponentialMechanism):
    """EM with a non-uniform base measure that claims to be symmetric."""

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(symmetric=True, shift_invariant=True, monotone=True)


@dataclass(frozen=True)
class _OverconfidentFloat(ExponentialMechanism):
    """Float pmf perturbed by 1e-9 while still stating EM's 1e-15-level bound."""

    short_name: ClassVar[str] = "overconfident"

    def pmf_float(self, q, method):
        p = super().pmf_float(q, method)
        return type(p)(p.values * (1 + 1e-9), p.backend, p.method, p.rel_error, p.abs_error, p.error_kind, p.logvalues)


def test_pmf_not_summing_to_one_is_caught():
    m = dpexact.define_mechanism("em-off", _off_by_a_percent, epsilon=1)
    rep = conform(m)
    assert not rep.passed and rep.check("sums-to-one").passed is False
    assert "Σ p" in rep.check("sums-to-one").message


def test_sampler_disagreeing_is_caught():
    rep = conform(_PFSampledAsEM(epsilon=2))
    assert [c.name for c in rep.failures] == ["sampler-agrees"]
    assert "sampler disagrees with the pmf" in rep.check("sampler-agrees").message


def test_false_symmetry_claim_is_caught_with_a_counterexample():
    rep = conform(_FalselySymmetricEM(epsilon=1, measure=(1, 2, 3)))
    assert [c.name for c in rep.failures] == ["symmetric"]
    c = rep.check("symmetric")
    assert "declared symmetric but refuted" in c.message
    cx = c.counterexample
    assert (cx["a"], cx["r"]) != (cx["b"], cx["s"])  # two places pf eq. 1 says are equal, proved different


def test_float_outside_its_stated_bound_is_caught():
    rep = conform(_OverconfidentFloat(epsilon=1))
    assert rep.check("float-within-bound").passed is False and "stated bound" in rep.check("float-within-bound").message


def test_bad_input_accepted_is_caught():
    @dataclass(frozen=True)
    class Lenient(ExponentialMechanism):
        def pmf(self, scores, backend="float", method=None):
            if isinstance(scores, str) or not len(scores):
                return super().pmf([0.0, 0.0])
            return super().pmf(scores, backend, method)

    rep = conform(Lenient(epsilon=1))
    assert rep.check("bad-input").passed is False and "accepted without an error" in rep.check("bad-input").message


def test_cli_conform_exit_codes(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(app, ["conform", "em", "--json"])
    assert ok.exit_code == 0, ok.output
    (tmp_path / "broken.py").write_text(
        "from dpexact.mechanisms.exponential import ExponentialMechanism\n"
        "from dpexact.protocols import MechanismProperties\n"
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\n"
        "class Liar(ExponentialMechanism):\n"
        "    @property\n"
        "    def properties(self):\n"
        "        return MechanismProperties(symmetric=True)\n")
    bad = runner.invoke(app, ["conform", f"{tmp_path / 'broken.py'}:Liar", "-p", "measure=1,2,3"])
    assert bad.exit_code == 1 and "does not conform: symmetric" in bad.output
    missing = runner.invoke(app, ["conform", f"{tmp_path / 'nope.py'}:X"])
    assert missing.exit_code == 2 and missing.output.startswith("error:")


def test_sampler_only_mechanism_is_never_certified():
    def argmax_sampler(q, p, rng, size):  # report the max with no noise at all: not private
        return np.full(size, int(np.argmax(q)))

    def noisy_sampler(q, p, rng, size):  # report-noisy-max with Gumbel noise = EM
        return np.argmax(q * p.epsilon / 2 + rng.gumbel(size=(size, len(q))), axis=1)

    bb = dpexact.define_mechanism("argmax", sampler=argmax_sampler, epsilon=1)
    assert not bb.properties.certified
    with pytest.raises(ValueError, match="sampler-only"):
        bb.pmf([1, 0], "exact")
    from dpexact.verification.search.selection import verify

    v = verify(bb, searches=("grid",))
    assert v.verdict == "violated" and not v.certified and "statistical" in " ".join(v.scope.notes)
    ok = dpexact.define_mechanism("gumbel-rnm", sampler=noisy_sampler, epsilon=1)
    v2 = verify(ok, searches=("grid",))
    assert v2.verdict == "inconclusive" and not v2.certified  # a black box is never declared private
    rep = conform(ok)
    assert rep.passed and rep.check("sums-to-one").passed is None


# -- broken variants of the real-valued kinds ---------------------------------------------------

def test_interval_law_missing_mass_is_caught():
    from dpexact.mechanisms.noisy_max_value import NoisyMaxValue

    @dataclass(frozen=True)
    class HalfMass(NoisyMaxValue):  # the law of the max, scaled by 1/2: sums to 1/2
        def interval_probability(self, queries, lo, hi, backend="ball", prec=128):
            return super().interval_probability(queries, lo, hi, backend, prec) / 2

    rep = conform(HalfMass(epsilon=1))
    assert rep.check("sums-to-one").passed is False and "sum to" in rep.check("sums-to-one").message


def test_continuous_sampler_with_the_wrong_scale_is_caught():
    from dpexact.mechanisms.additive_noise import LaplaceMechanism

    @dataclass(frozen=True)
    class WideSampler(LaplaceMechanism):  # draws with twice the noise its law states
        def rvs(self, queries, size=None, random_state=None):
            q = np.asarray(queries, dtype=float)
            rng = np.random.default_rng(random_state)
            y = q[None, :] + rng.laplace(scale=2 * self.noise_scale().to_float(), size=(1 if size is None else size, q.size))
            return y[0] if size is None else y

    rep = conform(WideSampler(epsilon=1))
    assert [c.name for c in rep.failures] == ["sampler-agrees"]
    assert "disagrees with the box law" in rep.check("sampler-agrees").message


def test_continuous_sampler_right_per_coordinate_but_wrongly_dependent_is_caught():
    from dpexact.mechanisms.additive_noise import LaplaceMechanism

    @dataclass(frozen=True)
    class SharedNoise(LaplaceMechanism):  # one noise draw added to every query: each marginal is right
        def rvs(self, queries, size=None, random_state=None):
            q = np.asarray(queries, dtype=float)
            rng = np.random.default_rng(random_state)
            nu = rng.laplace(scale=self.noise_scale().to_float(), size=(1 if size is None else size, 1))
            y = q[None, :] + nu
            return y[0] if size is None else y

    rep = conform(SharedNoise(epsilon=1))
    assert [c.name for c in rep.failures] == ["sampler-agrees"]
    assert "joint orthants" in rep.check("sampler-agrees").message


def test_continuous_boxes_are_read_in_the_mechanisms_box_coordinates():
    from dpexact.mechanisms.additive_noise import PrefixSum

    @dataclass(frozen=True)
    class PrefixRawBoxes(PrefixSum):  # claims its boxes are in output coordinates: they are not
        def box_coordinates(self, y):
            return np.asarray(y, dtype=float)

    assert conform(PrefixSum(epsilon=1)).passed
    rep = conform(PrefixRawBoxes(epsilon=1))
    assert [c.name for c in rep.failures] == ["sampler-agrees"]
    assert "coordinate 1" in rep.check("sampler-agrees").message


def test_pattern_sampler_disagreeing_is_caught():
    from dpexact.mechanisms.sparse_vector.mechanism import SVT1

    @dataclass(frozen=True)
    class AlwaysFirst(SVT1):  # reports ⊤ for the first query whatever the noise
        def rvs(self, queries, size=None, random_state=None):
            pat = "T" + "F" * (len(queries) - 1)
            return pat if size is None else np.array([pat] * size, dtype=object)

    rep = conform(AlwaysFirst(epsilon=1))
    assert [c.name for c in rep.failures] == ["sampler-agrees"]
