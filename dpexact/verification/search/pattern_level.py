"""The lower end of the ε bracket of a pattern mechanism (sparse-vector family): the largest log-ratio found, certified.

    ε* >= max log( Pr[M(q) = o] / Pr[M(q') = o] )      over neighbours q ~ q' and patterns o.

The refuting search stops at its first certified violation, rarely the level. The worst pairs of
a threshold-shift coupling are *two-level*: every ⊥ query at one score ``a`` and moving one way,
every ⊤ query at ``b`` moving the other (the coupling's extreme offsets are the corners of the Δ-box,
the same for every query of a kind). So for each candidate pattern o (the search's witness,
``⊥^{n-1}⊤``, ``⊤⊥^{n-1}``) and each corner ``(δ_⊥, δ_⊤) ∈ {±Δ}²`` of the relation (ALL_DIFFER: all
four; monotone: equal signs), the float log-ratio of ``q = (a or b per answer)`` against ``q + δ`` is
scanned on a grid of ``(a, b)`` in units of the threshold noise scale, then refined by Nelder–Mead.
The best point, rounded to rationals, is re-checked in ball arithmetic; the certified lower end of
the enclosure (rounded down) is the :class:`~..bracket.Witness`. Floats only steer.

Queries the pattern never reads (after a cutoff abort) are set to ``a``. Budget: ``work`` units of
the ranking law, one unit per (query, pattern) of one ``screen_logpmf`` call, so the answer is the
same on a loaded machine as on a quiet one (a wall-clock budget made it depend on the load). A law
whose screen is not a float formula (adaptive sparse vector: piecewise integrals, 0.16 s a call at
n = 10) is skipped: one warm call costing more than ``_MAX_SCREEN_CPU`` of this process's CPU time —
a cut about 3× from both kinds (svt6's float screen: 0.02 s at n = 10, 1 024 patterns), so that the
load, which slows a process but hardly changes its CPU time, does not move a law across it.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

from ...protocols import AnyMechanism, Mechanism
from ...numbers.backends import ball_context
from ..bracket import Proof, Witness
from ..verdict import Verdict

__all__ = ["pattern_level", "widest_pattern_witness"]

_CHECK_PREC = 256
#: largest work (queries × patterns) of one ranking-law evaluation for which the grid is run
_MAX_SCREEN_WORK = 2 ** 14
#: largest CPU time of one warm ranking-law evaluation for which the grid is run
_MAX_SCREEN_CPU = 0.06
#: default budget in the same units: ~200 objective values at n = 10 (1 024 patterns), ~6 s
_WORK = 2 ** 22


def _vectors(o: str, n: int, a: Fraction, b: Fraction, d_f: Fraction, d_t: Fraction) -> tuple[list, list]:
    q = [b if i < len(o) and o[i] == "T" else a for i in range(n)]
    q2 = [x + (d_t if i < len(o) and o[i] == "T" else d_f) for i, x in enumerate(q)]
    return q, q2


def _log_ratio(m: Mechanism, q: list, q2: list, o: str, prec: int) -> Any:
    with ball_context(prec):
        p1 = m.pattern_probability(q, o, f"ball:{prec}")
        p2 = m.pattern_probability(q2, o, f"ball:{prec}")
        if not (p1 > 0 and p2 > 0):
            return None
        return p1.log() - p2.log()


def _screen(m: Mechanism, q: list, q2: list, o: str, index: int) -> float:
    """Float log-ratio from the mechanism's uncertified ranking law (``screen_logpmf``): steering only."""
    import numpy as np

    try:
        a = m.screen_logpmf(np.array([float(x) for x in q]))[index]
        b = m.screen_logpmf(np.array([float(x) for x in q2]))[index]
    except (ValueError, ArithmeticError):
        return -math.inf
    v = float(a - b)
    return v if math.isfinite(v) else -math.inf


def _candidates(m: Mechanism, n: int, start: str | None) -> list[str]:
    outs = set(m.outputs(n))
    pats = [p for p in (start, "F" * (n - 1) + "T", "T" + "F" * (n - 1)) if p is not None and p in outs]
    return list(dict.fromkeys(pats))


