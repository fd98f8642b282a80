"""dpexact sweep: spec, store, executor and resume.

The oracle of every distributed run is the serial run of the same points in this process
(``workers=0``), and the oracle of a serial point is the matching CLI command's ``--json``
output: a sweep must reproduce them exactly, timings aside. One 2-worker local cluster is
shared by the module (starting one costs seconds).
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from pathlib import Path

import cloudpickle
import pytest
from typer.testing import CliRunner

from dpexact import __version__
from dpexact.cli.main import app
from dpexact.sweep import Job, ResultStore, dask_client, parse_spec, run_jobs, run_sweep, sweep_points
from dpexact.sweep.spec import load_spec, point_key
from dpexact.sweep.tasks import run_point

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the helpers below run on workers

LP = {"task": "optimal", "mechanisms": ["pf", "em"], "n": [3, 4], "k": [3, 4], "epsilon": ["1/2", "1", "log(2)"]}
VERIFY = {"task": "verify", "mechanisms": ["em", "pf"], "epsilon": ["1/2", "1"], "n": [2]}
TIMINGS = {"seconds", "build_seconds"}


def timeless(x):
    """A record without its wall-clock fields (the only part two runs may differ in)."""
    if isinstance(x, dict):
        return {k: timeless(v) for k, v in x.items() if k not in TIMINGS}
    if isinstance(x, list):
        return [timeless(v) for v in x]
    return x


def results(report):
    return {k: (r.status, timeless(r.result), r.error) for k, r in report.rows.items()}


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as c:
        c.wait_for_workers(2, timeout=120)
        yield c


@pytest.fixture(scope="module")
def serial_lp(tmp_path_factory):
    return run_sweep(parse_spec(LP), ResultStore(tmp_path_factory.mktemp("serial-lp")), workers=0)


# --- spec -------------------------------------------------------------------------------------

def test_smallest_spec_as_written(tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "optimal"\nmechanisms = ["pf", "em"]\nn = [3, 4]\nk = [4]\nepsilon = ["1/2", "1"]\n')
    pts = sweep_points(load_spec(spec_file))
    assert [(p.grid["n"], p.grid["k"], p.grid["epsilon"]) for p in pts] == [(3, 4, "1/2"), (3, 4, "1"), (4, 4, "1/2"), (4, 4, "1")]
    assert all(p.inputs["mechanisms"] == ["pf", "em"] for p in pts)
    assert len({p.key for p in pts}) == 4
    assert pts[0].key == point_key("optimal", pts[0].inputs, __version__) != point_key("optimal", pts[0].inputs, "0.0.0")


def test_spec_keeps_float_text_exact_and_expands_linspace(tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "optimal"\nn = 3\nk = 2\nepsilon = [0.1, 2]\n')
    # the TOML float 0.1 is the decimal 1/10 (not its binary double), in one canonical spelling
    assert [p.grid["epsilon"] for p in sweep_points(load_spec(spec_file))] == ["1/10", "2"]
    spec = parse_spec({"task": "optimal", "n": 3, "k": 2, "epsilon": {"linspace": ["1/10", "1", 4]}})
    assert spec.axes["epsilon"] == ["1/10", "2/5", "7/10", "1"]
    # equal values, equal keys: a resumed sweep recognises "0.1" written as "1/10" or "2/20"
    keys = {tuple(p.key for p in sweep_points(parse_spec({"task": "optimal", "n": 3, "k": 2, "epsilon": e})))
            for e in ("0.1", "1/10", "2/20")}
    assert len(keys) == 1
    with pytest.raises(ValueError, match="epsilon"):
        parse_spec({"task": "optimal", "n": 3, "k": 2, "epsilon": "__import__('os')"})


@pytest.mark.parametrize("data, message", [
    ({"task": "lp"}, "task"),
    ({"task": "optimal", "n": 3, "epsilon": "1"}, "k: required"),
    ({"task": "optimal", "n": 3, "k": 2, "epsilon": "1", "mechanism": "pf"}, "unknown key"),
    ({"task": "optimal", "n": [3, 0], "k": 2, "epsilon": "1"}, "n: expected a positive integer"),
    ({"task": "optimal", "n": 3, "k": 2, "epsilon": [1.5]}, "epsilon"),
    ({"task": "optimal", "n": 3, "k": 2, "epsilon": ["1", "1"]}, "repeated"),
    ({"task": "optimal", "n": list(range(1, 1001)), "k": list(range(1, 1001)), "epsilon": "1"}, "limit"),
])
def test_spec_errors_name_the_key(data, message):
    with pytest.raises((ValueError, TypeError), match=message):
        parse_spec(data)


# --- serial points equal the CLI ---------------------------------------------------------------

def test_sweep_json_equals_the_cli_json(tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "optimal"\nmechanisms = ["pf", "em"]\nn = [3]\nk = [4]\nepsilon = ["1/2", "1"]\n')
    runner = CliRunner()
    res = runner.invoke(app, ["sweep", str(spec_file), "--store", str(tmp_path / "store"), "--json", "--workers", "0"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["points"]
    assert [(o["n"], o["k"], o["epsilon"], o["status"]) for o in out] == [(3, 4, "1/2", "ok"), (3, 4, "1", "ok")]
    for o in out:
        cli = runner.invoke(app, ["optimal", "--n", "3", "--k", "4", "-e", o["epsilon"], "--json"])
        expected = json.loads(cli.stdout)
        assert timeless({k: o[k] for k in expected}) == timeless(expected)
        assert "ratios" in o and set(o["ratios"]) == {"pf", "em"}


def test_verify_points_equal_the_cli_for_every_output_kind_and_delta():
    """A verify point runs exactly `dpexact verify`: a sparse-vector pattern law, an (ε, δ) claim."""
    runner = CliRunner()
    base = {"sensitivity": "1", "monotone": False, "neighbourhood": "default", "search": ["grid", "structured", "local"],
            "steps": 1, "n": 4, "params": {"threshold": "1", "cutoff": 1}}
    for extra, flags in (({}, []), ({"delta": "1/1000"}, ["--delta", "1/1000"])):
        out = run_point("verify", {"mechanism": "svt4", "epsilon": "1/10", **base, **extra})
        cli = runner.invoke(app, ["verify", "-m", "svt4", "-e", "1/10", "--n", "4", "-p", "threshold=1", "-p", "cutoff=1",
                                  "--json", *flags])
        expected, got = json.loads(cli.stdout), dict(out["result"])
        # the replay record names the parameters as given: the point's spec states Δ = 1 and types its values
        # (cutoff = 1), the command line left Δ out and spells every value as text
        rx, rg = expected.pop("replay"), got.pop("replay")
        assert {**rx, "params": {**rx["params"], "sensitivity": "1"}} == {**rg, "params": {k: str(v) for k, v in rg["params"].items()}}
        assert out["status"] == "ok" and timeless(got) == timeless(expected)
    assert out["result"]["delta"] == "1/1000" and out["result"]["verdict"] == "violated"
    spec = parse_spec({"task": "verify", "mechanisms": ["svt4"], "epsilon": ["1/10"], "delta": ["0", "1/100"], "n": [4]})
    assert spec.axes["delta"] == ["0", "1/100"]


def test_pmf_point_equals_the_cli_json():
    out = run_point("pmf", {"mechanism": "pf", "epsilon": "1", "sensitivity": "1", "scores": ["1", "0", "0"], "backend": "exact",
                            "monotone": False, "params": {}})
    cli = CliRunner().invoke(app, ["pmf", "-m", "pf", "-e", "1", "-q", "1,0,0", "-b", "exact", "--json"])
    assert out["status"] == "ok" and out["result"] == json.loads(cli.stdout)
    assert out["certified"] == "exact" and out["backend"] == "exact"


def test_a_failing_task_is_recorded_and_the_sweep_goes_on(tmp_path):
    spec = parse_spec({"task": "verify", "mechanisms": ["em", "no-such-mechanism"], "epsilon": "1", "n": 2})
    report = run_sweep(spec, ResultStore(tmp_path), workers=0)
    by_mech = {r.grid["mechanism"]: r for r in report.rows.values()}
    assert by_mech["em"].status == "ok" and by_mech["em"].result["verdict"] == "private"  # EM proved for every n (theorem)
    bad = by_mech["no-such-mechanism"]
    assert bad.status == "failed" and bad.result is None and "ValueError" in bad.error and "no-such-mechanism" in bad.error
    # the failure is stored: a re-run skips it unless asked to retry
    again = run_sweep(spec, ResultStore(tmp_path), workers=0)
    assert again.computed == []
    retried = run_sweep(spec, ResultStore(tmp_path), workers=0, retry_failed=True)
    assert retried.computed == [bad.key]


# --- distributed == serial -------------------------------------------------------------------

def test_lp_grid_on_two_workers_equals_serial(client, serial_lp, tmp_path):
    report = run_sweep(parse_spec(LP), ResultStore(tmp_path), client=client)
    assert len(report.rows) == len(report.points) == 12 and not report.failed
    assert results(report) == results(serial_lp)
    assert len({r.worker for r in report.rows.values()}) >= 1 and all(r.worker for r in report.rows.values())
    # and what was written is what the store reads back
    assert results(ResultStore(tmp_path).scan()) == results(serial_lp)


def test_verify_grid_on_two_workers_equals_serial(client, tmp_path):
    spec = parse_spec(VERIFY)
    serial = run_sweep(spec, ResultStore(tmp_path / "serial"), workers=0)
    dist = run_sweep(spec, ResultStore(tmp_path / "dist"), client=client)
    assert len(dist.rows) == 4 and not dist.failed
    assert results(dist) == results(serial)
    assert all(r.result["verdict"] == "private" and r.certified == "true" for r in dist.rows.values())


# --- faults ------------------------------------------------------------------------------------

def kill_once(marker: str, fn, *args):
    """Kill this worker process the first time (mid-task, as an OOM kill would), then run ``fn``."""
    if not os.path.exists(marker):
        Path(marker).write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)
    return fn(*args)


def test_a_killed_worker_loses_no_task(client, serial_lp, tmp_path):
    points = sweep_points(parse_spec(LP))
    marker = str(tmp_path / "killed")
    jobs = [Job(p.key, run_point, (p.task, p.inputs)) for p in points]
    jobs[3] = Job(points[3].key, kill_once, (marker, run_point, points[3].task, points[3].inputs), priority=10)
    done, failed = {}, []
    run_jobs(jobs, client, lambda j, v, w: done.__setitem__(j.key, v), lambda j, m: failed.append((j.key, m)))
    assert Path(marker).exists(), "the worker was not killed"
    assert failed == [] and set(done) == {p.key for p in points}
    assert {k: (v["status"], timeless(v["result"]), v["error"]) for k, v in done.items()} == results(serial_lp)
    client.wait_for_workers(2, timeout=120)  # the nanny restarts the killed worker


def kill_always():
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.slow
def test_a_task_that_always_kills_its_worker_fails_alone(client, serial_lp):
    """After ALLOWED_FAILURES + 1 lost workers Dask gives up on the job (KilledWorker); the rest complete."""
    points = sweep_points(parse_spec(LP))
    jobs = [Job("killer", kill_always, (), priority=10)] + [Job(p.key, run_point, (p.task, p.inputs)) for p in points]
    done, failed = {}, []
    run_jobs(jobs, client, lambda j, v, w: done.__setitem__(j.key, v), lambda j, m: failed.append((j.key, m)))
    assert [k for k, _ in failed] == ["killer"] and "KilledWorker" in failed[0][1]
    assert {k: (v["status"], timeless(v["result"]), v["error"]) for k, v in done.items()} == results(serial_lp)
    client.wait_for_workers(2, timeout=120)


def counted(log: str, kind, inputs):
    """``run_point`` that appends its point's key to ``log`` when it finishes (on the worker)."""
    out = run_point(kind, inputs)
    with open(log, "a") as fh:
        fh.write(point_key(kind, inputs, __version__) + "\n")
    return out


