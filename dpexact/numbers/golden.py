"""Golden-section search for the minimum of a unimodal function of one float (Kiefer 1953; Press et al.,
*Numerical Recipes*, 3rd ed., §10.2): each step keeps the sub-bracket around the smaller of two interior values and
evaluates one new point, shrinking the bracket by g = (√5 − 1)/2.

Used for float *choices* (a tilt, a grid shift), never for a bound: what it returns decides how tight a result is,
not whether it is sound. The caller owns the evaluations (a memo of them, the least value seen)."""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["golden_section"]

GOLDEN = (math.sqrt(5) - 1) / 2


def golden_section(f: Callable[[float], float], a: float, b: float, steps: int, width: float = 0.0) -> tuple[float, float]:
    """The bracket [a, b] after at most ``steps`` golden-section steps on f (stopping once b − a <= ``width``).

    f is evaluated at c = b − g(b − a) and d = a + g(b − a), then once a step: 2 + steps evaluations at most."""
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if b - a <= width:
            break
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    return a, b
