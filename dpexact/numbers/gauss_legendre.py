"""Gauss–Legendre rules (float64 and rigorous arb) and their Bernstein-ellipse error bound.

Error bound (Trefethen, *Approximation Theory and Approximation Practice*, Thm 19.3):
if ``f`` is analytic in the open Bernstein ellipse ``E_ρ`` (foci ±1, semi-axis sum ρ > 1)
and ``|f| <= M`` there, the N-point Gauss–Legendre rule on [-1, 1] satisfies

    |I - I_N| <= (64/15) · M · ρ^(-2N) / (ρ² - 1).

On an interval [0, T] the bound is multiplied by T/2; the ellipse maps to the one with centre
T/2, semi-axes a = T(ρ+1/ρ)/4 (real) and b = T(ρ-1/ρ)/4 (imaginary).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["nodes_float", "nodes_arb", "bernstein_error", "ellipse_axes"]


@lru_cache(maxsize=32)
def nodes_float(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights on [-1, 1], correctly rounded from 128-bit arb balls.

    (numpy's ``leggauss`` weights carry relative errors of ~1e-14, which would dominate the
    error of the PF quadrature.)
    """
    xb, wb = nodes_arb(n, 128)
    x = np.array([float(v.mid()) for v in xb])
    w = np.array([float(v.mid()) for v in wb])
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@lru_cache(maxsize=32)
def nodes_arb(n: int, prec: int) -> tuple[tuple, tuple]:
    """Rigorous balls for the nodes and weights on [-1, 1] at ``prec`` bits."""
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = prec
    try:
        xs, ws = [], []
        # legendre_p_root(n, k) gives the k-th root in decreasing order (k < n).
        for k in range(n):
            x, w = arb.legendre_p_root(n, k, weight=True)
            xs.append(x)
            ws.append(w)
    finally:
        ctx.prec = old
    return tuple(xs), tuple(ws)


def ellipse_axes(rho: float, T: float) -> tuple[float, float]:
    """(a, b): real and imaginary semi-axes of the Bernstein ellipse mapped onto [0, T]."""
    return T * (rho + 1 / rho) / 4, T * (rho - 1 / rho) / 4


def bernstein_error(log_m: float, rho: float, n: int, T: float) -> float:
    """Upper bound on the N-point rule's absolute error on [0, T] given log M on E_ρ."""
    log_err = math.log(T / 2 * 64 / 15) + log_m - 2 * n * math.log(rho) - math.log(rho * rho - 1)
    return math.exp(log_err) if log_err < 700 else math.inf
