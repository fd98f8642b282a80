"""One optimal-mechanism solve with its optimality ratios, as a JSON-ready record.

This is the single source of ``dpexact optimal --json`` and of the ``optimal`` task of
``dpexact sweep``: build the reduced LP of Q(n, k) (pf App. D), solve it
(:func:`.solver.solve_regular_lp`), optionally certify the optimum
(:mod:`.exact_certificate`), and compute ``ratio(M) = Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]``
(pf §5, Figure 2) for each named mechanism with its proven error bound
(:func:`.optimal_mechanism.optimality_ratio`).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from ..protocols import Mechanism, check_mechanism
from .optimal_result import OptimalResult

__all__ = ["optimal_result", "optimal_summary"]


def optimal_result(
    n: int,
    k: int,
    epsilon: str,
    *,
    sensitivity: str = "1",
    mechanisms: Sequence[str | Mechanism] = ("pf", "em"),
    boundary: str = "clip",
    method: str = "auto",
    crossover: bool | None = None,
    certify: bool = False,
    time_limit: float | None = None,
    threads: int | None = None,
    max_seconds: float | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> OptimalResult:
    """Solve the optimal regular mechanism LP on Q(n, k) and return its typed record.

    Args:
        n, k: candidates and lattice depth (scores 0, -2Δ, …, -2Δk).
        epsilon, sensitivity: exact strings (``"1/2"``, ``"log(2)"``).
        mechanisms: the mechanisms whose optimality ratios are computed: registry names or
            ``PATH.py:OBJECT`` (built at ``epsilon``, ``sensitivity``), or mechanism objects (at the
            same ε and Δ; keyed by their ``short_name``).
        boundary, method: passed to :func:`.regular_lp.build_regular_lp` /
            :func:`.solver.solve_regular_lp`.
        crossover: interior routes: turn the interior solution into a vertex (``True``), or
            return it with its proven interval (``False``); ``None`` (default): only where a
            vertex is needed, i.e. with ``certify`` (the exact certificate or the ball enclosure).
            The interior solution's interval is what the ratios' bounds are computed from either
            way; the crossover costs about a third of the solve at n = k = 8, ε = 0.25.
        certify: exact certificate when e^{-ε} is rational, else a ball enclosure (vertex)
            or the proven float64 interval.
        time_limit, threads: per HiGHS call (``None``: HiGHS defaults).
        max_seconds: time budget: the whole computation's estimate (:mod:`.cost_model`) must
            fit in it, else :class:`~dpexact.cost_limits.CostLimitError` before any work; it
            also bounds the solve (:func:`.solver.solve_regular_lp`). ``None``: no time check
            (memory is always checked).
        progress: called as ``progress("step", text)`` when a phase starts and
            ``progress("note", text)`` with the LP size before the solve and the solve time after.

    Returns:
        The :class:`~.optimal_result.OptimalResult` (its ``to_dict()`` is ``dpexact optimal --json``): sizes, ``method``, ``seconds``,
        ``optimal_total_error`` with its proven ``optimal_total_error_bounds``, ``ratios`` and
        ``ratio_error_bounds`` per mechanism, ``certified`` (``False`` / ``"exact"`` /
        ``"enclosure"``), and the certificate fields when ``certify``.

    Raises:
        ValueError / TypeError: bad parameters (naming the argument); ``CostLimitError`` (a
            ValueError) when the estimate exceeds the memory or ``max_seconds`` budget.
        RuntimeError: HiGHS reports no optimum (e.g. the simplex or generation route hit
            ``time_limit``).
    """
    from ..cost_limits import check_cost
    from ..numbers.real import Real
    from .cost_model import estimate_regular_lp_cost
    from .optimal_mechanism import ratio_seconds_estimate
    from .regular_lp import build_regular_lp, check_exact_weights, exp_minus_epsilon
    from .solver import solve_regular_lp

    # the LP's cost first (a huge lattice is refused with its estimate, in closed form), then its weights
    # (exact floats, finite sums) before any pilot
    check_cost(estimate_regular_lp_cost(n, k, epsilon, method=method, time_limit=time_limit, ratio_seconds=0.0),
               max_seconds=max_seconds)
    check_exact_weights(n, k)
    report = progress or (lambda kind, text: None)
    mechs = _named_mechanisms(mechanisms, epsilon, sensitivity)
    names = list(mechs)
    # the ratios timed on a pilot of each mechanism (which also refuses, before the LP, a sum it cannot do)
    ratio_backend = "exact" if certify and exp_minus_epsilon(Real.of(epsilon, "epsilon")).is_rational else "float"
    ratio_s = sum(ratio_seconds_estimate(m, n, k, ratio_backend) for m in mechs.values())
    check_cost(estimate_regular_lp_cost(n, k, epsilon, method=method, time_limit=time_limit, ratio_seconds=ratio_s),
               max_seconds=max_seconds)
    report("step", f"building the LP for Q({n}, {k})")
    t0 = time.perf_counter()
    lp = build_regular_lp(n, k, epsilon, sensitivity=sensitivity, boundary=boundary)  # type: ignore[arg-type]
    build_s = time.perf_counter() - t0
    report("note", f"LP for Q({n}, {k}): {lp.num_vars} variables, {lp.num_constraints} constraints, "
                   f"{len(lp.classes)} classes, {lp.num_vectors} vectors (built in {build_s:.2f} s)")
    if crossover is None:  # a certificate (exact, or the ball enclosure) is computed from a vertex
        crossover = bool(certify)
    report("step", f"solving the LP (method {method})")
    sol = solve_regular_lp(lp, method=method, crossover=crossover, time_limit=time_limit, threads=threads,  # type: ignore[arg-type]
                           max_seconds=max_seconds, progress=report)
    report("note", f"solved ({sol.method}); computing the ratios of {', '.join(names)}")
    report("step", "certifying and computing ratios" if certify else "computing ratios")
    cert, certified, enclosure = _certificate(lp, sol) if certify else (None, False, None)
    ratios, ratio_bounds, exact_ratios = _ratios(mechs, sol, cert)
    return OptimalResult(
        n=n, k=k, epsilon=epsilon, sensitivity=sensitivity, boundary=boundary, method=sol.method,
        variables=lp.num_vars, constraints=lp.num_constraints, classes=len(lp.classes), vectors=lp.num_vectors,
        build_seconds=build_s, seconds=sol.seconds, optimal_total_error=sol.optimal_total_error,
        optimal_total_error_bounds=(sol.bounds.lower, sol.bounds.upper), vertex=sol.is_vertex, ratios=ratios,
        ratio_error_bounds=ratio_bounds, certified=certified, exact_certificate=cert is not None,
        optimal_total_error_exact=str(cert.optimum) if cert is not None and cert.certified else None,
        ratios_exact=exact_ratios, certificate_failure=cert.failure if cert is not None and not cert.certified else None,
        optimal_total_error_enclosure=None if enclosure is None else (enclosure[0], enclosure[1]))


def optimal_summary(n: int, k: int, epsilon: str, *, sensitivity: str = "1",
                    mechanisms: Sequence[str | Mechanism] = ("pf", "em"), boundary: str = "clip", method: str = "auto",
                    crossover: bool | None = None, certify: bool = False, time_limit: float | None = None,
                    threads: int | None = None, max_seconds: float | None = None,
                    progress: Callable[[str, str], None] | None = None) -> dict[str, Any]:
    """:func:`optimal_result` as the JSON record of ``dpexact optimal --json`` (:meth:`OptimalResult.to_dict`)."""
    return optimal_result(n, k, epsilon, sensitivity=sensitivity, mechanisms=mechanisms, boundary=boundary,
                          method=method, crossover=crossover, certify=certify, time_limit=time_limit, threads=threads,
                          max_seconds=max_seconds, progress=progress).to_dict()


def _named_mechanisms(mechanisms: Sequence[str | Mechanism], epsilon: str, sensitivity: str) -> dict[str, Any]:
    """The mechanisms keyed by name, built (or checked) at the LP's ε and Δ.

    Built before the LP so that a misspelt name, or an object at another ε or Δ, is reported at
    once, not after the solve.
    """
    from ..mechanisms.registry import mechanism as build
    from ..numbers.real import Real

    mechs: dict[str, Any] = {}
    for s in mechanisms:
        if isinstance(s, str) and s.strip():
            mechs[s.strip()] = build(s.strip(), epsilon=epsilon, sensitivity=sensitivity)
        elif not isinstance(s, str):
            m = check_mechanism(s, "mechanisms")
            if (Real.of(m.epsilon) - Real.of(epsilon, "epsilon")).sign() or (Real.of(m.sensitivity)
                                                                           - Real.of(sensitivity, "sensitivity")).sign():
                raise ValueError(f"mechanisms: {m.short_name} has ε = {m.epsilon}, Δ = {m.sensitivity}; the LP's are "
                                 f"ε = {epsilon}, Δ = {sensitivity}")
            mechs[m.short_name] = m
    if not mechs:
        raise ValueError("mechanisms: give at least one mechanism name")
    return mechs


def _certificate(lp: Any, sol: Any) -> tuple[Any, Any, list[float] | None]:
    """(exact certificate or None, ``certified`` field, enclosure of the optimum or None).

    Exact when e^{-ε} is rational; otherwise a ball enclosure from the vertex's basis, or, with no
    basis to enclose from, the solution's proven float64 interval.
    """
    from .exact_certificate import certify_exact, enclose_optimum

    if lp.rho.is_rational:
        cert = certify_exact(sol)
        return cert, ("exact" if cert.certified else False), None
    if sol.is_vertex:
        enc = enclose_optimum(sol)
        return None, "enclosure", [float(enc.lower.lower()), float(enc.upper.upper())]
    return None, "enclosure", [sol.bounds.lower, sol.bounds.upper]


def _ratios(mechs: dict[str, Any], sol: Any, cert: Any) -> tuple[dict[str, Any], dict[str, float], dict[str, str]]:
    """Each mechanism's optimality ratio, its proven error bound, and its exact value where certified."""
    from .optimal_mechanism import optimality_ratio

    ratios: dict[str, Any] = {}
    ratio_bounds: dict[str, float] = {}
    exact_ratios: dict[str, str] = {}
    for name, mech in mechs.items():
        if cert is not None and cert.certified:
            r = optimality_ratio(mech, sol, backend="exact", certificate=cert)
            exact_ratios[name] = str(r.value)
        else:
            r = optimality_ratio(mech, sol)
        ratios[name] = r.as_float
        ratio_bounds[name] = r.error_bound
    return ratios, ratio_bounds, exact_ratios
