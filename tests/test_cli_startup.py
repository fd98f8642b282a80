"""Start-up stays light (measured in benchmarks/cli_startup.py, not timed here): importing the
package root or the command line loads neither numpy nor the sweep machinery, and ``-h`` lists the
commands in the documented order with any unplaced command after them."""

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from dpexact.cli import main

REPO = Path(__file__).resolve().parents[1]


def _loaded(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"], cwd=REPO,
                         capture_output=True, text=True, check=True, env={"PYTHONPATH": str(REPO), "PATH": ""})
    return set(out.stdout.split())


def test_version_and_help_import_no_numpy_no_sweep():
    mods = _loaded("import dpexact.cli.main")
    assert "typer" in mods  # the probe sees imports
    heavy = {m for m in mods if m.split(".")[0] in ("numpy", "sympy", "flint", "dask", "scipy", "pyarrow")
             or m.startswith(("dpexact.sweep", "dpexact.mechanisms", "dpexact.numbers"))}
    assert heavy == set()


def test_package_root_is_light_and_still_exports_the_registry():
    assert "numpy" not in _loaded("import dpexact")
    assert "numpy" in _loaded("import dpexact; dpexact.mechanism('pf', epsilon=1)")
    import dpexact
    from dpexact.mechanisms import registry

    assert dpexact.mechanism is registry.mechanism and dpexact.available is registry.available


def test_help_lists_commands_in_the_documented_order():
    out = CliRunner().invoke(main.app, ["-h"], env={"COLUMNS": "100"}).stdout
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.strip()]
    placed = [c for c in main.COMMAND_ORDER if c in listed]
    assert listed[: len(placed)] == placed and listed[0] == "check"


def test_an_unplaced_command_follows_the_placed_ones():
    app = typer.Typer(cls=main._Group, rich_markup_mode=None)
    for name in ("zeta", "alpha", "verify", "check"):
        app.command(name)(lambda: None)
    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100"}).stdout
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == ["check", "verify", "alpha", "zeta"]


def test_a_theorem_route_does_not_import_sympy_but_a_symbolic_proof_does():
    assert "sympy" not in _loaded("import dpexact; assert dpexact.verify('pf', epsilon=1).verdict == 'private'")
    assert "sympy" in _loaded("import dpexact; assert dpexact.verify('svt1', epsilon=1, param={'threshold': '1'}).verdict == 'private'")


# --- the three short command lines of issue #36: what they import (not timed: a count and a list,
# which a loaded machine cannot change; times are in benchmarks/cli_startup.py) -------------------

_RUN_CLI = """import sys, atexit
atexit.register(lambda: sys.stderr.write("\\nMODULES " + " ".join(sys.modules) + "\\n"))
import runpy
sys.argv = ["dpexact"] + sys.argv[1:]
runpy.run_module("dpexact", run_name="__main__", alter_sys=True)
"""

# measured after the light coercion (cli/coercion.py): 178, 190, 455 modules (Python 3.11, typer 0.29);
# the ceilings leave room for a few standard-library modules, not for a new heavy dependency
STARTUP_CASES = {
    ("--version",): (230, {"numpy", "pydantic", "sympy", "scipy", "dask", "flint", "rich"}),
    ("schema", "list"): (240, {"numpy", "pydantic", "sympy", "scipy", "dask", "flint"}),
    ("verify", "-m", "pf", "-e", "1"): (560, {"pydantic", "sympy", "scipy", "dask", "pyarrow", "cvxpy", "highspy", "numba",
                                              "dpexact.mechanisms.heterogeneous", "dpexact.lp", "dpexact.sweep"}),
}


def _cli_modules(args: tuple[str, ...]) -> set[str]:
    r = subprocess.run([sys.executable, "-c", _RUN_CLI, *args], cwd=REPO, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO), "PATH": "", "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    return set(r.stderr.rsplit("MODULES ", 1)[1].split())


@pytest.mark.parametrize("args", list(STARTUP_CASES), ids=" ".join)
def test_short_command_lines_import_little(args):
    ceiling, absent = STARTUP_CASES[args]
    mods = _cli_modules(args)
    assert "typer" in mods and "dpexact.cli.main" in mods  # the probe sees the command line's imports
    loaded = {a for a in absent if a in mods or any(m.startswith(a + ".") for m in mods)}
    assert loaded == set()
    assert len(mods) <= ceiling


def test_the_module_probe_sees_a_heavy_import():
    """Mutation of the check above: a command line that imports pydantic is seen doing so."""
    r = subprocess.run([sys.executable, "-c", "import pydantic\n" + _RUN_CLI, "--version"], cwd=REPO,
                       capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert "pydantic" in set(r.stderr.rsplit("MODULES ", 1)[1].split())


# --- the light coercion gives typer's own values on every option of the real command line ----------

def _typer_params():
    import typer.main

    from dpexact.cli.coercion import LightParam

    def walk(cmd):
        for p in cmd.params:
            yield cmd.name, p
        for sub in getattr(cmd, "commands", {}).values():
            yield from walk(sub)

    out = [(name, p) for name, p in walk(typer.main.get_command(main.app)) if p.__dict__.get("type_descriptor")]
    assert out and all(isinstance(p.get_runtime_param(), LightParam) for _, p in out)
    return out


def _samples(annotation) -> list:
    base = [None, "1", "abc", "0.5", "-3", " 2 ", ""]
    return base + {int: [7, 0], float: [0.25, 3.0], str: ["x y"]}.get(annotation, []) + [("a", "b"), ()]


def test_light_coercion_equals_typers_on_every_option():
    from typer import core

    from dpexact.cli import coercion

    if "build_runtime_param" not in core.__dict__:  # a typer before runtime coercion: click converts, nothing replaced
        assert coercion._installed is False
        return
    checked = 0
    for cmd, p in _typer_params():
        light = p.get_runtime_param()
        full = light.full()
        ctx = typer.main.get_command(main.app).make_context("dpexact", [], resilient_parsing=True)
        for v in _samples(light.descriptor.annotation):
            try:
                want = ("ok", full.coerce(v, param=p, ctx=ctx))
            except Exception as exc:  # noqa: BLE001 — the same failure is what must match
                want = ("error", type(exc).__name__, str(exc))
            try:
                got = ("ok", light.coerce(v, p, ctx))
            except Exception as exc:  # noqa: BLE001
                got = ("error", type(exc).__name__, str(exc))
            assert got == want, (cmd, p.name, v)
            checked += 1
    assert checked > 1000
