"""Independent reference computations for the proofs_checks tests (no dpexact code inside; no tests here)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np


def pf_pmf_sequential(p: tuple) -> list:
    """PF (pf Alg. 1) by conditioning on the next item drawn from the remaining set:
    P(r | S) = (1/|S|) [p_r + Σ_{s∈S, s≠r} (1 − p_s) P(r | S∖{s})] (exact for Fractions)."""
    n = len(p)

    @lru_cache(maxsize=None)
    def P(r: int, S: frozenset) -> object:
        if r not in S:
            return 0
        tot = p[r]
        for s in S:
            if s != r:
                tot = tot + (1 - p[s]) * P(r, S - {s})
        return tot / len(S)

    full = frozenset(range(n))
    return [P(r, full) for r in range(n)]


def em_pmf(q, eps: float, delta: float = 1.0) -> np.ndarray:
    w = np.exp(eps / (2 * delta) * (np.asarray(q, float) - np.max(q)))
    return w / w.sum()


def eq7(n: int, p: float) -> float:
    return math.log(1 / p) * (1 - 1 / (1 + (n - 1) * p))


def eq8(n: int, p: float) -> float:
    return math.log(1 / p) * (1 - (1 - (1 - p) ** n) / (n * p))


def coins(q, eps: float = 2 * math.log(2)):
    """Fraction coins 2^(q_r − q*) at ε = 2 log 2 for integer q; floats otherwise."""
    m = max(q)
    if abs(eps - 2 * math.log(2)) < 1e-15 and all(float(x).is_integer() for x in q):
        return tuple(Fraction(1, 2 ** int(m - x)) for x in q)
    return tuple(math.exp(eps / 2 * (x - m)) for x in q)
