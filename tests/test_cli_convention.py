"""One CLI convention: ``--json`` prints one JSON document to stdout, ``--output FILE`` writes the
same document atomically after checking the path before any work, the same option names mean
the same thing in every command, and bad input ends in one error line."""

import json
import os

import pytest
import sympy
from typer.testing import CliRunner

import dpexact
from dpexact import mechanism
from dpexact.cli.common import VERDICT_EXIT, strict_int
from dpexact.cli.main import app
from dpexact.numbers.exp_lattice import MAX_LATTICE_DEGREE, is_identically_zero

#: quick, valid arguments of every command that produces a result
COMMANDS = {
    "pmf": ["-m", "pf", "-e", "1", "-q", "1,0"],
    "verify": ["-m", "pf", "-e", "1", "--n", "2", "--values", "0,1", "--search", "grid"],
    "optimal": ["--n", "3", "--k", "1", "-e", "1", "--mechanisms", "pf"],
    "ldp": ["-m", "grr", "-N", "4", "-e", "1"],
    "optimal-ldp": ["-N", "3", "-e", "log(3)"],
    "delta": ["--p-pmf", "3/4,1/4", "--q-pmf", "1/4,3/4", "-e", "log(2)"],
    "curve": ["-m", "grr", "-e", "1", "-p", "k=3", "--renyi", "2"],
    "mechanisms": [],
    "conform": ["pf", "--draws", "200"],
}

def expected_exit(command, doc):
    """The exit status a document's answer gives (README, "Exit codes"): verify's follows its verdict."""
    return VERDICT_EXIT[doc["verdict"]] if command == "verify" else 0


def run(args):
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_json_stdout_and_output_file_hold_the_same_document(command, tmp_path):
    target = tmp_path / "sub" / "result.json"
    target.parent.mkdir()  # -o refuses a missing directory (a typo must not create a tree)
    r = run([command, *COMMANDS[command], "--json", "--output", str(target)])
    printed = json.loads(r.stdout)  # stdout is the JSON only: progress and notes go to stderr
    assert r.exit_code == expected_exit(command, printed), r.output
    assert json.loads(target.read_text()) == printed
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]  # no temporary file left


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_without_json_still_writes_the_file(command, tmp_path):
    target = tmp_path / "result.json"
    r = run([command, *COMMANDS[command], "-o", str(target)])
    doc = json.loads(target.read_text())
    assert r.exit_code == expected_exit(command, doc), r.output
    assert doc
    with pytest.raises(json.JSONDecodeError):  # the human-readable report went to stdout
        json.loads(r.stdout)


def test_pmf_json_carries_the_library_values(tmp_path):
    r = run(["pmf", *COMMANDS["pmf"], "--json"])
    doc = json.loads(r.stdout)
    expected = mechanism("pf", epsilon=1).pmf([1, 0], backend="ball").to_float()
    assert doc["probabilities"] == pytest.approx([float(v) for v in expected], rel=1e-12)
    # PF (pf Alg. 1) on (1, 0): the worse candidate wins only when drawn first and accepted,
    # with probability e^{ε(0 - 1)/(2Δ)} = e^{-1/2}: Pr[r = 1] = e^{-1/2} / 2
    w = float(sympy.exp(sympy.Rational(-1, 2)))
    assert doc["probabilities"][1] == pytest.approx(w / 2, rel=1e-12)


