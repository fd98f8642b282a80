"""Error levels of a score vector: the gaps ``q* - q_r`` (pf eq. 4) and their distinct values.

Shared by the utility metrics. The error of a selection mechanism takes the value
``g_r = q* - q_r`` with probability ``Pr[M(q) = r]``; its distinct values
``0 = t_0 < t_1 < ... < t_m`` are the *error levels*.

* Float backend: ``g = q.max() - q`` in float64 (exact for scores that are integers below
  2^53; otherwise each gap carries one rounding, relative error <= 2^-53).
* mp / ball / exact backends: gaps are exact :class:`~dpexact.numbers.Real` numbers, grouped
  by exact equality, and converted to the backend's numbers by :func:`backend_number`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..mechanisms.validation import exact_scores, float_scores
from ..numbers.backends import Backend
from ..numbers.real import Real

__all__ = ["U", "TINY", "gamma", "ErrorLevels", "float_levels", "exact_levels", "backend_number"]

U = 2.0**-53
#: absolute error allowed per float pmf entry for underflow (entries below 2^-1022 are
#: subnormal or zero, with absolute error <= 2^-1075; relative pmf bounds exclude them)
TINY = 2.0**-1074


def gamma(k: int) -> float:
    """Higham's γ_k = k·u / (1 - k·u): relative error bound of a sum of k+1 non-negative floats."""
    ku = k * U
    if ku >= 0.5:
        raise ValueError(f"gamma: {k} terms are too many for a float64 bound")
    return ku / (1 - ku)


@dataclass(frozen=True)
class ErrorLevels:
    """Distinct error levels and, for every candidate, the index of its level.

    ``levels`` is a float64 array (ascending, ``levels[0] == 0``); ``exact`` holds the exact
    levels as :class:`Real` (``None`` on the float backend); ``index[r]`` is the level of
    candidate ``r``.
    """

    levels: np.ndarray
    index: np.ndarray
    exact: tuple[Real, ...] | None = None

    def __len__(self) -> int:
        return int(self.levels.size)


def float_levels(scores: Any) -> ErrorLevels:
    """The float64 gaps; a ``ValueError`` naming ``scores`` when one overflows (scores ~1.8e308 apart)."""
    q = float_scores(scores)
    with np.errstate(over="ignore"):
        gaps = q.max() - q
    if not np.isfinite(gaps).all():
        raise ValueError(f"scores: the gap q* - q_r = {q.max():g} - ({q.min():g}) exceeds float64's range; "
                         "use backend='ball' or 'exact'")
    levels, index = np.unique(gaps, return_inverse=True)
    return ErrorLevels(levels, index.astype(np.int64))


def exact_levels(scores: Any) -> ErrorLevels:
    q = exact_scores(scores, limit=10**7)
    top = max(q)
    gaps = [top - x for x in q]
    distinct: dict[Any, Real] = {}
    for g in gaps:
        distinct.setdefault(g.value, g)
    ordered = sorted(distinct.values(), key=functools.cmp_to_key(lambda a, b: (a - b).sign()))
    pos = {g.value: i for i, g in enumerate(ordered)}
    index = np.array([pos[g.value] for g in gaps], dtype=np.int64)
    return ErrorLevels(np.array([g.to_float() for g in ordered]), index, tuple(ordered))


def backend_number(x: Real, backend: Backend, like: Any = None) -> Any:
    """``x`` in the backend's number type.

    On the exact backend: an ``fmpq`` when ``x`` is rational and ``like`` (a value it will be
    combined with) is an ``fmpq`` or ``None``; a sympy expression otherwise.
    """
    if backend.is_exact:
        if x.is_rational and (like is None or type(like).__name__ == "fmpq"):
            from flint import fmpq

            f = x.to_fraction()
            return fmpq(f.numerator, f.denominator)
        return x.to_sympy()
    return backend.from_real(x)
