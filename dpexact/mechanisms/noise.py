"""The three noise families of report noisy max, in standard form (location 0, scale 1).

A candidate with scale ``b`` receives the noise ``b·Z`` where ``Z`` has density ``f`` and cdf ``F``:

=============  ================================  ==================================  ==========
family         f(t)                              F(t)                                sup f
=============  ================================  ==================================  ==========
exponential    e^{-t}            (t >= 0)        1 - e^{-t}         (t >= 0, else 0) 1
laplace        e^{-|t|} / 2                      e^t/2 (t < 0),  1 - e^{-t}/2 (t>=0)  1/2
gumbel         exp(-t - e^{-t})                  exp(-e^{-t})                        1/e
=============  ================================  ==================================  ==========

Exponential and Laplace are piecewise analytic with one kink at ``t = 0``; each piece is given
by an entire function (the *branch*: ``right=True`` for ``t >= 0``), which is what the rigorous
ball quadrature integrates. Gumbel is entire.

Every family provides: float64 log-densities for vectorised quadrature (``log F`` and the log
reverse hazard ``log(f/F)``, both stable), pointwise mpmath functions, branch functions for
python-flint ``acb``/``arb``, monotone upper bounds of ``F`` and ``1 - F`` on an ``arb`` ball
(rigorous tail masses), truncation points for a target tail mass, and a numpy sampler.
Citations: pf Appendix F (Laplace), hetsel eq. (3)-(4) (exponential), pf §2 / Gumbel-max trick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NoiseFamily", "NOISE_FAMILIES", "noise_family"]


@dataclass(frozen=True)
class NoiseFamily:
    """A standard noise distribution (location 0, scale 1) on every number type we use.

    Attributes:
        name: ``"exponential"``, ``"laplace"`` or ``"gumbel"``.
        has_kink: whether ``f``/``F`` are only piecewise analytic, with the kink at ``t = 0``.
        support_low: left end of the support (0 for exponential, ``-inf`` otherwise).
    """

    name: str
    has_kink: bool
    support_low: float

    # -- float64 (vectorised) ----------------------------------------------------------------
    def logcdf(self, t: np.ndarray) -> np.ndarray:
        """``log F(t)``, stable everywhere (``-inf`` only where ``F = 0``)."""
        t = np.asarray(t, dtype=np.float64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if self.name == "laplace":
                return np.where(t < 0, t - math.log(2), np.log1p(-0.5 * np.exp(-np.abs(t))))
            if self.name == "exponential":
                return np.where(t > 0, np.log(-np.expm1(-np.maximum(t, 0.0))), -np.inf)
            return -np.exp(-t)

    def log_reverse_hazard(self, t: np.ndarray) -> np.ndarray:
        """``log(f(t)/F(t))`` where ``F(t) > 0`` (used as ``f_r ∏_{s≠r} F_s = (f_r/F_r) ∏_s F_s``)."""
        t = np.asarray(t, dtype=np.float64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if self.name == "laplace":
                # t >= 0: (e^{-t}/2) / (1 - e^{-t}/2) = 1 / (2 e^t - 1)
                return np.where(t < 0, 0.0, -np.log(2 * np.exp(np.maximum(t, 0.0)) - 1))
            if self.name == "exponential":
                # e^{-t} / (1 - e^{-t}) = 1 / (e^t - 1)
                return np.where(t > 0, -np.log(np.expm1(np.maximum(t, 0.0))), -np.inf)
            return -t

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Standard draws of shape ``shape``."""
        if self.name == "laplace":
            return rng.laplace(0.0, 1.0, shape)
        if self.name == "exponential":
            return rng.standard_exponential(shape)
        return rng.gumbel(0.0, 1.0, shape)

    # -- mpmath (pointwise, true piecewise functions) -------------------------------------------
    def pdf_mp(self, t: Any) -> Any:
        import mpmath

        if self.name == "laplace":
            return mpmath.exp(-abs(t)) / 2
        if self.name == "exponential":
            return mpmath.exp(-t) if t >= 0 else mpmath.mpf(0)
        return mpmath.exp(-t - mpmath.exp(-t))

    def cdf_mp(self, t: Any) -> Any:
        import mpmath

        if self.name == "laplace":
            return mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2
        if self.name == "exponential":
            return -mpmath.expm1(-t) if t >= 0 else mpmath.mpf(0)
        return mpmath.exp(-mpmath.exp(-t))

    # -- python-flint branches (entire functions; acb or arb argument) ------------------------
    def pdf_branch(self, t: Any, right: bool) -> Any:
        """The analytic piece of ``f`` valid for ``t >= 0`` (``right``) or ``t < 0``."""
        if self.name == "laplace":
            return (-t).exp() / 2 if right else t.exp() / 2
        if self.name == "exponential":
            return (-t).exp() if right else t * 0
        return (-t - (-t).exp()).exp()

    def cdf_branch(self, t: Any, right: bool) -> Any:
        """The analytic piece of ``F`` valid for ``t >= 0`` (``right``) or ``t < 0``."""
        if self.name == "laplace":
            return 1 - (-t).exp() / 2 if right else t.exp() / 2
        if self.name == "exponential":
            return -((-t).expm1()) if right else t * 0
        return (-((-t).exp())).exp()

    def hazard_max(self) -> int:
        """``sup_t f(t)/(1 - F(t))``, the largest hazard rate: 1 for all three families.

        Exponential: 1 on t >= 0 (0 below). Laplace: 1 for t >= 0, and ``(e^t/2)/(1 - e^t/2) <= 1``
        for t < 0. Gumbel: with ``u = e^{-t}``, ``u e^{-u}/(1 - e^{-u}) = u/(e^u - 1) < 1``. So
        ``log(1 - F)`` is 1-Lipschitz (the bound behind :mod:`dpexact.verification.proofs.noisy_max_coupling`).
        """
        return 1

    def pdf_max(self) -> Any:
        """``sup f`` as an arb ball."""
        from flint import arb

        return {"laplace": arb(1) / 2, "exponential": arb(1), "gumbel": (-arb(1)).exp()}[self.name]

    def cdf_upper(self, t: Any) -> Any:
        """Rigorous upper bound (arb) of ``F`` over the ball ``t`` (F increases: use its upper end)."""
        u = t.upper()  # exact (radius 0) and >= every point of t
        right = not (u < 0)
        return self.cdf_branch(u, right) if self.has_kink else self.cdf_branch(u, True)

    def sf_upper(self, t: Any) -> Any:
        """Rigorous upper bound (arb) of ``1 - F`` over the ball ``t`` (uses its lower end)."""
        lo = t.lower()  # exact (radius 0) and <= every point of t
        right = not (lo < 0)
        return 1 - self.cdf_branch(lo, right if self.has_kink else True)

    # -- truncation --------------------------------------------------------------------------
    def t_high(self, log_inv_tau: float) -> float:
        """A point with ``1 - F(t) <= tau = e^{-log_inv_tau}`` (the actual tail mass at the chosen
        cut is then bounded rigorously with :meth:`sf_upper`)."""
        if self.name == "laplace":
            return log_inv_tau - math.log(2)
        return log_inv_tau  # exponential: e^{-t}; gumbel: 1 - exp(-e^{-t}) <= e^{-t}

    def t_low(self, log_inv_tau: float) -> float:
        """A point with ``F(t) <= tau`` (exponential: 0, where F vanishes)."""
        if self.name == "laplace":
            return -(log_inv_tau - math.log(2))
        if self.name == "exponential":
            return 0.0
        return -math.log(log_inv_tau)  # exp(-e^{-t}) <= tau


NOISE_FAMILIES: dict[str, NoiseFamily] = {
    "exponential": NoiseFamily("exponential", True, 0.0),
    "laplace": NoiseFamily("laplace", True, -math.inf),
    "gumbel": NoiseFamily("gumbel", False, -math.inf),
}


def noise_family(name: Any) -> NoiseFamily:
    """Look up a noise family by name (``ValueError`` naming ``noise`` otherwise)."""
    if not isinstance(name, str) or name not in NOISE_FAMILIES:
        raise ValueError(f"noise must be one of {sorted(NOISE_FAMILIES)}, got {name!r}")
    return NOISE_FAMILIES[name]
