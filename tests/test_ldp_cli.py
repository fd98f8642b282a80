"""`dpexact ldp` / `dpexact optimal-ldp`: JSON fields and errors, values re-derived independently."""

import json
from fractions import Fraction

from typer.testing import CliRunner

from dpexact.cli.main import app

runner = CliRunner()


def run_json(*args):
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_ldp_grr_json_matches_closed_form():
    out = run_json("ldp", "--mechanism", "grr", "--domain", "9", "--epsilon", "log(3)", "--json")
    assert {"mechanism", "domain", "epsilon", "global_error", "qloss"} <= out.keys()
    want = Fraction(81 - 1, 3) / (3 + 9 - 1)  # (N²−1)/(3(e^ε+N−1))
    assert abs(out["global_error"] - float(want)) < 1e-14
    assert abs(out["qloss"] - float(want / 8)) < 1e-14


def test_ldp_brr_json_fields():
    out = run_json("ldp", "-m", "brr", "--domain", "10", "--epsilon", "1", "--json")
    for k in ("mechanism", "domain", "epsilon", "m", "m_search", "m_closed_form", "global_error", "qloss"):
        assert k in out
    assert (out["m_search"], out["m_closed_form"], out["m"]) == (3, 4, 3)
    out = run_json("ldp", "-m", "brr", "--domain", "10", "--epsilon", "1", "--m-rule", "closed-form", "--json")
    assert out["m"] == 4
    out = run_json("ldp", "-m", "brr", "--domain", "10", "--epsilon", "1", "--brr-m", "2", "--json")
    assert out["m"] == 2


def test_optimal_ldp_json():
    out = run_json("optimal-ldp", "--domain", "6", "--epsilon", "log(3)", "--loss", "abs", "--json")
    assert out["certified"] and out["grr_ratio"] >= 1 and out["brr_ratio"] >= 1
    assert abs(out["optimum"] - float(Fraction(out["optimum_exact"]))) < 1e-15


def test_cli_errors():
    for args in (["ldp", "-m", "brr", "--domain", "1", "--epsilon", "1"],
                 ["ldp", "-m", "grr", "--domain", "5", "--epsilon", "0"],
                 ["ldp", "-m", "xyz", "--domain", "5", "--epsilon", "1"],
                 ["optimal-ldp", "--domain", "5", "--epsilon", "-1"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2
