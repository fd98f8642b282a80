"""Quality function for private mode selection (pf §6 "Mode", err §VI).

Candidates are the bins ``r = 0..n-1`` of a histogram ``x`` of a dataset; the quality of bin
``r`` is its count,

    q_r = x_r,

which has sensitivity Δ = 1 under add/remove-one neighbours and is *monotone* (pf Remark 1:
adding an individual can only increase scores), so a mechanism may use the exponent ε/Δ.

Two conventions appear in the sources and both are offered; neither is chosen silently:

* ``convention="counts"`` (default): ``q_r = x_r`` as the papers' text defines it (pf §6,
  err §VI). Use it with ``monotone=False`` (exponent ε/2) or ``monotone=True`` (exponent ε).
* ``convention="doubled"``: ``q_r = 2 x_r``, what the pf authors' experiment code uses
  (``q = 2*x  # due to monotonicity of mode``) together with the non-monotone exponent
  ε/(2Δ), Δ = 1. The mechanism's pmf is then identical to ``counts`` with ``monotone=True``,
  but errors ``q* - q_M`` are measured in units of *two* records, i.e. they are twice the
  error in records.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .histogram import histogram_counts

__all__ = ["mode_quality", "MODE_CONVENTIONS"]

MODE_CONVENTIONS = ("counts", "doubled")


def mode_quality(histogram: Any, *, convention: Literal["counts", "doubled"] = "counts") -> np.ndarray:
    """Mode quality scores ``q_r = x_r`` (``"counts"``) or ``q_r = 2 x_r`` (``"doubled"``).

    Args:
        histogram: 1-D non-negative integer counts ``x`` (one entry per candidate bin).
        convention: ``"counts"`` (pf §6 text; sensitivity 1, monotone) or ``"doubled"``
            (the pf experiment code; see the module docstring).

    Returns:
        int64 array of scores, one per bin.

    Raises:
        ValueError / TypeError: bad histogram (naming ``histogram``) or unknown ``convention``.
    """
    if convention not in MODE_CONVENTIONS:
        raise ValueError(f"convention must be one of {MODE_CONVENTIONS}, got {convention!r}")
    x = histogram_counts(histogram)
    return x if convention == "counts" else 2 * x
