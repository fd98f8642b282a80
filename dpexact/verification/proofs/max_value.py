"""The level of noisy max releasing its value (Laplace noise): an upper end by log-Lipschitz factors.

``M(q) = max_i (q_i + Z_i)``, ``Z_i ~ Lap(b)`` i.i.d. (:mod:`dpexact.mechanisms.noisy_max_value`).
Its density, and the joint density with the argmax index (``release="index-value"``), are

    f_max(y | q) = Σ_i f(y - q_i) Π_{k≠i} F(y - q_k),      f_{I,V}(i, y | q) = f(y - q_i) Π_{k≠i} F(y - q_k),

with f, F the Laplace density and cdf. Both ``log f`` and ``log F`` are ``1/b``-Lipschitz
(``|(log f)'| = 1/b``; ``(log F)' = f/F``, the reverse hazard, equals ``1/b`` left of 0 and is smaller
right of it). Under ALL_DIFFER each ``q_k`` moves by at most Δ, so every product term changes by at
most ``e^{nΔ/b}`` pointwise in y, and so does their sum: for every output set,

    ε* <= nΔ/b  (= nε/2 at b = 2Δ/ε),

and the bound is attained: left of every query ``G(x) = Π_k F(x - q_k) = 2^{-n} e^{Σ_k (x - q_k)/b}``,
so moving every query by Δ multiplies the probability of any interval there by exactly ``e^{nΔ/b}``
(the module docstring of the mechanism; the interval search certifies a witness at it). The proof
holds for the given n and every ε, Δ (the bound divided by ε is n/2 whatever they are).
Exponential noise has no such bound (its support moves with the queries): no proof.
"""

from __future__ import annotations

from typing import Any

from ...protocols import AnyMechanism
from ...numbers.real import Real
from ..bracket import Proof
from .lazy_sympy import sympy
from .symbolic_coupling import round_up

__all__ = ["MaxValueLaplace"]


class MaxValueLaplace:
    """Proof unit: ``nΔ/b`` for Laplace noisy max releasing its value (module docstring)."""

    name = "log-Lipschitz factors (noisy max value, Laplace)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...mechanisms.noisy_max_value import NoisyMaxValue

        return (isinstance(mechanism, NoisyMaxValue) and mechanism.noise == "laplace" and n is not None
                and relation in (None, "all-differ"))

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        b = Real.of(mechanism.noise_scale())
        level = Real.of(mechanism.sensitivity) * n / b
        ratio = sympy.simplify(level.to_sympy() / Real.of(mechanism.epsilon).to_sympy())
        return Proof(upper_float=round_up(level.to_sympy()), upper=str(level), method="theorem",
                     theorem="log f and log F of the Laplace law are 1/b-Lipschitz; the density of the maximum is a "
                             "sum of products of n such factors (Ding et al. CCS 2018 name the bug)",
                     domain={"n": n, "epsilon": str(mechanism.epsilon), "sensitivity": str(mechanism.sensitivity),
                             "neighbourhood": mechanism.neighbourhood().describe(), "scores": "R^n",
                             "outputs": "every output set"},
                     details={"statement": f"log-ratio <= nΔ/b = {level} = {ratio}·ε for n = {n}"})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> None:
        return None  # the interval search's left-tail witness attains the level
