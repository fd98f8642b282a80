"""Numerical sparse vector (Wang et al. PLDI 2019 "NumericalSVT"; CheckDP ``numsparsevector``).

Threshold noise ``ρ ~ Lap(3Δ/ε)``, comparison noise ``ν_i ~ Lap(6cΔ/ε)``: query i is ⊤ iff
``q_i + ν_i >= T + ρ``; for a ⊤ query the mechanism releases a *fresh* noisy answer
``q_i + η_i``, ``η_i ~ Lap(3cΔ/ε)`` (⊥ releases nothing; the run aborts after c ⊤). The released
values are independent of the pattern given q, so the law of (pattern a, values v) is

    p(a, v) = Pr[a] · Π_{i ∈ ⊤(a)} f_{b3}(v_i - q_i),    b3 = 3cΔ/ε,

with ``Pr[a]`` the sparse-vector pattern law (:mod:`.mechanism`). For neighbours q, q' the
largest log-ratio over output sets with pattern a is exactly

    log(Pr_q[a] / Pr_{q'}[a]) + Σ_{i ∈ ⊤(a)} |q_i - q'_i| / b3

(the Laplace density ratio is at most ``e^{|q_i - q'_i|/b3}``, with equality on the tail boxes
``v_i >= max(q_i, q'_i)`` or ``v_i <= min``): :meth:`value_loss` gives the second term, and the
pattern verifier compares ``Pr_q[a] <= e^{ε - loss} Pr_{q'}[a]``. ε-DP (ShadowDP proof).

Peers: DP-Sniper ``NumericalSVT`` (c = 2 default, run with c = 1... as configured), CheckDP
``numsparsevector``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

from ...numbers.real import Real
from .mechanism import SparseVector

__all__ = ["NumericalSVT"]


@dataclass(frozen=True)
class NumericalSVT(SparseVector):
    """Numerical SVT: ρ ~ Lap(3Δ/ε), ν_i ~ Lap(6cΔ/ε), releases q_i + Lap(3cΔ/ε) for each ⊤; ε-DP (Wang et al. PLDI 2019)."""

    short_name: ClassVar[str] = "numerical-svt"
    coupling_theorem: ClassVar[str] = "Wang, Ding, Wang, Kifer & Zhang, PLDI 2019 (ShadowDP), NumericalSVT"

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        b1 = self.sensitivity * 3 / self.epsilon
        return b1, self.sensitivity * (6 * self.cutoff) / self.epsilon, b1

    def release_scale(self) -> Real:
        return self.sensitivity * (3 * self.cutoff) / self.epsilon

    def _top_terms(self, b2: Real) -> list[tuple]:
        # the released q_i + η_i: fresh noise, its density ratio does not involve ρ
        return [("above", b2), ("fixed", self.release_scale())]

    def value_loss(self, q: Sequence[Any], q2: Sequence[Any], pattern: str) -> Real:
        """``Σ_{i ∈ ⊤} |q_i - q'_i| / b3``: the sup of the released values' log density ratio."""
        b3 = self.release_scale()
        s = Real.of(0)
        for i, a in enumerate(pattern):
            if a == "T":
                d = Real.of(q[i]) - Real.of(q2[i])
                s = s + (d if d >= 0 else -d) / b3
        return s
