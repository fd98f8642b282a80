"""``dpexact sweep`` without --table / --json prints a short table (never an empty stdout), and
the resume line of an interrupted sweep repeats the outputs the user asked for."""

import re
import shlex

from typer.testing import CliRunner

import dpexact.sweep
from dpexact.cli.main import app
from dpexact.cli.sweep import SUMMARY_ROWS


def _spec(tmp_path, n_eps):
    spec = tmp_path / "spec.toml"
    eps = ", ".join(f'"{i}/4"' for i in range(1, n_eps + 1))
    spec.write_text(f'task = "pmf"\nmechanisms = ["pf"]\nscores = ["1,0"]\nepsilon = [{eps}]\nbackend = "float"\n')
    return spec


def test_sweep_prints_a_short_table_by_default(tmp_path):
    spec = _spec(tmp_path, SUMMARY_ROWS + 3)
    r = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--workers", "0"], env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    rows = [line for line in r.stdout.splitlines() if re.match(r"│ \d", line)]
    assert len(rows) == SUMMARY_ROWS
    assert f"the first {SUMMARY_ROWS} of {SUMMARY_ROWS + 3} rows: --table prints them all" in " ".join(r.stdout.split())
    full = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--workers", "0", "--table"],
                              env={"COLUMNS": "100"})
    assert len([line for line in full.stdout.splitlines() if re.match(r"│ \d", line)]) == SUMMARY_ROWS + 3
    js = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--workers", "0", "--json"])
    assert js.stdout.lstrip().startswith("{")  # --json alone: the document only


def test_resume_line_repeats_the_users_flags(tmp_path, monkeypatch):
    spec = _spec(tmp_path, 1)

    def interrupted(*args, **kwargs):  # what a Ctrl-C during the run raises
        raise KeyboardInterrupt

    monkeypatch.setattr(dpexact.sweep, "run_sweep", interrupted)
    out = tmp_path / "r.json"
    args = ["sweep", str(spec), "--store", str(tmp_path / "s"), "--workers", "0", "--table", "--json", "--output", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 130
    line = r.stderr.split("resume with:\n")[1].splitlines()[0].strip()
    resume = shlex.split(line)
    assert resume[:2] == ["dpexact", "sweep"] and sorted(resume[2:]) == sorted(args[1:])
