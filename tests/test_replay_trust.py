"""``dpexact replay FILE``: a record is data. It never imports what it names, the ε it prints is the ε
it checked, the evidence a reader sees is the evidence replayed, its text never drives a terminal,
and its size is bounded before any work (dpexact.verification.replay_record, dpexact.io.read_json_bounded)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.schemas import validate
from dpexact.verification.replay_record import printable

runner = CliRunner()


def run(args):
    return runner.invoke(app, args)


def one_line_usage(r, *fragments):
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.output and r.stdout == ""
    for f in fragments:
        assert f in r.stderr, r.stderr


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A witness document (EM, private) and a counterexample document (EM monotone on a box: violated)."""
    d = tmp_path_factory.mktemp("saved")
    assert run(["verify", "-m", "em", "-e", "1", "--n", "3", "-o", str(d / "em.json")]).exit_code == 0
    assert run(["verify", "-m", "em", "-e", "1", "--monotone", "--neighbourhood", "box", "-o", str(d / "cx.json")]).exit_code == 1
    return {name: json.loads((d / f"{name}.json").read_text()) for name in ("em", "cx")}


CANARY_CODE = "import pathlib\npathlib.Path(__file__).with_name('CANARY').write_text('ran')\nX = 1\n"


@pytest.mark.parametrize("name", ["x.py:X", "{abs}:X", "this:s", "venv.__main__:X", "os:system", "antigravity:fly",
                                  "x.py:EM"])
def test_a_record_never_imports_what_it_names(tmp_path, monkeypatch, saved, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text(CANARY_CODE)
    rec = dict(saved["em"]["replay"], mechanism=name.format(abs=tmp_path / "x.py"))
    (tmp_path / "r.json").write_text(json.dumps(rec))
    r = run(["replay", "r.json", "--json"])
    one_line_usage(r, "not a registry mechanism", "-m PATH.py:OBJECT")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "x.py"]  # no canary, no venv directory


