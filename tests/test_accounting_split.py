"""The bulk/tail split of a subsampled Gaussian (dpexact/accounting/split_composition.py): each piece against an
independent computation, and mutations that must make the checks fail."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from dpexact.accounting import grid_accounting as ga
from dpexact.accounting import grid_saddle as gs
from dpexact.accounting import split_composition as sc
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_measure import GridMeasure, delta_lower


@pytest.fixture(autouse=True)
def _grid_route(monkeypatch):
    """These tests are about the grid route's own passes: the MGF route (tried first for a DP-SGD event) is kept out."""
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)


def _law(sigma: str, q: str, count: int, direction: str = "remove"):
    ev = event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q, "count": count})
    return ga._laws([ev], (direction,))[direction][0][0]


def _f_integral(m: GridMeasure, t: float) -> float:
    """∫f_t dm of a grid part in plain floats (a test value, not a bound)."""
    x = m.locations()
    mass = m.v * 2.0**m.scale * np.exp(-m.theta * x)
    sel = x > t
    return float(np.sum(mass[sel] * -np.expm1(t - x[sel])))


def _measure(upper: bool, theta: float = 2.0, shift: float = 0.0) -> GridMeasure:
    rng = np.random.default_rng(7)
    v = rng.random(203) ** 3
    return GridMeasure(2.0**-8, theta, -37, shift, v / v.max(), -3, upper, 0.0, 0.0)


@pytest.mark.parametrize("m", [2, 4, 16])
def test_coarsen_upper_raises_every_delta_and_keeps_the_mass(m: int) -> None:
    x = _measure(True)
    c = sc.coarsen_upper(x, m)
    assert c.h == x.h * m
    for t in np.linspace(-0.3, 0.8, 23):
        assert _f_integral(c, t) >= _f_integral(x, t) * (1 - 1e-12)
    # connect-the-dots keeps the untilted P-mass (up to the outward rounding)
    assert _f_integral(c, -50) == pytest.approx(_f_integral(x, -50), rel=1e-9)


def test_coarsen_upper_mutation_round_down_is_caught() -> None:
    """Sending each atom to the coarse point below (the lower end's move, a plausible mix-up) breaks it."""
    x = _measure(True)
    m = 8
    idx = x.j0 + np.arange(x.size)
    J = np.floor_divide(idx, m)
    tilt = np.exp(x.theta * ((J * m - idx) * x.h))
    out = np.bincount(J - J[0], weights=x.v * tilt)
    wrong = GridMeasure(x.h * m, x.theta, int(J[0]), 0.0, out, x.scale, True, 0.0, 0.0)
    assert any(_f_integral(wrong, t) < _f_integral(x, t) * (1 - 1e-9) for t in np.linspace(-0.3, 0.8, 23))


def test_refine_is_exact() -> None:
    x = _measure(False, shift=2.0**-12)
    r = sc.refine(x, 4)
    assert r.h == x.h / 4 and np.allclose(r.locations()[::4], x.locations())
    for t in (-0.2, 0.1, 0.5):
        assert _f_integral(r, t) == pytest.approx(_f_integral(x, t), rel=1e-13)


@pytest.mark.parametrize("n,K,a", [(7, 2, 0.1), (20, 3, 0.01), (50, 1, 0.3)])
def test_binomial_rest_bounds_the_exact_sum(n: int, K: int, a: float) -> None:
    exact = sum(Fraction(math.comb(n, k)) * Fraction(a) ** k for k in range(K, n + 1))
    got = sc.binomial_rest(n, K, a, 1.0)
    assert Fraction(got) >= exact
    assert got <= float(exact) * 1.05  # the geometric tail bound (or the whole sum) is close


def _delta_two_steps(mu: float, q: float, eps: float) -> float:
    """δ(ε) of the remove direction of a Poisson(q)-subsampled Gaussian composed twice, by quadrature:
    δ₂(ε) = E_{y ~ P′}[δ₁(ε − L(y))], δ₁ in closed form (Φ̄ at the threshold where L = t)."""
    mp.mp.dps = 30
    mu, q, eps = mp.mpf(mu), mp.mpf(q), mp.mpf(eps)

    def d1(t):
        s = mp.e**t - 1 + q
        if s <= 0:
            return 1 - mp.e**t  # every output has L > t (L > log(1 − q) >= t)
        y = (mp.log(s / q) + mu**2 / 2) / mu
        return (1 - q) * mp.ncdf(-y) + q * mp.ncdf(mu - y) - mp.e**t * mp.ncdf(-y)

    def integrand(y):
        p = (1 - q) * mp.npdf(y) + q * mp.npdf(y, mu)
        L = mp.log(1 - q + q * mp.e**(mu * y - mu**2 / 2))
        return p * d1(eps - L)

    return float(mp.quad(integrand, [-mp.inf, -4, 0, 2, 4, 6, 8, mp.inf]))


