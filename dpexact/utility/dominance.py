"""Stochastic dominance of error distributions (pf Theorem 2).

Mechanism A *dominates* B on ``q`` when its error tail is nowhere above B's:

    Pr[E_A >= t] <= Pr[E_B >= t]   for all t.

Both tails are step functions of t that can only change at the error levels ``t_j`` of
``q`` (the distinct gaps ``q* - q_r``), equal 1 for ``t <= 0`` and 0 beyond the largest level;
so it suffices to compare the margins ``m_j = Pr[E_A >= t_j] - Pr[E_B >= t_j]`` at the
positive levels ``t_1..t_m``. The *worst violation* is ``max_j m_j`` (``<= 0`` when A
dominates; 0 if q has a single level).

The verdict is decided in the arithmetic named by ``recheck`` (default ``"ball"``):

* ``exact``: signs of exact margins (rigorous, may be slow for irrational weights);
* ``ball``: ``True`` if every margin ball lies in ``(-inf, 0]``, ``False`` if some margin
  ball lies in ``(0, inf)``, ``None`` (undecided) otherwise, e.g. at exactly tied margins;
* ``None``: the float screen alone, using its a-priori bounds in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers.backends import Backend, get_backend
from .error_tail import ErrorTail, error_tail

__all__ = ["Dominance", "stochastic_dominance"]


@dataclass(frozen=True)
class Dominance:
    """Result of :func:`stochastic_dominance`.

    Attributes:
        dominates: ``True``/``False`` as decided in ``checked_in``; ``None`` if undecided there.
        worst_violation: ``max_j (Pr[E_A >= t_j] - Pr[E_B >= t_j])`` over positive levels
            (float; from the ``checked_in`` arithmetic).
        worst_level: the level ``t_j`` where it occurs (``nan`` if there is no positive level).
        worst_violation_bound: absolute error bound on ``worst_violation``.
        levels: float64 positive error levels ``t_1..t_m``.
        margins: float64 margins at those levels.
        checked_in: the arithmetic of the verdict (``"float"``, ``"ball:128"``, ``"exact"``).
        tails: the two :class:`ErrorTail` objects used for the verdict.
    """

    dominates: bool | None
    worst_violation: float
    worst_level: float
    worst_violation_bound: float
    levels: np.ndarray
    margins: np.ndarray
    checked_in: str
    tails: tuple[ErrorTail, ErrorTail]


def stochastic_dominance(
    mechanism_a: Any,
    mechanism_b: Any,
    scores: Any,
    backend: "str | Backend" = "float",
    recheck: "str | Backend | None" = "ball",
    method_a: str | None = None,
    method_b: str | None = None,
) -> Dominance:
    """Whether ``mechanism_a``'s error tail is <= ``mechanism_b``'s for all t on ``scores``.

    Args:
        mechanism_a, mechanism_b: mechanisms (only ``pmf`` is used).
        scores: the score vector.
        backend: arithmetic of the first evaluation.
        recheck: arithmetic of the verdict (``"ball"``, ``"ball:<bits>"``, ``"exact"`` or
            ``None`` to keep ``backend``'s result).
        method_a, method_b: pmf methods (``None`` = defaults).
    """
    be = get_backend(backend)
    result = _compare(mechanism_a, mechanism_b, scores, be, method_a, method_b)
    if recheck is None:
        return result
    rb = get_backend(recheck)
    if rb.name not in ("ball", "exact"):
        raise ValueError(f"recheck must be 'ball', 'ball:<bits>', 'exact' or None, got {recheck!r}")
    if str(rb) == result.checked_in:
        return result
    # the default pmf methods of the recheck arithmetic are used (the float methods may not exist there)
    return _compare(mechanism_a, mechanism_b, scores, rb, None, None)


def _compare(a: Any, b: Any, scores: Any, be: Backend, ma: str | None, mb: str | None) -> Dominance:
    ta = error_tail(a, scores, backend=be, method=ma)
    tb = error_tail(b, scores, backend=be, method=mb)
    levels = ta.levels[1:]
    margins = ta.as_float[1:] - tb.as_float[1:]
    bounds = ta.abs_error[1:] + tb.abs_error[1:]
    if levels.size == 0:
        return Dominance(True, 0.0, float("nan"), 0.0, levels, margins, str(be), (ta, tb))
    if be.is_exact:
        signs = [_exact_sign(x - y) for x, y in zip(ta.values[1:], tb.values[1:])]
        verdict: bool | None = all(s <= 0 for s in signs)
        bounds = np.zeros_like(margins)
    elif be.is_ball:
        with be.context():
            diffs = [x - y for x, y in zip(ta.values[1:], tb.values[1:])]
            certainly_pos = any(bool(d > 0) for d in diffs)
            certainly_nonpos = all(bool(d <= 0) for d in diffs)
            margins = np.array([float(d.mid()) for d in diffs])
            bounds = np.array([float(d.rad()) for d in diffs])
        verdict = False if certainly_pos else (True if certainly_nonpos else None)
    else:
        if np.any(margins - bounds > 0):
            verdict = False
        elif np.all(margins + bounds <= 0):
            verdict = True
        else:
            verdict = None
    j = int(np.argmax(margins))
    return Dominance(verdict, float(margins[j]), float(levels[j]), float(bounds[j]), levels, margins, str(be), (ta, tb))


def _exact_sign(x: Any) -> int:
    if type(x).__name__ == "fmpq":
        return (x > 0) - (x < 0)
    from ..numbers.real import Real

    return Real.of(x, "margin").sign()
