"""``dpexact account``: the JSON contract (validated against its schema), exact answers, one-line refusals."""

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.schemas import validate

RR = '[[event]]\nkind = "randomized-response"\nepsilon = "log(3)"\ncount = 200\n'


def run(args):
    return CliRunner().invoke(app, args)


@pytest.fixture()
def rr(tmp_path):
    p = tmp_path / "rr.toml"
    p.write_text(RR)
    return p


def test_delta_for_epsilon_json_is_exact_and_valid(rr, tmp_path):
    out = tmp_path / "out.json"
    r = run(["account", str(rr), "-e", "199*log(3)", "--json", "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    validate("account", doc)
    assert doc == json.loads(out.read_text())
    # independent: only the all-correct outcome (ratio 3^200) exceeds e^ε = 3^199
    want = Fraction(3, 4) ** 200 * (1 - Fraction(1, 3))
    assert Fraction(doc["delta_exact"]) == want
    assert doc["delta"]["lower"] <= float(want) <= doc["delta"]["upper"]
    assert doc["command"] == "account" and doc["route"] == "exact"


def test_epsilon_for_delta_json_from_a_json_spec(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps([{"kind": "gaussian", "sigma": "2", "count": 4}, {"kind": "gaussian", "sigma": "1"}]))
    r = run(["account", str(spec), "-d", "1e-5", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    validate("account", doc)
    e = doc["epsilon"]
    assert e["lower"] <= e["upper"] and e["upper"] - e["lower"] < 1e-9


def test_infinite_epsilon_has_a_null_upper_end(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('[[event]]\nkind = "pmf-pair"\np = ["1/2", "1/2"]\nq = ["1", "0"]\n')
    doc = json.loads(run(["account", str(spec), "-d", "1/4", "--json"]).stdout)
    validate("account", doc)
    assert doc["epsilon"]["upper"] is None and doc["epsilon_exact"] == "inf"


@pytest.mark.parametrize("body, where", [
    ('[[event]]\nkind = "gaussian"\nsigma = "-1"\n', "sigma"),
    ('[[event]]\nkind = "gaussian"\nsigma = "1"\npoisson = "0"\n', "poisson"),
    ('[[event]]\nkind = "gaussian"\nsigma = "1"\npoisson = "3/2"\n', "poisson"),
    ('', "no events"),
    ('[[event]]\nkind = "gaussian"\nsigma = "1"\ncount = 1000000000\n', "count"),
    ('[[event]]\nkind = "pmf-pair"\np = ["1"]\nq = ["1"]\nwithout_replacement = "1/2"\n', "without_replacement"),
    ('[[event]]\nkind = "gaussian"\n', "sigma"),
    ('[[event]\n', "TOML"),
])
def test_bad_specs_exit_2_with_one_line(tmp_path, body, where):
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    r = run(["account", str(spec), "-e", "1"])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and where in lines[0]


def test_bad_options_exit_2(rr):
    assert run(["account", str(rr)]).exit_code == 2
    assert run(["account", str(rr), "-e", "1", "-d", "1e-5"]).exit_code == 2
    assert run(["account", str(rr), "-e", "1", "--tolerance", "2"]).exit_code == 2
    assert run(["account", str(rr), "-e", "1", "--direction", "sideways"]).exit_code == 2
    assert run(["account", str(rr), "-d", "0"]).exit_code == 2
    assert run(["account", str(rr) + ".missing", "-e", "1"]).exit_code == 2


def test_cost_guard_refuses_with_its_estimate(tmp_path):
    spec = tmp_path / "big.toml"
    spec.write_text('[[event]]\nkind = "gaussian"\nsigma = "1/20"\npoisson = "1/2"\ncount = 1000\n')
    r = run(["account", str(spec), "-e", "1", "--max-seconds", "0.01"])
    assert r.exit_code == 2, r.output
    assert "estimated" in r.output and len(r.output.strip().splitlines()) == 1
