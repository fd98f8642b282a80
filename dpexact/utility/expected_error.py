"""Expected error E[q* - q_M(q)] of any mechanism (pf eq. 4), on any backend, with its bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..numbers.backends import Backend, get_backend
from ..numbers.pmf import Pmf
from ..mechanisms.validation import exact_scores, float_scores

__all__ = ["ExpectedError", "expected_error"]


@dataclass(frozen=True)
class ExpectedError:
    """E[q* - q_M] with its provenance.

    ``value`` is in the backend's number type (exact: rational/sympy; ball: arb); ``as_float``
    its float value; ``error_bound`` an absolute bound (0 for exact, ball radius for ball,
    propagated pmf bound for float: all terms are non-negative so the pmf's relative bound
    carries over unchanged).
    """

    value: Any
    as_float: float
    error_bound: float
    backend: str
    pmf: Pmf


def expected_error(mechanism: Any, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> ExpectedError:
    """Expected error ``Σ_r Pr[M(q)=r] (q* - q_r)`` of ``mechanism`` on ``scores``."""
    be = get_backend(backend)
    pmf = mechanism.pmf(scores, backend=be, method=method)
    if be.name == "float":
        q = float_scores(scores)
        gaps = q.max() - q
        p = pmf.values
        val = float(gaps @ p)
        if pmf.rel_error is not None:
            bound = pmf.rel_error * val
        else:
            bound = float(pmf.abs_error * gaps.sum())
        return ExpectedError(val, val, bound, "float", pmf)
    qe = exact_scores(scores, limit=10**7)
    top = max(qe)
    with be.context():
        total = None
        for pr, qr in zip(pmf.values, qe):
            gap = be.from_real(top - qr)
            term = pr * gap
            total = term if total is None else total + term
    if be.name == "ball":
        return ExpectedError(total, float(total.mid()), float(total.rad()), str(be), pmf)
    if be.name == "exact":
        from ..numbers.backends import ExactBackend

        return ExpectedError(total, ExactBackend().to_float(total), 0.0, "exact", pmf)
    f = float(total)
    return ExpectedError(total, f, (pmf.rel_error or 0.0) * abs(f), str(be), pmf)
