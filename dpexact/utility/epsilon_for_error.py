"""The privacy budget at which a mechanism reaches a target expected error.

Solves ``E[E(M_ε, q)] = target`` for ε > 0 (pf §6: "M_EM would need about 1.27 times larger
privacy budget to achieve the same utility").

Assumption (documented, checked): the expected error ``f(ε) = E[q* - q_{M_ε}]`` is
non-increasing in ε. It holds for EM (``d/dε E[q_M] = Var[q_M]/(2Δ) >= 0``, exponential
tilting) and is expected for PF and the other regular mechanisms; it is *checked* on every
point evaluated while bracketing (the sequence of values must decrease) and at the two
bracket ends, and a violation raises ``ArithmeticError`` instead of returning a wrong root.

Limits: ``f(ε) -> q* - mean(q)`` as ε -> 0 (uniform choice) and ``f(ε) -> 0`` as ε -> ∞, so
a root exists only for ``0 < target < q* - mean(q)``; other targets raise ``ValueError``.

Algorithm: bracket by doubling/halving from ``start`` (default 1) until
``f(lo) > target > f(hi)``, then :func:`scipy.optimize.brentq` on the float expected error.
Accuracy: brentq stops within ``xtol + rtol·ε``; the result then carries a *certified*
bracket ``[lower, upper]``: both ends are re-evaluated and kept only if the target is
separated from ``f`` by more than the a-priori float bound of the expected error
(otherwise the bracket is widened), so that, under the monotonicity assumption, the exact
root lies in ``[lower, upper]``.
"""

from __future__ import annotations

from fractions import Fraction

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..mechanisms.validation import float_scores
from ..numbers.real import Real
from .expected_error import expected_error

__all__ = ["EpsilonForError", "epsilon_for_error"]

_MAX_STEPS = 200


@dataclass(frozen=True)
class EpsilonForError:
    """Result of :func:`epsilon_for_error`.

    Attributes:
        epsilon: the root found by brentq (float).
        lower, upper: certified bracket (float ε values) with ``f(lower) > target > f(upper)``
            beyond the float error bounds; the exact root lies inside under the monotonicity
            assumption.
        expected_error: ``f(epsilon)`` (float) and ``error_bound`` its a-priori bound.
        target: the target expected error.
        certified: whether both bracket ends were separated from the target beyond the float
            bounds (False only if the search reached the bracketing interval's ends first).
        evaluations: number of pmf evaluations.
        checked_points: the (ε, f(ε)) pairs evaluated while bracketing (monotonicity checked).
    """

    epsilon: float
    lower: float
    upper: float
    expected_error: float
    error_bound: float
    target: float
    certified: bool
    evaluations: int
    checked_points: tuple[tuple[float, float], ...]


def _factory(mechanism: "str | Callable[..., Any]", params: dict[str, Any]) -> Callable[[float], Any]:
    if isinstance(mechanism, str):
        from ..mechanisms.registry import mechanism as build

        # the search's trial ε are binary floats by construction: pass their exact value (a Fraction),
        # which is what a float means to dpexact, without the warning meant for a user's decimal
        return lambda eps: build(mechanism, epsilon=Fraction(eps), **params)
    if callable(mechanism):
        return lambda eps: mechanism(epsilon=eps, **params)
    raise TypeError(f"mechanism must be a registry name or a factory callable, got {type(mechanism).__name__}")


