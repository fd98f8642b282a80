"""Permute-and-flip at any n: the extreme-loss pair of outputs is a mixture of n = 3 pairs (docs/curves.md).

Why this module exists: PF's curves at n >= 3 are bracketed by [the n = 2 curve, ε-RR]; closing the bracket
needs every PF pair at n to be dominated by n = 2 pairs. This module holds the exact (rational or ball)
quantities of the part of that argument which is **proved** — the reduction of every n to n = 3 with a
random third candidate ("Lemma M" in docs/curves.md) — so that tests can check its finite-dimensional claims
in certified arithmetic and break them on purpose. Nothing here feeds a certified curve: the last step
("separation", docs/curves.md) is open, and the curve code does not use it.

Representation (McKenna & Sheldon 2020's integral, read as a race; equivalently Ding et al. 2021's report
noisy max with exponential noise): PF outputs argmin_k V_k with V_k ~ U[0, a_k] independent, a_k = e^{−c q_k}
(c = ε/(2Δ)), so ``Pr[i] = (1/a_i) ∫_0^{a_i} Π_{k≠i} (1 − u/a_k)_+ du``. A neighbour multiplies every a_k by a
factor s_k ∈ [κ, 1], κ = e^{−ε} (common rescaling does not change the argmin).

For the other candidates K of a pair of outputs (i, j): F(u) = Π_{k∈K} (1 − u/a_k)_+ is the survival function
of W = min_K V_k. Lemma M: T(t) = F(t) − t F'(t) (t < m = min_K a_k; 0 for t >= m) is the survival function of
a probability law μ with F(u) = ∫ (1 − u/c)_+ dμ(c) — W is a uniform with random scale C ~ μ, density
t F''(t) on (0, m) and an atom T(m⁻) = −m F'(m⁻) at m. In y_k = t/a_k,
T = Π (1 − y_k) (1 + Σ y_k/(1 − y_k)) is nonincreasing in every y_k, so the neighbour's C' satisfies
κC <=_st C' <=_st C and the quantile coupling gives κC <= C' <= C: the four masses (P_i, Q_i, P_j, Q_j) are
the μ-average of those of n = 3 neighbouring pairs (a_i, a_j, C) → (a_i, κ a_j, C').

Lemma E (``q_side_value``, ``q_side_candidates``): in the remaining statement S the neighbour's third scale
c' = s c enters only through g_λ(c'), whose minimum over [κc, c] is at κc, c or one critical point.

All functions take exact ``Fraction`` values (or any field type with + − × ÷, e.g. arb balls).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "coupling_violations",
    "frontier_point",
    "mixing_atom",
    "mixing_density",
    "mixing_survival",
    "mixing_survival_slope",
    "n3_vector",
    "n3_win",
    "n3_win_third_smallest",
    "q_side_candidates",
    "q_side_value",
    "survival",
    "win_probability",
]


def _poly_times_linear(poly: list, inv_b: Any) -> list:
    """Coefficients (in u, lowest first) of poly(u) · (1 − u·inv_b)."""
    out = list(poly) + [0 * inv_b]
    for k, c in enumerate(poly):
        out[k + 1] = out[k + 1] - c * inv_b
    return out


def _poly(others: Sequence[Any]) -> list:
    """Coefficients of F(u) = Π_k (1 − u/a_k) (valid for u <= min a_k)."""
    poly = [0 * others[0] + 1 if others else Fraction(1)]  # 1 in the scales' own number type
    for a in others:
        poly = _poly_times_linear(poly, 1 / a)
    return poly


def _eval(poly: list, u: Any) -> Any:
    acc = 0 * u
    for c in reversed(poly):
        acc = acc * u + c
    return acc


def _deriv(poly: list) -> list:
    return [k * c for k, c in enumerate(poly)][1:] or [0 * poly[0]]


def win_probability(scales: Sequence[Any], i: int) -> Any:
    """Exact Pr[PF outputs i] = (1/a_i) ∫_0^m Π_{k≠i} (1 − u/a_k) du, m = min_k a_k (all factors >= 0 there)."""
    others = [a for k, a in enumerate(scales) if k != i]
    m = min(scales)
    poly = _poly(others)
    integral = sum(c * m ** (k + 1) / (k + 1) for k, c in enumerate(poly))
    return integral / scales[i]


def survival(others: Sequence[Any], u: Any) -> Any:
    """F(u) = Pr[min_K V_k > u] = Π_k (1 − u/a_k)_+."""
    if any(u >= a for a in others):
        return 0 * u
    return _eval(_poly(others), u)


def mixing_survival(others: Sequence[Any], t: Any) -> Any:
    """T(t) = Pr[C > t] = Π (1 − y_k) (1 + Σ y_k/(1 − y_k)), y_k = t/a_k; 0 once some y_k >= 1."""
    y = [t / a for a in others]
    if any(v >= 1 for v in y):
        return 0 * t
    prod = 1 + 0 * t
    for v in y:
        prod = prod * (1 - v)
    return prod * (1 + sum(v / (1 - v) for v in y))


def mixing_survival_slope(others: Sequence[Any], t: Any, k: int) -> Any:
    """∂T/∂y_k = −Π_{l≠k} (1 − y_l) · Σ_{l≠k} y_l/(1 − y_l) <= 0 (the monotonicity behind the coupling)."""
    rest = [a for idx, a in enumerate(others) if idx != k]
    y = [t / a for a in rest]
    prod = 1 + 0 * t
    for v in y:
        prod = prod * (1 - v)
    return -prod * sum((v / (1 - v) for v in y), 0 * t)


def mixing_density(others: Sequence[Any], c: Any) -> Any:
    """μ's density on (0, m): −T'(c) = c F''(c) (F is a polynomial there)."""
    return c * _eval(_deriv(_deriv(_poly(others))), c)


def mixing_atom(others: Sequence[Any]) -> Any:
    """μ's atom at m = min_K a_k: T(m⁻) = F(m) − m F'(m⁻) = −m F'(m⁻) (F(m) = 0)."""
    m = min(others)
    return -m * _eval(_deriv(_poly(others)), m)


