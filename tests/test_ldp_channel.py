"""Channel, GRR, EM-as-channel, discretisation: independent values and validation."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from dpexact.ldp import (
    Channel,
    ExponentialChannel,
    GeneralizedRR,
    LossMatrix,
    absolute_loss,
    equidistant_grid,
    grid_loss,
    jaccard_similarity,
    loss_sensitivity,
    nearest_index,
    points_for_spacing,
)


def grr_formula(n, a):
    """brr eq. 6, written out independently."""
    return [[a / (a + n - 1) if x == y else 1 / (a + n - 1) for y in range(n)] for x in range(n)]


@pytest.mark.parametrize("n", [2, 3, 7])
@pytest.mark.parametrize("eps", ["log(3)", "log(5/2)"])
def test_grr_exact_entries_rational(n, eps):
    a = sympy.exp(sympy.sympify(eps))  # exactly rational for ε = log(rational)
    a = Fraction(int(a.p), int(a.q))
    ch = GeneralizedRR(n, eps).channel("exact")
    want = grr_formula(n, a)
    got = [[Fraction(int(v.p), int(v.q)) for v in r] for r in ch.rows]
    assert got == want


def test_grr_symbolic_entries_and_qg_closed_form():
    n = 6
    ch = GeneralizedRR(n, 1).channel("exact")
    e = sympy.E
    for x in range(n):
        for y in range(n):
            want = e / (e + n - 1) if x == y else 1 / (e + n - 1)
            assert sympy.simplify(ch.rows[x][y] - want) == 0
    # Σ_{k,y} |k − y| = N(N² − 1)/3  =>  Q_g = (N² − 1) / (3 (e^ε + N − 1))
    qg = ch.global_error().value
    assert sympy.simplify(qg - sympy.Rational(n * n - 1, 3) / (e + n - 1)) == 0
    assert sympy.simplify(ch.qloss().value - sympy.Rational(n * n - 1, 3) / (e + n - 1) / (n - 1)) == 0


@pytest.mark.parametrize("n", [2, 5, 40])
def test_grr_ball_and_float_enclose_exact_qg(n):
    exact = Fraction(n * n - 1, 3) / (Fraction(3) + n - 1)  # ε = log 3
    ball = GeneralizedRR(n, "log(3)").channel("ball:200").global_error()
    from flint import arb, ctx, fmpq

    old, ctx.prec = ctx.prec, 400  # the exact value as a (much) tighter ball
    try:
        assert ball.value.contains(arb(fmpq(exact.numerator, exact.denominator)))
    finally:
        ctx.prec = old
    assert ball.error_bound < 1e-50
    fl = GeneralizedRR(n, "log(3)").channel("float").global_error()
    assert abs(Fraction(fl.value) - exact) <= Fraction(fl.error_bound)
    assert fl.error_bound < 1e-12 * fl.value  # the a-priori bound is informative


@pytest.mark.parametrize("eps", ["log(3)", 1, "1/3"])
def test_grr_ldp_ratio_is_exactly_e_eps(eps):
    ch = GeneralizedRR(5, eps).channel("exact")
    r = ch.max_column_ratio()
    assert sympy.simplify(sympy.sympify(str(r.ratio)) - sympy.exp(sympy.sympify(eps))) == 0
    assert ch.satisfies_ldp(eps)
    assert not ch.satisfies_ldp(sympy.sympify(eps) - sympy.Rational(1, 10**6))


def test_grr_sampler_matches_channel():
    """Monte Carlo of the randomiser itself (not of the matrix): 6σ binomial bounds, fixed seed."""
    n, k = 6, 200_000
    g = GeneralizedRR(n, 1)
    p = g.channel("float").to_float()
    for x in (0, 3):
        draws = g.sample(x, size=k, random_state=1 + x)
        freq = np.bincount(draws, minlength=n) / k
        sd = np.sqrt(p[x] * (1 - p[x]) / k)
        assert np.all(np.abs(freq - p[x]) <= 6 * sd)


def test_local_and_global_error_brute_force():
    rows = [[Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], [Fraction(1, 3)] * 3, [0, Fraction(1, 5), Fraction(4, 5)]]
    lam = [[0, 1, 4], [1, 0, 1], [4, 1, 0]]
    prior = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    ch = Channel.from_rows(rows, loss=lam, prior=prior)
    loc = [sum(Fraction(r[y]) * lam[x][y] for y in range(3)) for x, r in enumerate(rows)]
    assert [Fraction(int(v.p), int(v.q)) for v in ch.local_errors()] == loc
    assert Fraction(str(ch.global_error().value)) == sum(p * q for p, q in zip(prior, loc))
    assert Fraction(str(ch.global_error(prior=[Fraction(1, 3)] * 3).value)) == sum(loc) / 3
    assert Fraction(str(ch.qloss().value)) == sum(loc) / 3 / 2
    # a zero next to a positive entry in column 0: not ε-LDP for any ε
    assert ch.max_column_ratio().ratio == float("inf")


def test_exponential_channel_matches_mpmath_and_is_ldp():
    n, eps = 7, 2
    lm = absolute_loss(n)
    assert loss_sensitivity(lm) == n - 1
    em = ExponentialChannel(lm, eps)
    ch = em.channel("ball:160")
    mpmath.mp.dps = 40
    for x in range(n):
        w = [mpmath.exp(-mpmath.mpf(eps) * abs(x - y) / (2 * (n - 1))) for y in range(n)]
        s = mpmath.fsum(w)
        for y in range(n):
            v = ch.rows[x][y]
            assert abs(mpmath.mpf(float(v.mid())) - w[y] / s) < 1e-15
    r = ch.max_column_ratio()
    assert float(r.epsilon.upper()) <= eps  # ε-LDP (brr Definition 2.2)
    # exact check on a small instance
    ex = ExponentialChannel(absolute_loss(4), "log(4)").channel("exact")
    assert ex.satisfies_ldp("log(4)")
    fl = em.channel("float").global_error()
    bl = ch.global_error()
    assert abs(fl.value - bl.as_float) <= fl.error_bound + bl.error_bound


def test_jaccard_matrix_eq13():
    lm = jaccard_similarity(6)
    for x in range(1, 7):
        for y in range(1, 7):
            assert lm.values[x - 1][y - 1] == Fraction(x * y, x * x + y * y - x * y)
    assert all(lm.values[i][i] == 1 for i in range(6))
    assert lm.values[1][0] == lm.values[1][3]  # tie λ(2,1) = λ(2,4)


def test_discretization_grid_and_nearest_point():
    g = equidistant_grid(-1, 1, 5)
    assert g == (Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 2), Fraction(1))
    assert points_for_spacing(-1, 1, "1/2") == 5
    rng = np.random.default_rng(0)
    for v in rng.uniform(-1, 1, 200):
        x = Fraction(v)
        brute = min(range(5), key=lambda i: (abs(x - g[i]), i))
        assert nearest_index(v, -1, 1, 5) == brute
    assert nearest_index("-3/4", -1, 1, 5) == 0  # halfway: the lower point
    lm = grid_loss(-1, 1, 5)
    assert lm.values[0][4] == 2 and lm.values[1][2] == Fraction(1, 2)
    with pytest.raises(ValueError, match="outside"):
        nearest_index(2, -1, 1, 5)
    with pytest.raises(ValueError, match="spacing"):
        points_for_spacing(0, 1, "0.3")


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: GeneralizedRR(1, 1), "domain"),
        (lambda: GeneralizedRR(5, 0), "epsilon"),
        (lambda: GeneralizedRR(5, -1), "epsilon"),
        (lambda: GeneralizedRR(5, float("nan")), "epsilon"),
        (lambda: GeneralizedRR(5, float("inf")), "epsilon"),
        (lambda: GeneralizedRR(10**7, 1), "domain"),
        (lambda: Channel.from_rows([[1]]), "rows"),
        (lambda: Channel.from_rows([[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 2), Fraction(1, 3)]]), "sums"),
        (lambda: Channel.from_rows([[Fraction(3, 2), Fraction(-1, 2)], [Fraction(1, 2), Fraction(1, 2)]]), "negative"),
        (lambda: Channel.from_rows(np.array([[0.5, 0.5], [0.5, 0.6]])), "sums"),
        (lambda: Channel.from_rows([[1, 0], [0]]), "rectangular"),
        (lambda: GeneralizedRR(3, 1).channel(loss=absolute_loss(4)), "loss"),
        (lambda: Channel.from_rows([[1, 0], [0, 1]], prior=[Fraction(1, 2), Fraction(1, 3)]), "prior"),
        (lambda: Channel.from_rows([[1, 0], [0, 1]], prior=[1]), "prior"),
        (lambda: Channel.from_rows([[1, 0], [0, 1]], prior=[2, -1]), "prior"),
        (lambda: LossMatrix.from_rows([[0, 1, 2]]), "loss"),
        (lambda: LossMatrix.from_rows([[0, 1], [1, float("nan")]]), "loss"),
        (lambda: ExponentialChannel(absolute_loss(3), "-2"), "epsilon"),
    ],
)
def test_bad_input_raises_naming_argument(build, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build()
