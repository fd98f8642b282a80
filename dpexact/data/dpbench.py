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
* :class:`DatasetIntegrityError` (a ``ValueError``): the folder holds a ``SHA256SUMS`` file
  (``sha256sum`` format) and the file's SHA-256 differs from it or is not listed in it.
  Digests are cached per process by (path, size, mtime, inode), so a file is hashed once.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

__all__ = [
    "DPBENCH_DATASETS",
    "DPBENCH_OTHER_DATASETS",
    "DPBENCH_ENV",
    "DPBENCH_DOMAIN",
    "SHA256SUMS",
    "DatasetIntegrityError",
    "DatasetMissingError",
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


class DatasetMissingError(FileNotFoundError):
    """The DPBench folder or file is not available (no directory configured, folder or file absent)."""


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
    for lineno, line in enumerate(sums.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*")  # sha256sum's binary-mode marker
        if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest) or not name:
            raise DatasetIntegrityError(f"{sums}: line {lineno} is not '<sha256> <file name>'", sums, None, None)
        out[name] = digest.lower()
    return out


def verify_dpbench_file(path: "str | os.PathLike[str]") -> bool:
    """Check ``path`` against ``SHA256SUMS`` in its folder.

    Returns:
        True if the folder has a ``SHA256SUMS`` and the file matches it; False if the folder
        has no ``SHA256SUMS`` (nothing to check against).

    Raises:
        DatasetIntegrityError: the digest differs, or the file is not listed.
    """
    p = Path(path)
    sums = p.parent / SHA256SUMS
    if not sums.is_file():
        return False
    expected = _read_sums(sums).get(p.name)
    actual = _file_sha256(p)
    if expected is None:
        raise DatasetIntegrityError(f"DPBench file {p.name} is not listed in {sums}; cannot verify it", p, None, actual)
    if actual != expected:
        raise DatasetIntegrityError(
            f"DPBench file {p} fails its {SHA256SUMS} check (sha256 {actual[:16]}…, expected {expected[:16]}…): "
            "the file was modified or corrupted", p, expected, actual)
    return True


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
        verify: check the file against the folder's ``SHA256SUMS`` when there is one.

    Returns:
        int64 array of length ``bins``: ``x.reshape(bins, 4096 // bins).sum(axis=1)``.

    Raises:
        ValueError: unknown name, bad ``bins``, malformed file.
        DatasetMissingError: no directory configured, missing directory or file.
        DatasetIntegrityError: the file does not match ``SHA256SUMS`` (with ``verify=True``).
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
        raise ValueError(f"{path.name}: expected {DPBENCH_DOMAIN} integer counts, got shape {getattr(x, 'shape', None)}, "
                         f"dtype {getattr(x, 'dtype', None)}")
    if np.any(x < 0):
        raise ValueError(f"{path.name}: negative counts")
    return x.astype(np.int64).reshape(bins, DPBENCH_DOMAIN // bins).sum(axis=1)
