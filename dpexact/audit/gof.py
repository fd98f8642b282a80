"""Pearson's χ² goodness-of-fit test against an exact law, with its power stated before drawing.

With cell probabilities ``p`` (exact law, merged so that every expected count ``N p_i`` is at
least :data:`MIN_EXPECTED`) and ``N`` draws, ``X² = Σ (O_i − N p_i)² / (N p_i)`` is asymptotically
χ²(k − 1) under the null; under an alternative ``p'`` it is approximately noncentral
χ²(k − 1, λ) with ``λ = N Σ (p'_i − p_i)² / p_i`` (Cochran 1952; Agresti, *Categorical Data
Analysis*, §1.5 and §6.5).

Least favourable alternative at total variation ``t`` (on the cells): writing ``d = p' − p``,
``Σ d_i = 0`` and ``Σ |d_i| = 2t``. For the positive part on a set ``A`` Cauchy–Schwarz gives
``Σ_A d_i² / p_i >= t² / p(A)`` (equality for ``d ∝ p`` on ``A``), likewise ``t² / p(B)`` on the
negative part ``B``; with ``p(A) + p(B) <= 1``, ``1/p(A) + 1/p(B) >= 4``. Hence every ``p'`` at
TV ``>= t`` has ``λ >= 4 N t²`` and the stated power ``P[χ²(k−1, 4 N t²) > c_α]`` is a lower
bound over all of them (moving mass between the two *smallest* cells is the most favourable
case, not the least). The power is the noncentral-χ² approximation; benchmarks/audit_power.py
checks it by simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

__all__ = ["MIN_EXPECTED", "Cells", "TestPlan", "merge_cells", "plan", "draws_for_power", "pearson", "holm"]

#: smallest expected count per cell (Cochran's rule, for every cell; the false-alarm rate this gives is measured in benchmarks/audit_calibration.py)
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Cells:
    """Cells of an exact law: ``edges[i]`` is the label of cell i (a half-open integer range
    ``[lo, hi)`` with ``None`` for an infinite end, or a float interval), ``probs`` their exact
    masses as floats (computed at high precision, then rounded once)."""

    labels: tuple[str, ...]
    probs: tuple[float, ...]
    lows: tuple[float, ...]
    highs: tuple[float, ...]


def merge_cells(lows: Sequence[float], highs: Sequence[float], probs: Sequence[float], n: int,
                min_expected: float = MIN_EXPECTED) -> Cells:
    """Merge adjacent cells (ordered along the support) until each has ``n p_i >= min_expected``:
    the smallest cells are absorbed into their smaller neighbour, so tails merge by exact mass."""
    lo, hi, pr = list(lows), list(highs), list(probs)
    thresh = min_expected / n
    while len(pr) > 2:
        i = int(np.argmin(pr))
        if pr[i] >= thresh:
            break
        j = i - 1 if i == len(pr) - 1 else (i + 1 if i == 0 else (i - 1 if pr[i - 1] <= pr[i + 1] else i + 1))
        a, b = min(i, j), max(i, j)
        lo[a:b + 1], hi[a:b + 1], pr[a:b + 1] = [lo[a]], [hi[b]], [pr[a] + pr[b]]
    if len(pr) < 2 or min(pr) < thresh:
        raise ValueError(f"draws: {n} draws leave fewer than 2 cells with expected count >= {min_expected:g}")
    labels = tuple(_label(a, b) for a, b in zip(lo, hi))
    return Cells(labels, tuple(pr), tuple(lo), tuple(hi))


def _label(a: float, b: float) -> str:
    fa = "-inf" if a == -math.inf else (str(int(a)) if float(a).is_integer() else repr(a))
    fb = "inf" if b == math.inf else (str(int(b)) if float(b).is_integer() else repr(b))
    return f"[{fa}, {fb})"


@dataclass(frozen=True)
class TestPlan:
    """What is stated before drawing: the test, α, the TV it targets and its power at ``draws``."""

    test: str
    alpha: float
    tv: float
    draws: int
    cells: int
    critical: float
    noncentrality: float
    power: float

    def statement(self) -> str:
        return (f"{self.test} on {self.cells} cells from the exact pmf; false-alarm rate α = {self.alpha:g}; "
                f"detects any total variation >= {self.tv:g} (on these cells) with probability >= {self.power:.4f} "
                f"at N = {self.draws} draws (noncentral χ² with λ = 4 N t² = {self.noncentrality:.4g}, the least favourable alternative)")

    def as_dict(self) -> dict[str, Any]:
        return {"test": self.test, "alpha": self.alpha, "tv": self.tv, "draws": self.draws, "cells": self.cells,
                "critical": self.critical, "noncentrality": self.noncentrality, "power": self.power,
                "statement": self.statement()}


def plan(cells: Cells, draws: int, alpha: float, tv: float) -> TestPlan:
    """The Pearson test's critical value and its power against every alternative at TV ``>= tv``."""
    from scipy.stats import chi2, ncx2

    df = len(cells.probs) - 1
    crit = float(chi2.isf(alpha, df))
    lam = 4.0 * draws * tv * tv
    return TestPlan("Pearson χ²", alpha, tv, draws, len(cells.probs), crit, lam, float(ncx2.sf(crit, df, lam)))


def draws_for_power(k_cells: int, alpha: float, tv: float, power: float) -> int:
    """Smallest N with ``P[χ²(k−1, 4 N t²) > c_α] >= power`` for ``k_cells`` cells (bisection)."""
    from scipy.stats import chi2, ncx2

    df = k_cells - 1
    crit = float(chi2.isf(alpha, df))
    lo, hi = 1, 2
    while ncx2.sf(crit, df, 4.0 * hi * tv * tv) < power:
        lo, hi = hi, hi * 2
        if hi > 10**12:
            raise ValueError(f"tv: {tv:g} needs more than 10^12 draws")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ncx2.sf(crit, df, 4.0 * mid * tv * tv) >= power else (mid, hi)
    return hi


@dataclass(frozen=True)
class TestResult:
    statistic: float
    p_value: float
    rejected: bool
    failing: tuple[dict, ...]


def pearson(samples: np.ndarray, cells: Cells, alpha: float) -> TestResult:
    """Pearson's X² of ``samples`` binned into ``cells``; the failing cells are those whose
    standardized residual exceeds the Bonferroni normal quantile over the cells."""
    from scipy.stats import chi2, norm

    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("draws: no samples")
    if not np.all(np.isfinite(x)):
        bad = int(np.count_nonzero(~np.isfinite(x)))
        return TestResult(math.inf, 0.0, True, ({"cell": "non-finite", "observed": bad, "expected": 0.0},))
    n = x.size
    edges = np.asarray(cells.highs[:-1], dtype=np.float64)
    idx = np.searchsorted(edges, x, side="right")
    obs = np.bincount(idx, minlength=len(cells.probs)).astype(np.float64)
    exp = n * np.asarray(cells.probs)
    stat = float(np.sum((obs - exp) ** 2 / exp))
    pv = float(chi2.sf(stat, len(cells.probs) - 1))
    z = (obs - exp) / np.sqrt(exp)
    zc = float(norm.isf(alpha / (2 * len(cells.probs))))
    failing = tuple({"cell": cells.labels[i], "observed": int(obs[i]), "expected": float(exp[i]), "z": float(z[i])}
                    for i in np.argsort(-np.abs(z)) if abs(z[i]) > zc)
    return TestResult(stat, pv, pv < alpha, failing)


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down rejections at family-wise error ``alpha`` (Holm 1979)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rej = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] <= alpha / (m - rank):
            rej[i] = True
        else:
            break
    return rej
