"""Variance of the error ``E = q* - q_M`` of a mechanism (pf eq. 4).

    Var[E] = Σ_r Pr[M(q)=r] (g_r - μ)²,   g_r = q* - q_r,   μ = E[E] = Σ_r Pr[M(q)=r] g_r.

The centred form is used on the float, mp and ball backends (no cancellation). On the ball
backend, μ is itself a ball, and the ball evaluation of the centred sum encloses
``Σ p_r (g_r - m)²`` for every ``m`` in it and every pmf in the pmf balls — in particular the
true ``Var[E]`` (at ``m = μ``); the result is rigorous. The exact backend uses
``Σ p_r g_r² - μ²`` in exact arithmetic.

Float accuracy (a-priori): with the pmf's relative bound ρ and ``|μ̃ - μ| <= b`` (the
expected error's bound), the identity ``Σ_r p_r (g_r - m)² = Var + (m - μ)²`` (exact pmf,
any m) gives ``Σ p̃_r (g_r - μ̃)² ∈ (1 ± ρ)(Var + (μ̃ - μ)²)``; with rounding (one subtraction,
a square, a product per term, recursive summation: γ_{n+3}) the reported bound is
``(ρ/(1-ρ) + γ_{n+3}) Ṽ + b²(1 + ρ) + 2^-1074 Σ (g - μ̃)²`` (the last term for pmf entries
that underflow).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..numbers.backends import Backend, get_backend
from ..numbers.certified import Certified
from .expected_error import expected_error
from .levels import TINY, backend_number, exact_levels, float_levels, gamma
from ..protocols import Mechanism

__all__ = ["error_variance"]


def error_variance(mechanism: Mechanism, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Certified:
    """Variance of the error of ``mechanism`` on ``scores`` (see the module docstring).

    A :class:`~dpexact.numbers.Certified` value; ``details`` holds the ``mean`` (the expected
    error, itself Certified) and the ``pmf``.
    """
    be = get_backend(backend)
    mean = expected_error(mechanism, scores, backend=be, method=method)
    pmf = mean.details["pmf"]
    ctx = {"mean": mean, "pmf": pmf}
    if be.is_float:
        lv = float_levels(scores)
        g = lv.levels[lv.index]
        p = np.asarray(pmf.values, dtype=np.float64)
        dev = g - mean.as_float
        val = float(p @ (dev * dev))
        rho = pmf.rel_error
        if rho is None or not np.isfinite(rho) or rho >= 1:
            bound = float(pmf.abs_error * float(dev @ dev) + gamma(p.size + 3) * val + mean.error_bound**2)
        else:
            b = mean.error_bound
            bound = (rho / (1 - rho) + gamma(p.size + 3)) * val + b * b * (1 + rho)
            bound += TINY * float(dev @ dev)
        return Certified(val, val, bound, pmf.error_kind, "float", ctx)
    lv = exact_levels(scores)
    assert lv.exact is not None
    vals = list(pmf.values)
    with be.context():
        gl = [backend_number(x, be, like=vals[0]) for x in lv.exact]
        if be.is_exact:
            first = second = vals[0] * 0
            for v, j in zip(vals, lv.index):
                first = first + v * gl[j]
                second = second + v * gl[j] * gl[j]
            var = second - first * first
            return be.certify(var).with_details(**ctx)
        mu = mean.value
        var = vals[0] * 0
        for v, j in zip(vals, lv.index):
            d = gl[j] - mu
            var = var + v * d * d
    if be.is_ball:
        return be.certify(var).with_details(**ctx)
    f = float(var)
    rel = pmf.rel_error if pmf.rel_error is not None else float("inf")
    return Certified(var, f, 3 * rel * abs(f) + mean.error_bound**2, "estimate", str(be), ctx)
