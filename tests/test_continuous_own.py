"""Real-valued mechanisms defined only through the protocol (examples/own_continuous.py: no
registered family, no theorem): refuted on boxes of their output with a certified ratio, never
flagged when private."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest

import dpexact
from dpexact.conformance.checks import conform

from example_laws import EXAMPLES, example

EXAMPLE = EXAMPLES / "own_continuous.py"
MyLaplace, MyGaussian, MyNoisyMaxValue = (example("own_continuous", c) for c in ("MyLaplace", "MyGaussian", "MyNoisyMaxValue"))


def test_under_scaled_laplace_is_refuted_within_its_true_level():
    """Noise Lap(Δ/(2ε)) with one query moved: the exact level is 2ε (density-ratio theorem), so a
    certified log-ratio lies in (ε, 2ε]."""
    m = MyLaplace(epsilon=Fraction(1, 2), factor=Fraction(1, 2))
    rep = conform(m, draws=5000)  # the box law and the sampler agree: a fair test mechanism
    assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed
    v = dpexact.verify(m, n=3)
    assert v.verdict == "violated" and v.certified and v.recheck.proved
    assert 0.5 < v.worst_log_ratio <= 1.0 + 1e-12
    cx = v.counterexample.as_dict()
    diff = [Fraction(a) - Fraction(b) for a, b in zip(cx["scores"], cx["neighbour_scores"])]
    assert sum(d != 0 for d in diff) == 1 and max(abs(d) for d in diff) <= 1  # a one-differ pair, as claimed


def test_private_laplace_is_never_flagged():
    v = dpexact.verify(MyLaplace(epsilon=Fraction(1, 2)), n=3)  # its density pieces: a density-ratio proof
    assert v.verdict == "private" and v.counterexample is None and v.bracket.upper.upper == "1/2"
    from dpexact.verification.routes import _unit_or_kind_search as _search_mechanism

    v = _search_mechanism(MyLaplace(epsilon=Fraction(1, 2)), 3)  # the box search alone cannot prove
    assert v.verdict == "inconclusive" and v.counterexample is None
    assert v.worst_float_log_ratio <= 0.5 + 1e-9  # no box ratio above ε (within the search)


def test_gaussian_is_refuted_for_pure_dp():
    v = dpexact.verify(MyGaussian(epsilon=Fraction(1)), n=2)
    assert v.verdict == "violated" and v.certified and v.worst_log_ratio > 1


def test_continuous_without_a_box_law_is_refused_with_a_reason():
    @dataclass(frozen=True)
    class DensityOnly(MyLaplace):
        box_probability = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="box_probability"):
        dpexact.verify(DensityOnly(epsilon=1), n=2)


def test_the_cli_loads_and_verifies_an_own_continuous_mechanism():
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    spec = f"{EXAMPLE}:MyLaplace"
    r = CliRunner().invoke(app, ["verify", "-m", spec, "-e", "1/2", "-p", "factor=1/2", "--n", "2", "--json"])
    assert r.exit_code == 1, r.output  # violated
    import json

    d = json.loads(r.stdout)
    assert d["verdict"] == "violated" and d["recheck"]["proved"]
    r = CliRunner().invoke(app, ["conform", spec, "--draws", "4000", "--json"])
    checks = {c["name"]: c["passed"] for c in json.loads(r.stdout)["checks"]}
    assert checks["sums-to-one"] and checks["sampler-agrees"] and checks["ball-encloses-exact"] is None


def test_own_interval_mechanism_without_a_noise_scale():
    bad = dpexact.verify(MyNoisyMaxValue(epsilon=Fraction(1, 2), factor=Fraction(1, 2)), n=3)
    assert bad.verdict == "violated" and bad.certified and 0.5 < bad.worst_log_ratio <= 1.0 + 1e-12
    good = dpexact.verify(MyNoisyMaxValue(epsilon=Fraction(1, 2)), n=3)
    assert good.verdict == "inconclusive" and good.worst_float_log_ratio <= 0.5 + 1e-9
    rep = conform(MyNoisyMaxValue(epsilon=Fraction(1, 2)), draws=4000)
    assert rep.check("sums-to-one").passed and rep.check("sampler-agrees").passed


def test_gaussian_approximate_dp_refuted_below_its_exact_delta_and_never_above():
    """N(q, 1) with one query moved by 1: δ(ε = 1) = Φ(−1/2) − e·Φ(−3/2) = 0.126937 (Balle & Wang 2018,
    Thm 8; written out here with mpmath). A claim δ = 0.12 is refuted on a tail set whose certified
    excess lies in (0.12, 0.126937]; δ = 0.127 is never refuted."""
    import mpmath

    from dpexact.verification.search.approx_dp import verify_approx

    with mpmath.workdps(30):
        phi = lambda t: mpmath.erfc(-t / mpmath.sqrt(2)) / 2  # noqa: E731
        exact = float(phi(-mpmath.mpf(1) / 2) - mpmath.e * phi(-mpmath.mpf(3) / 2))
    m = MyGaussian(epsilon=1)
    v = verify_approx(m, Fraction(12, 100), n=2)
    assert v.verdict == "violated" and v.certified and 0.12 < v.worst_delta <= exact + 1e-15
    assert v.counterexample.as_dict()["delta"] == "3/25"
    w = verify_approx(m, Fraction(127, 1000), n=2)
    assert w.verdict == "inconclusive" and w.worst_delta <= exact + 1e-15
