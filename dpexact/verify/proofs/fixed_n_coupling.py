"""The threshold-shift coupling checked at the stated n: an upper end where no bound holds for every n.

:mod:`.symbolic_coupling` proves a bound for *every* n, which needs the law's count rule (a cutoff)
to cap the costly answers. Without a cutoff (Lyu, Su & Li 2017 Algorithms 5 and 6: ∞-DP as n grows)
or with a factor that only the zero shift aligns (a released noisy answer, Algorithm 3) there is no
such bound, but at a stated n the coupling of :func:`.threshold_coupling.coupling_bound` — every
output of n queries, its factors read from the law, the best shift per output on a grid (s = 0, no
shift at all, among them) — still bounds the level for every pair of neighbours and every output set:
the upper end of a violated verdict at that n (svt6 at n = 10: ``nΔ/b2`` = 1/2, Lyu et al. §4).

Its witness is :func:`..search.tail_witness.tail_witness` on the worst outputs: the bound is the
level when the tail witness reaches it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, ThresholdCouplingLaw
from ..bracket import Proof, Witness
from .symbolic_coupling import _NEIGHBOURS, round_up
from .threshold_coupling import CouplingBound, coupling_bound

__all__ = ["FixedNCoupling", "cached_bound", "coupling_witness"]

_RELATIONS = ("all-differ", "monotone", "one-differ")
#: largest number of outputs the coupling enumerates (2^10 patterns at n = 10 cost ~1 s)
MAX_OUTPUTS = 4096


@lru_cache(maxsize=64)
def _bound(mechanism: Any, n: int, relation: str) -> CouplingBound:
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


class FixedNCoupling:
    """Proof unit: the threshold-shift coupling over every output of the stated n (module docstring)."""

    name = "threshold-shift coupling (checked at the stated n)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: Any) -> bool:
        return (isinstance(mechanism, ThresholdCouplingLaw) and n is not None
                and (relation is None or isinstance(relation, str)) and (relation or "all-differ") in _RELATIONS)

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        rel = relation or "all-differ"
        cb = cached_bound(mechanism, n, rel)
        if cb is None or not cb.finite:
            return None
        return Proof(upper_float=round_up(cb.bound), method="coupling", upper=str(cb.bound),
                     theorem="threshold-shift coupling (Lyu, Su & Li, VLDB 2017, proof of Theorem 2) checked on the "
                             "law's own factors for every output of n queries",
                     domain={"n": n, "epsilon": str(mechanism.epsilon), "sensitivity": str(mechanism.sensitivity),
                             "neighbourhood": _NEIGHBOURS[rel], "scores": "R^n", "outputs": "every output set"},
                     details={"statement": f"log-ratio <= {cb.bound} for every pair of neighbours and every output set "
                                           f"of {n} queries ({cb.outputs} outputs; worst {cb.output!r}, shift "
                                           f"{cb.shift})", "worst_output": cb.output, "shift": str(cb.shift)})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        return coupling_witness(mechanism, n, relation)
