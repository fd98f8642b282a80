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
from dataclasses import replace
from fractions import Fraction
from typing import Any

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
#: CPU-time cap of the branch-boundary starts and of the climb from them (each), when the bracket is still open
BRANCH_SECONDS = 2.0
#: CPU budget of the box branch-and-bound once a whole-domain unit supported the claim and gave up (its
#: default is 45): own PF at n = 5 spent 45 CPU-s there for no finite bound (benchmarks/README.md), and a
#: bound on a score box is at best ``private-within-scope`` beside a whole-domain route that applies
BOX_SECONDS_AFTER_WHOLE = 10.0


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
    """Whether a theorem proves the claimed ε on ``nb`` for every score vector: a selection theorem (every n),
    or, for a law written by hand, the theorem of the registered law it is proved identical to at the stated
    n (:mod:`.law_identity`; its result is cached for the bracket that follows)."""
    from . import PROOFS
    from .law_identity import LawIdentity
    from .selection_theorems import theorem_proof

    size = n or mechanism_size(mechanism) or 3
    proof = theorem_proof(mechanism, size, nb)
    for unit in PROOFS:  # the law-identity unit as the proof list holds it (the bracket then reads the same one)
        if proof is None and n is not None and isinstance(unit, LawIdentity) and unit.supports(mechanism, n, nb):
            proof = unit.prove(mechanism, n, nb)
    return proof is not None and Real.of(proof.upper) <= Real.of(mechanism.epsilon)


def _selection_proof(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood, boxes: bool = True) -> Proof | None:
    """The first proof of :data:`.proofs.PROOFS` that supports the mechanism on the score
    neighbourhood ``nb`` and proves something: a theorem (every n), else the branch-and-bound on its
    stated score box — skipped when ``boxes`` is False (a certified witness outside every box already
    decides the claim, and a box bound is no upper end for it)."""
    from . import PROOFS
    from .compact_bnb import CompactBnB
    from .selection_bnb import SelectionBnB

    whole_gave_up = None
    for unit in PROOFS:
        if not boxes and isinstance(unit, SelectionBnB):
            continue
        if unit.supports(mechanism, n, nb):
            if isinstance(unit, SelectionBnB) and whole_gave_up is not None and unit.seconds > BOX_SECONDS_AFTER_WHOLE:
                # the budget policy: the whole-domain unit's run already spent its budget on this claim; the
                # box search gets a short one, and the proof says so (a longer box search was not tried)
                unit = replace(unit, seconds=BOX_SECONDS_AFTER_WHOLE)
                p = unit.prove(mechanism, n, nb)
                if p is not None:
                    p.details["budget"] = (f"{BOX_SECONDS_AFTER_WHOLE:g} CPU-s (not the default 45): the {whole_gave_up} "
                                           f"applied and gave up; a longer box search was not tried")
                    return p
                continue
            p = unit.prove(mechanism, n, nb)
            if p is not None:
                return p
            if isinstance(unit, CompactBnB) and unit.gave_up(mechanism, n, nb):
                whole_gave_up = unit.name
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
    """The selection verdict ``v`` with its ε bracket, decided from it (:mod:`..bracket`); ``v`` is not changed.

    Upper end: the first proof that applies (:mod:`.selection_theorems`, else the branch-and-bound on a
    score box unless the score-scale scan already certified a witness above ε where no box looks); lower
    end: the certified maximum of :func:`..search.level.maximise_level` from the search's witnesses,
    stopped within ``tolerance`` of the proved upper end. Comparisons with the claimed ε are exact.
    ``violated`` stays violated (its counterexample is certified); a proof ``<= ε`` makes the verdict
    ``private`` (``private-within-scope`` for a proof on a score box); a proof above ε with no witness
    above it, ``undecided``; without a proof the search's verdict stands and ``reason`` says that no
    proof applies.
    """
    t0 = time.perf_counter()
    check_tolerance(tolerance)
    eps = Real.of(mechanism.epsilon)
    size = n or mechanism_size(mechanism) or (len(v.counterexample.scores) if v.counterexample is not None else 3)
    proof, w3, far = _upper_end(mechanism, nb, size, eps)
    witness, ls = _lower_end(v, mechanism, nb, size, proof, w3, tolerance, seconds)
    proof, outside = _box_proof_beside(proof, witness, eps)
    bracket = EpsilonBracket(witness, proof)
    above = witness is not None and (witness.unbounded or Real.of(Fraction(witness.lower_float)) > eps)
    proved = proof is not None and math.isfinite(proof.upper_float) and (
        Real.of(proof.upper) if proof.upper is not None else Real.of(Fraction(proof.upper_float))) <= eps
    if proved and (v.verdict == "violated" or above) and proof.whole_domain:
        raise AssertionError(f"{mechanism.short_name}: a proof <= ε and a certified witness > ε (unsound arithmetic)")
    cx, rc, worst_pair, worst = v.counterexample, v.recheck, v.worst_pair, v.worst_log_ratio
    if v.verdict != "violated" and above and not witness.unbounded:  # the witness, re-checked, is the counterexample
        found = _counterexample(mechanism, nb, witness)
        if found is not None:
            cx, rc = found
            worst_pair, worst = cx.as_dict(), rc.log_ratio_lo
    _, reason = bracket.decide(eps.to_float())
    verdict, worst_float = v.verdict, v.worst_float_log_ratio
    if v.verdict == "violated" or above:
        verdict = "violated"
        reason = f"a certified witness has log-ratio >= {bracket.lower_float:.9g} > ε = {eps}"
    elif proved:
        # "private" only for a proof over the whole input domain; a proof over a score box says
        # what it covers (a law may change behaviour at any score outside it)
        verdict = "private" if proof.whole_domain else "private-within-scope"
        if v.scope.pairs == 0:  # no scope searched: the proved bound and the witness are what is known
            worst, worst_float = proof.upper_float, ls.float_level
        where = "" if proof.whole_domain else f" on {proof.scope_text} only (nothing is proved outside it)"
        reason = (f"proved log-ratio <= {proof.upper or format(proof.upper_float, '.9g')} <= ε = {eps}{where} "
                  f"({proof.method}: {proof.theorem or 'computation'})")
    elif proof is not None:
        verdict = "undecided"
    else:
        reason = (f"no proof method applies to {mechanism.short_name} on {nb.describe()}: the upper end is unknown; "
                  f"the verdict covers the searched scope only")
    reason += _reason_notes(verdict, proof, bracket, mechanism, nb, eps, far, tolerance, ls.stopped)
    scope = replace(v.scope, notes=[*v.scope.notes, f"ε bracket: lower end maximised over {ls.evaluations} float "
                                    f"log-pmfs ({ls.stopped}), certified in ball arithmetic"])
    return replace(v, verdict=verdict, counterexample=cx, recheck=rc, worst_pair=worst_pair, worst_log_ratio=worst,
                   worst_float_log_ratio=worst_float, bracket=bracket, reason=reason + outside, scope=scope,
                   seconds=v.seconds + time.perf_counter() - t0)


