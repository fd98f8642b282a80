"""Certified pure ε-DP for mechanisms with a finite output space (sparse-vector patterns, …).

For every pair ``(q, q')`` of a query family (:func:`~.query_neighbourhoods.query_pairs`) and
*every* output ``a`` of ``mechanism.outputs(n)`` (both orders of the pair):

    Pr[M(q) = a]  <=  e^ε · Pr[M(q') = a] ?

1. **screening** — one uncertified float log-pmf per vector (``screen_logpmf`` when the
   mechanism offers one, else ``logpmf``); triples are ranked by their float log-ratio;
2. **refutation** — the head of the ranking is decided in ball arithmetic *one output at a
   time* (``pattern_probability``); a violation is re-checked from scratch at 256 bits (exact
   ``Q[exp(Q)]`` arithmetic when the ball cannot separate) before it is reported;
3. **certification** — otherwise every triple is decided: ball first, exact sign of
   ``P(q)_a - e^ε P(q')_a`` (:class:`~dpexact.numbers.exp_sum.ExpSum`) when the ball straddles 0.

The output space is enumerated completely, so a private verdict covers every output for every
pair of the family; nothing is claimed for other inputs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ...numbers.backends import ball_context, get_backend
from ...numbers.real import Real
from ...protocols import ExactDifferenceSign, ExactPatternValue, Mechanism, NoiseScales, ScreenLogpmf, Thresholded, ValueLoss, claimed_epsilon, noise_unit
from ..decide.counterexample import Recheck
from ...mechanisms.query_neighbourhoods import query_pairs, relation_neighbourhood
from ..verdict import Scope, Verdict, build_verdict
from ..options import honours
from ...schemas.numbers import list_with_exact

__all__ = ["PatternCounterexample", "verify_patterns", "decide_output"]

Vector = tuple[Fraction, ...]
#: pairs screened between two refutation attempts
CHUNK = 24


@dataclass(frozen=True)
class PatternCounterexample:
    """Neighbours ``q ~ q'`` and an output (label) with ``Pr[M(q)=a] > e^ε Pr[M(q')=a]``."""

    mechanism: Mechanism
    neighbourhood: Any
    scores: Vector
    neighbour_scores: Vector
    output: Any
    log_ratio_lo: float
    log_ratio_hi: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "scores": [str(x) for x in self.scores],
            "neighbour_scores": [str(x) for x in self.neighbour_scores],
            "output": self.output,
            **list_with_exact("log_ratio", [self.log_ratio_lo, self.log_ratio_hi]),
            "epsilon": str(Real.of(claimed_epsilon(self.mechanism))),
        }

    def recheck(self, backend: str = "ball", prec: int = 256) -> Recheck:
        """Recompute both probabilities from scratch and prove the violation (ball at ``prec``, or exact)."""
        be = get_backend(backend)
        m = self.mechanism
        nb = bool(self.neighbourhood.contains(self.scores, self.neighbour_scores))
        eps = Real.of(m.epsilon)
        with ball_context(prec):
            p1 = m.pattern_probability(list(self.scores), self.output, f"ball:{prec}")
            p2 = m.pattern_probability(list(self.neighbour_scores), self.output, f"ball:{prec}")
            E, _ = _bound(m, self.scores, self.neighbour_scores, self.output, eps.to_arb(prec).exp(), prec)
            D = p1 - E * p2
            lo, hi = _log_enclosure(p1, p2)
            proved = bool(D.lower() > 0)
        if be.is_ball or proved:
            return Recheck(proved and nb, f"ball:{prec}", lo, hi, float(eps), nb, "" if proved else "ball cannot separate")
        s = _exact_difference_sign(m, self.scores, self.neighbour_scores, self.output)
        return Recheck(s == 1 and nb, "exact", lo, hi, float(eps), nb, "" if s is not None else "no exact sign")


def _log_enclosure(p1: Any, p2: Any) -> tuple[float, float]:
    if not (p2 > 0):
        return (math.inf if p1 > 0 else -math.inf), math.inf
    if not (p1 > 0):
        return -math.inf, float((p1.upper() / p2.lower()).log().upper()) if p1.upper() > 0 else -math.inf
    lr = p1.log() - p2.log()
    return float(lr.lower()), float(lr.upper())


def _exact_difference_sign(m: Mechanism, q: Vector, q2: Vector, output: Any) -> int | None:
    """Exact sign of ``P(q)_a - e^ε P(q')_a`` in Q[exp(Q)] (None when ε or the law is not rational)."""
    from ...numbers.exp_sum import ExpSum

    eps = Real.of(m.epsilon)
    if isinstance(m, ValueLoss):
        eps = eps - m.value_loss(q, q2, output)
    if isinstance(m, ExactDifferenceSign):  # e.g. a selection mechanism with an exact backend
        return m.exact_difference_sign(q, q2, output, eps)
    if not eps.is_rational or not isinstance(m, ExactPatternValue):
        return None
    try:
        a = m.exact_pattern_value(list(q), output)
        b = m.exact_pattern_value(list(q2), output)
    except ValueError:
        return None
    return (a - ExpSum.exp(eps.value) * b).sign()


def _bound(m: Mechanism, q: Vector, q2: Vector, output: Any, E: Any, prec: int) -> tuple[Any, Any]:
    """``(e^{ε - loss} ball, ε - loss exact)`` with ``loss = m.value_loss(q, q', a)`` (0 if the mechanism releases no values)."""
    eps = Real.of(m.epsilon)
    if not isinstance(m, ValueLoss):
        return E, eps
    budget = eps - m.value_loss(q, q2, output)
    with ball_context(prec):
        return budget.to_arb(prec).exp(), budget


def decide_output(m: Mechanism, p1: Any, p2: Any, E: Any, q: Vector, q2: Vector, output: Any, prec: int = 128) -> tuple[str, float, float, str]:
    """``("le" | "gt" | "undecided", log-ratio lo, hi, arithmetic)`` for one triple from two balls.

    The bound is ``e^ε``, or ``e^{ε - loss}`` for a mechanism that also releases values
    (``value_loss``, e.g. :mod:`dpexact.mechanisms.sparse_vector.numerical`).
    """
    E, _ = _bound(m, q, q2, output, E, prec)
    D = p1 - E * p2
    lo, hi = _log_enclosure(p1, p2)
    if D.upper() <= 0:
        return "le", lo, hi, "ball"
    if D.lower() > 0:
        return "gt", lo, hi, "ball"
    s = _exact_difference_sign(m, q, q2, output)
    if s is None:
        return "undecided", lo, hi, "none"
    return ("le" if s <= 0 else "gt"), lo, hi, "exact"


def _noise_scale(m: Mechanism) -> Fraction:
    """The unit of the query pairs' levels: the largest of a threshold law's scales, else the one rule
    :func:`~dpexact.protocols.noise_unit`."""
    scales = [b for b in m.noise_scales() if b is not None] if isinstance(m, NoiseScales) else [noise_unit(m)]
    return max(Real.of(b).to_fraction() if Real.of(b).is_rational else Fraction(Real.of(b).to_float()) for b in scales)


def pattern_pairs(mechanism: Mechanism, n: int, relation: str, pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]] | None = None
                  ) -> tuple[list[tuple[Vector, Vector]], Any, str]:
    """The pair family of a finite-output mechanism (:func:`query_pairs` around its threshold, in
    units of its largest noise scale), or ``pairs`` checked against the relation; with the
    neighbourhood and a one-line description of the family."""
    delta = Real.of(mechanism.sensitivity).to_fraction()
    nb = relation_neighbourhood(relation, delta)
    if pairs is None:
        thr = Real.of(mechanism.threshold if isinstance(mechanism, Thresholded) else 0)
        T = thr.to_fraction() if thr.is_rational else Fraction(thr.to_float())
        pair_list = query_pairs(n, delta, T, _noise_scale(mechanism), relation)
        return pair_list, nb, f"query_pairs(n={n}, {relation}): constant levels T + L·s (s = largest noise scale) × offset shapes"
    from ..neighbourhoods import as_vector

    pair_list = [(as_vector(a), as_vector(b, "neighbour_scores")) for a, b in pairs]
    for a, b in pair_list:
        if not nb.contains(a, b):
            raise ValueError(f"pairs: {a} and {b} are not neighbours ({nb.describe()})")
    return pair_list, nb, "explicit pairs"


