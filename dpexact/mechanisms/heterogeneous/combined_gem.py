"""Combined GEM, hetsel §VII Algorithm 2: randomized response on the sign of a correlation.

Algorithm 2: with ``ε_c = epsilon_c`` (correlation) and ``ε_g = ε - ε_c`` (selection),

1. ``b = 1[spearman(q, Δ) >= 0]``;
2. report ``b`` through binary randomized response 2RR_{ε_c} (k-RR with k = 2, hetsel §III-B):
   keep it with probability ``e^{ε_c}/(e^{ε_c} + 1)``;
3. if the report is 1 run mGEM with ε_g, else GEM with ε_g (same β, same selector).

Hence ``Pr[r] = π mGEM_{ε_g}(r) + (1 - π) GEM_{ε_g}(r)`` with ``π = e^{ε_c}/(e^{ε_c}+1)`` if
``b = 1`` and ``1/(e^{ε_c}+1)`` otherwise, on every backend GEM supports (exact included).

Spearman's coefficient is Pearson's correlation of the average ranks (ties share the mean
rank). Only its sign enters, which equals the sign of ``Σ_i (R_i - R̄)(S_i - S̄)`` and is
computed exactly (ranks are half-integers; scores are compared exactly). When the scores or
the sensitivities are all equal the coefficient is undefined; we then take it to be 0, so
``b = 1`` (the paper does not cover this case; with constant Δ, GEM and mGEM coincide anyway).
``epsilon_c`` defaults to ``0.6 ε``, the value of the paper's Figure 12 experiments.
Citations: hetsel §VII, Algorithm 2, §III-B (kRR), Figure 12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ...numbers.backends import Backend, ExactBackend
from ...numbers.pmf import Pmf, pmf_from_numbers
from ...numbers.real import Real
from ..validation import positive_real
from .gem import SELECTORS, GEM, ModifiedGEM
from .sensitivities import HeterogeneousSelection

__all__ = ["CombinedGEM", "spearman_sign", "average_ranks"]


def average_ranks(values: "list[Real] | np.ndarray") -> list[Fraction]:
    """Average ranks (1-based; ties get the mean of their positions), exactly."""
    if isinstance(values, np.ndarray):
        vals = [Real(Fraction(float(v))) for v in values]
    else:
        vals = [Real.of(v) for v in values]
    n = len(vals)
    out = []
    for i in range(n):
        less = sum(1 for j in range(n) if (vals[j] - vals[i]).sign() < 0)
        equal = sum(1 for j in range(n) if (vals[j] - vals[i]).sign() == 0)
        out.append(Fraction(2 * less + equal + 1, 2))
    return out


def spearman_sign(x: "list[Real] | np.ndarray", y: "list[Real] | np.ndarray") -> int:
    """Sign of Spearman's rank correlation (0 when undefined: a constant input)."""
    rx, ry = average_ranks(x), average_ranks(y)
    n = len(rx)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return (cov > 0) - (cov < 0)


