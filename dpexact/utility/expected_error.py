"""Expected error E[q* - q_M(q)] of any mechanism (pf eq. 4), on any backend, with its bound.

    E[E] = Σ_r Pr[M(q)=r] (q* - q_r).

Accuracy: exact (exact backend); rigorous ball (ball backend); mp: the pmf's estimate;
float (a-priori): all terms are non-negative, so with the pmf's relative bound ρ, one
rounding per gap (u) and recursive summation (γ_n), ``|Ẽ - E| <= κ/(1-κ)·Ẽ`` with
``κ = ρ + (u + γ_n)(1 + ρ)``, plus ``2^-1074 Σ_r g_r`` for pmf entries that underflow (for pmfs without a relative bound: ``a·Σ g + γ_n Σ|p̃| g``,
``a`` the pmf's absolute bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers.backends import Backend, get_backend
from ..numbers.pmf import Pmf
from .levels import TINY, U, backend_number, exact_levels, float_levels, gamma

__all__ = ["ExpectedError", "expected_error"]


@dataclass(frozen=True)
class ExpectedError:
    """E[q* - q_M] with its provenance.

    ``value`` is in the backend's number type (exact: ``fmpq`` or sympy; ball: arb);
    ``as_float`` its float value (``value`` rounded to float64; ball: midpoint);
    ``error_bound`` an absolute bound on ``|value - exact|`` (0 for exact, the ball radius for
    ball, the a-priori bound above for float, an estimate for mp).
    """

    value: Any
    as_float: float
    error_bound: float
    backend: str
    pmf: Pmf


def expected_error(mechanism: Any, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> ExpectedError:
    """Expected error ``Σ_r Pr[M(q)=r] (q* - q_r)`` of ``mechanism`` on ``scores``."""
    if mechanism.output_kind != "selection":
        raise TypeError(f"mechanism: the expected error needs a selection mechanism (outputs 0..n-1), got output_kind {mechanism.output_kind!r}")
    be = get_backend(backend)
    pmf = mechanism.pmf(scores, backend=be, method=method)
    if be.name == "float":
        lv = float_levels(scores)
        gaps = lv.levels[lv.index]
        p = np.asarray(pmf.values, dtype=np.float64)
        val = float(gaps @ p)
        rho = pmf.rel_error
        if rho is not None and np.isfinite(rho):
            kappa = rho + (U + gamma(p.size)) * (1 + rho)
            bound = val * kappa / (1 - kappa) + TINY * float(gaps.sum()) if kappa < 1 else float("inf")
        else:
            bound = float(pmf.abs_error * gaps.sum() + gamma(p.size) * (np.abs(p) @ gaps))
        return ExpectedError(val, val, bound, "float", pmf)
    lv = exact_levels(scores)
    assert lv.exact is not None
    vals = list(pmf.values)
    with be.context():
        gl = [backend_number(x, be, like=vals[0]) for x in lv.exact]
        total = vals[0] * 0
        for pr, j in zip(vals, lv.index):
            total = total + pr * gl[j]
    if be.name == "ball":
        return ExpectedError(total, float(total.mid()), float(total.rad()), str(be), pmf)
    if be.name == "exact":
        return ExpectedError(total, be.to_float(total), 0.0, "exact", pmf)
    f = float(total)
    return ExpectedError(total, f, (pmf.rel_error or 0.0) * abs(f), str(be), pmf)
