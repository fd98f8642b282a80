"""``dpexact check`` results survive faults: output paths are checked before any claim runs; the
running results go to ``FILE.partial`` beside ``--output FILE`` (rewritten atomically as claims
finish) and replace ``FILE`` only once complete, so a failed write or Ctrl-C leaves the previous
complete ``FILE`` untouched and the last good partial file beside it, never truncated JSON."""

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

import dpexact.io
from dpexact.cli.main import app

CLAIMS = ["pf.figure.1", "adp.text.voting-example-46", "pf.lemma.7", "err.theorem.1"]
ARGS = ["check", "--quick"] + [a for c in CLAIMS for a in ("--claim", c)]


def test_unwritable_output_fails_before_any_claim_runs(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    ran = []
    import proofs_checks.catalogue as cat

    monkeypatch.setattr(cat, "run_claim", lambda c, quick=False: ran.append(c.id))
    for opt in ("--output", "--report"):
        target = blocker / "out.json" if opt == "--output" else blocker / "rep"
        r = CliRunner().invoke(app, ARGS + [opt, str(target)])
        assert r.exit_code == 2 and opt in r.output and "Traceback" not in r.output
    assert ran == [] and blocker.read_text() == "x"


def test_a_failing_write_keeps_the_previous_file_and_the_last_partial_one(tmp_path, monkeypatch):
    out = tmp_path / "claims.json"
    previous = json.dumps({"complete": True, "claims": [], "old": True})  # a previous complete run
    out.write_text(previous)
    real = dpexact.io.atomic_write_json
    calls = []

    def flaky(path, obj, **kw):  # the disk fills up after two writes
        calls.append(obj["claims_done"])
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, obj, **kw)

    monkeypatch.setattr(dpexact.io, "atomic_write_json", flaky)
    monkeypatch.setattr("dpexact.cli.check.WRITE_INTERVAL", 0.0)  # rewrite after every claim
    r = CliRunner().invoke(app, ARGS + ["--output", str(out)])
    assert r.exit_code == 1 and "No space left on device" in r.output and "Traceback" not in r.output
    assert f"{out} is unchanged" in r.output
    assert out.read_text() == previous  # the previous complete result is kept
    doc = json.loads((tmp_path / "claims.json.partial").read_text())  # valid JSON: the last good write
    assert doc["complete"] is False and "old" not in doc
    assert doc["claims_done"] == calls[1] == 1 and doc["claims_total"] == len(CLAIMS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.json", "claims.json.partial"]  # no temporary file


def test_the_first_write_failing_leaves_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "claims.json"
    previous = json.dumps({"complete": True, "claims": [], "old": True})
    out.write_text(previous)

    def broken(path, obj, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dpexact.io, "atomic_write_json", broken)
    r = CliRunner().invoke(app, ARGS + ["--output", str(out)])
    assert r.exit_code == 1 and f"{out} is unchanged" in r.output
    assert out.read_text() == previous
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def test_the_previous_file_is_replaced_only_when_the_new_one_is_complete(tmp_path, monkeypatch):
    out = tmp_path / "claims.json"
    previous = json.dumps({"complete": True, "claims": [], "old": True})
    out.write_text(previous)
    real = dpexact.io.atomic_write_json
    seen = []

    def spy(path, obj, **kw):  # what the target holds at every write of this run
        seen.append((Path(path).name, obj["complete"], out.read_text() == previous))
        return real(path, obj, **kw)

    monkeypatch.setattr(dpexact.io, "atomic_write_json", spy)
    monkeypatch.setattr("dpexact.cli.check.WRITE_INTERVAL", 0.0)
    r = CliRunner().invoke(app, ARGS + ["--output", str(out)])
    assert r.exit_code == 0, r.output
    assert all(name == "claims.json.partial" and not complete and kept for name, complete, kept in seen[:-1])
    assert seen[-1] == ("claims.json", True, True)  # the one write to the target: complete
    doc = json.loads(out.read_text())
    assert doc["complete"] is True and doc["claims_done"] == len(CLAIMS) and "old" not in doc
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]  # the running file is removed


def test_sigint_keeps_the_previous_file_and_a_partial_one(tmp_path):
    out = tmp_path / "claims.json"
    previous = json.dumps({"complete": True, "claims": [], "old": True})
    out.write_text(previous)
    running = tmp_path / "claims.json.partial"
    env = {**os.environ, "COLUMNS": "80"}
    # full scope: long enough that the interrupt lands mid-run on a fast machine (it comes after 2 saved claims)
    proc = subprocess.Popen([sys.executable, "-m", "dpexact", "check", "--paper", "pf", "--output", str(out)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a shell that runs the suite in the background ignores SIGINT, and children inherit
                            # that; the run under test must see Ctrl-C as a terminal user's process does
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 600  # a loaded machine can take minutes to import and run two claims
    started = False
    while time.monotonic() < deadline and proc.poll() is None:  # wait for the first claims to be saved
        try:
            doc = json.loads(running.read_text())
            if doc.get("claims_done", 0) >= 2 and doc.get("complete") is False:
                started = True
                break
        except (ValueError, OSError):
            pass
        time.sleep(0.1)
    assert started, "the check run saved no claims before the deadline; the interrupt would test nothing"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted after" in err and "Traceback" not in err and f"{out} is unchanged" in " ".join(err.split())
    assert out.read_text() == previous
    doc = json.loads(running.read_text())
    assert doc["complete"] is False and doc.get("interrupted") is True and "old" not in doc
    assert 2 <= doc["claims_done"] < doc["claims_total"] and len(doc["claims"]) == doc["claims_done"]
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["claims.json", "claims.json.partial"]
