"""The public API: the CLI's commands as functions, importable from ``dpexact``.

=========================  ===========================================  ==============================
``dpexact.verify(m, …)``   is the claimed ε (or ε, δ) true?             :class:`~.verify.verdict.Verdict`
``dpexact.optimal(n, k,    the optimal regular mechanism (LP) and the   :class:`~.lp.optimal_result.OptimalResult`
ε, …)``                    optimality ratios of ``mechanisms``          (``to_dict()``: ``optimal --json``)
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

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from .accounting.delta_epsilon import AccountedMechanism, Enclosure
from .lp.optimal_result import OptimalResult
from .numbers.pmf import Pmf
from .protocols import Backend, Mechanism
from .verify.router import verify  # noqa: F401  (dpexact.verify, the callable package, calls it)

__all__ = ["verify", "optimal", "delta", "epsilon", "pmf"]


def optimal(n: int, k: int, epsilon: Any, *, sensitivity: Any = "1",
            mechanisms: Sequence[str | Path | Mechanism] | str = ("pf", "em"), boundary: str = "clip",
            method: str = "auto", crossover: bool = True, certify: bool = False,
            max_seconds: float | None = None) -> OptimalResult:
    """The optimal regular mechanism on Q(n, k) at ``epsilon`` and the optimality ratios of
    ``mechanisms`` (registry names, ``PATH.py:OBJECT``, a comma-separated string of them as in
    ``--mechanisms``, or mechanism objects at ``epsilon`` and ``sensitivity``): a typed
    :class:`~.lp.optimal_result.OptimalResult` whose ``to_dict()`` is ``dpexact optimal --json``
    (:func:`.lp.summary.optimal_result`).

    Args:
        n: the number of candidates.
        k: the lattice depth of the score vectors Q(n, k).
        epsilon: ε (exact).
        sensitivity: Δ.
        mechanisms: the mechanisms whose ratios are computed.
        boundary: clip | drop, what becomes of a neighbour q' outside Q(n, k).
        method: the LP route: auto | generation | simplex | ipm | hipo | pdlp | forest-ipm | forest-cg.
        crossover: ask for a vertex after an interior point.
        certify: certify the optimum exactly (needs a vertex).
        max_seconds: CPU-time budget of the solve.

    Returns:
        The :class:`~.lp.optimal_result.OptimalResult`: the optimum with its proven interval
        (``optimal_total_error_bounds``) and the ``ratios``; ``to_dict()`` for JSON.
    """
    from .lp.summary import optimal_result

    if isinstance(mechanisms, str):
        given: list[Any] = [s.strip() for s in mechanisms.split(",") if s.strip()]
    elif isinstance(mechanisms, (Path, Mechanism)):
        given = [mechanisms]
    else:
        given = list(mechanisms)
    names = [_spec(m) for m in given]
    return optimal_result(n, k, str(epsilon), sensitivity=str(sensitivity), mechanisms=names, boundary=boundary,
                           method=method, crossover=crossover, certify=certify, max_seconds=max_seconds)


def _spec(mechanism: str | Path | Mechanism) -> str | Mechanism:
    """A file path as the string the loader reads (``PATH.py:OBJECT``); names and objects unchanged."""
    return os.fspath(mechanism) if isinstance(mechanism, os.PathLike) else mechanism


def _accounted(p: Any, q: Any, gaussian: Any, laplace: Any, sensitivity: Any) -> AccountedMechanism:
    from .accounting.delta_epsilon import GaussianMechanism, LaplaceMechanism, PmfPair

    if sum(x is not None for x in ((p if p is not None else q), gaussian, laplace)) != 1:
        raise ValueError("give exactly one mechanism: p_pmf and q_pmf, gaussian=SIGMA or laplace=B")
    if (p is None) != (q is None):
        raise ValueError("p_pmf and q_pmf go together")
    if p is not None:
        return PmfPair(p, q)
    return GaussianMechanism(gaussian, sensitivity) if gaussian is not None else LaplaceMechanism(laplace, sensitivity)


def _pair(p_pmf: Any, q_pmf: Any, p: Any, q: Any) -> tuple[Any, Any]:
    """The pmf pair under the CLI's names (``p_pmf``, ``q_pmf``) or the short ones (``p``, ``q``), given once."""
    for long, short, name in ((p_pmf, p, "p_pmf"), (q_pmf, q, "q_pmf")):
        if long is not None and short is not None:
            raise ValueError(f"{name}: given twice (as {name} and as {name[0]}): give it once")
    return (p if p_pmf is None else p_pmf), (q if q_pmf is None else q_pmf)


