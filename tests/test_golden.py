"""golden_section (dpexact.numbers.golden): the bracket holds the minimiser of a unimodal function and shrinks by the
golden ratio a step, with 2 + steps evaluations; against the closed-form minimiser of a parabola and |x − m|."""

from __future__ import annotations

import math

import pytest

from dpexact.numbers.golden import GOLDEN, golden_section


@pytest.mark.parametrize("m", [-2.5, 0.0, 0.3, 1.7, 3.999])
@pytest.mark.parametrize("shape", [lambda x, m: (x - m) ** 2, lambda x, m: abs(x - m), lambda x, m: math.cosh(x - m)])
def test_bracket_holds_the_minimiser_and_shrinks_by_the_golden_ratio(m: float, shape) -> None:
    calls: list[float] = []

    def f(x: float) -> float:
        calls.append(x)
        return shape(x, m)

    a, b = golden_section(f, -3.0, 4.0, 30)
    assert a <= m <= b
    assert b - a == pytest.approx(7.0 * GOLDEN**30, rel=1e-6)
    assert len(calls) == 32


def test_the_width_stops_the_steps() -> None:
    calls: list[float] = []
    a, b = golden_section(lambda x: (calls.append(x), (x - 0.25) ** 2)[1], 0.0, 1.0, 80, 2.0**-20)
    assert a <= 0.25 <= b and b - a <= 2.0**-20
    # the first bracket at or below 2^-20: k steps with GOLDEN**k <= 2^-20 (to rounding), not all 80
    k = math.ceil(20 * math.log(2) / -math.log(GOLDEN))
    assert len(calls) in (2 + k, 2 + k + 1)
