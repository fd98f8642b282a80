"""The claim and the request as values: what is claimed of a mechanism, and how hard to look.

A :class:`Claim` is the statement verified — the mechanism, its claimed ε, δ (None: pure ε-DP) and
the neighbours it is about (a score neighbourhood object, or a query relation name for the peers'
query-pair families). A :class:`Request` is how the verifier is asked to work — n, the searches,
the grid values and steps, the bracket's tolerance — and which of those options the caller set
(those not at their default: a route that cannot honour one refuses it, :mod:`.options`).

Both are frozen and built once, by :func:`read_claim` (the one parser of ``verify``'s options): the
router, the routes, the verdict (:attr:`~.verdict.Verdict.claim`) and the replay record read them
and never re-parse a string. Modelled on DP-Auditorium's ``PrivacyProperty`` / runner config and
OpenDP's ``loss_of``: the claim is parsed once, then travels as one object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..numbers.real import Real
from ..protocols import AnyMechanism, Neighbourhood, claimed_epsilon
from .neighbourhoods import RELATIONS, parse_neighbourhood
from .options import DEFAULT_SEARCHES, given_options
from .scope_cost import check_scope_counts

__all__ = ["Claim", "Request", "read_claim", "parse_delta", "check_tolerance", "SEARCH_NAMES"]

#: the finite-scope searches a request may name
SEARCH_NAMES = ("grid", "structured", "random", "local")


def parse_delta(delta: Any) -> Real:
    """The claimed δ as an exact number in [0, 1), else a ``ValueError`` naming ``delta``."""
    d = Real.of(delta, "delta")
    if d.is_symbolic or not (d.sign() >= 0 and (d - 1).sign() < 0):
        raise ValueError(f"delta must be a number in [0, 1), got {delta!r}")
    return d


def check_tolerance(tolerance: Any) -> None:
    """``ValueError`` unless ``tolerance`` (the bracket width asked) is a number in (0, 1)."""
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be a number in (0, 1), got {tolerance!r}")


@dataclass(frozen=True)
class Claim:
    """``mechanism`` is (ε, δ)-DP (``delta`` None: pure ε-DP) with respect to its neighbours.

    Attributes:
        mechanism: the checked mechanism (the registry, the loader or :func:`dpexact.verify` checked it).
        epsilon: the claimed ε, exact (the mechanism's own :func:`~dpexact.protocols.claimed_epsilon`).
        delta: the claimed δ, exact, or None.
        neighbourhood: the score neighbourhood the claim is about (``--neighbourhood`` parsed once), or
            None where the claim is about a query relation or the mechanism's own neighbours.
        relation: the query relation name asked for (``all-differ`` | ``one-differ`` | ``monotone``), or None.
        name: the name the user gave the mechanism (a registry name, ``PATH.py:OBJECT``), or None.
        spec: the ``--neighbourhood`` text as given (``"default"`` when none was).
    """

    mechanism: AnyMechanism
    epsilon: Real
    delta: Real | None = None
    neighbourhood: Neighbourhood | None = None
    relation: str | None = None
    name: str | None = None
    spec: str = "default"

    @property
    def label(self) -> str:
        """The mechanism's name in messages and verdicts: the one the user gave, else its short name."""
        return self.name or self.mechanism.short_name

    @property
    def witness_neighbourhood(self) -> Neighbourhood | None:
        """The relation a bracket witness of this claim refers to (for its replay record): the score
        neighbourhood of a pure-DP claim on one; for a query relation name that is the mechanism's own
        (``all-differ`` for a sparse vector), the mechanism's own neighbourhood object; else None (such a
        witness is not replayed)."""
        if self.delta is not None:
            return None
        if self.relation is None:
            return self.neighbourhood
        from .neighbourhoods import query_relation

        try:
            own = query_relation(self.mechanism)
            nb = self.mechanism.neighbourhood() if own == self.relation else None
        except (TypeError, ValueError):
            return None
        return nb


@dataclass(frozen=True)
class Request:
    """How the verifier is asked to work on a claim.

    Attributes:
        n: the number of candidates / queries searched (None: the route's default).
        searches: the finite-scope searches named (None: the route's default).
        values: the grid search's score values (None: its default).
        steps: the box lattice resolution of the grid search.
        tolerance: the width asked of a selection claim's ε bracket (None: the default).
        prec: the ball precision (bits) of the scope's first decisions (re-checks use more).
        given: the options set away from their defaults (:func:`.options.given_options`), in a fixed order.
    """

    n: int | None = None
    searches: tuple[str, ...] | None = None
    values: tuple[Any, ...] | None = None
    steps: int = 1
    tolerance: float | None = None
    given: tuple[str, ...] = ()
    prec: int = 128

    @property
    def defaults_only(self) -> bool:
        """No search and no grid values named: a proof may answer without any finite-scope search."""
        return self.searches is None and self.values is None


def read_claim(mechanism: AnyMechanism, *, selection: bool, neighbourhood: str | Neighbourhood = "default",
               searches: Sequence[str] | None = None, n: int | None = None, values: Sequence[Any] | None = None,
               steps: int = 1, relation: str | None = None, delta: Any = None, name: str | None = None,
               tolerance: float | None = None) -> tuple[Claim, Request]:
    """The one parser of ``verify``'s options: each is checked once (a one-line ``ValueError`` /
    ``TypeError`` naming it) and the claim and the request are built from them.

    ``selection``: the mechanism's outputs are candidates (its kind's row, :mod:`.kinds`); without a
    relation its claim is about a score neighbourhood, which is parsed here (``neighbourhood`` a spec
    string, :func:`.neighbourhoods.parse_neighbourhood`, or a neighbourhood object taken as given).
    ``mechanism`` comes checked.
    """
    if relation is not None and relation not in RELATIONS:
        raise ValueError(f"relation must be all-differ, one-differ or monotone, got {str(relation)[:40]!r}")
    check_scope_counts(n, steps)  # n, steps: positive integers (n = -5 once answered "private")
    if isinstance(searches, str):
        searches = (searches,)
    elif searches is not None and not all(isinstance(s, str) for s in searches):
        raise TypeError("search must be a search name or a sequence of them (grid, structured, random, local)")
    if isinstance(values, (str, bytes)):
        raise TypeError("values must be a sequence of numbers, not a string")
    if tolerance is not None:
        check_tolerance(tolerance)
    given = tuple(given_options(neighbourhood=neighbourhood, searches=searches, n=n, values=values, steps=steps,
                                relation=relation, delta=delta, tolerance=tolerance))
    request = Request(n=n, searches=tuple(searches) if searches else None,
                      values=tuple(values) if values is not None else None, steps=steps, tolerance=tolerance, given=given)
    on_scores = selection and relation is None
    if isinstance(neighbourhood, Neighbourhood):
        nb, spec = neighbourhood, neighbourhood.describe()
    else:
        nb = parse_neighbourhood(neighbourhood, mechanism) if on_scores or "neighbourhood" in given else None
        spec = neighbourhood
    claim = Claim(mechanism, Real.of(claimed_epsilon(mechanism)), None if delta is None else parse_delta(delta),
                  nb, relation, name, spec)
    return claim, request


def searches_named(request: Request) -> bool:
    """Whether the request names searches other than the default set."""
    return request.searches is not None and request.searches != DEFAULT_SEARCHES