@dataclass(frozen=True)
class CombinedGEM(HeterogeneousSelection):
    """Combined GEM (hetsel Algorithm 2): 2RR on sign(spearman(q, Δ)) with ε_c, then mGEM/GEM with ε - ε_c."""

    epsilon_c: Any = None
    beta: Any = "0.05"
    selector: str = "rnm"

    short_name: ClassVar[str] = "combined-gem"
    # two GEM pmfs over sympy (see GEM)
    exact_limit: ClassVar[int] = 8
    exact_symbolic_limit: ClassVar[int] = 8
    exact_cost: ClassVar[tuple[float, float] | None] = (3.0e-4, 4.49)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (3.0e-4, 4.49)
    mp_limit: ClassVar[int] = 200  # two GEM pmfs
    ball_limit: ClassVar[int] = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        ec = self.epsilon * Fraction(3, 5) if self.epsilon_c is None else positive_real(self.epsilon_c, "epsilon_c")
        if (self.epsilon - ec).sign() <= 0:
            raise ValueError(f"epsilon_c must be < epsilon (ε_g = ε - ε_c > 0), got epsilon_c={ec}, epsilon={self.epsilon}")
        object.__setattr__(self, "epsilon_c", ec)
        if self.selector not in SELECTORS:
            raise ValueError(f"selector must be one of {SELECTORS}, got {self.selector!r}")
        object.__setattr__(self, "beta", self._parts()[0].beta)  # parsed and validated by GEM

    @property
    def epsilon_g(self) -> Real:
        """Budget of the selection step, ε_g = ε - ε_c (hetsel §VII)."""
        return self.epsilon - self.epsilon_c

    def _parts(self) -> tuple[GEM, ModifiedGEM]:
        kw = dict(epsilon=self.epsilon_g, sensitivity=self.sensitivity, sensitivities=self.sensitivities,
                  beta=self.beta, selector=self.selector)
        return GEM(**kw), ModifiedGEM(**kw)

    def correlation_bit(self, scores: Any) -> int:
        """``b = 1[spearman(q, Δ) >= 0]`` (Algorithm 2, line 2)."""
        from ..validation import exact_scores

        q = exact_scores(scores)
        return int(spearman_sign(q, list(self.candidate_sensitivities(len(q)))) >= 0)

    def _bit_float(self, q: np.ndarray) -> int:
        return int(spearman_sign(q, list(self.candidate_sensitivities(q.size))) >= 0)

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float | None:
        """A mixture of GEM and mGEM (same shift) with weights set by the correlation bit: their
        shift when rounding kept the bit, else unknown."""
        if self._bit_float(q) != self.correlation_bit(scores):
            return None
        gem, mgem = self._parts()
        return max(gem.input_rounding_shift(scores, q, rounding), mgem.input_rounding_shift(scores, q, rounding))

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        gem, mgem = self._parts()
        bit = self._bit_float(q)
        pg, pm = gem.pmf(q, method=method), mgem.pmf(q, method=method)
        m = math.exp(-self.epsilon_c.to_float())  # e^{-ε_c}: no overflow, no cancellation in 1 - keep
        pi = 1.0 / (1.0 + m) if bit else m / (1.0 + m)
        vals = pi * pm.values + (1 - pi) * pg.values
        rel = None
        if pg.rel_error is not None and pm.rel_error is not None:
            rel = max(pg.rel_error, pm.rel_error) + 6 * 2.0**-53
        abs_err = max(pg.abs_error, pm.abs_error) + 6 * 2.0**-53
        return Pmf(vals, "float", pg.method, rel_error=rel, abs_error=abs_err, error_kind="estimate",
                   details={"bit": bit, "pi_mgem": pi})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        gem, mgem = self._parts()
        bit = int(spearman_sign(q, list(self.candidate_sensitivities(len(q)))) >= 0)
        pg, pm = gem.pmf(q, backend=backend, method=method), mgem.pmf(q, backend=backend, method=method)
        if backend.is_exact:
            import sympy

            e = sympy.exp(self.epsilon_c.to_sympy())
            pi = e / (e + 1) if bit else 1 / (e + 1)
            kind, conv = ExactBackend.field([pi, *pg.values, *pm.values])
            pi_e, rest = conv[0], conv[1:]
            n = len(q)
            vals = tuple(pi_e * rest[n + i] + (1 - pi_e) * rest[i] for i in range(n))
            return Pmf(vals, "exact", pg.method, 0.0, 0.0, "exact", details={"field": kind, "bit": bit})
        m = backend.exp(-backend.from_real(self.epsilon_c))  # e^{-ε_c}: no overflow at ε = 1e300
        pi = 1 / (1 + m) if bit else m / (1 + m)
        vals = tuple(pi * a + (1 - pi) * b for a, b in zip(pm.values, pg.values))
        if backend.is_ball:
            return pmf_from_numbers(vals, backend, pg.method, {"bit": bit})
        est = max(pg.abs_error, pm.abs_error) + 10.0 ** (-backend.dps + 2)
        return Pmf(vals, str(backend), pg.method, None, est, "estimate", details={"bit": bit})

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        gem, mgem = self._parts()
        bit = self._bit_float(q)
        keep = rng.random(size) < 1.0 / (1.0 + np.exp(-self.epsilon_c.to_float()))
        report = np.where(keep, bit, 1 - bit)
        out = gem.sample(q, rng, size)
        k = int(report.sum())
        if k:
            out[report == 1] = mgem.sample(q, rng, k)
        return out
