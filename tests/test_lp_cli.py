"""``dpexact optimal``."""

import json

from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.lp import build_regular_lp, solve_regular_lp

runner = CliRunner()


def test_optimal_json():
    res = runner.invoke(app, ["optimal", "--n", "4", "--k", "4", "--epsilon", "0.5", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)  # notes and progress go to stderr
    for key in ("n", "k", "epsilon", "variables", "constraints", "seconds", "optimal_total_error", "ratios", "certified"):
        assert key in out
    lp = build_regular_lp(4, 4, "0.5")
    assert out["variables"] == lp.num_vars and out["constraints"] == lp.num_constraints
    assert abs(out["optimal_total_error"] - solve_regular_lp(lp, method="simplex").optimal_total_error) < 1e-9 * out["optimal_total_error"]
    assert set(out["ratios"]) == {"pf", "em"} and out["ratios"]["em"] > out["ratios"]["pf"] >= 1 - 1e-9


def test_optimal_certify_exact_and_table():
    res = runner.invoke(app, ["optimal", "--n", "3", "--k", "3", "--epsilon", "log(2)", "--certify", "--json", "--mechanisms", "pf"])
    out = json.loads(res.stdout)  # notes and progress go to stderr
    assert out["certified"] == "exact" and "/" in out["optimal_total_error_exact"]
    res = runner.invoke(app, ["optimal", "--n", "3", "--k", "3", "--epsilon", "0.5"])
    assert res.exit_code == 0 and "optimality ratio" in res.output


def test_optimal_bad_input():
    res = runner.invoke(app, ["optimal", "--n", "3", "--k", "3", "--epsilon", "0"])
    assert res.exit_code == 2 and "epsilon" in res.output
    res = runner.invoke(app, ["optimal", "--n", "3", "--k", "3", "--epsilon", "1", "--mechanisms", "nope"])
    assert res.exit_code == 2 and "nope" in res.output


def test_optimal_refuses_sums_beyond_float_range():
    # |Q(10000, 1)| = 2^10000 - 1: the objective and the ratio sums would overflow float64
    res = runner.invoke(app, ["optimal", "--n", "10000", "--k", "1", "--epsilon", "1"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "n, k" in lines[0] and "Q(10000, 1)" in lines[0] and "Traceback" not in res.output
