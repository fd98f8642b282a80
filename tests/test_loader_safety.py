"""``-m module:OBJECT`` calls nothing that is not a mechanism.

Non-mechanism callables named with the user's ``-p`` keywords (``shutil:rmtree``, ``os:system``,
``subprocess:run``, ``builtins:exec`` …) through every way a mechanism is named — ``pmf``,
``verify``, ``optimal --mechanisms``, ``conform``, a sweep spec, :func:`dpexact.mechanism` —
are refused in one line and have no effect: the directory they would delete is intact, the file
they would create does not exist. What is a mechanism still loads: the classes of
``examples/``, a ``define_mechanism`` instance, a function marked ``@dpexact.mechanism_factory``.
"""

import os
import shutil
import sys

import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app

from conftest import REPO

runner = CliRunner()
SENTINEL = "SENTINEL_loader"


def _victim(tmp_path):
    d = tmp_path / "victim"
    d.mkdir()
    (d / "keep.txt").write_text("keep")
    return d


def _hostile(tmp_path):
    """(spec, params) pairs: each would delete ``victim`` or create ``SENTINEL`` if called."""
    victim = _victim(tmp_path)
    sentinel = tmp_path / SENTINEL
    return victim, sentinel, [
        ("shutil:rmtree", {"path": str(victim)}),
        ("os:system", {"command": f"touch {sentinel}"}),
        ("subprocess:run", {"args": f"touch {sentinel}", "shell": "true"}),
        ("subprocess:Popen", {"args": f"touch {sentinel}", "shell": "true"}),
        ("subprocess:check_call", {"args": f"touch {sentinel}", "shell": "true"}),
        ("builtins:exec", {"source": f"open({str(sentinel)!r}, 'w')"}),
        ("builtins:eval", {"source": f"open({str(sentinel)!r}, 'w')"}),
        ("builtins:open", {"file": str(sentinel), "mode": "w"}),
        ("os:remove", {"path": str(victim / "keep.txt")}),
        ("os:makedirs", {"name": str(sentinel)}),
        ("pathlib:Path.touch", {"self": str(sentinel)}),
        ("pathlib:Path", {"args": str(sentinel)}),
        ("shutil:copy", {"src": str(victim / "keep.txt"), "dst": str(sentinel)}),
        ("tempfile:mkdtemp", {"dir": str(sentinel)}),
        ("functools:partial", {"func": "x"}),
        ("os:environ", {}),
        ("os:environ.update", {"SENTINEL_loader": "1"}),
    ]


def _untouched(victim, sentinel):
    assert (victim / "keep.txt").read_text() == "keep"
    assert not sentinel.exists() and SENTINEL not in os.environ


def _cli_runs(spec, params):
    ps = [a for k, v in params.items() for a in ("-p", f"{k}={v}")]
    return [
        ["pmf", "-m", spec, "-e", "1", "-q", "1,0", *ps],
        ["verify", "-m", spec, "-e", "1", "--n", "2", *ps],
        ["conform", spec, "-e", "1", *ps],
        ["prob", "-m", spec, "-e", "1", "-q", "0", "--box", "0:1", *ps],
    ]


def test_non_mechanism_callables_are_refused_from_every_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    victim, sentinel, cases = _hostile(tmp_path)
    for spec, params in cases:
        for args in _cli_runs(spec, params) + [["optimal", "--n", "2", "--k", "1", "-e", "1", "--mechanisms", f"pf,{spec}"]]:
            res = runner.invoke(app, args)
            _untouched(victim, sentinel)
            assert res.exit_code == 2 and "Traceback" not in res.output, (args, res.output)
            lines = [ln for ln in res.output.splitlines() if ln.strip()]
            assert lines[-1].startswith("error: ") and spec in lines[-1], (args, res.output)


def test_non_mechanism_callables_are_refused_by_the_python_api(tmp_path):
    victim, sentinel, cases = _hostile(tmp_path)
    for spec, params in cases:
        with pytest.raises(TypeError, match="refused without calling it|not instantiated"):
            dpexact.mechanism(spec, epsilon=1, **params)
        _untouched(victim, sentinel)


