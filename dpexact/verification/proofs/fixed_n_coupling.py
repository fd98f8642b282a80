"""The threshold-shift coupling checked at the stated n: an upper end where no bound holds for every n.

:mod:`.symbolic_coupling` proves a bound for *every* n, which needs the law's count rule (a cutoff)
to cap the costly answers. Without a cutoff (Lyu, Su & Li 2017 Algorithms 5 and 6: ∞-DP as n grows)
or with a factor that only the zero shift aligns (a released noisy answer, Algorithm 3) there is no
such bound, but at a stated n the coupling of :func:`.threshold_coupling.coupling_bound` — every
output of n queries, its factors read from the law, the best shift per output on a grid (s = 0, no
shift at all, among them) — still bounds the level for every pair of neighbours and every output set:
the upper end of a violated verdict at that n (svt6 at n = 10: ``nΔ/b2`` = 1/2, Lyu et al. §4).

Its witness is :func:`.coupling_witness.coupling_witness` (the tail witness on the worst outputs): the bound is the
level when the tail witness reaches it.
"""

from __future__ import annotations

from typing import Any

from ...protocols import AnyMechanism, Neighbourhood, ThresholdCouplingLaw
from ..bracket import Proof, Witness
from .coupling_witness import cached_bound, coupling_witness
from .symbolic_coupling import _NEIGHBOURS, round_up

__all__ = ["FixedNCoupling"]

_RELATIONS = ("all-differ", "monotone", "one-differ")


class FixedNCoupling:
    """Proof unit: the threshold-shift coupling over every output of the stated n (module docstring)."""

    name = "threshold-shift coupling (checked at the stated n)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> bool:
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
