"""The routes a claim can take, as units beside the proof units (:mod:`.proofs`): one ordered list
:data:`ROUTES`, the first that supports the claim is the plan, and the plan both names the options it
honours (the refusal reads it, :mod:`.options`) and runs.

Every route offers one interface (:class:`Route`): a ``name``; ``supports(claim, request) -> bool``;
``honours(claim, request) -> (options, route name)``; ``run(claim, request, report) -> Verdict``.

==================  ==========================================  =============================================
route               supports                                    runs
==================  ==========================================  =============================================
``approx``          δ is set                                    ε-DP proved for every input (then (ε, δ) for
                                                                every δ), else the first (ε, δ) search unit
                                                                of :data:`.search.approx_dp.APPROX_SEARCHES`
``score-families``  a selection claim on a score neighbourhood  a theorem (then no scope search) or the
                                                                score-family search, the noisy-max coupling,
                                                                the ε bracket (:mod:`.proofs.selection_bracket`)
``whole-space``     every other claim                           the proofs of :data:`.proofs.PROOFS`, the
                                                                units giving a whole verdict, else the search
                                                                of the output kind (:data:`.kinds.KINDS`)
==================  ==========================================  =============================================
"""

from __future__ import annotations

import time
from typing import Callable, Protocol, runtime_checkable

from ..protocols import AnyMechanism, Neighbourhood
from .claim import Claim, Request
from .kinds import kind_of
from .neighbourhoods import own_relation
from .verdict import Verdict

__all__ = ["Route", "ROUTES", "plan", "Report"]

#: a progress callback: (kind, text)
Report = Callable[[str, str], None]


@runtime_checkable
class Route(Protocol):
    """A way to verify a claim (module docstring)."""

    name: str

    def supports(self, claim: Claim, request: Request) -> bool: ...

    def honours(self, claim: Claim, request: Request) -> tuple[frozenset[str], str]: ...

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict: ...


def _who(claim: Claim) -> str:
    return f"{claim.mechanism.short_name} ({kind_of(claim.mechanism).name} outputs)"


class ApproxRoute:
    """(ε, δ)-DP: a whole-space ε-DP proof gives it for every δ [Dwork–Roth 2014, Def. 2.4], else the
    hockey-stick divergence over the scope (:mod:`.search.approx_dp`)."""

    name = "approx"

    def supports(self, claim: Claim, request: Request) -> bool:
        return claim.delta is not None

    def honours(self, claim: Claim, request: Request) -> tuple[frozenset[str], str]:
        from .search.approx_dp import approx_search

        if request.searches is not None and "local" in request.searches and "searches" in request.given:
            raise ValueError("--search local: not used by (ε, δ) verification (it searches grid, structured and "
                             "random families); an option that cannot apply is refused, not ignored")
        return approx_search(claim, request).honours(claim, request), f"the (ε, δ) verification of {_who(claim)}"

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from .search.approx_dp import approx_search

        if request.defaults_only and claim.relation is None:
            v = _pure_proof_gives_approx(claim, request)
            if v is not None:
                return v
        return approx_search(claim, request).run(claim, request, report)


def _pure_proof_gives_approx(claim: Claim, request: Request) -> Verdict | None:
    """``private`` for (ε, δ) when a whole-space proof gives ε-DP, else None (then the (ε, δ) search runs).

    ε-DP is (ε, 0)-DP, hence (ε, δ)-DP for every δ >= 0 [Dwork–Roth 2014, Def. 2.4]: the hockey-stick
    divergence H_{e^ε}(P_q || P_q') = Σ_o max(0, P_q(o) − e^ε P_q'(o)) is 0 for every neighbour pair.
    Only a proof for every input counts (a selection theorem over R^n, or a unit of :data:`.proofs.PROOFS`
    for the mechanism's own relation), never a search."""
    from ..protocols import mechanism_size
    from .proofs import first_proof
    from .proofs.outcome import proved_verdict, proves
    from .proofs.selection_theorems import theorem_proof

    t0 = time.perf_counter()
    m, nb = claim.mechanism, claim.neighbourhood
    if kind_of(m).selection:
        proof = theorem_proof(m, request.n or mechanism_size(m) or 3, nb) if nb is not None else None
    else:
        proof = first_proof(m, request.n, own_relation(m))[1]
    if proof is None or not proves(proof, m):
        return None
    v = proved_verdict(m, proof, claim.name, time.perf_counter() - t0)
    v.delta, v.worst_delta = str(claim.delta), 0.0
    v.reason = (f"{v.reason + '; ' if v.reason else ''}ε-DP proved for every input implies (ε, δ)-DP for every "
                f"δ >= 0 (Dwork–Roth Def. 2.4: the hockey-stick divergence at e^ε is 0 <= δ = {claim.delta}); "
                f"no (ε, δ) scope was searched (--search runs one)")
    return v


