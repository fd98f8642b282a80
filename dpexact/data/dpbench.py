"""Loader for the DPBench one-dimensional histograms (Hay et al., SIGMOD 2016).

The pf (§6, App. G) and err (§VI) experiments use five of them on "the 1024 bins of a
discretized domain": the 4096-bin histograms with consecutive groups of ``4096/bins`` bins
summed (``x.reshape(1024, 4).sum(axis=1)`` for ``bins=1024``).

The data are never part of the repository: files ``<NAME>.n4096.npy`` (as published in
``dpcomp_core/datafiles/1D``) are read from ``directory`` or from the directory named by the
environment variable ``DPEXACT_DPBENCH``.

Two failure modes, one exception type each, so that a caller (the claim catalogue, a
notebook) can turn either into "inconclusive (reason)" and never into a number:

* :class:`DatasetMissingError` (a ``FileNotFoundError``): no directory given and
  ``$DPEXACT_DPBENCH`` unset, the directory does not exist, or the file is not in it;
* :class:`DatasetIntegrityError` (a ``ValueError``): the file's SHA-256 differs from the digest
  pinned in the package (:data:`PINNED_SHA256`, the files as published, listed in the data
  folder's ``SHA256SUMS`` when they were fetched), or — when the folder holds a ``SHA256SUMS``
  file (``sha256sum`` format) — differs from it or is not listed in it. The pinned digests are
  always checked: deleting or editing the folder's ``SHA256SUMS`` cannot make a modified file
  load. Digests are cached per process by (path, size, mtime, inode), so a file is hashed once.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = [
    "DPBENCH_DATASETS",
    "DPBENCH_OTHER_DATASETS",
    "DPBENCH_ENV",
    "DPBENCH_DOMAIN",
    "SHA256SUMS",
    "PINNED_SHA256",
    "DatasetIntegrityError",
    "DatasetMissingError",
    "dpbench_directory",
    "dpbench_path",
    "load_dpbench",
    "verify_dpbench_file",
]

#: the five datasets used by pf §6 and err §VI
DPBENCH_DATASETS = ("HEPTH", "ADULTFRANK", "MEDCOST", "SEARCHLOGS", "PATENT")
#: further 1-D DPBench histograms in the same format (not used by the papers)
DPBENCH_OTHER_DATASETS = ("INCOME", "NETTRACE")
DPBENCH_ENV = "DPEXACT_DPBENCH"
DPBENCH_DOMAIN = 4096
#: checksum file looked for in the data folder
SHA256SUMS = "SHA256SUMS"
#: SHA-256 of each DPBench file as published (dpcomp_core/datafiles/1D at commit 233cfcc), pinned in the package
PINNED_SHA256 = {
    "ADULTFRANK.n4096.npy": "d85d9b9fe1ff128820cd103f710200affee71859f721ccb9ecc6e020325e4705",
    "HEPTH.n4096.npy": "a39f1283608ac1eae6d1d5bc289e6eb7a42687b765f5f80af1b40566ff853884",
    "INCOME.n4096.npy": "2bdb4bb9625d836ad923b280d303860dd12034ef3ae0cf9658e834cb95d8a0c5",
    "MEDCOST.n4096.npy": "98ac6a1fb0ccdb0e249a7df49a238145eb971fdbebe1ee805174f99d28ef0dd3",
    "NETTRACE.n4096.npy": "c402b04fa1f007431ef9f414e092064b44726b9a694c550eb446167fd0e670dd",
    "PATENT.n4096.npy": "0dac5363cfc1e15189cf00ef3a817dcfeb39678d986b1951ba4f451b1cc6f864",
    "SEARCHLOGS.n4096.npy": "183561b0a8bd8a6cdd0622468830aaab491400a7ee58db2f46a4496e9a4e2621",
}


class DatasetMissingError(FileNotFoundError):
    """The DPBench folder or file is not available (no directory configured, folder or file absent).
    Its message ends by saying how to get the data."""

    def __str__(self) -> str:
        return (f"{super().__str__()}; to get the DPBench histograms (public upstream, digests checked): "
                f"dpexact data fetch dpbench --dir DIR, then set {DPBENCH_ENV}=DIR")


class DatasetIntegrityError(ValueError):
    """A DPBench file does not match the folder's ``SHA256SUMS`` (tampered, truncated or unlisted).

    Attributes:
        path: the data file.
        expected: the digest listed in ``SHA256SUMS`` (``None`` if the file is not listed).
        actual: the file's SHA-256.
    """

    def __init__(self, message: str, path: Path, expected: "str | None", actual: "str | None") -> None:
        super().__init__(message)
        self.path, self.expected, self.actual = path, expected, actual


_DIGESTS: dict[tuple[str, int, int, int], str] = {}


def _file_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def _read_sums(sums: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        text = sums.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DatasetIntegrityError(f"{sums}: cannot read the checksums ({exc.strerror or exc})", sums, None, None) from None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*")  # sha256sum's binary-mode marker
        if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest) or not name:
            raise DatasetIntegrityError(f"{sums}: line {lineno} is not '<sha256> <file name>'", sums, None, None)
        out[name] = digest.lower()
    return out


def verify_dpbench_file(path: "str | os.PathLike[str]") -> bool:
    """Check ``path`` against its pinned digest (:data:`PINNED_SHA256`) and, when its folder
    holds one, against the folder's ``SHA256SUMS``.

    Returns:
        True: the file is a known DPBench file and matches every digest.

    Raises:
        DatasetIntegrityError: the file is not a known DPBench file, its digest differs from
            the pinned one or from the folder's ``SHA256SUMS``, or that file does not list it.
    """
    p = Path(path)
    pinned = PINNED_SHA256.get(p.name)
    if pinned is None:
        raise DatasetIntegrityError(f"{p.name} is not a known DPBench file (known: {', '.join(sorted(PINNED_SHA256))}); "
                                    "cannot verify it", p, None, None)
    actual = _file_sha256(p)
    if actual != pinned:
        raise DatasetIntegrityError(
            f"DPBench file {p} fails its pinned SHA-256 check (sha256 {actual[:16]}…, expected {pinned[:16]}…, as "
            f"published and listed in {SHA256SUMS}): the file was modified or corrupted", p, pinned, actual)
    sums = p.parent / SHA256SUMS
    if not sums.is_file():
        return True
    expected = _read_sums(sums).get(p.name)
    if expected is None:
        raise DatasetIntegrityError(f"DPBench file {p.name} is not listed in {sums}; cannot verify it", p, None, actual)
    if actual != expected:
        raise DatasetIntegrityError(
            f"DPBench file {p} fails its {SHA256SUMS} check (sha256 {actual[:16]}…, expected {expected[:16]}…): "
            "the file was modified or corrupted", p, expected, actual)
    return True


def dpbench_directory(candidates: "Sequence[str | os.PathLike[str]]" = ()) -> Path:
    """The DPBench folder: ``$DPEXACT_DPBENCH`` if set (alone), else the first of ``candidates``
    that is a directory holding at least one ``<NAME>.n4096.npy``.

    Raises:
        DatasetMissingError: nothing found; the message lists every place looked at.
    """
    env = os.environ.get(DPBENCH_ENV)
    places = [Path(env).expanduser()] if env else [Path(c).expanduser() for c in candidates]
    names = [f"{n}.n{DPBENCH_DOMAIN}.npy" for n in DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS]
    for folder in places:
        if folder.is_dir() and any((folder / n).is_file() for n in names):
            return folder
    where = ", ".join(repr(str(p)) for p in places) or "nowhere (no candidates)"
    raise DatasetMissingError(f"DPBench data not found: looked in {where}"
                              + ("" if env else f"; set {DPBENCH_ENV} to the folder holding <NAME>.n{DPBENCH_DOMAIN}.npy"))


def dpbench_path(name: str, directory: "str | os.PathLike[str] | None" = None) -> Path:
    """Path of ``<NAME>.n4096.npy`` in ``directory`` or ``$DPEXACT_DPBENCH`` (checked to exist).

    Raises:
        TypeError, ValueError: bad ``name``.
        DatasetMissingError: no directory configured, the directory or the file is missing.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().upper()
    known = DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS
    if key not in known:
        raise ValueError(f"name: unknown DPBench dataset {name!r}; choose one of {', '.join(known)}")
    if directory is None:
        env = os.environ.get(DPBENCH_ENV)
        if not env:
            raise DatasetMissingError(
                f"DPBench data not found: no directory given and ${DPBENCH_ENV} is not set; pass directory= "
                f"or set {DPBENCH_ENV} to the folder holding {key}.n{DPBENCH_DOMAIN}.npy"
            )
        directory = env
    folder = Path(directory).expanduser()
    if not folder.is_dir():
        raise DatasetMissingError(f"DPBench data not found: directory {str(folder)!r} does not exist")
    path = folder / f"{key}.n{DPBENCH_DOMAIN}.npy"
    if not path.is_file():
        raise DatasetMissingError(f"DPBench data not found: file {path.name} is not in {str(folder)!r}")
    return path


