"""Quality function for private median selection (pf §6 "Median", after Smith 2011 [pf ref. 29]).

pf §6: "the (negated) number of individuals that must be added or removed to make a given
bin become the median". The reading implemented here, made precise:

* A dataset is a multiset of records, each falling in one of the ordered bins ``0..n-1``;
  ``x_r`` is the count of bin ``r`` and ``N = Σ x_r``.
* The median record of a dataset of ``N >= 1`` records is, after sorting, the record at
  position ``⌈N/2⌉`` (1-based; the *lower* median) for ``which="lower"``, or at position
  ``⌊N/2⌋ + 1`` (the *upper* median) for ``which="upper"``; the two coincide for odd ``N``.
  Bin ``r`` *is the median* when it contains the median record.
* ``q_r = -d_r`` with ``d_r`` the minimum number of single-record additions or removals
  (each operation adds one record to, or removes one record from, any bin) that turn the
  dataset into one whose median is in bin ``r``.

Closed form (lower median). With ``L = Σ_{s<r} x_s`` records below bin ``r`` and
``U = Σ_{s>r} x_s`` above, bin ``r`` holds the lower median iff ``L < N/2 <= L + x_r``,
i.e. iff ``a = L - (x_r + U) <= -1`` and ``b = U - (L + x_r) <= 0``. Every operation
changes each of ``a`` and ``b`` by exactly ±1, and adding a record to bin ``r`` lowers both,
so

    d_r = max(0, 2L - N + 1, N - 2(L + x_r)).

This is the formula of the pf authors' code (``median_quality``: ``N - 2A[i]`` left of the
median, ``2A[i-1] - N + 1`` right of it, ``A`` the cumulative counts). The upper median of
``x`` is the lower median of the reversed histogram, which gives
``d_r = max(0, 2U - N + 1, N - 2(U + x_r))``.

Sensitivity: one addition/removal changes ``d_r`` by at most 1 for every ``r`` (``d_r`` is a
distance in the add/remove graph, so the triangle inequality applies): Δ = 1. The median
quality is *not* monotone in the sense of pf Remark 1 (adding a record above the median
lowers the scores of bins below it), so it is used with ``monotone=False``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .histogram import histogram_counts

__all__ = ["median_quality", "median_distance"]


def median_distance(histogram: Any, *, which: Literal["lower", "upper"] = "lower") -> np.ndarray:
    """``d_r``: the minimum number of record additions/removals making bin ``r`` the median.

    See the module docstring for the definition and the closed form. Returns int64, >= 0,
    equal to 0 exactly at the current median bin (for ``N >= 1``; for ``N = 0`` every bin
    needs one addition).
    """
    if which not in ("lower", "upper"):
        raise ValueError(f"which must be 'lower' or 'upper', got {which!r}")
    x = histogram_counts(histogram)
    if which == "upper":
        return median_distance(x[::-1], which="lower")[::-1].copy()
    n_total = int(x.sum())
    below = np.concatenate(([0], np.cumsum(x)[:-1]))  # L_r = Σ_{s<r} x_s
    upto = below + x  # L_r + x_r
    d = np.maximum(2 * below - n_total + 1, n_total - 2 * upto)
    return np.maximum(d, 0).astype(np.int64)


def median_quality(histogram: Any, *, which: Literal["lower", "upper"] = "lower") -> np.ndarray:
    """Median quality scores ``q_r = -d_r`` (pf §6; sensitivity 1, not monotone).

    Args:
        histogram: 1-D non-negative integer counts over ordered bins.
        which: ``"lower"`` (default; position ``⌈N/2⌉``, as in the pf code) or ``"upper"``
            (position ``⌊N/2⌋ + 1``) median for even ``N``.

    Returns:
        int64 array ``q`` with ``max(q) = 0`` at the median bin.
    """
    return -median_distance(histogram, which=which)