def test_an_interrupted_sweep_resumes_without_recomputing(client, serial_lp, tmp_path):
    spec = parse_spec(LP)
    log = str(tmp_path / "computed.log")
    store = ResultStore(tmp_path / "store")
    seen, drained = [], []

    def ctrl_c_at_the_third_row(row):
        seen.append(row.key)
        if len(seen) == 3:
            raise KeyboardInterrupt

    task = functools.partial(counted, log)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, store, client=client, on_row=ctrl_c_at_the_third_row, on_interrupt=drained.append, task=task)
    first = store.scan()
    assert len(drained) == 1 and set(first.rows) == set(seen) and 3 <= len(seen) < 12 and not first.corrupt
    stamps = {k: (store.path(k).stat().st_ino, store.path(k).stat().st_mtime_ns) for k in seen}
    resumed = run_sweep(spec, store, client=client, task=task)
    assert set(resumed.skipped) == set(seen) and set(resumed.computed).isdisjoint(seen)
    assert set(resumed.computed) | set(seen) == {p.key for p in resumed.points}
    # every task ran exactly once over both calls, and the first call's files were not rewritten
    computed = Path(log).read_text().split()
    assert sorted(computed) == sorted(p.key for p in resumed.points)
    assert {k: (store.path(k).stat().st_ino, store.path(k).stat().st_mtime_ns) for k in seen} == stamps
    assert results(store.scan()) == results(serial_lp)


