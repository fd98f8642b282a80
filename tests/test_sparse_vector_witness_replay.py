"""A private sparse-vector verdict's bracket witness carries a replay record (its relation is the
mechanism's own ALL_DIFFER box), and the record re-checks from the file alone — and fails when altered."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from dpexact.cli.main import app

runner = CliRunner()


def _verify(tmp_path, *extra):
    out = tmp_path / "svt1.json"
    r = runner.invoke(app, ["verify", "-m", "svt1", "-e", "1/10", "-p", "threshold=1", "--n", "3", *extra, "-o", str(out)])
    assert r.exit_code == 0, r.output  # private: exit 0
    return out, json.loads(out.read_text())


def test_private_witness_replays(tmp_path):
    out, d = _verify(tmp_path, "--relation", "all-differ")
    rec = d["replay"]
    assert rec["kind"] == "witness" and rec["neighbourhood"]["relation"] == "box" and rec["output"] == "FFT"
    assert rec["scores"] == d["epsilon_bracket"]["lower"]["scores"]
    r = runner.invoke(app, ["replay", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["holds"] is True


def test_altered_witness_fails(tmp_path):
    out, d = _verify(tmp_path, "--relation", "all-differ")
    for key, value in (("lower", "0.0751"), ("neighbour_scores", ["643", "642", "-640"])):
        bad = json.loads(json.dumps(d))
        bad["replay"][key] = value
        bad["epsilon_bracket"]["lower"][key] = value
        if key == "lower":
            bad["epsilon_bracket"]["lower"]["lower_float"] = float(value)
        f = tmp_path / f"bad_{key}.json"
        f.write_text(json.dumps(bad))
        r = runner.invoke(app, ["replay", str(f), "--json"])
        assert r.exit_code == 1, (key, r.output)  # re-checked and refuted (not refused as malformed: exit 2)
        assert json.loads(r.stdout)["holds"] is False
