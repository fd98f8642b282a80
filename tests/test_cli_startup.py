"""Start-up stays light (measured in benchmarks/cli_startup.py, not timed here): importing the
package root or the command line loads neither numpy nor the sweep machinery, and ``-h`` lists the
commands in the documented order with any unplaced command after them."""

import subprocess
import sys
from pathlib import Path

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
