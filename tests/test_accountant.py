"""The certified accountant: every interval contains a value computed independently (closed forms,
direct summation over outputs, mpmath quadrature), exact routes match binomial sums in rationals."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from math import comb

import mpmath
import pytest

from dpexact.accounting.accountant import Accountant
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_accounting import grid_delta, grid_epsilon
from dpexact.numbers.real import Real

BOTH = ("remove", "add")


def _rr200_delta(k_eps: int) -> Fraction:
    """δ(k·log 3) of 200-fold binary RR (3/4, 1/4) by the binomial sum (ratio of i correct answers: 3^{2i−200})."""
    total = Fraction(0)
    for i in range(201):
        r = 2 * i - 200
        if r > k_eps:
            total += comb(200, i) * Fraction(3, 4) ** i * Fraction(1, 4) ** (200 - i) * (1 - Fraction(3) ** k_eps / Fraction(3) ** r)
    return total


def test_rr_200_fold_exact_below_1e25():
    acc = Accountant([{"kind": "randomized-response", "epsilon": "log(3)", "count": 200}])
    for k in (198, 199):
        d = acc.delta_for_epsilon(f"{k}*log(3)")
        want = _rr200_delta(k)
        assert want < Fraction(1, 10**25)
        assert Fraction(d.exact) == want
        assert d.lower <= float(want) <= d.upper


def test_rr_200_fold_epsilon_at_1e30():
    acc = Accountant([{"kind": "randomized-response", "epsilon": "log(3)", "count": 200}])
    e = acc.epsilon_for_delta("1e-30")
    assert e.exact.startswith("log(")
    x = Fraction(e.exact[4:-1])
    # independent check: the exact profile at e^ε = x equals 1e-30 (δ is continuous and decreasing)
    mpmath.mp.prec = 400
    E = mpmath.mpf(x.numerator) / x.denominator
    s = mpmath.mpf(0)
    for i in range(201):
        ratio = mpmath.mpf(3) ** (2 * i - 200)
        if ratio > E:
            s += comb(200, i) * mpmath.mpf(3) ** i / mpmath.mpf(4) ** 200 * (1 - E / ratio)
    assert abs(s - mpmath.mpf("1e-30")) < mpmath.mpf("1e-60")
    assert e.lower <= float(mpmath.log(E)) <= e.upper


def test_gaussian_closed_form_and_grid_contain_it():
    from dpexact.accounting.privacy_profiles import gaussian_profile_ball

    acc = Accountant([{"kind": "gaussian", "sigma": "2", "count": 4}, {"kind": "gaussian", "sigma": "1", "sensitivity": "1/2", "count": 12}])
    d = acc.delta_for_epsilon("1")
    exact = gaussian_profile_ball(1, 1, "sqrt(4/4 + 12/4)", 256)  # μ² = 4·(1/2)² + 12·(1/2)² = 4: Δ√k rule
    assert d.lower <= float(exact.mid()) <= d.upper and d.upper - d.lower <= 1e-9
    g = grid_delta([event_from_dict({"kind": "gaussian", "sigma": "2", "count": 16})], ("remove",), Real.of(1), 1e-3, 30)
    assert g.lower <= float(exact.mid()) <= g.upper
    assert g.upper - g.lower <= 1e-3 * g.upper


def test_grid_mutation_rounding_down_breaks_the_upper_end():
    """The test above can fail: moving the pessimistic measure down one cell makes it miss the truth."""
    from dataclasses import replace

    from dpexact.accounting.discretise import discretise
    from dpexact.accounting.event_laws import loss_laws
    from dpexact.accounting.grid_measure import delta_upper, power
    from dpexact.accounting.privacy_profiles import gaussian_profile_ball

    law = loss_laws(event_from_dict({"kind": "gaussian", "sigma": "1"}), ("remove",))["remove"]
    disc = discretise(law, 2.0**-6, 0.0)
    truth = float(gaussian_profile_ball(1, 1, 2, 256).mid())  # 4-fold σ = 1: μ = 2
    assert delta_upper(power(disc.upper, 4), 1.0) >= truth
    broken = replace(disc.upper, j0=disc.upper.j0 - 1)
    assert delta_upper(power(broken, 4), 1.0) < truth


def _laplace_delta1(t):
    """δ of one Laplace pair with ε₀ = 1 at any real t (mpmath; t < 0 by H_{e^t}(P‖Q) = 1 − e^t + e^t H_{e^{−t}}(Q‖P))."""
    if t >= 1:
        return mpmath.mpf(0)
    if t >= 0:
        return 1 - mpmath.exp((t - 1) / 2)
    return 1 - mpmath.exp(t) + mpmath.exp(t) * _laplace_delta1(-t)


def test_laplace_two_fold_against_quadrature():
    mpmath.mp.prec = 80
    eps = mpmath.mpf("0.5")
    # L₁ under P: atoms −1 (mass e^{−1}/2), +1 (1/2) and density e^{(l−1)/2}/4 on (−1, 1)
    want = (mpmath.exp(-1) / 2 * _laplace_delta1(eps + 1) + _laplace_delta1(eps - 1) / 2
            + mpmath.quad(lambda l: mpmath.exp((l - 1) / 2) / 4 * _laplace_delta1(eps - l), [-1, eps - 1, 0, 1]))
    acc = Accountant([{"kind": "laplace", "scale": "1", "count": 2}])
    d = acc.delta_for_epsilon("1/2", 1e-3)
    assert d.lower <= float(want) <= d.upper
    assert d.upper - d.lower <= 1e-3 * d.upper


def _direct(p, q, k, eps):
    """max over directions of Σ_y (P^k(y) − e^ε Q^k(y))₊ by summation over all k-tuples of outputs (mpmath)."""
    E = mpmath.exp(eps)
    best = mpmath.mpf(0)
    for a, b in ((p, q), (q, p)):
        s = mpmath.mpf(0)
        for ys in product(range(len(a)), repeat=k):
            pa = mpmath.fprod(a[y] for y in ys)
            qb = mpmath.fprod(b[y] for y in ys)
            s += max(mpmath.mpf(0), pa - E * qb)
        best = max(best, s)
    return best


def test_k_ary_rr_irrational_against_direct_summation():
    mpmath.mp.prec = 100
    E = mpmath.exp(mpmath.mpf(1) / 2)
    p = [E / (E + 2), 1 / (E + 2), 1 / (E + 2)]
    q = [1 / (E + 2), E / (E + 2), 1 / (E + 2)]
    want = _direct(p, q, 3, mpmath.mpf("0.7"))
    d = Accountant([{"kind": "randomized-response", "epsilon": "1/2", "k": 3, "count": 3}]).delta_for_epsilon("7/10", 1e-4)
    assert d.lower <= float(want) <= d.upper


def test_mechanism_event_against_direct_summation():
    from dpexact.mechanisms.registry import mechanism

    m = mechanism("pf", epsilon="1/2")
    p = [mpmath.mpf(Real.of(v).to_float()) for v in m.pmf([0, 1, 2], backend="float").values]
    q = [mpmath.mpf(Real.of(v).to_float()) for v in m.pmf([1, 1, 2], backend="float").values]
    want = _direct(p, q, 2, mpmath.mpf("0.3"))
    d = Accountant([{"kind": "mechanism", "name": "pf", "params": {"epsilon": "1/2"}, "x": [0, 1, 2],
                     "x_prime": [1, 1, 2], "count": 2}]).delta_for_epsilon("3/10", 1e-4)
    assert d.lower - 1e-12 <= float(want) <= d.upper + 1e-12  # float pmfs: 1e-15 relative


def test_pmf_pair_subsampled_exact_against_direct_summation():
    p, q = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)], [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
    r = Fraction(1, 4)
    mix = [r * a + (1 - r) * b for a, b in zip(p, q)]
    eps = Fraction(0)  # e^ε = 1: δ = total variation, exactly rational
    want = Fraction(0)
    for a, b in ((mix, q), (q, mix)):
        s = Fraction(0)
        for ys in product(range(3), repeat=3):
            s += max(Fraction(0), math.prod(a[y] for y in ys) - math.prod(b[y] for y in ys))
        want = max(want, s)
    d = Accountant([{"kind": "pmf-pair", "p": ["1/2", "1/3", "1/6"], "q": ["1/6", "1/3", "1/2"], "poisson": "1/4",
                     "count": 3}]).delta_for_epsilon(eps)
    assert Fraction(d.exact) == want


def test_discrete_laplace_and_gaussian_against_direct_summation():
    mpmath.mp.prec = 100
    ys = range(-60, 62)
    a = mpmath.exp(-1)
    c = (1 - a) / (1 + a)
    p = [c * a ** abs(y - 1) for y in ys]
    q = [c * a ** abs(y) for y in ys]
    want = _direct(p, q, 2, mpmath.mpf("0.5"))  # the left-out tails are below 1e-25
    d = Accountant([{"kind": "discrete-laplace", "scale": "1", "count": 2}]).delta_for_epsilon("1/2", 1e-4)
    assert d.lower <= float(want) <= d.upper
    Z = mpmath.nsum(lambda y: mpmath.exp(-y * y / 2), [-mpmath.inf, mpmath.inf])
    p = [mpmath.exp(-(y - 1) ** 2 / 2) / Z for y in range(-40, 42)]
    q = [mpmath.exp(-y * y / 2) / Z for y in range(-40, 42)]
    want = _direct(p, q, 1, mpmath.mpf("0.25"))
    d = Accountant([{"kind": "discrete-gaussian", "sigma": "1"}]).delta_for_epsilon("1/4", 1e-4)
    assert d.lower <= float(want) <= d.upper


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_subsampled_gaussian_step_against_mpmath_quadrature(direction):
    mpmath.mp.prec = 120
    eps_s = "1/5" if direction == "remove" else "1/20"  # the add direction's loss is below −log(9/10)
    sig, r, eps = mpmath.mpf(1), mpmath.mpf("0.1"), mpmath.mpf(Real.of(eps_s).to_float())
    npdf = lambda x, m: mpmath.npdf(x, m, sig)  # noqa: E731
    A = lambda x: r * npdf(x, 1) + (1 - r) * npdf(x, 0)  # noqa: E731
    Q = lambda x: npdf(x, 0)  # noqa: E731
    if direction == "remove":
        f = lambda x: max(mpmath.mpf(0), A(x) - mpmath.exp(eps) * Q(x))  # noqa: E731
        x0 = sig**2 * mpmath.log((mpmath.exp(eps) - 1 + r) / r) + mpmath.mpf(1) / 2
        want = mpmath.quad(f, [x0, x0 + 10, mpmath.inf])
    else:
        f = lambda x: max(mpmath.mpf(0), Q(x) - mpmath.exp(eps) * A(x))  # noqa: E731
        x0 = sig**2 * mpmath.log((mpmath.exp(-eps) - 1 + r) / r) + mpmath.mpf(1) / 2
        want = mpmath.quad(f, [-mpmath.inf, x0 - 10, x0])
    acc = Accountant([{"kind": "gaussian", "sigma": "1", "poisson": "1/10"}], direction=direction)
    d = acc.delta_for_epsilon(eps_s, 1e-3)
    assert d.lower <= float(want) <= d.upper
    assert d.upper - d.lower <= 1e-3 * d.upper


def test_epsilon_for_delta_brackets_delta_for_epsilon():
    evs = [event_from_dict({"kind": "laplace", "scale": "2", "poisson": "1/5", "count": 20}),
           event_from_dict({"kind": "randomized-response", "epsilon": "1/2", "count": 3})]
    e = grid_epsilon(evs, BOTH, Real.of("1e-8"), 1e-2, 30)
    assert 0 < e.lower < e.upper < math.inf
    # δ just beyond the two ends brackets the target (each checked by a fresh, independent grid pass)
    hi = grid_delta(evs, BOTH, Real.of(repr(e.upper * 1.02)), 1e-2, 30)
    lo = grid_delta(evs, BOTH, Real.of(repr(e.lower * 0.98)), 1e-2, 30)
    assert hi.upper <= 1e-8 <= lo.lower


def test_tiny_delta_has_no_floor():
    """ε(1e-100) of a Gaussian composition on the grid route contains the closed form (Δ√k rule)."""
    from dpexact.accounting.delta_epsilon import GaussianMechanism, epsilon_for_delta

    evs = [event_from_dict({"kind": "gaussian", "sigma": "3", "count": 2}), event_from_dict({"kind": "gaussian", "sigma": "2"})]
    e = grid_epsilon(evs, ("remove",), Real.of("1e-100"), 1e-3, 30)
    closed = epsilon_for_delta(GaussianMechanism(1, "sqrt(2/9 + 1/4)"), "1e-100", 1, 256)
    assert e.lower <= closed.lower <= closed.upper <= e.upper
    assert e.upper - e.lower <= 1e-3 * e.upper
    mixed = Accountant([{"kind": "laplace", "scale": "1", "count": 3}, {"kind": "gaussian", "sigma": "3", "count": 2}])
    m = mixed.epsilon_for_delta("1e-100", 1e-2)
    assert 3 < m.lower < m.upper < math.inf  # beyond the three Laplace steps' pure ε = 3


def test_events_refused_with_reasons():
    acc = Accountant()
    assert acc.why_not({"kind": "pmf-pair", "p": ["1"], "q": ["1"], "without_replacement": "1/2"}) is not None
    assert acc.supports({"kind": "gaussian", "sigma": "1", "without_replacement": "1/2"})
    for bad in ({"kind": "gaussian", "sigma": "-1"}, {"kind": "gaussian", "sigma": "1", "poisson": "0"},
                {"kind": "gaussian", "sigma": "1", "poisson": "3/2"}, {"kind": "gaussian", "sigma": "1", "count": 10**9},
                {"kind": "nope"}, {"kind": "gaussian", "sigma": "1", "colour": "red"}):
        with pytest.raises(ValueError):
            event_from_dict(bad)
    with pytest.raises(ValueError, match="no events"):
        Accountant().delta_for_epsilon(1)
