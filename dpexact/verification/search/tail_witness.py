"""A witness at the threshold-shift coupling's bound: every factor of the law put in its exponential tail.

The coupling of :mod:`..proofs.threshold_coupling` bounds, pointwise in the threshold noise ρ, the
ratio of the integrands of ``Pr[o | q]`` and ``Pr[o | q']`` by ``e^{|s|/b1} Π_i e^{cost_i}``, each
factor's cost a Laplace log-Lipschitz constant times its shift. A Laplace tail is *exactly*
exponential (``F(x) = e^{x/b}/2`` for ``x <= 0``, ``1 - F(x) = e^{-x/b}/2`` for ``x >= 0``), so each
factor attains its bound on its own tail: a ⊥ answer ``Pr[ν < T + ρ - q_i]`` when the query sits
high above ``T + ρ``, a ⊤ answer ``Pr[ν >= T + ρ - q_i]`` when it sits far below. With every ⊥
query at ``T + L`` and every ⊤ query at ``T - L`` (the "surprising" answers), and each query moved
by the corner of the neighbourhood its factor pays most for, the integrands' ratio equals the bound
on all of ``|ρ| < L`` except where the threshold noise's own tail carries mass, so

    log Pr[o | q] / Pr[o | q']  ->  the coupling bound      as L -> ∞

whenever the output's factors keep the integrand's mass inside ``|ρ| < L`` (e.g. svt6 at n = 10:
the balanced patterns, five ⊤ and five ⊥, give ``nΔ/b2`` = 1/2 to 10 digits at L = 20·b). This is
Lyu, Su & Li's (VLDB 2017, §4) construction of the violations of Algorithms 3–6, taken to the
limit at the stated n.

:func:`tail_witness` tries the coupling's worst outputs (at most :data:`MAX_OUTPUTS`), every corner
``(d_⊥, d_⊤)`` of the relation (``{-Δ, 0, Δ}²``; monotone: one sign) and ``L`` in
:data:`SPREADS` noise scales; each candidate's log-ratio is enclosed in ball arithmetic from the
mechanism's own ``pattern_probability`` (or, for a law that also releases values,
``part_box_probability`` on a narrow box of each released value — the certified ratio is the
box's lower bound under q over its upper bound under q'; for a law whose released values are
independent given the pattern, :class:`~dpexact.protocols.ValueLoss`, plus their exact supremum,
attained on the tail boxes beyond both queries). Floats never decide: the reported lower
end is the ball's lower end, rounded down.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Iterator, Sequence

from ...numbers.backends import ball_context
from ...numbers.real import Real
from ...protocols import AnyMechanism, ValueLoss
from ..bracket import Witness

__all__ = ["tail_witness", "noisy_max_witness", "placements", "certify", "lower_float", "MAX_OUTPUTS", "SPREADS"]

#: at most this many of the coupling's worst outputs are tried (longest first)
MAX_OUTPUTS = 8
#: the spreads L tried, in units of the largest noise scale
SPREADS = (16, 64)
#: width of the box of a released value, in units of the largest noise scale
BOX_WIDTH = Fraction(1, 10**9)
_PREC = 256
#: CPU-time cap of one tail-witness search (a law with piecewise integrals costs ~1 s a candidate; the
#: pattern laws reach their bound within ~0.5 s)
SECONDS = 2.0


def _corners(delta: Fraction, relation: str) -> list[tuple[Fraction, Fraction]]:
    """``(d_⊥, d_⊤)``: the aligned corner first (⊥ queries up, ⊤ queries down: both answers grow less
    likely under q'), then the others."""
    ends = (delta, -delta, Fraction(0))
    out = sorted(((a, b) for a in ends for b in ends), key=lambda c: c != (delta, -delta))
    if relation == "monotone":
        out = [(a, b) for a, b in out if a * b >= 0]
    return out


def _released(m: AnyMechanism, output: str) -> bool:
    from ...protocols import PART_KINDS, PartBoxLaw

    return m.output_kind in PART_KINDS and isinstance(m, PartBoxLaw) and "T" in output


def _log_ratio(m: AnyMechanism, q: list, q2: list, output: str, box: list | None) -> Any:
    """The certified log-ratio of ``output`` (with ``box`` for its released values) as a ball, or None."""
    with ball_context(_PREC):
        if box is None:
            p1 = m.pattern_probability(q, output, f"ball:{_PREC}")
            p2 = m.pattern_probability(q2, output, f"ball:{_PREC}")
        else:
            p1 = m.part_box_probability(q, output, box, "ball", _PREC)[0]
            p2 = m.part_box_probability(q2, output, box, "ball", _PREC)[1]
        if not (p1 > 0 and p2 > 0):
            return None
        return p1.log() - p2.log()


def _setup(m: AnyMechanism, relation: str) -> tuple[Fraction, Fraction, Fraction] | None:
    """``(Δ, T, largest noise scale)`` as rationals, or None (the witness needs them exact)."""
    if relation not in ("all-differ", "monotone"):
        return None
    delta, thr = Real.of(m.sensitivity), Real.of(m.threshold)
    scales = [Real.of(b) for b in m.noise_scales() if b is not None]
    if not (delta.is_rational and thr.is_rational and scales and all(b.is_rational for b in scales)):
        return None
    return delta.value, thr.value, max(b.value for b in scales)


def placements(m: AnyMechanism, n: int, relation: str, outputs: Sequence[str]) -> Iterator[tuple[str, list, list, str]]:
    """Candidate pairs ``(output, q, q', note)``: for each of the first :data:`MAX_OUTPUTS` outputs (longest
    first), each spread of :data:`SPREADS` and each corner, ⊥ queries at ``T + L`` moved by ``d_⊥`` and ⊤
    queries at ``T - L`` moved by ``d_⊤`` (module docstring)."""
    got = _setup(m, relation)
    if got is None:
        return
    d, t, unit = got
    pats = sorted(dict.fromkeys(outputs), key=lambda o: (-len(o), o))[:MAX_OUTPUTS]
    for spread in SPREADS:
        L = unit * spread
        for o in pats:
            for d_f, d_t in _corners(d, relation):
                q = [t - L if i < len(o) and o[i] == "T" else t + L for i in range(n)]
                q2 = [x + (d_t if i < len(o) and o[i] == "T" else d_f) for i, x in enumerate(q)]
                yield o, q, q2, (f"⊥ queries at T + L, ⊤ at T - L, L = {L} ({spread} noise scales), offsets ⊥ {d_f}, "
                                 f"⊤ {d_t}")


def certify(m: AnyMechanism, o: str, q: list, q2: list) -> tuple[Any, Any] | None:
    """``(log-ratio ball, output as JSON)`` of ``o`` between ``q`` and ``q'`` from the law (module docstring),
    or None when the law cannot say (a probability 0, or outside what the law evaluates)."""
    box = None
    if _released(m, o):
        _, t, unit = _setup(m, "all-differ")  # type: ignore[misc]
        box = [(t, t + unit * BOX_WIDTH)] * o.count("T")
    try:
        lr = _log_ratio(m, q, q2, o, box)
    except (ValueError, ArithmeticError, ZeroDivisionError):
        return None
    if lr is None:
        return None
    out: Any = o if box is None else {"pattern": o, "box": [[str(a), str(b)] for a, b in box]}
    if isinstance(m, ValueLoss) and "T" in o:  # each released value on its tail beyond both queries
        lr = lr + Real.of(m.value_loss(q, q2, o)).to_arb(_PREC)
        out = {"pattern": o, "values": [f"<= {min(q[i], q2[i])}" if q[i] < q2[i] else f">= {max(q[i], q2[i])}"
                                        for i, a in enumerate(o) if a == "T"]}
    return lr, out


def lower_float(lr: Any) -> float:
    """The ball's lower end as a float rounded down."""
    with ball_context(_PREC):
        return math.nextafter(float(lr.lower()), -math.inf)


def tail_witness(m: AnyMechanism, n: int, relation: str, outputs: Sequence[str], target: float | None = None,
                 tolerance: float = 1e-9, seconds: float = SECONDS) -> Witness | None:
    """The best certified tail witness over ``outputs`` (module docstring), or None when none is positive.

    ``target``: the proof's upper end; the search stops once a witness is within ``tolerance``
    (relative) of it, or after ``seconds`` of this process's CPU time (CPU, not wall clock: the
    answer does not depend on the machine's load)."""
    best: tuple[float, Witness | None] = (0.0, None)
    stop = time.process_time() + seconds
    for o, q, q2, how in placements(m, n, relation, outputs):
        if time.process_time() > stop:
            break
        got = certify(m, o, q, q2)
        if got is None:
            continue
        lo = lower_float(got[0])
        if not math.isfinite(lo) or lo <= best[0]:
            continue
        best = (lo, Witness(lower_float=lo, scores=tuple(map(str, q)), neighbour_scores=tuple(map(str, q2)),
                            output=got[1], arithmetic=f"ball:{_PREC}",
                            note=(f"coupling-aligned tail witness on n = {n}: {how}; the ratio approaches the "
                                  f"coupling bound as L grows")))
        if target is not None and target - lo <= tolerance * max(1.0, abs(target)):
            break
    return best[1]


def noisy_max_witness(m: AnyMechanism, n: int, relation: str, spread: int = 64) -> Witness | None:
    """Report noisy max's tail witness: candidate 0 far below the others (``q = (0, L, …, L)``, L =
    ``spread`` noise scales), moved down by Δ while the others move up (ALL_DIFFER; only candidate 0
    moves on monotone and ONE_DIFFER neighbours). Conditioning on the other noises (Dwork & Roth 2014
    Claim 3.9), ``Pr[win] = E[S(x)]`` with x pushed into the noise's right tail, where ``log S`` falls at
    its largest hazard rate: the log-ratio approaches ``shift·h/b`` (= ε at b = 2Δ/ε) as L grows.
    Enclosed from the mechanism's own ball pmf."""
    delta, b = Real.of(m.sensitivity), Real.of(m.noise_scale())
    if not (delta.is_rational and b.is_rational) or n < 2 or relation not in ("all-differ", "monotone", "one-differ"):
        return None
    d, L = delta.value, b.value * spread
    q = [Fraction(0)] + [L] * (n - 1)
    q2 = [-d] + [x + (d if relation == "all-differ" else 0) for x in q[1:]]
    try:
        with ball_context(_PREC):
            p1, p2 = m.pmf(q, f"ball:{_PREC}").values[0], m.pmf(q2, f"ball:{_PREC}").values[0]
            if not (p1 > 0 and p2 > 0):
                return None
            lo = math.nextafter(float((p1.log() - p2.log()).lower()), -math.inf)
    except (ValueError, ArithmeticError, ZeroDivisionError):
        return None
    if not (math.isfinite(lo) and lo > 0):
        return None
    return Witness(lower_float=lo, scores=tuple(map(str, q)), neighbour_scores=tuple(map(str, q2)), output=0,
                   arithmetic=f"ball:{_PREC}",
                   note=f"noisy-max tail witness on n = {n}: candidate 0 at a gap L = {L} ({spread} noise scales) below "
                        f"the others; the ratio approaches the coupling bound as L grows")
