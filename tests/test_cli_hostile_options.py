"""Hostile values in every option of every command, including paths, counts and ``module:OBJECT``
names of non-mechanism callables: no code run, no hang, no traceback, one-line refusals.

The generator is ``tests/support/hostile_cli.py``; ``benchmarks/hostile_cli.py`` runs thousands
of its cases, this module a seeded sample plus the option families named in the audit
(``-q``, ``--box``, ``--draws``, ``--search``, ``--severity``, ``-m module:OBJECT``).
"""

import random

import pytest

from support.hostile_cli import (BASE, LONG, PATH_OPTIONS, Case, Workspace, aliases_table, options, random_case,
                                 run_case)

TABLE = options()
ALIASES = aliases_table()
SAMPLE = 40


@pytest.fixture()
def ws(tmp_path):
    return Workspace(tmp_path)


def _check(out, wall=None):
    assert out.kind == "ok", (out.kind, out.case.args, out.message)
    if wall is not None:  # a refusal before any work: generous for a loaded machine, far below a connect timeout
        assert out.seconds < wall, (out.case.args, out.seconds)


def test_every_command_has_a_base_run_and_every_option_a_family():
    commands = {c for c, _, _ in TABLE}
    assert commands - {"version"} <= set(BASE)
    for command, option, flag in TABLE:
        assert flag or option in PATH_OPTIONS or command not in LONG or option == "--data", (command, option)


def test_base_runs_are_clean(ws):
    for command, args in BASE.items():
        if command in LONG:
            continue
        out = run_case(Case(command, "base", "", [a.format(spec=ws.spec, store=ws.root / "store", witness=ws.witness, acc=ws.acc)
                                                  for a in args]), ws)
        assert out.kind == "ok" and out.exit_code in (0, 1, 3), (command, out.exit_code, out.message)


def test_a_seeded_sample_of_the_generator(ws):
    rng = random.Random(20261128)
    for _ in range(SAMPLE):
        _check(run_case(random_case(rng, ws, TABLE, ALIASES), ws))


CALLABLES = ["os:system", "shutil:rmtree", "subprocess:run", "subprocess:Popen", "builtins:exec", "builtins:eval",
             "os:environ.update", "os:_exit", "sys:exit", "time:sleep", "os:remove"]


@pytest.mark.parametrize("spec", CALLABLES)
def test_non_mechanism_callables_with_acting_keywords(ws, spec):
    params = [f"command=touch {ws.sentinel}", f"path={ws.victim}", f"args=touch {ws.sentinel}", "shell=true",
              f"source=open('{ws.sentinel}','w')", "SENTINEL_hostile=1", "seconds=30", "status=3"]
    for args in (["pmf", "-m", spec, "-e", "1", "-q", "1,0"], ["verify", "-m", spec, "-e", "1", "--n", "2"],
                 ["conform", spec], ["optimal", "--n", "2", "--k", "1", "-e", "1", "--mechanisms", f"pf,{spec}"]):
        for p in params if args[0] != "optimal" else [None]:  # optimal takes no -p: the callable gets ε and Δ
            out = run_case(Case(args[0], spec, str(p), args + (["-p", p] if p else [])), ws)
            _check(out)
            assert out.exit_code == 2 and ("refused without calling it" in out.message or "not instantiated" in out.message), (args, p, out.message)


@pytest.mark.parametrize("args", [
    ["pmf", "-m", "pf", "-e", "1", "-q", "0," * 5000 + "1"],
    ["pmf", "-m", "pf", "-e", "1", "-q", "1e308,-1e308"],
    ["pmf", "-m", "em", "-e", "1", "-q", "nan,1"],
    ["pmf", "-m", "pf", "-e", "1", "-b", "exact", "-q", ",".join(str(i) for i in range(2000))],
    ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1," * 2000 + "0:1"],
    ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "-inf:inf"],
    ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "1:0"],
    ["conform", "pf", "--draws", "1000000000"],
    ["conform", "pf", "--draws", "-5"],
    ["verify", "-m", "em", "-e", "1", "--search", "x"],
    ["verify", "-m", "pf", "-e", "1", "--search", "random", "--n", "100000"],
    ["check", "--quick", "--claim", "pf.lemma.7", "--severity", "x"],
    ["check", "--quick", "--claim", "pf.lemma.7", "--severity", ""],
    ["optimal", "--n", "1000000", "--k", "1000000", "-e", "1"],
    ["optimal", "--n", "3", "--k", "2", "-e", "1000"],
    ["sweep", "{spec}", "--store", "{store}", "--workers", "100000"],
    ["sweep", "{spec}", "--store", "{store}", "--scheduler", "lambda: 1"],
    ["check", "--quick", "--claim", "pf.lemma.7", "--scheduler", "tcp://256.1.1.1:99999"],
    ["check", "--quick", "--claim", "pf.lemma.7", "--scheduler", "no-such-host.invalid:8786"],
])
def test_named_option_families(ws, args):
    args = [a.format(spec=ws.spec, store=ws.root / "store", witness=ws.witness, acc=ws.acc) for a in args]
    out = run_case(Case(args[0], "named", "", args), ws)
    _check(out, wall=8.0 if "--scheduler" in args else None)
    if "--scheduler" in args:
        assert out.exit_code == 2 and "--scheduler" in out.message, out.message
