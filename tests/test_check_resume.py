"""``dpexact check --resume`` continues an interrupted run from ``FILE.partial``: the finished
claims are kept (checked against the catalogue, never re-run), the rest run; a partial of another
catalogue or scope is refused. The interrupted run prints the command that resumes it."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from dpexact.cli.main import app

REPO = Path(__file__).resolve().parents[1]

CATALOGUE = '''
import os
from pathlib import Path
from proofs_checks import Verdict, claim

def _ran(tag):
    with open(os.environ["RESUME_LOG"], "a") as f:
        f.write(tag + "\\n")

@claim("resume.theorem.1", "one plus one is two", "T1", expected="holds")
def t1(quick):
    _ran("t1")
    return Verdict("holds" if 1 + 1 == 2 else "refuted", True, "exact", {"sum": 1 + 1})

@claim("resume.theorem.2", "two is even", "T2", expected="holds")
def t2(quick):
    _ran("t2")
    if os.environ.get("RESUME_STOP") == "t2":
        raise KeyboardInterrupt
    return Verdict("holds" if 2 % 2 == 0 else "refuted", True, "exact", {"rem": 2 % 2})

@claim("resume.theorem.3", "three is odd", "T3", expected="holds")
def t3(quick):
    _ran("t3")
    return Verdict("holds" if 3 % 2 == 1 else "refuted", True, "exact", {"rem": 3 % 2})
'''


def _setup(tmp_path, monkeypatch, paper="resume"):
    """The catalogue under its own paper name (claim ids are registered once per process)."""
    cat = tmp_path / f"{paper}_resume.py"
    cat.write_text(CATALOGUE.replace('"resume.', f'"{paper}.'))
    log = tmp_path / "ran.txt"
    monkeypatch.setenv("RESUME_LOG", str(log))
    return cat, log


def test_interrupted_check_prints_its_resume_line_and_resume_runs_only_the_rest(tmp_path, monkeypatch):
    cat, log = _setup(tmp_path, monkeypatch)
    out = tmp_path / "claims.json"
    env = {**os.environ, "RESUME_STOP": "t2", "PYTHONPATH": str(REPO)}
    args = ["check", "--catalogue", str(cat), "--output", str(out), "--fail-on", "refutation"]
    r = subprocess.run([sys.executable, "-m", "dpexact", *args], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 130, r.stderr
    partial = Path(str(out) + ".partial")
    saved = json.loads(partial.read_text())
    assert [c["id"] for c in saved["claims"]] == ["resume.theorem.1"] and not out.exists()
    line = r.stderr.split("resume with:\n")[1].splitlines()[0].strip()
    assert shlex.split(line) == ["dpexact", *args, "--resume"]  # the user's flags, repeated
    log.write_text("")
    r = CliRunner().invoke(app, shlex.split(line)[1:])
    assert r.exit_code == 0, r.output
    assert log.read_text().split() == ["t2", "t3"]  # t1 was kept, not run again
    final = json.loads(out.read_text())
    assert final["complete"] and [c["id"] for c in final["claims"]] == ["resume.theorem.1", "resume.theorem.2", "resume.theorem.3"]
    assert final["claims"][0]["evidence"] == {"sum": 2} and not partial.exists()


def _partial(tmp_path, out, cat, **change):
    """A complete run's document saved as FILE.partial with its last claim dropped (and ``change`` applied)."""
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--output", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    doc["claims"] = doc["claims"][:2]
    doc["complete"] = False
    doc.update(change)
    Path(str(out) + ".partial").write_text(json.dumps(doc))
    return doc


def test_resume_refuses_another_scope_or_catalogue(tmp_path, monkeypatch):
    cat, log = _setup(tmp_path, monkeypatch, "resa")
    out = tmp_path / "c.json"
    _partial(tmp_path, out, cat, quick=True)
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--output", str(out), "--resume"])
    assert r.exit_code == 2 and "--resume: the saved run used --quick" in r.stderr
    doc = _partial(tmp_path, out, cat)
    doc["claims"][0]["statement"] = "one plus one is three"
    Path(str(out) + ".partial").write_text(json.dumps(doc))
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--output", str(out), "--resume"])
    assert r.exit_code == 2 and "stated differently" in r.stderr
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--claim", "resa.theorem.3", "--output", str(out), "--resume"])
    assert r.exit_code == 2 and "not in this catalogue selection" in r.stderr
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--resume"])
    assert r.exit_code == 2 and "--output" in r.stderr
    Path(str(out) + ".partial").unlink()
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--output", str(out), "--resume"])
    assert r.exit_code == 2 and "does not exist" in r.stderr


def test_resume_keeps_the_saved_verdicts(tmp_path, monkeypatch):
    cat, log = _setup(tmp_path, monkeypatch, "resb")
    out = tmp_path / "c.json"
    _partial(tmp_path, out, cat)
    log.write_text("")
    r = CliRunner().invoke(app, ["check", "--catalogue", str(cat), "--output", str(out), "--resume"])
    assert r.exit_code == 0 and log.read_text().split() == ["t3"] and "resuming: 2 of 3 claims kept" in r.stderr
