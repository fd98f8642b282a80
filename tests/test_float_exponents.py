"""Float exponents c·(q_r - q*) at every magnitude of c and of the scores."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
import sympy

from dpexact.mechanisms.base import float_exponents, scaled_float
from dpexact.numbers.real import Real


def test_scaled_float_is_correctly_rounded():
    rng = random.Random(7)
    for _ in range(3000):
        f = Fraction(rng.randrange(1, 10 ** rng.randrange(1, 60)), rng.randrange(1, 10 ** rng.randrange(1, 60)))
        m, e = scaled_float(Real(f))
        assert 0.5 <= m < 1 and math.ldexp(m, e) == float(f)  # float(Fraction) is correctly rounded


@pytest.mark.parametrize("c", [Fraction(1, 2), Fraction(10**400), Fraction(1, 10**400), Fraction(5, 2**1080),
                               sympy.exp(1000) / 2, Fraction(2**1023) * 3])
@pytest.mark.parametrize("q", [[1.0, 0.0, 0.0], [1.7e308, -1.7e308, 0.0], [5e-324, 0.0, -5e-324], [1e300, 0.0, -1e300]])
def test_exponents_match_exact_values(c, q):
    cr = Real.of(c)
    x = float_exponents(cr, np.array(q))
    top = max(Fraction(v) for v in q)
    for xr, v in zip(x, q):
        exact = (cr * Real(Fraction(v) - top)).to_arb(256)  # the exact exponent, enclosed
        assert not math.isnan(xr) and xr <= 0
        if math.isinf(xr):
            assert exact < -1.79e308
        elif xr == 0:
            assert exact.contains(0) or exact > -2.0**-1070  # 0 only for the top (or an underflow)
        else:
            assert abs(float(((exact - xr) / exact).mid())) <= 4 * 2.0**-53
