"""Closed-form privacy profiles of the Laplace and Gaussian mechanisms, and the adp lecture's claims.

Neighbours move the true answer by the sensitivity Δ (ℓ1 = ℓ2 in one dimension).

* Laplace with scale ``b`` (Lap(Δ/ε) is ε-DP, adp §1):
  ``δ(ε') = max(0, 1 - exp((ε' - Δ/b)/2))`` for ε' >= 0 (hockey-stick divergence of two
  Laplace laws at distance Δ; 0 for ε' >= Δ/b).
* Gaussian N(0, σ²), analytic profile (Balle & Wang 2018, Theorem 8):
  ``δ(ε') = Φ(Δ/(2σ) - ε'σ/Δ) - e^{ε'} Φ(-Δ/(2σ) - ε'σ/Δ)``.
* adp Definition 5 / Theorem 2: ``σ = √(2 ln(1.25/δ)) Δ₂/ε`` gives (ε, δ)-DP for ε <= 1;
  adp §3 (after Theorem 2) restates it as ``δ(ε) = 1.25 exp(-ε²σ²/(2Δ₂²))`` "for every ε > 0".

Every profile has a float version (scipy ``ndtr``; relative error a few ulp except where the
difference cancels, which the ball version avoids) and a ball version (arb ``erfc``, rigorous).
"""

from __future__ import annotations

import math
from typing import Any

from ..mechanisms.validation import positive_real
from ..numbers.backends import ball_context
from ..numbers.real import Real

__all__ = [
    "laplace_profile",
    "gaussian_profile",
    "gaussian_profile_ball",
    "adp_gaussian_sigma",
    "adp_gaussian_delta_claim",
]


def _nonneg(x: Any, name: str) -> Real:
    r = Real.of(x, name)
    if r.sign() < 0:
        raise ValueError(f"{name} must be >= 0, got {r}")
    return r


def laplace_profile(eps_prime: Any, scale: Any, sensitivity: Any = 1) -> float:
    """``max(0, 1 - exp((ε' - Δ/b)/2))`` (float; relative error <= 4u via expm1)."""
    e = _nonneg(eps_prime, "eps_prime").to_float()
    b = positive_real(scale, "scale").to_float()
    d = positive_real(sensitivity, "sensitivity").to_float()
    x = (e - d / b) / 2
    return 0.0 if x >= 0 else -math.expm1(x)


def gaussian_profile(eps_prime: Any, sigma: Any, sensitivity: Any = 1) -> float:
    """Balle & Wang (2018) Theorem 8 in float (use :func:`gaussian_profile_ball` when it cancels)."""
    from scipy.special import ndtr

    e = _nonneg(eps_prime, "eps_prime").to_float()
    s = positive_real(sigma, "sigma").to_float()
    d = positive_real(sensitivity, "sensitivity").to_float()
    a = d / (2 * s)
    c = e * s / d
    return float(ndtr(a - c) - math.exp(e) * ndtr(-a - c))


def gaussian_profile_ball(eps_prime: Any, sigma: Any, sensitivity: Any = 1, prec: int = 128) -> Any:
    """Rigorous arb enclosure of the analytic Gaussian profile (Φ(x) = erfc(-x/√2)/2)."""
    from flint import arb

    e = _nonneg(eps_prime, "eps_prime")
    s = positive_real(sigma, "sigma")
    d = positive_real(sensitivity, "sensitivity")
    with ball_context(prec):
        eb, sb, db = e.to_arb(prec), s.to_arb(prec), d.to_arb(prec)
        a = db / (2 * sb)
        c = eb * sb / db
        r2 = arb(2).sqrt()
        phi = lambda x: (-x / r2).erfc() / 2  # noqa: E731
        return phi(a - c) - eb.exp() * phi(-a - c)


def adp_gaussian_sigma(epsilon: Any, delta: Any, sensitivity: Any = 1) -> float:
    """adp Definition 5: ``σ = √(2 ln(1.25/δ)) Δ₂ / ε`` (float, a few ulp)."""
    e = positive_real(epsilon, "epsilon").to_float()
    dl = positive_real(delta, "delta").to_float()
    if dl >= 1:
        raise ValueError(f"delta must be < 1, got {dl}")
    d = positive_real(sensitivity, "sensitivity").to_float()
    return math.sqrt(2 * math.log(1.25 / dl)) * d / e


def adp_gaussian_delta_claim(eps_prime: Any, sigma: Any, sensitivity: Any = 1) -> float:
    """The lecture's restatement of Theorem 2: ``δ(ε) = 1.25 exp(-ε²σ²/(2Δ₂²))`` (adp §3)."""
    e = _nonneg(eps_prime, "eps_prime").to_float()
    s = positive_real(sigma, "sigma").to_float()
    d = positive_real(sensitivity, "sensitivity").to_float()
    return 1.25 * math.exp(-(e * s / d) ** 2 / 2)
