"""What a proof does to a verdict: ``private`` when its upper end is at most the claimed ε, else the
upper end of the bracket beside the search's certified witness (:mod:`..bracket`)."""

from __future__ import annotations

import math
from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, claimed_epsilon
from ..bracket import EpsilonBracket, Proof, Witness
from ..verdict import Scope, Verdict, build_verdict

__all__ = ["proves", "proved_verdict", "witness_of", "attach_bracket", "closed_by_search"]


def proves(proof: Proof, mechanism: AnyMechanism) -> bool:
    """``upper <= claimed ε``, compared exactly (the proof's ``upper`` is an exact expression), for a proof
    over the claim's whole input domain (:attr:`~..bracket.Proof.whole_domain`): a bound on a score box
    proves nothing about the claim."""
    if not proof.whole_domain:
        return False
    up = Real.of(proof.upper if proof.upper is not None else proof.upper_float, "upper")
    return (up - Real.of(claimed_epsilon(mechanism))).sign() <= 0


def proved_verdict(mechanism: AnyMechanism, proof: Proof, name: str | None, seconds: float,
                   witness: Witness | None = None) -> Verdict:
    """The ``private`` verdict of a proof whose upper end is at most ε, with the unit's certified
    ``witness`` (if it constructs one) as the bracket's lower end."""
    eps = Real.of(claimed_epsilon(mechanism))
    scope = Scope(neighbourhood=str(proof.domain.get("neighbourhood", "")), families={proof.method: 1})
    scope.notes.append(f"proved ({proof.method}{'; ' + proof.theorem if proof.theorem else ''}): log-ratio <= {proof.upper} "
                       f"<= ε = {eps} on {proof.scope_text}")
    if proof.details.get("statement"):
        scope.notes.append(str(proof.details["statement"]))
    v = build_verdict(mechanism, name=name, epsilon=eps, scope=scope, worst_log_ratio=proof.upper_float, seconds=seconds,
                      bracket=EpsilonBracket(lower=witness, upper=proof))
    if v.verdict != "private":  # proves() compared the same ends exactly
        raise AssertionError(f"{v.mechanism}: a proof <= ε whose bracket does not decide private ({v.reason})")
    return v


def witness_of(v: Verdict) -> Witness | None:
    """The certified lower end of a violated verdict: its re-checked counterexample."""
    if v.verdict != "violated" or v.counterexample is None or v.recheck is None or not v.recheck.proved:
        return None
    d = v.counterexample.as_dict()
    lo = v.recheck.log_ratio_lo
    unbounded = lo == math.inf
    if not unbounded:  # the re-check's float may be the ball's lower end rounded to nearest: one ulp down
        lo = math.nextafter(lo, -math.inf)
    output = {k: x for k, x in d.items() if k not in ("scores", "neighbour_scores", "log_ratio", "epsilon")}
    return Witness(lower_float=lo if not unbounded else math.inf, scores=tuple(str(x) for x in d.get("scores", ())),
                   neighbour_scores=tuple(str(x) for x in d.get("neighbour_scores", ())),
                   output=output.get("output", output), arithmetic=v.recheck.arithmetic, unbounded=unbounded,
                   note=v.recheck.note)


def attach_bracket(v: Verdict, proof: Proof | None, witness: Witness | None = None) -> Verdict:
    """Fill ``v.bracket``: the larger of the search's certified witness and ``witness`` below, ``proof``
    (an upper end above ε, or None) above. The verdict is kept: a violated verdict stays violated, and
    a proof that would decide has been used before the search."""
    lower = v.bracket.lower if v.bracket is not None and v.bracket.lower is not None else witness_of(v)
    if witness is not None and (lower is None or witness.lower_float >= lower.lower_float):
        lower = witness
    upper = v.bracket.upper if v.bracket is not None and v.bracket.upper is not None else proof
    if lower is None and upper is None:
        return v
    v.bracket = EpsilonBracket(lower=lower, upper=upper)
    if v.verdict not in ("violated", "private"):
        _, v.reason = v.bracket.decide(float(Real.of(v.epsilon).to_float()))
    return v


def closed_by_search(v: Verdict, proof: Proof | None) -> bool:
    """Whether the search's own certified witness already closes the bracket under ``proof``
    (:meth:`~..bracket.EpsilonBracket.closed`): no further witness needs to be constructed."""
    lower = v.bracket.lower if v.bracket is not None and v.bracket.lower is not None else witness_of(v)
    return lower is not None and EpsilonBracket(lower, proof).closed()
