"""The ε bracket of a verdict: a certified witness below, a proof over a stated domain above.

For a mechanism M, a neighbouring relation ~ and a domain D of inputs, the *privacy level* is

    ε*(M, D) = sup_{q ~ q' in D, S} log( Pr[M(q) ∈ S] / Pr[M(q') ∈ S] ).

A verdict brackets it: ``lower <= ε* <= upper``.

* ``lower`` comes from a :class:`Witness` — neighbours ``q ~ q'`` and an output set ``S`` with
  ``log(P(S)/P'(S)) >= lower``, re-checked in exact or ball arithmetic. ``lower_float`` is rounded
  *down*, so it never exceeds the certified value.
* ``upper`` comes from a :class:`Proof` — a statement that holds for **every** input of
  ``domain`` (n, ε, neighbourhood, score box), by a named method (branch-and-bound, theorem,
  coupling, closed form, density ratio) and, where one is used, a cited theorem.
  ``upper_float`` is rounded *up*.

The verdict follows from the bracket and the claimed ε (:meth:`EpsilonBracket.decide`):
``violated`` when ``lower > ε``, ``private`` when ``upper <= ε`` **and** the proof covers the
claim's whole input domain (:attr:`Proof.whole_domain`: every real or integer score vector of the
stated n, every neighbour, every output), ``private-within-scope`` when ``upper <= ε`` on a bounded
part of it only (a branch-and-bound over a score box: a law may change behaviour outside any box),
``undecided`` otherwise (``reason`` says why and how wide). A bracket with no proof above cannot
say ``private``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from ..schemas.numbers import free_form, json_float, nonfinite_text, with_exact

__all__ = ["Witness", "Proof", "WitnessFamily", "EpsilonBracket", "BracketDecision"]

BracketDecision = Literal["private", "private-within-scope", "violated", "undecided"]

#: the score domains that are a claim's whole input domain (a finite enumerated domain ``{a..b}`` is too)
WHOLE_SCORE_DOMAINS = ("R^n", "Z^n")


@dataclass(frozen=True)
class Witness:
    """A certified lower end: neighbours, an output set and a log-ratio re-checked in ``arithmetic``.

    ``lower`` is the certified value as an exact string where one is known (``"log(2)"``,
    ``"1/10"``), else the decimal of ``lower_float``; ``lower_float`` is rounded down (it is a
    certified lower bound itself). ``output`` is JSON-able (an index, a pattern, a box).
    ``unbounded`` marks a witness whose ratio is infinite (an output impossible under q').
    """

    lower_float: float
    scores: tuple[str, ...]
    neighbour_scores: tuple[str, ...]
    output: Any
    arithmetic: str
    lower: str | None = None
    unbounded: bool = False
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "lower": self.lower if self.lower is not None else ("inf" if self.unbounded else repr(self.lower_float)),
            "lower_float": json_float(math.inf if self.unbounded else self.lower_float),  # null: infinite (lower says "inf")
            "scores": list(self.scores),
            "neighbour_scores": list(self.neighbour_scores),
            "output": self.output,
            "arithmetic": self.arithmetic,
            "unbounded": self.unbounded,
            **({"note": self.note} if self.note else {}),
        }


@dataclass(frozen=True)
class Proof:
    """A proved upper end: ``log-ratio <= upper`` for every input of ``domain``.

    ``method``: ``"branch-and-bound"``, ``"theorem"``, ``"coupling"``, ``"closed-form"``,
    ``"density-ratio"``, … ``domain`` states what the proof covers, with at least the keys
    ``n`` (an int, or ``"every"``), ``epsilon`` (the ε proved for: a value or an interval such as
    ``"(0, inf)"``), ``neighbourhood`` and ``scores`` (``"R^n"``, ``"Z^n"`` or a box).
    ``theorem`` cites the result a proof relies on (None for a pure computation).
    ``upper_float`` is rounded up.
    """

    upper_float: float
    method: str
    domain: dict[str, Any]
    upper: str | None = None
    theorem: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def whole_domain(self) -> bool:
        """Whether the proof covers the claim's whole input domain: ``domain["scores"]`` is ``R^n``,
        ``Z^n`` or a finite enumerated set ``{a..b}`` (an exhaustive proof), or names no score domain
        (a claim on a finite channel); never when ``domain["bounded"]`` is set (a score box)."""
        if self.domain.get("bounded"):
            return False
        scores = self.domain.get("scores")
        if scores is None:
            return True
        s = str(scores)
        return s in WHOLE_SCORE_DOMAINS or (s.startswith("{") and s.endswith("}") and ".." in s)

    @property
    def scope_text(self) -> str:
        """The domain the proof covers, as text (``scores [-8, 8]^3, n = 3, ℓ∞ box …``)."""
        return domain_text(self.domain)

    def as_dict(self) -> dict[str, Any]:
        return {
            "upper": self.upper if self.upper is not None else repr(self.upper_float),
            "upper_float": json_float(self.upper_float),  # null: infinite (upper says "inf")
            "method": self.method,
            "domain": dict(self.domain),
            "theorem": self.theorem,
            "whole_domain": self.whole_domain,
            "domain_text": self.scope_text,
            **({"details": free_form(dict(self.details))} if self.details else {}),
        }


def domain_text(domain: dict[str, Any]) -> str:
    """A proof's domain as one line of text: the scores, n, the neighbourhood, the ε proved for."""
    parts = []
    if domain.get("scores") is not None:
        parts.append(f"scores {domain['scores']}")
    if domain.get("n") is not None:
        n = domain["n"]
        parts.append("every n" if n == "every" else f"n = {n}")
    if domain.get("neighbourhood"):
        parts.append(str(domain["neighbourhood"]))
    if domain.get("outputs"):
        parts.append(str(domain["outputs"]))
    rest = [f"{k} {v}" for k, v in domain.items() if k not in ("scores", "n", "neighbourhood", "outputs", "epsilon",
                                                              "bounded")]
    return "; ".join(parts + rest)


@dataclass(frozen=True)
class WitnessFamily:
    """Witnesses at growing n whose log-ratio grows without bound: the level over *every* n is ∞.

    ``bound`` is a closed form in ``n`` (sympy-readable text) with ``log-ratio >= bound(n)`` for every
    member, ``argument`` why that holds for every n (an identity or inequality of the law's factors),
    ``members`` the construction of the member at n as text, and ``checked`` the members evaluated
    from the mechanism's own law at several n (each ``{"n", "scores", "neighbour_scores", "output",
    "log_ratio", "bound", "arithmetic"}``; ``log_ratio`` rounded down, ``bound`` the closed form there).
    The bracket's ends stay those of the stated n; the family is a diagnostic beside them.
    """

    index: str
    members: str
    bound: str
    argument: str
    checked: tuple[dict[str, Any], ...]
    theorem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"level_every_n": "inf", "index": self.index, "members": self.members, "bound": self.bound,
                "argument": self.argument, "theorem": self.theorem, "checked": [dict(c) for c in self.checked]}

    def text(self) -> str:
        """One line for the terminal: the bound and where it was checked."""
        ns = ", ".join(str(c["n"]) for c in self.checked)
        return (f"unbounded in n: a witness family ({self.index}) has log-ratio >= {self.bound} for every n "
                f"(proved; evaluated exactly at n = {ns}), so the level over every n is ∞")


