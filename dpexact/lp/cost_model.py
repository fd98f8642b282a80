"""Cost model of the optimal-mechanism LP on Q(n, k): memory and time from (n, k, ε, route).

The size of the reduced LP is known in closed form before anything is built
(:mod:`.lattice`): ``C(n−1+k, k)`` classes and

    V(n, k) = C(n−1+k, k) + k·C(n−2+k, k)      variables (one per class and level present),

since level ℓ >= 1 is present in the classes counted by compositions of n − 2 into k + 1
parts. Everything below is a function of V. The estimate works with ``log V`` (:func:`math.lgamma`):
estimating Q(10⁶, 10⁶) costs microseconds, where the exact binomials have 600 000 digits.

Measured on the 2-core, 23 GiB development machine (2026-11-25). Times are CPU seconds
(``time.process_time``) of single-threaded code, i.e. the wall time on an otherwise idle machine
(the machine was shared: wall clock then was 3–8× longer); HiPO runs on both cores and its
figures are wall clock from ``benchmarks/README.md``. The runs are listed there ("Cost model").

* build (:func:`.regular_lp.build_regular_lp`): 0.08 / 0.37 / 1.61 s at V = 3.0e4 / 1.3e5 /
  5.3e5 (Q(8,8), Q(9,9), Q(10,10)) -> ``3e-6·V`` s;
* peak memory, build + generation solve: 129 / 213 / 556 / 1983 MB at Q(8,8) … Q(11,11)
  (V = 2.2e6) -> ``80 MB + 900 B·V`` (the build alone: 340 B per variable);
* generation at ε >= 0.7 (PF optimal or a few exchanges away): 0.29 / 0.50 / 1.97 s ->
  ``0.2 + 3.5e-6·V`` s;
* generation below ε = 0.7: at Q(7, 7) 11.4 / 4.46 / 0.36 s at ε = 0.05 / 0.25 / 0.5; Q(6, 6) ->
  Q(7, 7) (V × 4.2) at ε = 0.05 costs × 25, Q(7, 7) -> Q(8, 8) at ε = 0.5 × 20 (7.3 s), and
  Q(8, 8) at ε = 0.25 took > 300 s -> ``A(ε)·(V/7260)^2.5`` with A interpolated
  log-linearly between those ε;
* HiPO (dual LP, 2 threads): 14–23 s wall at Q(8, 8), 829 s at Q(9, 9); CPU time of both
  threads, no crossover, Q(8, 8) at ε = 0.25: 46.6 s (2026-11-28, load 16); flops per
  factorisation ∝ V^2.9, factor entries 1.24e7 at Q(8, 8) ∝ V^1.93 at 12 bytes each
  -> ``45·(V/30459)^2.9`` CPU s and ``80 MB + 900 B·V + 12·1.24e7·(V/30459)^1.93`` bytes;
* simplex / IPX: 105–150 s at Q(8, 8), ε = 0.25 -> ``150·(V/30459)^2.9`` s;
  PDLP: 30 s at Q(8, 8), no convergence in 554 s at Q(10, 10) -> ``30·(V/30459)^2.9`` s;
* optimality ratios (one float pmf per class and mechanism, batched for PF and EM): 0.67 s (PF)
  and 0.52 s (EM) CPU at Q(10, 10)'s 184 756 classes -> ``4e-6`` s per class and mechanism, the
  model when no pilot is given; :func:`dpexact.lp.summary.optimal_summary` times each mechanism on a pilot
  instead (EM costs a third of PF, a quadrature-based mechanism a hundred times more, and a
  mechanism without declared symmetry is summed over vectors, not classes).

The small-ε generation model is coarse (within a factor of 2–3 of the runs above); whatever
it says, the budget is also enforced while solving, as CPU time (:func:`.solver.solve_regular_lp`).
"""

from __future__ import annotations

import math
from typing import Any

from ..cost_limits import CostEstimate
from .lattice import check_nk

__all__ = ["regular_lp_size", "regular_lp_log_size", "estimate_build_cost", "estimate_regular_lp_cost",
           "resolve_method", "hipo_available"]

#: ``method="auto"``: LPs up to this many variables go to generation (below a second)
AUTO_SMALL_VARS = 10_000
#: ``method="auto"``: from this ε up, generation (benchmarks/README.md: <= 1.5 s at n = k = 8)
AUTO_GENERATION_EPSILON = 0.6


def hipo_available() -> bool:
    """Whether HiGHS's HiPO interior-point solver can run (``highspy-extras`` matching ``highspy``)."""
    from importlib import metadata

    try:
        return metadata.version("highspy-extras") == metadata.version("highspy")
    except metadata.PackageNotFoundError:
        return False


