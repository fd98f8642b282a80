"""Mechanisms with real-valued outputs defined outside dpexact, through the protocol only.

Copy this file anywhere and use it from every dpexact command::

    python -m dpexact verify -m /some/dir/own_continuous.py:MyLaplace -e 1/2 -p factor=1/2 --n 3
    python -m dpexact verify -m /some/dir/own_continuous.py:MyGaussian -e 1 --n 2
    python -m dpexact prob -m /some/dir/own_continuous.py:MyLaplace -e 1/2 -q 0,1 --box 0:1,0:1
    python -m dpexact conform /some/dir/own_continuous.py:MyLaplace

What a real-valued mechanism gives (``dpexact.protocols``, ``ContinuousMechanism``): its law of
*sets* — here ``box_probability(q, box, backend)``, a rigorous arb ball of
``Pr[M(q) ∈ Π [lo_i, hi_i]]`` — plus a density (``pdf`` / ``logpdf``) and a sampler (``rvs``).
The verifier searches neighbouring pairs and boxes, and certifies a violation on a set of
positive measure (re-checked at 256 bits). A mechanism that also states its density as Laplace
pieces (``density_pieces(n)``, :class:`dpexact.protocols.LaplaceDensity`) gets a density-ratio
proof over every output set: ``private`` when it holds, and its exact level as the upper end of
the ε bracket when it does not. Without that statement it never says "private", only "inconclusive".

* :class:`MyLaplace` — ``q_i + Lap(f·Δ/ε)``, one query moves by Δ (ONE_DIFFER): ε-DP for f = 1;
  the exact level is ε/f (density-ratio theorem), so f = 1/2 is refuted at its level 2ε. It states its
  density pieces: f = 1 is proved private.
* :class:`MyGaussian` — ``q_i + N(0, (Δ/ε)²)``: not ε-DP for any ε (unbounded tail ratio).
* :class:`MyNoisyMaxValue` — ``max(q) + Lap(f·Δ/ε)``, one real number (``output_kind
  "interval"``), every query moves by ≤ Δ: ε-DP for f = 1. It states no noise scale: the
  verifier measures its search in units of 2Δ/ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.mechanisms.query_neighbourhoods import OneDiffer
from dpexact.numbers.backends import ball_context
from dpexact.numbers.real import Real
from dpexact.protocols import LaplacePieces, MechanismProperties

__all__ = ["MyLaplace", "MyGaussian", "MyNoisyMaxValue"]


def _ball_only(backend: Any) -> None:
    if backend != "ball":
        raise ValueError(f"backend: this law is served on 'ball' only, got {backend!r}")


@dataclass(frozen=True)
class MyLaplace:
    """q_i + Lap(f·Δ/ε) on every query, claimed ε-DP when one query moves by Δ (f = 1 is private)."""

    epsilon: Any
    factor: Any = 1
    sensitivity: Any = 1
    short_name = "my-laplace"
    output_kind = "continuous"
    size = None
    properties = MechanismProperties(certified=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", Real.of(self.epsilon))
        object.__setattr__(self, "sensitivity", Real.of(self.sensitivity))

    def b(self) -> Real:
        return self.sensitivity * Real.of(self.factor) / self.epsilon

    def neighbourhood(self) -> Any:
        return OneDiffer(self.sensitivity.to_fraction())

    def params(self) -> dict:
        return {"epsilon": str(self.epsilon), "factor": str(self.factor)}

    def logpdf(self, q: Any, y: Any) -> float:
        b = self.b().to_float()
        return float(np.sum(-np.abs(np.asarray(y, float) - np.asarray(q, float)) / b - math.log(2 * b)))

    def pdf(self, q: Any, y: Any) -> float:
        return math.exp(self.logpdf(q, y))

    def density_pieces(self, n: int) -> LaplacePieces | None:
        """Coordinate i is ``q_i + Lap(b)``: the density stated for a density-ratio proof."""
        return LaplacePieces(tuple(tuple(Fraction(int(i == j)) for i in range(n)) for j in range(n)),
                             tuple(self.b() for _ in range(n)), column_bound=1 / self.b())

    def box_probability(self, q: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any:
        from flint import arb

        _ball_only(backend)
        with ball_context(prec):
            b = self.b().to_arb(prec)
            p = arb(1)
            for x, (lo, hi) in zip(q, box):
                x = Real.of(x).to_arb(prec)
                p *= self._cdf(Real.of(hi).to_arb(prec) - x, b) - self._cdf(Real.of(lo).to_arb(prec) - x, b)
            return p

    @staticmethod
    def _cdf(t: Any, b: Any) -> Any:
        from flint import arb

        if t < 0:
            return (t / b).exp() / 2
        if t >= 0:
            return 1 - (-t / b).exp() / 2
        # a ball straddling 0: the union of both branches' enclosures
        return arb.union((t / b).exp() / 2, 1 - (-t / b).exp() / 2)

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        rng = np.random.default_rng(random_state)
        q = np.asarray(q, dtype=float)
        y = q[None, :] + rng.laplace(scale=self.b().to_float(), size=(1 if size is None else int(size), q.size))
        return y[0] if size is None else y


@dataclass(frozen=True)
class MyGaussian(MyLaplace):
    """q_i + N(0, σ²), σ = Δ/ε: not ε-DP for any ε (the Gaussian tails' ratio is unbounded)."""

    short_name = "my-gaussian"

    def density_pieces(self, n: int) -> LaplacePieces | None:
        return None  # not a product of Laplace laws

    def box_probability(self, q: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any:
        from flint import arb

        _ball_only(backend)
        with ball_context(prec):
            s = self.b().to_arb(prec) * arb(2).sqrt()
            p = arb(1)
            for x, (lo, hi) in zip(q, box):
                x = Real.of(x).to_arb(prec)
                # Pr[lo <= x + Z <= hi] = (erfc((lo-x)/σ√2) - erfc((hi-x)/σ√2)) / 2 (accurate in both tails)
                p *= (((Real.of(lo).to_arb(prec) - x) / s).erfc() - ((Real.of(hi).to_arb(prec) - x) / s).erfc()) / 2
            return p

    def logpdf(self, q: Any, y: Any) -> float:
        s = self.b().to_float()
        return float(np.sum(-((np.asarray(y, float) - np.asarray(q, float)) ** 2) / (2 * s * s) - math.log(s * math.sqrt(2 * math.pi))))

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        rng = np.random.default_rng(random_state)
        q = np.asarray(q, dtype=float)
        y = q[None, :] + rng.normal(scale=self.b().to_float(), size=(1 if size is None else int(size), q.size))
        return y[0] if size is None else y


@dataclass(frozen=True)
class MyNoisyMaxValue(MyLaplace):
    """One real number, ``max(q) + Lap(f·Δ/ε)``: ε-DP for f = 1 when every query moves by ≤ Δ (the
    max moves by ≤ Δ). States no ``noise_scale``: the search uses its own unit."""

    short_name = "my-max-value"
    output_kind = "interval"

    def density_pieces(self, n: int) -> LaplacePieces | None:
        return None  # one value max(q) + noise: not a linear centre

    def neighbourhood(self) -> Any:
        from dpexact.mechanisms.query_neighbourhoods import all_differ

        return all_differ(self.sensitivity.to_fraction())

    def interval_probability(self, q: Any, lo: Any, hi: Any, backend: str = "ball", prec: int = 128) -> Any:
        m = max(Fraction(Real.of(x).to_fraction()) for x in q)
        return MyLaplace.box_probability(self, [m], [(lo, hi)], backend, prec)

    def rvs(self, q: Any, size: Any = None, random_state: Any = None) -> Any:
        rng = np.random.default_rng(random_state)
        y = max(float(x) for x in q) + rng.laplace(scale=self.b().to_float(), size=None if size is None else int(size))
        return y
