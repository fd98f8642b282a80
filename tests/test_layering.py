"""The import layering of pyproject.toml's import-linter contracts holds (layers, no circles, the
catalogue / sweep above the library, cli on top), and the check catches a break: the same contracts
on a copy with one upward import (numbers -> verify) and one circle must fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(root / 'pyproject.toml')!r}, no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_contracts_kept():
    r = _lint(ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


def test_contracts_catch_an_upward_import_and_a_circle(tmp_path):
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for pkg in ("dpexact", "proofs_checks"):
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    real = tmp_path / "dpexact" / "numbers" / "real.py"
    real.write_text(real.read_text() + "\n\ndef _up():\n    from ..verify import router  # noqa: F401\n")
    bracket = tmp_path / "dpexact" / "verify" / "bracket.py"
    bracket.write_text(bracket.read_text() + "\n\ndef _circle():\n    from . import router  # noqa: F401\n")
    door = tmp_path / "dpexact" / "suites" / "peers.py"  # a second door: a suite reaching into the searches
    door.write_text(door.read_text() + "\n\ndef _second_door():\n    from ..verify.search import selection  # noqa: F401\n")
    r = _lint(tmp_path)
    assert r.returncode != 0
    assert "dpexact.numbers.real -> dpexact.verify.router" in r.stdout
    assert ".bracket -> .router" in r.stdout  # the circle, named by the acyclic-siblings contract
    assert "dpexact.suites.peers -> dpexact.verify.search.selection" in r.stdout  # the front-door contract


#: what only the verifier's own packages may import: the one door is dpexact.verify
_BEHIND_THE_DOOR = ("dpexact.verify.search", "dpexact.verify.proofs")


def _second_doors(text: str) -> list[str]:
    """The imports of ``text`` (Python source) that reach behind the door (``from``/``import`` forms)."""
    import ast

    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [n for n in names if n.startswith(_BEHIND_THE_DOOR)][:1]
    return out


def test_notebooks_use_the_front_door():
    """The notebooks teach dpexact.verify (the CLI's route, with proofs and the bracket), never a search or
    a proof unit directly (import-linter covers the packages; the notebooks are scripts outside them)."""
    found = {p.name: _second_doors(p.read_text()) for p in sorted((ROOT / "notebooks").glob("*.py"))}
    assert found and not any(found.values()), found
    # the scan itself finds both forms
    assert _second_doors("from dpexact.verify.search.selection import verify\nimport dpexact.verify.proofs\n") == [
        "dpexact.verify.search.selection", "dpexact.verify.proofs"]
