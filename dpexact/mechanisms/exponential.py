"""Exponential mechanism, McSherry & Talwar 2007, as stated in pf Definition 4.

    Pr[M_EM(q) = r] = exp(c q_r) / Σ_s exp(c q_s),   c = ε/(2Δ)  (ε-DP),
                                                     c = ε/Δ     (monotone qualities, ε-DP).

Float accuracy (a-priori bound, u = 2^-53): with x_r = c(q_r - q*) <= 0 the computed
``exp(x_r - log Σ exp(x_s))`` has relative error at most
``u · (2.5|x_r| + 2.5 E[|x|] + log2(n) + 6)`` for every entry that does not underflow
(rounding of x: 2u|x|; exp: 1 ulp; pairwise sum; one division). ``logpmf`` is computed as
``x_r - log Σ exp(x_s)`` and stays accurate where the pmf underflows.

Base measure (McSherry & Talwar 2007 §2; diffprivlib's ``measure=``): with weights μ_r >= 0,
not all zero, ``Pr[M(q) = r] = μ_r exp(c q_r) / Σ_s μ_s exp(c q_s)``. It is computed as
``exp(z_r) / Σ_s exp(z_s)`` with ``z_r = c(q_r - q_t) + log μ_r - log μ_t`` and ``t`` the
largest weighted term, so the denominator is >= 1 and never underflows (scores
(0, −2000, −2000) with μ = (0, 1, 1) give exactly (0, 1/2, 1/2)); candidates with μ_r = 0
have probability exactly 0. A non-uniform measure breaks symmetry (pf eq. 1).
Citations: pf Definition 4, Proposition 1.
"""

from __future__ import annotations

from collections.abc import Iterable
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import Backend, ExactBackend, MpBackend
from ..numbers.dot import dot_unthreaded
from ..numbers.pmf import Pmf, pmf_from_numbers
from ..numbers.real import Real
from ..protocols import MechanismProperties
from .base import FLOAT_USEFUL_ERROR, SelectionMechanism, _check_method, float_exponents_rows, lipschitz_shift, overrides_float_route

__all__ = ["ExponentialMechanism"]

U = 2.0**-53


def _rel_bound(xr: Any, mean_abs_x: Any, n: int) -> Any:
    """The module docstring's relative bound ``u(2.5|x_r| + 2.5 E|x| + log2 n + 6)`` (floats or rows)."""
    return U * (2.5 * xr + 2.5 * mean_abs_x + math.log2(max(n, 2)) + 6)