@honours("n", "relation")
def verify_patterns(
    mechanism: Mechanism,
    n: int = 10,
    relation: str = "all-differ",
    *,
    pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]] | None = None,
    certify_all: bool = True,
    top: int = 64,
    prec: int = 128,
    name: str | None = None,
) -> Verdict:
    """Verify pure ε-DP (ε = the claimed epsilon) of a finite-output mechanism on a pair family.

    Args:
        mechanism: offers ``outputs(n)``, ``pmf(q, "ball:…")``, ``pattern_probability``,
            ``noise_scales()``, ``threshold``, ``sensitivity`` (the sparse-vector family does).
        n: number of queries.
        relation: ``"all-differ"`` (StatDP ALL_DIFFER, ℓ∞ box), ``"one-differ"`` or ``"monotone"``
            (CheckDP INCREASING / DECREASING: every query moves the same way, :class:`MonotoneBox`).
        pairs: explicit pairs instead of :func:`query_pairs` (each must be in the relation).
        certify_all: decide every triple when no violation is found (needed for "private").
        top: screened triples tried for a refutation before full certification.
        prec: ball precision (bits).
    """
    t0 = time.perf_counter()
    pair_list, nb, family = pattern_pairs(mechanism, n, relation, pairs)
    outs = mechanism.outputs(len(pair_list[0][0]))
    scope = Scope(neighbourhood=nb.describe(), families={"pairs": len(pair_list)})
    scope.notes.append(family)
    scope.notes.append(f"every one of the {len(outs)} outputs enumerated for every pair, both orders")
    if isinstance(mechanism, ValueLoss):
        scope.notes.append("released values: exact sup of their log density ratio added per pattern (every output set)")
    eps = Real.of(mechanism.epsilon)
    eps_f = eps.to_float()
    screen = mechanism.screen_logpmf if isinstance(mechanism, ScreenLogpmf) else mechanism.logpmf
    logs: dict[Vector, np.ndarray] = {}
    with ball_context(prec):
        E = eps.to_arb(prec).exp()
    single: dict = {}

    def ball_of(v: Vector, out: Any) -> Any:
        if (v, out) not in single:
            single[(v, out)] = mechanism.pattern_probability(list(v), out, f"ball:{prec}")
        return single[(v, out)]

    counterexample = recheck = None
    worst_float = -math.inf
    tried = 0
    # screen in chunks and try to refute after each: a violation ends the search early
    c0, size = 0, 2
    while c0 < len(pair_list):
        chunk = pair_list[c0 : c0 + size]
        c0, size = c0 + size, min(2 * size, CHUNK)
        triples = []
        for a, b in chunk:
            for v in (a, b):
                if v not in logs:
                    logs[v] = np.asarray(screen([float(x) for x in v]), dtype=float)
            with np.errstate(invalid="ignore"):
                d = logs[a] - logs[b]
            d = np.where(np.isnan(d), 0.0, d)  # 0 vs 0: no violation possible, not a suspect
            for j in np.argsort(-np.abs(d))[:4]:
                triples.append((float(d[j]), a, b, int(j)) if d[j] >= 0 else (float(-d[j]), b, a, int(j)))
        triples.sort(key=lambda t: -t[0])
        if triples:
            worst_float = max(worst_float, triples[0][0])
        for lr, a, b, j in triples:
            if lr <= eps_f - 1e-6 * max(1.0, eps_f) or tried >= top:
                break
            tried += 1
            st, lo, hi, _ = decide_output(mechanism, ball_of(a, outs[j]), ball_of(b, outs[j]), E, a, b, outs[j], prec)
            if st == "gt":
                cx = PatternCounterexample(mechanism, nb, a, b, outs[j], lo, hi)
                rc = cx.recheck("exact", 256)
                if rc.proved:
                    counterexample, recheck = cx, rc
                    break
        if counterexample is not None:
            break
    decided_ball = decided_exact = undecided = n_triples = 0
    worst_hi, worst_triple = -math.inf, None
    undecided_list: list = []
    if counterexample is None and certify_all:
        full: dict[Vector, tuple] = {}

        def balls(v: Vector) -> tuple:
            if v not in full:
                full[v] = tuple(mechanism.pmf(list(v), f"ball:{prec}").values)
            return full[v]

        for a, b in pair_list:
            for x, y in ((a, b), (b, a)):
                px, py = balls(x), balls(y)
                for j, out in enumerate(outs):
                    n_triples += 1
                    st, lo, hi, how = decide_output(mechanism, px[j], py[j], E, x, y, out, prec)
                    if isinstance(mechanism, ValueLoss):  # report the full loss: pattern ratio + values' sup
                        extra = float(mechanism.value_loss(x, y, out).to_float())
                        lo, hi = lo + extra, hi + extra
                    if how == "exact":
                        decided_exact += 1
                    elif st != "undecided":
                        decided_ball += 1
                    if st == "undecided":
                        undecided += 1
                        if len(undecided_list) < 5:
                            undecided_list.append(([str(t) for t in x], [str(t) for t in y], out, lo, hi))
                    elif st == "le" and hi > worst_hi:
                        worst_hi, worst_triple = hi, (x, y, out)
                    elif st == "gt" and counterexample is None:
                        cx = PatternCounterexample(mechanism, nb, x, y, out, lo, hi)
                        rc = cx.recheck("exact", 256)
                        if rc.proved:
                            counterexample, recheck = cx, rc
                if counterexample is not None:
                    break
            if counterexample is not None:
                break
    scope.vectors = len(logs)
    scope.pairs = len(pair_list)
    scope.triples = n_triples
    scope.decided_ball, scope.decided_exact, scope.undecided = decided_ball, decided_exact, undecided
    if undecided_list:
        scope.notes.append(f"undecided triples (first {len(undecided_list)}): {undecided_list}")
    if counterexample is not None:
        kind, worst, wp = "violated", recheck.log_ratio_lo, counterexample.as_dict()
    elif certify_all and undecided == 0:
        kind, worst = "private-within-scope", worst_hi
        wp = None if worst_triple is None else {"scores": [str(x) for x in worst_triple[0]],
                                                "neighbour_scores": [str(x) for x in worst_triple[1]], "output": worst_triple[2]}
    else:
        kind, worst, wp = "inconclusive", worst_hi, None
    return build_verdict(mechanism, name=name, epsilon=eps, verdict=kind, scope=scope, worst_log_ratio=float(worst),
                         worst_float_log_ratio=float(worst_float), worst_pair=wp, counterexample=counterexample,
                         recheck=recheck, seconds=time.perf_counter() - t0)
