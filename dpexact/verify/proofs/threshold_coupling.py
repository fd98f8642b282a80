"""Certifying ε-DP of sparse-vector laws by shifting the threshold noise (a checked coupling).

For the sparse-vector family the law of an output ``o`` (a ⊤/⊥ pattern with released gaps) is

    f(o | q) = Σ_branches ∫ f_ρ(ρ) Π_i φ_i(x_i) dρ,      x_i = T + ρ - q_i,

where each ``φ_i`` is a product of Laplace probabilities of the query noises in a set that moves
with ``x_i`` (:meth:`coupling_terms` of :mod:`dpexact.mechanisms.sparse_vector.adaptive`). For a
neighbour ``q' = q + Δ`` substitute ``ρ -> ρ + s`` in its integral: ``x_i`` becomes ``x_i + t_i``
with ``t_i = s - Δ_i``, and pointwise in ρ

    f_ρ(ρ)/f_ρ(ρ + s) <= e^{|s|/b1},
    Pr[η < x + c] / Pr[η < x + t + c]            <= e^{max(0, -t)/b}      ("below", a ⊥ answer)
    Pr[η >= x + c] / Pr[η >= x + t + c]          <= e^{max(0, t)/b}       ("above", a ⊤ answer)
    Pr[η ∈ x + I] / Pr[η ∈ x + t + I]            <= e^{|t|/b}             ("window", a released gap)
    p_b(v - q_i) / p_b(v - q'_i)                 <= e^{|Δ_i|/b}           ("fixed", fresh noise)
    p_b(v - q_i)·1[ρ <= v - T] / (same at q'_i)  <= e^{|Δ_i|/b}, s = 0 only ("released": the ⊤ test's noise)

(Laplace densities are e^{1/b}-Lipschitz in log), so every branch term of ``f(o|q)`` is at most
``e^{B(s, Δ)}`` times the same term of ``f(o|q')``, ``B = |s|/b1 + Σ_i Σ_{factors} bound``, and so
is their sum. That is the proof of Lyu, Su & Li (VLDB 2017) Theorem 2 and of Ding et al. (VLDB
2020) — the "randomness alignment" CheckDP (Wang et al. CCS 2020) searches for — but *checked*
here for the mechanism's own factors in exact arithmetic, not assumed. A factor that depends on ρ
other than through ``x_i`` (``"opaque"``) gets
no bound, and the coupling proves nothing. A threshold redrawn after each ⊤ (Lyu et al.
Algorithm 2) makes the law a product over segments of such integrals, each with a shift of its own.

For ℓ∞ neighbourhoods (every ``Δ_i`` in ``[-Δ, Δ]``; for monotone neighbours each half
``[0, Δ]^n`` / ``[-Δ, 0]^n`` separately) ``B(s, ·)`` is convex and separable in Δ, so its maximum
over a box is the sum over queries of the maximum over each coordinate's end points; the shift s
is chosen from a grid per box (any s is a valid coupling). Hence a bound ``<= ε`` covers *every*
pair of neighbours and every output set, for the given number of queries — more than the
searched pair families of the pattern verifier. For ONE_DIFFER each moving coordinate and
direction is a box of its own.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from ...numbers.real import Real
from ...protocols import PART_KINDS, CouplingLaw, Mechanism, Neighbourhood
from ..verdict import Scope, Verdict, build_verdict
from ..options import honours

__all__ = ["CouplingBound", "coupling_bound", "verify_coupling", "factor_bound", "extend_by_coupling", "ThresholdCoupling"]

INF = math.inf


def _num(x: Any) -> Any:
    """An exact number for fast arithmetic: a Fraction when rational, else the Real."""
    r = Real.of(x)
    return r.value if r.is_rational else r


def factor_bound(term: tuple, t: Any, delta_i: Any) -> Any:
    """Log-ratio bound of one factor under the shift ``t = s - Δ_i`` (module docstring table).

    Exact (Fraction or :class:`Real`), or ``math.inf`` for an ``"opaque"`` factor.
    """
    kind = term[0]
    if kind == "opaque":
        return INF
    b = _num(term[1])
    if kind == "below":
        return (-t if t < 0 else 0) / b
    if kind == "above":
        return (t if t > 0 else 0) / b
    if kind == "window":
        return (t if t >= 0 else -t) / b
    if kind == "fixed":
        return (delta_i if delta_i >= 0 else -delta_i) / b
    if kind == "released":  # the test ρ <= v - T moves with any shift: only s = t + Δ_i = 0 aligns it
        return (delta_i if delta_i >= 0 else -delta_i) / b if t + delta_i == 0 else INF
    raise ValueError(f"unknown coupling factor {kind!r}")


def _inf(a: Any) -> bool:
    # only this module's INF is a float here (bounds are Fractions or Reals): no Fraction == float compare
    return type(a) is float and a == INF


def _add(a: Any, b: Any) -> Any:
    return INF if _inf(a) or _inf(b) else a + b


def _query_bound(factors: Sequence[tuple], s: Any, d: Any) -> Any:
    tot: Any = 0
    for f in factors:
        tot = _add(tot, factor_bound(f, s - d, d))
    return tot


def _max(a: Any, b: Any) -> Any:
    if _inf(a) or _inf(b):
        return INF
    return a if a >= b else b


@dataclass
class CouplingBound:
    """The largest coupling bound over the outputs, with the output and shift attaining it."""

    bound: Any  # Real, or math.inf
    output: str | None
    shift: Any
    outputs: int
    branch_terms: int
    per_output: list = field(default_factory=list)

    @property
    def finite(self) -> bool:
        return self.bound != INF


def _pieces(relation: str, delta: Fraction, n: int) -> list[list[list[Fraction]]]:
    """The relation as a union of boxes of offsets Δ, each given by its per-coordinate end points.

    ``B(s, ·)`` is convex on each box, so its maximum there is at the end points, coordinate by
    coordinate; a shift s is chosen per box (any s is a valid coupling for the pairs of that box).
    """
    zero = Fraction(0)
    if relation == "all-differ":
        return [[[-delta, delta]] * n]
    if relation == "monotone":
        return [[[zero, delta]] * n, [[-delta, zero]] * n]
    if relation == "one-differ":
        return [[[d] if i == j else [zero] for i in range(n)] for j in range(n) for d in (-delta, delta)]
    raise ValueError(f"relation must be 'all-differ', 'monotone' or 'one-differ', got {relation!r}")


def _shifts(delta: Fraction) -> list[Fraction]:
    return [delta * Fraction(k, 4) for k in range(-4, 5)]


def _branch_bound(terms: Any, b1: Any, relation: str, delta: Fraction) -> tuple[Any, Any]:
    """``max_box Σ_segments min_s max_{Δ ∈ box} B(s, Δ)`` for one branch sequence (module docstring).

    ``terms``: per query, its factors (one threshold noise of scale ``b1``), or ``{"segments":
    [(b, per-query factors), ...]}`` for a threshold redrawn between segments (each redraw is an
    independent noise with a shift of its own; the segments' queries are disjoint, so on a product
    box the bound is the sum of the segments' bounds).
    """
    segs = terms["segments"] if isinstance(terms, dict) else [(b1, terms)]
    # scales as exact Fractions where rational: the same numbers, without the Real wrapper's cost
    segs = [(_num(b), [[(f[0], _num(f[1])) if len(f) > 1 else f for f in q] for q in t]) for b, t in segs]
    n = sum(len(t) for _, t in segs)
    memo: dict = {}  # one query's worst cost depends on its factors, the shift and its box ends only
    worst: Any = 0
    worst_s = None
    for box in _pieces(relation, delta, n):
        total: Any = 0
        chosen = []
        at = 0
        for b, seg in segs:
            ends_seg, at = box[at : at + len(seg)], at + len(seg)
            best, best_s = INF, None
            for s in _shifts(delta):
                tot: Any = (s if s >= 0 else -s) / b
                for f, ends in zip(seg, ends_seg):
                    key = (tuple(f), s, tuple(ends))
                    per: Any = memo.get(key)
                    if per is None:
                        for d in ends:
                            v = _query_bound(f, s, d)
                            per = v if per is None else _max(per, v)
                        memo[key] = per
                    tot = _add(tot, per)
                    if _inf(tot):
                        break
                if not _inf(tot) and (_inf(best) or tot < best):
                    best, best_s = tot, s
            if _inf(best):
                return INF, None
            total = total + best
            chosen.append(best_s)
        if total > worst or worst_s is None:
            worst, worst_s = total, (chosen[0] if len(chosen) == 1 else "(" + ", ".join(map(str, chosen)) + ")")
    return worst, worst_s


def coupling_bound(mechanism: Mechanism, n: int, relation: str = "all-differ") -> CouplingBound:
    """The largest checked coupling bound over every output for n queries (module docstring)."""
    delta = Real.of(mechanism.sensitivity)
    if not delta.is_rational:
        raise ValueError("sensitivity: the coupling grid needs a rational Δ")
    delta_f = delta.value
    b1 = _num(mechanism.noise_scales()[0])
    worst: Any = 0
    where, shift, count, per = None, None, 0, []
    outs = mechanism.outputs(n)
    for o in outs:
        o_bound: Any = 0
        o_shift = None
        seqs = mechanism.coupling_terms(o, n)
        if seqs is None:  # the law is not stated in coupling factors: no proof
            return CouplingBound(INF, o, None, len(outs), count, per)
        for terms in seqs:
            count += 1
            bb, s = _branch_bound(terms, b1, relation, delta_f)
            if not _inf(o_bound) and (_inf(bb) or bb > o_bound):
                o_bound, o_shift = bb, s
        per.append((o, o_bound, o_shift))
        if _inf(o_bound) or (not _inf(worst) and o_bound > worst):
            worst, where, shift = o_bound, o, o_shift
        if _inf(worst):
            break
    return CouplingBound(worst, where, shift, len(outs), count, per)


@honours("n", "relation")
def verify_coupling(mechanism: Mechanism, n: int = 10, relation: str = "all-differ", name: str | None = None) -> Verdict | None:
    """``private-within-scope`` (certified) if the coupling bound is at most ε, else ``None``.

    ``None`` means the coupling proves nothing (it is an upper bound, not a refutation): run a
    refuting search instead.
    """
    t0 = time.perf_counter()
    cb = coupling_bound(mechanism, n, relation)
    eps = Real.of(mechanism.epsilon)
    if not cb.finite or cb.bound > eps:
        return None
    nb = {"all-differ": "every query moves by at most Δ (ALL_DIFFER, ℓ∞ box)",
          "monotone": "every query moves by at most Δ, all in the same direction (monotone)",
          "one-differ": "one query moves by at most Δ (ONE_DIFFER)"}[relation]
    scope = Scope(neighbourhood=nb, families={"outputs": cb.outputs, "branch_sequences": cb.branch_terms})
    scope.notes.append("threshold-shift coupling checked on the mechanism's own law factors: for every output pattern "
                       "(released values: every set of them) and EVERY pair of neighbours with these n queries, "
                       f"log(Pr[M(q) ∈ S]/Pr[M(q') ∈ S]) <= {cb.bound} (exact), worst at output {cb.output!r} "
                       f"with threshold shift s = {cb.shift}")
    scope.notes.append("worst_log_ratio is this upper bound (the coupling's), not an attained ratio")
    scope.triples = cb.branch_terms
    scope.decided_exact = cb.branch_terms
    bf = float(Real.of(cb.bound).to_float())
    return build_verdict(mechanism, name=name, epsilon=eps, verdict="private-within-scope", scope=scope,
                         worst_log_ratio=bf, worst_pair={"output": cb.output, "shift": str(cb.shift), "bound": str(cb.bound)},
                         seconds=time.perf_counter() - t0)


def extend_by_coupling(v: Verdict, mechanism: Mechanism, n: int, relation: str) -> None:
    """Add to a pattern verdict what the checked threshold-shift coupling proves beyond its pair family."""
    cb = coupling_bound(mechanism, n, relation)
    eps = Real.of(mechanism.epsilon)
    if cb.finite and not cb.bound > eps:
        v.scope.notes.append(f"beyond the pair family: a threshold-shift coupling checked on the law's factors proves "
                             f"log-ratio <= {cb.bound} <= ε for EVERY pair of neighbours and every output with n = {n} "
                             f"(worst at output {cb.output!r}, shift {cb.shift})")
        v.scope.families["coupling_every_pair"] = cb.outputs


class ThresholdCoupling:
    """Proof unit: a ``mixed`` sparse-vector law that states its factors (:class:`CouplingLaw`), for
    every pair of neighbours and every output set with n queries (default 10)."""

    name = "threshold-shift coupling"

    def supports(self, mechanism: Mechanism, n: int | None, relation: str | None) -> bool:
        # a finite pattern law stating its factors is searched first; the coupling then extends that verdict
        return mechanism.output_kind in PART_KINDS and isinstance(mechanism, CouplingLaw)

    def verdict(self, mechanism: Mechanism, n: int | None, relation: str | None, name: str | None = None,
                neighbourhood: Neighbourhood | None = None) -> Verdict | None:
        return verify_coupling(mechanism, n if n is not None else 10, relation or "all-differ", name=name)

    def route(self, mechanism: Mechanism) -> None:
        """No route of its own: the box search of the mixed kind runs when the coupling proves nothing."""
        return None

    def prove(self, mechanism: Mechanism, n: int | None, relation: str | None) -> None:
        """None: the coupling's bound comes with its witness in the verdict it gives (:meth:`verdict`)."""
        return None

    def witness(self, mechanism: Mechanism, n: int | None, relation: str | None) -> None:
        return None