def n3_win(a_i: Any, a_j: Any, c: Any | None, upper: Any) -> Any:
    """Pr[i wins] against j (scale a_j) and a third uniform of scale c (None: absent):
    (1/a_i) ∫_0^U (1 − u/a_j)(1 − u/c) du with U = ``upper`` = min(a_i, a_j, c) (the caller knows which)."""
    ib = 1 / a_j
    ic = 0 * ib if c is None else 1 / c
    U = upper
    return (U - U * U * (ib + ic) / 2 + U * U * U * ib * ic / 3) / a_i


def n3_win_third_smallest(a_i: Any, a_j: Any, c: Any) -> Any:
    """``n3_win`` when the third scale c is the smallest (U = c), simplified to (c/2 − c²/(6 a_j))/a_i so that
    it is a polynomial in c (ball integration near c = 0 must not see the 1/c of the general form)."""
    return (c / 2 - c * c / (6 * a_j)) / a_i


def n3_vector(a_i: Any, a_j: Any, kappa: Any, c: Any | None, c2: Any | None) -> tuple:
    """(P_i, Q_i, P_j, Q_j) of the n = 3 neighbouring pair (a_i, a_j, c) → (a_i, κ a_j, c2), exact."""
    def low(*xs: Any) -> Any:
        return min(x for x in xs if x is not None)

    Pi = n3_win(a_i, a_j, c, low(a_i, a_j, c))
    Pj = n3_win(a_j, a_i, c, low(a_i, a_j, c))
    Qi = n3_win(a_i, kappa * a_j, c2, low(a_i, kappa * a_j, c2))
    Qj = n3_win(kappa * a_j, a_i, c2, low(a_i, kappa * a_j, c2))
    return Pi, Qi, Pj, Qj


def q_side_value(rho: Any, kappa: Any, a: Any, b: Any, lam: Any, c2: Any) -> Any:
    """g_λ(c') = B·Q_i − λ a·Q_j of the n = 3 neighbour (ρ, κ, c') (scale of j's P-side = 1): the Q-side part of
    ψ − λφ, which depends on the third's Q-scale c' only (the P-side part depends on c only)."""
    low = min(rho, kappa, c2)
    return b * n3_win(rho, kappa, c2, low) - lam * a * n3_win(kappa, rho, c2, low)


def q_side_candidates(rho: Any, kappa: Any, a: Any, b: Any, lam: Any, c: Any) -> list:
    """The points c' ∈ [κc, c] among which min g_λ is attained (Lemma E, docs/curves.md): the ends κc, c, and,
    when λ a > B (g convex below m₀ = min(ρ, κ)), the critical point c'* = (3/2)(λ a ρ − B κ)/(λ a − B) of the
    quadratic piece if it lies in [κc, min(c, m₀)]."""
    out = [kappa * c, c]
    if lam * a > b:
        star = Fraction(3, 2) * (lam * a * rho - b * kappa) / (lam * a - b)
        if kappa * c <= star <= min(c, rho, kappa):
            out.append(star)
    return out


def coupling_violations(others: Sequence[Any], shrink: Sequence[Any], kappa: Any, ts: Sequence[Any]) -> list:
    """Points t where κC <=_st C' <=_st C fails, i.e. not T(t/κ) <= T'(t) <= T(t), for the neighbour
    a_k → s_k a_k (``shrink`` = s_k). Empty when every s_k ∈ [κ, 1] (Lemma M); a mutation test feeds s_k ∉ [κ, 1]."""
    moved = [s * a for s, a in zip(shrink, others)]
    bad = []
    for t in ts:
        lo, mid, hi = mixing_survival(others, t / kappa), mixing_survival(moved, t), mixing_survival(others, t)
        if not (lo <= mid <= hi):
            bad.append((t, lo, mid, hi))
    return bad


def frontier_point(kappa: Any, x: Any) -> tuple:
    """The n = 2 frontier (docs/curves.md): gap g ∈ [0, ε] moving by ε, x = e^{−g} ∈ [κ, 1]:
    the smallest ratio a(x) = x²/(2x − κ) and the largest B(x) = (2x − x²)/κ."""
    return x * x / (2 * x - kappa), (2 * x - x * x) / kappa
