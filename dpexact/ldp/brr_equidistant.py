"""brr Algorithms 1-2 on the equidistant domain, vectorised over every row at once.

On the equidistant domain y_1 < … < y_N with loss |y_i − y_j| every row of the loss matrix, sorted,
is a row of integers (brr Figure 3). The derivative of the local error in s_i (brr eq. 9) with
s_1..s_{i−1} = e^ε and s_{i+1}.. = 1 has the numerator ``a·A_i + B_i`` (a = e^ε) with integer
A_i, B_i (:func:`derivative_parts`); Algorithm 1 stops at the first i ≥ 2 whose derivative is
not negative (:func:`local_ms`), decided by an exact sign oracle (:class:`ExpSign`) that uses
float64 with a rigorous bound and falls back to exact arithmetic on near-ties. This is the same
algorithm as :func:`dpexact.ldp.global_search` (one row at a time, exact), at numpy speed for
N in the hundreds.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from ..mechanisms.validation import positive_real
from ..numbers import Real
from .generalized_rr import exp_epsilon

__all__ = ["ExpSign", "exp_sign", "sorted_distance_rows", "sorted_distance_row", "derivative_parts", "local_ms",
           "global_m_equidistant"]

_U = 2.0**-53  # unit roundoff of float64


class ExpSign:
    """ε and a = e^ε (exact), with an exact sign oracle for ``a·A + B`` on integer arrays.

    Float64 decides where ``|a·A + B|`` exceeds a rigorous rounding bound (``a`` enclosed in a
    256-bit ball); the rest are decided exactly (:class:`~dpexact.numbers.Real` sign).
    """

    def __init__(self, eps: str) -> None:
        self.label = str(eps)
        self.eps = positive_real(eps, "epsilon")
        self.a = exp_epsilon(self.eps)
        self.frac: Fraction | None = self.a.value if self.a.is_rational else None
        ball = self.a.to_arb(256)
        self.f = float(ball.mid())
        self.delta = float(ball.rad()) + abs(self.f) * _U  # |f − a|
        self.ge1 = bool(self.eps >= 1)

    def arb(self, prec: int = 128) -> Any:
        return self.a.to_arb(prec)

    def sign(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Exact sign of a·A + B elementwise (int64 arrays with |A|, |B| < 2^50)."""
        if self.frac is not None:
            return np.sign(self.frac.numerator * A + self.frac.denominator * B).astype(np.int8)
        v = self.f * A + B
        err = np.abs(A) * self.delta + 2.02 * _U * (np.abs(self.f * A) + np.abs(B))
        s = np.where(v > err, 1, np.where(v < -err, -1, 0)).astype(np.int8)
        for idx in zip(*np.nonzero(s == 0)):
            s[idx] = self.exact_sign(int(A[idx]), int(B[idx]))
        return s

    def exact_sign(self, A: int, B: int) -> int:
        if A == 0:
            return (B > 0) - (B < 0)
        return (self.a * Real(Fraction(A)) + Real(Fraction(B))).sign()


@functools.lru_cache(maxsize=64)
def exp_sign(eps: str) -> ExpSign:
    """:class:`ExpSign` of ``eps`` (cached: the float enclosure of e^ε is computed once)."""
    return ExpSign(eps)


def sorted_distance_rows(n: int) -> np.ndarray:
    """Row k: the distances |k − y|, y = 1..N, in ascending order (the rows of brr Fig. 3)."""
    k = np.arange(n)
    return np.sort(np.abs(k[:, None] - k[None, :]), axis=1).astype(np.int64)


def sorted_distance_row(n: int, k: int) -> np.ndarray:
    """Row ``k`` of :func:`sorted_distance_rows` alone (large N)."""
    return np.sort(np.abs(np.arange(n) - k)).astype(np.int64)


def derivative_parts(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Numerator of ∂Q/∂s_i (brr eq. 9) with s_1..s_{i−1} = a, s_{i+1}.. = 1 written a·A_i + B_i:
    A_i = Σ_{j<i} (λ_i − λ_j), B_i = Σ_{j>i} (λ_i − λ_j)  (i = 1..N along the last axis)."""
    C = np.cumsum(lam, axis=-1)
    n = lam.shape[-1]
    i = np.arange(1, n + 1)
    return (i - 1) * lam - (C - lam), (n - i) * lam - (C[..., -1:] - C)


def local_ms(b: ExpSign, lam: np.ndarray, reading: str = "pseudocode", parts: Any = None) -> np.ndarray:
    """brr Algorithm 1 on every sorted row of ``lam`` (pseudocode: last i with a negative derivative)."""
    A, B = derivative_parts(lam) if parts is None else parts
    s = b.sign(A[..., 1:], B[..., 1:])  # i = 2..N
    nonneg = s >= 0
    n = lam.shape[-1]
    first = np.where(nonneg.any(axis=-1), nonneg.argmax(axis=-1) + 2, n + 1)
    return first - 1 if reading == "pseudocode" else np.minimum(first, n)


def global_m_equidistant(b: ExpSign, n: int) -> int:
    """Algorithm 2's m for a large N, one row at a time (rows k and N+1−k coincide)."""
    return min(int(local_ms(b, sorted_distance_row(n, k))) for k in range((n + 1) // 2))
