"""The command line as a contract: exit codes that follow the answer (README "Exit codes"), a
versioned JSON document per command that validates against its shipped schema, and replayable
counterexamples."""

import json
import re
import textwrap
from fractions import Fraction

import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.schemas import COMMANDS, SCHEMA_VERSION, schema, validate
from dpexact.verify.bracket import EpsilonBracket, Proof, Witness
from dpexact.verify.verdict import Scope, Verdict

runner = CliRunner()


def run(args):
    return runner.invoke(app, args)


def doc_of(r, command):
    d = json.loads(r.stdout)
    assert d["schema_version"] == SCHEMA_VERSION and d["command"] == command
    validate(command, d)
    return d


# --- verify: 0 private, 1 violated, 3 undecided / inconclusive / private-within-scope, 2 usage ---------

def _verdict(kind: str, reason: str = "") -> Verdict:
    """A verdict as a verifier with an ε bracket would return it (the CLI's mapping is under test)."""
    w = Witness(0.9, ("0", "0"), ("-1", "1"), 0, "ball:256", lower="9/10")
    upper = {"private": Proof(1.0, "theorem", {"n": "every", "epsilon": "(0, inf)", "neighbourhood": "box:1",
                                                "scores": "R^n"}, upper="1", theorem="pf Theorem 1"),
             "undecided": Proof(1.5, "branch-and-bound", {"n": 2, "epsilon": "1", "neighbourhood": "box:1",
                                                          "scores": "[-4, 4]^2"}, upper="3/2")}[kind]
    return Verdict("pf", {"epsilon": "1"}, "1", kind, Scope("box:1"), 0.9, 0.9, None, None, None, 0.01,
                   bracket=EpsilonBracket(w, upper), reason=reason)


@pytest.mark.parametrize("kind, code", [("private", 0), ("undecided", 3)])
def test_verify_exit_code_and_bracket_first_for_bracketed_verdicts(kind, code, monkeypatch):
    import dpexact.verify.router as od

    reason = "the bracket [0.9, 1.5] straddles ε = 1 (width 0.6)" if kind == "undecided" else ""
    def fake(claim, request, progress=None):  # the verdict of the claim the CLI parsed
        v = _verdict(kind, reason)
        v.claim = claim
        return v

    monkeypatch.setattr(od, "verify_claim", fake)
    r = run(["verify", "-m", "pf", "-e", "1", "--json"])
    assert r.exit_code == code, r.output
    d = doc_of(r, "verify")
    assert d["verdict"] == kind and d["epsilon_bracket"]["upper"]["method"] in ("theorem", "branch-and-bound")
    assert d.get("reason", "") == reason and d["replay"]["kind"] == "witness"
    text = run(["verify", "-m", "pf", "-e", "1"])
    assert text.exit_code == code
    lines = text.stdout.splitlines()
    # the headline leads ("privacy level ε* ∈ [lower, upper] on DOMAIN"), before the verdict
    assert lines[1].startswith("privacy level ε* ∈ [0.9, ")
    lo = next(i for i, ln in enumerate(lines) if ln.strip().startswith("lower "))
    assert lines[lo].strip().startswith("lower 9/10: witness q = (0, 0), q' = (-1, 1), output 0")
    at = next(i for i, ln in enumerate(lines) if ln.startswith("verdict:"))
    assert any("proof by" in ln for ln in lines[lo:at]) and all(ln.startswith("  ") for ln in lines[2:at])
    assert "{" not in text.stdout and "[" not in text.stdout.split("privacy level")[0]  # no Python reprs
    if reason:
        assert "reason: the bracket [0.9, 1.5] straddles" in text.stdout.replace("\n    ", " ")


def test_verify_exit_code_of_a_scope_only_verdict(monkeypatch):
    import dpexact.verify.router as od

    v = Verdict("pf", {"epsilon": "1"}, "1", "private-within-scope", Scope("box:1"), 0.9, 0.9, None, None, None, 0.01)
    monkeypatch.setattr(od, "verify_claim", lambda *a, **k: v)
    r = run(["verify", "-m", "pf", "-e", "1", "--json"])
    assert r.exit_code == 3 and doc_of(r, "verify")["verdict"] == "private-within-scope"


