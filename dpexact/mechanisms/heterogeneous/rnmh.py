"""Report noisy max with candidate-wise noise (RNMH, hetsel eq. 4) and with the global Δ (eq. 3).

* :class:`RNMGlobal` (registry ``rnm-global``), hetsel eq. (3): ``argmax_a q_a + z_a``,
  ``z_a ~ Exp(ε/2Δ)`` (mean ``2Δ/ε``) with the global ``Δ = max_a Δ_a`` (eq. 2). ε-DP.
  Its law is permute-and-flip's with sensitivity Δ (Ding et al. 2021, cited in hetsel §III-B),
  so ``method="pf"`` (default; has an exact backend) uses :class:`PermuteAndFlip`;
  ``method="quadrature"`` integrates the RNM definition (:mod:`..report_noisy_max`).
* :class:`RNMH` (``rnmh``), hetsel eq. (4): ``z_a ~ Exp(ε/2Δ_a)``, mean ``2Δ_a/ε``.
  *Not* differentially private in general (hetsel §IV-A); provided for reference, as in the
  paper's experiments. Two-candidate closed form (hetsel §V-A), for ``q_1 < q_2``:
  ``Pr[out = 1] = exp(-ε(q_2 - q_1)/(2Δ_1)) / (1 + Δ_2/Δ_1)``.
* :class:`RNMHLaplace` (``rnmh-laplace``), hetsel §IV-A and Appendix A: ``z_a ~ Lap(Δ_a/ε)``
  (scale ``k Δ_a/ε`` with ``noise_factor`` k, default 1 as printed in §IV-A "Lap(ε/Δ_a)" —
  a rate — and Appendix A "Lap(Δ_i/ε)"; ``noise_factor=2`` gives the pf Appendix F scaling
  ``2Δ_a/ε``). Not ε-DP: the paper shows it is (k-1)ε-DP at best (Appendix A).

All pmfs are computed by :class:`~dpexact.mechanisms.report_noisy_max.ReportNoisyMax` with
per-candidate ``scales`` (float: quad_vec estimate; mp: estimate; ball: rigorous; no exact
backend). ``rvs`` runs the noisy-max definition literally.
Citations: hetsel eqs. (2)-(4), §IV-A, §V-A, Appendix A.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...numbers.backends import Backend
from ...numbers.pmf import Pmf
from ...numbers.real import Real
from ..base import _check_method, lipschitz_shift
from ..validation import positive_real
from .sensitivities import HeterogeneousSelection

__all__ = ["RNMGlobal", "RNMH", "RNMHLaplace"]


@dataclass(frozen=True)
class _PerCandidateRNM(HeterogeneousSelection):
    noise: ClassVar[str] = "exponential"

    exact_limit: ClassVar[int] = 1_000_000  # no exact backend: the pmf raises a clear error

    def candidate_scales(self, n: int) -> list[Real]:
        raise NotImplementedError

    def _rnm(self, n: int) -> Any:
        from ..report_noisy_max import ReportNoisyMax

        return ReportNoisyMax(self.epsilon, noise=self.noise, scales=tuple(self.candidate_scales(n)))

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """Noisy max with scales ``b_a``: rate ``1/min_a b_a`` (:func:`~..base.lipschitz_shift`)."""
        return self._rnm(q.size).input_rounding_shift(scores, q, rounding)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        return self._rnm(q.size).pmf(q, backend="float", method=method)

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        return self._rnm(len(q)).pmf(q, backend=backend, method=method)

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        return self._rnm(q.size).sample(q, rng, size)


@dataclass(frozen=True)
class RNMH(_PerCandidateRNM):
    """RNMH: report noisy max with Exp(ε/2Δ_a) noise per candidate (hetsel eq. 4); not DP."""

    short_name: ClassVar[str] = "rnmh"

    def candidate_scales(self, n: int) -> list[Real]:
        return [d * 2 / self.epsilon for d in self.candidate_sensitivities(n)]


@dataclass(frozen=True)
class RNMHLaplace(_PerCandidateRNM):
    """RNMH with Laplace noise Lap(k·Δ_a/ε), k = ``noise_factor`` (hetsel §IV-A, App. A); not ε-DP."""

    noise_factor: Any = 1

    noise: ClassVar[str] = "laplace"
    short_name: ClassVar[str] = "rnmh-laplace"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "noise_factor", positive_real(self.noise_factor, "noise_factor"))

    def candidate_scales(self, n: int) -> list[Real]:
        return [d * self.noise_factor / self.epsilon for d in self.candidate_sensitivities(n)]


@dataclass(frozen=True)
class RNMGlobal(_PerCandidateRNM):
    """RNM with Exp(ε/2Δ) noise at the global Δ = max_a Δ_a (hetsel eqs. 2-3); ε-DP."""

    short_name: ClassVar[str] = "rnm-global"
    # the exact pmf is permute-and-flip's (same measured cost)
    exact_limit: ClassVar[int] = 250
    exact_symbolic_limit: ClassVar[int] = 10
    exact_cost: ClassVar[tuple[float, float] | None] = (8.8e-8, 3.29)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (1.6e-3, 3.68)
    mp_limit: ClassVar[int] = 6_000
    ball_limit: ClassVar[int] = 100_000

    def candidate_scales(self, n: int) -> list[Real]:
        return [self.global_sensitivity(n) * 2 / self.epsilon] * n

    def _pf(self, n: int) -> Any:
        from ..permute_and_flip import PermuteAndFlip

        return PermuteAndFlip(self.epsilon, self.global_sensitivity(n))

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        m = _check_method(method, ("pf", "quadrature"), "pf")
        if m == "pf":
            return self._pf(q.size).pmf(q)
        return self._rnm(q.size).pmf(q)

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        m = _check_method(method, ("pf", "quadrature"), "pf")
        if m == "pf":
            return self._pf(len(q)).pmf(q, backend=backend)
        return self._rnm(len(q)).pmf(q, backend=backend)