def test_a_sweep_spec_naming_a_callable_runs_nothing(tmp_path, monkeypatch):
    """``os:environ.update`` accepts any keywords: called, it would set ``$epsilon``."""
    monkeypatch.delenv("epsilon", raising=False)
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["os:environ.update"]\nepsilon = "1"\nscores = "1,0"\n')
    res = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "st"), "--workers", "0", "--json"])
    called = "epsilon" in os.environ
    monkeypatch.delenv("epsilon", raising=False)
    assert not called
    assert "Traceback" not in res.output and res.exit_code != 0, res.output
    assert "refused without calling it" in res.output, res.output


def _user_file(tmp_path):
    f = tmp_path / "user_mechs.py"
    f.write_text(
        "import dpexact, pathlib\n"
        f"MARK = pathlib.Path({str(tmp_path / 'called')!r})\n"
        "def Unmarked(epsilon, sensitivity=1):\n    MARK.write_text('unmarked')\n"
        "    return dpexact.mechanism('pf', epsilon=epsilon)\n"
        "@dpexact.mechanism_factory\n"
        "def Marked(epsilon, sensitivity=1):\n    return dpexact.mechanism('pf', epsilon=epsilon)\n"
        "class NotAMechanism:\n    def __init__(self, epsilon, sensitivity=1):\n        MARK.write_text('init')\n"
        "    def pmf(self, q):\n        return q\n"
        "class Sneaky:\n    @property\n    def pmf(self):\n        MARK.write_text('property')\n"
        "    params = pmf\n"
        "sneaky = Sneaky()\n"
        "defined = dpexact.define_mechanism('mine', lambda q, p, ops: [ops.from_int(1) / len(q)] * len(q), epsilon=1)\n"
    )
    return f


@pytest.mark.parametrize("name, message", [
    ("Unmarked", "must be marked @dpexact.mechanism_factory; refused without calling it"),
    ("NotAMechanism", "class NotAMechanism does not satisfy the dpexact Mechanism protocol"),
    ("sneaky", "is not a mechanism"),
])
def test_user_objects_that_are_not_mechanisms_are_never_called(tmp_path, name, message):
    f = _user_file(tmp_path)
    res = runner.invoke(app, ["pmf", "-m", f"{f}:{name}", "-e", "1", "-q", "1,0"])
    assert res.exit_code == 2 and message in res.output and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "called").exists()


def test_mechanisms_still_load(tmp_path):
    f = _user_file(tmp_path)
    marked = dpexact.mechanism(f"{f}:Marked", epsilon=1)
    assert marked.pmf([1, 0]).values.tolist() == dpexact.mechanism("pf", epsilon=1).pmf([1, 0]).values.tolist()
    defined = dpexact.mechanism(f"{f}:defined")
    assert [str(v) for v in defined.pmf([3, 1, 0], "exact").values] == ["1/3"] * 3
    for path, names in ((REPO / "examples" / "geometric_noisy_max.py", ["GeometricNoisyMax"]),
                        (REPO / "examples" / "own_continuous.py", ["MyLaplace", "MyGaussian", "MyNoisyMaxValue"])):
        for name in names:
            m = dpexact.mechanism(f"{path}:{name}", epsilon=1)
            assert m.params()["epsilon"] == "1"
    assert dpexact.mechanism("dpexact.mechanisms.permute_and_flip:PermuteAndFlip", epsilon=1).short_name == "pf"


def test_help_says_that_loading_runs_the_module():
    for command in ("pmf", "verify", "optimal", "conform", "prob"):
        res = runner.invoke(app, [command, "--help"], terminal_width=200)
        assert "imports (runs)" in " ".join(res.output.split()), command
    assert "imports (runs)" in " ".join((REPO / "README.md").read_text().split())
    assert "imports (runs)" in " ".join((REPO / "docs" / "own-mechanism.md").read_text().split())