def test_verify_exit_codes_of_real_verdicts(tmp_path):
    proved = run(["verify", "-m", "em", "-e", "1", "--n", "3", "--json", "-o", str(tmp_path / "em.json")])
    d = doc_of(proved, "verify")
    assert proved.exit_code == 0 and d["verdict"] == "private" and d["epsilon_bracket"]["upper"]["method"] == "theorem"
    # its bracket witness replays; with a lower end above the true level (EM: exactly ε) it does not
    assert run(["replay", str(tmp_path / "em.json")]).exit_code == 0
    rec = d["replay"]
    assert rec["kind"] == "witness" and float(rec["lower"]) <= 1
    (tmp_path / "high.json").write_text(json.dumps(dict(rec, lower="101/100")))
    high = run(["replay", str(tmp_path / "high.json")])
    assert high.exit_code == 1 and "not proved >= lower" in high.stdout
    pws = run(["verify", "-m", "pf", "-e", "1", "--n", "2", "--values", "0,1", "--search", "grid", "--json"])
    assert pws.exit_code == 0 and doc_of(pws, "verify")["verdict"] == "private"  # pf Theorem 1, every n
    bad = run(["verify", "-m", "svt4", "-e", "1/10", "--n", "4", "-p", "threshold=1", "-p", "cutoff=1", "--json"])
    assert bad.exit_code == 1 and doc_of(bad, "verify")["verdict"] == "violated"
    # no proof for every input and no refutation on the (ε, δ) scope (laplace at n = 1 is proved instead)
    inc = run(["verify", "-m", "noisy-hist", "-e", "1", "--delta", "1/100", "--json"])
    assert inc.exit_code == 3 and doc_of(inc, "verify")["verdict"] == "inconclusive"
    usage = run(["verify", "-m", "pf", "-e", "-1"])
    assert usage.exit_code == 2 and usage.stderr.startswith("error:") and "Traceback" not in usage.output


# --- replay -----------------------------------------------------------------------------------------

def test_replay_a_saved_counterexample_and_a_tampered_one(tmp_path):
    saved = tmp_path / "cx.json"
    r = run(["verify", "-m", "em", "-e", "1", "--monotone", "--neighbourhood", "box", "-o", str(saved)])
    assert r.exit_code == 1  # violated: EM's monotone ε/Δ exponent on a box neighbourhood
    doc = json.loads(saved.read_text())
    rec = doc["replay"]
    assert rec["evidence"] == "selection" and rec["neighbourhood"] == {"relation": "box", "sensitivity": "1",
                                                                         "sensitivities": None}
    ok = run(["replay", str(saved), "--json"])
    assert ok.exit_code == 0, ok.output
    d = doc_of(ok, "replay")
    assert d["holds"] and d["neighbours"] and d["arithmetic"] == "exact"
    # independently: EM's law in closed form, Pr[r] ∝ e^{ε q_r / Δ} (monotone), at both vectors
    m = dpexact.mechanism("em", epsilon=1, monotone=True)
    p = m.pmf([Fraction(s) for s in rec["scores"]], backend="exact").values[rec["output"]]
    p2 = m.pmf([Fraction(s) for s in rec["neighbour_scores"]], backend="exact").values[rec["output"]]
    import sympy

    lr = float(sympy.log(sympy.sympify(str(p))) - sympy.log(sympy.sympify(str(p2))))
    assert lr > 1 and d["log_ratio"][0] <= lr <= d["log_ratio"][1] + 1e-12
    # one score changed, the pair still neighbours: the ratio no longer exceeds e^ε -> 1
    rec2 = dict(rec, scores=[rec["scores"][0], str(Fraction(rec["scores"][1]) + 1)])
    assert dpexact.verify.neighbourhoods.LInfBox(1).contains(rec2["scores"], rec2["neighbour_scores"])
    # (a bare record: in a verify document the counterexample block a reader sees would disagree -> refused)
    (tmp_path / "mixed.json").write_text(json.dumps({**doc, "replay": rec2}))
    mixed = run(["replay", str(tmp_path / "mixed.json")])
    assert mixed.exit_code == 2 and "disagree on 'scores'" in mixed.stderr
    (tmp_path / "changed.json").write_text(json.dumps(rec2))
    changed = run(["replay", str(tmp_path / "changed.json")])
    assert changed.exit_code == 1 and "does NOT hold" in changed.stdout and "neighbours yes" in changed.stdout
    # one score moved out of the neighbourhood -> 1, and it says why
    rec3 = dict(rec, scores=[str(Fraction(rec["scores"][0]) + 5), rec["scores"][1]])
    (tmp_path / "far.json").write_text(json.dumps(rec3))
    far = run(["replay", str(tmp_path / "far.json")])
    assert far.exit_code == 1 and "not neighbours" in far.stdout