def test_corrupt_and_partial_files_are_detected_not_read(tmp_path, serial_lp):
    spec = parse_spec(LP)
    store = ResultStore(tmp_path)
    run_sweep(spec, store, workers=0)
    keys = [p.key for p in sweep_points(spec)]
    # 1. truncated (a copy interrupted mid-way)
    p0 = store.path(keys[0])
    p0.write_bytes(p0.read_bytes()[:-100])
    # 2. a valid Parquet file whose result was altered after it was written
    import pyarrow.parquet as pq

    t = pq.read_table(store.path(keys[1]))
    altered = t.set_column(t.column_names.index("result"), "result",
                           [[t.column("result")[0].as_py().replace('"pf": 1.', '"pf": 2.')]])
    pq.write_table(altered, store.path(keys[1]))
    # 3. a complete row stored under another task's name
    store.path(keys[3]).write_bytes(store.path(keys[2]).read_bytes())
    # 4. a temporary file left by a writer killed mid-write is ignored
    (tmp_path / f".{keys[4]}.parquet.abc.tmp").write_bytes(b"PAR1 half a file")
    scan = store.scan()
    reasons = {p.name.removesuffix(".parquet"): why for p, why in scan.corrupt}
    assert set(reasons) == {keys[0], keys[1], keys[3]}
    assert "unreadable" in reasons[keys[0]] and "checksum" in reasons[keys[1]] and "does not match its key" in reasons[keys[3]]
    assert set(scan.rows) == set(keys) - {keys[0], keys[1], keys[3]}
    # a re-run recomputes exactly the corrupt ones, reports them and heals the store
    again = run_sweep(spec, store, workers=0)
    assert sorted(again.computed) == sorted([keys[0], keys[1], keys[3]]) and len(again.corrupt) == 3
    assert results(store.scan()) == results(serial_lp) and not store.scan().corrupt


