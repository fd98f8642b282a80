"""Output paths and resumed runs: ``-o`` in a missing directory is refused (no tree created), ``-o FIFO``
with no reader fails after a short wait, and a killed writer's temporary file is removed on resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

import dpexact.io as dio
from dpexact.cli.main import app
from dpexact.sweep import ResultStore

runner = CliRunner()


def test_output_in_a_missing_directory_is_refused_before_work(tmp_path):
    r = runner.invoke(app, ["pmf", "-m", "pf", "-e", "1", "-q", "1,0", "-o", str(tmp_path / "no" / "such" / "out.json")])
    assert r.exit_code == 2 and r.stderr.startswith("error: --output") and "does not exist" in r.stderr, r.output
    assert not (tmp_path / "no").exists()


def test_output_to_a_fifo_without_reader_fails_after_a_short_wait(tmp_path, monkeypatch):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    monkeypatch.setattr(dio, "FIFO_WAIT_SECONDS", 0.5)
    t0 = time.monotonic()
    r = runner.invoke(app, ["pmf", "-m", "pf", "-e", "1", "-q", "1,0", "-o", str(fifo)])
    assert time.monotonic() - t0 < 30
    assert r.exit_code == 1 and "no reader" in r.stderr and "Traceback" not in r.output, r.output
    # with a reader, the result arrives through it
    reader = subprocess.Popen([sys.executable, "-c", f"import sys; sys.stdout.write(open({str(fifo)!r}).read())"],
                              stdout=subprocess.PIPE, text=True)
    r = runner.invoke(app, ["pmf", "-m", "pf", "-e", "1", "-q", "1,0", "-o", str(fifo)])
    out, _ = reader.communicate(timeout=30)
    assert r.exit_code == 0 and '"command": "pmf"' in out


def test_a_killed_writers_temporary_file_is_removed_on_resume(tmp_path):
    store = ResultStore(tmp_path / "store")
    # a writer killed with SIGKILL mid-write: its temporary file, named with its process id, stays behind
    code = ("import os, sys, time; open(os.path.join(sys.argv[1], '.k1.parquet.%d.abcd1234.tmp' % os.getpid()), 'w')"
            ".write('half'); print('ready', flush=True); time.sleep(60)")
    p = subprocess.Popen([sys.executable, "-c", code, str(store.root)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    live = store.root / f".k2.parquet.{os.getpid()}.efgh5678.tmp"  # this process: alive, writing
    live.write_text("x")
    old = store.root / ".k3.parquet.zz9.tmp"  # an unnamed writer's, 7 hours old
    old.write_text("x")
    os.utime(old, (time.time() - 7 * 3600,) * 2)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    dead = store.root / f".k1.parquet.{p.pid}.abcd1234.tmp"
    assert dead.exists()
    removed = store.clean_stale()
    assert sorted(removed) == sorted([dead, old]) and live.exists() and not dead.exists()


def test_sweep_resume_removes_stale_temporaries(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = ["1"]\nscores = [["1", "0"]]\n')
    store = tmp_path / "store"
    store.mkdir()
    stale = store / ".x.parquet.999999999.abcd1234.tmp"  # no such process id
    stale.write_text("half")
    r = runner.invoke(app, ["sweep", str(spec), "--store", str(store), "--workers", "0"])
    assert r.exit_code == 0, r.output
    assert not stale.exists() and any(f.suffix == ".parquet" for f in store.iterdir())