def test_replay_pattern_event_and_continuous_evidence(tmp_path):
    for args in (["-m", "svt4", "-e", "1/10", "--n", "4", "-p", "threshold=1", "-p", "cutoff=1"],
                 ["-m", "svt4", "-e", "1/10", "--n", "4", "-p", "threshold=1", "-p", "cutoff=1", "--delta", "1/1000"]):
        f = tmp_path / "v.json"
        assert run(["verify", *args, "-o", str(f)]).exit_code == 1
        assert run(["replay", str(f)]).exit_code == 0
    # the same δ claim, replayed at δ = 1/2: the hockey-stick divergence is far below -> 1
    rec = json.loads(f.read_text())["replay"]
    (tmp_path / "d.json").write_text(json.dumps(dict(rec, delta="1/2")))
    assert run(["replay", str(tmp_path / "d.json")]).exit_code == 1


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ('{"command": "verify", "verdict": "private-within-scope"}', "no replayable evidence"),
    ('{"mechanism": "pf", "params": {"epsilon": "1"}, "kind": "counterexample", "evidence": "selection", '
     '"neighbourhood": {"relation": "box", "sensitivity": "1"}, "scores": ["0", "0"], "neighbour_scores": ["1"], '
     '"output": 0}', "differ in length"),
    ('{"mechanism": "pf", "params": {"epsilon": "1"}, "kind": "counterexample", "evidence": "selection", '
     '"neighbourhood": {"relation": "nosuch"}, "scores": ["0", "0"], "neighbour_scores": ["1", "0"], "output": 0}',
     "unknown relation"),
    ('{"mechanism": "pf", "params": {"epsilon": "1"}, "kind": "counterexample", "evidence": "selection", '
     '"neighbourhood": {"relation": "box"}, "scores": ["0", "0"], "neighbour_scores": ["1", "0"], "output": 7}',
     "index"),
    ('[1, 2]', "JSON object"),
])
def test_replay_malformed_file_exits_2(tmp_path, content, message):
    f = tmp_path / "bad.json"
    f.write_text(content)
    r = run(["replay", str(f)])
    assert r.exit_code == 2 and r.stderr.startswith("error: FILE") and message in r.stderr, r.output
    assert "Traceback" not in r.output
    assert run(["replay", str(tmp_path / "missing.json")]).exit_code == 2


# --- check: --fail-on expectation (default) | refutation ----------------------------------------------

CATALOGUE = '''
from proofs_checks import Verdict, claim

@claim("{p}.theorem.1", "A statement that holds.", "here", expected="holds")
def a(quick):
    return Verdict("holds", True, "nothing", {{}})

@claim("{p}.theorem.2", "A statement refuted as expected.", "here", expected="refuted", severity="erratum")
def b(quick):
    return Verdict("{second}", True, "nothing", {{}})
'''


@pytest.mark.parametrize("paper, second, fail_on, code", [
    ("mina", "refuted", "expectation", 0),  # every verdict is the expected one
    ("minb", "refuted", "refutation", 1),  # a refutation, expected or not
    ("minc", "inconclusive", "expectation", 1),  # differs from its expectation
    ("mind", "inconclusive", "refutation", 3),  # nothing refuted, one inconclusive
    ("minf", "holds", "refutation", 0),
])
def test_check_exit_codes(tmp_path, paper, second, fail_on, code):
    f = tmp_path / f"{paper}.py"
    f.write_text(CATALOGUE.format(p=paper, second=second))
    r = run(["check", "--catalogue", str(f), "--fail-on", fail_on, "--json"])
    assert r.exit_code == code, r.output
    d = doc_of(r, "check")
    assert [c["verdict"] for c in d["claims"]] == ["holds", second]


def test_check_usage_errors_exit_2(tmp_path):
    assert run(["check", "--fail-on", "sometimes"]).exit_code == 2
    assert run(["check", "--catalogue", str(tmp_path / "none.py")]).exit_code == 2


# --- the other commands: 0 when they answer, 1 when the answer is "fails", 2 on bad input ------------

QUICK = {
    "pmf": (["pmf", "-m", "svt1", "-e", "1/2", "-q", "0,1,2", "-p", "threshold=1", "-b", "exact"], 0),
    "prob": (["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1"], 0),
    "optimal": (["optimal", "--n", "3", "--k", "1", "-e", "1", "--mechanisms", "pf", "--certify"], 0),
    "ldp": (["ldp", "-m", "brr", "-N", "4", "-e", "1"], 0),
    "optimal-ldp": (["optimal-ldp", "-N", "3", "-e", "log(3)"], 0),
    "delta": (["delta", "--gaussian", "2", "--delta", "1e-5"], 0),
    "curve": (["curve", "-m", "grr", "-e", "1", "-p", "k=3", "--delta-of-epsilon", "0,1/2"], 0),
    "mechanisms": (["mechanisms"], 0),
    "conform": (["conform", "pf", "--draws", "200"], 0),
    "bench-peers": (["bench-peers", "--name", "iSVT3", "--name", "histogram_eps"], 0),
    "bench": (["bench", "--quick"], 0),
}

