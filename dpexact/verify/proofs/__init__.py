"""Whole-space proofs: closed forms, couplings (threshold, noisy max), the symbolic lattice.

Each proof unit has a ``name``, ``supports(mechanism, n, relation) -> bool`` and a method returning a
:class:`~dpexact.verify.bracket.Proof` (or None). :data:`PROOFS` is the ordered list the router tries.
Submodules are imported on use.
"""

from __future__ import annotations

#: the proof units the router tries, in order (the first that supports a mechanism and proves wins)
PROOFS: list = []