def load_dpbench(name: str, directory: "str | os.PathLike[str] | None" = None, bins: int = 1024,
                 verify: bool = True) -> np.ndarray:
    """Load a DPBench 1-D histogram, summed into ``bins`` equal groups of consecutive bins.

    Args:
        name: dataset name, e.g. ``"HEPTH"`` (case-insensitive; see :data:`DPBENCH_DATASETS`).
        directory: folder with the ``.npy`` files; default ``$DPEXACT_DPBENCH``.
        bins: number of output bins; must divide 4096 (1024 in pf §6 / err §VI).
        verify: check the file against its pinned digest and the folder's ``SHA256SUMS``
            (``False`` loads data no verdict may rely on; the claim catalogue always verifies).

    Returns:
        int64 array of length ``bins``: ``x.reshape(bins, 4096 // bins).sum(axis=1)``.

    Raises:
        ValueError: unknown name, bad ``bins``, malformed file.
        DatasetMissingError: no directory configured, missing directory or file.
        DatasetIntegrityError: the file does not match its pinned digest or ``SHA256SUMS``
            (with ``verify=True``).
    """
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"bins must be an integer, got {type(bins).__name__}")
    bins = int(bins)
    if bins <= 0 or DPBENCH_DOMAIN % bins != 0:
        raise ValueError(f"bins must be a positive divisor of {DPBENCH_DOMAIN}, got {bins}")
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be a bool, got {type(verify).__name__}")
    path = dpbench_path(name, directory)
    if verify:
        verify_dpbench_file(path)
    try:
        x = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"{path.name}: not a readable .npy array ({exc})") from None
    if not isinstance(x, np.ndarray) or x.shape != (DPBENCH_DOMAIN,) or x.dtype.kind not in "iu":
        got = f"shape {x.shape}, dtype {x.dtype}" if isinstance(x, np.ndarray) else type(x).__name__
        raise ValueError(f"{path.name}: expected {DPBENCH_DOMAIN} integer counts, got {got}")
    if np.any(x < 0):
        raise ValueError(f"{path.name}: negative counts")
    return x.astype(np.int64).reshape(bins, DPBENCH_DOMAIN // bins).sum(axis=1)