def _upper_end(mechanism: AnyMechanism, nb: Neighbourhood, size: int, eps: Real) -> tuple[Proof | None, Any, bool]:
    """``(proof, scan witness, far)``: a theorem (every input) if one applies; else the score-scale scan
    (large scores, where no box looks: a screen, not a proof) and, unless it certified a witness above ε
    there (``far``: the claim is decided and a box bound would be no upper end), the branch-and-bound."""
    from ..search.score_scales import scan_scales

    proof = _selection_proof(mechanism, size, nb, boxes=False)
    w3, far = None, False
    if proof is None or not proof.whole_domain:
        w3 = scan_scales(mechanism, nb, size)
        far = w3 is not None and (w3.unbounded or Real.of(Fraction(w3.lower_float)) > eps)
        if proof is None and not far:
            proof = _selection_proof(mechanism, size, nb)
    return proof, w3, far


def _lower_end(v: Verdict, mechanism: AnyMechanism, nb: Neighbourhood, size: int, proof: Proof | None, w3: Any,
               tolerance: float, seconds: float) -> tuple[Any, Any]:
    """``(witness, level search)``: the largest certified witness of the maximiser, the search's own
    counterexample, the score-scale scan and the branch-and-bound's best test point."""
    from ..search.level import certify_triple, level_starts, maximise_level

    starts = level_starts(mechanism, nb, size, _witness_triples(v))
    ls = maximise_level(mechanism, nb, starts, seconds=seconds, tolerance=tolerance,
                        target=None if proof is None else proof.upper_float,
                        denominator=1 if mechanism_properties(mechanism).integer_scores else 2**20)
    candidates = [ls.witness]
    for q, q2, r in _witness_triples(v)[:1] if v.counterexample is not None else ():
        # the lower end is never below the search's own certified violation
        candidates.append(certify_triple(mechanism, nb, q, q2, r, note="the search's counterexample"))
    candidates.append(w3)
    point = proof.details.get("best_point") if proof is not None else None
    if point is not None:  # the branch-and-bound's best test point, certified like the maximiser's
        candidates.append(certify_triple(mechanism, nb, tuple(Fraction(x) for x in point["scores"]),
                                         tuple(Fraction(x) for x in point["neighbour_scores"]), point["output"],
                                         note=f"the {proof.method}'s best test point"))
    witness = None
    for w in candidates:  # strictly larger replaces: the first of equal witnesses is kept
        if w is not None and (witness is None or w.lower_float > witness.lower_float):
            witness = w
    if _open_below(witness, proof, tolerance):
        # the maximiser's starts miss a branch at a constant far from every box (a bonus past a score of
        # 5000): place pairs on the law's own branch boundaries and climb from there
        from .branch_starts import branch_starts

        extra = branch_starts(mechanism, nb, size, seconds=BRANCH_SECONDS)
        if extra:
            ls2 = maximise_level(mechanism, nb, extra, seconds=BRANCH_SECONDS, tolerance=tolerance,
                                 target=None if proof is None else proof.upper_float,
                                 denominator=1 if mechanism_properties(mechanism).integer_scores else 2**20)
            for w in [certify_triple(mechanism, nb, *extra[0], note="a pair across a branch boundary of the law"),
                      ls2.witness]:
                if w is not None and (witness is None or w.lower_float > witness.lower_float):
                    witness = w
    return witness, ls