def test_split_two_steps_contains_the_quadrature_and_the_tail_term_matters() -> None:
    """T = 2 at q = 1/10, σ = 1, ε = 1: the interval contains the quadrature value; without the term k = 1 (one
    step in the tail) the upper end falls below it — the tail term is load-bearing, and the test would see it."""
    law = _law("1", "1/10", 2)
    eps = 1.0
    truth = _delta_two_steps(1.0, 0.1, eps)
    tr = sc.split_direction(law, 2, 2.0**-12, 2.0, eps, 1e-1, 1e-3)
    assert tr is not None and tr.K == 2
    lo, hi = tr.lo(eps), tr.up(eps)
    assert lo <= truth <= hi
    assert hi - lo <= 1e-3 * truth
    dropped = sc.SplitTerms(tr.count, tr.upper_terms[:1], tr.lower_terms[:1], tr.rest, 1, tr.cells)
    assert dropped.up(eps) < truth


def test_clipped_fitted_lower_end_stays_in_its_window() -> None:
    """The lower end of a split part merges only outputs of its window: its mass is at most the window's exact
    P′-mass (arb), and close to it."""
    from flint import arb

    from dpexact.accounting import discretise_gauss as dg

    law = _law("1", "1/100", 10)
    h, theta = 2.0**-10, 3.0
    lo_j, hi_j = 200, 1500
    _, law_l, _, (mu_l, r_l) = dg.dominating_laws(law)
    m, cost = dg._lower_fitted(law_l, mu_l, r_l, h, theta, lo_j, hi_j - lo_j, clip=True)
    assert math.isfinite(cost)
    got = _f_integral(m, -50)
    exact, _ = law_l.cell(arb(lo_j * h), arb(hi_j * h))
    assert got <= float(exact.upper())
    assert got >= 0.999 * float(exact.lower())


def test_accountant_split_and_single_grid_intervals_overlap() -> None:
    from dpexact.accounting.accountant import Accountant

    spec = [{"kind": "gaussian", "sigma": "1", "poisson": "1/100", "count": 50}]
    old = ga.SPLIT
    try:
        out = {}
        for flag in (True, False):
            ga.SPLIT = flag
            out[flag] = Accountant(spec, max_seconds=20).epsilon_for_delta("1e-5", 1e-4)
    finally:
        ga.SPLIT = old
    assert "split" in out[True].detail and "split" not in out[False].detail
    a, b = out[True], out[False]
    assert max(a.lower, b.lower) <= min(a.upper, b.upper)


def _mp_saddle(terms: list[tuple[GridMeasure, int]], eps: float) -> float:
    """The root of Σ n·K′_m(θ) = ε in mpmath at 40 digits, K_m(θ) = log Σ_j v_j e^{(θ − θ_m)x_j} (bisection: K′ increases)."""
    mp.mp.dps = 40
    data = [([mp.mpf(float(x)) for x in m.locations()], [mp.mpf(float(v)) for v in m.v], mp.mpf(m.theta), n)
            for m, n in terms]

    def slope(t):
        out = mp.mpf(0)
        for xs, vs, th, n in data:
            w = [v * mp.exp((t - th) * x) for x, v in zip(xs, vs)]
            out += n * mp.fsum(wi * x for wi, x in zip(w, xs)) / mp.fsum(w)
        return out - eps

    a, b = mp.mpf(0), mp.mpf(200)
    for _ in range(90):
        c = (a + b) / 2
        a, b = (c, b) if slope(c) < 0 else (a, c)
    return float((a + b) / 2)


@pytest.mark.parametrize(("theta", "eps"), [(2.0, 1.0), (2.0, 2.0), (0.0, 1.5), (5.0, 2.3)])
def test_saddle_is_the_root_of_the_tilted_mean_rounded_down(theta: float, eps: float) -> None:
    """The saddle point of Σ n·K_m(θ) − θε against a 40-digit root of its derivative: within one 2^-16 step (and the
    search's width) below it."""
    a = _measure(True, theta)
    rng = np.random.default_rng(3)
    v = rng.random(57) + 0.1
    b = GridMeasure(2.0**-6, 1.0, -20, 0.0, v / v.max(), 0, True, 0.0, 0.0)
    terms = [(a, 3), (b, 1)]
    got = gs.saddle(terms, eps, 0.0, 200.0)
    want = _mp_saddle(terms, eps)
    assert want > 1  # an interior root (θ from 2 to 21 on these ε), not a bracket end
    # found to gs.SADDLE_WIDTH, then rounded down to 2^-16
    assert want - 2.0**-16 - gs.SADDLE_WIDTH <= got <= want + gs.SADDLE_WIDTH
    assert math.ldexp(got, 16) == int(math.ldexp(got, 16))  # a dyadic tilt


