"""One Ctrl-C ends a sweep cleanly: a real SIGINT to the foreground process group of
`dpexact sweep` with 2 local workers (the workers are in that group, as on a terminal)."""

import os
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest

from dpexact.sweep import ResultStore

pytestmark = pytest.mark.slow

SPEC = """task = "verify"
mechanisms = ["pf", "em"]
epsilon = ["1", "1/2", "2", "1/3", "3", "1/4", "4", "1/5", "5", "2/3", "3/2", "3/4"]
n = [3]
search = ["grid"]
"""


def test_one_sigint_to_the_process_group_stops_the_sweep_and_resume_completes_it(tmp_path):
    spec, store = tmp_path / "spec.toml", tmp_path / "store"
    spec.write_text(SPEC)
    args = [sys.executable, "-m", "dpexact", "sweep", str(spec), "--store", str(store), "--workers", "2"]
    # its own process group, as a terminal's foreground job, with SIGINT's default disposition (a
    # background shell may have started this test with SIGINT ignored, which children inherit)
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and p.poll() is None:  # the cluster is up and has finished a task
        if store.exists() and any(f.suffix == ".parquet" for f in store.iterdir()):
            break
        time.sleep(0.2)
    assert p.poll() is None, p.communicate()
    time.sleep(1.0)  # tasks are running on both workers
    os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: every process of the group
    t0 = time.monotonic()
    out, err = p.communicate(timeout=60)
    elapsed = time.monotonic() - t0
    assert p.returncode == 130, err
    assert elapsed < 15, elapsed
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    stored = ResultStore(store).scan().rows
    assert 0 < len(stored) < 24 and all(r.status == "ok" for r in stored.values())
    m = re.search(r"resume with:\n  (.+)", err)
    assert m, err
    resume = shlex.split(m.group(1))
    assert resume[:2] == ["dpexact", "sweep"]
    r = subprocess.run([sys.executable, "-m", "dpexact", *resume[1:], "--json"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"24 points: {24 - len(stored)} computed, {len(stored)} already in the store, 0 failed" in r.stderr
    after = ResultStore(store).scan().rows
    assert len(after) == 24 and all(row.status == "ok" for row in after.values())
    # the interrupted run's results were kept, not computed again
    assert all(after[k].finished_at == row.finished_at for k, row in stored.items())
    print(f"SIGINT -> exit 130 in {elapsed:.2f} s; {len(stored)} of 24 stored before, resume computed {24 - len(stored)}")
