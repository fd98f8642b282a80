"""Utility measures of hetsel: the HG metric (§V-A) and the squared error relative to the best.

* HG (hetsel §V-A): ``HG(M, M') = Pr[M(q) ≠ a*] - Pr[M'(q) ≠ a*]``, ``a*`` the optimal
  candidate; ``HG > 0`` iff ``M'`` outperforms ``M``. With several maximisers we read
  "≠ a*" as "not a maximiser" (``Pr[M(q) ∉ argmax q]``).
* MSE relative to the best candidate (hetsel §VI "Experimental design"): for one score vector
  ``E[(q* - q_{M(q)})²] = Σ_r Pr[M(q)=r] (q* - q_r)²``; the paper averages it over trials.

Both are computed from the mechanisms' pmfs on any backend. Float: ``error_bound`` is
derived from the pmfs' stated bounds (relative if given, else absolute) plus rounding;
ball: the radius; exact: 0; mp: the pmfs' estimates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...numbers.backends import Backend, ExactBackend, get_backend
from ...protocols import Mechanism
from ...numbers.certified import Certified
from ...numbers.pmf import Pmf
from ...numbers.real import Real
from ..validation import exact_scores, float_scores

__all__ = ["miss_probability", "hg", "squared_error"]

U = 2.0**-53


def _float_weighted(p: Pmf, w: np.ndarray) -> Certified:
    v = np.asarray(p.values, dtype=np.float64)
    val = float(w @ v)
    if p.rel_error is not None and np.isfinite(p.rel_error):
        bound = (p.rel_error + (v.size + 2) * U) * abs(val) + (v.size + 2) * U * float(np.abs(w) @ np.abs(v))
    else:
        bound = p.abs_error * float(np.abs(w).sum()) + (v.size + 2) * U * float(np.abs(w) @ np.abs(v))
    return Certified(val, val, bound, Certified.weakest(p.error_kind, "a-priori"), "float")


def _scalar_weighted(p: Pmf, w: list[Real], be: Backend) -> Certified:
    vals = list(p.values)
    with be.context():
        if be.is_exact:
            import sympy

            kind, conv = ExactBackend.field(
                [*vals, *[x.to_sympy() for x in w]])
            n = len(vals)
            total = sum((conv[i] * conv[n + i] for i in range(n)), conv[0] * 0)
            if kind == "sympy":
                total = sympy.simplify(total)
            return be.certify(total)
        total = vals[0] * 0
        for pr, x in zip(vals, w):
            total = total + pr * be.from_real(x)
    if be.is_ball:
        return be.certify(total)
    f = float(total)
    est = (p.abs_error or 0.0) * float(sum(abs(x.to_float()) for x in w))
    return Certified(total, f, est, "estimate", str(be))


def _weighted(mech: Mechanism, scores: Any, weights_float: Any, weights_exact: Any, backend: "str | Backend",
              method: str | None) -> Certified:
    be = get_backend(backend)
    p = mech.pmf(scores, backend=be, method=method)
    if be.is_float:
        return _float_weighted(p, weights_float(float_scores(scores)))
    return _scalar_weighted(p, weights_exact(exact_scores(scores)), be)


def _miss_float(q: np.ndarray) -> np.ndarray:
    return (q != q.max()).astype(np.float64)


def _miss_exact(q: list[Real]) -> list[Real]:
    top = q[0]
    for v in q[1:]:
        if v > top:
            top = v
    return [Real.of(0) if (v - top).sign() == 0 else Real.of(1) for v in q]


def miss_probability(mech: Mechanism, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Certified:
    """``Pr[M(q) ∉ argmax q]``."""
    return _weighted(mech, scores, _miss_float, _miss_exact, backend, method)


def hg(mech: Mechanism, other: Any, scores: Any, backend: "str | Backend" = "float") -> Certified:
    """hetsel §V-A: ``HG(M, M') = Pr[M(q) ≠ a*] - Pr[M'(q) ≠ a*]`` (> 0 iff M' is better)."""
    a = miss_probability(mech, scores, backend)
    b = miss_probability(other, scores, backend)
    with get_backend(backend).context():
        value = a.value - b.value
    return Certified(value, a.as_float - b.as_float, a.error_bound + b.error_bound + U * abs(a.as_float),
                     Certified.weakest(a.error_kind, b.error_kind), a.backend)


def squared_error(mech: Mechanism, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Certified:
    """``E[(q* - q_M)²]`` for one score vector (hetsel §VI: MSE relative to the best candidate)."""

    def wf(q: np.ndarray) -> np.ndarray:
        return (q.max() - q) ** 2

    def we(q: list[Real]) -> list[Real]:
        top = q[0]
        for v in q[1:]:
            if v > top:
                top = v
        return [(top - v) * (top - v) for v in q]

    return _weighted(mech, scores, wf, we, backend, method)