USAGE = {
    "pmf": ["pmf", "-m", "pf", "-e", "x", "-q", "1,0"],
    "prob": ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "1:0:2"],
    "optimal": ["optimal", "--n", "0", "--k", "1", "-e", "1"],
    "ldp": ["ldp", "-m", "nosuch", "-N", "4", "-e", "1"],
    "optimal-ldp": ["optimal-ldp", "-N", "3", "-e", "-1"],
    "delta": ["delta", "--gaussian", "2"],
    "curve": ["curve", "-m", "em", "-e", "1", "--zcdp"],
    "mechanisms": ["mechanisms", "--no-such-option"],
    "conform": ["conform", "nosuch"],
    "bench-peers": ["bench-peers", "--suite", "nosuch"],
    "schema": ["schema", "nosuch"],
    "sweep": ["sweep", "missing.toml", "--store", "s"],
    "bench-verifier": ["bench-verifier", "--no-such-option"],
    "bench": ["bench", "--no-such-option"],
}


@pytest.mark.parametrize("command", sorted(QUICK))
def test_each_command_json_validates_against_its_schema(command):
    args, code = QUICK[command]
    r = run([*args, "--json"])
    assert r.exit_code == code, r.output
    doc_of(r, command)


@pytest.mark.parametrize("command", sorted(USAGE))
def test_usage_errors_exit_2_with_one_line(command):
    r = run(USAGE[command])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output


