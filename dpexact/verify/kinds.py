"""The one table of output kinds: what a mechanism of each kind releases, how one event's probability is
asked, and which search of :mod:`.search` verifies its claimed ε.

==============  =======  ==================================================  ===========================  =========
kind            finite   an event's probability                              pure-ε search (default n)     real
==============  =======  ==================================================  ===========================  =========
``selection``   yes      ``pmf(q)[r]``                                       score families                no
                                                                             (:mod:`.search.selection`);
                                                                             with a relation, the peers'
                                                                             query pairs (5)
``finite``      yes      ``pattern_probability(q, o)`` (:class:`PatternLaw`) finite patterns (10); without  no
                                                                             a pattern law as selection
``mixed``       yes      ``part_box_probability(q, o, box)``                 boxes (10), refutation only   no
                         (:class:`PartBoxLaw`: pattern × values)
``interval``    no       ``interval_probability(q, lo, hi)``                 intervals (5), refutation     yes
``continuous``  no       ``box_probability(q, box)`` (:class:`BoxLaw`)       boxes (3), refutation only    yes
``composed``    no       its ``components``                                  a component's search (10),    no
                                                                             refutation only
==============  =======  ==================================================  ===========================  =========

The routes (:mod:`.routes`), conformance, ``dpexact pmf`` and ``dpexact prob`` read this table (its rows
answer ``selection``, ``parts``, ``interval``, ``density``, ``composed``); the layers it cannot be imported
from (the searches, the proof units, utility) read the same facts as the kind tuples of
:mod:`dpexact.protocols` (``SELECTION_KINDS``, ``PART_KINDS``, …), which this module asserts agree with its
rows. Nothing else compares a kind's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..protocols import (COMPOSED_KINDS, DENSITY_KINDS, FINITE_KINDS, INTERVAL_KINDS, PART_KINDS, REAL_KINDS, SELECTION_KINDS,
                         AnyMechanism, Backend, BoxLaw, ContinuousMechanism, CouplingLaw, Mechanism, PatternLaw, box_law)

__all__ = ["OutputKind", "KINDS", "kind_of"]


@dataclass(frozen=True)
class OutputKind:
    """One row of the table.

    Attributes:
        name: the ``output_kind`` a mechanism declares.
        finite: ``outputs(n)`` enumerates the output space (pmfs, patterns, the finite part of a mixed output).
        real: the output is real values only (``interval``, ``continuous``): decided on boxes of the values.
        selection: outputs are the candidates ``0..n-1`` (the score-family searches apply).
        search: the pure-ε search ``(mechanism, n, relation, name) -> Verdict``, None when only a
            proof can decide the kind.
        default_n: the n of that search when none is given (None: the search's own plan).
        event: ``(mechanism, scores, box, part, backend, name) -> (lower, upper)`` of
            ``Pr[M(q) ∈ {part} × box]`` for a kind that releases real values (``part`` the finite part of
            a mixed output, else None; equal ends for a closed form); None for the kinds without values.
        options: ``(mechanism, relation) -> (options, route)``: the ``verify`` options the kind's search
            honours (:mod:`.options`) and the route's name (the selection kind's entry is its query-pair
            route; without a relation the router runs the score families).
    """

    name: str
    finite: bool
    real: bool
    selection: bool
    search: Callable[..., Any] | None
    default_n: int | None
    event: Callable[..., tuple[Any, Any]] | None
    options: Callable[[Any, str | None], tuple[frozenset[str], str]] | None

    @property
    def parts(self) -> bool:
        """The output is a finite part with real values (a pattern × a box of the values)."""
        return self.name in PART_KINDS

    @property
    def interval(self) -> bool:
        """The output is one real value with an interval law (``interval_probability``)."""
        return self.name in INTERVAL_KINDS

    @property
    def density(self) -> bool:
        """The output is a real vector given by a density (``pdf``, ``logpdf``; a box law when declared)."""
        return self.name in DENSITY_KINDS

    @property
    def composed(self) -> bool:
        """The output is a tuple of independent components (``components``)."""
        return self.name in COMPOSED_KINDS


def _selection_search(m: Mechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    """Score families (or, with a relation, the peers' query pairs); a private verdict carries what
    the noisy-max coupling proves for every pair."""
    if relation is not None:  # the peers' query-pair families
        from .search.patterns import verify_patterns
        from .search.selection_outputs import SelectionOutputs

        adapter = SelectionOutputs(m)
        v = verify_patterns(adapter, n if n is not None else 5, relation, name=name)
        if adapter.exact_failure:  # the exact backend crashed: named, never a silent "undecided"
            v.scope.notes.append(adapter.exact_failure)
            if v.verdict == "inconclusive":
                v.reason = (v.reason + "; " if v.reason else "") + adapter.exact_failure
    else:
        from .search.selection import verify

        v = verify(m, n=n, name=name)
    if v.verdict == "private-within-scope":
        from .neighbourhoods import own_relation
        from .proofs.noisy_max_coupling import extend_by_noisy_max

        extend_by_noisy_max(v, m, relation or own_relation(m) or "all-differ")
    return v


def _finite_search(m: Mechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    """Every output of the query pairs; a private verdict of a law that states its factors carries what
    the threshold-shift coupling proves for every pair."""
    if not isinstance(m, PatternLaw):  # a finite law given by its pmf only: searched as a selection mechanism
        return _selection_search(m, n, relation, name)
    from .search.patterns import verify_patterns

    v = verify_patterns(m, n if n is not None else 10, relation or "all-differ", name=name)
    if v.verdict == "private-within-scope" and isinstance(m, CouplingLaw):
        from .proofs.threshold_coupling import extend_by_coupling

        extend_by_coupling(v, m, n if n is not None else 10, relation or "all-differ")
    return v


def _mixed_search(m: Mechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    from .search.boxes import verify_boxes

    return verify_boxes(m, n if n is not None else 10, relation or "all-differ", name=name)


def _interval_search(m: AnyMechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    from .search.boxes import verify_intervals

    return verify_intervals(m, n if n is not None else 5, relation or "all-differ", name=name)


def _continuous_search(m: AnyMechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    if not isinstance(m, BoxLaw):
        raise TypeError("mechanism: a continuous mechanism needs box_probability(q, box, backend) to be verified "
                        "(a density at points cannot certify a violation on a set of outputs)")
    from .neighbourhoods import query_relation
    from .search.boxes import verify_continuous_boxes

    return verify_continuous_boxes(m, n if n is not None else 3, relation or query_relation(m), name=name)



def _composed_search(m: ContinuousMechanism, n: int | None, relation: str | None, name: str | None) -> Any:
    """Refutation through one component: the components run on the same scores, so an event on one
    component's output (the others' unconstrained) has that component's probabilities, and a certified
    violation of a component refutes the whole. Anything short of that is ``inconclusive`` (only a
    proof could say more)."""
    import time

    t0 = time.perf_counter()
    nn = n if n is not None else 10
    parts = m.components()
    v = None
    for i, c in enumerate(parts):
        row = kind_of(c)
        if row.search is None:
            continue
        v = row.search(c, nn, relation or "all-differ", name or m.short_name)
        others = ", ".join(f"{d.short_name} output" for d in parts if d is not c) or "nothing else"
        v.scope.notes.append(f"event on the {c.short_name} component ({row.name} outputs), {others} unconstrained: "
                             "same probabilities as the component's event")
        if v.verdict == "violated":
            break
    if v is None:
        raise TypeError(f"mechanism: no component of {m.short_name} has a search of its own")
    if v.verdict != "violated":
        v.verdict = "inconclusive"
    v.params = m.params()
    v.seconds = time.perf_counter() - t0
    return v


def _pattern_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    from .options import honoured_by
    from .search.patterns import verify_patterns

    return honoured_by(verify_patterns), "the query-pair families"


def _finite_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    if isinstance(m, PatternLaw):
        return _pattern_options(m, relation)
    # a finite law given by its pmf only: the score families with their defaults
    return frozenset({"n"}) | (frozenset({"relation"}) if relation is not None else frozenset()), "the score-family search"


def _mixed_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    from .options import honoured_by
    from .proofs.threshold_coupling import verify_coupling
    from .search.boxes import verify_boxes

    return honoured_by(verify_boxes) & honoured_by(verify_coupling), "the box search"


def _interval_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    from .options import honoured_by
    from .search.boxes import verify_intervals

    return honoured_by(verify_intervals), "the interval search"


def _continuous_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    from .options import honoured_by
    from .search.boxes import verify_continuous_boxes

    return honoured_by(verify_continuous_boxes), "the box search"

def _composed_options(m: AnyMechanism, relation: str | None) -> tuple[frozenset[str], str]:
    return frozenset({"n", "relation"}), "the component searches"

def _mixed_event(m: AnyMechanism, scores: Sequence[Any], box: Sequence[tuple[Any, Any]], part: Any, backend: str | Backend,
                 name: str) -> tuple[Any, Any]:
    if part is None:
        raise ValueError("--pattern: a mixed output needs its finite part (a pattern such as FTT, or an index)")
    return m.part_box_probability(scores, part, box, backend=backend)


def _interval_event(m: AnyMechanism, scores: Sequence[Any], box: Sequence[tuple[Any, Any]], part: Any, backend: str | Backend,
                    name: str) -> tuple[Any, Any]:
    if len(box) != 1:
        raise ValueError(f"--box: {name} releases one real value, got {len(box)} intervals")
    p = box_law(m)(scores, box, backend=backend)
    return p, p


def _continuous_event(m: AnyMechanism, scores: Sequence[Any], box: Sequence[tuple[Any, Any]], part: Any, backend: str | Backend,
                      name: str) -> tuple[Any, Any]:
    if not isinstance(m, BoxLaw):
        raise ValueError(f"mechanism {name!r} states a density only (no box_probability)")
    p = m.box_probability(scores, box, backend=backend)
    return p, p


KINDS: dict[str, OutputKind] = {k.name: k for k in (
    OutputKind("selection", True, False, True, _selection_search, None, None, _pattern_options),
    OutputKind("finite", True, False, False, _finite_search, 10, None, _finite_options),
    OutputKind("mixed", True, False, False, _mixed_search, 10, _mixed_event, _mixed_options),
    OutputKind("interval", False, True, False, _interval_search, 5, _interval_event, _interval_options),
    OutputKind("continuous", False, True, False, _continuous_search, 3, _continuous_event, _continuous_options),
    OutputKind("composed", False, False, False, _composed_search, 10, None, _composed_options),
)}
# the facts each row states agree with the kinds the contract declares (protocols.py)
assert tuple(k for k in KINDS if KINDS[k].finite) == FINITE_KINDS
assert tuple(k for k in KINDS if KINDS[k].real) == REAL_KINDS
assert tuple(k for k in KINDS if KINDS[k].selection) == SELECTION_KINDS
assert tuple(k for k in KINDS if KINDS[k].event is not None and not KINDS[k].real) == PART_KINDS


def kind_of(mechanism: AnyMechanism) -> OutputKind:
    """The row of ``mechanism``'s declared ``output_kind`` (every mechanism declares one:
    :class:`~dpexact.protocols.Mechanism`)."""
    name = mechanism.output_kind
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise TypeError(f"mechanism: no verifier for output kind {name!r}") from None
