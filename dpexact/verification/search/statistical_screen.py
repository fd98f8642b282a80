"""Statistical screen of a sampler-only (uncertified) mechanism: never a certified verdict.

A black box gives only samples, so nothing can be proved about its law. For every neighbour
pair ``(q, q')`` of the scope and every output ``r`` the screen draws ``draws`` outputs on
each side (seeded) and compares Clopper–Pearson bounds at a Bonferroni-corrected level:
``lower(Pr[M(q)=r]) > e^ε · upper(Pr[M(q')=r])`` is a *statistical* violation (reported as
``violated`` with ``certified = False``, no exact re-check possible); otherwise the verdict is
``inconclusive`` — a black box is never declared private. Compare DP-Sniper / StatDP, which
also test samplers only; dpexact's certified path needs a pmf.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Sequence

import numpy as np

from ...numbers.real import Real
from ..neighbourhoods import Neighbourhood
from ..decide.pure_dp import neighbour_pairs
from ..verdict import Scope, Verdict, build_verdict
from ...protocols import Mechanism

__all__ = ["statistical_screen"]

Vector = tuple[Fraction, ...]


def _cp(k: int, n: int, level: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion at ``1 - level``."""
    from scipy.stats import beta

    lo = 0.0 if k == 0 else float(beta.ppf(level / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - level / 2, k + 1, n - k))
    return lo, hi


def statistical_screen(mechanism: Mechanism, neighbourhood: Neighbourhood, vectors: Sequence[Vector], *, steps: int = 1,
                       draws: int = 20_000, seed: int = 0, level: float = 1e-6, name: str | None = None) -> Verdict:
    """Screen ``mechanism`` (only ``rvs`` is used) on the neighbour pairs of ``vectors``."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not 100 <= draws <= 10_000_000:
        raise ValueError(f"draws must be an integer in 100..10000000, got {draws!r}")
    t0 = time.perf_counter()
    pairs = neighbour_pairs(vectors, neighbourhood, steps)
    counts: dict[Vector, np.ndarray] = {}

    def freq(q: Vector) -> np.ndarray:
        if q not in counts:
            out = np.asarray(mechanism.rvs([float(x) for x in q], size=draws, random_state=seed + len(counts)))
            counts[q] = np.bincount(out, minlength=len(q))
        return counts[q]

    e_eps = math.exp(Real.of(mechanism.epsilon).to_float())
    tests = max(1, 2 * len(pairs) * (len(vectors[0]) if vectors else 1))
    lvl = level / tests
    worst_emp, worst_pair, violation = -math.inf, None, None
    for a, b in pairs:
        ca, cb = freq(a), freq(b)
        for (x, y, cx, cy) in ((a, b, ca, cb), (b, a, cb, ca)):
            for r in range(len(x)):
                if cx[r] and cy[r]:
                    emp = math.log(cx[r] / cy[r])
                    if emp > worst_emp:
                        worst_emp, worst_pair = emp, (x, y, r)
                lo, _ = _cp(int(cx[r]), draws, lvl)
                _, hi = _cp(int(cy[r]), draws, lvl)
                if violation is None and lo > e_eps * hi:
                    violation = (x, y, r, math.log(lo / hi))
    scope = Scope(neighbourhood=neighbourhood.describe())
    scope.families["statistical"] = len(vectors)
    scope.vectors, scope.pairs, scope.triples = len(counts), len(pairs), 2 * sum(len(p[0]) for p in pairs)
    scope.undecided = scope.triples
    scope.notes.append(f"statistical screen of a sampler-only mechanism: {draws} seeded draws per vector, "
                       f"Clopper–Pearson at level {level:g} (Bonferroni over {tests} tests); uncertified")

    def as_dict(t: tuple | None) -> dict | None:
        if t is None:
            return None
        return {"scores": [str(v) for v in t[0]], "neighbour_scores": [str(v) for v in t[1]], "output": t[2]}

    if violation is not None:
        kind, worst, wp = "violated", violation[3], as_dict(violation)
        scope.notes.append("violation is statistical (confidence bounds), not proved")
    else:
        kind, worst, wp = "inconclusive", worst_emp, as_dict(worst_pair)
    return build_verdict(mechanism, name=name, epsilon=Real.of(mechanism.epsilon), verdict=kind, scope=scope,
                         worst_log_ratio=float(worst), worst_float_log_ratio=float(worst_emp), worst_pair=wp,
                         seconds=time.perf_counter() - t0)
