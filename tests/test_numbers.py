"""Exact parameters and backends: parsing, rigorous conversion, bad input."""

from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb

from dpexact.numbers import Real, get_backend
from dpexact.numbers.real import sympy_to_arb


def test_strings_are_exact_and_floats_are_binary():
    assert Real.of("0.1").value == Fraction(1, 10)
    assert Real.of(0.1).value == Fraction(3602879701896397, 2**55)
    assert Real.of("1/3").value == Fraction(1, 3)
    assert (Real.of("1/3") * 3).value == 1


def _close_to_mp(ball, ref, tol):
    """|mid - ref| <= rad + tol, with the reference from mpmath (independent library)."""
    with mpmath.workdps(70):
        mid = mpmath.mpf(ball.mid().str(65, radius=False))
        rad = mpmath.mpf(ball.rad().str(10, radius=False))
        return abs(mid - ref) <= rad + tol and rad < 1e-50


def test_symbolic_constants_are_enclosed_rigorously():
    eps = Real.of("2*log(3)")
    assert not eps.is_rational
    with mpmath.workdps(70):
        assert _close_to_mp(eps.to_arb(200), 2 * mpmath.log(3), mpmath.mpf(10) ** -60)
        golden = mpmath.log((3 + mpmath.sqrt(5)) / 2)
        assert _close_to_mp(Real.of("log((3+sqrt(5))/2)").to_arb(200), golden, mpmath.mpf(10) ** -60)
    assert abs(eps.to_float() - 2.1972245773362196) < 1e-16


def test_exponential_of_lattice_parameters_is_rational():
    eps = Real.of("2*log(3)")
    be = get_backend("exact")
    w = be.exp(be.from_real(eps / 2 * -3))
    assert w == sympy.Rational(1, 27)


def test_sign_and_order_of_close_constants():
    a, b = Real.of("log(2)"), Real.of("693147/1000000")
    assert a > b and (a - b).sign() == 1


@pytest.mark.parametrize("bad", ["nan", "inf", "", "abc", "eps", float("nan"), float("inf"), True, None, [1]])
def test_bad_parameters_raise(bad):
    with pytest.raises((ValueError, TypeError)):
        Real.of(bad, "epsilon")


@pytest.mark.parametrize("spec,name", [("float", "float"), ("mp", "mp"), ("mp:80", "mp"), ("ball", "ball"), ("ball:300", "ball"), ("exact", "exact")])
def test_backend_names(spec, name):
    assert get_backend(spec).name == name


@pytest.mark.parametrize("spec", ["double", "ball:abc", "mp:5", "ball:10", "exact:3", 3])
def test_unknown_backends_raise(spec):
    with pytest.raises((ValueError, TypeError)):
        get_backend(spec)


def test_unsupported_function_is_not_approximated():
    with pytest.raises(TypeError):
        sympy_to_arb(sympy.gamma(sympy.Rational(1, 3)))