def test_saddle_at_the_bracket_ends() -> None:
    """ε below the untilted mean: the least tilt; ε beyond the support's reach: the largest."""
    a = _measure(True, 2.0)
    assert gs.saddle([(a, 2)], -10.0, 0.0, 50.0) == 0.0
    x_max = float(a.locations()[-1])
    assert gs.saddle([(a, 2)], 2 * x_max + 1, 0.0, 50.0) == 50.0


@mp.workdps(40)
def _tail_delta(sig: float, r: float, c: float, t: float) -> float:
    """∫ f_t over the remove direction's losses above c of one subsampled Gaussian step (σ = sig, rate r), 40-digit
    quadrature: ∫_{x₀}^∞ (r·φ_σ(x − 1) + (1 − r)·φ_σ(x) − e^t φ_σ(x)) dx, x₀ the output of loss max(c, t)."""
    S, R, T = mp.mpf(sig), mp.mpf(r), mp.mpf(t)
    x0 = S**2 * mp.log((mp.exp(max(mp.mpf(c), T)) - 1 + R) / R) + mp.mpf(1) / 2
    f = lambda x: R * mp.npdf(x, 1, S) + (1 - R) * mp.npdf(x, 0, S) - mp.exp(T) * mp.npdf(x, 0, S)  # noqa: E731
    return float(mp.quad(f, [x0, x0 + 2 * S, x0 + 10 * S, mp.inf]))


def test_tail_lower_end_on_its_short_window_stays_below_the_truth_and_close_to_it() -> None:
    """σ = 1, q = 1/1000, T = 100 at a tilt whose scanned window reaches loss ~14: the tail's lower end on the window
    ending where its untilted mass is negligible (sc.LOWER_TAIL_CUT, ~2.2) is below the 40-digit quadrature of the
    tail's δ at every t, within 1e-5 of it relative where it is above eta, and no looser than the lower end on the
    long window but for the outputs left out (< eta·e^-14). Mutations: a lower window of two cells (below), or ending
    at b2/1.2, loses the tail's mass and fails."""
    from flint import arb

    from dpexact.accounting import discretise_gauss as dg

    law = _law("1", "1/1000", 100)
    h, theta = 2.0**-15, 11.6
    plan = sc.plan_split(law, 100, h, theta, 1e-14)
    assert plan is not None and plan.tail_lower is not None
    H = h * plan.m
    assert plan.tail_lower[1] * H < 3 < 10 < plan.tail[1] * H  # the long window and the short one
    c = plan.cut * H
    short = sc.discretise_parts(law, plan).tail_lower
    full = sc.discretise_parts(law, sc.SplitPlan(h, plan.m, theta, plan.cut, plan.bulk, plan.tail)).tail_lower
    assert len(short.v) < len(full.v) / 5
    # the cell masses are of the dominated law (the pair's P′ rounded down): the exact window mass bounds both
    _, law_l, _, _ = dg.dominating_laws(law)
    whole, _ = law_l.cell(arb(c), arb(plan.tail[1] * H))
    assert _f_integral(full, -50) <= float(whole.upper())
    for t in (0.05, 0.5, 1.0, 2.0, 2.5):
        truth = _tail_delta(1.0, 1e-3, c, t)
        got, ref = delta_lower(short, t), delta_lower(full, t)
        assert got <= truth
        # no looser than the long window's but for the outputs left out: they weigh < eta·e^-14 = 8.3e-21 (measured
        # 6.1e-21 at t = 1, where the tail's δ is 2.2e-16)
        assert got >= ref - 8.4e-21
        if truth > 1e-14:  # where the tail's δ is above eta, the coarse lower end is close to it
            assert got >= truth * (1 - 1e-5)
    bad = sc.SplitPlan(h, plan.m, theta, plan.cut, plan.bulk, plan.tail, (plan.cut, plan.cut + 2))
    cut_short = sc.discretise_parts(law, bad).tail_lower
    assert delta_lower(cut_short, 0.05) < _tail_delta(1.0, 1e-3, c, 0.05) * (1 - 1e-5)
