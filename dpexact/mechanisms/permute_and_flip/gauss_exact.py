"""PF pmf for small n by a Gauss–Legendre rule that is exact for its polynomial integrand (float64, batched).

Formula (pf Lemma 2). With ``p_s = exp(x_s)``, ``x_s = c(q_s - q*) <= 0``,

    Pr[r] = p_r ∫_0^1 g_r(t) dt,     g_r(t) = ∏_{s≠r} (1 - p_s t),

and ``g_r`` is a polynomial of degree ``n - 1``. The N-point Gauss–Legendre rule integrates every
polynomial of degree ``<= 2N - 1`` exactly (Gauss's theorem; Trefethen, *Approximation Theory and
Approximation Practice*, ch. 19), so ``N = ceil(n/2)`` nodes on ``[0, 1]`` give the integral with
no truncation or quadrature error at all: only rounding remains. No cancellation: every factor
``1 - p t = (1 - p) + p(1 - t)`` is a sum of two non-negative terms (``1 - p = -expm1(x)``,
``1 - t = (1 - ξ)/2`` from the node ξ on [-1, 1]), and the rule sums positive terms.

Rounding (a-priori, relative, per entry; ``u = 2^-53``): each factor <= 4u (exp / expm1 one
ulp each, one product, one sum), their product over n factors <= 5nu, the division
``F/(1 - p_r t)`` (a reciprocal and a product) and the weight <= 8u more, the N-term positive sum
<= Nu, ``p_r·G`` 2u; the correctly rounded nodes: a node moved by ``δt <= u/4`` changes ``∫g_r``
by at most ``δt·sup|g_r'| <= δt·P`` against ``∫g_r >= 1/(2P)`` (``P = Σ p_s``; ``g_r >= 1 - tP``),
i.e. ``u P²/2``. Stated: ``u (P²/2 + 6n + N + 12)`` per row (the caller adds ``2.5u|x_r|`` for
the rounding of the exponents).

Cost: O(B·n·N) = O(B·n²/2) for B rows; used for ``n <= SMALL_N`` where it beats the general
quadrature (:mod:`.quadrature`) by avoiding every truncation and bound computation.
"""

from __future__ import annotations

import numpy as np

from ...numbers.gauss_legendre import nodes_float

__all__ = ["SMALL_N", "pf_pmf_gauss_exact", "gauss_nodes_unit"]

U = 2.0**-53
#: largest n handled by the exact rule: F(t) >= ((1 - ξ_max)/2)^n stays far above underflow
SMALL_N = 64

_UNIT: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def gauss_nodes_unit(n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, 1 - t, w)`` of the N-point Gauss–Legendre rule on [0, 1] (cached, read-only)."""
    got = _UNIT.get(n_nodes)
    if got is None:
        xi, om = nodes_float(n_nodes)
        t, omt, w = (1 + xi) / 2, (1 - xi) / 2, om / 2  # 1 - ξ exact for ξ >= 1/2 (Sterbenz), else <= u
        for a in (t, omt, w):
            a.setflags(write=False)
        got = _UNIT[n_nodes] = (t, omt, w)
    return got


def pf_pmf_gauss_exact(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PF pmf of each row of ``X`` (shape ``(B, n)``, ``n <= SMALL_N``, each row's maximum exactly 0).

    Returns ``(pmf, logpmf, rel)``: arrays of shape ``(B, n)``, ``(B, n)`` and ``(B,)``; ``rel``
    is the a-priori relative rounding bound of every entry of the row (module docstring).
    """
    B, n = X.shape
    if n > SMALL_N:
        raise ValueError(f"scores: the exact Gauss rule is for n <= {SMALL_N}, got {n}")
    n_nodes = max(1, (n + 1) // 2)
    t, omt, w = gauss_nodes_unit(n_nodes)
    p = np.exp(X)
    omp = -np.expm1(X)
    fac = p[:, None, :] * omt[None, :, None]  # (B, N, n): 1 - p_s t_i = (1 - p_s) + p_s (1 - t_i)
    fac += omp[:, None, :]
    wF = np.prod(fac, axis=2)  # (B, N): F(t_i)
    wF *= w
    G = np.einsum("bi,bir->br", wF, np.reciprocal(fac, out=fac))
    pmf = p * G
    with np.errstate(divide="ignore"):  # not reached: G >= w_min F_min > 0
        logpmf = X + np.log(G)
    P = p.sum(axis=1)
    rel = U * (P * P / 2 + 6 * n + n_nodes + 12)
    return pmf, logpmf, rel
