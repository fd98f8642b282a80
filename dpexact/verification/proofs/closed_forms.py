"""Verdicts from closed forms: mechanisms whose exact privacy level is a formula of their parameters.

A mechanism states its level through its privacy map (:class:`~dpexact.protocols.PrivacyMap`, as
OpenDP's measurements carry theirs): the exact level for n queries and a witness output set whose
log-ratio is computed from the *law*. :class:`ClosedForm` compares both with the claimed ε:

* ``violated`` when the witness's log-ratio, enclosed in ball or exact arithmetic, exceeds ε (the
  formula is re-checked against the law, never trusted alone);
* ``private-within-scope`` when the exact level is at most ε (the domain is the map's: every pair and
  every output set of the stated relation — the proof units of :mod:`dpexact.verification.proofs` turn such a
  level into ``private`` with its bracket);
* ``inconclusive`` otherwise (a level above ε that the witness does not certify).

=============================  ===============================================  ==========================
mechanism                      level (its ``privacy_map``)                      covers
=============================  ===============================================  ==========================
additive Laplace (laplace,     ``sup ‖q̃ - q̃'‖₁ / b`` (density-ratio theorem)    every pair, every output set
noisy-hist, prefix/partial)
truncated-geometric            exhaustive exact ratios (rational pmf)            every pair of counts, output
rappor, one-time-rappor        factorised per-bit loss                           every pair, all 2^k outputs
smart-sum                      ``max_j ‖D e_j‖₁ Δ/b``; bad: a probability-1 event every pair, every output set
=============================  ===============================================  ==========================
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, Neighbourhood, PrivacyLevel, PrivacyMap, claimed_epsilon
from ..verdict import Verdict, build_verdict

__all__ = ["closed_form_verdict", "ClosedForm"]


@dataclass(frozen=True)
class _Witness:
    """The privacy map's witness as a counterexample (``as_dict`` as every verdict's)."""

    level: PrivacyLevel
    claim: Real
    log_ratio_lo: float
    log_ratio_hi: float

    def as_dict(self) -> dict[str, Any]:
        return {"scores": [str(x) for x in self.level.scores],
                "neighbour_scores": [str(x) for x in self.level.neighbour_scores], **self.level.event,
                "log_ratio": [self.log_ratio_lo, self.log_ratio_hi], "epsilon": str(self.claim)}


def _enclose(log_ratio: Any, claim: Real) -> tuple[bool, float, float]:
    """``(certified > claim, lo, hi)`` of a witness log-ratio: an exact Real (compared exactly), ``math.inf``,
    or an arb ball (its lower end above the claim's upper end)."""
    from ...numbers.backends import ball_context

    if isinstance(log_ratio, float) and log_ratio == math.inf:
        return True, math.inf, math.inf
    with ball_context(256):
        if isinstance(log_ratio, Real):
            ball = log_ratio.to_arb(256)
            return (log_ratio - claim).sign() > 0, float(ball.lower()), float(ball.upper())
        return bool(log_ratio.lower() > claim.to_arb(256).upper()), float(log_ratio.lower()), float(log_ratio.upper())


def closed_form_verdict(m: PrivacyMap, n: int | None = None, relation: str | None = None, name: str | None = None,
                        neighbourhood: Neighbourhood | None = None) -> Verdict:
    """The verdict of ``m``'s privacy map against its claimed ε (module docstring). Only the arguments the
    map declares in ``privacy_map_options`` are passed on; the router refuses the others before any work."""
    from ..decide.counterexample import Recheck
    from ..verdict import Scope

    t0 = time.perf_counter()
    opts = m.privacy_map_options  # the others stay at the protocol's default, None
    pl = m.privacy_map(n=n if "n" in opts else None, relation=relation if "relation" in opts else None,
                       neighbourhood=neighbourhood if "neighbourhood" in opts else None)
    claim = Real.of(claimed_epsilon(m))
    violated, lo, hi = _enclose(pl.log_ratio, claim)
    level_f = math.inf if pl.level == math.inf else float(pl.level.to_float())
    private = pl.level != math.inf and (pl.level - claim).sign() <= 0
    scope = Scope(neighbourhood=pl.neighbourhood, families=dict(pl.families), pairs=pl.pairs, triples=pl.triples,
                  decided_exact=pl.exact_triples)
    scope.notes.extend(pl.notes)
    cx = _Witness(pl, claim, lo, hi)
    rc = Recheck(True, pl.arithmetic, lo, hi, float(claim.to_float()), True) if violated else None
    from ...protocols import mechanism_size

    bracket = _bracket(pl, lo, n if n is not None else mechanism_size(m))
    # the map's level is the mechanism's own statement (a formula), not a proof against its law: only
    # the witness, whose log-ratio is computed from the law, is certified; the upper end is a proof's,
    # on the neighbourhood asked for, where one applies (the density-ratio theorem), else unknown
    kind = "violated" if violated else ("private-within-scope" if private else "inconclusive")
    stated = "∞" if pl.level == math.inf else str(pl.level)
    reason = (f"the mechanism's privacy map states the level {stated}; its witness's log-ratio, computed from the "
              f"law, is the certified lower end; the map's formula is not a proof against the law, so the upper end "
              f"is unknown")
    proved = _proof_on(m, pl, neighbourhood)
    if proved is not None:
        from ..bracket import EpsilonBracket

        proof, w = proved
        lower = w if w is not None and (bracket.lower is None or w.lower_float >= bracket.lower.lower_float) else bracket.lower
        bracket = EpsilonBracket(lower, proof)
        reason = (f"the mechanism's privacy map states the level {stated}; the {proof.method} theorem proves it on "
                  f"{neighbourhood.describe()} (upper end) and its witness, computed from the law, is the lower end")
        if not violated and (Real.of(proof.upper) - claim).sign() <= 0:
            kind = "private"
    return build_verdict(m, name=name, epsilon=claim, verdict=kind, scope=scope, bracket=bracket,
                         reason=reason,
                         worst_log_ratio=lo if violated else level_f, worst_float_log_ratio=lo,
                         worst_pair={k: x for k, x in cx.as_dict().items() if k not in ("log_ratio", "epsilon")},
                         counterexample=cx if violated else None, recheck=rc, seconds=time.perf_counter() - t0)


def _proof_on(m: AnyMechanism, pl: PrivacyLevel, neighbourhood: Neighbourhood | None) -> Any:
    """``(proof, witness)`` of the density-ratio theorem on the neighbourhood asked for, or None (no
    neighbourhood asked for: the proof units ran before this verdict on the mechanism's own)."""
    if neighbourhood is None:
        return None
    from .density_ratio import proof_on_neighbourhood

    return proof_on_neighbourhood(m, len(pl.scores), neighbourhood)


def _bracket(pl: PrivacyLevel, lo: float, n: int | None) -> Any:
    """The lower end from the privacy map's witness (its log-ratio computed from the law, certified);
    no upper end (the map's level is a formula the mechanism states, not a proof)."""
    from ..bracket import EpsilonBracket, Witness

    unbounded = lo == math.inf
    wlo = math.inf if unbounded else (math.nextafter(lo, -math.inf) if math.isfinite(lo) else lo)
    witness = None if not (unbounded or math.isfinite(wlo)) else Witness(
        lower_float=wlo, scores=tuple(str(x) for x in pl.scores), neighbour_scores=tuple(str(x) for x in pl.neighbour_scores),
        output=pl.event.get("output", pl.event), arithmetic=pl.arithmetic, unbounded=unbounded,
        lower=None if unbounded or not isinstance(pl.log_ratio, Real) else str(pl.log_ratio),
        note="the privacy map's witness, its log-ratio computed from the law")
    return EpsilonBracket(witness, None)


class ClosedForm:
    """Proof unit: a mechanism that states its exact level (:class:`~dpexact.protocols.PrivacyMap`)."""

    name = "closed form"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        return isinstance(mechanism, PrivacyMap)

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> None:
        """None: the level comes with its witness in the verdict this unit gives (:meth:`verdict`)."""
        return None

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> None:
        return None

    def verdict(self, mechanism: PrivacyMap, n: int | None, relation: str | None, name: str | None = None,
                neighbourhood: Neighbourhood | None = None) -> Verdict:
        return closed_form_verdict(mechanism, n, relation, name=name, neighbourhood=neighbourhood)

    def route(self, mechanism: PrivacyMap) -> tuple[frozenset[str], str]:
        """The verify options the mechanism's privacy map takes, and the route's name."""
        return frozenset(mechanism.privacy_map_options), "the closed-form verifier"
