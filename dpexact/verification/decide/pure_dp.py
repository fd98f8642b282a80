"""Pure ε-DP of a selection mechanism on a finite scope of score vectors (pf Definition 1).

    max_{q ~ q', r}  log( Pr[M(q) = r] / Pr[M(q') = r] )  <=  ε ?

``q`` runs over the given score vectors, ``q'`` over the neighbourhood's finite candidate set
(:mod:`.neighbourhoods`; for the infinite ℓ∞ box: vertices and lattice points, plus the
points found by local optimisation in :mod:`.search`), and both orders of every pair are
checked. The work is split in two:

1. **float screening** — one float64 log-pmf per distinct vector, every triple's log-ratio
   formed in numpy; triples are ranked by it;
2. **certification** (:mod:`.certified_ratio`) — the top of the ranking is decided first in
   ball / exact arithmetic (a violation stops the search with a re-checked
   :class:`~.counterexample.Counterexample`); if none is found, *every* triple is decided,
   and the scope is reported private only if all are proved ``<= e^ε``.

:func:`prop2_check` is pf Proposition 2's single-constraint test for *regular* mechanisms
(pf Definition 3): ``Pr[M(q)=r] >= e^{-ε} Pr[M(q + 2Δ e_r) = r]`` (``q + Δ e_r`` for monotone
qualities, pf Remark 1). It is sufficient for ε-DP only under regularity, which it assumes
(check it with :mod:`.regularity`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np

from ...numbers.backends import ball_context
from ...numbers.real import Real
from .certified_ratio import PairDecision, PmfCache, decide_pair
from .counterexample import Counterexample, Recheck
from ..neighbourhoods import Neighbourhood, as_vector, default_neighbourhood
from ...protocols import Mechanism

__all__ = ["ScopeResult", "check_pairs", "check_pure_dp", "prop2_check", "neighbour_pairs", "MAX_PAIRS"]

Vector = tuple[Fraction, ...]

#: guard on the number of (unordered) pairs one call may check
MAX_PAIRS = 2_000_000


@dataclass
class ScopeResult:
    """Everything :func:`check_pairs` learnt about one scope.

    Attributes:
        pairs, triples: counts checked (a triple is (q, q', r) in one order).
        worst_float: largest float log-ratio and its triple ``(q, q', r)``.
        worst_certified_hi: largest certified *upper* bound of a log-ratio over decided triples.
        counterexample, recheck: the first proved violation and its re-check.
        decided_ball, decided_exact, undecided: how the triples were decided.
        undecided_triples: up to 20 undecided triples with their log-ratio enclosures.
        certified_all: whether every triple was decided (only then may the scope be called private).
    """

    pairs: int = 0
    triples: int = 0
    vectors: int = 0
    worst_float: float = -math.inf
    worst_float_triple: tuple | None = None
    worst_certified_hi: float = -math.inf
    worst_certified_triple: tuple | None = None
    counterexample: Counterexample | None = None
    recheck: Recheck | None = None
    decided_ball: int = 0
    decided_exact: int = 0
    undecided: int = 0
    undecided_triples: list = field(default_factory=list)
    certified_all: bool = False
    seconds: float = 0.0


class _Vec(tuple):
    """A score vector that computes its hash once: caches keyed by vectors are looked up once per
    triple, and hashing a tuple of Fractions dominates large scopes otherwise. Equal to (and
    hashing like) the plain tuple."""

    def __new__(cls, items: Any) -> "_Vec":
        obj = super().__new__(cls, items)
        obj._h = tuple.__hash__(obj)
        return obj

    def __hash__(self) -> int:
        return self._h


def neighbour_pairs(vectors: Iterable[Sequence[Any]], neighbourhood: Neighbourhood, steps: int = 1) -> list[tuple[Vector, Vector]]:
    """Unordered neighbour pairs ``{q, q'}`` with ``q`` in ``vectors`` and ``q'`` a candidate neighbour.

    Equal vectors are returned as one shared object with a cached hash (:class:`_Vec`).
    """
    seen: set = set()
    out: list[tuple[Vector, Vector]] = []
    interned: dict = {}

    def canon(v: Vector) -> Vector:
        c = interned.get(v)
        if c is None:
            c = interned[v] = _Vec(v)
        return c

    for v in vectors:
        q = canon(as_vector(v))
        for q2 in neighbourhood.candidates(q, steps):
            q2 = canon(q2)
            key = (q, q2) if q <= q2 else (q2, q)
            if key not in seen:
                seen.add(key)
                out.append(key)
                if len(out) > MAX_PAIRS:
                    raise ValueError(f"scope: more than {MAX_PAIRS} neighbour pairs (reduce n, values or steps)")
    return out


def _screen(cache: PmfCache, pairs: list[tuple[Vector, Vector]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float log-ratio of every triple: arrays (log_ratio, pair index, signed output) — sign = order."""
    lr, idx, out = [], [], []
    for i, (a, b) in enumerate(pairs):
        la, _ = cache.logpmf(a)
        lb, _ = cache.logpmf(b)
        with np.errstate(invalid="ignore"):
            d = la - lb
        d = np.where(np.isnan(d), np.inf, d)  # -inf - -inf: undecided in float, keep for certification
        n = d.size
        lr.append(d)
        lr.append(-d)
        idx.append(np.full(2 * n, i))
        out.append(np.arange(n))
        out.append(-np.arange(n) - 1)
    if not lr:
        return np.empty(0), np.empty(0, dtype=int), np.empty(0, dtype=int)
    L = np.concatenate(lr)
    I = np.concatenate(idx)
    O = np.concatenate(out)
    # idx array was built per pair with 2n entries; align shapes
    return L, I, O


def _triple(pairs: list, i: int, o: int) -> tuple[Vector, Vector, int]:
    a, b = pairs[i]
    return (a, b, o) if o >= 0 else (b, a, -o - 1)


def check_pairs(
    mechanism: Mechanism,
    pairs: list[tuple[Vector, Vector]],
    neighbourhood: Neighbourhood,
    *,
    certify_all: bool = True,
    top: int = 64,
    prec: int = 128,
    cache: PmfCache | None = None,
    result: ScopeResult | None = None,
) -> ScopeResult:
    """Screen ``pairs`` in float, certify the most suspicious triples, then (optionally) all.

    Args:
        mechanism: any object with ``pmf(scores, backend)`` and ``epsilon`` (the *claimed* ε).
        pairs: unordered neighbour pairs (both orders are checked).
        neighbourhood: the relation the pairs come from (re-checked for a counterexample).
        certify_all: decide every triple when no violation is found (needed for a private verdict).
        top: at most this many suspicious triples (float log-ratio > ε - 1e-6·max(1, ε)) are
            certified first, in decreasing order; a proved violation ends the call.
        prec: ball precision in bits.
    """
    t0 = time.perf_counter()
    res = result if result is not None else ScopeResult()
    cache = cache if cache is not None else PmfCache(mechanism, prec)
    eps = Real.of(mechanism.epsilon)
    eps_f = eps.to_float()
    L, I, O = _screen(cache, pairs)
    res.pairs += len(pairs)
    res.triples += int(L.size)
    res.vectors = len(cache._float)
    if L.size:
        k = int(np.argmax(L))
        if L[k] > res.worst_float:
            res.worst_float = float(L[k])
            res.worst_float_triple = _triple(pairs, int(I[k]), int(O[k]))
    order = np.argsort(-L, kind="stable")
    with ball_context(prec):
        E = eps.to_arb(prec).exp()
    checked = np.zeros(L.size, dtype=bool)

    def decide(j: int) -> PairDecision:
        q, q2, r = _triple(pairs, int(I[j]), int(O[j]))
        d = decide_pair(cache, q, q2, r, E)
        checked[j] = True
        if d.arithmetic == "exact":
            res.decided_exact += 1
        elif d.status != "undecided":
            res.decided_ball += 1
        else:
            res.undecided += 1
            if len(res.undecided_triples) < 20:
                res.undecided_triples.append(([str(x) for x in q], [str(x) for x in q2], r, d.log_ratio_lo, d.log_ratio_hi))
        if d.status == "le" and d.log_ratio_hi > res.worst_certified_hi:
            res.worst_certified_hi = d.log_ratio_hi
            res.worst_certified_triple = (q, q2, r)
        if d.status == "gt" and res.counterexample is None:
            cx = Counterexample(mechanism, neighbourhood, q, q2, r, d.log_ratio_lo, d.log_ratio_hi)
            rc = cx.recheck("exact") if d.arithmetic == "exact" else cx.recheck("ball", max(prec, 256))
            if rc.proved:
                res.counterexample, res.recheck = cx, rc
        return d

    # 1. the suspicious head of the ranking (float log-ratio near or above ε)
    n_susp = int(np.sum(L > eps_f - 1e-6 * max(1.0, eps_f)))
    for j in order[: min(top, n_susp)]:
        decide(int(j))
        if res.counterexample is not None:
            res.seconds += time.perf_counter() - t0
            return res
    # 2. everything else
    if certify_all:
        for j in order:
            if not checked[j]:
                decide(int(j))
                if res.counterexample is not None:
                    break
        res.certified_all = res.counterexample is None and res.undecided == 0
    res.seconds += time.perf_counter() - t0
    return res


def check_pure_dp(
    mechanism: Mechanism,
    scores: Sequence[Any] | Sequence[Sequence[Any]],
    neighbourhood: Neighbourhood | None = None,
    steps: int = 1,
    prec: int = 128,
) -> ScopeResult:
    """Exact maximum privacy loss over a finite scope (pf Definition 1).

    ``scores`` is one vector or a list of vectors; neighbours are the neighbourhood's candidate
    set at lattice resolution ``steps`` (ℓ∞ box: ``z_a ∈ {kΔ_a/steps}``). Returns a
    :class:`ScopeResult`; the scope is private iff ``certified_all`` and no counterexample.
    """
    items = list(scores)
    if not items:
        raise ValueError("scores must not be empty")
    vectors = [items] if not isinstance(items[0], (list, tuple, np.ndarray)) else items
    nb = neighbourhood if neighbourhood is not None else default_neighbourhood(mechanism)
    return check_pairs(mechanism, neighbour_pairs(vectors, nb, steps), nb, prec=prec)


def prop2_check(mechanism: Mechanism, scores: Sequence[Sequence[Any]], prec: int = 128) -> ScopeResult:
    """pf Proposition 2 (regular mechanisms): ``Pr[M(q)=r] >= e^{-ε} Pr[M(q + 2Δ e_r)=r]`` for all r.

    Uses ``q + Δ e_r`` when the mechanism's neighbourhood is the monotone box (pf Remark 1). Sufficient for ε-DP on the
    ℓ∞ box *only if the mechanism is regular* (pf Definition 3), which is assumed here.
    The triples are (q + sΔ e_r, q, r), so a "violation" is a refutation of Proposition 2's
    condition (and, for a regular mechanism, of ε-DP, since ``q + 2Δe_r`` is shift-equivalent
    to the box vertex ``q + Δ(2e_r - 1)``).
    """
    from ..neighbourhoods import LInfBox, MonotoneBox

    s = 1 if isinstance(default_neighbourhood(mechanism), MonotoneBox) else 2
    delta = Real.of(mechanism.sensitivity).to_fraction()
    pairs = []
    for v in scores:
        q = as_vector(v)
        for r in range(len(q)):
            q2 = q[:r] + (q[r] + s * delta,) + q[r + 1 :]
            pairs.append((q2, q, r))
    cache = PmfCache(mechanism, prec)
    res = ScopeResult()
    nb = LInfBox(s * delta)  # the pair (q + sΔe_r, q) is a neighbour in the box of radius sΔ
    with ball_context(prec):
        E = Real.of(mechanism.epsilon).to_arb(prec).exp()
    t0 = time.perf_counter()
    for q2, q, r in pairs:
        res.pairs += 1
        res.triples += 1
        lf = cache.logpmf(q2)[0][r] - cache.logpmf(q)[0][r]
        if lf > res.worst_float:
            res.worst_float, res.worst_float_triple = float(lf), (q2, q, r)
        d = decide_pair(cache, q2, q, r, E)
        if d.status == "undecided":
            res.undecided += 1
        elif d.arithmetic == "exact":
            res.decided_exact += 1
        else:
            res.decided_ball += 1
        if d.status == "le" and d.log_ratio_hi > res.worst_certified_hi:
            res.worst_certified_hi, res.worst_certified_triple = d.log_ratio_hi, (q2, q, r)
        if d.status == "gt" and res.counterexample is None:
            cx = Counterexample(mechanism, nb, q2, q, r, d.log_ratio_lo, d.log_ratio_hi)
            rc = cx.recheck("exact" if d.arithmetic == "exact" else "ball", max(prec, 256))
            if rc.proved:
                res.counterexample, res.recheck = cx, rc
    res.vectors = len(cache._float)
    res.certified_all = res.counterexample is None and res.undecided == 0
    res.seconds = time.perf_counter() - t0
    return res
