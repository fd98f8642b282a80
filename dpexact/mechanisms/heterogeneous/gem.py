"""Generalised exponential mechanism (GEM) and modified GEM (mGEM), hetsel §IV-C/D, eqs. 6-7.

Score transform (hetsel eq. 6, equivalently eq. 7)::

    q'_a = min_{a'} [ (q_a - t Δ_a) - (q_{a'} - t Δ_{a'}) ] / (Δ_a + Δ_{a'})

with ``t = 2 log(|A|/β)/ε`` for GEM (Raskhodnikova & Smith 2015, hetsel §IV-C) and
``t = -2 log(|A|/β)/ε`` for mGEM (hetsel §IV-D); ``β ∈ (0, 1)`` (default 0.05, the paper's
experiments, §VI). ``q'`` has sensitivity at most 1 and ``max_a q'_a = 0``. The normalised
scores are then fed to

* ``selector="rnm"`` (default, hetsel footnote 3: "We will use RNM with Exponential noise"):
  report noisy max with ``Exp(ε/2)`` noise, i.e. sensitivity 1. Its law is permute-and-flip's
  (Ding et al. 2021), so the pmf is :class:`PermuteAndFlip` (ε, Δ = 1) on ``q'`` — exact,
  ball, mp and float backends; ``rvs`` adds exponential noise literally;
* ``selector="em"`` (Raskhodnikova & Smith's original): the exponential mechanism (ε, Δ = 1).

Exactness: on the mp / ball / exact backends ``q'`` is formed exactly: every ratio is
``α - t β`` with exact ``α, β`` and the minimum is decided by exact sign tests
(:class:`Real`). On the float backend ``q'`` is computed in float64 (row by row); its rounding
(``<= 4u (|q_a - q_a'| + |t||Δ_a - Δ_a'|)/(Δ_a + Δ_a') + u|q'_a|`` per entry) perturbs the
exponents by ``δ = ε/2 · that``; the stated ``rel_error`` adds ``(n+1)·max δ`` to the
selector's bound and is labelled an estimate.
Citations: hetsel eqs. (6)-(7), §IV-C, §IV-D, footnote 3; Raskhodnikova & Smith (2015).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...numbers.backends import Backend
from ...numbers.pmf import Pmf
from ...numbers.real import Real
from ..base import lipschitz_shift
from ..validation import check_size
from .sensitivities import HeterogeneousSelection

__all__ = ["GEM", "ModifiedGEM", "gem_scores", "gem_t"]

U = 2.0**-53
SELECTORS = ("rnm", "em")
FLOAT_LIMIT = 20_000


def gem_t(n: int, beta: Real, epsilon: Real, sign: int) -> Real:
    """``t = ±2 log(n/β)/ε`` (hetsel §IV-C: + for GEM, §IV-D: - for mGEM), exact."""
    import sympy

    ratio = Real.of(n) / beta
    log_ratio = Real.of(sympy.log(ratio.to_sympy()))
    return log_ratio * (2 * sign) / epsilon


def gem_scores(q: list[Real], deltas: list[Real], t: Real) -> list[Real]:
    """Exact hetsel eq. (6): ``q'_a = min_{a'} ((q_a - q_a') - t(Δ_a - Δ_a'))/(Δ_a + Δ_a')``."""
    n = len(q)
    out = []
    for a in range(n):
        best: tuple[Real, Real] | None = None  # value = alpha - t*beta
        for b in range(n):
            s = deltas[a] + deltas[b]
            alpha = (q[a] - q[b]) / s
            beta = (deltas[a] - deltas[b]) / s
            if best is None or _less(alpha, beta, best[0], best[1], t):
                best = (alpha, beta)
        assert best is not None
        out.append(best[0] - t * best[1] if best[1].sign() != 0 else best[0])
    return out


def _less(a1: Real, b1: Real, a2: Real, b2: Real, t: Real) -> bool:
    """Whether ``a1 - t b1 < a2 - t b2``, decided exactly."""
    db = b1 - b2
    da = a1 - a2
    if db.sign() == 0:
        return da.sign() < 0
    return (da - t * db).sign() < 0


def gem_scores_float(q: np.ndarray, deltas: np.ndarray, t: float) -> tuple[np.ndarray, float]:
    """Float64 eq. (6) and a bound on the absolute rounding error of each entry."""
    n = q.size
    out = np.empty(n)
    err = 0.0
    step = max(1, min(n, 4_000_000 // n))
    for s in range(0, n, step):
        qa, da = q[s : s + step, None], deltas[s : s + step, None]
        num_q = qa - q[None, :]
        num_d = da - deltas[None, :]
        den = da + deltas[None, :]
        m = (num_q - t * num_d) / den
        out[s : s + step] = m.min(axis=1)
        err = max(err, float(np.max(4 * U * (np.abs(num_q) + abs(t) * np.abs(num_d)) / den)))
    err += U * float(np.max(np.abs(out)))
    return out, err


@dataclass(frozen=True)
class _GEMBase(HeterogeneousSelection):
    beta: Any = "0.05"
    selector: str = "rnm"

    sign: ClassVar[int] = 1
    # t = ±2 log(n/β)/ε makes the weights irrational: the exact pmf is PF's over sympy
    exact_limit: ClassVar[int] = 8
    exact_symbolic_limit: ClassVar[int] = 8
    exact_cost: ClassVar[tuple[float, float] | None] = (3.2e-3, 3.78)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (3.2e-3, 3.78)
    mp_limit: ClassVar[int] = 300  # the exact O(n²) transform: n = 300 takes 9 s (mp), 11.6 s (ball)
    ball_limit: ClassVar[int] = 280

    def __post_init__(self) -> None:
        super().__post_init__()
        b = Real.of(self.beta, "beta")
        if b.sign() <= 0 or (b - 1).sign() >= 0:
            raise ValueError(f"beta must lie in (0, 1), got {b}")
        object.__setattr__(self, "beta", b)
        if self.selector not in SELECTORS:
            raise ValueError(f"selector must be one of {SELECTORS}, got {self.selector!r}")
        if self.sensitivities is None:  # eq. (6) needs the candidate-wise Δ_a
            raise ValueError(f"sensitivities is required for {type(self).__name__} (hetsel eq. 6 uses the "
                             "candidate-wise Δ_a), e.g. sensitivities=[1, 2, 1]")

    def t(self, n: int) -> Real:
        """The shift t of eqs. (6)-(7) for n candidates."""
        return gem_t(n, self.beta, self.epsilon, self.sign)

    def _inner(self) -> Any:
        if self.selector == "em":
            from ..exponential import ExponentialMechanism

            return ExponentialMechanism(self.epsilon, 1)
        from ..permute_and_flip import PermuteAndFlip

        return PermuteAndFlip(self.epsilon, 1)

    def transformed_scores(self, scores: Any) -> list[Real]:
        """Exact normalised scores q' (hetsel eq. 6)."""
        from ..validation import exact_scores

        q = exact_scores(scores)
        return gem_scores(q, list(self.candidate_sensitivities(len(q))), self.t(len(q)))

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """Each ratio of eq. (6) moves by <= 2·rounding/(Δ_a + Δ_a') <= rounding/min Δ, hence q'
        too (a minimum of such ratios); the selector (PF or EM, exponent scale c) then moves by
        ``2c·rounding/min Δ``."""
        ds = self.candidate_sensitivities(q.size)
        low = ds[0]
        for d in ds[1:]:
            if d < low:
                low = d
        return lipschitz_shift(self._inner().exponent_scale / low, rounding)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        check_size(q.size, FLOAT_LIMIT, "the O(n²) GEM transform")
        d = self.float_sensitivities(q.size)
        t = self.t(q.size).to_float()
        if not math.isfinite(t):
            raise ValueError("epsilon: the shift t = 2 log(n/β)/ε overflows float64; "
                             "use backend='ball'")
        qp, qerr = gem_scores_float(q, d, t)
        inner = self._inner().pmf(qp, method=method)
        delta = self.epsilon.to_float() / 2 * qerr if qerr > 0 else 0.0  # ε may round to inf
        extra = (q.size + 1) * delta
        rel = None if inner.rel_error is None else inner.rel_error + extra * (1 + 2 * extra)
        vals = inner.values
        return Pmf(vals, "float", inner.method, rel_error=rel,
                   abs_error=(rel if rel is not None else 0.0) * float(np.max(vals)) + inner.abs_error,
                   error_kind="estimate", logvalues=inner.logvalues,
                   details={**inner.details, "transformed_scores_abs_error": qerr})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        qp = gem_scores(q, list(self.candidate_sensitivities(len(q))), self.t(len(q)))
        return self._inner().pmf(qp, backend=backend, method=method)

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        d = self.float_sensitivities(q.size)
        qp, _ = gem_scores_float(q, d, self.t(q.size).to_float())
        if self.selector == "em":
            return self._inner().sample(qp, rng, size)
        # RNM with Exp(ε/2) noise (mean 2/ε), literally
        scale = 2.0 / self.epsilon.to_float()
        out = np.empty(size, dtype=np.int64)
        batch = max(1, min(size, 2_000_000 // q.size))
        for s in range(0, size, batch):
            k = min(batch, size - s)
            out[s : s + k] = (qp + rng.exponential(scale, (k, q.size))).argmax(axis=1)
        return out


@dataclass(frozen=True)
class GEM(_GEMBase):
    """Generalised exponential mechanism: eq. (6) with t = 2 log(|A|/β)/ε, then RNM-Exp (or EM)."""

    sign: ClassVar[int] = 1
    short_name: ClassVar[str] = "gem"


@dataclass(frozen=True)
class ModifiedGEM(_GEMBase):
    """Modified GEM (hetsel §IV-D): eq. (6) with t = -2 log(|A|/β)/ε, then RNM-Exp (or EM)."""

    sign: ClassVar[int] = -1
    short_name: ClassVar[str] = "mgem"
