"""Local DP of a channel matrix: the maximum column ratio (brr §2, Definition of ε-LDP).

A channel ``K[x, y] = Pr[y | x]`` (rows: inputs, columns: outputs) is ε-LDP iff for every
output y and inputs x, x':  ``K[x, y] <= e^ε K[x', y]``. Its exact LDP level is

    ε_LDP(K) = max_y log( max_x K[x, y] / min_x K[x, y] )      (+inf if a column mixes 0 and > 0).

Input: a numpy float array (result: float, with the bound ``|error| <= 2u`` on the ratio,
one division and the rows' own rounding not included) or a nested list of exact numbers
(``Fraction``, ``fmpq``, ints, decimal strings; result: the exact maximal ratio as fmpq).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...numbers.real import Real

__all__ = ["LdpLevel", "ldp_level"]


@dataclass(frozen=True)
class LdpLevel:
    """``ratio`` = max column ratio (fmpq exact, or float), ``epsilon`` = its log (float),
    ``column`` and ``rows`` = where it is attained (x_max, x_min), ``rel_error`` of ``ratio``."""

    ratio: Any
    epsilon: float
    column: int
    rows: tuple[int, int]
    rel_error: float


def ldp_level(channel: Any) -> LdpLevel:
    """Exact (or float) LDP level of a channel matrix; rows must be probability vectors."""
    if isinstance(channel, np.ndarray) and channel.dtype.kind in "fiu":
        K = np.asarray(channel, dtype=float)
        if K.ndim != 2 or K.shape[0] < 1 or K.shape[1] < 1:
            raise ValueError(f"channel must be a non-empty 2-D matrix, got shape {K.shape}")
        if not np.all(np.isfinite(K)) or np.any(K < 0):
            raise ValueError("channel entries must be finite and >= 0")
        if not np.allclose(K.sum(axis=1), 1.0, rtol=0, atol=1e-12 * K.shape[1]):
            raise ValueError("channel rows must sum to 1 (rows are inputs x, columns outputs y)")
        hi, lo = K.max(axis=0), K.min(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(hi == 0, 1.0, hi / lo)
        y = int(np.argmax(ratio))
        r = float(ratio[y])
        return LdpLevel(r, math.log(r) if r < math.inf else math.inf, y,
                        (int(np.argmax(K[:, y])), int(np.argmin(K[:, y]))), 2 * 2.0**-53)
    from flint import fmpq

    try:
        rows = [list(r) for r in channel]
    except TypeError as exc:
        raise TypeError("channel must be a 2-D numpy array or a nested sequence") from exc
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("channel must be a non-empty rectangular matrix")
    Q = []
    for i, r in enumerate(rows):
        row = []
        for j, v in enumerate(r):
            if type(v).__name__ == "fmpq":
                v = Fraction(int(v.p), int(v.q))
            x = Real.of(v, f"channel[{i}][{j}]")
            if not x.is_rational:
                raise ValueError(f"channel[{i}][{j}] must be rational for the exact path, got {x}")
            if x.value < 0:
                raise ValueError(f"channel[{i}][{j}] must be >= 0, got {x}")
            row.append(x.value)
        if sum(row) != 1:
            raise ValueError(f"channel row {i} sums to {sum(row)}, not 1")
        Q.append(row)
    best, where = None, (0, (0, 0))
    for y in range(len(Q[0])):
        col = [r[y] for r in Q]
        hi, lo = max(col), min(col)
        if hi == 0:
            continue
        ratio = math.inf if lo == 0 else hi / lo
        if best is None or ratio > best:
            best, where = ratio, (y, (col.index(hi), col.index(lo)))
    if best is None:
        raise ValueError("channel has no positive entry")
    if best == math.inf:
        return LdpLevel(math.inf, math.inf, where[0], where[1], 0.0)
    exact = fmpq(best.numerator, best.denominator)
    return LdpLevel(exact, math.log(best.numerator) - math.log(best.denominator), where[0], where[1], 0.0)
