"""Shared fixtures: the DPBench directory lives outside the repository (../shared/data/dpbench)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def dpbench_dir() -> Path:
    env = os.environ.get("DPEXACT_DPBENCH")
    return Path(env) if env else REPO.parent / "shared" / "data" / "dpbench"


@pytest.fixture(scope="session")
def dpbench_path() -> Path:
    path = dpbench_dir()
    if not (path / "HEPTH.n4096.npy").exists():
        raise FileNotFoundError(
            f"DPBench data not found in {path}; set DPEXACT_DPBENCH to the directory holding <NAME>.n4096.npy"
        )
    return path
