"""Whole-space proofs: closed forms, couplings (threshold, noisy max), the symbolic lattice, and the
selection branch-and-bound and theorems.

A proof unit (:class:`ProofUnit`) has a ``name``, ``supports(mechanism, n, relation) -> bool`` and
``verdict(mechanism, n, relation, name=…) -> Verdict | None`` (None: it proves nothing here, the
search of the output kind runs). :data:`PROOFS` is the ordered list the router
(:func:`~dpexact.verify.router.verify_mechanism`) tries before that search; units that bound the
level of a selection mechanism return a :class:`~dpexact.verify.bracket.Proof` instead and are used
by the router's bracket (:func:`~dpexact.verify.router.bracket_selection`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ...protocols import AnyMechanism
from .closed_forms import ClosedForm
from .threshold_coupling import ThresholdCoupling

__all__ = ["ProofUnit", "PROOFS"]


@runtime_checkable
class ProofUnit(Protocol):
    """A whole-space proof the router tries (module docstring)."""

    name: str

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool: ...

    def verdict(self, mechanism: AnyMechanism, n: int | None, relation: str | None, name: str | None = None,
                **kwargs: Any) -> Any: ...


#: the proof units the router tries, in order (the first that supports a mechanism and decides wins)
PROOFS: list[ProofUnit] = [ThresholdCoupling(), ClosedForm()]