def _open_below(witness: Any, proof: Proof | None, tolerance: float) -> bool:
    """Whether the lower end may still rise: no proof above (a violated law's level is still worth knowing), or
    a finite proved upper end above the witness by more than ``tolerance`` (relative)."""
    if witness is not None and witness.unbounded:
        return False
    if proof is None:
        return True
    if not math.isfinite(proof.upper_float):
        return False
    lo = 0.0 if witness is None else witness.lower_float
    return proof.upper_float - lo > tolerance * max(1.0, abs(proof.upper_float))


def _box_proof_beside(proof: Proof | None, witness: Any, eps: Real) -> tuple[Proof | None, str]:
    """A proof on a score box is no upper end beside a witness outside its box (above its bound, or outside
    its domain and above ε): ``(None, why)`` then, else ``(proof, "")``."""
    from .selection_bnb import witness_in_domain

    if (proof is not None and witness is not None and not proof.whole_domain
            and (witness.lower_float > proof.upper_float
                 or (not witness_in_domain(proof, witness.scores, witness.output)
                     and Real.of(Fraction(witness.lower_float)) > eps))):
        return None, (f"; the {proof.method} bound {proof.upper_float:.9g} holds on its score box only "
                      f"({proof.domain.get('scores')}) and the witness lies outside it")
    return proof, ""


def _counterexample(mechanism: AnyMechanism, nb: Neighbourhood, witness: Any) -> tuple[Any, Any] | None:
    """The witness as a counterexample re-checked in ball arithmetic (256 bits), or None if not proved."""
    from ..decide.counterexample import Counterexample

    q, q2 = (tuple(Fraction(x) for x in s) for s in (witness.scores, witness.neighbour_scores))
    cx = Counterexample(mechanism, nb, q, q2, witness.output, witness.lower_float, math.inf)
    rc = cx.recheck("ball", 256)
    return (cx, rc) if rc.proved else None


def _reason_notes(verdict: str, proof: Proof | None, bracket: EpsilonBracket, mechanism: AnyMechanism,
                  nb: Neighbourhood, eps: Real, far: bool, tolerance: float, stopped: str) -> str:
    """What the reason adds: no upper end beside a violation (and why the box search was skipped), a proof
    method that found no finite bound, a bracket wider than the tolerance asked."""
    out = ""
    if proof is None and verdict == "violated":
        out = (f"; no proof method applies to {mechanism.short_name} on {nb.describe()}, so the level's upper end "
               f"is unknown")
        if far:
            out += (f"; the branch-and-bound on a score box was not run: the score-scale scan certified a witness "
                    f"above ε = {eps} at large scores, outside every such box, so a box bound would be no upper end")
    if proof is not None and not math.isfinite(proof.upper_float):
        out += f" (the {proof.method} found no finite bound: {proof.details.get('status', '')})"
    if proof is not None and proof.details.get("budget"):
        out += f"; the {proof.method} ran with {proof.details['budget']}"
    if proof is not None and bracket.lower is not None and math.isfinite(bracket.width) and bracket.width > tolerance:
        how = proof.details.get("status") if proof.method == "branch-and-bound" else "exact"
        out += (f" (bracket width {bracket.width:.3g} > tolerance {tolerance:g}: upper end {how}, "
                f"lower end stopped by {stopped})")
    return out
