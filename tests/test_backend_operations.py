"""Backend operations: one pmf written once runs on float / mp / ball / exact, each checked against exact."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import dpexact
from dpexact.numbers import BoundedFloat, Certified, get_backend, pmf_from_numbers
from dpexact.numbers.real import Real

BACKENDS = ["float", "mp:40", "ball:128", "exact"]


# --- pmfs written once against the backend operations ------------------------------------------
def em_pmf(be, scores, eps):
    """Exponential mechanism (pf Def. 4): p_r ∝ exp(ε/2 (q_r - q*))."""
    c = be.num(eps) / 2
    top = max(scores)
    w = [be.exp(c * be.num(q - top)) for q in scores]
    s = be.sum(w)
    return [x / s for x in w]


def rnm_exp_pmf(be, scores, eps):
    """Report noisy max with Exp(ε/2) noise, as an integral over t = e^{-ε/2 (y - q*)} ∈ (0, 1]:
    p_r = ∫_0^1 a_r ∏_{s≠r} (1 - a_s t) dt, a_s = e^{-ε/2 (q* - q_s)}."""
    lam = be.num(eps) / 2
    top = max(scores)
    a = [be.exp(lam * be.num(q - top)) for q in scores]
    n = len(scores)
    rho = 8.0
    reach = 0.5 + (rho + 1 / rho) / 4  # |t| on the Bernstein ellipse E_ρ mapped onto [0, 1]
    out = []
    for r in range(n):
        def f(t, *_, r=r):
            g = a[r]
            for s in range(n):
                if s != r:
                    g = g * (1 - a[s] * t)
            return g

        log_m = sum(math.log1p(be.to_float(a[s]) * reach) for s in range(n) if s != r)
        out.append(be.integrate(f, 0, 1, rho=rho, log_m=log_m, f_rel_error=16 * n * 2.0**-53).value)
    return out


def _exact_reference(mech, scores, eps):
    return [sympy.sympify(v) if type(v).__name__ != "fmpq" else sympy.Rational(int(v.p), int(v.q))
            for v in dpexact.mechanism(mech, epsilon=eps).pmf(scores, backend="exact").values]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pmf_fn, mech", [(em_pmf, "em"), (rnm_exp_pmf, "pf")])
def test_pmf_written_once_runs_on_every_backend(backend, pmf_fn, mech):
    # pf is the exact oracle for RNM with exponential noise (the identity is a known theorem,
    # used here only as an independent check of the integral)
    scores = [Fraction(0), Fraction(-1), Fraction(-5, 2)]
    eps = Fraction(3, 2)
    be = get_backend(backend)
    pmf = pmf_from_numbers(be.run(pmf_fn, scores, eps), be, "written-once")
    ref = _exact_reference(mech, scores, eps)
    ref_f = [float(v) for v in ref]
    if be.is_exact:
        assert pmf.error_kind == "exact"
        for v, e in zip(pmf.values, ref):
            assert be.sign(sympy.sympify(v) - e) == 0
    elif be.is_ball:
        assert pmf.error_kind == "rigorous"
        assert pmf.contains(ref)
        assert pmf.abs_error < 1e-30
    elif be.is_float:
        assert pmf.error_kind == "a-priori"
        assert 0 < pmf.abs_error < 1e-13
        # the bound is a proof: check it against 200-bit enclosures of the exact values
        got = pmf.to_float()
        for g, e in zip(got, ref):
            d = abs(Real.of(Fraction(g)).to_arb(200) - Real.of(e).to_arb(200))
            assert d.upper() <= pmf.abs_error
    else:
        assert pmf.error_kind == "estimate"
        with mpmath.workdps(60):
            for v, e in zip(pmf.values, ref):
                assert abs(mpmath.mpf(v) - mpmath.mpf(str(sympy.N(e, 60)))) < mpmath.mpf(10) ** -35
    assert np.allclose(pmf.to_float(), ref_f, rtol=1e-14, atol=0)


def test_bounded_float_bounds_hold_and_fail_loudly():
    be = get_backend("float")
    x = be.num(Fraction(1, 3))
    y = be.log1p(be.expm1(x * 7)) / 7  # = 1/3 in exact arithmetic
    assert abs(y.v - 1 / 3) <= y.e and y.e < 1e-14
    assert be.try_sign(y - be.num(Fraction(1, 3))) is None  # cannot be decided in float
    with pytest.raises(ArithmeticError):
        be.sign(y - be.num(Fraction(1, 3)))
    assert be.sign(y - be.num(Fraction(1, 4))) == 1
    with pytest.raises(ValueError, match="contains 0"):
        be.num(1) / (x - x)
    with pytest.raises(ValueError, match="overflows"):
        be.exp(be.num(1000))
    with pytest.raises(ValueError, match="reaches 0"):
        be.log(x - x)
    with pytest.raises(ValueError, match="float64 range"):
        be.num(Fraction(10**400, 3))


def test_certified_signs():
    ball = get_backend("ball:64")
    ex = get_backend("exact")
    with ball.context():
        third = ball.num(Fraction(1, 3))
        assert ball.try_compare(third * 3, ball.num(1)) is None  # straddles: not decided
        with pytest.raises(ArithmeticError, match="cannot be decided"):
            ball.compare(third * 3, ball.num(1))
        assert ball.compare(third, ball.num(Fraction(1, 4))) == 1
    assert ex.sign(sympy.exp(sympy.Rational(1, 10)) ** 2 - sympy.exp(sympy.Rational(1, 5))) == 0
    assert ex.sign(sympy.log(3) - sympy.Rational(11, 10)) == -1
    # sums of rational multiples of exp(rational): exact zero by grouping exponents, and a
    # non-zero value of size ~1e-44 (a Taylor remainder) decided at higher precision
    t = sympy.Rational(1, 10)
    assert ex.sign(sympy.exp(t) * (sympy.exp(-t) + 1) - 1 - sympy.exp(t)) == 0
    taylor = sum(t**k / sympy.factorial(k) for k in range(30))
    assert ex.sign(sympy.exp(t) - taylor) == 1
    assert ex.sign(taylor - sympy.exp(t)) == -1


def test_integration_bounds_and_kinds():
    f_ball = lambda z, analytic: (-z).exp() * z  # noqa: E731
    truth = 1 - 2 * math.exp(-1)  # ∫_0^1 x e^{-x} dx
    c_ball = get_backend("ball").integrate(f_ball, 0, 1)
    c_exact = get_backend("exact").integrate(lambda x: sympy.exp(-x) * x, 0, 1)
    c_float = get_backend("float").integrate(lambda x: np.exp(-x) * x, 0, 1, rho=4.0, log_m=1.5)
    c_mp = get_backend("mp").integrate(lambda x: mpmath.exp(-x) * x, 0, 1)
    assert c_exact.error_kind == "exact" and sympy.simplify(c_exact.value - (1 - 2 * sympy.exp(-1))) == 0
    assert c_ball.error_kind == "rigorous" and c_ball.value.contains(Real.of(c_exact.value).to_arb(200))
    assert c_float.error_kind == "a-priori" and abs(c_float.as_float - truth) <= c_float.error_bound < 1e-14
    assert c_mp.error_kind == "estimate" and not c_mp.certified
    assert isinstance(c_float.value, BoundedFloat) and isinstance(c_ball, Certified)
    with pytest.raises(ValueError, match="closed-form"):
        get_backend("exact").integrate(lambda x: sympy.cos(x**3 + x) / (1 + x**2), 0, 1)


def test_exact_integration_of_a_piecewise_exponential():
    x_ = sympy.Symbol("x", real=True)
    c = get_backend("exact").integrate(lambda x: sympy.exp(-x) * sympy.Piecewise((x, x < 1), (1, True)), 0, 3)
    # ∫_0^1 x e^{-x} dx + ∫_1^3 e^{-x} dx = (1 - 2/e) + (1/e - e^{-3})
    assert c.error_kind == "exact"
    assert sympy.simplify(c.value - (1 - sympy.exp(-1) - sympy.exp(-3))) == 0
    assert not c.value.has(x_)


def _random_program(be, seed):
    """A random straight-line program over the backend operations (written once)."""
    rng = np.random.default_rng(seed)
    vals = [be.num(Fraction(int(rng.integers(1, 50)), int(rng.integers(1, 50)))) for _ in range(4)]
    for _ in range(12):
        a, b = (vals[int(i)] for i in rng.integers(0, len(vals), 2))
        op = int(rng.integers(0, 7))
        if op == 0:
            v = a + b
        elif op == 1:
            v = a * b
        elif op == 2:
            v = a / b
        elif op == 3:
            v = be.exp(a / (b + 1))
        elif op == 4:
            v = be.log1p(a)
        elif op == 5:
            v = be.sqrt(a * b)
        else:
            v = be.sum([a, b, a])
        vals.append(v)
    return vals[4:]


@pytest.mark.parametrize("seed", range(40))
def test_bounded_float_bound_holds_on_random_programs(seed):
    # every intermediate value of a random program on positive inputs, float vs 256-bit balls
    fl = get_backend("float").run(_random_program, seed)
    ball = get_backend("ball:256")
    bl = ball.run(_random_program, seed)
    with ball.context():
        for f, b in zip(fl, bl):
            d = abs(Real.of(Fraction(f.v)).to_arb(256) - b)
            assert d.upper() <= f.e, (f, b)
