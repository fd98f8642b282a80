"""The ε bracket of a selection claim on a score neighbourhood, and what it decides.

:func:`bracket_selection` puts the bracket on the verdict of the score-family search
(:mod:`..search.selection`): the upper end is the first unit of :data:`.PROOFS` that supports the
score neighbourhood and proves something (a selection theorem for every n, else the branch-and-bound
on a stated score box, :mod:`.selection_bnb`), the lower end the certified maximum of
:func:`..search.level.maximise_level` (never below the search's own certified counterexample, nor
below the score-scale scan's witness); the comparisons with the claimed ε are exact (:mod:`..bracket`).
:func:`extend_by_couplings` adds what the noisy-max coupling proves for every pair to a private verdict.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from ...numbers.real import Real
from ...protocols import AnyMechanism, Neighbourhood, mechanism_properties, mechanism_size
from ..bracket import EpsilonBracket, Proof
from ..claim import check_tolerance
from ..verdict import Verdict

__all__ = ["bracket_selection", "extend_by_couplings", "theorem_proves", "DEFAULT_TOLERANCE", "LEVEL_SECONDS"]

#: default width asked of a bracket (a violated mechanism's level to 6 digits)
DEFAULT_TOLERANCE = 1e-6
#: CPU-time cap of the lower end's maximisation (its evaluation count is the budget that normally binds)
LEVEL_SECONDS = 10.0


def extend_by_couplings(v: Verdict, mechanism: AnyMechanism, neighbourhood: Neighbourhood) -> None:
    """For a private verdict of a selection mechanism searched on ``neighbourhood``: add what the
    noisy-max coupling proves for every pair, when the neighbourhood is the mechanism's ℓ∞ box
    (every Δ_a equal to its sensitivity) or its monotone box."""
    from ...mechanisms.neighbourhoods import LInfBox, MonotoneBox
    from .noisy_max_coupling import extend_by_noisy_max

    if v.verdict != "private-within-scope":
        return
    delta = Real.of(mechanism.sensitivity)
    if not delta.is_rational:
        return
    d = delta.value
    if isinstance(neighbourhood, MonotoneBox) and neighbourhood.sensitivity == d:
        extend_by_noisy_max(v, mechanism, "monotone")
    elif isinstance(neighbourhood, LInfBox) and neighbourhood.sensitivities is None and neighbourhood.sensitivity == d:
        extend_by_noisy_max(v, mechanism, "all-differ")


def theorem_proves(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood) -> bool:
    """Whether a theorem (every n, every score vector) proves the claimed ε on ``nb``."""
    from .selection_theorems import theorem_proof

    proof = theorem_proof(mechanism, n or mechanism_size(mechanism) or 3, nb)
    return proof is not None and Real.of(proof.upper) <= Real.of(mechanism.epsilon)


def _selection_proof(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood, boxes: bool = True) -> Proof | None:
    """The first proof of :data:`.proofs.PROOFS` that supports the mechanism on the score
    neighbourhood ``nb`` and proves something: a theorem (every n), else the branch-and-bound on its
    stated score box — skipped when ``boxes`` is False (a certified witness outside every box already
    decides the claim, and a box bound is no upper end for it)."""
    from . import PROOFS
    from .selection_bnb import SelectionBnB

    for unit in PROOFS:
        if not boxes and isinstance(unit, SelectionBnB):
            continue
        if unit.supports(mechanism, n, nb):
            p = unit.prove(mechanism, n, nb)
            if p is not None:
                return p
    return None


def _witness_triples(v: Verdict) -> list:
    """The (q, q', r) of the search's counterexample and worst pair, as exact vectors."""
    out = []
    for d in (v.counterexample.as_dict() if v.counterexample is not None else None, v.worst_pair):
        if d and "scores" in d and isinstance(d.get("output"), int):
            out.append((tuple(Fraction(x) for x in d["scores"]), tuple(Fraction(x) for x in d["neighbour_scores"]),
                        d["output"]))
    return out


def bracket_selection(v: Verdict, mechanism: AnyMechanism, nb: Neighbourhood, n: int | None = None, *,
                      tolerance: float = DEFAULT_TOLERANCE, seconds: float = LEVEL_SECONDS) -> Verdict:
    """Put the ε bracket on a selection verdict and decide from it (:mod:`.bracket`).

    Upper end: the first proof that applies (:mod:`.proofs.selection_theorems`); lower end: the
    certified maximum of :func:`.search.level.maximise_level` from the search's witnesses,
    stopped within ``tolerance`` of the proved upper end. Comparisons with the claimed ε are
    exact. ``violated`` stays violated (its counterexample is certified); a proof ``<= ε``
    makes the verdict ``private``; a proof above ε with no witness above it, ``undecided``;
    without a proof the search's verdict stands and ``reason`` says that no proof applies.
    """
    from ..search.level import certify_triple, level_starts, maximise_level
    from ..search.score_scales import scan_scales
    from .selection_bnb import witness_in_domain

    t0 = time.perf_counter()
    check_tolerance(tolerance)
    eps = Real.of(mechanism.epsilon)
    size = n or mechanism_size(mechanism) or (len(v.counterexample.scores) if v.counterexample is not None else 3)

    proof = _selection_proof(mechanism, size, nb, boxes=False)  # a theorem (every input), if one applies
    w3, far = None, False
    if proof is None or not proof.whole_domain:
        # large scores, where no box looks (a screen, not a proof); a witness > ε there decides the
        # claim and makes the box search pointless
        w3 = scan_scales(mechanism, nb, size)
        far = w3 is not None and (w3.unbounded or Real.of(Fraction(w3.lower_float)) > eps)
        if proof is None and not far:
            proof = _selection_proof(mechanism, size, nb)
    starts = level_starts(mechanism, nb, size, _witness_triples(v))
    ls = maximise_level(mechanism, nb, starts, seconds=seconds, tolerance=tolerance,
                        target=None if proof is None else proof.upper_float,
                        denominator=1 if mechanism_properties(mechanism).integer_scores else 2**20)
    witness = ls.witness
    for q, q2, r in _witness_triples(v)[:1] if v.counterexample is not None else ():
        # the lower end is never below the search's own certified violation
        w1 = certify_triple(mechanism, nb, q, q2, r, note="the search's counterexample")
        if w1 is not None and (witness is None or w1.lower_float > witness.lower_float):
            witness = w1
    if w3 is not None and (witness is None or w3.lower_float > witness.lower_float):
        witness = w3
    point = proof.details.get("best_point") if proof is not None else None
    if point is not None:  # the branch-and-bound's best test point, certified like the maximiser's
        w2 = certify_triple(mechanism, nb, tuple(Fraction(x) for x in point["scores"]),
                            tuple(Fraction(x) for x in point["neighbour_scores"]), point["output"],
                            note=f"the {proof.method}'s best test point")
        if w2 is not None and (witness is None or w2.lower_float > witness.lower_float):
            witness = w2
    outside = ""
    if (proof is not None and witness is not None and not proof.whole_domain
            and (witness.lower_float > proof.upper_float  # a witness outside the proof's score box
                 or (not witness_in_domain(proof, witness.scores, witness.output)
                     and Real.of(Fraction(witness.lower_float)) > eps))):
        outside = (f"; the {proof.method} bound {proof.upper_float:.9g} holds on its score box only "
                   f"({proof.domain.get('scores')}) and the witness lies outside it")
        proof = None
    bracket = EpsilonBracket(witness, proof)
    above = witness is not None and (witness.unbounded or Real.of(Fraction(witness.lower_float)) > eps)
    proved = proof is not None and math.isfinite(proof.upper_float) and (
        Real.of(proof.upper) if proof.upper is not None else Real.of(Fraction(proof.upper_float))) <= eps
    if proved and (v.verdict == "violated" or above) and proof.whole_domain:
        raise AssertionError(f"{mechanism.short_name}: a proof <= ε and a certified witness > ε (unsound arithmetic)")
    _, reason = bracket.decide(eps.to_float())
    if v.verdict != "violated" and above and not witness.unbounded:
        from ..decide.counterexample import Counterexample

        q, q2 = (tuple(Fraction(x) for x in s) for s in (witness.scores, witness.neighbour_scores))
        cx = Counterexample(mechanism, nb, q, q2, witness.output, witness.lower_float, math.inf)
        rc = cx.recheck("ball", 256)
        if rc.proved:
            v.counterexample, v.recheck, v.worst_pair = cx, rc, cx.as_dict()
            v.worst_log_ratio = rc.log_ratio_lo
    if v.verdict == "violated" or above:
        v.verdict = "violated"
        reason = f"a certified witness has log-ratio >= {bracket.lower_float:.9g} > ε = {eps}"
    elif proved:
        # "private" only for a proof over the whole input domain; a proof over a score box says
        # what it covers (a law may change behaviour at any score outside it)
        v.verdict = "private" if proof.whole_domain else "private-within-scope"
        if v.scope.pairs == 0:  # no scope searched: the proved bound and the witness are what is known
            v.worst_log_ratio = proof.upper_float
            v.worst_float_log_ratio = ls.float_level
        where = "" if proof.whole_domain else f" on {proof.scope_text} only (nothing is proved outside it)"
        reason = (f"proved log-ratio <= {proof.upper or format(proof.upper_float, '.9g')} <= ε = {eps}{where} "
                  f"({proof.method}: {proof.theorem or 'computation'})")
    elif proof is not None:
        v.verdict = "undecided"
    else:
        reason = (f"no proof method applies to {mechanism.short_name} on {nb.describe()}: the upper end is unknown; "
                  f"the verdict covers the searched scope only")
    if proof is None and v.verdict == "violated":
        reason = (f"a certified witness has log-ratio >= {bracket.lower_float:.9g} > ε = {eps}; no proof method "
                  f"applies to {mechanism.short_name} on {nb.describe()}, so the level's upper end is unknown")
        if far:
            reason += (f"; the branch-and-bound on a score box was not run: the score-scale scan certified a witness "
                       f"above ε = {eps} at large scores, outside every such box, so a box bound would be no upper end")
    if proof is not None and not math.isfinite(proof.upper_float):
        reason += f" (the {proof.method} found no finite bound: {proof.details.get('status', '')})"
    if proof is not None and witness is not None and math.isfinite(bracket.width) and bracket.width > tolerance:
        how = proof.details.get("status") if proof.method == "branch-and-bound" else "exact"
        reason += (f" (bracket width {bracket.width:.3g} > tolerance {tolerance:g}: upper end {how}, "
                   f"lower end stopped by {ls.stopped})")
    v.bracket, v.reason = bracket, reason + outside
    v.seconds += time.perf_counter() - t0
    v.scope.notes.append(f"ε bracket: lower end maximised over {ls.evaluations} float log-pmfs ({ls.stopped}), "
                         f"certified in ball arithmetic")
    return v
