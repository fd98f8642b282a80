"""The public API: the CLI's commands as functions, importable from ``dpexact``.

=========================  ===========================================  ==============================
``dpexact.verify(m, …)``   is the claimed ε (or ε, δ) true?             :class:`~.verify.verdict.Verdict`
``dpexact.optimal(n, k,    the optimal regular mechanism (LP) and the   dict (``dpexact optimal --json``)
ε, …)``                    optimality ratios of ``mechanisms``
``dpexact.delta(…)``       δ(ε) of a pmf pair, Gaussian or Laplace      :class:`~.accounting.delta_epsilon.Enclosure`
``dpexact.epsilon(…)``     ε(δ), the inverse                            :class:`~.accounting.delta_epsilon.Enclosure`
``dpexact.pmf(m, scores,   the pmf of a mechanism on one score vector   :class:`~.numbers.pmf.Pmf`
…)``
=========================  ===========================================  ==============================

A mechanism is a registry name (``"pf"``; see ``dpexact.available()``), ``PATH.py:OBJECT`` /
``module:OBJECT``, or a mechanism object; keywords are the CLI's option names (``epsilon``,
``sensitivity``, ``monotone``, ``param`` as a dict, ``n``, ``neighbourhood``, ``search``, ``delta``,
``relation``, ``backend``, ``method``, …). Bad input raises a one-line ``ValueError`` / ``TypeError``
naming the argument, as the CLI exits with one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .protocols import Backend, Mechanism
from .verify.router import verify  # noqa: F401  (dpexact.verify, the callable package, calls it)

__all__ = ["verify", "optimal", "delta", "epsilon", "pmf"]


def optimal(n: int, k: int, epsilon: Any, *, sensitivity: Any = "1", mechanisms: Sequence[str] | str = ("pf", "em"),
            boundary: str = "clip", method: str = "auto", crossover: bool = True, certify: bool = False,
            max_seconds: float | None = None) -> dict[str, Any]:
    """The optimal regular mechanism on Q(n, k) at ``epsilon`` and the optimality ratios of
    ``mechanisms`` (registry names or ``PATH.py:OBJECT``): the record of ``dpexact optimal --json``
    (:func:`.lp.summary.optimal_summary`)."""
    from .lp.summary import optimal_summary

    names = [s.strip() for s in mechanisms.split(",") if s.strip()] if isinstance(mechanisms, str) else list(mechanisms)
    return optimal_summary(n, k, str(epsilon), sensitivity=str(sensitivity), mechanisms=names, boundary=boundary,
                           method=method, crossover=crossover, certify=certify, max_seconds=max_seconds)


def _accounted(p: Any, q: Any, gaussian: Any, laplace: Any, sensitivity: Any) -> Any:
    from .accounting.delta_epsilon import GaussianMechanism, LaplaceMechanism, PmfPair

    if sum(x is not None for x in ((p if p is not None else q), gaussian, laplace)) != 1:
        raise ValueError("give exactly one mechanism: p and q, gaussian=SIGMA or laplace=B")
    if (p is None) != (q is None):
        raise ValueError("p and q go together")
    if p is not None:
        return PmfPair(p, q)
    return GaussianMechanism(gaussian, sensitivity) if gaussian is not None else LaplaceMechanism(laplace, sensitivity)


def delta(*, epsilon: Any, p: Sequence[Any] | None = None, q: Sequence[Any] | None = None, gaussian: Any = None,
          laplace: Any = None, sensitivity: Any = 1, compositions: int = 1, prec: int = 128) -> Any:
    """Certified δ(ε) of a pmf pair (``p``, ``q``), the Gaussian mechanism (σ = ``gaussian``) or the
    Laplace mechanism (scale ``laplace``), k-fold composed (``dpexact delta -e``)."""
    from .accounting.delta_epsilon import delta_for_epsilon

    return delta_for_epsilon(_accounted(p, q, gaussian, laplace, sensitivity), epsilon, compositions, prec)


def epsilon(*, delta: Any, p: Sequence[Any] | None = None, q: Sequence[Any] | None = None, gaussian: Any = None,
            laplace: Any = None, sensitivity: Any = 1, compositions: int = 1, prec: int = 128) -> Any:
    """Certified ε(δ), the inverse of :func:`delta` (``dpexact delta -d``)."""
    from .accounting.delta_epsilon import epsilon_for_delta

    return epsilon_for_delta(_accounted(p, q, gaussian, laplace, sensitivity), delta, compositions, prec)


def pmf(mechanism: str | Path | Mechanism, scores: Sequence[Any], *, epsilon: Any = None, sensitivity: Any = None, monotone: bool = False,
        param: Mapping[str, Any] | None = None, backend: str | Backend = "float", method: str | None = None) -> Any:
    """The pmf of ``mechanism`` on ``scores`` with ``backend`` (float | mp[:digits] | ball[:bits] |
    exact) and, when given, the mechanism's ``method`` (``dpexact pmf``)."""
    from .mechanisms.resolve import resolve_mechanism

    m = resolve_mechanism(mechanism, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, param=param)
    if isinstance(scores, (str, bytes)):
        raise TypeError("scores must be a sequence of numbers, not a string")
    return m.pmf(list(scores), backend) if method is None else m.pmf(list(scores), backend, method=method)
