"""Parameters that play a protocol role are typed with the protocol, never ``Any``.

An ``ast`` scan of every module of ``dpexact/``: a parameter whose name is one of :data:`ROLE_NAMES` and whose
annotation is exactly ``Any`` fails the test. The protocols are those of :mod:`dpexact.protocols`
(``Mechanism``, ``ContinuousMechanism`` / ``AnyMechanism``, ``Neighbourhood``, ``Backend``, the capability
protocols) or a precise union (``str | Path | Mechanism`` for the public API's "name, PATH.py:OBJECT or object",
``str | Backend`` for a backend spec, ``Neighbourhood | str | None`` for a proof unit's neighbours).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dpexact"

#: parameter names that denote a protocol role (a mechanism, its law, a neighbourhood or relation, a backend)
ROLE_NAMES = frozenset({"mechanism", "m", "mech", "law", "law_mechanism", "neighbourhood", "nb", "relation",
                        "backend"})


def any_typed_roles(path: Path) -> list[str]:
    """``function(parameter) line N`` for every role-named parameter of ``path`` annotated ``Any``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]:
                ann = arg.annotation
                is_any = ann is not None and (ast.unparse(ann) in ("Any", "typing.Any", "'Any'", '"Any"'))
                if is_any and arg.arg in ROLE_NAMES:
                    out.append(f"{getattr(node, 'name', 'lambda')}({arg.arg}) line {arg.lineno}")
    return out


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_scan_finds_an_any_typed_role(tmp_path):
    """The scan itself: a planted ``mechanism: Any`` is found, a typed one and a non-role name are not."""
    f = tmp_path / "planted.py"
    f.write_text("from typing import Any\n"
                 "def a(mechanism: Any, x: Any) -> None: ...\n"
                 "def b(mechanism: 'Mechanism', nb: Neighbourhood) -> None: ...\n"
                 "class C:\n    def c(self, *, backend: Any = 'float') -> None: ...\n")
    assert any_typed_roles(f) == ["a(mechanism) line 2", "c(backend) line 5"]


@pytest.mark.parametrize("path", [p for p in _modules()],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_protocol_role_is_typed_any(path):
    found = any_typed_roles(path)
    assert not found, f"{path.relative_to(PACKAGE)}: type these with dpexact.protocols: {found}"

