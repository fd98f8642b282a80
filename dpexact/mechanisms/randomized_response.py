"""Generalized randomized response (GRR, k-RR) used as a selection mechanism.

GRR (brr §2.4, eq. 6; hetsel §III-B "kRR") perturbs one *true item* ``x`` of an
``n``-element domain:

    Pr[y | x] = e^ε / (e^ε + n - 1)   if y = x,
              = 1   / (e^ε + n - 1)   if y ≠ x.

As a selection mechanism the true item is the optimal candidate ``x = argmax_r q_r``
(hetsel §III-B: "outputs the optimal candidate with probability e^ε/(e^ε+k-1) and any other
candidate with probability 1/(e^ε+k-1)"). It is ε-DP for *every* pair of score vectors,
whatever Δ, because every output probability lies in ``[1, e^ε]/(e^ε+n-1)``; Δ and
``monotone`` are therefore unused.

Ties in the maximum (the papers assume a unique optimum) are an explicit option:

* ``tie_break="uniform"`` (default): the true item is uniform over the maximisers ``M``
  (a mixture of GRR channels, still ε-DP):
  ``Pr[r] = (e^ε + |M| - 1) / (|M| (e^ε + n - 1))`` for ``r ∈ M``, ``1/(e^ε + n - 1)`` otherwise;
* ``tie_break="first"``: the smallest maximising index is the true item.

Float accuracy (a-priori): ``e^ε`` has relative error <= u, the denominator <= 3u, each entry
<= 6u (u = 2^-53) plus ``log2(n)·u`` for the pairwise sum; the bound is stated in the Pmf.
Citations: brr §2.4 eq. (6); hetsel §III-B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import Backend, ExactBackend
from ..numbers.pmf import Pmf, pmf_from_numbers
from ..numbers.real import Real
from ..protocols import MechanismProperties
from .base import SelectionMechanism, _check_method

__all__ = ["GeneralizedRandomizedResponse", "maximisers"]

U = 2.0**-53
TIE_BREAKS = ("uniform", "first")


def maximisers(q: "np.ndarray | list[Real]", tie_break: str) -> list[int]:
    """Indices treated as the true item: all maximisers (``uniform``) or the first (``first``).

    Float arrays are compared exactly (float64 values are exact binary numbers); lists of
    :class:`Real` are compared exactly with :meth:`Real.sign`.
    """
    if isinstance(q, np.ndarray):
        idx = np.flatnonzero(q == q.max()).tolist()
    else:
        top = q[0]
        for v in q[1:]:
            if v > top:
                top = v
        idx = [i for i, v in enumerate(q) if (v - top).sign() == 0]
    return idx[:1] if tie_break == "first" else idx


@dataclass(frozen=True)
class GeneralizedRandomizedResponse(SelectionMechanism):
    """GRR / k-RR on the optimal candidate (brr eq. 6, hetsel §III-B); ``tie_break`` uniform|first."""

    tie_break: str = "uniform"

    short_name: ClassVar[str] = "grr"
    exact_limit: ClassVar[int] = 30_000
    exact_symbolic_limit: ClassVar[int] = 30_000
    exact_cost: ClassVar[tuple[float, float] | None] = (8.1e-4, 0.91)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (7.7e-4, 0.79)
    mp_limit: ClassVar[int] = 200_000  # n = 20 000: 1.0 s on mp and on ball
    ball_limit: ClassVar[int] = 200_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {self.tie_break!r}")

    @property
    def properties(self) -> MechanismProperties:
        """Uniform tie-breaking is regular (pf Definition 3); ``first`` favours low indices (not symmetric)."""
        if self.tie_break == "uniform":
            return MechanismProperties(symmetric=True, shift_invariant=True, monotone=True)
        return MechanismProperties(shift_invariant=True)

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float | None:
        """The law depends on the scores only through the true items: 0 when rounding kept them."""
        from .validation import exact_scores

        return 0.0 if maximisers(q, self.tie_break) == maximisers(exact_scores(scores), self.tie_break) else None

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        n = q.size
        top = maximisers(q, self.tie_break)
        k = len(top)
        eps = self.epsilon.to_float()
        if eps > 700:
            # e^ε overflows: compute with the scaled form (everything divided by e^ε)
            d = 1.0 + (n - 1) * math.exp(-eps)
            lo = math.exp(-eps) / d
            hi = (1.0 + (k - 1) * math.exp(-eps)) / (k * d)
        else:
            e = math.exp(eps)
            d = e + n - 1
            lo = 1.0 / d
            hi = (e + k - 1) / (k * d)
        vals = np.full(n, lo)
        vals[top] = hi
        rel = U * (8 + 2.5 * abs(eps))
        return Pmf(vals, "float", "closed-form", rel_error=rel, abs_error=rel * hi, error_kind="a-priori",
                   details={"true_items": top})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        n = len(q)
        top = maximisers(q, self.tie_break)
        k = len(top)
        if backend.is_exact:
            if not self.epsilon.is_rational and self.epsilon > 100_000:  # e^ε = a^k could need ~1.4ε bits
                raise ValueError("epsilon: an irrational ε above 1e5 is refused on the exact backend (e^ε could be "
                                 "a rational with that many digits); use backend='ball'")
            kind, (e,) = ExactBackend.field([backend.exp(self.epsilon.to_sympy())])
            if kind == "sympy" and self.epsilon > 700:
                # the same numbers over e^{-ε}: their float/ball enclosures need no e^ε (overflow)
                m = backend.exp(-self.epsilon.to_sympy())
                lo = m / (1 + (n - 1) * m)
                hi = (1 + (k - 1) * m) / (k * (1 + (n - 1) * m))
            else:
                lo = 1 / (e + n - 1)
                hi = (e + k - 1) / (k * (e + n - 1))
            if kind == "sympy":
                import sympy

                # algebraic normal form only: simplify() evaluates numerically and overflows at ε = 1e300
                lo, hi = sympy.together(lo), sympy.together(hi)
            vals = tuple(hi if i in top else lo for i in range(n))
            return Pmf(vals, "exact", "closed-form", 0.0, 0.0, "exact", details={"field": kind, "true_items": top})
        # scaled by e^{-ε} (no overflow of e^ε at ε = 1e300 in mp or ball):
        # lo = m/(1 + (n-1)m), hi = (1 + (k-1)m)/(k(1 + (n-1)m)), m = e^{-ε}
        m = backend.exp(-backend.from_real(self.epsilon))
        d = 1 + (n - 1) * m
        lo = m / d
        hi = (1 + (k - 1) * m) / (d * k)
        topset = set(top)
        vals = tuple(hi if i in topset else lo for i in range(n))
        if backend.is_ball:
            return pmf_from_numbers(vals, backend, "closed-form", {"true_items": top})
        est = 10.0 ** (-backend.dps + 2)
        return Pmf(vals, str(backend), "closed-form", est, est, "estimate", details={"true_items": top})

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        # brr eq. (6) literally: keep the true item with prob e^ε/(e^ε+n-1), otherwise report one
        # of the n-1 other items uniformly at random.
        n = q.size
        top = np.asarray(maximisers(q, self.tie_break))
        x = top[rng.integers(0, top.size, size)]
        eps = self.epsilon.to_float()
        keep_prob = 1.0 / (1.0 + (n - 1) * math.exp(-eps))
        keep = rng.random(size) < keep_prob
        other = rng.integers(0, max(n - 1, 1), size)
        other = other + (other >= x)  # uniform over the n-1 items different from x
        return np.where(keep | (n == 1), x, other).astype(np.int64)
