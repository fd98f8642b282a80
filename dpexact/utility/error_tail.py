"""The error tail ``Pr[E >= t]`` of a mechanism for every t (pf eq. 4, Theorem 2).

With gaps ``g_r = q* - q_r`` and distinct levels ``0 = t_0 < t_1 < ... < t_m``,

    Pr[E >= t] = Σ_{r : g_r >= t_j} Pr[M(q) = r]   for t_{j-1} < t <= t_j,

it equals 1 for ``t <= 0`` and 0 for ``t > t_m``; so the values at the levels describe the
tail for every real t. ``Pr[E >= 0] = 1`` is set exactly (it holds by definition); the other
entries are suffix sums of the pmf, computed in the backend's arithmetic.

Accuracy:
    float — the pmf's relative bound ρ (or its absolute bound) plus recursive summation of
        non-negative terms (Higham γ_n): ``|T̃ - T| <= κ/(1-κ) · T̃ + k·2^-1074``,
        ``κ = ρ + γ_n (1 + ρ)``, k the number of summed entries (the last term covers pmf
        entries that underflow, which relative pmf bounds exclude);
    mp — the pmf's estimate; ball — rigorous (ball sums); exact — exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers.backends import Backend, get_backend
from ..numbers.pmf import ErrorKind, Pmf
from .levels import TINY, ErrorLevels, exact_levels, float_levels, gamma
from ..protocols import SELECTION_KINDS, Mechanism

__all__ = ["ErrorTail", "error_tail"]


@dataclass(frozen=True)
class ErrorTail:
    """``Pr[E >= t_j]`` at the distinct error levels ``t_j``, with provenance.

    Attributes:
        levels: float64 error levels, ascending, ``levels[0] == 0``.
        exact_levels: the levels as exact :class:`~dpexact.numbers.Real` (non-float backends).
        values: tail probabilities in the backend's number type (tuple) or float64 array.
        as_float: float64 tail probabilities (ball: midpoints).
        abs_error: float64 bound on ``|values - exact|`` at each level (0 for exact;
            ball radii; a-priori bound for float; estimate for mp).
        error_kind: as in :class:`~dpexact.numbers.Pmf`.
        backend: backend name.
        pmf: the pmf the tail was computed from.
    """

    levels: np.ndarray
    exact_levels: tuple | None
    values: Any
    as_float: np.ndarray
    abs_error: np.ndarray
    error_kind: ErrorKind
    backend: str
    pmf: Pmf

    def prob_at_least(self, t: float) -> float:
        """``Pr[E >= t]`` (float) for any real ``t``: the value at the smallest level ``>= t``."""
        t = float(t)
        if not np.isfinite(t):
            raise ValueError(f"t must be finite, got {t}")
        j = int(np.searchsorted(self.levels, t, side="left"))
        return 0.0 if j >= self.levels.size else float(self.as_float[j])


def error_tail(mechanism: Mechanism, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> ErrorTail:
    """Error tail ``Pr[q* - q_M >= t]`` of ``mechanism`` on ``scores`` at every error level.

    Uses only ``mechanism.pmf(scores, backend, method)``. See the module docstring for the
    formula and the accuracy statement.
    """
    if mechanism.output_kind not in SELECTION_KINDS:
        raise TypeError(f"mechanism: the error tail needs a selection mechanism (outputs 0..n-1), got output_kind {mechanism.output_kind!r}")
    be = get_backend(backend)
    pmf = mechanism.pmf(scores, backend=be, method=method)
    if be.is_float:
        lv = float_levels(scores)
        return _float_tail(lv, pmf)
    lv = exact_levels(scores)
    with be.context():
        return _scalar_tail(lv, pmf, be)


def _float_tail(lv: ErrorLevels, pmf: Pmf) -> ErrorTail:
    p = np.asarray(pmf.values, dtype=np.float64)
    per_level = np.bincount(lv.index, weights=p, minlength=len(lv))
    tail = np.cumsum(per_level[::-1])[::-1]
    tail[0] = 1.0
    n = p.size
    if pmf.rel_error is not None and np.isfinite(pmf.rel_error):
        rho = float(pmf.rel_error)
        kappa = rho + gamma(n) * (1 + rho)
        counts = np.bincount(lv.index, minlength=len(lv))
        k = np.cumsum(counts[::-1])[::-1]
        err = tail * (kappa / (1 - kappa)) + k * TINY if kappa < 1 else np.full_like(tail, np.inf)
    else:
        # absolute bound a per entry: k·a for the k summed entries, plus rounding γ_n Σ|p̃|
        counts = np.bincount(lv.index, minlength=len(lv))
        k = np.cumsum(counts[::-1])[::-1]
        abs_sum = np.cumsum(np.bincount(lv.index, weights=np.abs(p), minlength=len(lv))[::-1])[::-1]
        err = k * float(pmf.abs_error) + gamma(n) * abs_sum
    err[0] = 0.0
    return ErrorTail(lv.levels, None, tail, tail.copy(), err, pmf.error_kind, "float", pmf)


def _scalar_tail(lv: ErrorLevels, pmf: Pmf, be: Backend) -> ErrorTail:
    vals = list(pmf.values)
    zero = vals[0] * 0
    per_level = [zero] * len(lv)
    for v, j in zip(vals, lv.index):
        per_level[j] = per_level[j] + v
    tail = [zero] * len(lv)
    acc = zero
    for j in range(len(lv) - 1, -1, -1):
        acc = acc + per_level[j]
        tail[j] = acc
    tail[0] = zero + 1
    if be.is_ball:
        as_float = np.array([float(v.mid()) for v in tail])
        err = np.array([float(v.rad()) for v in tail])
    elif be.is_exact:
        as_float = np.array([be.to_float(v) for v in tail])
        err = np.zeros(len(tail))
    else:
        as_float = np.array([float(v) for v in tail])
        rel = pmf.rel_error if pmf.rel_error is not None else np.inf
        err = np.abs(as_float) * rel
        err[0] = 0.0
    return ErrorTail(lv.levels, lv.exact, tuple(tail), as_float, err, pmf.error_kind, str(be), pmf)
