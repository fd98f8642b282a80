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
from dpexact.data import DPBENCH_DATASETS, DPBENCH_OTHER_DATASETS, load_dpbench
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
    monkeypatch.delenv("DPEXACT_DPBENCH", raising=False)
    with pytest.raises(ValueError, match="DPEXACT_DPBENCH"):
        load_dpbench("HEPTH")
    with pytest.raises(FileNotFoundError, match="directory"):
        load_dpbench("HEPTH", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="HEPTH.n4096.npy"):
        load_dpbench("HEPTH", tmp_path)


def test_malformed_file(tmp_path: Path) -> None:
    np.save(tmp_path / "HEPTH.n4096.npy", np.zeros(100, dtype=np.int64))
    with pytest.raises(ValueError, match="4096"):
        load_dpbench("HEPTH", tmp_path)
    np.save(tmp_path / "MEDCOST.n4096.npy", -np.ones(4096, dtype=np.int64))
    with pytest.raises(ValueError, match="negative"):
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
