"""Shared fixtures. The DPBench data live outside the repository (never committed):
``$DPEXACT_DPBENCH`` if set, else ``../shared/data/dpbench`` next to this checkout, else the
same place next to the repository this one was cloned from (CI runs in a fresh clone)."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RELATIVE = Path("shared") / "data" / "dpbench"


def _candidates() -> list[Path]:
    env = os.environ.get("DPEXACT_DPBENCH")
    if env:
        return [Path(env)]
    out = [REPO.parent / RELATIVE]
    try:
        origin = subprocess.run(["git", "-C", str(REPO), "config", "--get", "remote.origin.url"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        origin = ""
    if origin and "://" not in origin:
        out.append(Path(origin).resolve().parent / RELATIVE)
    return out


def find_dpbench() -> Path:
    """The DPBench directory, or a loud FileNotFoundError (never a silent skip)."""
    for path in _candidates():
        if (path / "HEPTH.n4096.npy").exists():
            return path
    raise FileNotFoundError(
        f"DPBench data not found in {[str(p) for p in _candidates()]}; set DPEXACT_DPBENCH to the "
        "directory holding <NAME>.n4096.npy"
    )


# the claim checks (proofs_checks) and the notebooks read $DPEXACT_DPBENCH: point it at the data found
# here, so that a fresh clone next to (or cloned from) the shared folder sees the same data everywhere
try:
    os.environ.setdefault("DPEXACT_DPBENCH", str(find_dpbench()))
except FileNotFoundError:  # tests that need the data fail loudly through the fixture below
    pass


@pytest.fixture(scope="session")
def dpbench_path() -> Path:
    return find_dpbench()
