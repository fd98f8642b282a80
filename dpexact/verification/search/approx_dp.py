"""(ε, δ)-DP of a finite-output mechanism over a scope of neighbour pairs, certified.

A mechanism is (ε, δ)-DP on a set of neighbour pairs iff for every ordered pair (q, q') and every
set S of outputs ``Pr[M(q) ∈ S] <= e^ε Pr[M(q') ∈ S] + δ``. The worst S is
``{y : P(y) > e^ε Q(y)}``, so the condition is on the hockey-stick divergence (adp §2, Def. 1;
:mod:`.hockey_stick`)

    δ_{q,q'}(ε) = H_{e^ε}(P || Q) = Σ_y max(0, P(y) − e^ε Q(y)) <= δ.

The verifier takes the scope's pairs (the score families of :func:`.search.scope_plan` for a
selection mechanism, the query-pair family of :func:`.patterns.pattern_pairs` for a
sparse-vector pattern law), computes H in ball arithmetic for both orders of every pair and:

* ``violated`` — some H is certainly above δ; re-checked from scratch (exact pmfs when the
  mechanism has them, else balls at 256 bits), the counterexample names the pair and the event S;
* ``private-within-scope`` — every H is certainly at most δ (balls, or exact when a ball
  straddles δ); nothing is claimed outside the scope;
* ``inconclusive`` — some H could not be separated from δ.

A ``continuous`` mechanism with a box law (or an ``interval`` one, seen as a one-interval box
law) gets the box search of
:func:`.boxes.verify_continuous_boxes` instead (boxes and tails of its box coordinates):
refutation only, and its ``worst_delta`` is a certified *lower* bound of δ(ε).

``worst_delta`` is the scope's privacy profile at ε: the largest δ_{q,q'}(ε) found (its
certified lower bound when violated, its certified upper bound otherwise); ``worst_log_ratio``
is the pure-DP loss of the scope seen by the float screen (what ε would be needed at δ = 0).
With δ = 0 the verdict agrees with the pure-DP verifier on the same pairs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ...numbers.backends import ball_context, exact_sympy
from ...numbers.real import Real
from ...mechanisms.base import MechanismCrash
from ...protocols import (FINITE_KINDS, REAL_KINDS, SELECTION_KINDS, AnyMechanism, FiniteDomain, Neighbourhood, box_law,
                          claimed_epsilon)
from ..decide.counterexample import Recheck
from ...accounting.hockey_stick import hockey_stick
from ..claim import Claim, Request, parse_delta
from ..verdict import Scope, Verdict, build_verdict
from ...schemas.numbers import list_with_exact

__all__ = ["ApproxCounterexample", "verify_approx_dp", "verify_approx", "APPROX_SEARCHES", "approx_search"]

#: a progress callback: (kind, text)
Report = Callable[[str, str], None]

Vector = tuple


@dataclass(frozen=True)
class ApproxCounterexample:
    """Neighbours and the event ``S = {y : P(y) > e^ε Q(y)}`` with ``P(S) − e^ε Q(S) > δ``."""

    mechanism: AnyMechanism
    neighbourhood: Any
    scores: Vector
    neighbour_scores: Vector
    event: tuple
    hockey_lo: float
    hockey_hi: float
    delta: str

    def as_dict(self) -> dict[str, Any]:
        shown = [str(o) for o in self.event[:20]]
        return {"scores": [str(x) for x in self.scores], "neighbour_scores": [str(x) for x in self.neighbour_scores],
                "output": f"the event S of {len(self.event)} outputs where Pr[M(q)=y] > e^ε Pr[M(q')=y]",
                "event": shown + (["…"] if len(self.event) > 20 else []),
                **list_with_exact("hockey_stick", [self.hockey_lo, self.hockey_hi]), "log_ratio": None,
                "epsilon": str(Real.of(claimed_epsilon(self.mechanism))), "delta": self.delta}

    def recheck(self, prec: int = 256) -> Recheck:
        """Recompute both pmfs from scratch (exact when the mechanism has an exact backend, else
        balls at ``prec`` bits) and prove ``H_{e^ε}(P || Q) > δ``."""
        m = self.mechanism
        nb = bool(self.neighbourhood.contains(self.scores, self.neighbour_scores))
        eps = Real.of(claimed_epsilon(m))
        d = Real.of(self.delta)
        try:
            P = m.pmf(list(self.scores), backend="exact").values
            Q = m.pmf(list(self.neighbour_scores), backend="exact").values
            h = Real.of(exact_sympy(hockey_stick(P, Q, eps, "exact")))
            proved, how = (h - d).sign() > 0, "exact"
            lo = hi = h.to_float()
        except (ValueError, TypeError, NotImplementedError, ArithmeticError):
            P = m.pmf(list(self.scores), backend=f"ball:{prec}").values
            Q = m.pmf(list(self.neighbour_scores), backend=f"ball:{prec}").values
            h = hockey_stick(P, Q, eps, "ball", prec)
            with ball_context(prec):
                proved = bool(h.lower() > d.to_arb(prec).upper())
            how, lo, hi = f"ball:{prec}", float(h.lower()), float(h.upper())
        return Recheck(proved and nb, how, lo, hi, float(eps.to_float()), nb, "" if proved else "not separated")


def verify_approx_dp(mechanism: AnyMechanism, pairs: Sequence[tuple[Vector, Vector]], neighbourhood: Neighbourhood | None, delta: Any, *,
                     prec: int = 128, name: str | None = None, families: dict | None = None,
                     notes: Sequence[str] = (), progress: Callable[[str, str], None] | None = None) -> Verdict:
    """(ε, δ)-DP, ε the claimed epsilon, on the given neighbour pairs (module docstring)."""
    t0 = time.perf_counter()
    report = progress or (lambda kind, text: None)
    d = parse_delta(delta)
    eps = Real.of(claimed_epsilon(mechanism))
    if not pairs:
        raise ValueError("pairs: the scope has no neighbour pairs")
    with ball_context(prec):
        d_up = d.to_arb(prec)
    outs = mechanism.outputs(len(pairs[0][0]))
    balls: dict = {}

    def pmf(v: Vector) -> list:
        if v not in balls:
            balls[v] = list(mechanism.pmf(list(v), backend=f"ball:{prec}").values)
        return balls[v]

    scope = Scope(neighbourhood=neighbourhood.describe(), families=dict(families or {}))
    scope.notes.extend(notes)
    worst_hi, worst_pair, worst_lr = -math.inf, None, -math.inf
    undecided: list = []
    cx = rc = None
    for i, (a, b) in enumerate(pairs):
        if i % 200 == 0:
            report("step", f"hockey-stick divergences: pairs {i + 1}-{min(i + 200, len(pairs))} of {len(pairs)}")
        for x, y in ((a, b), (b, a)):
            P, Q = pmf(x), pmf(y)
            h = hockey_stick(P, Q, eps, "ball", prec)
            scope.triples += len(P)
            hi = float(h.upper())
            if hi > worst_hi:
                worst_hi, worst_pair = hi, (x, y)
            with np.errstate(divide="ignore", invalid="ignore"):
                pm = np.array([float(v.mid()) for v in P])
                qm = np.array([float(v.mid()) for v in Q])
                lr = np.where(pm > 0, np.log(pm) - np.log(qm), -np.inf)
            worst_lr = max(worst_lr, float(np.max(lr)))
            with ball_context(prec):
                above = bool(h.lower() > d_up.upper())
                below = bool(h.upper() <= d_up.lower())
            if above:
                with ball_context(prec):
                    E = eps.to_arb(prec).exp()
                    event = tuple(o for o, p, q in zip(outs, P, Q) if (p - E * q).upper() > 0)
                cand = ApproxCounterexample(mechanism, neighbourhood, x, y, event, float(h.lower()), hi, str(d))
                check = cand.recheck()
                if check.proved:
                    cx, rc = cand, check
                    break
                undecided.append((x, y))
            elif below:
                scope.decided_ball += 1
            else:
                undecided.append((x, y))
        if cx is not None:
            break
    exact_failure = ""
    if cx is None and undecided:  # balls straddling δ: decide exactly where the mechanism allows
        left = []
        for x, y in undecided:
            try:
                P = mechanism.pmf(list(x), backend="exact").values
                Q = mechanism.pmf(list(y), backend="exact").values
                s = (Real.of(exact_sympy(hockey_stick(P, Q, eps, "exact"))) - d).sign()
            except (ValueError, TypeError, NotImplementedError, ArithmeticError) as exc:
                if isinstance(exc, (MechanismCrash, TypeError)) and not exact_failure:  # a defect: named, not silent
                    exact_failure = f"the exact pmf failed on scores {[str(v) for v in x]}: {str(exc)[:200]}"
                left.append((x, y))
                continue
            if s > 0:
                with ball_context(prec):
                    E = eps.to_arb(prec).exp()
                    event = tuple(o for o, p, q in zip(outs, pmf(x), pmf(y)) if (p - E * q).upper() > 0)
                cand = ApproxCounterexample(mechanism, neighbourhood, x, y, event, worst_hi, worst_hi, str(d))
                check = cand.recheck()
                if check.proved:
                    cx, rc = cand, check
                    break
            scope.decided_exact += 1
        undecided = left if cx is None else undecided
    scope.vectors, scope.pairs = len(balls), len(pairs)
    scope.undecided = len(undecided) if cx is None else 0
    scope.notes.append(f"(ε, δ) = ({eps}, {d}): hockey-stick divergence H_(e^ε)(P || Q) <= δ for both orders of every "
                       "pair (every output set at once: the worst set is {y : P(y) > e^ε Q(y)})")
    if cx is not None:
        kind, worst_delta, wp = "violated", rc.log_ratio_lo, cx.as_dict()
    elif not undecided:
        kind, worst_delta = "private-within-scope", worst_hi
        wp = None if worst_pair is None else {"scores": [str(v) for v in worst_pair[0]],
                                              "neighbour_scores": [str(v) for v in worst_pair[1]]}
    else:
        kind, worst_delta, wp = "inconclusive", worst_hi, None
    if exact_failure:
        scope.notes.append(exact_failure)
    reason = (f"{len(undecided)} pairs undecided in balls" + (f"; {exact_failure}" if exact_failure else "")
              if kind == "inconclusive" else "")
    return build_verdict(mechanism, name=name, epsilon=eps, verdict=kind, scope=scope, worst_log_ratio=worst_lr,
                         worst_pair=wp, counterexample=cx, recheck=rc, seconds=time.perf_counter() - t0, delta=d,
                         worst_delta=float(worst_delta), reason=reason)


class _ApproxSearch:
    """Shared by the (ε, δ) search units: ``supports(claim, request)``, ``honours(claim, request)`` (the
    options of :func:`dpexact.verify` it honours), ``run(claim, request, report)``; each applies when δ is set."""

    name = ""
    options: frozenset[str] = frozenset({"n", "relation", "delta"})

    def supports(self, claim: Claim, request: Request) -> bool:
        raise NotImplementedError

    def honours(self, claim: Claim, request: Request) -> frozenset[str]:
        return self.options


class ApproxBoxes(_ApproxSearch):
    """A real-valued law on boxes (an interval law as a one-box law): boxes and tails, refutation only."""

    name = "boxes and tails"

    def supports(self, claim: Claim, request: Request) -> bool:
        return claim.mechanism.output_kind in REAL_KINDS and box_law(claim.mechanism) is not None

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from .boxes import verify_continuous_boxes
        from ..neighbourhoods import query_relation

        m = claim.mechanism
        return verify_continuous_boxes(m, request.n if request.n is not None else 3, claim.relation or query_relation(m),
                                       name=claim.name or m.short_name, approx_delta=claim.delta, law=box_law(m))


class ApproxNone(_ApproxSearch):
    """Neither outputs to enumerate nor a box law: no (ε, δ) search (a one-line error)."""

    name = "none"

    def supports(self, claim: Claim, request: Request) -> bool:
        return claim.mechanism.output_kind not in FINITE_KINDS

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        raise TypeError(f"mechanism: (ε, δ) verification enumerates outputs or searches boxes of a continuous "
                        f"box law; output kind {claim.mechanism.output_kind!r} offers neither")


class ApproxInputDomain(_ApproxSearch):
    """A finite input domain the mechanism states (LDP channels, counts): every pair of it."""

    name = "every pair of the finite input domain"
    options = frozenset({"steps", "delta"})

    def supports(self, claim: Claim, request: Request) -> bool:
        own = claim.mechanism.neighbourhood() if claim.relation is None and claim.neighbourhood is None else None
        return isinstance(own, FiniteDomain) and bool(own.inputs)

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from ..decide.pure_dp import neighbour_pairs

        own = claim.mechanism.neighbourhood()
        pairs = neighbour_pairs(list(own.inputs), own, request.steps)
        return verify_approx_dp(claim.mechanism, pairs, own, claim.delta, prec=request.prec, name=claim.name,
                                families={"inputs": len(own.inputs)},
                                notes=["every neighbouring pair of the finite input domain"], progress=report)


class ApproxScoreFamilies(_ApproxSearch):
    """A selection claim on a score neighbourhood: the score families' pairs (without ``local``)."""

    name = "score families"
    options = frozenset({"neighbourhood", "searches", "n", "values", "steps", "delta"})

    def supports(self, claim: Claim, request: Request) -> bool:
        return claim.mechanism.output_kind in SELECTION_KINDS and claim.relation is None

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from ..neighbourhoods import default_neighbourhood
        from ..decide.pure_dp import neighbour_pairs
        from .selection import integer_scope, scope_plan

        m = claim.mechanism
        searches = [s for s in (request.searches or ("grid", "structured")) if s != "local"]
        nb = claim.neighbourhood if claim.neighbourhood is not None else default_neighbourhood(m)
        values = None if request.values is None else list(request.values)
        nb, plan = integer_scope(m, nb, scope_plan(m, searches, request.n, values))
        vecs = sorted({v for _, vs in plan for v in vs})
        pairs = neighbour_pairs(vecs, nb, request.steps)
        return verify_approx_dp(m, pairs, nb, claim.delta, prec=request.prec, name=claim.name,
                                families={fam: len(vs) for fam, vs in plan}, progress=report)


