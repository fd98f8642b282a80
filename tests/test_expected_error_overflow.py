"""Scores ~1.8e308 apart: their gaps overflow float64; the float expected error stays right or says why."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dpexact.mechanisms.registry import mechanism as build
from dpexact.utility import expected_error
from dpexact.utility.error_tail import error_tail
from dpexact.utility.variance import error_variance

HUGE = [[1e308, -1e308], [1.7e308, 1.7e308, -1.7e308], [-1.7e308, 1.7e308, 0.0]]


@pytest.mark.parametrize("name", ["pf", "em", "rnm-exp", "rs-gamma"])
@pytest.mark.parametrize("scores", HUGE)
@pytest.mark.parametrize("eps", ["1", "1000"])
def test_float_expected_error_within_its_bound_of_the_ball_value(name, scores, eps):
    mech = build(name, epsilon=eps)
    f = expected_error(mech, scores)
    ball = expected_error(mech, scores, backend="ball:300")  # exact gaps, arb arithmetic
    assert f.error_bound < 1e-10 * max(abs(ball.as_float), 1.0)
    assert abs(f.as_float - ball.as_float) <= f.error_bound + ball.error_bound


def test_rs_gamma_on_a_huge_gap_is_finite():
    """RS_γ keeps mass on the far candidate: E = p_1·2e308 is a finite float, not inf."""
    mech = build("rs-gamma", epsilon="1")
    f = expected_error(mech, [1e308, -1e308])
    p1 = float(mech.pmf([1e308, -1e308], backend="ball:300").values[1].mid())
    assert p1 > 0.01
    assert f.as_float / 2 == pytest.approx(p1 * 1e308, rel=1e-14)


def test_expected_error_beyond_float_range_is_an_error_naming_scores():
    # ε·gap ≈ 3e-2: EM is near uniform on 3 candidates, E ≈ (2/3)·3.4e308 > 1.8e308
    mech = build("em", epsilon="1e-310")
    with pytest.raises(ValueError, match=r"^scores: the expected error exceeds"):
        expected_error(mech, [1.7e308, -1.7e308, -1.7e308])


@pytest.mark.parametrize("metric", [error_variance, error_tail])
def test_other_float_metrics_name_scores_instead_of_nan(metric):
    with pytest.raises(ValueError, match=r"^scores: the gap"):
        metric(build("pf", epsilon="1"), [1e308, -1e308])


@pytest.mark.parametrize("name", ["pf", "em", "rnm-exp", "rnm-gumbel", "rs-gamma"])
def test_cli_pmf_on_huge_mixed_sign_scores(name):
    run = subprocess.run([sys.executable, "-m", "dpexact", "pmf", "-m", name, "-e", "1", "-q", "1e308,-1e308",
                          "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    doc = json.loads(run.stdout)
    assert doc["error_bound"] >= 0 and doc["expected_error"] >= 0
    assert sum(doc["probabilities"]) == pytest.approx(1.0)
