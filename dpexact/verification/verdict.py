"""The verifier's answer: a verdict, the scope it covers and the evidence.

=========================  ==================================================================
verdict                    meaning
=========================  ==================================================================
``violated``               a counterexample re-checked in exact or ball arithmetic proves
                           ``Pr[M(q)=r] > e^ε Pr[M(q')=r]`` for neighbours ``q ~ q'``
``private-within-scope``   every (q, q', r) triple of the scope was *proved* (ball upper
                           bound or exact comparison) to satisfy ``<= e^ε``; nothing is
                           claimed outside the scope
``inconclusive``           neither: some triples could not be decided (e.g. ratio equal to
                           e^ε within the ball radius and no exact backend)
``private``                proved for every input of the claim's whole domain (every score
                           vector of the stated n, every neighbour, every output): the upper
                           end of the ε bracket (:mod:`.bracket`) is a proof over that
                           domain (:attr:`~.bracket.Proof.whole_domain`) and ``<= ε``; a
                           proof on a bounded score box gives ``private-within-scope``
``undecided``              the ε bracket straddles ε (or has no proved upper end and the
                           search found nothing): ``reason`` says why and how wide
=========================  ==================================================================

``bracket`` (when a verifier computes one) carries the certified witness below and the proof
above (:class:`~.bracket.EpsilonBracket`); it is emitted as ``epsilon_bracket`` in the JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..protocols import AnyMechanism
from .bracket import EpsilonBracket
from .decide.counterexample import Counterexample, Recheck

if TYPE_CHECKING:
    from .claim import Claim

__all__ = ["Verdict", "Scope", "VerdictKind", "build_verdict"]

VerdictKind = Literal["private", "private-within-scope", "violated", "undecided", "inconclusive"]


@dataclass
class Scope:
    """What was searched: families, vectors, neighbour pairs and triples, and how they were decided."""

    neighbourhood: str
    families: dict[str, int] = field(default_factory=dict)
    vectors: int = 0
    pairs: int = 0
    triples: int = 0
    decided_ball: int = 0
    decided_exact: int = 0
    undecided: int = 0
    local_search_starts: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Verdict:
    """Verdict with evidence (see the module docstring).

    ``worst_log_ratio`` is the largest certified lower bound of a log-ratio found (for
    ``violated``) or the largest certified upper bound over the scope (for
    ``private-within-scope``); ``worst_float_log_ratio`` is the float screening maximum.
    """

    mechanism: str
    params: dict
    epsilon: str
    verdict: VerdictKind
    scope: Scope
    worst_log_ratio: float
    worst_float_log_ratio: float
    worst_pair: dict | None
    counterexample: Counterexample | None
    recheck: Recheck | None
    seconds: float
    #: (ε, δ)-DP verdicts (:mod:`.approx_dp`): the claimed δ and the largest hockey-stick divergence
    #: δ(ε) over the scope (a certified lower bound when violated, a certified upper bound when private)
    delta: str | None = None
    worst_delta: float | None = None
    #: the ε bracket (certified witness below, proof above) when the verifier computed one
    bracket: EpsilonBracket | None = None
    #: why the verdict is what it is, when the bracket or the search needs saying (e.g. undecided)
    reason: str = ""
    #: the claim this verdict is about (set by the router, :mod:`.claim`); its replay record is read from it
    claim: Claim | None = field(default=None, repr=False, compare=False)

    @property
    def certified(self) -> bool:
        if self.verdict == "violated":
            return self.recheck is not None and self.recheck.proved
        return self.verdict in ("private", "private-within-scope")

    def as_dict(self) -> dict[str, Any]:
        from ..schemas.numbers import with_exact

        return {
            "mechanism": self.mechanism,
            "params": self.params,
            "epsilon": self.epsilon,
            "neighbourhood": self.scope.neighbourhood,
            "verdict": self.verdict,
            **with_exact("worst_log_ratio", self.worst_log_ratio),  # null + _exact "inf": an infinite ratio
            **with_exact("worst_float_log_ratio", self.worst_float_log_ratio),
            "worst_pair": self.worst_pair,
            "certified": self.certified,
            "recheck": None if self.recheck is None else {"arithmetic": self.recheck.arithmetic, "proved": self.recheck.proved},
            "scope": self.scope.as_dict(),
            "counterexample": None if self.counterexample is None else self.counterexample.as_dict(),
            "seconds": self.seconds,
            **({} if self.delta is None else {"delta": self.delta, **with_exact("worst_delta", self.worst_delta)}),
            **({} if self.bracket is None else {"epsilon_bracket": self.bracket.as_dict(),
                                                 "headline": self.bracket.headline(self.epsilon)}),
            **({"reason": self.reason} if self.reason else {}),
        }


def build_verdict(mechanism: AnyMechanism, *, epsilon: Any, scope: Scope, seconds: float,
                  verdict: VerdictKind | None = None, bracket: EpsilonBracket | None = None, name: str | None = None,
                  worst_log_ratio: float = -math.inf, worst_float_log_ratio: float | None = None,
                  worst_pair: dict | None = None, counterexample: Counterexample | None = None,
                  recheck: Recheck | None = None, delta: Any = None, worst_delta: float | None = None,
                  reason: str = "") -> Verdict:
    """The one way a verifier states its :class:`Verdict`.

    ``mechanism`` gives the name (``name`` overrides it: the registry name the user typed) and the
    parameters; ``epsilon`` is the ε the verdict is about (the claimed one), recorded as its exact string;
    ``delta`` likewise for (ε, δ) verdicts. ``verdict`` is the search's kind; when it is None the kind is
    derived from ``bracket`` (:meth:`~.bracket.EpsilonBracket.decide_exact`, exact comparisons with
    ``epsilon``), whose reason is used unless ``reason`` is given. ``worst_float_log_ratio`` defaults to
    ``worst_log_ratio`` (a verifier without a float screen)."""
    if verdict is None:
        if bracket is None:
            raise ValueError("build_verdict: give the verdict or the bracket it follows from")
        verdict, why = bracket.decide_exact(epsilon)
        reason = reason or why
    return Verdict(mechanism=name or mechanism.short_name, params=mechanism.params(), epsilon=str(epsilon),
                   verdict=verdict, scope=scope, worst_log_ratio=worst_log_ratio,
                   worst_float_log_ratio=worst_log_ratio if worst_float_log_ratio is None else worst_float_log_ratio,
                   worst_pair=worst_pair, counterexample=counterexample, recheck=recheck, seconds=seconds,
                   delta=None if delta is None else str(delta), worst_delta=worst_delta, bracket=bracket,
                   reason=reason)
