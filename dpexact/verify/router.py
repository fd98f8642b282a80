"""The one way into verification: :func:`verify` (the mechanism resolved and checked once), then
:func:`verify_any` by claim, then :func:`verify_mechanism` by output kind.

:func:`verify_mechanism` tries the whole-space proofs of :data:`.proofs.PROOFS` (``private`` when one
proves ε for every input of its domain), then the units of the same list that give a whole verdict
(:func:`.proofs.verdict_units`: the checked threshold coupling, closed forms), then the search registered
for the output kind in :data:`.kinds.KINDS`; the verdict carries the ε bracket. A selection mechanism on
a neighbourhood is searched, extended by the noisy-max coupling and bracketed (:func:`bracket_selection`,
its upper end from the same list of proofs).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..numbers.real import Real
from ..protocols import AnyMechanism, Neighbourhood, mechanism_properties

from .bracket import EpsilonBracket, Proof, Witness
from .kinds import KINDS, kind_of
from .neighbourhoods import own_relation
from .verdict import Verdict

__all__ = ["verify", "verify_mechanism", "verify_any", "extend_by_couplings", "bracket_selection", "DEFAULT_TOLERANCE"]

#: default width asked of a bracket (a violated mechanism's level to 6 digits)
DEFAULT_TOLERANCE = 1e-6
#: CPU-time cap of the lower end's maximisation (its evaluation count is the budget that normally binds)
LEVEL_SECONDS = 10.0


def extend_by_couplings(v: Verdict, mechanism: AnyMechanism, neighbourhood: Neighbourhood) -> None:
    """For a private verdict of a selection mechanism searched on ``neighbourhood``: add what the
    noisy-max coupling proves for every pair, when the neighbourhood is the mechanism's ℓ∞ box
    (every Δ_a equal to its sensitivity) or its monotone box."""
    from ..mechanisms.neighbourhoods import LInfBox, MonotoneBox
    from .proofs.noisy_max_coupling import extend_by_noisy_max

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


def verify_mechanism(mechanism: AnyMechanism, n: int | None = None, relation: str | None = None, name: str | None = None,
                     **kwargs: Any) -> Verdict:
    """Verify the claimed ε of ``mechanism``: the whole-space proofs first (:mod:`.proofs`; ``private``
    when one proves ε for every input of its domain), else the verifier of its output kind (table
    above), whose verdict carries the ε bracket (its certified witness below, a proof's larger bound
    above).

    ``relation``: ``"all-differ"`` / ``"one-differ"`` / ``"monotone"`` (default: the relation of the
    mechanism's own claim — ``"monotone"`` when its neighbourhood is a monotone box — else all-differ).
    """
    import time

    from .proofs import first_proof
    from .proofs.outcome import attach_bracket, closed_by_search, proved_verdict, proves

    t0 = time.perf_counter()
    kind = kind_of(mechanism)
    unit = proof = None
    rel = relation if relation is not None else own_relation(mechanism)
    # the proofs are stated for the mechanism's own relation: a neighbourhood asked for goes to the
    # verifier that honours it (verify_any checked that one does)
    if (not kind.selection or relation is not None) and kwargs.get("neighbourhood") is None:
        unit, proof = first_proof(mechanism, n, rel)
        if proof is not None and proves(proof, mechanism):
            return proved_verdict(mechanism, proof, name, time.perf_counter() - t0,
                                  witness=unit.witness(mechanism, n, rel) if unit is not None else None)
    v = _search_mechanism(mechanism, n, relation, name, **kwargs)
    witness = None if unit is None else unit.witness(mechanism, n, rel)
    done = closed_by_search(v, proof) or EpsilonBracket(witness, proof).closed()  # a closed bracket: no more search
    if v.verdict == "violated" and not done:
        witness = _pattern_level(v, mechanism, n, rel, proof, witness)
    v = attach_bracket(v, proof, witness)
    v.seconds = time.perf_counter() - t0
    return v


def _pattern_level(v: Verdict, mechanism: AnyMechanism, n: int | None, relation: str | None, proof: Proof | None,
                  witness: Witness | None) -> Witness | None:
    """The larger of ``witness`` and the maximised two-level witness of a pattern law
    (:mod:`.search.pattern_level`): on the verdict's n, and on 3n queries (at most 32) when the proof
    above covers every n (a witness at any n then bounds the same level from below)."""
    from ..protocols import ThresholdCouplingLaw
    from .search.pattern_level import pattern_level

    if not isinstance(mechanism, ThresholdCouplingLaw) or (v.bracket is not None and v.bracket.lower is not None
                                                            and v.bracket.lower.unbounded):
        return witness
    if v.counterexample is not None and v.counterexample.as_dict().get("log_ratio") == [math.inf, math.inf]:
        return witness
    nn = n if n is not None else 10
    start = v.counterexample.as_dict().get("output") if v.counterexample is not None else None
    sizes = [nn] + ([min(3 * nn, 32)] if proof is not None and proof.domain.get("n") == "every" and nn < 32 else [])
    best = witness
    for size in sizes:
        w = pattern_level(mechanism, size, relation or "all-differ", start if size == nn else None)
        if w is not None and size != nn:  # say why the witness's n is not the n asked for
            from dataclasses import replace

            w = replace(w, note=(w.note + "; " if w.note else "") + f"at n = {size}, not the n = {nn} asked for: the "
                        f"proof above covers every n, so a witness at any n bounds the same level from below")
        if w is not None and (best is None or w.lower_float > best.lower_float):
            best = w
    return best


def _search_mechanism(mechanism: AnyMechanism, n: int | None = None, relation: str | None = None,
                      name: str | None = None, **kwargs: Any) -> Verdict:
    """The first unit of :func:`.proofs.verdict_units` that supports the mechanism and decides, else the
    search registered for its output kind (:data:`.kinds.KINDS`)."""
    from .proofs import verdict_units

    kind = kind_of(mechanism)
    if relation is None and not kind.selection:
        relation = own_relation(mechanism)
    for unit in verdict_units():
        if unit.supports(mechanism, n, relation):
            v = unit.verdict(mechanism, n, relation, name=name, **kwargs)
            if v is not None:
                return v
    if kind.search is None:
        raise TypeError(f"mechanism: no verifier for output kind {kind.name!r}")
    return kind.search(mechanism, n, relation, name, **kwargs)


def _selection_proof(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood, boxes: bool = True) -> Proof | None:
    """The first proof of :data:`.proofs.PROOFS` that supports the mechanism on the score
    neighbourhood ``nb`` and proves something: a theorem (every n), else the branch-and-bound on its
    stated score box — skipped when ``boxes`` is False (a certified witness outside every box already
    decides the claim, and a box bound is no upper end for it)."""
    from .proofs import PROOFS
    from .proofs.selection_bnb import SelectionBnB

    for unit in PROOFS:
        if not boxes and isinstance(unit, SelectionBnB):
            continue
        if unit.supports(mechanism, n, nb):
            p = unit.prove(mechanism, n, nb)
            if p is not None:
                return p
    return None


def _witness_triples(v: Verdict) -> list:
    from fractions import Fraction

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
    import math
    import time
    from fractions import Fraction

    from ..protocols import mechanism_size
    from .bracket import EpsilonBracket
    from .search.level import level_starts, maximise_level

    t0 = time.perf_counter()
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    eps = Real.of(mechanism.epsilon)
    size = n or mechanism_size(mechanism) or (len(v.counterexample.scores) if v.counterexample is not None else 3)
    from .search.score_scales import scan_scales

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
    from .search.level import certify_triple

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
    from .proofs.selection_bnb import witness_in_domain

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
        from .decide.counterexample import Counterexample

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


def _route_options(mechanism: AnyMechanism, kind_name: str, relation: str | None, delta: Any) -> tuple[frozenset[str], str]:
    """The options honoured by the verifier that :func:`verify_any` reaches (declared on it with
    :func:`.options.honours`), and a name for that route: the (ε, δ) verification, the score-family
    search, a verdict unit, else the route of the output kind (:data:`.kinds.KINDS`)."""
    from .options import honoured_by
    from .proofs import verdict_units

    kind = KINDS[kind_name]
    who = f"{mechanism.short_name} ({kind.name} outputs)"
    if delta is not None:
        from .search.approx_dp import approx_options

        return approx_options(mechanism, relation), f"the (ε, δ) verification of {who}"
    if kind.selection and relation is None:
        from .search.selection import verify

        return honoured_by(verify), f"the score-family search of {who}"
    for unit in verdict_units():  # a unit with a route of its own (a closed form); the coupling shares its kind's
        route = unit.route(mechanism) if unit.supports(mechanism, None, relation) else None
        if route is not None:
            return route[0], f"{route[1]} of {who}"
    if kind.options is None:
        return frozenset(), who
    honoured, route = kind.options(mechanism, relation)
    return honoured, f"{route} of {who}"


def _pure_proof_gives_approx(mechanism: AnyMechanism, selection: bool, nb: Neighbourhood | None, n: int | None,
                             delta: Real, name: str | None) -> Verdict | None:
    """``private`` for (ε, δ) when a whole-space proof gives ε-DP, else None (then the (ε, δ) search runs).

    ε-DP is (ε, 0)-DP, hence (ε, δ)-DP for every δ >= 0 [Dwork–Roth 2014, Def. 2.4]: the hockey-stick
    divergence H_{e^ε}(P_q || P_q') = Σ_o max(0, P_q(o) − e^ε P_q'(o)) is 0 for every neighbour pair.
    Only a proof for every input counts (a selection theorem over R^n, or a unit of :data:`.proofs.PROOFS`
    for the mechanism's own relation), never a search."""
    import time

    from ..protocols import mechanism_size
    from .proofs import first_proof
    from .proofs.outcome import proved_verdict, proves
    from .proofs.selection_theorems import theorem_proof

    t0 = time.perf_counter()
    if selection:
        proof = theorem_proof(mechanism, n or mechanism_size(mechanism) or 3, nb) if nb is not None else None
    else:
        proof = first_proof(mechanism, n, own_relation(mechanism))[1]
    if proof is None or not proves(proof, mechanism):
        return None
    v = proved_verdict(mechanism, proof, name, time.perf_counter() - t0)
    v.delta, v.worst_delta = str(delta), 0.0
    v.reason = (f"{v.reason + '; ' if v.reason else ''}ε-DP proved for every input implies (ε, δ)-DP for every "
                f"δ >= 0 (Dwork–Roth Def. 2.4: the hockey-stick divergence at e^ε is 0 <= δ = {delta}); "
                f"no (ε, δ) scope was searched (--search runs one)")
    return v


def _theorem_proves(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood) -> bool:
    """Whether a theorem (every n, every score vector) proves the claimed ε on ``nb``."""
    from ..protocols import mechanism_size
    from .proofs.selection_theorems import theorem_proof

    proof = theorem_proof(mechanism, n or mechanism_size(mechanism) or 3, nb)
    return proof is not None and Real.of(proof.upper) <= Real.of(mechanism.epsilon)


def _proved_verdict(mechanism: AnyMechanism, nb: Neighbourhood, name: str | None) -> Verdict:
    """The verdict before its bracket when a theorem decides it: no scope was searched."""
    from .verdict import Scope, build_verdict

    scope = Scope(neighbourhood=nb.describe(), notes=["no scope search: a theorem proves the claimed ε for every "
                                                      "input (run --search to add the finite-scope search)"])
    # "undecided" until bracket_selection puts the theorem above and the maximised witness below
    return build_verdict(mechanism, name=name, epsilon=Real.of(mechanism.epsilon), verdict="undecided", scope=scope,
                         worst_log_ratio=-math.inf, seconds=0.0)


def verify_any(mechanism: AnyMechanism, **kwargs: Any) -> Verdict:
    """:func:`_verify_any` (its docstring), with a failure of the mechanism's own code (its pmf function
    raised, :class:`~dpexact.mechanisms.base.MechanismCrash`) reported as an ``inconclusive`` verdict that
    names it — a defect of the law, neither a usage error nor an internal one."""
    from ..mechanisms.base import MechanismCrash
    from .verdict import Scope, build_verdict

    try:
        return _verify_any(mechanism, **kwargs)
    except MechanismCrash as exc:
        scope = Scope(neighbourhood=str(kwargs.get("neighbourhood", "default")),
                      notes=[f"the mechanism's law failed: {exc}"])
        return build_verdict(mechanism, name=kwargs.get("name"), epsilon=Real.of(mechanism.epsilon), verdict="inconclusive",
                             scope=scope, seconds=0.0,
                             reason=f"the mechanism's law failed during verification: {exc} (a defect of the law: "
                                    f"nothing is claimed)")


def _verify_any(mechanism: AnyMechanism, *, neighbourhood: str = "default", searches: Sequence[str] | None = None, n: int | None = None,
                values: Sequence[Any] | None = None, steps: int = 1, relation: str | None = None, delta: Any = None,
                name: str | None = None, progress: Callable[[str, str], None] | None = None, tolerance: float | None = None) -> Verdict:
    """What ``dpexact verify`` (and a sweep's ``verify`` task) runs, by claim and output kind:

    * ``delta`` given: (ε, δ)-DP, :func:`.approx_dp.verify_approx` (searches without ``local``);
    * a selection mechanism: :func:`.search.verify` on ``neighbourhood`` (a spec string for
      :func:`.neighbourhoods.parse_neighbourhood`), extended by the couplings that prove more
      (:func:`extend_by_couplings`), then bracketed (:func:`bracket_selection`, ``tolerance`` the
      width asked, default :data:`DEFAULT_TOLERANCE`); with ``relation``, the peers' query-pair
      families;
    * any other output kind: :func:`verify_mechanism`.

    An option the verifier on the route does not honour (its :func:`.options.honours`
    declaration) is a ``ValueError`` naming it, before any work. ``mechanism`` comes checked (the
    registry, the loader of ``PATH.py:OBJECT`` or :func:`verify` ran
    :func:`~dpexact.protocols.check_mechanism`); nothing on the route validates it again.
    """
    from .neighbourhoods import parse_neighbourhood
    from .options import DEFAULT_SEARCHES, given_options, refuse_unhonoured

    if relation is not None and relation not in ("all-differ", "one-differ", "monotone"):
        raise ValueError(f"relation must be all-differ, one-differ or monotone, got {str(relation)[:40]!r}")
    kind = kind_of(mechanism)
    from .scope_cost import check_scope_counts

    check_scope_counts(n, steps)  # n, steps: positive integers (n = -5 once answered "private")
    given = given_options(neighbourhood=neighbourhood, searches=searches, n=n, values=values, steps=steps,
                          relation=relation, delta=delta)
    refuse_unhonoured(given, *_route_options(mechanism, kind.name, relation, delta))
    if delta is not None and searches is not None and tuple(searches) != DEFAULT_SEARCHES and "local" in searches:
        raise ValueError("--search local: not used by (ε, δ) verification (it searches grid, structured and random "
                         "families); an option that cannot apply is refused, not ignored")
    report = progress or (lambda k, t: None)
    if tolerance is not None and (not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool)
                                  or not 0 < tolerance < 1):
        raise ValueError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    if tolerance is not None and (not kind.selection or relation is not None or delta is not None):
        raise ValueError("tolerance: applies to the pure-DP bracket of a selection mechanism on a neighbourhood "
                         "(not with --delta, --relation or other output kinds)")
    if delta is not None:
        from .search.approx_dp import parse_delta, verify_approx

        d = parse_delta(delta)
        nb = parse_neighbourhood(neighbourhood, mechanism) if kind.selection and relation is None else None
        if searches is None and values is None and relation is None:
            v = _pure_proof_gives_approx(mechanism, kind.selection, nb, n, d, name)
            if v is not None:
                return v
        return verify_approx(mechanism, delta, n=n, relation=relation, values=values, steps=steps, neighbourhood=nb,
                             searches=tuple(s for s in (searches or ("grid", "structured")) if s != "local"), name=name,
                             progress=progress)
    if not kind.selection or relation is not None:
        report("step", f"verifying {name or mechanism.short_name} ({kind.name} outputs)")
        extra = {"neighbourhood": parse_neighbourhood(neighbourhood, mechanism)} if "neighbourhood" in given else {}
        return verify_mechanism(mechanism, n, relation, name=name, **extra)
    from .search.selection import verify

    nb = parse_neighbourhood(neighbourhood, mechanism)
    if searches is None and values is None and _theorem_proves(mechanism, n, nb):
        # a theorem covers every input: no counterexample exists, so the scope search is skipped
        # (--search runs it anyway) and only the lower end is searched
        v = _proved_verdict(mechanism, nb, name)
    else:
        v = verify(mechanism, nb, tuple(searches or ("grid", "structured", "local")), n=n, values=values, steps=steps,
                   name=name, progress=progress, checked=True)
    extend_by_couplings(v, mechanism, nb)
    if not mechanism_properties(mechanism).certified:  # a sampler-only black box: no bracket
        return v
    report("step", "ε bracket: proof above, maximised witness below")
    return bracket_selection(v, mechanism, nb, n, tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance)


def verify(mechanism: str | Path | AnyMechanism, *, epsilon: Any = None, sensitivity: Any = None, monotone: bool = False,
           param: Mapping[str, Any] | None = None, neighbourhood: str = "default", search: str | Sequence[str] | None = None,
           n: int | None = None, values: Sequence[Any] | None = None, steps: int = 1, delta: Any = None,
           relation: str | None = None, tolerance: float | None = None) -> Verdict:
    """Is the claimed ε (or, with ``delta``, (ε, δ)) of ``mechanism`` true? ``dpexact verify`` as a function.

    ``mechanism`` is a registry name, ``PATH.py:OBJECT`` / ``module:OBJECT`` (a string or a path object; built with ``epsilon``,
    ``sensitivity``, ``monotone`` and the ``param`` dict) or a mechanism object (which carries its own
    parameters: giving them too is an error). The other keywords are the CLI's options: ``neighbourhood``
    (default | box[:Δ] | monotone[:Δ] | add-remove | replace | any-pair), ``search`` (grid | structured |
    random | local, one or several), ``n``, ``values``, ``steps``, ``delta``, ``relation`` and
    ``tolerance``. The mechanism is checked once here (:func:`~dpexact.mechanisms.resolve.resolve_mechanism`);
    the route is :func:`verify_any`'s.

    Example: ``dpexact.verify("pf", epsilon=1, n=3).verdict``.

    Args:
        mechanism: registry name, ``PATH.py:OBJECT`` / ``module:OBJECT`` or a mechanism object.
        epsilon: the claimed ε (exact: ``"1/2"``, ``"2*log(3)"``); for a name or path only.
        sensitivity: Δ (default 1); for a name or path only.
        monotone: monotone quality (pf Remark 1); for a name or path only.
        param: further mechanism parameters (``-p name=value``).
        neighbourhood: default | box[:Δ] | monotone[:Δ] | add-remove | replace | any-pair.
        search: grid | structured | random | local, one or several.
        n: the number of candidates / queries searched.
        values: the score values of the grid search.
        steps: the grid search's steps between values.
        delta: δ of an (ε, δ) claim (``None``: pure ε-DP).
        relation: the query relation of a sparse-vector-type mechanism.
        tolerance: the width of the ε bracket asked for.

    Returns:
        The :class:`~dpexact.verify.verdict.Verdict` (``verdict``, ``certified``, ``epsilon_bracket``,
        its counterexample or proof and the scope it covers).

    Raises:
        ValueError, TypeError: bad mechanism, parameters or options (one line naming the argument).
    """
    from ..mechanisms.resolve import resolve_mechanism

    if isinstance(mechanism, os.PathLike):  # a file path object: the loader's PATH.py:OBJECT string
        mechanism = os.fspath(mechanism)
    m = resolve_mechanism(mechanism, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, param=param)
    if isinstance(search, str):
        search = (search,)
    elif search is not None and not all(isinstance(s, str) for s in search):
        raise TypeError("search must be a search name or a sequence of them (grid, structured, random, local)")
    if isinstance(values, (str, bytes)):
        raise TypeError("values must be a sequence of numbers, not a string")
    return verify_any(m, neighbourhood=neighbourhood, searches=tuple(search) if search else None, n=n,
                      values=list(values) if values is not None else None, steps=steps, relation=relation,
                      delta=delta,
                      name=mechanism if isinstance(mechanism, str) else None, tolerance=tolerance)
