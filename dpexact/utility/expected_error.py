"""Expected error E[q* - q_M(q)] of any mechanism (pf eq. 4), on any backend, with its bound.

    E[E] = Σ_r Pr[M(q)=r] (q* - q_r).

Accuracy: exact (exact backend); rigorous ball (ball backend); mp: the pmf's estimate;
float (a-priori): all terms are non-negative, so with the pmf's relative bound ρ, one
rounding per gap (u) and recursive summation (γ_n), ``|Ẽ - E| <= κ/(1-κ)·Ẽ`` with
``κ = ρ + (u + γ_n)(1 + ρ)``, plus ``2^-1074 Σ_r g_r`` for pmf entries that underflow (for pmfs without a relative bound: ``a·Σ g + γ_n Σ|p̃| g``,
``a`` the pmf's absolute bound).

Float scores more than ~1.8e308 apart: a gap ``q* - q_r`` overflows float64, so the float sum would
be inf or nan. The same float pmf is then summed exactly (gaps and pmf entries as rationals), with
``|Ẽ - E| <= u·S + ρ/(1-ρ)·(S + 2^-1074 Σ g) + 2^-1074 Σ g`` (``S`` the exact sum of the float
pmf times the exact gaps; ``u·S + a·Σ g`` without a relative bound); an expected error beyond
float64's range is an error naming ``scores``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..numbers.backends import Backend, get_backend
from ..numbers.certified import Certified
from ..mechanisms.validation import float_scores_rounded
from ..numbers.dot import dot_unthreaded
from .levels import TINY, U, backend_number, exact_levels, gamma
from ..protocols import SELECTION_KINDS, Mechanism, ValidatedFloatPmf

__all__ = ["expected_error", "float_error_bound"]


def float_error_bound(val: Any, rho: Any, n: int, gaps_sum: Any) -> Any:
    """The float a-priori bound of :func:`expected_error` (module docstring) for a pmf whose entries
    have relative bound ``rho``: ``val·κ/(1-κ) + 2^-1074·Σ g``, ``κ = ρ + (u + γ_n)(1 + ρ)`` (inf when
    ``κ >= 1``). Scalars or arrays (one value per score vector)."""
    kappa = rho + (U + gamma(n)) * (1 + rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(kappa < 1, val * kappa / (1 - kappa) + TINY * gaps_sum, np.inf)
    return out if np.ndim(out) else float(out)


def expected_error(mechanism: Mechanism, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Certified:
    """Expected error ``Σ_r Pr[M(q)=r] (q* - q_r)`` of ``mechanism`` on ``scores``.

    Returns a :class:`~dpexact.numbers.Certified` value (backend number, float view, bound on
    ``|as_float - exact|``, error kind); ``details["pmf"]`` is the pmf it was computed from.
    """
    if mechanism.output_kind not in SELECTION_KINDS:
        raise TypeError(f"mechanism: the expected error needs a selection mechanism (outputs 0..n-1), "
                        f"got output_kind {mechanism.output_kind!r}")
    be = get_backend(backend)
    if be.is_float:
        # the scores are validated once: the pmf reads the same array when it is exactly the scores
        q, rounding = float_scores_rounded(scores)
        if rounding == 0.0 and isinstance(mechanism, ValidatedFloatPmf):
            pmf = mechanism.pmf_float_validated(q, method)
        else:
            pmf = mechanism.pmf(scores, backend=be, method=method)
        top = float(np.maximum.reduce(q))
        if not math.isfinite(top - float(np.minimum.reduce(q))):
            return _exact_sum_of_float_pmf(q, pmf)
        gaps = top - q  # q* - q_r, one rounding each (no overflow: the span is finite)
        p = np.asarray(pmf.values, dtype=np.float64)
        val = dot_unthreaded(gaps, p)
        rho = pmf.rel_error
        if rho is not None and np.isfinite(rho):
            bound = float_error_bound(val, rho, p.size, float(gaps.sum()))
        else:
            bound = float(pmf.abs_error * gaps.sum() + gamma(p.size) * dot_unthreaded(np.abs(p), gaps))
        return Certified(val, val, bound, Certified.weakest(pmf.error_kind, "a-priori"), "float", {"pmf": pmf})
    pmf = mechanism.pmf(scores, backend=be, method=method)
    lv = exact_levels(scores)
    assert lv.exact is not None
    vals = list(pmf.values)
    with be.context():
        gl = [backend_number(x, be, like=vals[0]) for x in lv.exact]
        total = vals[0] * 0
        for pr, j in zip(vals, lv.index):
            total = total + pr * gl[j]
    if be.is_ball or be.is_exact:
        return be.certify(total).with_details(pmf=pmf)
    f = float(total)
    return Certified(total, f, (pmf.rel_error or 0.0) * abs(f), "estimate", str(be), {"pmf": pmf})


def _exact_sum_of_float_pmf(q: np.ndarray, pmf: Any) -> Certified:
    """The expected error of a float pmf whose gaps overflow float64, summed exactly (module docstring)."""
    top = Fraction(float(q.max()))
    gaps = [top - Fraction(float(x)) for x in q]
    p = [Fraction(float(v)) for v in np.asarray(pmf.values, dtype=np.float64)]
    total = sum((pr * g for pr, g in zip(p, gaps)), Fraction(0))
    gsum = sum(gaps, Fraction(0))
    try:
        val = float(total)
    except OverflowError:
        raise ValueError("scores: the expected error exceeds float64's range (|E| > 1.8e308); "
                         "use backend='ball' or 'exact'") from None
    rho = pmf.rel_error
    if rho is not None and math.isfinite(rho):
        r = Fraction(rho)
        exact_bound = (Fraction(U) * total + r / (1 - r) * (total + Fraction(TINY) * gsum) + Fraction(TINY) * gsum
                       if r < 1 else None)
    else:
        exact_bound = Fraction(U) * total + Fraction(pmf.abs_error) * gsum
    try:
        bound = math.inf if exact_bound is None else math.nextafter(float(exact_bound), math.inf)
    except OverflowError:
        bound = math.inf
    return Certified(val, val, bound, Certified.weakest(pmf.error_kind, "a-priori"), "float",
                     {"pmf": pmf, "summation": "exact (float gaps overflow)"})