@pytest.mark.parametrize("command", sorted(COMMANDS) + ["bench-verifier"])
def test_unwritable_output_is_refused_before_any_work(command, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    args = COMMANDS.get(command, [])
    r = run([command, *args, "--json", "--output", str(blocker / "result.json")])
    assert r.exit_code == 2, r.output
    assert r.stdout == ""  # nothing computed, nothing printed
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: --output"), lines
    assert blocker.read_text() == "x"


def test_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    target = tmp_path / "result.json"
    target.write_text('{"previous": true}\n')

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    r = run(["pmf", *COMMANDS["pmf"], "--output", str(target)])
    assert r.exit_code == 1
    assert json.loads(target.read_text()) == {"previous": True}
    assert "cannot write" in r.stderr and "not saved" in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_optimal_reports_lp_size_on_stderr_and_checks_mechanisms_first(monkeypatch):
    r = run(["optimal", "--n", "3", "--k", "2", "-e", "1", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert f"{doc['variables']} variables, {doc['constraints']} constraints, {doc['classes']} classes" in r.stderr

    import dpexact.lp.regular_lp as regular_lp
    import dpexact.lp.solver as solver

    def no_lp(*a, **k):
        raise AssertionError("the LP was built although --mechanisms has a typo")

    monkeypatch.setattr(regular_lp, "build_regular_lp", no_lp)
    monkeypatch.setattr(solver, "solve_regular_lp", no_lp)
    r = run(["optimal", "--n", "3", "--k", "2", "-e", "1", "--mechanisms", "pf,nosuch"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: unknown mechanism 'nosuch'")


def test_aliases_give_the_same_result():
    a = json.loads(run(["optimal", "--n", "3", "--k", "1", "-e", "1", "--mechanisms", "pf", "--json"]).stdout)
    b = json.loads(run(["optimal", "-n", "3", "--k", "1", "-e", "1", "-m", "pf", "--json"]).stdout)
    c = json.loads(run(["optimal", "-n", "3", "--k", "1", "-e", "1", "--mechanism", "pf", "--json"]).stdout)
    assert a["ratios"] == b["ratios"] == c["ratios"] and a["optimal_total_error"] == b["optimal_total_error"]
    v1 = json.loads(run(["verify", *COMMANDS["verify"], "--json"]).stdout)
    v2 = json.loads(run(["verify", "-m", "pf", "-e", "1", "-n", "2", "--values", "0,1", "--search", "grid", "--json"]).stdout)
    assert v1["verdict"] == v2["verdict"] and v1["scope"] == v2["scope"]
    c1 = json.loads(run(["conform", "pf", "--draws", "200", "--json"]).stdout)
    c2 = json.loads(run(["conform", "-m", "pf", "--draws", "200", "--json"]).stdout)
    assert c1 == c2
    for args in (["conform", "pf", "-m", "em"], ["conform"]):
        r = run(args)
        assert r.exit_code == 2 and r.stderr.startswith("error: give the mechanism once")


@pytest.mark.parametrize("args, option", [
    (["optimal", "--n", "9_9", "--k", "1", "-e", "1"], "--n"),
    (["verify", "-m", "pf", "-e", "1", "--n", "1_0", "--values", "0,1"], "--n"),
    (["ldp", "-m", "grr", "-N", "1_2", "-e", "1"], "--domain"),
    (["delta", "--p-pmf", "1/2,1/2", "--q-pmf", "1/2,1/2", "-e", "1", "--compositions", "1_0"], "--compositions"),
    (["conform", "pf", "--draws", "2_000"], "--draws"),
])
def test_integer_options_refuse_digit_separators(args, option):
    r = run(args)
    assert r.exit_code == 2
    errors = [ln for ln in r.stderr.splitlines() if "Error" in ln or "error" in ln]
    assert len(errors) == 1 and option in errors[0] and "not an integer" in errors[0], r.stderr


@pytest.mark.parametrize("text, value", [("99", 99), ("+5", 5), ("-3", -3), ("0", 0)])
def test_strict_int_reads_plain_integers(text, value):
    assert strict_int(text) == value


@pytest.mark.parametrize("text", ["9_9", " 9", "9 ", "\u0669", "1e3", "0x10", "", "1.0"])
def test_strict_int_refuses_everything_else(text):
    with pytest.raises(ValueError, match="not an integer"):
        strict_int(text)


def test_tiny_gamma_float_backend_agrees_with_ball():
    # RS_γ allows any γ in (0, 1] (hetsel §4): γ = 1e-300 must give a number within its bound
    args = ["pmf", "-m", "rs-gamma", "-e", "1", "-q", "1,0", "--param", "gamma=1e-300", "--json"]
    f = json.loads(run(args).stdout)
    b = json.loads(run([*args, "-b", "ball"]).stdout)
    for x, y in zip(f["probabilities"], b["probabilities"]):
        assert abs(x - y) <= f["error_bound"] + b["error_bound"]


def test_huge_verify_values_are_one_line_naming_values():
    r = run(["verify", "-m", "em", "-e", "1", "--values", "1e300,0", "--search", "grid"])
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "--values" in lines[0] and "fmpz" not in lines[0]


def test_lattice_degree_limit_is_exact_at_the_boundary():
    def expr(d):  # e^d / (1 + e^d + e^{1/2}) - 1/3 is never zero (Lindemann)
        x = sympy.exp(sympy.Integer(d))
        return x / (1 + x + sympy.exp(sympy.Rational(1, 2))) - sympy.Rational(1, 3)

    # L = 2 (the 1/2 exponent), so e^d becomes t^(2d): the limit applies to 2d
    assert is_identically_zero(expr(MAX_LATTICE_DEGREE // 2)) is False
    with pytest.raises(ValueError, match="--values"):
        is_identically_zero(expr(MAX_LATTICE_DEGREE // 2 + 1))


def test_no_bool_placeholder_in_any_help():
    import typer.main

    group = typer.main.get_command(app)
    for name in [None, *group.commands]:
        args = ([name] if name else []) + ["--help"]
        text = run(args).stdout
        assert "<bool>" not in text and "BOOLEAN" not in text, (name, text)
    assert run(["-h"]).exit_code == 0 and run(["--version"]).stdout.strip()


@pytest.mark.slow
def test_bench_verifier_json_and_output(tmp_path):
    target = tmp_path / "bench.json"
    r = run(["bench-verifier", "--json", "-o", str(target)])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert rows == json.loads(target.read_text())
    # ground truth of each benchmark mechanism: a private one is never flagged, a non-private one is
    assert all((row["verdict"] == "violated") == (row["truth"] == "not-private") for row in rows), rows


def test_sweep_json_and_output(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "optimal"\nmechanisms = ["pf"]\nn = [3]\nk = [1]\nepsilon = ["1"]\n')
    target = tmp_path / "points.json"
    r = run(["sweep", str(spec), "--store", str(tmp_path / "store"), "--workers", "0", "--json", "-o", str(target)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == json.loads(target.read_text())
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    r = run(["sweep", str(spec), "--store", str(tmp_path / "store2"), "--workers", "0", "-o", str(blocker / "p.json")])
    assert r.exit_code == 2 and r.stderr.startswith("error: --output") and not (tmp_path / "store2").exists()


def test_verify_takes_the_mechanisms_own_claim_when_epsilon_is_omitted():
    runner = CliRunner()
    r = runner.invoke(app, ["verify", "-m", "one-time-rappor", "--json"])
    d = json.loads(r.stdout)
    lib = dpexact.verify(mechanism("one-time-rappor"))
    assert d["epsilon"] == str(mechanism("one-time-rappor").epsilon) and d["verdict"] == lib.verdict
    assert r.exit_code == VERDICT_EXIT[lib.verdict], r.output
    r = runner.invoke(app, ["verify", "-m", "svt1", "--n", "3"])
    assert r.exit_code == 2 and "-e/--epsilon is required" in r.output and "Traceback" not in r.output
