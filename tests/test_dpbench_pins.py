"""DPBench digests are pinned in the package: deleting or forging the data folder's SHA256SUMS
no longer lets a modified file load, and a claim run on it is inconclusive (never a number).
Every data file here is a copy in a temporary folder (the data are never committed)."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpexact.data import DatasetIntegrityError, load_dpbench, verify_dpbench_file

from conftest import find_dpbench

DATA = find_dpbench()


def _swapped(tmp_path: Path, name: str = "HEPTH") -> Path:
    """A folder without SHA256SUMS whose ``name`` has its largest bin swapped with its first."""
    raw = np.load(DATA / f"{name}.n4096.npy")
    i = int(np.argmax(raw))
    assert raw[i] != raw[0]
    raw[[0, i]] = raw[[i, 0]]
    np.save(tmp_path / f"{name}.n4096.npy", raw)
    return tmp_path


def test_the_pins_are_the_published_digests():
    from dpexact.data.dpbench import PINNED_SHA256

    listed = {}
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        listed[name] = digest
    assert PINNED_SHA256 == listed
    for name, digest in PINNED_SHA256.items():  # and the files themselves, hashed independently here
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest


def test_a_swapped_file_is_refused_without_sha256sums(tmp_path):
    folder = _swapped(tmp_path)
    assert not (folder / "SHA256SUMS").exists()
    with pytest.raises(DatasetIntegrityError, match="pinned SHA-256") as info:
        load_dpbench("HEPTH", folder)
    assert info.value.expected != info.value.actual
    # the tampering is real and invisible to the total: same sum, different order
    assert load_dpbench("HEPTH", folder, verify=False).sum() == load_dpbench("HEPTH", DATA).sum()


def test_a_forged_sha256sums_does_not_help(tmp_path):
    folder = _swapped(tmp_path)
    digest = hashlib.sha256((folder / "HEPTH.n4096.npy").read_bytes()).hexdigest()
    (folder / "SHA256SUMS").write_text(f"{digest}  HEPTH.n4096.npy\n")
    with pytest.raises(DatasetIntegrityError, match="pinned SHA-256"):
        load_dpbench("HEPTH", folder)


def test_an_intact_copy_without_sha256sums_is_verified(tmp_path):
    (tmp_path / "MEDCOST.n4096.npy").write_bytes((DATA / "MEDCOST.n4096.npy").read_bytes())
    assert verify_dpbench_file(tmp_path / "MEDCOST.n4096.npy") is True
    assert load_dpbench("MEDCOST", tmp_path).tolist() == load_dpbench("MEDCOST", DATA).tolist()


def test_an_unknown_file_is_refused(tmp_path):
    f = tmp_path / "MYDATA.n4096.npy"
    f.write_bytes((DATA / "HEPTH.n4096.npy").read_bytes())
    with pytest.raises(DatasetIntegrityError, match="not a known DPBench file"):
        verify_dpbench_file(f)


def test_a_claim_on_a_tampered_file_is_inconclusive(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    _swapped(folder)
    env = {**os.environ, "DPEXACT_DPBENCH": str(folder), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    p = subprocess.run([sys.executable, "-m", "dpexact", "check", "--quick", "--claim", "pf.text.hepth-mode-pf-error", "--json"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    (outcome,) = json.loads(p.stdout)["claims"]
    assert outcome["verdict"] == "inconclusive" and not outcome["certified"], outcome
    assert "pinned SHA-256" in json.dumps(outcome), outcome