@dataclass(frozen=True)
class EpsilonBracket:
    """``lower <= ε* <= upper`` with the evidence of each end (either may be missing); ``family``: a
    :class:`WitnessFamily` when the level grows without bound in n (the ends stay the stated n's)."""

    lower: Witness | None = None
    upper: Proof | None = None
    family: WitnessFamily | None = None

    @property
    def lower_float(self) -> float:
        if self.lower is None:
            return 0.0
        return math.inf if self.lower.unbounded else self.lower.lower_float

    @property
    def upper_float(self) -> float:
        return math.inf if self.upper is None else self.upper.upper_float

    @property
    def width(self) -> float:
        return self.upper_float - self.lower_float

    @property
    def relative_width(self) -> float:
        """``(upper - lower) / upper``: 0 for an unbounded witness (the level is ∞, attained), ∞ without a
        proof above (or a witness below); 0 when both ends are 0."""
        if self.lower is not None and self.lower.unbounded:
            return 0.0
        if self.upper is None or self.lower is None or not math.isfinite(self.upper_float):
            return math.inf
        scale = max(abs(self.upper_float), abs(self.lower_float))
        return 0.0 if scale == 0 else max(0.0, self.width) / scale

    def closed(self, tolerance: float = 1e-6) -> bool:
        """Whether the bracket pins the level: relative width <= ``tolerance``, or an unbounded witness
        (lower = ∞). A proof over a bounded score box never closes it (the level is over the whole domain)."""
        if self.lower is not None and self.lower.unbounded:
            return True
        return self.upper is not None and self.upper.whole_domain and self.relative_width <= tolerance

    def _proved(self, upper: str, claimed: str) -> tuple[BracketDecision, str]:
        """``private`` for a proof over the whole domain, else ``private-within-scope`` naming its domain."""
        assert self.upper is not None
        if self.upper.whole_domain:
            return "private", f"proved log-ratio <= {upper} <= ε = {claimed} ({self.upper.method})"
        return "private-within-scope", (f"proved log-ratio <= {upper} <= ε = {claimed} on {self.upper.scope_text} only "
                                        f"({self.upper.method}); nothing is proved outside it")

    def decide(self, claimed: float) -> tuple[BracketDecision, str]:
        """The verdict the bracket supports for a claimed ε, and why.

        ``claimed`` is a float rounded so that the comparison is conservative: callers pass a
        float whose rounding cannot turn a straddling bracket into a decision (compare exactly
        where the ends are exact; this helper is for ends that are floats already rounded
        outward).
        """
        if self.lower is not None and self.lower_float > claimed:
            return "violated", f"a certified witness has log-ratio >= {self.lower_float:.9g} > ε = {claimed:.9g}"
        if self.upper is not None and self.upper_float <= claimed:
            return self._proved(f"{self.upper_float:.9g}", f"{claimed:.9g}")
        if self.upper is None:
            return "undecided", "no proof method applies: the upper end is unknown"
        return "undecided", (f"the bracket [{self.lower_float:.9g}, {self.upper_float:.9g}] straddles ε = {claimed:.9g} "
                             f"(width {self.width:.3g})")

    def decide_exact(self, claimed: Any) -> tuple[BracketDecision, str]:
        """:meth:`decide` for an exact claimed ε (a :class:`~dpexact.numbers.Real` or what ``Real.of`` reads):
        each end is compared exactly — by its exact expression (``Witness.lower``, ``Proof.upper``) where
        one is known, else by its outward-rounded float — so an end *equal* to ε is decided (``private``
        for a proof, not ``violated`` for a witness). The reasons are :meth:`decide`'s."""
        from ..numbers.real import Real

        eps = Real.of(claimed, "epsilon")
        c = float(eps.to_float())

        def exact(text: str | None, x: float) -> Any:
            return Real.of(text if text is not None else x)

        if self.lower is not None and (self.lower.unbounded
                                       or (exact(self.lower.lower, self.lower.lower_float) - eps).sign() > 0):
            return "violated", f"a certified witness has log-ratio >= {self.lower_float:.9g} > ε = {c:.9g}"
        if self.upper is not None and math.isfinite(self.upper.upper_float) and (
                exact(self.upper.upper, self.upper.upper_float) - eps).sign() <= 0:
            return self._proved(f"{self.upper_float:.9g}", f"{c:.9g}")
        if self.upper is None:
            return "undecided", "no proof method applies: the upper end is unknown"
        return "undecided", (f"the bracket [{self.lower_float:.9g}, {self.upper_float:.9g}] straddles ε = {c:.9g} "
                             f"(width {self.width:.3g})")

    def __post_init__(self) -> None:
        # a proof over the whole domain below a certified witness is wrong arithmetic, never a bracket
        if (self.lower is not None and self.upper is not None and self.upper.whole_domain
                and self.lower_float > self.upper.upper_float):
            raise AssertionError(f"ε bracket: certified lower end {self.lower_float!r} above the proved upper end "
                                 f"{self.upper.upper_float!r} ({self.upper.method})")

    @property
    def domain(self) -> str:
        """What the bracket covers, as text: the proof's domain (with ``(a bounded part of the claim's
        domain)`` for a box), else that no proof covers any domain."""
        if self.upper is None:
            return "no proved domain (the upper end is unknown)"
        text = self.upper.scope_text
        return text if self.upper.whole_domain else f"{text} (a bounded part of the claim's domain)"

    def headline(self, claimed: str) -> str:
        """``privacy level ε* ∈ [lower, upper] on DOMAIN (claimed ε = …)``: the one line a verdict follows from."""
        def f(x: float, down: bool) -> str:
            if not math.isfinite(x):
                return "inf" if x > 0 else "-inf"
            text = f"{x:.9g}"  # rounded to nearest: moved outward where that went inward (the ends are bounds)
            if (float(text) > x) if down else (float(text) < x):
                q = 10 ** (8 - math.floor(math.log10(abs(x)))) if x else 1
                text = f"{(math.floor if down else math.ceil)(x * q) / q:.9g}"
            return text

        def exact(text: str | None, x: float, down: bool) -> str:
            # an end known exactly is shown to 9 digits as it is; a float end is rounded outward
            if text is not None and math.isfinite(x):
                from ..numbers.real import Real

                try:
                    return f"{float(Real.of(text).to_float()):.9g}"
                except (ValueError, TypeError, ArithmeticError):
                    pass
            return f(x, down)

        lo = exact(self.lower.lower if self.lower is not None and not self.lower.unbounded else None, self.lower_float, True)
        up = exact(self.upper.upper if self.upper is not None else None, self.upper_float, False)
        return f"privacy level ε* ∈ [{lo}, {up}] on {self.domain} (claimed ε = {claimed})"

    @staticmethod
    def _end_text(x: float, text: str | None) -> str:
        # an end with no evidence is the trivial one: 0 below (ε* >= 0), ∞ above (x is then 0.0 or inf)
        if not math.isfinite(x):
            return nonfinite_text(x) or "inf"
        return text if text is not None else ("0" if x == 0 else repr(x))

    def as_dict(self) -> dict[str, Any]:
        return {
            "lower": None if self.lower is None else self.lower.as_dict(),
            "upper": None if self.upper is None else self.upper.as_dict(),
            "lower_float": json_float(self.lower_float),
            "upper_float": json_float(self.upper_float),
            # the ends exactly: a null float above is "inf" here (no proof, or an unbounded witness)
            "lower_exact": self._end_text(self.lower_float, None if self.lower is None else self.lower.as_dict()["lower"]),
            "upper_exact": self._end_text(self.upper_float, None if self.upper is None else self.upper.as_dict()["upper"]),
            "domain": self.domain,
            "whole_domain": self.upper is not None and self.upper.whole_domain,
            **with_exact("relative_width", self.relative_width),
            "closed": self.closed(),
            **({} if self.family is None else {"unbounded_family": self.family.as_dict()}),
        }
