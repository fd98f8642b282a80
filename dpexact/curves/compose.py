"""Certified composition of a curve: an upper end through Rényi DP, a lower end from a witness pair.

**Upper** (adaptive k-fold composition), the smaller of two certified routes. (1) Pure DP: every
mechanism here is ε₀-DP and the exact k-fold of ε₀-RR bounds any adaptive composition of ε₀-DP
mechanisms (Kairouz, Oh & Viswanath 2015). (2) Rényi DP composes additively under adaptivity (Mironov
2017, Proposition 1), so with D̄_α the certified upper end of the worst-case D_α,

    ε(δ) <= min_α [k·D̄_α + log((α − 1)/α) − (log δ + log α)/(α − 1)]

(Canonne, Kamath & Steinke 2020, Proposition 12), minimised over a fixed grid of α, in arb
rounded upward. A certified PLD accountant composing :meth:`PrivacyCurve.dominating_pld` would
be tighter; this module is where it plugs in.

**Lower** (non-adaptive k-fold of one member): for a binary member with losses ℓ₁ > ℓ₀ and
P-mass p on ℓ₁, the k-fold loss is jℓ₁ + (k − j)ℓ₀ with j ~ Binomial(k, p) under P, so

    δ_k(ε) = Σ_j C(k, j) p^j (1 − p)^{k−j} (1 − e^{ε − jℓ₁ − (k−j)ℓ₀})₊

exactly (in arb). Any ε with δ_k(ε) > δ certified is below the true ε(δ) of the mechanism
(the mechanism, used k times on these inputs, has this pair).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from ..numbers.backends import ball_context
from ..numbers.real import Real
from . import supremum as S

__all__ = ["DEFAULT_ALPHAS", "pure_dp_epsilon", "rdp_epsilon", "rdp_epsilon_from_points", "binary_k_fold_delta", "witness_epsilon_lower"]

#: α grid of the Rényi route: 1 + 2^{j/4}/64 .. ~1000
DEFAULT_ALPHAS = tuple(f"{1 + 2 ** (j / 4) / 64:.6g}" for j in range(0, 64))
MAX_COMPOSITIONS = 100_000


def rdp_epsilon(curve: Any, compositions: int, delta: float, alphas: Optional[Sequence[Any]] = None) -> Any:
    """Certified upper bound on ε(δ) after ``compositions`` adaptive uses: the smaller of the Rényi
    route and the exact k-fold of ε-randomised response (module docstring)."""
    r = rdp_epsilon_from_points(curve.renyi(list(alphas or DEFAULT_ALPHAS), tol=1e-9), compositions, delta)
    p = pure_dp_epsilon(curve_loss_max(curve), compositions, delta)
    return p if p.upper < r.upper else r


def pure_dp_epsilon(eps0: float, compositions: int, delta: float) -> Any:
    """Certified upper bound on ε(δ) for k adaptive uses of any ε₀-DP mechanism.

    The k-fold of binary ε₀-randomised response is the worst case of adaptive composition of
    ε₀-DP mechanisms (Kairouz, Oh & Viswanath 2015, Theorem 3.3); its δ_k(ε) is the binomial sum
    of :func:`binary_k_fold_delta`, evaluated in arb; bisection keeps an ε whose δ_k upper end is <= δ.
    """
    from flint import arb

    from .point import CurvePoint

    with ball_context(S.PREC):
        e0 = arb(eps0)
        p = e0.exp() / (1 + e0.exp())
        lo, hi = 0.0, compositions * eps0
        for _ in range(60):
            mid = (lo + hi) / 2
            if binary_k_fold_delta(p, e0, -e0, compositions, arb(mid)) <= delta:
                hi = mid
            else:
                lo = mid
    return CurvePoint(delta, str(delta), 0.0, hi, {"route": "k-fold of eps0-RR (Kairouz-Oh-Viswanath 2015)"})


def rdp_epsilon_from_points(points: Sequence[Any], compositions: int, delta: float) -> Any:
    """The Rényi route's ε(δ) from certified points ``(α, upper end of D_α)`` (:class:`CurvePoint`)."""
    from flint import arb

    from .point import CurvePoint

    if not 1 <= compositions <= MAX_COMPOSITIONS:
        raise ValueError(f"compositions must be in [1, {MAX_COMPOSITIONS}], got {compositions}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    best, best_a = math.inf, None
    with ball_context(S.PREC):
        ld = arb(delta).log()
        for p in points:
            a = Real.of(p.at_text).to_arb(S.PREC)  # the exact α at which D̄_α was certified
            v = compositions * arb(p.upper) + (1 - 1 / a).log() - (ld + a.log()) / (a - 1)
            u = S.up(v)
            if u < best:
                best, best_a = u, p.at
    return CurvePoint(delta, str(delta), 0.0, max(best, 0.0), {"route": "Renyi (CKS 2020 Prop. 12)", "alpha": best_a})


def binary_k_fold_delta(p: Any, l1: Any, l0: Any, k: int, eps: Any) -> Any:
    """δ_k(ε) of the k-fold product of a binary pair (arb; module docstring)."""
    from flint import arb

    total = arb(0)
    c = arb(1)
    one_p = 1 - p
    for j in range(k + 1):
        if j:
            c = c * (k - j + 1) / j
        loss = j * l1 + (k - j) * l0
        if loss > eps:
            total += c * p ** j * one_p ** (k - j) * (1 - (eps - loss).exp())
        elif not loss <= eps:
            total += (c * p ** j * one_p ** (k - j) * (1 - (eps - loss).exp())).union(arb(0))
    return total


def witness_epsilon_lower(curve: Any, compositions: int, delta: float, grid: int = 16) -> Any:
    """Certified lower end of ε(δ) after k uses: best binary member on a θ grid, bisection on ε."""
    from flint import arb

    from .point import CurvePoint

    best, info = 0.0, {}
    from .families import Family

    # members given as (Q, L) groups; closed-form families (Laplace) carry no binary member to search
    fams = [f for f in curve.lower_families if isinstance(f, Family)]
    with ball_context(S.PREC):
        for fam in fams:
            thetas = [None] if not fam.parametrised else [(i + 0.5) / grid for i in range(grid)]
            for th in thetas:
                for rev in ((False,) if fam.symmetric else (False, True)):
                    g = fam.directed(None if th is None else arb(th), rev)
                    if len(g) != 2:
                        continue
                    (q1, l1), (q0, l0) = g if g[0][1] > g[1][1] else (g[1], g[0])
                    p1 = q1 * l1.exp()
                    if not (binary_k_fold_delta(p1, l1, l0, compositions, arb(best)) > delta):
                        continue
                    lo, hi = best, compositions * curve_loss_max(curve)
                    for _ in range(40):
                        mid = (lo + hi) / 2
                        if binary_k_fold_delta(p1, l1, l0, compositions, arb(mid)) > delta:
                            lo = mid
                        else:
                            hi = mid
                    if lo > best:
                        best, info = lo, {"family": fam.name, "theta": th, "direction": "Q||P" if rev else "P||Q"}
    return CurvePoint(delta, str(delta), best, math.inf, info)


def curve_loss_max(curve: Any) -> float:
    return max(f.loss_max for f in curve.upper_families)
