"""The level of mechanisms run side by side on the same scores with independent noise: the sum of theirs.

For a ``composed`` mechanism (:class:`~dpexact.protocols.Components`: the components run on the same
scores, each with its own randomness) the law of the joint output is the product of the components'
laws, so for every pair of neighbours its density ratio is the product of theirs and

    ε*(M_1 × … × M_k) <= ε*(M_1) + … + ε*(M_k)

(basic composition: Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.14). The
upper end is the sum of the components' proved upper ends (:func:`.first_proof` on each, every one a
proof over the whole domain of the stated n); without a proof for every component, none.

The witness runs the components' tail witnesses (:mod:`..search.tail_witness`) on one common pair:
for each placement of the first component's worst outputs, every component's worst outputs are
certified at that same ``(q, q')`` and the best of each is kept; the product event has the product
probabilities, so its certified log-ratio is the sum (DP-Sniper's SVT34Parallel: svt3 and svt4 both
reach their coupling bounds on the same tail pair, 1/4 + 13/40 at n = 10, c = 2).
"""

from __future__ import annotations

from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, Components, Neighbourhood
from ..bracket import Proof, Witness
from .symbolic_coupling import round_up

__all__ = ["ComposedLevel"]

#: a witness this close (relative) to the sum of the components' coupling bounds ends the search
_TOLERANCE = 1e-7


def _relation(relation: Neighbourhood | str | None) -> str | None:
    return (relation or "all-differ") if relation is None or isinstance(relation, str) else None


class ComposedLevel:
    """Proof unit: the sum of the components' proved levels (module docstring)."""

    name = "basic composition of independent components"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> bool:
        return isinstance(mechanism, Components) and n is not None and _relation(relation) is not None

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        from . import first_proof

        rel = _relation(relation)
        total, parts = Real.of(0), []
        for c in mechanism.components():
            _, p = first_proof(c, n, rel)
            if p is None or not p.whole_domain or p.domain.get("n") not in (n, "every") or p.upper is None:
                return None
            total = total + Real.of(p.upper)
            parts.append(f"{c.short_name}: {p.upper} ({p.method})")
        return Proof(upper_float=round_up(total.to_sympy() if not total.is_rational else total.value),
                     method="composition", upper=str(total),
                     theorem="basic composition of independent mechanisms on the same input (Dwork, McSherry, Nissim "
                             "& Smith 2006; Dwork & Roth 2014, Theorem 3.14)",
                     domain={"n": n, "epsilon": str(mechanism.epsilon), "neighbourhood": rel, "scores": "R^n",
                             "outputs": "every output set"},
                     details={"statement": f"log-ratio <= {' + '.join(parts)} = {total}", "components": parts})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        from ..search.tail_witness import MAX_OUTPUTS, certify, lower_float, placements
        from .coupling_witness import cached_bound

        rel = _relation(relation)
        parts = mechanism.components()
        worst, bounds = [], []
        for c in parts:
            try:
                cb = cached_bound(c, n, rel)
            except (TypeError, ValueError, AttributeError):
                return None
            if cb is None or not cb.finite:
                return None
            worst.append([o for o, b, _ in cb.per_output if b == cb.bound])
            bounds.append(float(Real.of(cb.bound).to_float()))
        target = sum(bounds)
        best: tuple[float, Witness | None] = (0.0, None)
        for o0, q, q2, how in placements(parts[0], n, rel, worst[0]):
            total, outs = None, []
            for c, outputs, bound in zip(parts, worst, bounds):
                pick = None
                for o in ([o0] if c is parts[0] else sorted(outputs, key=lambda o: o != o0)[:MAX_OUTPUTS]):
                    got = certify(c, o, q, q2)
                    if got is not None and (pick is None or lower_float(got[0]) > lower_float(pick[0])):
                        pick = got
                    if pick is not None and bound - lower_float(pick[0]) <= _TOLERANCE * max(1.0, bound):
                        break  # this component is at its coupling bound on this pair
                if pick is None:
                    break
                total = pick[0] if total is None else total + pick[0]
                outs.append({"component": c.short_name, "output": pick[1]})
            else:
                lo = lower_float(total)
                if lo > best[0]:
                    best = (lo, Witness(lower_float=lo, scores=tuple(map(str, q)), neighbour_scores=tuple(map(str, q2)),
                                        output=outs, arithmetic="ball:256",
                                        note=f"product event of the components' tail witnesses on one pair ({how})"))
                if target - lo <= _TOLERANCE * max(1.0, target):
                    break
        return best[1]
