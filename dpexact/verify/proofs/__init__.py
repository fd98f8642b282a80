"""Whole-space proofs: closed forms, couplings (threshold, noisy max), the symbolic lattice.

Each proof unit has a ``name``, ``supports(mechanism, n, relation) -> bool`` and
``prove(mechanism, n, relation) -> Proof | None`` (a :class:`~dpexact.verify.bracket.Proof`; the
target is the mechanism's claimed ε; ``relation`` is a neighbourhood object). :data:`PROOFS` is the ordered list the router tries.
Submodules are imported on use.
"""

from __future__ import annotations

from .selection_bnb import SelectionBnB
from .selection_theorems import THEOREMS

#: the proof units the router tries, in order (the first that supports a mechanism and proves wins):
#: the selection theorems (every n; :mod:`.selection_theorems`), then the branch-and-bound on a
#: stated score box (:mod:`.selection_bnb`)
PROOFS: list = [*THEOREMS, SelectionBnB()]
