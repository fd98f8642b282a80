"""`dpexact pmf`: JSON shape and values computed independently."""

import json

from typer.testing import CliRunner

from dpexact.cli.main import app

runner = CliRunner()


def test_help_lists_subcommands():
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    assert "pmf" in res.output and "bench" in res.output


def test_pmf_json_exact():
    res = runner.invoke(app, ["pmf", "--mechanism", "pf", "--epsilon", "2*log(2)", "--scores", "1,0", "--backend", "exact", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    # PF on (1, 0) with p = 1/2: Pr[1] = p ∫(1 - t) dt = 1/4
    assert out["exact"] == ["3/4", "1/4"]
    assert out["probabilities"] == [0.75, 0.25]
    assert out["expected_error"] == 0.25 and out["error_bound"] == 0.0
    assert set(out) >= {"mechanism", "params", "backend", "scores", "probabilities", "exact", "expected_error", "error_bound"}


def test_pmf_json_float_has_bound():
    res = runner.invoke(app, ["pmf", "-m", "em", "-e", "1", "-q", "3,2,0", "--json"])
    out = json.loads(res.output)
    assert out["exact"] is None and 0 < out["error_bound"] < 1e-12
    assert abs(sum(out["probabilities"]) - 1) < 1e-15


def test_pmf_bad_input_is_a_clear_error():
    res = runner.invoke(app, ["pmf", "-m", "pf", "-e", "-1", "-q", "1,0"])
    assert res.exit_code == 2 and "epsilon" in res.output
    res = runner.invoke(app, ["pmf", "-m", "nope", "-e", "1", "-q", "1,0"])
    assert res.exit_code == 2 and "unknown mechanism" in res.output
    res = runner.invoke(app, ["pmf", "-m", "pf", "-e", "1", "-q", "1,,0"])
    assert res.exit_code != 0
