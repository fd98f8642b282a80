"""Validation of histograms (vectors of non-negative integer counts) for the quality functions."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MAX_BINS", "histogram_counts"]

#: Largest histogram accepted (memory guard: a few int64 arrays of this length live at once).
MAX_BINS = 50_000_000
#: Counts are summed and doubled in int64; keep every intermediate below 2**62.
_MAX_TOTAL = 2**60


def histogram_counts(histogram: Any, name: str = "histogram") -> np.ndarray:
    """A 1-D int64 array of non-negative integer counts (a copy), or a ValueError/TypeError naming ``name``.

    Accepts integer arrays and sequences; float entries are accepted only when they are
    finite integers (``3.0``), never rounded.
    """
    if isinstance(histogram, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of counts, got a string")
    if not isinstance(histogram, np.ndarray):
        try:
            seq = list(histogram)
        except TypeError as exc:
            raise TypeError(f"{name} must be a sequence of counts, got {type(histogram).__name__}") from exc
        if any(isinstance(v, (bool, np.bool_)) for v in seq):
            raise TypeError(f"{name} must hold integer counts, got a bool")
        try:
            arr = np.asarray(seq)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a sequence of counts") from exc
    else:
        arr = histogram
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.size > MAX_BINS:
        raise ValueError(f"{name}: {arr.size} bins exceed the limit of {MAX_BINS} (memory guard)")
    if arr.dtype.kind == "b" or arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            bad = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ValueError(f"{name} must be finite; entry {bad} is {arr[bad]}")
        if np.any(arr != np.floor(arr)):
            bad = int(np.flatnonzero(arr != np.floor(arr))[0])
            raise ValueError(f"{name} must hold integer counts; entry {bad} is {arr[bad]}")
        if np.any(np.abs(arr) > _MAX_TOTAL):
            raise ValueError(f"{name}: counts above 2**60 are not supported")
    if np.any(arr < 0):
        bad = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} must hold non-negative counts; entry {bad} is {arr[bad]}")
    if arr.dtype.kind == "u" and arr.dtype.itemsize >= 8 and np.any(arr > _MAX_TOTAL):
        raise ValueError(f"{name}: counts above 2**60 are not supported")
    out = arr.astype(np.int64)
    if int(out.max()) > _MAX_TOTAL // out.size:
        raise ValueError(f"{name}: total count may exceed 2**60 (overflow guard)")
    return out
