"""Whole-space proofs: units that prove an upper end of the ε bracket for every input of a domain.

Every unit offers one interface (:class:`ProofUnit`): a ``name``;
``supports(mechanism, n, neighbourhood) -> bool``; ``prove(mechanism, n, neighbourhood) ->
bracket.Proof | None`` (None: the method proves nothing here); ``witness(mechanism, n, neighbourhood)
-> bracket.Witness | None`` (a certified lower end the method constructs, e.g. at the level a
density-ratio proof finds; None when it has none). ``neighbourhood`` is how the claim names its
neighbours, and each unit supports one of the two forms only:

* a score neighbourhood object (:class:`~dpexact.protocols.Neighbourhood`: ℓ∞ / monotone box) for
  selection mechanisms: the selection theorems (every n; :mod:`.selection_theorems`), then a law
  stated as noisy argmax of integer noise on integer scores (:mod:`.lattice_noisy_max`), then a
  ``define_mechanism`` law proved identical to a registered law at n, through that law's theorem
  (:mod:`.law_identity`), then the compact branch-and-bound over every real score vector for laws written with ``define_mechanism``
  (:mod:`.compact_bnb`: score gaps compactified, exact faces at infinity, tight levels decided
  exactly), then the branch-and-bound on a stated score box (:mod:`.selection_bnb`);
* a query relation name ``"all-differ"`` / ``"one-differ"`` / ``"monotone"`` (None: the mechanism's
  own) for every other claim: threshold-shift and noisy-max couplings checked symbolically
  (:mod:`.symbolic_coupling`), the threshold-shift coupling at the stated n (:mod:`.fixed_n_coupling`), density ratios (:mod:`.density_ratio`), exact finite levels
  (:mod:`.finite_levels`), noisy max's released value (:mod:`.max_value`), the sum of a composed
  mechanism's component levels (:mod:`.composed_level`).

Some units also give a whole verdict with its witness where a family's level is known
(:class:`VerdictUnit`: the checked threshold-shift coupling of a mixed sparse-vector law, the closed
forms of :mod:`.closed_forms`); they prove nothing before the search and the router
(:mod:`dpexact.verification.router`) asks them for their verdict before the search of the output kind
(:data:`dpexact.verification.kinds.KINDS`).

:data:`PROOFS` is the one ordered list the router tries (the first proof returned is used).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ...protocols import AnyMechanism, Neighbourhood
from ..bracket import Proof, Witness
from ..verdict import Verdict
from .closed_forms import ClosedForm
from .compact_bnb import CompactBnB
from .composed_level import ComposedLevel
from .density_ratio import DensityRatioProof
from .finite_levels import RapporLevel, TruncatedGeometricLevel
from .lattice_noisy_max import LatticeNoisyMax
from .law_identity import LawIdentity
from .fixed_n_coupling import FixedNCoupling
from .max_value import MaxValueLaplace
from .selection_bnb import SelectionBnB
from .selection_theorems import THEOREMS
from .symbolic_coupling import NoisyMaxProof, ThresholdShiftProof
from .threshold_coupling import ThresholdCoupling

__all__ = ["ProofUnit", "VerdictUnit", "PROOFS", "first_proof", "verdict_units"]

#: how a claim names its neighbours: a score neighbourhood object, or a query relation name (None: the mechanism's own)
NeighbourSpec = Neighbourhood | str | None


@runtime_checkable
class ProofUnit(Protocol):
    """A whole-space proof method (module docstring)."""

    name: str

    def supports(self, mechanism: AnyMechanism, n: int | None, neighbourhood: NeighbourSpec) -> bool: ...

    def prove(self, mechanism: AnyMechanism, n: int | None, neighbourhood: NeighbourSpec) -> Proof | None: ...

    def witness(self, mechanism: AnyMechanism, n: int | None, neighbourhood: NeighbourSpec) -> Witness | None: ...


@runtime_checkable
class VerdictUnit(ProofUnit, Protocol):
    """A unit that also gives a whole verdict (with its witness) before the search of the output kind:
    ``verdict(mechanism, n, relation, name=…, neighbourhood=…) -> Verdict | None`` (None: the search decides;
    ``neighbourhood`` is passed only when the caller asked for one, and only to a unit whose route honours it), and
    ``route(mechanism)``: the options its verifier honours and the route's name, or None when the
    output kind's search is the route."""

    def verdict(self, mechanism: AnyMechanism, n: int | None, relation: str | None, name: str | None = None,
                neighbourhood: Neighbourhood | None = None) -> Verdict | None: ...

    def route(self, mechanism: AnyMechanism) -> tuple[frozenset[str], str] | None: ...


#: the one ordered list of proof units (module docstring); the router tries them in this order
PROOFS: list[ProofUnit] = [*THEOREMS, LatticeNoisyMax(), LawIdentity(), CompactBnB(), SelectionBnB(), ThresholdShiftProof(), FixedNCoupling(), NoisyMaxProof(),
                           DensityRatioProof(), TruncatedGeometricLevel(), RapporLevel(), MaxValueLaplace(), ComposedLevel(),
                           ThresholdCoupling(),
                           ClosedForm()]


def first_proof(mechanism: AnyMechanism, n: int | None,
                neighbourhood: NeighbourSpec) -> tuple[ProofUnit, Proof] | tuple[None, None]:
    """``(unit, proof)`` of the first unit of :data:`PROOFS` that supports ``mechanism`` on ``neighbourhood``
    and proves something."""
    for unit in PROOFS:
        if unit.supports(mechanism, n, neighbourhood):
            p = unit.prove(mechanism, n, neighbourhood)
            if p is not None:
                return unit, p
    return None, None


def verdict_units() -> list[VerdictUnit]:
    """The units of :data:`PROOFS` that give a whole verdict, in order."""
    return [u for u in PROOFS if isinstance(u, VerdictUnit)]
