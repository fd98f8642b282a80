"""Float-backend score validation: exact numbers are accepted and rounded correctly."""

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

import dpexact
from dpexact.mechanisms.validation import float_scores


def test_exact_numbers_are_rounded_correctly():
    q = float_scores([Fraction(1, 3), sympy.Rational(-2, 7), "1/10", 2**64 + 1, np.int32(5)])
    # Python's float(Fraction) is correctly rounded: an independent reference
    assert q.tolist() == [float(Fraction(1, 3)), float(Fraction(-2, 7)), 0.1, float(2**64), 5.0]


def test_closed_forms_within_one_ulp():
    (x,) = float_scores([sympy.sqrt(2)])
    assert abs(x - math.sqrt(2)) <= math.ulp(math.sqrt(2))


def test_exact_scores_give_the_float_pmf_of_their_rounding():
    m = dpexact.mechanism("pf", epsilon=1)
    a = m.pmf([Fraction(1, 3), 0, sympy.Rational(-1, 2)])
    b = m.pmf([1 / 3, 0.0, -0.5])
    assert np.array_equal(a.values, b.values)


@pytest.mark.parametrize("bad", [[10**400], [Fraction(-(10**400), 3)], [sympy.exp(1000)]])
def test_overflowing_scores_are_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"scores\[0\].*overflows float64"):
        float_scores(bad)


@pytest.mark.parametrize("bad,exc", [([sympy.Symbol("x")], ValueError), ([True], TypeError), ([[1], 2], ValueError),
                                     ([1 + 2j], TypeError), ([math.nan], ValueError)])
def test_odd_entries_name_the_argument(bad, exc):
    with pytest.raises(exc, match="scores"):
        float_scores(bad)
