"""Permute-and-flip, McKenna & Sheldon (pf, NeurIPS 2020), Algorithm 1.

Definition (pf Algorithm 1, executed literally by :meth:`PermuteAndFlip.rvs`): iterate over
the candidates in a uniformly random order; at candidate ``r`` flip a coin with heads
probability ``p_r = exp(c (q_r - q*))`` and return ``r`` on heads. ``c = ε/(2Δ)``
(ε-DP, pf Theorem 1), or ``c = ε/Δ`` with ``monotone=True`` (pf Remark 1: for monotone
qualities ε/(2Δ) gives ε/2-DP, so ε/Δ gives ε-DP).

pmf (pf Lemma 1/2): ``Pr[r] = p_r ∫_0^1 ∏_{s≠r} (1 - p_s t) dt``.

Methods:
    ``quadrature`` (float, mp, ball; default) — stable positive-integrand quadrature with proven
        truncation and quadrature bounds, :mod:`.quadrature`; in float :mod:`.quadrature_float`,
        compiled by numba from n = 512 when it is installed (:mod:`.quadrature_kernel`, same bound).
    ``recurrence`` (any backend) — the paper's O(n²) alternating recurrence (pf Appendix E);
        for comparison only in float.
    ``polynomial`` (exact; default there) — exact polynomial integration, :mod:`.polynomial`.

Runtime: quadrature O(n·K) with K ≈ 5–7 (plus O(m·N) for the m ≤ (L+5)/δ weights near the
maximum); polynomial O(n²) exact operations; recurrence O(n²).
Citations: pf Algorithm 1, Lemma 1, Lemma 2, Remark 1, Appendix E.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...numbers.backends import Backend, ExactBackend
from ...numbers.pmf import Pmf, pmf_from_numbers
from ...numbers.real import Real
from ...protocols import MechanismProperties
from ..base import FLOAT_USEFUL_ERROR, SelectionMechanism, _check_method, float_exponents_rows, lipschitz_shift, overrides_float_route
from ..validation import check_size
from .gauss_exact import SMALL_N, pf_pmf_gauss_exact
from .polynomial import pf_pmf_polynomial_fmpq, pf_pmf_polynomial_sympy
from .quadrature import U, pf_pmf_quadrature_ball, pf_pmf_quadrature_mp
from .quadrature_float import pf_pmf_quadrature_float
from .recurrence import pf_pmf_recurrence_float, pf_pmf_recurrence_scalar

__all__ = ["PermuteAndFlip"]

RECURRENCE_FLOAT_LIMIT = 200_000


@dataclass(frozen=True)
class PermuteAndFlip(SelectionMechanism):
    """Permute-and-flip mechanism (pf Algorithm 1). See the module docstring for the formulas."""

    short_name: ClassVar[str] = "pf"
    declared_properties: ClassVar[MechanismProperties] = MechanismProperties(symmetric=True, shift_invariant=True, monotone=True)
    exact_limit: ClassVar[int] = 250
    exact_symbolic_limit: ClassVar[int] = 10
    exact_cost: ClassVar[tuple[float, float] | None] = (8.8e-8, 3.29)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (1.6e-3, 3.68)
    mp_limit: ClassVar[int] = 6_000  # n = 20 000: mp 30 s, ball 2.2 s
    ball_limit: ClassVar[int] = 100_000

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """PF with exponent scale ``c`` is ``2cΔ``-DP for every Δ (pf Theorem 1): rate ``c``."""
        return lipschitz_shift(self.exponent_scale, rounding)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        m = _check_method(method, ("quadrature", "recurrence"), "quadrature")
        x = self._float_exponents(q)
        if m == "recurrence":
            check_size(q.size, RECURRENCE_FLOAT_LIMIT, "the O(n^2) recurrence")
            vals = pf_pmf_recurrence_float(np.exp(x))
            return Pmf(vals, "float", "recurrence", rel_error=None, abs_error=math.inf, error_kind="estimate",
                       details={"note": "alternating sum; no error bound (pf Appendix E)"})
        pmf, logpmf, rep = pf_pmf_quadrature_float(x)  # x becomes the log-pmf; its minimum is in the report
        x_rel = 2.5 * U * min(-rep.x_min, 710.0)
        rel = rep.tail_rel + rep.quadrature_rel + rep.series_rel + rep.rounding_rel + x_rel
        return Pmf(pmf, "float", "quadrature", rel_error=rel, abs_error=rel * rep.max_pmf,
                   error_kind="a-priori", logvalues=logpmf, details=rep.as_dict())

    def pmf_float_batch(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Default-method pmfs of the rows of ``Q`` (:class:`~dpexact.protocols.BatchFloatPmf`): the
        exact Gauss rule on all rows at once for ``n <= SMALL_N``; other rows, or a subclass with its own pmf, are left to ``pmf``."""
        X = float_exponents_rows(self._exponent_scale_float, Q) \
            if Q.shape[1] <= SMALL_N and not overrides_float_route(self, PermuteAndFlip) else None
        if X is None:
            return np.zeros(Q.shape), np.full(Q.shape[0], np.nan)
        pmf, _, rel = pf_pmf_gauss_exact(X)
        rel = rel + 2.5 * U * np.minimum(-X.min(axis=1), 710.0)
        rel[~(rel * pmf.max(axis=1) <= FLOAT_USEFUL_ERROR)] = np.nan
        return pmf, rel

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        if backend.is_exact:
            xs = self._exact_exponents(q)
            m = _check_method(method, ("polynomial", "recurrence"), "polynomial")
            kind, p = ExactBackend.field([backend.exp(backend.from_real(x)) for x in xs])
            self._check_exact_size(len(q), symbolic=kind == "sympy")
            if m == "recurrence":
                import sympy
                from flint import fmpq

                zero, one = (fmpq(0), fmpq(1)) if kind == "fmpq" else (sympy.Integer(0), sympy.Integer(1))
                vals = pf_pmf_recurrence_scalar(p, zero, one)
            else:
                vals = pf_pmf_polynomial_fmpq(p) if kind == "fmpq" else pf_pmf_polynomial_sympy(p)
            return Pmf(tuple(vals), "exact", m, rel_error=0.0, abs_error=0.0, error_kind="exact",
                       details={"field": kind})
        m = _check_method(method, ("quadrature", "recurrence"), "quadrature")
        xb = self._backend_exponents(q, backend)
        if m == "recurrence":
            check_size(len(q), 5000, "the scalar O(n^2) recurrence")
            p = [backend.exp(v) for v in xb]
            vals = pf_pmf_recurrence_scalar(p, p[0] * 0, p[0] * 0 + 1)
            info: dict = {}
        elif backend.is_ball:
            vals, info = pf_pmf_quadrature_ball(xb, backend.prec)
        else:
            vals, info = pf_pmf_quadrature_mp(xb, backend.dps)
        return _scalar_pmf(tuple(vals), backend, m, info)

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        p = np.exp(self._float_exponents(q))
        n = p.size
        out = np.empty(size, dtype=np.int64)
        batch = max(1, min(size, 2_000_000 // n))
        for start in range(0, size, batch):
            b = min(batch, size - start)
            order = rng.random((b, n)).argsort(axis=1)  # uniformly random permutations
            heads = rng.random((b, n)) < p[order]  # coin flip of each candidate, in visiting order
            first = heads.argmax(axis=1)  # the max-score candidate always flips heads
            out[start : start + b] = order[np.arange(b), first]
        return out


def _scalar_pmf(vals: tuple, backend: Backend, method: str, info: dict) -> Pmf:
    """Package mp / ball values with their error statement."""
    if backend.is_ball:
        return pmf_from_numbers(vals, backend, method, info)
    est = 10.0 ** (-backend.dps + 3) if method != "recurrence" else math.inf
    if method != "recurrence":
        est += info.get("series_rel", 0.0)
    return Pmf(vals, str(backend), method, rel_error=est, abs_error=est, error_kind="estimate", details=info)
