"""DPBench loader: integrity against SHA256SUMS, totals/maxima against the data README, errors.

The data live outside the repository: ``$DPEXACT_DPBENCH`` or ``<repo>/../shared/data/dpbench``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

import dpexact
from dpexact.data import (DPBENCH_DATASETS, DPBENCH_OTHER_DATASETS, DatasetIntegrityError, DatasetMissingError,
                          dpbench_directory, load_dpbench, verify_dpbench_file)
from dpexact.quality import median_quality, mode_quality
from dpexact.utility import expected_error, stochastic_dominance


from conftest import find_dpbench

DATA = find_dpbench()


def _readme_table() -> dict[str, tuple[int, int]]:
    rows = re.findall(r"^\|\s*([A-Z]+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|", (DATA / "README.md").read_text(), re.M)
    return {name: (int(total), int(mx)) for name, total, mx in rows}


def _sha256sums() -> dict[str, str]:
    out = {}
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, name = line.split()
            out[name] = digest
    return out


def test_data_directory_holds_every_dataset() -> None:
    names = {f"{n}.n4096.npy" for n in DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS}
    assert names <= set(_sha256sums())
    assert set(_readme_table()) == set(DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS)


@pytest.mark.parametrize("name", DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS)
def test_files_match_sha256sums(name: str) -> None:
    fname = f"{name}.n4096.npy"
    assert hashlib.sha256((DATA / fname).read_bytes()).hexdigest() == _sha256sums()[fname]


@pytest.mark.parametrize("name", DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS)
def test_totals_and_maxima_match_readme(name: str) -> None:
    total, mx = _readme_table()[name]
    raw = load_dpbench(name, DATA, bins=4096)
    assert raw.dtype == np.int64 and raw.shape == (4096,)
    assert int(raw.sum()) == total and int(raw.max()) == mx and int(raw.min()) >= 0


@pytest.mark.parametrize("name", DPBENCH_DATASETS)
@pytest.mark.parametrize("bins", [1, 64, 1024, 2048])
def test_binning_sums_consecutive_groups(name: str, bins: int) -> None:
    raw = load_dpbench(name, DATA, bins=4096)
    x = load_dpbench(name, DATA, bins=bins)
    width = 4096 // bins
    assert x.shape == (bins,)
    assert x.tolist() == [int(sum(raw[i * width : (i + 1) * width].tolist())) for i in range(bins)]


def test_environment_variable_and_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPEXACT_DPBENCH", str(DATA))
    assert load_dpbench("hepth").tolist() == load_dpbench("HEPTH", DATA).tolist()


def test_missing_directory_and_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every way of not having the data raises the one DatasetMissingError (a FileNotFoundError)."""
    monkeypatch.delenv("DPEXACT_DPBENCH", raising=False)
    with pytest.raises(DatasetMissingError, match="DPEXACT_DPBENCH"):
        load_dpbench("HEPTH")
    with pytest.raises(DatasetMissingError, match="nowhere.*does not exist"):
        load_dpbench("HEPTH", tmp_path / "nowhere")
    with pytest.raises(DatasetMissingError, match="HEPTH.n4096.npy"):
        load_dpbench("HEPTH", tmp_path)
    # a folder with the checksums but without one of the files (the ADULTFRANK case)
    (tmp_path / "SHA256SUMS").write_bytes((DATA / "SHA256SUMS").read_bytes())
    (tmp_path / "HEPTH.n4096.npy").write_bytes((DATA / "HEPTH.n4096.npy").read_bytes())
    with pytest.raises(DatasetMissingError, match="ADULTFRANK.n4096.npy"):
        load_dpbench("ADULTFRANK", tmp_path)
    assert issubclass(DatasetMissingError, FileNotFoundError)


def test_dpbench_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DPEXACT_DPBENCH", raising=False)
    assert dpbench_directory([tmp_path / "nowhere", tmp_path, DATA]) == DATA
    with pytest.raises(DatasetMissingError, match="nowhere"):
        dpbench_directory([tmp_path / "nowhere", tmp_path])
    monkeypatch.setenv("DPEXACT_DPBENCH", str(tmp_path))  # the variable alone decides when set
    with pytest.raises(DatasetMissingError, match=str(tmp_path)):
        dpbench_directory([DATA])


def _copy_with(tmp_path: Path, name: str, x: np.ndarray) -> Path:
    """A data folder holding the real SHA256SUMS and a modified ``name`` (saved as .npy)."""
    (tmp_path / "SHA256SUMS").write_bytes((DATA / "SHA256SUMS").read_bytes())
    np.save(tmp_path / f"{name}.n4096.npy", x)
    return tmp_path


def test_real_data_passes_the_checksums() -> None:
    for name in DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS:
        assert verify_dpbench_file(DATA / f"{name}.n4096.npy") is True
        assert load_dpbench(name, DATA, verify=True).tolist() == load_dpbench(name, DATA, verify=False).tolist()


