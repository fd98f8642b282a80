"""δ(ε) of a T-fold composition from its one-step moment generating function, by the trapezoidal rule on the
Bromwich line, with every error bounded: the aliasing sum, the truncation of the rule, and the values of m.

Let ν be a finite measure on the losses (one step; bounded above), ν_T = ν^{∗T}, and
D(ε) = ∫ (1 − e^{ε−ℓ})₊ dν_T(ℓ) — δ(ε) when ν is a privacy-loss law. With f(u) = (1 − e^{−u})₊, whose two-sided Laplace
transform is ∫ f(u) e^{−zu} du = 1/(z(z + 1)) (Re z > 0), Fubini gives for c > 0

    G(t) := ∫ e^{(c+it)v} D(ε + v) dv = m(c + it)^T e^{−(c+it)ε} / ((c + it)(c + 1 + it)),   m(z) = ∫ e^{zℓ} dν(ℓ),

so G is the Fourier transform of g(v) = e^{cv} D(ε + v). Poisson summation (g is continuous, of bounded variation,
integrable; Σ_k g(v + kP) converges uniformly — geometric as v → −∞, finitely many terms as v → ∞ since ν_T's support
is bounded above — and Σ_n |G(nΔ)| <= Σ_n m(c)^T/(c² + n²Δ²) < ∞) gives, with P = 2π/Δ,

    S := (Δ/π)·Re[G(0)/2 + Σ_{n>=1} G(nΔ)] = (Δ/2π) Σ_{n∈Z} G(nΔ) = Σ_{k∈Z} e^{ckP} D(ε + kP)

(G(−t) = conj G(t) as ν is real). This is the Fourier-series method of Abate & Whitt (1992, "The Fourier-series method
for inverting transforms of probability distributions", Queueing Systems 10, §5, with the same aliasing identity). The
k = 0 term is D(ε) and every other term is >= 0, so D(ε) <= S and D(ε) >= S − A with

* k >= 1: f(u) <= κ e^{c₂u} for c₂ > 0, κ = (c₂/(1 + c₂))^{c₂}/(1 + c₂) (the maximum of (1 − e^{−u})e^{−c₂u}, at
  e^{−u} = c₂/(1 + c₂)), so D(x) <= κ m(c₂)^T e^{−c₂x} and Σ_{k>=1} <= κ m(c₂)^T e^{−c₂ε} x/(1 − x), x = e^{−(c₂−c)P}
  (c₂ > c); and D(ε + kP) = 0 once ε + kP >= T·ℓ_max when the one-step top ℓ_max is known;
* k <= −1: D <= ν_T's mass <= m(0)^T <= 1 (a sub-probability), so Σ_{k<=−1} <= y/(1 − y), y = e^{−cP}.

The rule is cut after N nodes; the rest is bounded with a decay constant V, |m(c + it)| <= V/|t| (:mod:`.mgf_decay`):
(Δ/π) Σ_{n>=N} |G(nΔ)| <= (Δ/π) e^{−cε} Σ_{n>=N} (V/(nΔ))^T/(nΔ)² <= (Δ/π) e^{−cε} V^T Δ^{−T−2} (N^{−s} + N^{1−s}/(s − 1)),
s = T + 2 (|c + it| >= t, |c + 1 + it| >= t; Σ_{n>=N} n^{−s} <= N^{−s} + ∫_N^∞ x^{−s} dx).

The node values m_n come with a bound E_n >= |m_n − m(c + inΔ)|; every node is carried as an arb ball (python-flint):
m_n ± E_n, raised to the T-th power and multiplied out in ball arithmetic, so the float inputs' errors and every
rounding are inside the balls.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..numbers.backends import ball_context

__all__ = ["alias_bound", "tail_bound", "trapezoid_delta"]


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def alias_bound(c: float, c2: float, P: Any, T: int, m_c2: Any, eps: Any, top: float | None = None) -> Any:
    """A (an arb ball whose upper end bounds Σ_{k≠0} e^{ckP} D(ε + kP); module docstring). ``P``: the period as an
    arb ball (both bounds decrease in P: its lower end is used); ``m_c2``: an arb ball containing m(c₂) (its upper end
    is used); ``eps``: ε as an arb ball; ``top``: ℓ_max of one step, when known."""
    from flint import arb

    P = arb(P.lower())
    if not (0 < c < c2) or not (P > 0):
        raise ValueError("alias_bound: needs 0 < c < c2 and P > 0")
    y = (-arb(c) * P).exp()
    low = y / (1 - y)
    if top is not None and eps.lower() + P >= arb(top) * T:
        return low
    c2a = arb(c2)
    kappa = (c2a / (1 + c2a)) ** c2a / (1 + c2a)
    x = (-(c2a - arb(c)) * P).exp()
    mc2 = arb(m_c2.upper())
    return low + kappa * mc2 ** T * (-c2a * eps.lower()).exp() * x / (1 - x)


def tail_bound(c: float, dt: float, N: int, T: int, V: float, eps: Any) -> Any:
    """An arb ball bounding (Δ/π) Σ_{n>=N} |G(nΔ)| (module docstring); infinite when V/(NΔ) >= 1."""
    from flint import arb

    if N < 1:
        raise ValueError("tail_bound: N >= 1")
    d, v, n = arb(dt), arb(V), arb(N)
    if not (v / (n * d) < 1):
        return arb("inf")
    s = T + 2
    tail = n ** (-s) + n ** (1 - s) / (s - 1)
    return d / arb.pi() * (-arb(c) * eps.lower()).exp() * v ** T * d ** (-s) * tail


def trapezoid_delta(m: np.ndarray, E: np.ndarray, c: float, dt: float, T: int, eps: Any, V: float, c2: float,
                    m_c2: Any, top: float | None = None, prec: int = 96) -> tuple[float, float, dict]:
    """[lower, upper] of D(ε) for ν_T = ν^{∗T} (module docstring), floats rounded outward, clipped to [0, m(0)^T <= 1].

    Args:
        m, E: m_n ≈ m(c + i·n·dt) for n = 0 … N−1 and bounds E_n >= |m_n − m(c + i·n·dt)|.
        c, dt: the Bromwich line's abscissa c > 0 and the rule's step Δ (period P = 2π/Δ).
        T: the number of steps composed.
        eps: ε (an arb ball, or anything ``arb()`` takes exactly: a float is its binary value).
        V: |m(c + it)| <= V/|t| for every t ≠ 0.
        c2, m_c2: a second abscissa c₂ > c and an arb ball containing m(c₂) (aliasing of the k >= 1 terms).
        top: ℓ_max of one step, if known (those terms vanish when ε + P >= T·ℓ_max).
    Returns:
        (lower, upper, parts): ``parts`` has the aliasing and truncation bounds and the sum's radius (floats), to
        tell which error limits the interval.
    """
    from flint import acb, arb

    if len(m) != len(E) or len(m) < 1:
        raise ValueError("trapezoid_delta: m and E need the same non-zero length")
    if not (c > 0 and dt > 0 and T >= 1):
        raise ValueError("trapezoid_delta: needs c > 0, dt > 0, T >= 1")
    with ball_context(prec):
        e = eps if isinstance(eps, arb) else arb(eps)
        if Fraction(dt).numerator.bit_length() + (len(m) - 1).bit_length() > 53:
            raise ValueError("trapezoid_delta: n·dt must be exact in floats (give dt few significant bits)")
        total = acb(0)
        for n in range(len(m)):
            mn = acb(float(m[n].real), float(m[n].imag))
            rad = arb(0, float(E[n]))  # [−E_n, E_n]
            ball = mn + acb(rad, rad)  # contains the disc |w − m_n| <= E_n
            z = acb(c, n * dt)  # exact: n·dt's significand needs at most the bits checked above
            g = ball ** T * (-z * e).exp() / (z * (z + 1))
            total += g / 2 if n == 0 else g
        S = arb(dt) / arb.pi() * total.real
        A = alias_bound(c, c2, 2 * arb.pi() / arb(dt), T, m_c2, e, top)
        R = tail_bound(c, dt, len(m), T, V, e)
        lo = S - A - R
        hi = S + R
        lower = max(0.0, math.nextafter(float(lo.lower()), -math.inf))
        upper = min(1.0, _up(float(hi.upper()))) if hi.upper().is_finite() else 1.0
        parts = {"alias": float(A.upper()), "truncation": float(R.upper()) if R.upper().is_finite() else math.inf,
                 "sum_radius": float(S.rad()), "nodes": len(m)}
    return lower, upper, parts
