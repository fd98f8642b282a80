"""A certified lower end near a face of the compact branch-and-bound.

A face of the compactified score space may sit at infinity (a gap σ = 0); the level it stands for is a
supremum approached there, never a point. To show the bracket's lower end is real, the face point is
moved a finite distance from infinity — each coordinate at infinity to a gap of ``-K·T`` for K in
:data:`WITNESS_DISTANCES` — and the mechanism's own law is evaluated at that finite pair in ball
arithmetic: the log-ratio's certified lower end is a witness on a real input pair.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...protocols import AnyMechanism, Neighbourhood
from ..bracket import Witness
from ..neighbourhoods import LInfBox
from .compact_faces import log_value
from .selection_paths import point_log_ratio

#: where the face of a gap at infinity is moved to for a finite witness: G = -K·T
WITNESS_DISTANCES = (4, 16, 64, 256, 1024, 4096)

__all__ = ["WITNESS_DISTANCES", "finite_witness"]


def finite_witness(mechanism: AnyMechanism, roots: list, point: tuple, nb: Neighbourhood, prec: int) -> Witness | None:
    """A certified lower end near a face point: each coordinate at infinity (σ = 0) moved to a gap of
    ``-K·T`` (T in :data:`WITNESS_DISTANCES`), the rest at the face or the box's lower end, the
    log-ratio evaluated on the mechanism's own law in ball arithmetic; the best one."""
    from ...numbers.backends import ball_context

    k, fixed = point
    root, box = roots[k]
    n = len(root.chart.paths_q[0].values)
    scale = max(Fraction(x) for x in (nb.deltas(n) if isinstance(nb, LInfBox) else [nb.sensitivity]))
    best = None
    with ball_context(prec):
        for t in WITNESS_DISTANCES:
            s0 = Fraction(1, 1 + t)
            vals: dict[str, Fraction] = {}
            for c, (name, kind) in enumerate(root.coords):
                s = fixed.get(c, box[c][0] if kind == "Z" else box[c][1])
                vals[name] = log_value(kind, s0 if (s == 0 and kind != "Z") else s, scale)
            q = [vals["L"] + (vals[f"G{a}"] if a != root.m else 0) for a in range(n)]
            q2 = [q[a] + vals[f"Z{a}"] for a in range(n)]
            if not nb.contains(tuple(q), tuple(q2)):
                continue
            lr = point_log_ratio(mechanism, root.r, q, q2, prec)
            if lr is None:
                continue
            lo = math.nextafter(float(lr.lower()), -math.inf)
            if best is None or lo > best[0]:
                best = (lo, q, q2)
    if best is None:
        return None
    lo, q, q2 = best
    return Witness(lower_float=lo, scores=tuple(str(x) for x in q), neighbour_scores=tuple(str(x) for x in q2),
                   output=root.r, arithmetic=f"ball:{prec}",
                   note="a face of the compact branch-and-bound moved a finite distance from infinity")
