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
                                 "--claim", "pf.figure.1", "--quick", "--output", str(js), "--report", str(rep)])
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    assert doc["complete"] is True and doc["claims_done"] == doc["claims_total"] == 3
    assert [c["id"] for c in doc["claims"]] == ["pf.figure.1", "pf.lemma.7", "adp.text.voting-example-46"]
    for c in doc["claims"]:
        assert set(c) == CLAIM_KEYS
        assert c["verdict"] in ("holds", "refuted", "inconclusive") and isinstance(c["certified"], bool) and isinstance(c["seconds"], float)
    md = (rep / "report.md").read_text()
    assert "pf.lemma.7" in md and (rep / "pf_figure_1.png").stat().st_size > 1000


def test_cli_check_json_goes_to_stdout():
    r = CliRunner().invoke(app, ["check", "--quick", "--claim", "pf.figure.1", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["complete"] and [c["id"] for c in doc["claims"]] == ["pf.figure.1"]


REFUTED = ["adp.text.gaussian-vs-laplace-variance", "err.theorem.1", "hetsel.text.gem-favours-best-more-than-rnm", "pf.text.hepth-mode-ratio"]


def test_cli_check_summary_leads_with_findings_at_80_columns():
    r = CliRunner().invoke(app, ["check", "--quick", "--claim", "pf.figure.1"] + [a for c in REFUTED for a in ("--claim", c)],
                           env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    head = lines[1].split()
    assert head[:5] == ["paper", "claims", "holds", "inconcl.", "refuted"] and "false" in head
    total = next(line.split() for line in lines if line.startswith("total"))
    assert total[1:5] == ["5", "1", "0", "4"]
    text = r.stdout
    # most serious first: err.theorem.1 (false-statement) before pf.text.hepth-mode-ratio (wrong-number)
    assert text.index("refuted, false-statement") < text.index("err.theorem.1") < text.index("refuted, wrong-number") < text.index(
        "pf.text.hepth-mode-ratio")
    assert "input: q=[5, 3, 1]" in text  # err Theorem 1's paper example, the smallest reproducing input
    assert "pf.figure.1" not in text  # holding claims are not listed by default


def test_cli_check_filters_and_literal_text():
    ids = [a for c in REFUTED for a in ("--claim", c)]
    r = CliRunner().invoke(app, ["check", "--quick", "--severity", "wrong-number", "--all"] + ids, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    listed = r.stdout.split("refuted, wrong-number")[1]
    assert "pf.text.hepth-mode-ratio" in listed and "err.theorem.1:" not in listed
    r = CliRunner().invoke(app, ["check", "--quick", "--all", "--claim", "hetsel.text.gem-favours-best-more-than-rnm"], env={"COLUMNS": "200"})
    assert "Pr_GEM[out 1]" in r.stdout  # bracketed evidence printed literally, not eaten as rich markup
    r = CliRunner().invoke(app, ["check", "--severity", "typo"])
    assert r.exit_code == 2 and "--severity" in r.output


def test_cli_help_and_version():
    r = CliRunner().invoke(app, ["optimal", "-h"], env={"COLUMNS": "80"})
    assert r.exit_code == 0 and "dpexact[hipo]" in r.stdout
    r = CliRunner().invoke(app, ["--version"])
    from dpexact import __version__

    assert r.exit_code == 0 and r.stdout.strip() == __version__


def test_cli_check_exit_status_is_nonzero_only_on_crash(monkeypatch):
    r = CliRunner().invoke(app, ["check", "--quick", "--claim", "pf.text.hepth-mode-ratio"])
    assert r.exit_code == 0 and "refuted" in r.output  # a refuted claim is not a failure
    crash = cat.Claim("pf.text.crash-test", "pf", "crashes", "nowhere", _boom)
    real_select = cat.select
    monkeypatch.setattr(cat, "select", lambda papers, ids, claims=None: real_select(["adp"], ["adp.text.voting-example-46"]) + [crash])
    r = CliRunner().invoke(app, ["check"])
    assert r.exit_code == 1
    assert "pf.text.crash-test" in r.output


def test_cli_check_unknown_claim_is_a_usage_error():
    r = CliRunner().invoke(app, ["check", "--claim", "pf.theorem.42"])
    assert r.exit_code == 2


def test_readme_own_catalogue_example(tmp_path):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "docs" / "claims.md").read_text()
    block = readme.split("run `dpexact check --catalogue my_claims.py`:", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) <= 10
    (tmp_path / "my_claims.py").write_text(block)
    r = CliRunner().invoke(app, ["check", "--catalogue", str(tmp_path / "my_claims.py"), "--quick", "--json"])
    assert r.exit_code == 0, r.output
    (c,) = json.loads(r.stdout)["claims"]
    assert (c["id"], c["verdict"], c["expected"], c["evidence"]) == ("mine.theorem.1", "holds", "holds", {"Pr[best]": "217/324"})
    r = CliRunner().invoke(app, ["check", "--catalogue", str(tmp_path / "nothing.py")])
    assert r.exit_code == 2 and "catalogue" in r.output


def test_readme_quickstart_matches_ci():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    ci = [line for line in (root / ".ci" / "run").read_text().splitlines() if line.startswith("dpexact check")]
    assert len(ci) == 1
    command = ci[0].split(" > ")[0]
    assert f"&& {command}\n" in readme and "--output" in command


def test_tampered_or_missing_dpbench_data_make_claims_inconclusive(tmp_path, monkeypatch, dpbench_path):
    import shutil

    import numpy as np

    for f in dpbench_path.iterdir():
        shutil.copy(f, tmp_path / f.name)
    hepth = tmp_path / "HEPTH.n4096.npy"
    x = np.load(hepth)
    x[0] += 5000  # changes the reported ratio from 1.5656 to 2.0 when trusted
    hepth.chmod(0o644)
    np.save(hepth, x)
    (tmp_path / "ADULTFRANK.n4096.npy").unlink()
    from claim_runs import clear_catalogue_caches

    monkeypatch.setenv("DPEXACT_DPBENCH", str(tmp_path))
    clear_catalogue_caches()
    tampered = cat.run_claim(cat.select(None, ["pf.text.hepth-mode-ratio"])[0], quick=True)
    assert not tampered.crashed and tampered.verdict.verdict == "inconclusive" and not tampered.verdict.certified
    assert "HEPTH.n4096.npy" in tampered.verdict.evidence["reason"]
    hepth.unlink()
    shutil.copy(dpbench_path / hepth.name, hepth)
    clear_catalogue_caches()
    missing = cat.run_claim(cat.select(None, ["err.figure.11"])[0], quick=True)
    assert not missing.crashed and missing.verdict.verdict == "inconclusive" and not missing.verdict.certified
    assert "ADULTFRANK" in missing.verdict.evidence["reason"]
    monkeypatch.undo()
    clear_catalogue_caches()  # later tests see the real data again
