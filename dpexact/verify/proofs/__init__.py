"""Whole-space proofs: units that prove an upper end of the ε bracket for every input of a domain.

Each unit has a ``name``, ``supports(mechanism, n, relation) -> bool``,
``prove(mechanism, n, relation) -> bracket.Proof | None`` (None: the method proves nothing here) and
``witness(mechanism, n, relation) -> bracket.Witness | None`` (a certified lower end the method
constructs, e.g. at the level a density-ratio proof finds; None when it has none).
:data:`PROOFS` is the ordered list the router tries; the first proof returned is used.
"""

from __future__ import annotations

from typing import Any

from ..bracket import Proof
from .density_ratio import DensityRatioProof
from .finite_levels import RapporLevel, TruncatedGeometricLevel
from .symbolic_coupling import NoisyMaxProof, ThresholdShiftProof

__all__ = ["PROOFS", "first_proof"]

PROOFS: list[Any] = [ThresholdShiftProof(), NoisyMaxProof(), DensityRatioProof(), TruncatedGeometricLevel(), RapporLevel()]


def first_proof(mechanism: Any, n: int | None, relation: str | None) -> tuple[Any, Proof] | tuple[None, None]:
    """``(unit, proof)`` of the first unit of :data:`PROOFS` that supports ``mechanism`` and proves something."""
    for unit in PROOFS:
        if unit.supports(mechanism, n, relation):
            p = unit.prove(mechanism, n, relation)
            if p is not None:
                return unit, p
    return None, None
