"""80 columns: the text output of every command the README shows fits ``COLUMNS=80`` (JSON
documents are data, not text, and are not wrapped). Long commands run on reduced inputs; the
layout code is the same."""

import shutil

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app

EXAMPLE = "examples/geometric_noisy_max.py:GeometricNoisyMax"

SPEC = 'task = "optimal"\nmechanisms = ["pf", "em", "rnm-exp"]\nn = [3]\nk = [2, 3]\nepsilon = ["1/2", "1"]\n'
VSPEC = 'task = "verify"\nmechanisms = ["pf", "em"]\nepsilon = ["1", "2"]\nn = [2]\nsearch = ["grid"]\n'

COMMANDS = {
    "pmf": ["pmf", "-m", "pf", "-e", "1", "-q", "3,2,0", "-b", "exact"],
    "pmf-pattern": ["pmf", "-m", "svt1", "-e", "1/2", "-q", "0,1,2", "-p", "threshold=1", "-b", "exact"],
    "pmf-own": ["pmf", "-m", EXAMPLE, "-e", "1", "-q", "2,1,0", "-b", "exact"],
    "prob": ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1"],
    "verify": ["verify", "-m", "svt4", "-e", "1/10", "--n", "4", "-p", "threshold=1", "-p", "cutoff=1"],
    "verify-own": ["verify", "-m", EXAMPLE, "-e", "1", "--n", "2"],
    "verify-delta": ["verify", "-m", "svt4", "-e", "1/10", "--n", "3", "-p", "threshold=1", "-p", "cutoff=1",
                     "--delta", "1/1000"],
    "optimal": ["optimal", "--n", "4", "--k", "4", "--epsilon", "0.5", "--certify"],
    "optimal-own": ["optimal", "--n", "4", "--k", "4", "--epsilon", "1", "--mechanisms", f"pf,{EXAMPLE}"],
    "ldp": ["ldp", "-m", "brr", "-N", "20", "-e", "2"],
    "optimal-ldp": ["optimal-ldp", "-N", "12", "-e", "log(3)", "--loss", "abs"],
    "delta": ["delta", "--p-pmf", "3/4,1/4", "--q-pmf", "1/4,3/4", "-e", "log(2)", "--compositions", "10"],
    "delta-gaussian": ["delta", "--gaussian", "2", "--delta", "1e-5", "--compositions", "16"],
    "mechanisms": ["mechanisms"],
    "conform": ["conform", EXAMPLE, "--draws", "500"],
    "bench-peers": ["bench-peers", "--name", "iSVT3", "--name", "histogram_eps", "--name", "LaplaceMechanism"],
    "check": ["check", "--quick", "--paper", "brr"],
    "check-all": ["check", "--quick", "--claim", "pf.theorem.*", "--all"],
    "sweep-table": ["sweep", "SPEC", "--store", "STORE", "--table", "--workers", "0"],
    "sweep-verify-table": ["sweep", "VSPEC", "--store", "VSTORE", "--table", "--workers", "0"],
    "schema-list": ["schema", "list"],
    "bench": ["bench", "--quick"],
    "help": ["--help"],
    "verify-help": ["verify", "--help"],
    "delta-help": ["delta", "--help"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_text_output_fits_80_columns(name, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(shutil.os.path.dirname(shutil.os.path.dirname(__file__)))
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "vspec.toml").write_text(VSPEC)
    subst = {"SPEC": str(tmp_path / "spec.toml"), "STORE": str(tmp_path / "s"), "VSPEC": str(tmp_path / "vspec.toml"),
             "VSTORE": str(tmp_path / "vs")}
    args = [subst.get(a, a) for a in COMMANDS[name]]
    r = CliRunner().invoke(app, args, terminal_width=80)
    assert r.exit_code in (0, 1, 3), r.output
    long = [ln for ln in (r.stdout + r.stderr).splitlines() if len(ln) > 80]
    assert not long, "\n".join(long)
    assert r.stdout.strip()


def test_sweep_table_has_one_column_per_mechanism_and_the_plot_y_axes_option(tmp_path, monkeypatch):
    from dpexact.sweep.report import legend_name

    monkeypatch.setenv("COLUMNS", "80")
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    r = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--table", "--workers", "0"])
    assert r.exit_code == 0, r.output
    head = next(ln for ln in r.stdout.splitlines() if "epsilon" in ln)
    assert [c.strip() for c in head.strip("┃ ").split("┃")] == ["k", "epsilon", "optimum", "pf", "em", "rnm-exp"]
    body = [ln for ln in r.stdout.splitlines() if ln.startswith("│")]
    assert len(body) == 4  # one line per (k, ε): n and Δ are the same everywhere, said under the table
    assert "every point: n 3, sensitivity 1" in r.stdout
    for y in ("per-panel", "shared", "log"):
        png = tmp_path / f"{y}.png"
        r = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--plot", str(png), "--plot-y", y,
                                     "--workers", "0"])
        assert r.exit_code == 0 and png.stat().st_size > 1000, r.output
    bad = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s"), "--plot-y", "log", "--workers", "0"])
    assert bad.exit_code == 2 and "--plot-y applies to --plot only" in bad.stderr
    assert legend_name("/some/dir/geometric_noisy_max.py:GeometricNoisyMax") == "GeometricNoisyMax"
    assert legend_name("pf") == "pf"