def test_cli_reports_bad_spec_in_one_line(tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "optimal"\nn = [3]\nk = [4]\nepsilon = ["1"]\nboundry = "clip"\n')
    res = CliRunner().invoke(app, ["sweep", str(spec_file), "--store", str(tmp_path / "s")])
    assert res.exit_code == 2 and "unknown key(s) ['boundry']" in res.output and "Traceback" not in res.output


# --- the claim catalogue on the same executor ----------------------------------------------------

CLAIMS = ["adp.theorem.2", "adp.text.gaussian-eps-above-one", "adp.theorem.1", "adp.theorem.4"]


def test_check_sweep_equals_the_check_command(tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "check"\nclaims = ["adp.theorem.2", "adp.text.gaussian-eps-above-one"]\nquick = true\n')
    runner = CliRunner()
    res = runner.invoke(app, ["sweep", str(spec_file), "--store", str(tmp_path / "store"), "--json", "--workers", "0"])
    assert res.exit_code == 0, res.output
    swept = {o["claim"]: o for o in json.loads(res.stdout)["points"]}
    cli = runner.invoke(app, ["check", "--quick", "--claim", "adp.theorem.2", "--claim", "adp.text.gaussian-eps-above-one",
                              "--output", str(tmp_path / "claims.json")])
    assert cli.exit_code == 0, cli.output
    expected = {c["id"]: c for c in json.loads((tmp_path / "claims.json").read_text())["claims"]}
    assert set(swept) == set(expected)
    for cid, e in expected.items():
        assert timeless({k: swept[cid][k] for k in e}) == timeless(e)
    assert swept["adp.text.gaussian-eps-above-one"]["verdict"] == "refuted"


def test_claims_on_two_workers_equal_the_serial_runner(client):
    import proofs_checks.catalogue as cat

    from dpexact.sweep.claims import run_claims

    claims = cat.select(None, CLAIMS)
    serial = [cat.run_claim(c, True) for c in claims]
    seen = []
    dist = run_claims(claims, True, client=client, progress=lambda c, o: seen.append(c.id))
    assert sorted(seen) == sorted(CLAIMS)
    assert [o.claim for o in dist] == claims
    assert [(o.verdict.verdict, o.verdict.certified, o.verdict.scope, json.dumps(cat._jsonable(o.verdict.evidence)), o.crashed)
            for o in dist] == [(o.verdict.verdict, o.verdict.certified, o.verdict.scope,
                                json.dumps(cat._jsonable(o.verdict.evidence)), o.crashed) for o in serial]


def test_a_solver_time_limit_is_a_recorded_failure(tmp_path):
    spec = parse_spec({"task": "optimal", "n": 7, "k": 7, "epsilon": "1/4", "method": "simplex", "time_limit": 0.001})
    report = run_sweep(spec, ResultStore(tmp_path), workers=0)
    [row] = report.rows.values()
    assert row.status == "failed" and "RuntimeError" in row.error and "Time limit" in row.error
    assert ResultStore(tmp_path).scan().rows[row.key].error == row.error


def test_cli_sweep_on_an_existing_scheduler(client, serial_lp, tmp_path):
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "optimal"\nmechanisms = ["pf", "em"]\nn = [3, 4]\nk = [3, 4]\nepsilon = ["1/2", "1", "log(2)"]\n')
    res = CliRunner().invoke(app, ["sweep", str(spec_file), "--store", str(tmp_path / "store"), "--json",
                                   "--scheduler", client.scheduler.address])
    assert res.exit_code == 0, res.output
    out = {o["key"]: o for o in json.loads(res.stdout)["points"]}
    assert {k: timeless({f: v for f, v in o.items() if f not in ("status", "error", "key")}) for k, o in out.items()} == \
        {k: timeless({**r.grid, **r.result}) for k, r in serial_lp.rows.items()}


def test_a_hard_killed_sweep_keeps_every_stored_row(tmp_path):
    """SIGKILL the sweep process mid-run: every file written is intact, the resume does the rest."""
    import subprocess
    import time

    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('task = "verify"\nmechanisms = ["em", "pf"]\nepsilon = ["1/2", "1", "2"]\nn = [2]\n')
    store_dir = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-m", "dpexact", "sweep", str(spec_file), "--store", str(store_dir), "--workers", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while len(list(store_dir.glob("*.parquet"))) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    spec = load_spec(spec_file)
    first = ResultStore(store_dir).scan()
    assert 2 <= len(first.rows) < 6, "the sweep was not interrupted mid-run"
    assert not first.corrupt and all(r.status == "ok" for r in first.rows.values())
    resumed = run_sweep(spec, ResultStore(store_dir), workers=0)
    assert set(resumed.skipped) == set(first.rows) and set(resumed.computed).isdisjoint(first.rows)
    assert len(resumed.rows) == 6 and not resumed.failed


def test_check_command_on_the_cluster_equals_the_serial_command(client, tmp_path):
    runner = CliRunner()
    args = ["check", "--quick"] + [a for c in CLAIMS for a in ("--claim", c)]
    serial = runner.invoke(app, args + ["--output", str(tmp_path / "serial.json")])
    dist = runner.invoke(app, args + ["--output", str(tmp_path / "dist.json"), "--scheduler", client.scheduler.address])
    assert serial.exit_code == dist.exit_code == 0, dist.output
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("serial.json", "dist.json"))
    assert [c["id"] for c in b["claims"]] == [c["id"] for c in a["claims"]] and len(a["claims"]) == len(CLAIMS)
    assert timeless(b) == timeless(a)


def test_optimal_points_cross_over_only_on_request_as_the_cli():
    # default: the interior point with its proven interval (as `dpexact optimal`); `crossover = true` asks for a vertex
    base = {"n": 4, "k": 4, "epsilon": "1/4", "sensitivity": "1", "mechanisms": ["pf"], "boundary": "clip", "method": "ipm",
            "certify": False}
    spec = parse_spec({"task": "optimal", "n": 4, "k": 4, "epsilon": "1/4", "method": "ipm"})
    assert "crossover" not in sweep_points(spec)[0].inputs
    interior = run_point("optimal", base)["result"]
    vertex = run_point("optimal", {**base, "crossover": True})["result"]
    assert (interior["vertex"], vertex["vertex"]) == (False, True)
    cli = json.loads(CliRunner().invoke(app, ["optimal", "--n", "4", "--k", "4", "-e", "1/4", "--method", "ipm", "--mechanisms", "pf",
                                              "--json"]).stdout)
    assert cli["vertex"] is False
    lo, hi = interior["optimal_total_error_bounds"]
    assert lo <= vertex["optimal_total_error"] * (1 + 1e-12) and vertex["optimal_total_error"] <= hi * (1 + 1e-12)
