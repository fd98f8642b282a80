"""1-D integration on each backend, each returning a :class:`~.certified.Certified` value.

=========  ==========================================================  ==============
backend    method                                                      error kind
=========  ==========================================================  ==============
``float``  N-point Gauss–Legendre; Bernstein-ellipse truncation bound  ``a-priori``
           (:mod:`.gauss_legendre`, Trefethen ATAP Thm 19.3) for the
           caller's analyticity data (ρ, log M) plus a rounding bound
``mp``     :func:`mpmath.quad` (tanh-sinh) and its own error estimate  ``estimate``
``ball``   python-flint ``acb.integral`` (Petras' algorithm with       ``rigorous``
           rigorous error bounds, Johansson 2018)
``exact``  :func:`sympy.integrate` (closed form; piecewise             ``exact``
           exponential / polynomial integrands); ``ValueError``
           when sympy returns an unevaluated integral
=========  ==========================================================  ==============
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .bounded_float import BoundedFloat
from .certified import Certified
from .gauss_legendre import bernstein_error, nodes_float
from .sympy_conversion import exact_sympy

__all__ = ["integrate_float", "integrate_mp", "integrate_ball", "integrate_exact", "MAX_GL_NODES"]

U = 2.0**-53
#: cap on the Gauss–Legendre rule size (each node count is computed once, in arb, and cached)
MAX_GL_NODES = 512


def integrate_float(f: Callable[[np.ndarray], np.ndarray], a: float, b: float, *, rho: float, log_m: float,
                    tol: float = 1e-15, f_rel_error: float = 16 * U) -> Certified:
    """``∫_a^b f`` by Gauss–Legendre with a proven truncation bound.

    Args:
        f: vectorised integrand (float64 array in, array out).
        rho, log_m: analyticity data, the caller's *hypothesis*: ``f`` (as a function of the
            variable mapped to [-1, 1]) is analytic inside the Bernstein ellipse E_ρ, and
            ``log max_{E_ρ} |f| <= log_m``.
        tol: the smallest node count whose truncation bound is ``<= tol`` is used (at most
            :data:`MAX_GL_NODES`; the bound reported is whatever that count proves).
        f_rel_error: bound on the relative error of each computed ``f(x_i)``.

    The rounding part is ``(T/2) Σ w_i |f_i| (f_rel_error + (N + 3) u)`` (recursive summation,
    Higham §4.2, plus the node/weight rounding of ``u`` each). The value is a
    :class:`BoundedFloat` carrying that bound into later arithmetic.
    """
    if not (rho > 1):
        raise ValueError(f"rho must be > 1, got {rho!r}")
    a, b = float(a), float(b)
    if not (math.isfinite(a) and math.isfinite(b)) or b < a:
        raise ValueError(f"integration interval must be finite with a <= b, got [{a}, {b}]")
    T = b - a
    if T == 0:
        return Certified(BoundedFloat(0.0), 0.0, 0.0, "exact", "float", {"nodes": 0})
    n = 2
    while n < MAX_GL_NODES and bernstein_error(log_m, rho, n, T) > tol:
        n = min(MAX_GL_NODES, n * 2)
    trunc = bernstein_error(log_m, rho, n, T)
    x, w = nodes_float(n)
    fx = np.asarray(f(a + (x + 1) * (T / 2)), dtype=np.float64)
    if not np.all(np.isfinite(fx)):
        raise ValueError("integrand is not finite at a Gauss–Legendre node")
    terms = w * fx
    val = float(np.sum(terms)) * (T / 2)
    absum = float(np.sum(np.abs(terms))) * (T / 2)
    rounding = absum * (f_rel_error + (n + 3) * U) + 2 * U * abs(val)
    bound = (trunc + rounding) * (1 + 8 * U)
    return Certified(BoundedFloat(val, bound), val, bound, "a-priori", "float",
                     {"nodes": n, "truncation_bound": trunc, "rounding_bound": rounding})


def integrate_mp(f: Callable[[Any], Any], a: Any, b: Any, dps: int, points: list | None = None) -> Certified:
    """``∫_a^b f`` by :func:`mpmath.quad` (split at ``points``); the bound is mpmath's *estimate*."""
    import mpmath

    with mpmath.workdps(dps):
        pts = [mpmath.mpf(a), *[mpmath.mpf(p) for p in (points or [])], mpmath.mpf(b)]
        v, e = mpmath.quad(f, pts, error=True)
        est = float(e) + 10.0 ** (3 - dps) * max(1.0, abs(float(v)))
    return Certified(v, float(v), est, "estimate", f"mp:{dps}", {"quad_error": float(e)})


def integrate_ball(f: Callable[[Any, bool], Any], a: Any, b: Any, prec: int) -> Certified:
    """Rigorous ``∫_a^b f`` with ``acb.integral``; ``f(z, analytic)`` receives ``acb`` values.

    ``f`` must be holomorphic on a neighbourhood of the segment (when ``analytic`` is true it
    must return a non-finite value where it is not, as python-flint requires for branch cuts).
    """
    from flint import acb, arb, ctx

    old = ctx.prec
    ctx.prec = prec
    try:
        v = acb.integral(f, acb(a), acb(b))
        real = v.real if isinstance(v, acb) else arb(v)
        if not real.is_finite():
            raise ValueError("acb.integral returned a non-finite enclosure (integrand not analytic on the path?)")
        mid = float(real.mid())
        err = float(real.rad()) + abs(float(real.mid()) - mid) + U * abs(mid)
        if not v.imag.contains(0):
            raise ValueError("integral of a real integrand has a non-zero imaginary part")
    finally:
        ctx.prec = old
    return Certified(real, mid, err, "rigorous", f"ball:{prec}", {})


def integrate_exact(f: Callable[[Any], Any], a: Any, b: Any) -> Certified:
    """Closed-form ``∫_a^b f`` with sympy; ``f`` receives a real sympy symbol."""
    import sympy

    from .real import Real

    x = sympy.Symbol("x", real=True)
    lo, hi = (exact_sympy(v) if not isinstance(v, Real) else v.to_sympy() for v in (a, b))
    res = sympy.integrate(f(x), (x, lo, hi))
    if res.has(sympy.Integral) or res.has(sympy.nan) or res.atoms(sympy.Float) or x in res.free_symbols:
        raise ValueError("integrand has no exact closed-form integral in sympy; use the ball backend")
    try:
        as_float = Real.of(res).to_float()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"closed-form integral {res} has no rigorous numerical enclosure: {exc}") from None
    return Certified(res, as_float, 0.0, "exact", "exact", {})
