"""hetsel: small ball-arithmetic helpers for the grouped scenario computations (the grouped pmfs
themselves are :mod:`dpexact.mechanisms.heterogeneous.grouped`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from ._helpers import _arb, _prec


def _half() -> Any:
    from flint import arb

    return arb(1) / 2


def _sum(xs: Sequence[Any]) -> Any:
    tot = xs[0] * 0
    for x in xs:
        tot = tot + x
    return tot


def _group_high_ball(m: int, d1: Any, d2: Any, eps: Any, gap: Any, prec: int = 128) -> Any:
    """Pr[max_{i≤m} z_i − max_{i>m} z_i ≤ gap] for z ~ Exp(ε/2Δ1) (first m) and Exp(ε/2Δ2) (last m).

    Computed from the law of the two maxima (independent of the mechanisms' code):
    ``∫_0^∞ F_{M1}(gap + x) f_{M2}(x) dx`` with ``F_{M}(x) = (1 − e^{−λx})^m``, cut at ``R`` with
    the tail ``≤ 1 − F_{M2}(R) ≤ m e^{−λ2 R}`` added to the radius (``gap ≥ 0``).
    """
    from flint import acb, arb

    with _prec(prec):
        e = _arb(eps, prec)
        l1, l2 = e / (2 * _arb(d1, prec)), e / (2 * _arb(d2, prec))
        g = _arb(gap, prec)
        S = (prec + 10) * math.log(2) + math.log(m)
        R = arb(math.ceil(S / float(l2.lower())) + 1)

        def f(x: Any, analytic: bool) -> Any:
            return (1 - (-l1 * (g + x)).exp()) ** m * m * l2 * (-l2 * x).exp() * (1 - (-l2 * x).exp()) ** (m - 1)

        return acb.integral(f, 0, R).real + arb(0, m * math.exp(-S))
