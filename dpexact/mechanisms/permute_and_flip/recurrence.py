"""The paper's O(n²) dynamic programme for the PF pmf (pf Appendix E) — for comparison only.

    S(k, n) = e_k(p)  (elementary symmetric polynomials),
    T(k, r) = S(k, n) - p_r T(k-1, r),  T(0, r) = 1,
    Pr[r]   = p_r Σ_{k=0}^{n} (-1)^k / (k+1) · T(k, r).

The sum alternates in sign and its terms grow like C(n, k): in float64 it loses all accuracy
once a few dozen weights are close to 1 (and overflows to inf/nan for large n). It is exact
on the exact backend and usable there as an independent check of the polynomial method.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["pf_pmf_recurrence_float", "pf_pmf_recurrence_scalar"]


def pf_pmf_recurrence_float(p: np.ndarray) -> np.ndarray:
    """Float64 evaluation of the recurrence (vectorised over r; O(n²) time, O(n) memory)."""
    n = p.size
    e = np.zeros(n + 1)
    e[0] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(n):
            e[1 : s + 2] = e[1 : s + 2] + p[s] * e[0 : s + 1]
        t = np.ones(n)
        acc = t.copy()
        for k in range(1, n + 1):
            t = e[k] - p * t
            acc += ((-1) ** k / (k + 1)) * t
        return p * acc


def pf_pmf_recurrence_scalar(p: list[Any], zero: Any, one: Any) -> list[Any]:
    """The same recurrence in any scalar field (fmpq, sympy, mpf, arb)."""
    n = len(p)
    e = [one] + [zero] * n
    for s in range(n):
        for k in range(s + 1, 0, -1):
            e[k] = e[k] + p[s] * e[k - 1]
    out = []
    for r in range(n):
        t = one
        acc = one
        for k in range(1, n + 1):
            t = e[k] - p[r] * t
            acc = acc + t * ((-1) ** k) / (k + 1)
        out.append(p[r] * acc)
    return out