class ScoreFamilyRoute:
    """A selection claim on a score neighbourhood: a theorem or the score-family search, then the bracket."""

    name = "score-families"

    def supports(self, claim: Claim, request: Request) -> bool:
        return kind_of(claim.mechanism).selection and claim.relation is None

    def honours(self, claim: Claim, request: Request) -> tuple[frozenset[str], str]:
        from .options import honoured_by
        from .search.selection import verify

        # the ε bracket's width is asked of this route only
        return honoured_by(verify) | {"tolerance"}, f"the score-family search of {_who(claim)}"

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        from ..protocols import mechanism_properties
        from .proofs.selection_bracket import DEFAULT_TOLERANCE, bracket_selection, extend_by_couplings, theorem_proves
        from .search.selection import verify

        m, nb = claim.mechanism, claim.neighbourhood
        assert nb is not None  # read_claim parses the score neighbourhood of a selection claim
        t0 = time.perf_counter()
        if request.defaults_only and theorem_proves(m, request.n, nb):
            # a theorem covers every input (directly, or through a law proved identical to a registered one):
            # no counterexample exists, so the scope search is skipped (--search runs it anyway) and only the
            # lower end is searched
            v = _theorem_verdict(claim, time.perf_counter() - t0)  # the proof's time (a law identity's symbolic runs)
        else:
            v = verify(m, nb, request.searches or ("grid", "structured", "local"), n=request.n,
                       values=None if request.values is None else list(request.values), steps=request.steps,
                       name=claim.name, progress=report, checked=True)
        extend_by_couplings(v, m, nb)
        if not mechanism_properties(m).certified:  # a sampler-only black box: no bracket
            return v
        report("step", "ε bracket: proof above, maximised witness below")
        return bracket_selection(v, m, nb, request.n,
                                 tolerance=DEFAULT_TOLERANCE if request.tolerance is None else request.tolerance)


def _theorem_verdict(claim: Claim, seconds: float) -> Verdict:
    """The verdict before its bracket when a theorem decides it: no scope was searched; ``seconds`` is what
    deciding that took."""
    import math

    from .verdict import Scope, build_verdict

    assert claim.neighbourhood is not None
    scope = Scope(neighbourhood=claim.neighbourhood.describe(),
                  notes=["no scope search: a theorem proves the claimed ε for every input (of the stated n, for a law "
                         "proved identical to a registered one; run --search to add the finite-scope search)"])
    # "undecided" until bracket_selection puts the theorem above and the maximised witness below
    return build_verdict(claim.mechanism, name=claim.name, epsilon=claim.epsilon, verdict="undecided", scope=scope,
                         worst_log_ratio=-math.inf, seconds=seconds)


class WholeSpaceRoute:
    """Every other claim: a whole-space proof, a unit giving a whole verdict, else the output kind's search
    (:func:`_whole_space`, whose docstring says what each gives)."""

    name = "whole-space"

    def supports(self, claim: Claim, request: Request) -> bool:
        return True

    def honours(self, claim: Claim, request: Request) -> tuple[frozenset[str], str]:
        from .proofs import verdict_units

        kind, who = kind_of(claim.mechanism), _who(claim)
        for unit in verdict_units():  # a unit with a route of its own (a closed form); the coupling shares its kind's
            route = unit.route(claim.mechanism) if unit.supports(claim.mechanism, None, claim.relation) else None
            if route is not None:
                return route[0], f"{route[1]} of {who}"
        if kind.options is None:
            return frozenset(), who
        honoured, route_name = kind.options(claim.mechanism, claim.relation)
        return honoured, f"{route_name} of {who}"

    def run(self, claim: Claim, request: Request, report: Report) -> Verdict:
        report("step", f"verifying {claim.label} ({kind_of(claim.mechanism).name} outputs)")
        return _whole_space(claim.mechanism, request.n, claim.relation, name=claim.name,
                            neighbourhood=claim.neighbourhood if "neighbourhood" in request.given else None)


