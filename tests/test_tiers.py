"""The test tiers (conftest.TIERS): every test is in one of them, the quick tier keeps at least one
test of every file the default run tests, the marks are registered and enforced (--strict-markers),
and README.md / .ci/run / pyproject.toml give the same expressions."""

import ast
import re
import shlex
import tomllib

import pytest
from _pytest.mark.expression import Expression  # pytest's own -m grammar, so the tiers mean what -m does

from conftest import COLLECTED, HEAVY, REPO, TIERS


def _defines_tests(path) -> bool:
    return any(isinstance(node, ast.FunctionDef) and node.name.startswith("test")
               for node in ast.walk(ast.parse(path.read_text())))


def _tiers_of(marks: frozenset[str]) -> set[str]:
    return {name for name, expr in TIERS.items() if Expression.compile(expr).evaluate(lambda m, **kw: m in marks)}


def test_every_test_is_in_a_tier_and_the_quick_tier_keeps_every_file(request):
    collected = request.config.stash[COLLECTED]
    if request.config.args_source == pytest.Config.ArgsSource.TESTPATHS:  # the whole suite was collected
        files = {nodeid.split("::")[0] for nodeid in collected}
        assert files == {f"tests/{p.name}" for p in (REPO / "tests").glob("test_*.py") if _defines_tests(p)}
        # every entry of tests/heavy_tests.txt still names a test (a renamed one would silently rejoin the quick tier)
        ids = set(collected) | {nodeid.split("[")[0] for nodeid in collected}
        assert not set(HEAVY) - ids, set(HEAVY) - ids
    tiers: dict[str, set[str]] = {}
    for nodeid, marks in collected.items():
        ours = _tiers_of(marks)
        assert ours, f"{nodeid} (marks {sorted(marks)}) is in no tier of {TIERS}"
        tiers.setdefault(nodeid.split("::")[0], set()).update(ours)
    # a file the default run tests keeps a test in the quick tier: `heavy` never takes a module out of it
    assert not [f for f, t in tiers.items() if "ci" in t and "quick" not in t]
    # the tiers are nested as documented: quick within the default run, which leaves out exactly `slow`
    for marks in set(collected.values()):
        ours = _tiers_of(marks)
        assert ("quick" not in ours or "ci" in ours) and (("ci" in ours) != ("slow" in ours)), marks


def test_marks_are_registered_and_unknown_ones_refused(request):
    config = request.config
    assert config.option.strict_markers or "--strict-markers" in config.getini("addopts")
    registered = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    assert {"slow", "heavy", "notebooks"} <= registered
    used = set().union(*request.config.stash[COLLECTED].values())
    assert used <= registered, used - registered


def _pytest_commands(text: str) -> list[list[str]]:
    """The arguments of every ``python -m pytest`` command line in ``text``."""
    return [shlex.split(line.strip())[3:] for line in text.splitlines() if line.strip().startswith("python -m pytest")]


def _tier(args: list[str]) -> str | None:
    return args[args.index("-m") + 1] if "-m" in args else None


def test_readme_ci_and_pyproject_give_the_same_tiers():
    readme = _pytest_commands((REPO / "README.md").read_text())
    ci = _pytest_commands((REPO / ".ci" / "run").read_text())
    addopts = shlex.split(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"])
    assert addopts[addopts.index("-m") + 1] == TIERS["ci"] and "--strict-markers" in addopts
    assert len(ci) == 1 and ci[0] in readme and _tier(ci[0]) is None  # CI runs the default (addopts) tier
    for name in ("quick", "slow"):
        assert any(_tier(c) == TIERS[name] for c in readme), f"README.md gives no command for -m {TIERS[name]!r}"
    # each marker's meaning is stated next to the commands
    section = (REPO / "README.md").read_text()
    assert all(re.search(rf"`{m}`", section) for m in ("slow", "heavy", "notebooks"))