class ApproxQueryPairs(_ApproxSearch):
    """Every other finite-output claim: the query-pair families (the peers' for a selection mechanism)."""

    name = "query-pair families"

    def supports(self, claim: Claim, request: Request) -> bool:
        return True

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from .patterns import pattern_pairs

        m = target = claim.mechanism
        selection = m.output_kind in SELECTION_KINDS
        if selection:  # the peers' query-pair families for a selection mechanism
            from .selection_outputs import SelectionOutputs

            target = SelectionOutputs(m)
        n = request.n if request.n is not None else (5 if selection else 10)
        pairs, nb, family = pattern_pairs(target, n, claim.relation or "all-differ")
        return verify_approx_dp(m, pairs, nb, claim.delta, prec=request.prec, name=claim.name,
                                families={"pairs": len(pairs)}, notes=[family], progress=report)


#: the (ε, δ) searches in the order they are tried: the first that supports the claim runs
APPROX_SEARCHES: list[_ApproxSearch] = [ApproxBoxes(), ApproxNone(), ApproxInputDomain(), ApproxScoreFamilies(),
                                        ApproxQueryPairs()]


def approx_search(claim: Claim, request: Request) -> _ApproxSearch:
    """The first unit of :data:`APPROX_SEARCHES` that supports the claim (the last supports every claim)."""
    return next(u for u in APPROX_SEARCHES if u.supports(claim, request))


def verify_approx(mechanism: AnyMechanism, delta: Any, *, n: int | None = None, relation: str | None = None,
                  searches: Sequence[str] = ("grid", "structured"), values: Sequence[Any] | None = None,
                  steps: int = 1, neighbourhood: Neighbourhood | None = None, prec: int = 128, name: str | None = None,
                  progress: Callable[[str, str], None] | None = None) -> Verdict:
    """(ε, δ)-DP of ``mechanism`` on its own scope (module docstring): the search of
    :data:`APPROX_SEARCHES` that supports the claim, without the router's whole-space proof first."""
    claim = Claim(mechanism, Real.of(claimed_epsilon(mechanism)), parse_delta(delta), neighbourhood, relation, name)
    request = Request(n=n, searches=tuple(searches), values=None if values is None else tuple(values), steps=steps,
                      prec=prec)
    return approx_search(claim, request).run(claim, request, progress or (lambda kind, text: None))
