"""Whole-space proofs: units that prove an upper end of the ε bracket for every input of a domain.

Each unit has a ``name``, ``supports(mechanism, n, relation) -> bool``,
``prove(mechanism, n, relation) -> bracket.Proof | None`` (None: the method proves nothing here) and
``witness(mechanism, n, relation) -> bracket.Witness | None`` (a certified lower end the method
constructs, e.g. at the level a density-ratio proof finds; None when it has none).

Two ordered lists, by how the neighbouring relation is given (the first proof returned is used):

* :data:`SELECTION_PROOFS` — selection mechanisms on a score neighbourhood (a
  :class:`~dpexact.protocols.Neighbourhood` object: ℓ∞ / monotone box): the selection theorems
  (every n; :mod:`.selection_theorems`), then the branch-and-bound on a stated score box
  (:mod:`.selection_bnb`);
* :data:`PROOFS` — every other claim, on a query relation named ``"all-differ"`` /
  ``"one-differ"`` / ``"monotone"``: threshold-shift and noisy-max couplings checked symbolically
  (:mod:`.symbolic_coupling`), density ratios (:mod:`.density_ratio`), exact finite levels
  (:mod:`.finite_levels`), noisy max's released value (:mod:`.max_value`).

The router (:func:`~dpexact.verify.router.verify_mechanism`) then runs the search of the output kind
(:data:`dpexact.verify.kinds.KINDS`), after the units of :data:`VERDICT_UNITS`, which give a whole
verdict with its witness where a family's level is known: the checked threshold-shift coupling of a
mixed sparse-vector law, and the closed forms (:mod:`.closed_forms`).
"""

from __future__ import annotations

from typing import Any

from ..bracket import Proof
from .closed_forms import ClosedForm
from .density_ratio import DensityRatioProof
from .finite_levels import RapporLevel, TruncatedGeometricLevel
from .max_value import MaxValueLaplace
from .selection_bnb import SelectionBnB
from .selection_theorems import THEOREMS
from .symbolic_coupling import NoisyMaxProof, ThresholdShiftProof
from .threshold_coupling import ThresholdCoupling
from ...protocols import AnyMechanism

__all__ = ["PROOFS", "SELECTION_PROOFS", "VERDICT_UNITS", "first_proof"]

#: units on a query relation name (module docstring)
PROOFS: list[Any] = [ThresholdShiftProof(), NoisyMaxProof(), DensityRatioProof(), TruncatedGeometricLevel(), RapporLevel(),
                     MaxValueLaplace()]

#: units on a score neighbourhood object (module docstring)
SELECTION_PROOFS: list[Any] = [*THEOREMS, SelectionBnB()]

#: units giving a whole verdict (``supports(mechanism, n, relation)``, ``verdict(mechanism, n, relation,
#: name=…) -> Verdict | None``), tried before the search of the output kind
VERDICT_UNITS: list[Any] = [ThresholdCoupling(), ClosedForm()]


def first_proof(mechanism: AnyMechanism, n: int | None, relation: str | None) -> tuple[Any, Proof] | tuple[None, None]:
    """``(unit, proof)`` of the first unit of :data:`PROOFS` that supports ``mechanism`` and proves something."""
    for unit in PROOFS:
        if unit.supports(mechanism, n, relation):
            p = unit.prove(mechanism, n, relation)
            if p is not None:
                return unit, p
    return None, None
