"""Loader for the DPBench one-dimensional histograms (Hay et al., SIGMOD 2016).

The pf (§6, App. G) and err (§VI) experiments use five of them on "the 1024 bins of a
discretized domain": the 4096-bin histograms with consecutive groups of ``4096/bins`` bins
summed (``x.reshape(1024, 4).sum(axis=1)`` for ``bins=1024``).

The data are never part of the repository: files ``<NAME>.n4096.npy`` (as published in
``dpcomp_core/datafiles/1D``) are read from ``directory`` or from the directory named by the
environment variable ``DPEXACT_DPBENCH``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

__all__ = ["DPBENCH_DATASETS", "DPBENCH_OTHER_DATASETS", "DPBENCH_ENV", "DPBENCH_DOMAIN", "load_dpbench", "dpbench_path"]

#: the five datasets used by pf §6 and err §VI
DPBENCH_DATASETS = ("HEPTH", "ADULTFRANK", "MEDCOST", "SEARCHLOGS", "PATENT")
#: further 1-D DPBench histograms in the same format (not used by the papers)
DPBENCH_OTHER_DATASETS = ("INCOME", "NETTRACE")
DPBENCH_ENV = "DPEXACT_DPBENCH"
DPBENCH_DOMAIN = 4096


def dpbench_path(name: str, directory: "str | os.PathLike[str] | None" = None) -> Path:
    """Path of ``<NAME>.n4096.npy`` in ``directory`` or ``$DPEXACT_DPBENCH`` (checked to exist)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().upper()
    known = DPBENCH_DATASETS + DPBENCH_OTHER_DATASETS
    if key not in known:
        raise ValueError(f"name: unknown DPBench dataset {name!r}; choose one of {', '.join(known)}")
    if directory is None:
        env = os.environ.get(DPBENCH_ENV)
        if not env:
            raise ValueError(
                f"directory: no DPBench directory given and ${DPBENCH_ENV} is not set; pass directory= "
                f"or set {DPBENCH_ENV} to the folder holding {key}.n{DPBENCH_DOMAIN}.npy"
            )
        directory = env
    folder = Path(directory).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"directory: DPBench directory {str(folder)!r} does not exist")
    path = folder / f"{key}.n{DPBENCH_DOMAIN}.npy"
    if not path.is_file():
        raise FileNotFoundError(f"DPBench file {path.name} not found in {str(folder)!r}")
    return path


def load_dpbench(name: str, directory: "str | os.PathLike[str] | None" = None, bins: int = 1024) -> np.ndarray:
    """Load a DPBench 1-D histogram, summed into ``bins`` equal groups of consecutive bins.

    Args:
        name: dataset name, e.g. ``"HEPTH"`` (case-insensitive; see :data:`DPBENCH_DATASETS`).
        directory: folder with the ``.npy`` files; default ``$DPEXACT_DPBENCH``.
        bins: number of output bins; must divide 4096 (1024 in pf §6 / err §VI).

    Returns:
        int64 array of length ``bins``: ``x.reshape(bins, 4096 // bins).sum(axis=1)``.

    Raises:
        ValueError: unknown name, no directory, bad ``bins``, malformed file.
        FileNotFoundError: missing directory or file.
    """
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"bins must be an integer, got {type(bins).__name__}")
    bins = int(bins)
    if bins <= 0 or DPBENCH_DOMAIN % bins != 0:
        raise ValueError(f"bins must be a positive divisor of {DPBENCH_DOMAIN}, got {bins}")
    path = dpbench_path(name, directory)
    x = np.load(path, allow_pickle=False)
    if x.shape != (DPBENCH_DOMAIN,) or x.dtype.kind not in "iu":
        raise ValueError(f"{path.name}: expected {DPBENCH_DOMAIN} integer counts, got shape {x.shape}, dtype {x.dtype}")
    if np.any(x < 0):
        raise ValueError(f"{path.name}: negative counts")
    return x.astype(np.int64).reshape(bins, DPBENCH_DOMAIN // bins).sum(axis=1)
