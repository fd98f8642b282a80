"""The coupling at a stated n computed once, and the witness at its bound.

:func:`cached_bound` is :func:`.threshold_coupling.coupling_bound` remembered per (mechanism, n,
relation) — the proof unit, its witness and ``bench-peers``' coupling column read the same
enumeration of every output (2^10 patterns at n = 10). :func:`coupling_witness` runs the tail witness
(:mod:`..search.tail_witness`) on the outputs where the coupling bound is largest.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, ThresholdCouplingLaw
from ..bracket import Witness
from .threshold_coupling import CouplingBound, coupling_bound

__all__ = ["cached_bound", "coupling_witness", "MAX_OUTPUTS"]

#: largest number of outputs the coupling enumerates (2^10 patterns at n = 10 cost ~1 s)
MAX_OUTPUTS = 4096


@lru_cache(maxsize=64)
def _bound(mechanism: AnyMechanism, n: int, relation: str) -> CouplingBound:
    return coupling_bound(mechanism, n, relation)


def cached_bound(mechanism: AnyMechanism, n: int, relation: str) -> CouplingBound | None:
    """:func:`.threshold_coupling.coupling_bound`, computed once per (mechanism, n, relation); None when
    the outputs cannot be enumerated within :data:`MAX_OUTPUTS`."""
    try:
        if len(mechanism.outputs(n)) > MAX_OUTPUTS:
            return None
    except ValueError:
        return None
    try:
        return _bound(mechanism, n, relation)
    except TypeError:  # an unhashable mechanism: not cached
        return coupling_bound(mechanism, n, relation)


def coupling_witness(mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
    """The tail witness (:mod:`..search.tail_witness`) on the coupling's worst outputs at n (default 10)."""
    from ..search.tail_witness import tail_witness

    rel = relation or "all-differ"
    if not isinstance(mechanism, ThresholdCouplingLaw) or rel not in ("all-differ", "monotone"):
        return None
    nn = n if n is not None else 10
    cb = cached_bound(mechanism, nn, rel)
    if cb is None or not cb.finite:
        return None
    worst = [o for o, b, _ in cb.per_output if b == cb.bound]
    return tail_witness(mechanism, nn, rel, worst, target=float(Real.of(cb.bound).to_float()))