def _whole_space(mechanism: AnyMechanism, n: int | None = None, relation: str | None = None,
                 name: str | None = None, neighbourhood: Neighbourhood | None = None) -> Verdict:
    """The whole-space route: the proofs of :data:`.proofs.PROOFS` first (``private`` when one proves ε
    for every input of its domain), else the first unit of :func:`.proofs.verdict_units` that supports
    the mechanism and decides, else the search of its output kind (:data:`.kinds.KINDS`); the verdict
    carries the ε bracket (the search's certified witness or a unit's below, a proof's larger bound above).

    ``relation``: ``"all-differ"`` / ``"one-differ"`` / ``"monotone"`` (default: the relation of the
    mechanism's own claim). ``neighbourhood``: a score neighbourhood asked for (only a verdict unit whose
    route honours it is reached: the proofs are stated for the mechanism's own relation).
    """
    from .proofs import first_proof
    from .bracket import EpsilonBracket
    from .proofs.outcome import attach_bracket, closed_by_search, proved_verdict, proves
    from .search.pattern_level import widest_pattern_witness

    t0 = time.perf_counter()
    kind = kind_of(mechanism)
    unit = proof = None
    rel = relation if relation is not None else own_relation(mechanism)
    if (not kind.selection or relation is not None) and neighbourhood is None:
        unit, proof = first_proof(mechanism, n, rel)
        if proof is not None and proves(proof, mechanism):
            return proved_verdict(mechanism, proof, name, time.perf_counter() - t0,
                                  witness=unit.witness(mechanism, n, rel) if unit is not None else None)
    v = _unit_or_kind_search(mechanism, n, relation, name, neighbourhood)
    witness = None if unit is None else unit.witness(mechanism, n, rel)
    done = closed_by_search(v, proof) or EpsilonBracket(witness, proof).closed()  # a closed bracket: no more search
    if v.verdict == "violated" and not done:
        witness = widest_pattern_witness(v, mechanism, n, rel, proof, witness)
    v = attach_bracket(v, proof, witness)
    if v.verdict == "violated" and v.bracket is not None:  # the level over every n, beside the stated n's bracket
        from dataclasses import replace

        from .proofs.unbounded_family import witness_family

        family = witness_family(mechanism, rel)
        if family is not None:
            v.bracket = replace(v.bracket, family=family)
    v.seconds = time.perf_counter() - t0
    return v


def _unit_or_kind_search(mechanism: AnyMechanism, n: int | None = None, relation: str | None = None,
                         name: str | None = None, neighbourhood: Neighbourhood | None = None) -> Verdict:
    """The first unit of :func:`.proofs.verdict_units` that supports the mechanism and decides, else the
    search registered for its output kind (:data:`.kinds.KINDS`)."""
    from .proofs import verdict_units

    kind = kind_of(mechanism)
    if relation is None and not kind.selection:
        relation = own_relation(mechanism)
    for unit in verdict_units():
        if unit.supports(mechanism, n, relation):
            v = (unit.verdict(mechanism, n, relation, name=name) if neighbourhood is None
                 else unit.verdict(mechanism, n, relation, name=name, neighbourhood=neighbourhood))
            if v is not None:
                return v
    if kind.search is None:
        raise TypeError(f"mechanism: no verifier for output kind {kind.name!r}")
    return kind.search(mechanism, n, relation, name)


#: the one ordered list of routes; the first that supports the claim is the plan
ROUTES: list[Route] = [ApproxRoute(), ScoreFamilyRoute(), WholeSpaceRoute()]


def plan(claim: Claim, request: Request) -> Route:
    """The first route of :data:`ROUTES` that supports the claim (the last supports every claim)."""
    return next(r for r in ROUTES if r.supports(claim, request))
