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


@pytest.mark.parametrize("name,eps,q", [("gem", "1e300", [0, -1, -3]), ("mgem", "1e4", [0, -1e7, -1e7]),
                                        ("grr", "1e300", [0, -1, -3]), ("rnm-laplace", "1e300", [5, -2000, 3, 1])])
def test_useless_float_bound_switches_to_ball(name, eps, q):
    """At extreme ε the float closed forms can only state huge or infinite bounds; the float pmf is
    then the ball's, with a useful rigorous bound, checked against a 256-bit ball."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from registered_mechanisms import build

    m = build(name, epsilon=eps)
    p = m.pmf(q, "float")
    assert p.abs_error <= 1e-9 and p.error_kind in ("rigorous", "estimate")
    ref = m.pmf(q, "ball:256")
    for x, r in zip(p.values, ref.values):
        assert abs(x - float(r.mid())) <= p.abs_error + float(r.rad())
