"""Exact levels of mechanisms with a finite input and output domain, as proofs (and witnesses).

* **Truncated geometric** (Balcer & Vadhan's GeoSample, DP-Sniper's coding): the pmf is rational
  (:meth:`exact_pmf`), the inputs are the counts 0..N and neighbours differ by one, so the level

      ε* = max_{|c - c'| = 1} max_z log(Pr[z | c] / Pr[z | c'])

  is a maximum over finitely many exact rationals: the proof is the exhaustive comparison itself,
  and its argmax is a witness at the level (the bracket closes exactly, e.g. ``log(9/8)`` at k = 3).
* **RAPPOR** (Erlingsson, Pihur & Korolova, CCS 2014): given the Bloom filters, the report bits are
  independent randomised responses with ``Pr[1] = q*`` (filter bit 1) or ``p*`` (bit 0), so the loss of
  an output factorises over the bits: a bit where the filters agree costs 0, one where B(v) = 1,
  B(v') = 0 at most ``u = max(q*/p*, (1-q*)/(1-p*))`` and the reverse at most
  ``w = max(p*/q*, (1-p*)/(1-q*))``, each attained by its own output bit. Hence
  ``ε* = max_{v ≠ v'} log(u^{a(v,v')} w^{b(v,v')})`` with a, b the counts of such bits — a maximum of
  exact rationals over every pair of inputs lo..hi.

Both levels are computed where the mechanism states them, by its privacy map
(:class:`~dpexact.protocols.PrivacyMap`); these units turn the map into the bracket's proof (an
exhaustive computation over a finite domain, so a proof for every input) and witness.
"""

from __future__ import annotations

import math

from ...protocols import AnyMechanism, PrivacyLevel
from ...numbers.real import Real
from ..bracket import Proof, Witness

__all__ = ["TruncatedGeometricLevel", "RapporLevel"]


def _ends(level: Real) -> tuple[str, float, float]:
    """The exact level as a string, rounded down and up."""
    ball = level.to_arb(128)
    lo, hi = float(ball.lower()), float(ball.upper())  # rounded to nearest: moved out where that went inwards
    lo = lo if lo <= ball.lower() else math.nextafter(lo, -math.inf)
    hi = hi if hi >= ball.upper() else math.nextafter(hi, math.inf)
    return str(level), lo, hi


def _witness(pl: PrivacyLevel, note: str) -> Witness:
    scores, other = tuple(str(x) for x in pl.scores), tuple(str(x) for x in pl.neighbour_scores)
    if pl.level == math.inf:
        return Witness(math.inf, scores, other, pl.event["output"], "exact", lower="inf", unbounded=True)
    exact, lo, _ = _ends(pl.level)
    return Witness(lower_float=lo, scores=scores, neighbour_scores=other, output=pl.event["output"],
                   arithmetic=pl.arithmetic, lower=exact, note=note)


class TruncatedGeometricLevel:
    """Proof unit: the exhaustive exact level of the truncated geometric mechanism (module docstring)."""

    name = "exhaustive exact level (truncated geometric)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...mechanisms.truncated_geometric import TruncatedGeometric

        return isinstance(mechanism, TruncatedGeometric) and relation in (None, "one-differ")

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        pl = mechanism.privacy_map()
        if pl.level == math.inf:
            return None
        exact, _, hi = _ends(pl.level)
        return Proof(upper_float=hi, upper=exact, method="exhaustive", theorem=None,
                     domain={"n": f"counts 0..{mechanism.n}", "epsilon": str(mechanism.epsilon),
                             "neighbourhood": pl.neighbourhood, "scores": f"{{0..{mechanism.n}}}",
                             "outputs": "every output"},
                     details={"statement": f"max over every pair of neighbouring counts and output of the exact "
                                           f"pmf ratio: log-ratio {exact} (counts {pl.scores[0]} vs "
                                           f"{pl.neighbour_scores[0]}, output {pl.event['output']})"})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        return _witness(mechanism.privacy_map(), "exact pmf ratio (rationals)")


class RapporLevel:
    """Proof unit: RAPPOR's exact factorised level over every pair of inputs (module docstring)."""

    name = "exact factorised level (RAPPOR)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...ldp.rappor import Rappor

        return isinstance(mechanism, Rappor) and relation is None

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        pl = mechanism.privacy_map()
        exact, _, hi = _ends(pl.level)
        return Proof(upper_float=hi, upper=exact, method="closed-form",
                     theorem="Erlingsson, Pihur & Korolova, CCS 2014 (independent per-bit randomised response)",
                     domain={"n": "one value", "epsilon": str(mechanism.epsilon), "neighbourhood": pl.neighbourhood,
                             "scores": f"{{{mechanism.lo}..{mechanism.hi}}}", "outputs": "every output"},
                     details={"statement": f"max over the {pl.pairs} ordered pairs of inputs of the factorised loss: "
                                           f"ε* = {exact} (values {pl.scores[0]} vs {pl.neighbour_scores[0]})"})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        pl = mechanism.privacy_map()
        w = _witness(pl, "the report taking each bit's worse value")
        # the witness's lower end is the law's own ball (re-checked), never above the formula's level
        lo = float(pl.log_ratio.lower())
        lo = lo if lo <= pl.log_ratio.lower() else math.nextafter(lo, -math.inf)
        return Witness(lower_float=min(lo, w.lower_float), scores=w.scores, neighbour_scores=w.neighbour_scores,
                       output=w.output, arithmetic=pl.arithmetic, lower=w.lower)
