"""``dpexact bench``: the output path is checked before any work, written atomically, no traceback."""

import errno
import json

import pytest
from typer.testing import CliRunner

import dpexact.benchmarks as benchmarks
from dpexact.cli.main import app
from dpexact.schemas import SCHEMA_VERSION

ENVELOPE = {"schema_version": SCHEMA_VERSION, "command": "bench"}

runner = CliRunner()


@pytest.fixture
def calls(monkeypatch):
    """Replace the (minutes-long) benchmarks by a recorder returning a small result."""
    seen = []

    def fake_pmf(quick=False, json_path=None, echo=print):
        seen.append("pmf")
        return {"rows": [{"what": "x", "ratio": 1.5}]}

    def fake_accuracy(directory=None, **kw):
        seen.append("accuracy")
        return [{"input": "HEPTH/mode", "max_rel_error": 1e-16}]

    monkeypatch.setattr(benchmarks, "run_pmf_benchmark", fake_pmf)
    monkeypatch.setattr(benchmarks, "run_pf_accuracy", fake_accuracy)
    return seen


@pytest.mark.parametrize("accuracy", [False, True])
def test_unwritable_path_fails_before_the_benchmark(tmp_path, calls, accuracy):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for bad in (blocker / "out.json", tmp_path):  # parent is a file; target is a directory
        res = runner.invoke(app, ["bench", "--output", str(bad)] + (["--accuracy"] if accuracy else []))
        assert res.exit_code == 2 and "error: --output" in res.output and "Traceback" not in res.output
        assert res.exception is None or isinstance(res.exception, SystemExit)
    assert calls == []


def test_result_written_atomically(tmp_path, calls):
    out = tmp_path / "sub" / "bench.json"
    out.parent.mkdir()  # -o refuses a missing directory
    res = runner.invoke(app, ["bench", "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text()) == {**ENVELOPE, "rows": [{"what": "x", "ratio": 1.5}]}
    res = runner.invoke(app, ["bench", "--accuracy", "--output", str(out)])
    assert res.exit_code == 0 and json.loads(out.read_text())["rows"][0]["input"] == "HEPTH/mode"
    assert sorted(p.name for p in out.parent.iterdir()) == ["bench.json"]  # no temporary left over


def test_json_goes_to_stdout(calls):
    res = runner.invoke(app, ["bench", "--quick", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {**ENVELOPE, "rows": [{"what": "x", "ratio": 1.5}]}


def test_failed_write_keeps_the_previous_file(tmp_path, calls, monkeypatch):
    import dpexact.io as io

    out = tmp_path / "bench.json"
    out.write_text('{"previous": true}\n')
    real = io.os.fsync

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(io.os, "fsync", full_disk)
    res = runner.invoke(app, ["bench", "--output", str(out)])
    monkeypatch.setattr(io.os, "fsync", real)
    assert res.exit_code == 1 and "No space left" in res.output and "Traceback" not in res.output
    assert json.loads(out.read_text()) == {"previous": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.json"]


def test_missing_data_is_a_clear_error(tmp_path, monkeypatch):
    res = runner.invoke(app, ["bench", "--accuracy", "--data", str(tmp_path / "nowhere")])
    assert res.exit_code == 1 and "DPBench data not found" in res.output and "Traceback" not in res.output


def test_library_checks_the_path_first(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("")
    with pytest.raises(ValueError, match="json_path"):
        benchmarks.run_pmf_benchmark(quick=True, json_path=str(blocker / "x.json"))


def test_pmf_only_asks_for_the_pmf_rows_alone(monkeypatch):
    """--pmf-only reaches run_pmf_benchmark as pmf_only=True; with --accuracy it is refused (exit 2)."""
    seen = []

    def fake_pmf(quick=False, json_path=None, echo=print, pmf_only=False):
        seen.append(pmf_only)
        return {"rows": []}

    monkeypatch.setattr(benchmarks, "run_pmf_benchmark", fake_pmf)
    assert runner.invoke(app, ["bench", "--pmf-only", "--json"]).exit_code == 0
    assert runner.invoke(app, ["bench", "--json"]).exit_code == 0
    assert seen == [True, False]
    res = runner.invoke(app, ["bench", "--pmf-only", "--accuracy"])
    assert res.exit_code == 2 and "error: --pmf-only" in res.output


def test_pmf_only_rows_are_the_pf_em_floor_rows():
    """run_pmf_benchmark(pmf_only=True) returns the PF / EM / floor rows and nothing else (quick sizes)."""
    out = benchmarks.run_pmf_benchmark(quick=True, echo=lambda line: None, repeat=5, pmf_only=True)
    assert [(r["what"].split(",")[0], r["n"]) for r in out["rows"]] == \
        [("PF float / EM float", n) for n in (10, 1_000, 10_000, 100_000)] * 2
    assert all(r["em_over_floor"] > 0 and r["ratio"] > 0 for r in out["rows"])


def test_bracket_only_runs_the_bracket_rows_alone():
    """--bracket-only: the own EM / PF rows at n = 3 (--quick), each a live scope-search / bracket timing with its
    verdict (both laws are proved private at n = 3: EM's and PF's law identified); no pmf row; a valid document."""
    import json

    res = runner.invoke(app, ["bench", "--bracket-only", "--quick", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    rows = doc["rows"]
    assert [(r["what"], r["n"]) for r in rows] == [("bracket / scope search, own EM", 3), ("bracket / scope search, own PF", 3)]
    assert all(r["verdict"] == "private" and r["scope_search_s"] > 0 for r in rows)
    for combo in (["--accuracy"], ["--pmf-only"]):
        bad = runner.invoke(app, ["bench", "--bracket-only", *combo])
        assert bad.exit_code == 2 and "error: --bracket-only" in bad.output and combo[0] in bad.output
