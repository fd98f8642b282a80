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
case, not the least). The power is the noncentral-χ² approximation; benchmarks/audit_calibration.py
checks it by simulation.

Critical value: with a ``seed``, X²'s null distribution is simulated from the exact cell
probabilities (:data:`MC_SIMS` multinomial draws) and the p-value is the Monte Carlo one,
``(1 + #{X²_sim >= X²}) / (M + 1)``, which gives a false-alarm rate <= α whatever N and the cells
(Davison & Hinkley 1997, §4.2.1); the χ² approximation alone was measured liberal (1.23 % at
α = 1 %, benchmarks/README.md). Without a seed the asymptotic χ²(k − 1) is used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

__all__ = ["MIN_EXPECTED", "Cells", "TestPlan", "merge_cells", "plan", "draws_for_power", "pearson", "holm"]

#: smallest expected count per cell (Cochran's rule, for every cell; the false-alarm rate this gives is measured in benchmarks/audit_calibration.py)
MIN_EXPECTED = 5.0
#: Monte Carlo draws of the null distribution of X²
MC_SIMS = 20_000


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
    null: Any = field(default=None, repr=False, compare=False)  # simulated null X² (sorted), when Monte Carlo

    def statement(self) -> str:
        how = f"Monte Carlo critical value from {len(self.null)} null draws of the exact law" if self.null is not None else "asymptotic χ² critical value"
        return (f"{self.test} on {self.cells} cells from the exact pmf ({how}); false-alarm rate α = {self.alpha:g}; "
                f"detects any total variation >= {self.tv:g} (on these cells) with probability >= {self.power:.4f} "
                f"at N = {self.draws} draws (noncentral χ² with λ = 4 N t² = {self.noncentrality:.4g}, the least favourable alternative)")

    def as_dict(self) -> dict[str, Any]:
        return {"test": self.test, "alpha": self.alpha, "tv": self.tv, "draws": self.draws, "cells": self.cells,
                "critical": self.critical, "critical_method": "monte-carlo" if self.null is not None else "asymptotic",
                "noncentrality": self.noncentrality, "power": self.power,
                "statement": self.statement()}


def plan(cells: Cells, draws: int, alpha: float, tv: float, seed: int | None = None, sims: int | None = None) -> TestPlan:
    """The Pearson test's critical value and its power against every alternative at TV ``>= tv``;
    with ``seed`` the critical value comes from ``sims`` simulated null statistics (module docstring;
    default ``max(MC_SIMS, 200/α)``, so that about 200 simulated statistics lie beyond it)."""
    from scipy.stats import chi2, ncx2

    df = len(cells.probs) - 1
    lam = 4.0 * draws * tv * tv
    if seed is None:
        crit = float(chi2.isf(alpha, df))
        return TestPlan("Pearson χ²", alpha, tv, draws, len(cells.probs), crit, lam, float(ncx2.sf(crit, df, lam)))
    sims = max(MC_SIMS, int(math.ceil(200 / alpha))) if sims is None else sims
    if sims * len(cells.probs) > 5 * 10**7:
        raise ValueError(f"cells: {len(cells.probs)} cells x {sims} simulations is too large")
    p = np.asarray(cells.probs, dtype=np.float64)
    p = p / p.sum()
    counts = np.random.default_rng([seed, 0x6A7]).multinomial(draws, p, size=sims)
    exp = draws * p
    null = np.sort(np.sum((counts - exp) ** 2 / exp, axis=1))[::-1]
    r = int(math.floor(alpha * (sims + 1) - 1))
    if r < 0:
        raise ValueError(f"alpha: {alpha} needs more than {sims} Monte Carlo simulations")
    crit = float(null[r])  # reject iff X² > crit, i.e. (1 + #{null >= X²}) / (M + 1) <= α
    return TestPlan("Pearson χ²", alpha, tv, draws, len(cells.probs), crit, lam, float(ncx2.sf(crit, df, lam)), null)


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


def pearson(samples: np.ndarray, cells: Cells, alpha: float, null: Any = None) -> TestResult:
    """Pearson's X² of ``samples`` binned into ``cells`` (p-value: Monte Carlo against ``null``, the
    simulated null statistics, else χ²(k − 1)); the failing cells are those whose standardized
    residual exceeds the Bonferroni normal quantile over the cells."""
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
    if null is not None:
        pv = float((1 + np.count_nonzero(np.asarray(null) >= stat)) / (len(null) + 1))
    else:
        pv = float(chi2.sf(stat, len(cells.probs) - 1))
    z = (obs - exp) / np.sqrt(exp)
    zc = float(norm.isf(alpha / (2 * len(cells.probs))))
    failing = tuple({"cell": cells.labels[i], "observed": int(obs[i]), "expected": float(exp[i]), "z": float(z[i])}
                    for i in np.argsort(-np.abs(z)) if abs(z[i]) > zc)
    return TestResult(stat, pv, pv <= alpha if null is not None else pv < alpha, failing)


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
