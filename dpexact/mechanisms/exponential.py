"""Exponential mechanism, McSherry & Talwar 2007, as stated in pf Definition 4.

    Pr[M_EM(q) = r] = exp(c q_r) / Σ_s exp(c q_s),   c = ε/(2Δ)  (ε-DP),
                                                     c = ε/Δ     (monotone qualities, ε-DP).

Float accuracy (a-priori bound, u = 2^-53): with x_r = c(q_r - q*) <= 0 the computed
``exp(x_r - log Σ exp(x_s))`` has relative error at most
``u · (2.5|x_r| + 2.5 E[|x|] + log2(n) + 6)`` for every entry that does not underflow
(rounding of x: 2u|x|; exp: 1 ulp; pairwise sum; one division). ``logpmf`` is computed as
``x_r - log Σ exp(x_s)`` and stays accurate where the pmf underflows.
Citations: pf Definition 4, Proposition 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..numbers.backends import Backend, ExactBackend
from ..numbers.pmf import Pmf, pmf_from_numbers
from ..numbers.real import Real
from .base import SelectionMechanism, _check_method

__all__ = ["ExponentialMechanism"]

U = 2.0**-53


@dataclass(frozen=True)
class ExponentialMechanism(SelectionMechanism):
    """Exponential mechanism (pf Definition 4); ``monotone=True`` uses ε/Δ."""

    short_name: ClassVar[str] = "em"
    exact_limit: ClassVar[int] = 2000
    exact_symbolic_limit: ClassVar[int] = 600
    exact_cost: ClassVar[tuple[float, float] | None] = (3.5e-5, 1.61)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (2.3e-6, 2.33)
    mp_limit: ClassVar[int] = 70_000  # n = 20 000: mp 2.8 s, ball 0.8 s
    ball_limit: ClassVar[int] = 250_000

    def _pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        x = self._float_exponents(q)
        w = np.exp(x)
        s = float(np.sum(w))
        pmf = w / s
        logpmf = x - math.log(s)
        pos = pmf > 0  # x = -inf has pmf 0: keep 0·inf out of the mean
        mean_abs_x = float(np.dot(pmf[pos], -x[pos]))
        xr = min(float(-x.min()), 745.0)
        rel = U * (2.5 * xr + 2.5 * mean_abs_x + math.log2(max(q.size, 2)) + 6)
        return Pmf(pmf, "float", "closed-form", rel_error=rel, abs_error=rel * float(pmf.max()),
                   error_kind="a-priori", logvalues=logpmf)

    def _pmf_scalar(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        if backend.is_exact:
            kind, w = ExactBackend.field([backend.exp(backend.from_real(x)) for x in self._exact_exponents(q)])
            self._check_exact_size(len(q), symbolic=kind == "sympy")
            total = sum(w[1:], w[0])
            vals = tuple(v / total for v in w)
            return Pmf(vals, "exact", "closed-form", 0.0, 0.0, "exact", details={"field": kind})
        w = [backend.exp(x) for x in self._backend_exponents(q, backend)]
        total = w[0]
        for v in w[1:]:
            total = total + v
        vals = tuple(v / total for v in w)
        if backend.is_ball:
            return pmf_from_numbers(vals, backend, "closed-form")
        est = 10.0 ** (-backend.dps + 2) * (len(q) + 1)
        return Pmf(vals, str(backend), "closed-form", est, est, "estimate")

    def _sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        # inverse-cdf sampling from the unnormalised weights exp(c(q_r - q*))
        cw = np.cumsum(np.exp(self._float_exponents(q)))
        u = rng.random(size) * cw[-1]
        return np.minimum(np.searchsorted(cw, u, side="right"), q.size - 1).astype(np.int64)
