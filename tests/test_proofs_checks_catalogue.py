"""The claim framework (proofs_checks.catalogue) and the ``dpexact check`` command."""

import json
import re

import pytest
from typer.testing import CliRunner

import proofs_checks.catalogue as cat
from dpexact.cli.main import app

CLAIM_KEYS = {"id", "paper", "location", "statement", "verdict", "expected", "severity", "explanation", "certified", "crashed",
              "scope", "evidence", "seconds"}


def test_every_paper_module_loads_and_ids_are_well_formed():
    claims = cat.catalogue()
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    assert {c.paper for c in claims} == set(cat.PAPERS)
    pattern = re.compile(r"^(pf|adp|err|brr|hetsel)\.(theorem|lemma|proposition|corollary|remark|equation|figure|algorithm|appendix|text)\.[0-9a-z.-]+$")
    assert all(pattern.match(i) for i in ids)
    # the pf claims the issue lists explicitly
    for needed in ("pf.proposition.1", "pf.theorem.1", "pf.proposition.2", "pf.proposition.3", "pf.theorem.2", "pf.corollary.1",
                   "pf.proposition.4", "pf.proposition.5", "pf.proposition.6", "pf.theorem.3", "pf.figure.2", "pf.lemma.1",
                   "pf.lemma.7", "pf.remark.1", "pf.text.hepth-mode-ratio", "pf.figure.4", "adp.theorem.2", "adp.theorem.3"):
        assert needed in ids


def test_select_by_prefix_and_unknown_id():
    assert {c.id for c in cat.select(["pf"], ["pf.lemma.*"])} == {f"pf.lemma.{k}" for k in range(1, 8)}
    with pytest.raises(ValueError, match="claim"):
        cat.select(None, ["pf.theorem.99"])
    with pytest.raises(ValueError, match="paper"):
        cat.select(["nope"], None)


def test_bad_claims_and_verdicts_are_rejected():
    with pytest.raises(ValueError, match="verdict"):
        cat.Verdict("maybe", True, "", {})
    with pytest.raises(TypeError, match="certified"):
        cat.Verdict("holds", 1, "", {})
    with pytest.raises(ValueError, match="claim id"):
        cat.Claim("pf.thm.1", "pf", "x", "y", lambda q: None)
    with pytest.raises(ValueError, match="paper"):
        cat.Claim("pf.theorem.1", "adp", "x", "y", lambda q: None)


def _boom(quick):
    raise RuntimeError("boom")


def test_a_crashing_check_is_reported_and_the_run_continues():
    crash = cat.Claim("pf.text.crash-test", "pf", "crashes", "nowhere", _boom)
    ok = cat.Claim("pf.text.ok-test", "pf", "fine", "nowhere", lambda q: cat.Verdict("holds", True, "s", {"x": 1.5}))
    out = cat.run_checks([crash, ok])
    assert [o.crashed for o in out] == [True, False]
    assert out[0].verdict.verdict == "inconclusive" and "boom" in out[0].verdict.evidence["crash"]
    doc = cat.to_json(out, "0")
    assert set(doc) == {"claims", "dpexact_version", "complete", "quick", "claims_total", "claims_done"}
    assert set(doc["claims"][0]) == CLAIM_KEYS
    assert doc["claims"][1]["evidence"] == {"x": 1.5}


def test_cli_check_writes_json_and_report(tmp_path):
    rep = tmp_path / "rep"
    js = rep / "claims.json"  # the README's form: the JSON goes into the report folder, not yet created
    r = CliRunner().invoke(app, ["check", "--claim", "pf.lemma.7", "--claim", "adp.text.voting-example-46",
                                 "--claim", "pf.figure.1", "--quick", "--json", str(js), "--report", str(rep)])
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    assert [c["id"] for c in doc["claims"]] == ["pf.figure.1", "pf.lemma.7", "adp.text.voting-example-46"]
    for c in doc["claims"]:
        assert set(c) == CLAIM_KEYS
        assert c["verdict"] in ("holds", "refuted", "inconclusive") and isinstance(c["certified"], bool) and isinstance(c["seconds"], float)
    md = (rep / "report.md").read_text()
    assert "pf.lemma.7" in md and (rep / "pf_figure_1.png").stat().st_size > 1000


def test_cli_check_exit_status_is_nonzero_only_on_crash(monkeypatch):
    r = CliRunner().invoke(app, ["check", "--quick", "--claim", "pf.text.hepth-mode-ratio"])
    assert r.exit_code == 0 and "refuted" in r.output  # a refuted claim is not a failure
    crash = cat.Claim("pf.text.crash-test", "pf", "crashes", "nowhere", _boom)
    real_select = cat.select
    monkeypatch.setattr(cat, "select", lambda papers, ids: real_select(["adp"], ["adp.text.voting-example-46"]) + [crash])
    r = CliRunner().invoke(app, ["check"])
    assert r.exit_code == 1
    assert "pf.text.crash-test" in r.output


def test_cli_check_unknown_claim_is_a_usage_error():
    r = CliRunner().invoke(app, ["check", "--claim", "pf.theorem.42"])
    assert r.exit_code == 2