@dataclass(frozen=True)
class ExponentialMechanism(SelectionMechanism):
    """Exponential mechanism (pf Definition 4); ``monotone=True`` uses ε/Δ; ``measure`` the base measure μ.

    Args:
        measure: optional base measure ``(μ_0, ..., μ_{n-1})``, exact numbers >= 0, not all 0
            (``None``: uniform). It ties the mechanism to ``len(measure)`` candidates.
    """

    measure: Any = None

    short_name: ClassVar[str] = "em"
    exact_limit: ClassVar[int] = 2000
    exact_symbolic_limit: ClassVar[int] = 600
    exact_cost: ClassVar[tuple[float, float] | None] = (3.5e-5, 1.61)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (2.3e-6, 2.33)
    mp_limit: ClassVar[int] = 70_000  # n = 20 000: mp 2.8 s, ball 0.8 s
    ball_limit: ClassVar[int] = 250_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.measure is not None:
            if isinstance(self.measure, (str, bytes)) or not isinstance(self.measure, Iterable):
                raise TypeError(f"measure must be a sequence of numbers >= 0, got {type(self.measure).__name__}")
            mu = tuple(Real.of(v, f"measure[{i}]") for i, v in enumerate(self.measure))
            if not mu:
                raise ValueError("measure must not be empty")
            for i, v in enumerate(mu):
                if v.sign() < 0:
                    raise ValueError(f"measure[{i}] must be >= 0, got {v}")
            if all(v.sign() == 0 for v in mu):
                raise ValueError("measure must have a positive entry")
            object.__setattr__(self, "measure", mu)

    @property
    def size(self) -> int | None:
        return None if self.measure is None else len(self.measure)

    @property
    def properties(self) -> MechanismProperties:
        """Regular (pf Definition 3) with the uniform measure; a non-uniform μ breaks symmetry."""
        uniform = self.measure is None or all((v - self.measure[0]).sign() == 0 for v in self.measure)
        return MechanismProperties(symmetric=uniform, shift_invariant=True, monotone=True)

    def params(self) -> dict:
        out = super().params()
        if self.measure is None:
            del out["measure"]  # uniform: the parameters read as before the base measure existed
        return out

    def _mu(self, n: int) -> tuple[Real, ...]:
        assert self.measure is not None
        if len(self.measure) != n:
            raise ValueError(f"measure has {len(self.measure)} entries but scores has {n}")
        return self.measure

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """Weights ``μ_r e^{c q_r}``: each moves by a factor within ``e^{±c·rounding}``, the
        normalised law by ``e^{±2c·rounding}``."""
        return lipschitz_shift(self.exponent_scale, rounding)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        if self.measure is not None:
            return self._pmf_float_measure(q)
        x = self._float_exponents(q)  # a fresh array: the log-pmf is formed in it
        pmf = np.exp(x)
        s = float(np.add.reduce(pmf))
        pmf /= s
        x_min = float(np.minimum.reduce(x))
        if x_min > -math.inf:
            mean_abs_x = -dot_unthreaded(pmf, x)
        else:  # x = -inf has pmf 0: keep 0·inf out of the mean
            pos = pmf > 0
            mean_abs_x = -dot_unthreaded(pmf[pos], x[pos])
        x -= math.log(s)
        rel = _rel_bound(min(-x_min, 745.0), mean_abs_x, q.size)
        return Pmf(pmf, "float", "closed-form", rel_error=rel, abs_error=rel * float(np.maximum.reduce(pmf)),
                   error_kind="a-priori", logvalues=x)

    def pmf_float_batch(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Closed-form pmfs of the rows of ``Q`` with the bound of the single-vector route
        (:class:`~dpexact.protocols.BatchFloatPmf`); a base measure, or a subclass with its own pmf, is left to ``pmf`` (NaN bounds)."""
        X = float_exponents_rows(self._exponent_scale_float, Q) \
            if self.measure is None and not overrides_float_route(self, ExponentialMechanism) else None
        if X is None:
            return np.zeros(Q.shape), np.full(Q.shape[0], np.nan)
        W = np.exp(X)
        P = W / W.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            mean_abs_x = np.einsum("bi,bi->b", P, np.where(P > 0, -X, 0.0))
        rel = _rel_bound(np.minimum(-X.min(axis=1), 745.0), mean_abs_x, Q.shape[1])
        rel[~(rel * P.max(axis=1) <= FLOAT_USEFUL_ERROR)] = np.nan
        return P, rel

    def _pmf_float_measure(self, q: np.ndarray) -> Pmf:
        import mpmath

        mu = self._mu(q.size)
        support = np.array([v.sign() > 0 for v in mu])
        with MpBackend(30).context():  # log μ_r correctly rounded to float64 (relative error <= u)
            lm = np.array([float(mpmath.log(v.to_mpf())) if s else -np.inf for v, s in zip(mu, support)])
        c = self.exponent_scale.to_float()
        x = c * (q - q[support].max())
        y = np.where(support, x + np.where(support, lm, 0.0), -np.inf)
        t = int(np.argmax(y))
        z = np.where(support, c * (q - q[t]) + (np.where(support, lm, 0.0) - lm[t]), -np.inf)
        w = np.exp(z)
        s = float(np.sum(w))  # >= w_t = 1
        pmf = w / s
        logpmf = z - math.log(s)
        # |δz_r| <= u(2.5|x_r| + |lm_r| + |lm_t| + |lm_r - lm_t| + |z_r|); then as without a measure
        xs = np.where(support, np.abs(c * (q - q[t])), 0.0)
        lms = np.where(support, np.abs(lm), 0.0)
        e = np.where(support, 2.5 * xs + lms + abs(lm[t]) + np.abs(np.where(support, lm, 0.0) - lm[t])
                     + np.abs(np.where(support, z, 0.0)), 0.0)
        rel = U * (min(float(e.max()), 2000.0) + dot_unthreaded(pmf, e) + math.log2(max(q.size, 2)) + 8)
        return Pmf(pmf, "float", "closed-form", rel_error=rel, abs_error=rel * float(pmf.max()),
                   error_kind="a-priori", logvalues=logpmf)

    def _pmf_scalar_measure(self, q: list[Real], backend: Backend) -> Pmf:
        mu = self._mu(len(q))
        top = max(v for v, m in zip(q, mu) if m.sign() > 0)
        c = self.exponent_scale
        if backend.is_exact:
            terms = [backend.from_real(m) * backend.exp(backend.from_real(c * (v - top))) if m.sign() > 0 else 0
                     for v, m in zip(q, mu)]
            kind, w = ExactBackend.field(terms)
            total = sum(w[1:], w[0])
            return Pmf(tuple(v / total for v in w), "exact", "closed-form", 0.0, 0.0, "exact", details={"field": kind})
        zero = backend.from_int(0)
        w = [backend.from_real(m) * backend.exp(backend.from_real(c * (v - top))) if m.sign() > 0 else zero
             for v, m in zip(q, mu)]
        total = w[0]
        for v in w[1:]:
            total = total + v
        vals = tuple(v / total for v in w)
        if backend.is_ball:
            rads = [float(v.rad()) for v in vals]
            rel = max((r / abs(float(v.mid())) for r, v in zip(rads, vals) if float(v.mid()) != 0), default=0.0)
            return Pmf(vals, str(backend), "closed-form", rel, max(rads), "rigorous")
        est = 10.0 ** (-backend.dps + 2) * (len(q) + 1)
        return Pmf(vals, str(backend), "closed-form", est, est, "estimate")

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        if self.measure is not None:
            return self._pmf_scalar_measure(q, backend)
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

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        # inverse-cdf sampling from the unnormalised weights exp(c(q_r - q*)) (μ_r exp(...) with a measure)
        w = self._pmf_float_measure(q).values if self.measure is not None else np.exp(self._float_exponents(q))
        cw = np.cumsum(w)
        u = rng.random(size) * cw[-1]
        return np.minimum(np.searchsorted(cw, u, side="right"), q.size - 1).astype(np.int64)
