"""A continuous mechanism defined only through the protocol (no registered family, no theorem):
refuted on boxes of its output with a certified ratio, never flagged when private."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from dpexact.mechanisms.query_neighbourhoods import OneDiffer
from dpexact.numbers.backends import ball_context
from dpexact.numbers.real import Real
from dpexact.protocols import MechanismProperties
from dpexact.verify.conformance import conform
from dpexact.verify.output_dispatch import verify_mechanism


def _ball_only(backend: Any) -> None:
    if backend != "ball":
        raise ValueError(f"backend: this law is served on 'ball' only, got {backend!r}")


@dataclass(frozen=True)
class MyLaplace:
    """q_i + Lap(f·Δ/ε) on every query, claimed ε-DP when one query moves by Δ (f = 1 is private)."""

    epsilon: Any
    factor: Any = 1
    sensitivity: Any = 1
    short_name = "my-laplace"
    output_kind = "continuous"
    size = None
    properties = MechanismProperties(certified=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", Real.of(self.epsilon))
        object.__setattr__(self, "sensitivity", Real.of(self.sensitivity))

    def b(self) -> Real:
        return self.sensitivity * Real.of(self.factor) / self.epsilon

    def neighbourhood(self) -> Any:
        return OneDiffer(self.sensitivity.to_fraction())

    def params(self) -> dict:
        return {"epsilon": str(self.epsilon), "factor": str(self.factor)}

    def logpdf(self, q: Any, y: Any) -> float:
        b = self.b().to_float()
        return float(np.sum(-np.abs(np.asarray(y, float) - np.asarray(q, float)) / b - math.log(2 * b)))

    def pdf(self, q: Any, y: Any) -> float:
        return math.exp(self.logpdf(q, y))

    def box_probability(self, q: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any:
        from flint import arb

        _ball_only(backend)
        with ball_context(prec):
            b = self.b().to_arb(prec)
            p = arb(1)
            for x, (lo, hi) in zip(q, box):
                x = Real.of(x).to_arb(prec)
                p *= self._cdf(Real.of(hi).to_arb(prec) - x, b) - self._cdf(Real.of(lo).to_arb(prec) - x, b)
            return p

    @staticmethod
    def _cdf(t: Any, b: Any) -> Any:
        from flint import arb

        if t < 0:
            return (t / b).exp() / 2
        if t >= 0:
            return 1 - (-t / b).exp() / 2
        # a ball straddling 0: the union of both branches' enclosures
        return arb.union((t / b).exp() / 2, 1 - (-t / b).exp() / 2)

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        rng = np.random.default_rng(random_state)
        q = np.asarray(q, dtype=float)
        y = q[None, :] + rng.laplace(scale=self.b().to_float(), size=(1 if size is None else int(size), q.size))
        return y[0] if size is None else y


@dataclass(frozen=True)
class MyGaussian(MyLaplace):
    """q_i + N(0, σ²), σ = Δ/ε: not ε-DP for any ε (the Gaussian tails' ratio is unbounded)."""

    short_name = "my-gaussian"

    def box_probability(self, q: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any:
        from flint import arb

        _ball_only(backend)
        with ball_context(prec):
            s = self.b().to_arb(prec) * arb(2).sqrt()
            p = arb(1)
            for x, (lo, hi) in zip(q, box):
                x = Real.of(x).to_arb(prec)
                # Pr[lo <= x + Z <= hi] = (erfc((lo-x)/σ√2) - erfc((hi-x)/σ√2)) / 2 (accurate in both tails)
                p *= (((Real.of(lo).to_arb(prec) - x) / s).erfc() - ((Real.of(hi).to_arb(prec) - x) / s).erfc()) / 2
            return p

    def logpdf(self, q: Any, y: Any) -> float:
        s = self.b().to_float()
        return float(np.sum(-((np.asarray(y, float) - np.asarray(q, float)) ** 2) / (2 * s * s) - math.log(s * math.sqrt(2 * math.pi))))

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        rng = np.random.default_rng(random_state)
        q = np.asarray(q, dtype=float)
        y = q[None, :] + rng.normal(scale=self.b().to_float(), size=(1 if size is None else int(size), q.size))
        return y[0] if size is None else y


def test_under_scaled_laplace_is_refuted_within_its_true_level():
    """Noise Lap(Δ/(2ε)) with one query moved: the exact level is 2ε (density-ratio theorem), so a
    certified log-ratio lies in (ε, 2ε]."""
    m = MyLaplace(epsilon=Fraction(1, 2), factor=Fraction(1, 2))
    rep = conform(m, draws=5000)  # the box law and the sampler agree: a fair test mechanism
    assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed
    v = verify_mechanism(m, 3)
    assert v.verdict == "violated" and v.certified and v.recheck.proved
    assert 0.5 < v.worst_log_ratio <= 1.0 + 1e-12
    cx = v.counterexample.as_dict()
    diff = [Fraction(a) - Fraction(b) for a, b in zip(cx["scores"], cx["neighbour_scores"])]
    assert sum(d != 0 for d in diff) == 1 and max(abs(d) for d in diff) <= 1  # a one-differ pair, as claimed


def test_private_laplace_is_never_flagged():
    v = verify_mechanism(MyLaplace(epsilon=Fraction(1, 2)), 3)
    assert v.verdict == "inconclusive" and v.counterexample is None
    assert v.worst_float_log_ratio <= 0.5 + 1e-9  # no box ratio above ε (within the search)


def test_gaussian_is_refuted_for_pure_dp():
    v = verify_mechanism(MyGaussian(epsilon=Fraction(1)), 2)
    assert v.verdict == "violated" and v.certified and v.worst_log_ratio > 1


def test_continuous_without_a_box_law_is_refused_with_a_reason():
    @dataclass(frozen=True)
    class DensityOnly(MyLaplace):
        box_probability = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="box_probability"):
        verify_mechanism(DensityOnly(epsilon=1), 2)


def test_the_cli_loads_and_verifies_an_own_continuous_mechanism():
    from typer.testing import CliRunner

    from conftest import REPO
    from dpexact.cli.main import app

    spec = f"{REPO / 'tests' / 'test_continuous_own.py'}:MyLaplace"
    r = CliRunner().invoke(app, ["verify", "-m", spec, "-e", "1/2", "-p", "factor=1/2", "--n", "2", "--json"])
    assert r.exit_code == 0, r.output
    import json

    d = json.loads(r.stdout)
    assert d["verdict"] == "violated" and d["recheck"]["proved"]
    r = CliRunner().invoke(app, ["conform", spec, "--draws", "4000", "--json"])
    checks = {c["name"]: c["passed"] for c in json.loads(r.stdout)["checks"]}
    assert checks["sums-to-one"] and checks["sampler-agrees"] and checks["ball-encloses-exact"] is None


@dataclass(frozen=True)
class MyNoisyMaxValue(MyLaplace):
    """One real number, ``max(q) + Lap(f·Δ/ε)``: ε-DP for f = 1 when every query moves by ≤ Δ (the
    max moves by ≤ Δ). States no ``noise_scale``: the search uses its own unit."""

    short_name = "my-max-value"
    output_kind = "interval"

    def neighbourhood(self) -> Any:
        from dpexact.mechanisms.query_neighbourhoods import all_differ

        return all_differ(self.sensitivity.to_fraction())

    def interval_probability(self, q: Any, lo: Any, hi: Any, backend: str = "ball", prec: int = 128) -> Any:
        m = max(Fraction(Real.of(x).to_fraction()) for x in q)
        return MyLaplace.box_probability(self, [m], [(lo, hi)], backend, prec)

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> Any:
        rng = np.random.default_rng(random_state)
        y = max(float(x) for x in q) + rng.laplace(scale=self.b().to_float(), size=None if size is None else int(size))
        return y


def test_own_interval_mechanism_without_a_noise_scale():
    bad = verify_mechanism(MyNoisyMaxValue(epsilon=Fraction(1, 2), factor=Fraction(1, 2)), 3)
    assert bad.verdict == "violated" and bad.certified and 0.5 < bad.worst_log_ratio <= 1.0 + 1e-12
    good = verify_mechanism(MyNoisyMaxValue(epsilon=Fraction(1, 2)), 3)
    assert good.verdict == "inconclusive" and good.worst_float_log_ratio <= 0.5 + 1e-9
    rep = conform(MyNoisyMaxValue(epsilon=Fraction(1, 2)), draws=4000)
    assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed
