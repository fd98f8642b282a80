"""The command line, the data loaders, the LDP cost model / optimal channel and the hockey-stick
divergence test capabilities with isinstance against declared types (dpexact.protocols, Pmf,
ExpSum, the backends' is_ball / prec), never by probing attribute names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "dpexact"
FILES = sorted([*ROOT.glob("cli/*.py"), *ROOT.glob("data/*.py"), ROOT / "ldp" / "cost_model.py",
                ROOT / "ldp" / "optimal_channel.py", ROOT / "accounting" / "hockey_stick.py"])


def probes(path: Path) -> list[str]:
    """``hasattr(x, "name")`` and ``getattr(x, "name", default)`` calls with a literal name."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name, args = node.func.id, node.args
        literal = len(args) >= 2 and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)
        if literal and (name == "hasattr" or (name == "getattr" and len(args) == 3)):
            out.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_the_scan_finds_probes(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("def f(m, e):\n    return getattr(m, 'output_kind', 'selection'), hasattr(m, 'outputs'), getattr(e, 'x')\n")
    assert probes(f) == ["x.py:2: getattr(m, 'output_kind', 'selection')", "x.py:2: hasattr(m, 'outputs')"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_attribute_probes(path):
    assert probes(path) == []
