"""A float estimate of a Gaussian-based loss law's cumulant generating function K(θ) = log E_{P′}[e^{θL}], read from
the law itself (quadrature) rather than from a discretised grid: a hint for the tilt θ of :mod:`.grid_accounting`,
never a bound (any θ >= 0 is sound; only the width depends on it).

Also the tilt choices of a pass (:func:`_law_tilts`, :func:`_theta_for_eps`, :func:`_theta_for_delta`): saddle points
of K read from the law or from a pass's measures, rounded to short dyadics.

Why: a subsampled law's add direction has losses in (−∞, −log(1 − q)], a support narrower than the coarse grids
(q = 1/1000: 0.001 against h = 2^-7), so K read from those grids misses its saddle point by an order of magnitude
(measured σ = 2, q = 1/1000, T = 1000, δ = 1e-18: θ 36–145 from the coarse passes, 637 from the law).

With L₀ = log(P/Q) ~ N(−μ²/2, μ²) under Q and g(l) = log(1 − r + r·e^l) (r the subsampling rate):

* remove: L = g(L₀) under P′ = rP + (1 − r)Q, E_{P′}[e^{θL}] = E_Q[(P′/Q)^{1+θ}] = E_Q[e^{(1+θ)g(L₀)}];
* add:    L = −g(L₀) under P′ = Q,             E_{P′}[e^{θL}] = E_Q[e^{−θg(L₀)}]

(r = 1: L₀ itself, K closed form). The expectations are trapezoid sums over z = (L₀ + μ²/2)/μ on a range that holds
the integrand's peak (a smooth Gaussian integrand: the trapezoid rule converges geometrically).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .loss_laws import GaussianBase, LossLaw

__all__ = ["float_log_mgf", "LawMgf"]

#: trapezoid nodes per unit of z
NODES = 50


def _g(l0: np.ndarray, r: float) -> np.ndarray:
    """log(1 − r + r·e^{l0}) without overflow."""
    return np.logaddexp(math.log1p(-r), math.log(r) + l0)


def float_log_mgf(law: LossLaw, theta: float) -> float | None:
    """K(θ) of one Gaussian-based continuous loss law in floats (module docstring); None for other laws."""
    if not (law.continuous and isinstance(law.base, GaussianBase)):
        return None
    mu = float(law.base.mu.mid())
    if law.r == 1:  # L ~ N(μ²/2, μ²) under P′ in both directions
        return theta * mu * mu / 2 + theta * theta * mu * mu / 2
    r = float(law.r.mid())
    a = 1.0 + theta if law.direction == "remove" else -theta
    # the integrand e^{−z²/2 + a·g(L₀)} peaks at z* = a·μ·s(L₀), 0 <= s <= 1: inside [min(0, aμ), max(0, aμ)]
    lo, hi = min(0.0, a * mu) - 40.0, max(0.0, a * mu) + 40.0
    z = np.linspace(lo, hi, int((hi - lo) * NODES) + 1)
    l0 = -mu * mu / 2 + mu * z
    t = -z * z / 2 + a * _g(l0, r)
    top = float(t.max())
    return top + math.log(float(np.exp(t - top).sum()) * (z[1] - z[0])) - 0.5 * math.log(2 * math.pi)


class LawMgf:
    """K(θ) = Σ count·K_law(θ) of each direction of ``laws`` ({direction: [(law, count)]}) in floats, in the
    interface of the grid passes (``log_mgf(d, θ)``) that the θ choosers of :mod:`.grid_accounting` read."""

    def __init__(self, laws: dict[str, list]) -> None:
        self.laws = laws

    def log_mgf(self, d: str, theta: float) -> float:
        return sum(count * float_log_mgf(law, theta) for law, count in self.laws[d])  # type: ignore[misc]


# the tilt of a pass (:mod:`.grid_accounting`): saddle points of K, from the law or from a pass's measures

def _bounded(items: list) -> bool:
    """Every law of the direction is continuous with its losses bounded above (atom laws keep THETA_MAX)."""
    return all(law.continuous and math.isfinite(float(law.loss_range()[1])) for law, _ in items)


def _law_tilts(laws: dict[str, list], theta: dict[str, float], theta_of: Any, cap: dict[str, float]) -> dict[str, float]:
    """θ of every direction whose losses are bounded above (a subsampled Gaussian's add direction) from the saddle
    point of its exact K (:class:`.law_tilt.LawMgf`), the others' θ kept. Such a support (width ~ −log(1 − q)) is narrower than
    the coarse grids, whose K misses the saddle point (measured σ = 2, q = 1/1000, T = 1000, δ = 1e-18: 36–145 from
    the coarse passes, 637 from the law; at 2^-16 the add direction's ε in [0.103, 0.444] at θ = 36, [0.1259, 0.1259]
    at 637). A float choice: any θ is sound."""
    if not LAW_TILT:
        return theta
    out = dict(theta)
    mgf = LawMgf(laws)
    for d in laws:
        if _law_tilted(laws, d):
            out[d] = min(theta_of(mgf, d, 1e-3, cap[d]), cap[d])
    return out


def _law_tilted(laws: dict[str, list], d: str) -> bool:
    """Direction d's θ is taken from its law's K by :func:`_law_tilts` (whatever the coarse passes found)."""
    items = laws[d]
    return LAW_TILT and _bounded(items) and all(float_log_mgf(law, 1.0) is not None for law, _ in items)


#: θ of a bounded direction from its law's exact K (:func:`_law_tilts`); False: from the coarse passes
LAW_TILT = True


def _law_start(laws: dict[str, list], theta_of: Any, cap: dict[str, float], h: float) -> dict[str, float]:
    """The coarse passes' (step ``h``) first θ: the saddle point of each direction's exact K (:class:`LawMgf`) where
    every law of the direction is Gaussian-based with its subsampled scale −log(1 − r) resolved by h, else 0. Why: from
    θ = 0 the coarse trust region ([θ/4, 4θ + 2] a pass) needs 4-6 passes to reach θ ~ 35 (σ = 2, q = 1/100: the
    coarse K's saddle point 34.6, the law's 34.7); from the law's one pass confirms it. Where h does not resolve the
    law (q = 1/1000 at 2^-7) the coarse K's θ differs from the law's and the split passes were measured at it (σ = 2,
    q = 1/1000, T = 100, δ = 1e-10: remove θ 43 from the coarse passes, 54 from the law, 0.9 s against 16.8 s): θ = 0
    as before. A float choice: any θ >= 0 is sound, and the coarse passes still move θ by their own K."""
    out = {d: 0.0 for d in laws}
    if not LAW_START:
        return out
    mgf = LawMgf(laws)
    for d, items in laws.items():
        if items and all(float_log_mgf(law, 1.0) is not None and (law.r == 1 or -math.log1p(-float(law.r.mid())) >= h)
                         for law, _ in items):
            out[d] = min(theta_of(mgf, d, 1e-3, cap[d]), cap[d])
    return out


#: the coarse passes start at the law's saddle points (:func:`_law_start`); False: at θ = 0
LAW_START = True


def _golden(f: Any, a: float, b: float) -> float:
    """argmin of a unimodal f on [a, b] (a float choice of tilt, never a bound)."""
    from scipy.optimize import minimize_scalar

    return float(minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-9 * max(1.0, abs(b))}).x)


def _theta_for_eps(p: Any, eps: float, d: str, a: float, b: float) -> float:
    return _round_theta(_golden(lambda t: p.log_mgf(d, t) - t * eps, a, b))


def _theta_for_delta(p: Any, log_delta: float, d: str, a: float, b: float) -> float:
    """θ minimising Chernoff's ε(θ) = (K(θ) − log δ)/θ for direction d."""
    f = lambda u: (p.log_mgf(d, math.exp(u)) - log_delta) / math.exp(u)
    return _round_theta(math.exp(_golden(f, math.log(max(a, 1e-4)), math.log(b))))


def _round_theta(t: float) -> float:
    return 0.0 if t < 1e-6 else math.ldexp(math.floor(math.ldexp(t, 20)), -20)  # a short dyadic