def pattern_level(m: Mechanism, n: int, relation: str, start: str | None = None, work: int = _WORK) -> Witness | None:
    """The certified best two-level witness (module docstring), or None when nothing positive was found.

    ``work`` bounds the float screening in queries × patterns summed over ``screen_logpmf`` calls."""
    from scipy.optimize import minimize

    from ...numbers.real import Real

    if relation not in ("all-differ", "monotone"):
        return None
    delta = Real.of(m.sensitivity)
    if not delta.is_rational:
        return None
    d = delta.value
    unit = float(Real.of(m.noise_scales()[0]).to_float())
    corners = [(s1 * d, s2 * d) for s1 in (1, -1) for s2 in (1, -1) if relation == "all-differ" or s1 == s2]
    best = (-math.inf, None)
    grid = [k / 2 for k in range(-4, 5)]
    gaps = [0.05, 0.5, 2.0, -0.5]
    try:
        outs = m.outputs(n)
    except ValueError:  # more patterns than the law enumerates
        return None
    per_call = 2 * n * len(outs)  # one objective value = two ranking-law evaluations
    if per_call > 2 * _MAX_SCREEN_WORK:
        return None  # a costly ranking law: the grid would not fit the budget
    try:
        m.screen_logpmf([0.0] * n)  # warm: set-up caches are not the law's cost
        t = time.process_time()
        m.screen_logpmf([0.0] * n)
    except (ValueError, ArithmeticError):
        return None
    if time.process_time() - t > _MAX_SCREEN_CPU:
        return None  # not a float screen: the grid would cost minutes
    calls_left = work // per_call
    for o in _candidates(m, n, start):
        index = outs.index(o)
        for d_f, d_t in corners:
            def f(x: Any) -> float:
                nonlocal calls_left
                calls_left -= 1
                a = Fraction(x[0]).limit_denominator(64)
                b = Fraction(x[1]).limit_denominator(64)
                return -_screen(m, *_vectors(o, n, a, b, d_f, d_t), o, index)

            local = (math.inf, None)
            for ga in grid:
                for gb in gaps:
                    if calls_left <= 0:
                        break
                    x = (ga * unit, ga * unit + gb * unit)
                    v = f(x)
                    if v < local[0]:
                        local = (v, x)
            if local[1] is None or calls_left <= 0:
                continue
            res = minimize(f, local[1], method="Nelder-Mead",
                           options={"maxfev": min(60, calls_left), "xatol": unit * 1e-3, "fatol": 1e-9})
            x = res.x if res.fun < local[0] else local[1]
            if -min(res.fun, local[0]) > best[0]:
                best = (-min(res.fun, local[0]), (o, Fraction(x[0]).limit_denominator(64),
                                                  Fraction(x[1]).limit_denominator(64), d_f, d_t))
    if best[1] is None or not best[0] > 0:
        return None
    o, a, b, d_f, d_t = best[1]
    q, q2 = _vectors(o, n, a, b, d_f, d_t)
    try:
        lr = _log_ratio(m, q, q2, o, _CHECK_PREC)
    except (ValueError, ArithmeticError):
        return None
    if lr is None:
        return None
    with ball_context(_CHECK_PREC):
        lo = math.nextafter(float(lr.lower()), -math.inf)
    return Witness(lower_float=lo, scores=tuple(map(str, q)), neighbour_scores=tuple(map(str, q2)), output=o,
                   arithmetic=f"ball:{_CHECK_PREC}", note=f"two-level witness on n = {n} queries (maximised)")


def widest_pattern_witness(v: Verdict, mechanism: AnyMechanism, n: int | None, relation: str | None, proof: Proof | None,
                           witness: Witness | None) -> Witness | None:
    """The larger of ``witness`` and the maximised two-level witness of a pattern law (:func:`pattern_level`)
    for a violated verdict: on the verdict's n, and on 3n queries (at most 32) when the proof above covers
    every n (a witness at any n then bounds the same level from below)."""
    from dataclasses import replace

    from ...protocols import ThresholdCouplingLaw

    if not isinstance(mechanism, ThresholdCouplingLaw) or (v.bracket is not None and v.bracket.lower is not None
                                                            and v.bracket.lower.unbounded):
        return witness
    if v.counterexample is not None and v.counterexample.as_dict().get("log_ratio_exact") == ["inf", "inf"]:
        return witness
    nn = n if n is not None else 10
    start = v.counterexample.as_dict().get("output") if v.counterexample is not None else None
    sizes = [nn] + ([min(3 * nn, 32)] if proof is not None and proof.domain.get("n") == "every" and nn < 32 else [])
    best = witness
    for size in sizes:
        w = pattern_level(mechanism, size, relation or "all-differ", start if size == nn else None)
        if w is not None and size != nn:  # say why the witness's n is not the n asked for
            w = replace(w, note=(w.note + "; " if w.note else "") + f"at n = {size}, not the n = {nn} asked for: the "
                        f"proof above covers every n, so a witness at any n bounds the same level from below")
        if w is not None and (best is None or w.lower_float > best.lower_float):
            best = w
    return best
