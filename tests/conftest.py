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
