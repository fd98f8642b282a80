"""Report-noisy-max that releases the noisy maximum *value* (the classic bug; Ding et al. CCS 2018).

``M(q) = max_i (q_i + Z_i)`` with ``Z_i`` i.i.d. Laplace(b) or Exponential(b), ``b = 2Δ/ε``. The
maximum of independent variables has the cdf ``G(x) = Π_i F(x - q_i)``, so every interval of
outputs has the closed-form probability

    Pr[M(q) ∈ [lo, hi]] = Π_i F(hi - q_i) - Π_i F(lo - q_i)

with ``F`` the Laplace cdf (``½e^{x/b}`` / ``1 - ½e^{-x/b}``) or the exponential cdf
(``1 - e^{-x/b}`` for x >= 0, else 0): exact in ``Q[exp(Q)]`` for rational inputs, a rigorous
ball otherwise. Releasing the index together with the value would be a finer output; the
value alone already refutes the claim.

Not ε-DP: in the left tail ``G(x) ∝ e^{Σ(x - q_i)/b}`` (Laplace), so shifting every query by Δ
changes the density by ``e^{nΔ/b} = e^{nε/2}``; with exponential noise the support starts at
``max_i q_i`` and moves with the queries (unbounded ratio).

Peers: StatDP ``noisy_max_v1b`` (Laplace) / ``noisy_max_v2b`` (exponential); DP-Sniper
``ReportNoisyMax3`` / ``ReportNoisyMax4``; CheckDP ``badnoisymax`` (Laplace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import ball_context
from ..numbers.real import Real
from ..protocols import MechanismProperties
from .validation import exact_scores, float_scores, positive_real

__all__ = ["NoisyMaxValue"]


@dataclass(frozen=True)
class NoisyMaxValue:
    """Noisy max returning the maximum noisy value; noise ``"laplace"`` or ``"exponential"`` of scale 2Δ/ε; not ε-DP.

    Peers: StatDP noisy_max_v1b / v2b; DP-Sniper ReportNoisyMax3 / 4; CheckDP badnoisymax.
    """

    epsilon: Any
    noise: str = "laplace"
    sensitivity: Any = 1

    short_name: ClassVar[str] = "noisy-max-value"
    output_kind: ClassVar[str] = "interval"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        if self.noise not in ("laplace", "exponential"):
            raise ValueError(f"noise must be 'laplace' or 'exponential', got {self.noise!r}")

    def noise_scale(self) -> Real:
        return self.sensitivity * 2 / self.epsilon

    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def neighbourhood(self) -> Any:
        from .query_neighbourhoods import all_differ

        return all_differ(self.sensitivity.to_fraction())

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "noise": self.noise, "sensitivity": str(self.sensitivity)}

    def _cdf(self, ops: Any, x: Real, b: Real) -> Any:
        from .sparse_vector.threshold_integral import laplace_cdf

        if self.noise == "laplace":
            return laplace_cdf(ops, x, b)
        if x <= 0:
            return ops.const(0)
        return ops.const(1) - ops.exp(-x / b)

    def interval_probability(self, queries: Any, lo: Any, hi: Any, backend: str = "ball", prec: int = 128) -> Any:
        """``Pr[M(q) ∈ [lo, hi]]`` in closed form (exact ExpSum or arb ball)."""
        from .sparse_vector.mechanism import finite_real
        from .sparse_vector.threshold_integral import ball_ops, exact_ops

        q = exact_scores(queries, limit=10_000)
        lo, hi = finite_real(lo, "lo"), finite_real(hi, "hi")
        if not lo < hi:
            raise ValueError(f"interval must have lo < hi, got [{lo}, {hi}]")
        if backend not in ("ball", "exact"):
            raise ValueError(f"backend must be 'ball' or 'exact', got {backend!r}")
        ops = exact_ops() if backend == "exact" else ball_ops(prec)
        b = self.noise_scale()
        with ball_context(prec):
            g_hi, g_lo = ops.const(1), ops.const(1)
            for x in q:
                g_hi = g_hi * self._cdf(ops, hi - x, b)
                g_lo = g_lo * self._cdf(ops, lo - x, b)
            return g_hi - g_lo

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> Any:
        q = float_scores(queries, "queries")
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        b = self.noise_scale().to_float()
        z = rng.laplace(scale=b, size=(k, len(q))) if self.noise == "laplace" else rng.exponential(scale=b, size=(k, len(q)))
        m = (q[None, :] + z).max(axis=1)
        return float(m[0]) if size is None else m