def test_an_exact_copy_passes(tmp_path: Path) -> None:
    (tmp_path / "SHA256SUMS").write_bytes((DATA / "SHA256SUMS").read_bytes())
    (tmp_path / "HEPTH.n4096.npy").write_bytes((DATA / "HEPTH.n4096.npy").read_bytes())
    assert load_dpbench("HEPTH", tmp_path).tolist() == load_dpbench("HEPTH", DATA).tolist()


def test_tampered_bin_is_an_integrity_error(tmp_path: Path) -> None:
    raw = np.load(DATA / "HEPTH.n4096.npy")
    raw[int(np.argmax(raw))] += 5000
    folder = _copy_with(tmp_path, "HEPTH", raw)
    with pytest.raises(DatasetIntegrityError, match="HEPTH.n4096.npy.*SHA256SUMS") as info:
        load_dpbench("HEPTH", folder)
    assert isinstance(info.value, ValueError) and info.value.path.name == "HEPTH.n4096.npy"
    assert info.value.expected != info.value.actual
    # the tampering is real: without verification the counts differ by exactly 5000
    assert int(load_dpbench("HEPTH", folder, verify=False).sum()) == int(load_dpbench("HEPTH", DATA).sum()) + 5000


def test_all_zero_file_is_an_integrity_error(tmp_path: Path) -> None:
    folder = _copy_with(tmp_path, "HEPTH", np.zeros(4096, dtype=np.int64))
    with pytest.raises(DatasetIntegrityError, match="HEPTH"):
        load_dpbench("HEPTH", folder)


def test_unlisted_file_and_malformed_sums(tmp_path: Path) -> None:
    (tmp_path / "SHA256SUMS").write_text("0" * 64 + "  MEDCOST.n4096.npy\n")
    (tmp_path / "HEPTH.n4096.npy").write_bytes((DATA / "HEPTH.n4096.npy").read_bytes())
    with pytest.raises(DatasetIntegrityError, match="not listed"):
        load_dpbench("HEPTH", tmp_path)
    (tmp_path / "SHA256SUMS").write_text("not a checksum line\n")
    with pytest.raises(DatasetIntegrityError, match="line 1"):
        load_dpbench("HEPTH", tmp_path)


def test_malformed_file(tmp_path: Path) -> None:
    """The format checks (reached unverified: a verified load refuses these by their digest first)."""
    np.save(tmp_path / "HEPTH.n4096.npy", np.zeros(100, dtype=np.int64))
    with pytest.raises(ValueError, match="expected 4096 integer counts"):
        load_dpbench("HEPTH", tmp_path, verify=False)
    np.save(tmp_path / "MEDCOST.n4096.npy", -np.ones(4096, dtype=np.int64))
    with pytest.raises(ValueError, match="negative"):
        load_dpbench("MEDCOST", tmp_path, verify=False)
    with pytest.raises(DatasetIntegrityError, match="pinned"):
        load_dpbench("MEDCOST", tmp_path)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(name="NOPE"), ValueError, "name"),
        (dict(name=3), TypeError, "name"),
        (dict(name="HEPTH", bins=3), ValueError, "bins"),
        (dict(name="HEPTH", bins=0), ValueError, "bins"),
        (dict(name="HEPTH", bins=8192), ValueError, "bins"),
        (dict(name="HEPTH", bins=1024.0), TypeError, "bins"),
        (dict(name="HEPTH", bins=True), TypeError, "bins"),
    ],
)
def test_bad_arguments(kwargs: dict, exc: type, word: str) -> None:
    with pytest.raises(exc, match=word):
        load_dpbench(directory=DATA, **kwargs)


# -- the papers' use of the data (pf §6) ------------------------------------------------------
def test_hepth_mode_conventions_and_dominance() -> None:
    """pf §6 quantities on HEPTH: float vs ball, the two mode conventions, pf Theorem 2."""
    x = load_dpbench("HEPTH", DATA)
    counts, doubled = mode_quality(x), mode_quality(x, convention="doubled")
    eps = "0.04"
    pf_mono = dpexact.mechanism("pf", epsilon=eps, monotone=True)
    pf_std = dpexact.mechanism("pf", epsilon=eps)
    a = expected_error(pf_mono, counts)
    b = expected_error(pf_std, doubled)
    ball = expected_error(pf_std, doubled, backend="ball")
    # identical pmfs (exponent ε·x_r either way), errors measured in units of two records
    assert np.allclose(a.details["pmf"].to_float(), b.details["pmf"].to_float(), rtol=1e-12, atol=0)
    assert abs(b.as_float - 2 * a.as_float) <= b.error_bound + 2 * a.error_bound
    # the float value and its a-priori bound against the rigorous ball
    assert abs(b.as_float - float(ball.value.mid())) <= b.error_bound + ball.error_bound
    d = stochastic_dominance(pf_std, dpexact.mechanism("em", epsilon=eps), doubled, recheck="ball")
    assert d.dominates is True


def test_hepth_median_float_against_ball() -> None:
    x = load_dpbench("HEPTH", DATA)
    q = median_quality(x)
    pf = dpexact.mechanism("pf", epsilon="0.01")
    f, b = expected_error(pf, q), expected_error(pf, q, backend="ball")
    assert abs(f.as_float - float(b.value.mid())) <= f.error_bound + b.error_bound