def test_conform_fails_with_1(tmp_path):
    (tmp_path / "broken.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from dpexact.mechanisms.exponential import ExponentialMechanism
        from dpexact.protocols import MechanismProperties

        @dataclass(frozen=True)
        class Liar(ExponentialMechanism):
            @property
            def properties(self):
                return MechanismProperties(symmetric=True)
        """))
    r = run(["conform", f"{tmp_path / 'broken.py'}:Liar", "-p", "measure=1,2,3", "--json"])
    assert r.exit_code == 1 and doc_of(r, "conform")["passed"] is False


def test_bench_peers_and_bench_verifier_exit_1_on_a_wrong_row(monkeypatch):
    import dpexact.suites.peers as ps
    import dpexact.suites.soundness as sb

    real = ps.run_suites

    def flagged(suites=None, names=None):  # a private entry reported violated
        rows = real(suites, names)
        import dataclasses

        return [dataclasses.replace(r, verdict="violated") if r.truth == "private" else r for r in rows]

    monkeypatch.setattr(ps, "run_suites", flagged)
    r = run(["bench-peers", "--name", "histogram", "--json"])
    assert r.exit_code == 1 and doc_of(r, "bench-peers")["rows"][0]["verdict"] == "violated"

    rows = [sb.BenchmarkRow("em ε=1", "private", "violated", True, 1.2, 1.0, 0.1, "pf Def. 4", None),
            sb.BenchmarkRow("pf ε=1", "private", "private-within-scope", True, 1.0, 1.0, 0.1, "pf Thm 1", None)]
    monkeypatch.setattr(sb, "run_benchmark", lambda: rows)
    r = run(["bench-verifier", "--json"])
    assert r.exit_code == 1 and [x["sound"] for x in doc_of(r, "bench-verifier")["rows"]] == [False, True]
    monkeypatch.setattr(sb, "run_benchmark", lambda: rows[1:])
    assert run(["bench-verifier"]).exit_code == 0


def test_sweep_exit_codes_and_schema(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "verify"\nmechanisms = ["em", "no-such-mechanism"]\nepsilon = ["1"]\nn = [2]\n')
    r = run(["sweep", str(spec), "--store", str(tmp_path / "s"), "--workers", "0", "--json"])
    assert r.exit_code == 1  # a failed task
    d = doc_of(r, "sweep")
    assert sorted(p["status"] for p in d["points"]) == ["failed", "ok"]
    ok = [p for p in d["points"] if p["status"] == "ok"][0]
    validate("verify", {k: v for k, v in ok.items() if k not in ("status", "error", "key")})
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = ["1"]\nscores = [["1", "0"]]\n')
    r = run(["sweep", str(spec), "--store", str(tmp_path / "s2"), "--workers", "0", "--json"])
    assert r.exit_code == 0, r.output
    doc_of(r, "sweep")


def test_schema_command_prints_every_schema_and_validates_files(tmp_path):
    for command in COMMANDS:
        r = run(["schema", command])
        assert r.exit_code == 0 and json.loads(r.stdout) == schema(command)
    good = tmp_path / "good.json"
    good.write_text(run(["pmf", "-m", "pf", "-e", "1", "-q", "1,0", "--json"]).stdout)
    assert run(["schema", "pmf", "--validate", str(good)]).exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(good.read_text()), "probabilities": "x"}))
    r = run(["schema", "pmf", "--validate", str(bad)])
    assert r.exit_code == 1 and "probabilities" in r.stdout
    assert run(["schema", "pmf", "--validate", str(tmp_path / "none.json")]).exit_code == 2


def test_schemas_are_package_data():
    """The wheel ships the schemas: setuptools' package-data names them (checked against the files)."""
    import tomllib
    from importlib import resources
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    assert pyproject["tool"]["setuptools"]["package-data"]["dpexact.schemas"] == ["*.schema.json"]
    shipped = sorted(p.name for p in resources.files("dpexact.schemas").iterdir() if p.name.endswith(".schema.json"))
    assert shipped == sorted(f"{c}.schema.json" for c in COMMANDS)


# --- progress lines in logs ---------------------------------------------------------------------------

SLOW_CATALOGUE = '''
import time
from proofs_checks import Verdict, claim

for i in range(4):
    @claim(f"slowp.theorem.{i}", "A statement that takes a while.", "here", expected="holds")
    def check(quick):
        time.sleep(0.4)
        return Verdict("holds", True, "nothing", {})
'''


def test_long_commands_print_plain_progress_lines_when_stderr_is_not_a_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("DPEXACT_PROGRESS_SECONDS", "0.25")
    f = tmp_path / "slowp.py"
    f.write_text(SLOW_CATALOGUE)
    r = run(["check", "--catalogue", str(f), "--json"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("progress: ")]
    assert len(lines) >= 3 and all(re.fullmatch(r"progress: \S.* {2}\d/4 {2}elapsed \d+s( {2}ETA \d+s)?", ln)
                                   for ln in lines), lines
    assert any("ETA" in ln for ln in lines) and json.loads(r.stdout)["claims_done"] == 4  # stdout: JSON only
    # verify and optimal report through common.Progress: its phases become the lines' text
    import io
    import sys
    import time

    from dpexact.cli.common import Progress

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Progress() as p:
        p.report("step", "screening the grid family: pairs 1-8 of 544")
        time.sleep(0.7)
    lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("progress: ")]
    assert lines and all(ln.startswith("progress: screening the grid family: pairs 1-8 of 544  elapsed") for ln in lines)
    monkeypatch.setenv("DPEXACT_PROGRESS_SECONDS", "1000")
    quiet = run(["check", "--catalogue", str(f), "--json"])
    assert "progress:" not in quiet.stderr  # at most one line per period: none in a shorter run


# --- one meaning per option name: renamed options keep their former name for one release ----------

@pytest.mark.parametrize("new, old", [
    (["delta", "--p-pmf", "3/4,1/4", "--q-pmf", "1/4,3/4", "-e", "log(2)", "--compositions", "3", "--json"],
     ["delta", "--p", "3/4,1/4", "--q", "1/4,3/4", "-e", "log(2)", "-k", "3", "--json"]),
    (["ldp", "-m", "brr", "-N", "10", "-e", "1", "--brr-m", "2", "--json"],
     ["ldp", "-m", "brr", "-N", "10", "-e", "1", "--m", "2", "--json"]),
])
def test_former_option_names_still_work_with_a_deprecation_note(new, old):
    a, b = run(new), run(old)
    assert a.exit_code == b.exit_code == 0, b.output
    assert json.loads(a.stdout) == json.loads(b.stdout)
    assert "deprecated" not in a.stderr
    notes = [ln for ln in b.stderr.splitlines() if ln.startswith("note:")]
    assert notes and all("deprecated and will be removed in the next release; use --" in ln for ln in notes)


def test_an_option_given_under_both_names_is_refused():
    r = run(["ldp", "-m", "brr", "-N", "10", "-e", "1", "--brr-m", "2", "--m", "3"])
    assert r.exit_code == 2 and "former name of --brr-m" in r.stderr


def test_hidden_former_names_are_not_in_the_help():
    h = run(["delta", "--help"]).stdout
    assert "--p-pmf" in h and "--compositions" in h and " --q " not in h and " -k" not in h