_BASE_BYTES = 80e6
_BYTES_PER_VAR = 900.0
_BUILD_BYTES_PER_VAR = 340.0
_BUILD_S_PER_VAR = 3.0e-6
_GEN_FAST_S = (0.2, 3.5e-6)
_GEN_FAST_EPSILON = 0.7
#: (ε, seconds at Q(7, 7)) for the generation route below ε = 0.7
_GEN_SLOW_ANCHORS = ((0.05, 11.4), (0.25, 4.46), (0.5, 0.36), (0.7, 0.23))
_GEN_SLOW_V, _GEN_SLOW_POWER = 7260, 2.5
_IPM_V, _IPM_POWER = 30459, 2.9
_IPM_SECONDS = {"hipo": 45.0, "ipm": 150.0, "simplex": 150.0, "pdlp": 30.0}
_HIPO_FACTOR_ENTRIES, _HIPO_FACTOR_POWER, _HIPO_BYTES_PER_ENTRY = 1.24e7, 1.93, 12.0
_RATIO_S_PER_CLASS = 4e-6
#: forest routes (:mod:`.forest_ipm`), CPU s measured at Q(8, 8) (dense: 10 s per iteration) and Q(10, 10)
#: (CG: 46 ms per step), benchmarks/README.md:
#: (iterations, seconds per unit of work)
_FOREST_SECONDS = {"forest-ipm": (20, 1 / 1.5e10), "forest-cg": (60, 1 / 5e8)}
#: entries of the eliminated matrix Â per variable (Σ_v (depth(v)+1) after merging; 9.4 at Q(8, 8))
_FOREST_NNZ_PER_VAR = 12.0
#: forest-ipm: seconds per entry of the dense class system formed from the sparse product
_FOREST_DENSE_S_PER_ENTRY = 1.2e-7


def _forest_cost(route: str, classes: float, v: float) -> tuple[float, float, str]:
    """(seconds, extra bytes, model) of the forest routes."""
    iterations, s_per_unit = _FOREST_SECONDS[route]
    nnz = _FOREST_NNZ_PER_VAR * v
    if route == "forest-ipm":  # dense class system: C³/3 flops per factorisation
        return (iterations * (classes**3 / 3 * s_per_unit + _FOREST_DENSE_S_PER_ENTRY * classes**2),
                24.0 * classes**2 + 60 * nnz,
                f"forest-ipm: {iterations} iterations × (C³/3 flops + C² entries formed) (dense class system)")
    # forest-cg: two CG solves of up to 500 steps per iteration, each step 2 products with Â
    return (iterations * 2 * 500 * 4 * nnz * s_per_unit, 60 * nnz,
            f"forest-cg: {iterations} iterations × 1000 CG steps × 4·nnz(Â)")


#: largest log V for which the exact sizes are computed (V < 2^63); beyond it only logs are used
_EXACT_LOG_LIMIT = 63 * math.log(2)


def _log_comb(a: int, b: int) -> float:
    """``log C(a, b)`` to float accuracy for any sizes: a sum of logs of exact integers when the
    smaller part is small, else log-gammas at a precision that absorbs their cancellation
    (``lgamma(a + 1)`` is about ``a log a``; in float64 its rounding alone exceeds ``log C(a, b)``
    once ``a`` is large and ``b`` small, e.g. a = 10^80, b = 5)."""
    m = min(b, a - b)
    if m <= 256:
        return math.fsum(math.log(a - i) - math.log(i + 1) for i in range(m))
    import mpmath

    with mpmath.workprec(max(53, a.bit_length()) + 64):
        return float(mpmath.loggamma(a + 1) - mpmath.loggamma(b + 1) - mpmath.loggamma(a - b + 1))


def regular_lp_log_size(n: int, k: int) -> tuple[float, float]:
    """``(log classes, log variables)`` of the reduced LP on Q(n, k) (:func:`_log_comb`: relative
    error ~1e-15 · the log for any n, k)."""
    check_nk(n, k)
    log_classes = _log_comb(n - 1 + k, k)
    if n == 1:
        return log_classes, log_classes
    log_levels = math.log(k) + _log_comb(n - 2 + k, k) if k else -math.inf
    hi, lo = max(log_classes, log_levels), min(log_classes, log_levels)
    return log_classes, hi + math.log1p(math.exp(lo - hi))


def regular_lp_size(n: int, k: int) -> tuple[int, int]:
    """``(classes, variables)`` of the reduced LP on Q(n, k), in closed form (nothing built).

    Raises:
        ValueError: the LP has 2^63 variables or more (its size then only exists as a log:
            :func:`regular_lp_log_size`).
    """
    _, log_v = regular_lp_log_size(n, k)
    if log_v > _EXACT_LOG_LIMIT + 1:  # the margin absorbs lgamma's rounding; math.comb stays cheap below it
        raise ValueError(f"LP on Q({n}, {k}): about e^{log_v:.4g} variables, far beyond any machine")
    classes = math.comb(n - 1 + k, k)
    if n == 1:
        return classes, classes
    return classes, classes + k * math.comb(n - 2 + k, k)