def test_a_user_mechanism_replays_only_from_the_users_own_m(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("import dpexact\nEM = dpexact.mechanism('em', epsilon=1)\n")
    assert run(["verify", "-m", "mine.py:EM", "-e", "1", "--n", "3", "-o", "u.json"]).exit_code in (0, 3)
    rec = json.loads((tmp_path / "u.json").read_text())["replay"]
    # the name as given (no absolute path to run on someone else's machine) and the file's digest
    import hashlib

    assert rec["mechanism"] == "mine.py:EM"
    assert rec["mechanism_sha256"] == hashlib.sha256((tmp_path / "mine.py").read_bytes()).hexdigest()
    one_line_usage(run(["replay", "u.json"]), "not a registry mechanism")
    ok = run(["replay", "u.json", "-m", "mine.py:EM", "--json"])
    assert ok.exit_code == 0, ok.output
    d = json.loads(ok.stdout)
    validate("replay", d)
    assert d["mechanism"] == "mine.py:EM" and d["epsilon"] == "1"
    one_line_usage(run(["replay", "u.json", "-m", "mine.py:Other"]), "object 'Other'")
    one_line_usage(run(["replay", "u.json", "-m", "em"]), "not the mechanism the record names")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.py").write_text("import dpexact\nEM = dpexact.mechanism('em', epsilon=2)\n")
    one_line_usage(run(["replay", "u.json", "-m", "sub/mine.py:EM"]), "SHA-256 differs")
    (tmp_path / "sub" / "other.py").write_text((tmp_path / "mine.py").read_text())
    one_line_usage(run(["replay", "u.json", "-m", "sub/other.py:EM"]), "names file 'other.py'")


def test_the_epsilon_printed_is_the_epsilon_checked(tmp_path, saved):
    doc = saved["cx"]
    # the reproducer: replay.epsilon relabelled "100" while the mechanism states ε = 1
    for bad in ({**doc, "replay": dict(doc["replay"], epsilon="100")}, dict(doc["replay"], epsilon="100"),
                {**doc, "epsilon": "100", "replay": dict(doc["replay"], epsilon="100")}):
        (tmp_path / "e.json").write_text(json.dumps(bad))
        one_line_usage(run(["replay", str(tmp_path / "e.json")]), "epsilon")
    # relabelled consistently with its params: the check runs at ε = 100, and says so
    rec = dict(doc["replay"], epsilon="100", params=dict(doc["replay"]["params"], epsilon="100"))
    (tmp_path / "e.json").write_text(json.dumps(rec))
    r = run(["replay", str(tmp_path / "e.json"), "--json"])
    d = json.loads(r.stdout)
    assert d["epsilon"] == "100" and r.exit_code == (0 if d["holds"] else 1)
    assert d["holds"] == (d["log_ratio"][0] > 100)
    # the original: ε = 1 printed, the log-ratio above it (EM monotone on a box violates ε = 1)
    (tmp_path / "ok.json").write_text(json.dumps(doc))
    r = run(["replay", str(tmp_path / "ok.json"), "--json"])
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["epsilon"] == "1" and d["log_ratio"][0] > 1


@pytest.mark.parametrize("block, key, value", [
    ("counterexample", "scores", ["9", "9"]),
    ("counterexample", "output", 1),
    ("counterexample", "neighbour_scores", ["0"]),
    ("top", "mechanism", "pf"),
    ("top", "counterexample", None),
])
def test_the_visible_counterexample_is_the_replayed_one(tmp_path, saved, block, key, value):
    doc = json.loads(json.dumps(saved["cx"]))
    if block == "top":
        doc[key] = value
    else:
        doc[block][key] = value
    (tmp_path / "t.json").write_text(json.dumps(doc))
    one_line_usage(run(["replay", str(tmp_path / "t.json")]), "refused")


def test_a_witness_document_agrees_with_its_bracket(tmp_path, saved):
    doc = json.loads(json.dumps(saved["em"]))
    doc["epsilon_bracket"]["lower"]["lower"] = "0.5"
    (tmp_path / "w.json").write_text(json.dumps(doc))
    one_line_usage(run(["replay", str(tmp_path / "w.json")]), "epsilon_bracket.lower", "'lower'")
    doc = json.loads(json.dumps(saved["em"]))
    doc["counterexample"] = saved["cx"]["counterexample"]  # shows a counterexample, replays a witness
    (tmp_path / "w.json").write_text(json.dumps(doc))
    one_line_usage(run(["replay", str(tmp_path / "w.json")]), "refused")
    for other in ({"schema_version": "1.0", "command": "pmf", "replay": saved["em"]["replay"]},
                  dict(saved["em"]["replay"], counterexample={"scores": ["0"]})):  # a bare record's extra block
        (tmp_path / "o.json").write_text(json.dumps(other))
        one_line_usage(run(["replay", str(tmp_path / "o.json")]))


def test_record_text_is_escaped_for_terminals(tmp_path, saved):
    assert printable("a\x1b[2J\x07b\u202ec\nd") == "a\\x1b[2J\\x07b\\u202ec\\x0ad"
    for rec in (dict(saved["em"]["replay"], output="\x1b[2J\x1b[Hgone"),
                dict(saved["em"]["replay"], mechanism="\x1b]0;title\x07x:y"),
                dict(saved["em"]["replay"], **{"\x1b[31mkey": 1}),
                dict(saved["em"]["replay"], neighbourhood={"relation": "\x1b[2Jbox"})):
        (tmp_path / "\x1b[1mesc.json").write_text(json.dumps(rec))
        r = run(["replay", str(tmp_path / "\x1b[1mesc.json")])
        assert r.exit_code == 2 and "\x1b" not in r.output and "\\x1b" in r.stderr, r.output


@pytest.mark.parametrize("change", [{"lower": math.nan}, {"lower": math.inf}, {"scores": ["0", "64", -math.inf]},
                                    {"note": "x"}, {"params": {"epsilon": "1", "x": [1]}}])
def test_json_output_never_echoes_nan_or_unknown_keys(tmp_path, saved, change):
    (tmp_path / "n.json").write_text(json.dumps(dict(saved["em"]["replay"], **change)))
    r = run(["replay", str(tmp_path / "n.json"), "--json"])
    one_line_usage(r)


def test_json_output_follows_its_closed_schema(tmp_path, saved):
    (tmp_path / "cx.json").write_text(json.dumps(saved["cx"]))
    d = json.loads(run(["replay", str(tmp_path / "cx.json"), "--json"]).stdout)
    validate("replay", d)
    assert d["neighbourhood"] == {"relation": "box", "sensitivity": "1", "sensitivities": None}
    with pytest.raises(ValueError, match="Additional properties"):
        validate("replay", {**d, "extra": 1})


def test_evidence_of_the_wrong_kind_is_a_usage_error(tmp_path, saved):
    # a selection counterexample replayed against a continuous mechanism (was AttributeError, exit 1)
    rec = dict(saved["cx"]["replay"], mechanism="laplace", params={"epsilon": "1"})
    (tmp_path / "k.json").write_text(json.dumps(rec))
    one_line_usage(run(["replay", str(tmp_path / "k.json")]), "does not fit this mechanism")
    rec = dict(saved["em"]["replay"], evidence="interval", interval=["0", "1"])
    (tmp_path / "k.json").write_text(json.dumps(rec))
    one_line_usage(run(["replay", str(tmp_path / "k.json")]))


def test_sizes_and_nesting_are_bounded_before_work(tmp_path, saved):
    for depth in (101, 1000, 40_000):
        (tmp_path / "deep.json").write_text("[" * depth + "]" * depth)
        one_line_usage(run(["replay", str(tmp_path / "deep.json")]), "nested deeper")
        r = run(["schema", "verify", "--validate", str(tmp_path / "deep.json")])
        assert r.exit_code == 2 and "nested deeper" in r.stderr and "RecursionError" not in r.output
    (tmp_path / "wide.json").write_text(json.dumps(dict(saved["em"]["replay"], scores=["0"] * 5000)))
    one_line_usage(run(["replay", str(tmp_path / "wide.json")]), "at most 4096")
    (tmp_path / "many.json").write_text("[" + ",".join(["1"] * 4_000_000) + "]")  # 8 MB: ~60 s of validation
    r = run(["schema", "verify", "--validate", str(tmp_path / "many.json")])
    assert r.exit_code == 2 and "JSON values" in r.stderr and "budget" in r.stderr
    one_line_usage(run(["replay", "a" * 5000 + ".json"]), "FILE")
    one_line_usage(run(["replay", str(tmp_path / "many.json")]), "larger than")