def delta(*, epsilon: Any, p_pmf: Sequence[Any] | None = None, q_pmf: Sequence[Any] | None = None,
          gaussian: Any = None, laplace: Any = None, sensitivity: Any = 1, compositions: int = 1, prec: int = 128,
          p: Sequence[Any] | None = None, q: Sequence[Any] | None = None) -> Enclosure:
    """Certified δ(ε) of a pmf pair (``p_pmf``, ``q_pmf``; or ``p``, ``q``), the Gaussian mechanism
    (σ = ``gaussian``) or the Laplace mechanism (scale ``laplace``), k-fold composed (``dpexact delta -e``).

    Args:
        epsilon: ε at which δ(ε) is computed (exact).
        p_pmf: the first pmf of a pair (exact entries).
        q_pmf: the second pmf of the pair.
        gaussian: σ of the Gaussian mechanism, instead of a pair.
        laplace: the scale of the Laplace mechanism, instead of a pair.
        sensitivity: Δ of the Gaussian or Laplace mechanism.
        compositions: k, the number of compositions.
        prec: the working precision in bits.
        p: former name of ``p_pmf``.
        q: former name of ``q_pmf``.

    Returns:
        A certified :class:`Enclosure` of δ(ε) (lower and upper ends, exact where possible).
    """
    from .accounting.delta_epsilon import delta_for_epsilon

    p, q = _pair(p_pmf, q_pmf, p, q)
    return delta_for_epsilon(_accounted(p, q, gaussian, laplace, sensitivity), epsilon, compositions, prec)


def epsilon(*, delta: Any, p_pmf: Sequence[Any] | None = None, q_pmf: Sequence[Any] | None = None,
            gaussian: Any = None, laplace: Any = None, sensitivity: Any = 1, compositions: int = 1, prec: int = 128,
            p: Sequence[Any] | None = None, q: Sequence[Any] | None = None) -> Enclosure:
    """Certified ε(δ), the inverse of :func:`delta` (``dpexact delta -d``).

    Args:
        delta: δ at which ε(δ) is computed (exact).
        p_pmf: the first pmf of a pair (exact entries).
        q_pmf: the second pmf of the pair.
        gaussian: σ of the Gaussian mechanism, instead of a pair.
        laplace: the scale of the Laplace mechanism, instead of a pair.
        sensitivity: Δ of the Gaussian or Laplace mechanism.
        compositions: k, the number of compositions.
        prec: the working precision in bits.
        p: former name of ``p_pmf``.
        q: former name of ``q_pmf``.

    Returns:
        A certified :class:`Enclosure` of ε(δ).
    """
    from .accounting.delta_epsilon import epsilon_for_delta

    p, q = _pair(p_pmf, q_pmf, p, q)
    return epsilon_for_delta(_accounted(p, q, gaussian, laplace, sensitivity), delta, compositions, prec)


def pmf(mechanism: str | Path | Mechanism, scores: Sequence[Any], *, epsilon: Any = None, sensitivity: Any = None, monotone: bool = False,
        param: Mapping[str, Any] | None = None, backend: str | Backend = "float", method: str | None = None) -> Pmf:
    """The pmf of ``mechanism`` on ``scores`` with ``backend`` (float | mp[:digits] | ball[:bits] |
    exact) and, when given, the mechanism's ``method`` (``dpexact pmf``).

    Args:
        mechanism: registry name, ``PATH.py:OBJECT`` or a mechanism object.
        scores: the score vector (exact strings such as ``"1/3"``, ints, or floats at their binary value).
        epsilon: ε; for a name or path only.
        sensitivity: Δ; for a name or path only.
        monotone: monotone quality; for a name or path only.
        param: further mechanism parameters.
        backend: float | mp[:digits] | ball[:bits] | exact.
        method: the mechanism's algorithm, when it offers several.

    Returns:
        The :class:`~dpexact.numbers.pmf.Pmf`, with its backend, method and error bound.
    """
    from .mechanisms.resolve import resolve_mechanism

    m = resolve_mechanism(_spec(mechanism), epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, param=param)
    if isinstance(scores, (str, bytes)):
        raise TypeError("scores must be a sequence of numbers, not a string")
    return m.pmf(list(scores), backend) if method is None else m.pmf(list(scores), backend, method=method)
