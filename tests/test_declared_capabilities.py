"""Capabilities are declared, never probed: no ``hasattr(x, "name")`` / ``getattr(x, "name", default)`` on a
literal attribute name in the modules that read mechanisms' capabilities (verification/, conformance/, the utility
metrics, protocols/). A capability is a Protocol in :mod:`dpexact.protocols` tested with ``isinstance``.

The scan parses each module (``ast``) and lists every such call with its line; the allow-list below is for
uses that are not capability probes, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "dpexact"
SCANNED = ["verification", "conformance", "utility", "quality", "protocols"]

#: (path relative to dpexact/, attribute name) -> why it is not a capability probe
ALLOWED: dict[tuple[str, str], str] = {}


def _probes(path: Path) -> list[tuple[int, str, str]]:
    """``(line, function, attribute)`` of every hasattr / 3-argument getattr on a literal name."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        fn = node.func.id
        probe = (fn == "hasattr" and len(node.args) == 2) or (fn == "getattr" and len(node.args) == 3)
        if probe and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            out.append((node.lineno, fn, node.args[1].value))
    return out


def _modules() -> list[Path]:
    files = []
    for part in SCANNED:
        base = ROOT / part
        files += sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
    return [f for f in files if f.exists()]


def test_the_scan_finds_a_probe(tmp_path):
    """The scanner itself: a probe of each form is found, an attribute access and a dynamic name are not."""
    f = tmp_path / "m.py"
    f.write_text('a = hasattr(m, "noise_scale")\nb = getattr(m, "cutoff", None)\nc = getattr(m, "x")\n'
                 'd = getattr(m, name, None)\ne = m.cutoff\n')
    assert _probes(f) == [(1, "hasattr", "noise_scale"), (2, "getattr", "cutoff")]


def test_the_scan_covers_the_modules():
    names = {str(p.relative_to(ROOT)) for p in _modules()}
    assert {"verification/router.py", "verification/kinds.py", "conformance/checks.py", "protocols/mechanism.py",
            "utility/expected_error.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_capability_probe(path):
    rel = str(path.relative_to(ROOT))
    found = [f"{rel}:{line} {fn}(…, {name!r}…)" for line, fn, name in _probes(path) if (rel, name) not in ALLOWED]
    assert not found, "declare the capability in dpexact/protocols and test it with isinstance: " + "; ".join(found)
