"""Whole-space proofs: units that prove an upper end of the ε bracket for every input of a domain.

Each unit has a ``name``, ``supports(mechanism, n, relation) -> bool`` and
``prove(mechanism, n, relation) -> bracket.Proof | None`` (None: the method proves nothing here).
:data:`PROOFS` is the ordered list the router tries; the first proof returned is used.
"""

from __future__ import annotations

from typing import Any

from ..bracket import Proof
from .symbolic_coupling import NoisyMaxProof, ThresholdShiftProof

__all__ = ["PROOFS", "first_proof"]

PROOFS: list[Any] = [ThresholdShiftProof(), NoisyMaxProof()]


def first_proof(mechanism: Any, n: int | None, relation: str | None) -> Proof | None:
    """The first proof of :data:`PROOFS` that supports ``mechanism`` and proves something."""
    for unit in PROOFS:
        if unit.supports(mechanism, n, relation):
            p = unit.prove(mechanism, n, relation)
            if p is not None:
                return p
    return None