def _sizes(n: int, k: int) -> tuple[float, float, str, str]:
    """``(classes, variables, classes as text, V as text)``: floats (``inf`` past float64's range), cheaply."""
    log_c, log_v = regular_lp_log_size(n, k)
    if log_v <= _EXACT_LOG_LIMIT:
        classes, v = regular_lp_size(n, k)
        return float(classes), float(v), str(classes), str(v)
    as_float = (lambda x: math.exp(x) if x < 700 else math.inf)
    as_text = (lambda x: f"about 10^{x / math.log(10):.4g}")
    return as_float(log_c), as_float(log_v), as_text(log_c), as_text(log_v)


def estimate_build_cost(n: int, k: int) -> CostEstimate:
    """Memory and time of :func:`.regular_lp.build_regular_lp` alone."""
    _, v, _, shown = _sizes(n, k)
    return CostEstimate(f"LP Q({n}, {k}) build, {shown} variables", _BASE_BYTES + _BUILD_BYTES_PER_VAR * v,
                        _BUILD_S_PER_VAR * v, "measured fit: 340 B and 3e-6 s per variable", {"build": _BUILD_S_PER_VAR * v})


def resolve_method(method: str, variables: float, epsilon: float) -> str:
    """The route ``method="auto"`` takes (the one rule: :func:`.solver.solve_regular_lp` asks it too)."""
    if method != "auto":
        return method
    if variables <= AUTO_SMALL_VARS or epsilon >= AUTO_GENERATION_EPSILON or not hipo_available():
        return "generation"
    return "hipo"


def _generation_seconds(v: float, eps: float) -> tuple[float, str]:
    fast = _GEN_FAST_S[0] + _GEN_FAST_S[1] * v
    if eps >= _GEN_FAST_EPSILON:
        return fast, "generation, ε >= 0.7: 0.2 s + 3.5e-6 s per variable"
    anchors = _GEN_SLOW_ANCHORS
    if eps <= anchors[0][0]:
        a = anchors[0][1]
    else:
        a = anchors[-1][1]
        for (e0, s0), (e1, s1) in zip(anchors, anchors[1:]):
            if e0 <= eps <= e1:
                t = (eps - e0) / (e1 - e0)
                a = math.exp((1 - t) * math.log(s0) + t * math.log(s1))
                break
    return max(fast, a * (v / _GEN_SLOW_V) ** _GEN_SLOW_POWER), "generation, ε < 0.7: A(ε)·(V/7260)^2.5 s"


def estimate_regular_lp_cost(n: int, k: int, epsilon: Any, *, method: str = "auto", mechanisms: int = 0,
                             time_limit: float | None = None, ratio_seconds: float | None = None) -> CostEstimate:
    """Estimated peak memory and time of building and solving the LP on Q(n, k) at ε.

    Args:
        n, k: the lattice.
        epsilon: ε (anything :func:`float` accepts after exact parsing, e.g. ``"log(2)"``).
        method: the solver route (``"auto"`` is resolved as the solver would).
        mechanisms: number of optimality ratios computed afterwards (one pmf per class each).
        time_limit: HiGHS's time limit, if any: the solve part is capped at it.
        ratio_seconds: the ratios' cost measured on a pilot
            (:func:`.optimal_mechanism.ratio_seconds_estimate`, summed over the mechanisms); it
            replaces the PF-based model of ``mechanisms`` ratios.

    Returns:
        a :class:`~dpexact.cost_limits.CostEstimate` (module docstring: the measured model).
    """
    from ..mechanisms.validation import positive_real

    classes, v, classes_shown, shown = _sizes(n, k)
    eps = positive_real(epsilon, "epsilon").to_float()
    route = resolve_method(method, v, eps)
    memory = _BASE_BYTES + _BYTES_PER_VAR * v
    if route == "generation":
        solve, model = _generation_seconds(v, eps)
    elif route in _IPM_SECONDS:
        solve = _IPM_SECONDS[route] * (v / _IPM_V) ** _IPM_POWER
        model = f"{route}: {_IPM_SECONDS[route]:g}·(V/30459)^2.9 s"
        if route == "hipo":
            memory += _HIPO_BYTES_PER_ENTRY * _HIPO_FACTOR_ENTRIES * (v / _IPM_V) ** _HIPO_FACTOR_POWER
    elif route in _FOREST_SECONDS:
        solve, extra, model = _forest_cost(route, classes, v)
        memory += extra
    else:
        raise ValueError(f"method: unknown LP route {method!r}")
    if time_limit is not None:
        solve = min(solve, float(time_limit))
    parts = {"build": _BUILD_S_PER_VAR * v, "solve": solve}
    if ratio_seconds is not None:
        parts["ratios"] = float(ratio_seconds)
        model += "; ratios timed on a pilot"
    elif mechanisms:
        parts["ratios"] = _RATIO_S_PER_CLASS * classes * mechanisms
    return CostEstimate(f"LP Q({n}, {k}) at ε = {eps:.4g} ({shown} variables, {classes_shown} classes, {route})",
                        memory, sum(parts.values()), model, parts)