def epsilon_for_error(
    mechanism: "str | Callable[..., Any]",
    scores: Any,
    target: Any,
    *,
    start: float = 1.0,
    xtol: float = 1e-14,
    rtol: float = 1e-12,
    method: str | None = None,
    **params: Any,
) -> EpsilonForError:
    """ε at which ``mechanism`` has expected error ``target`` on ``scores`` (float arithmetic).

    Args:
        mechanism: registry name (``"pf"``, ``"em"``, ...) or a factory called as
            ``factory(epsilon=ε, **params)`` (e.g. a mechanism class).
        scores: score vector.
        target: the expected error to reach, ``0 < target < max(q) - mean(q)``.
        start: first ε tried when bracketing.
        xtol, rtol: brentq tolerances on ε.
        method: pmf method passed to ``pmf`` (``None`` = default).
        **params: other mechanism parameters (``sensitivity``, ``monotone``, ...).

    Raises:
        ValueError: bad target/start/tolerances, or no bracket within 2^±200.
        ArithmeticError: the expected error was found not to decrease with ε.
    """
    q = float_scores(scores)
    t = float(Real.of(target, "target"))
    s = float(Real.of(start, "start"))
    if not s > 0:
        raise ValueError(f"start must be > 0, got {start}")
    if not (xtol > 0 and rtol >= 4 * np.finfo(float).eps):
        raise ValueError(f"xtol must be > 0 and rtol >= 4 eps, got {xtol}, {rtol}")
    limit = float(q.max() - q.mean())
    if not (0 < t < limit):
        raise ValueError(
            f"target must lie in (0, max(q) - mean(q)) = (0, {limit:.17g}), the range of the expected error; got {t}"
        )
    build = _factory(mechanism, params)
    points: list[tuple[float, float, float]] = []

    def f(eps: float) -> tuple[float, float]:
        e = expected_error(build(eps), q, backend="float", method=method)
        points.append((eps, e.as_float, e.error_bound))
        return e.as_float, e.error_bound

    v, _ = f(s)
    lo = hi = s
    steps = 0
    if v > t:
        while v > t:
            steps += 1
            if steps > _MAX_STEPS:
                raise ValueError(f"no ε <= {hi:g} reaches the target {t}")
            lo, hi = hi, hi * 2
            v, _ = f(hi)
            _check_monotone(points)
    else:
        while v <= t:
            steps += 1
            if steps > _MAX_STEPS:
                raise ValueError(f"no ε >= {lo:g} reaches the target {t}")
            hi, lo = lo, lo / 2
            v, _ = f(lo)
            _check_monotone(points)
    root = _brentq(lambda e: f(e)[0] - t, lo, hi, xtol, rtol)
    val, bound = f(root)
    # certified bracket: walk outwards until the target is separated beyond the float bounds
    lower, upper, certified = _certify(f, t, root, lo, hi, xtol + rtol * root)
    _check_monotone(points)
    return EpsilonForError(root, lower, upper, val, bound, t, certified, len(points), tuple((e, v) for e, v, _ in points))


def _brentq(fun: Callable[[float], float], a: float, b: float, xtol: float, rtol: float) -> float:
    from scipy.optimize import brentq

    return float(brentq(fun, a, b, xtol=xtol, rtol=rtol, maxiter=500))


def _certify(
    f: Callable[[float], tuple[float, float]], t: float, root: float, lo: float, hi: float, step: float
) -> tuple[float, float, bool]:
    """Smallest tried ``[root - s, root + s']`` (s doubling) whose ends are separated from ``t``."""
    ok_low = ok_up = False
    s = step
    lower = max(root - s, lo)
    for _ in range(_MAX_STEPS):
        v, b = f(lower)
        ok_low = v - b > t
        if ok_low or lower == lo:
            break
        s *= 2
        lower = max(root - s, lo)
    s = step
    upper = min(root + s, hi)
    for _ in range(_MAX_STEPS):
        v, b = f(upper)
        ok_up = v + b < t
        if ok_up or upper == hi:
            break
        s *= 2
        upper = min(root + s, hi)
    return lower, upper, ok_low and ok_up


def _check_monotone(points: list[tuple[float, float, float]]) -> None:
    """Expected errors at increasing ε must not increase beyond their error bounds."""
    pts = sorted(points)
    for (e1, v1, b1), (e2, v2, b2) in zip(pts, pts[1:]):
        if e2 > e1 and v2 - b2 > v1 + b1:
            raise ArithmeticError(
                f"expected error increases with ε: f({e1!r}) = {v1!r} < f({e2!r}) = {v2!r}; "
                "the monotonicity assumption of epsilon_for_error fails"
            )
