"""Shared fixtures. The DPBench data live outside the repository (never committed):
``$DPEXACT_DPBENCH`` if set, else ``../shared/data/dpbench`` next to this checkout, else the
same place next to the repository this one was cloned from (CI runs in a fresh clone)."""

import os
from pathlib import Path

import pytest

from proofs_checks._common import dpbench_candidates, dpbench_directory

REPO = Path(__file__).resolve().parents[1]


def find_dpbench() -> Path:
    """The DPBench directory, or a loud FileNotFoundError (never a silent skip)."""
    path = dpbench_directory()
    if path is None:
        raise FileNotFoundError(
            f"DPBench data not found in {[str(p) for p in dpbench_candidates()]}; set DPEXACT_DPBENCH to the "
            "directory holding <NAME>.n4096.npy"
        )
    return path


# CliRunner captures stderr as a non-terminal, where long commands print `progress:` lines every
# DPEXACT_PROGRESS_SECONDS; tests that read a command's JSON from the mixed output would see them on a
# loaded machine. The progress lines have their own test (test_cli_contract), which sets a short period.
os.environ.setdefault("DPEXACT_PROGRESS_SECONDS", "100000")

# the claim checks (proofs_checks) and the notebooks read $DPEXACT_DPBENCH: point it at the data found
# here, so that a fresh clone next to (or cloned from) the shared folder sees the same data everywhere
try:
    os.environ.setdefault("DPEXACT_DPBENCH", str(find_dpbench()))
except FileNotFoundError:  # tests that need the data fail loudly through the fixture below
    pass


@pytest.fixture(scope="session")
def dpbench_path() -> Path:
    return find_dpbench()


#: The test tiers as ``-m`` expressions, the ones README.md's "Tests" section and .ci/run give
#: (tests/test_tiers.py checks that they agree and that every test is in one of them).
TIERS = {
    "quick": "not slow and not notebooks and not heavy",  # a developer's pre-commit run
    "ci": "not slow",  # the default run: what .ci/run runs
    "slow": "slow",
}

#: node id -> names of the marks of every test collected in this session, recorded before ``-m``
#: deselects any (so a session of one tier still sees the others' tests)
COLLECTED = pytest.StashKey[dict[str, frozenset[str]]]()


#: node ids (a test's id without ``[parameters]``: all its cases) of the `heavy` tests, with their measured
#: CPU seconds: tests/heavy_tests.txt, which states the rule and the measurement
HEAVY = {nodeid.strip(): float(seconds) for seconds, nodeid in (
    line.split(None, 1) for line in (REPO / "tests" / "heavy_tests.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#"))}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid in HEAVY or item.nodeid.split("[")[0] in HEAVY:
            item.add_marker(pytest.mark.heavy)
    config.stash[COLLECTED] = {item.nodeid: frozenset(m.name for m in item.iter_markers()) for item in items}


# DPEXACT_TEST_CPU=FILE: one JSON line per test (node id, CPU seconds of this process and its reaped
# children, wall seconds) appended to FILE, the measurement tests/heavy_tests.txt is chosen from
if os.environ.get("DPEXACT_TEST_CPU"):
    import json
    import resource
    import time

    def _cpu_seconds() -> float:
        return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                     resource.getrusage(resource.RUSAGE_CHILDREN)))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
        cpu, wall = _cpu_seconds(), time.perf_counter()
        try:
            return (yield)
        finally:
            with open(os.environ["DPEXACT_TEST_CPU"], "a") as f:
                f.write(json.dumps({"nodeid": item.nodeid, "cpu": round(_cpu_seconds() - cpu, 3),
                                    "wall": round(time.perf_counter() - wall, 3)}) + "\n")


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """Every test starts at, and leaves behind, mpmath's precision as it found it: several tests set
    ``mpmath.mp.dps`` for their reference values, and a later test's mpmath sums (run in the same worker)
    must not silently inherit it (an order-dependent failure was seen in CI: a 50-digit check at 30 digits)."""
    import mpmath

    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec
