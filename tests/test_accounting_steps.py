"""Grid steps that are not powers of two (h = m·2^-k, m odd <= 15: dpexact/accounting/discretise.step_ok) and the
schedule landing on them (grid_cost.land_step): the step arithmetic, and soundness at such steps against independent
values — one subsampled step against 40-digit mpmath quadrature, a composed Gaussian against its closed form in
mpmath, a composed subsampled Gaussian (the split route) against the power-of-two passes' intervals — with a mutation
(the discretised grid read at the step's power-of-two part) that the checks catch; and the step prediction's order."""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import numpy as np
import pytest
from subsampled_reference import one_step_remove as _step_delta

from dpexact.accounting import discretise as disc
from dpexact.accounting import discretise_gauss as dg
from dpexact.accounting import grid_accounting as ga
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_cost import H_FREE_MIN, land_step, past_ladder, round_step
from dpexact.accounting.grid_measure import delta_lower, delta_upper, power


@pytest.fixture(autouse=True)
def _grid_route(monkeypatch):
    """These tests are about the grid route's own passes: the MGF route (tried first for a DP-SGD event) is kept out."""
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)

STEPS = [3 * 2.0**-13, 5 * 2.0**-15, 15 * 2.0**-16]


def _law(sigma: str, q: str | None, direction: str = "remove"):
    spec = {"kind": "gaussian", "sigma": sigma, "count": 2} | ({"poisson": q} if q else {})
    return ga._laws([event_from_dict(spec)], (direction,))[direction][0][0]


def _gauss_delta(mu: float, eps: float) -> float:
    """δ(ε) of the Gaussian mechanism with sensitivity/σ = μ (closed form, 40 digits)."""
    mpmath.mp.dps = 40
    M, E = mpmath.mpf(mu), mpmath.mpf(eps)
    return float(mpmath.ncdf(M / 2 - E / M) - mpmath.exp(E) * mpmath.ncdf(-M / 2 - E / M))


# -- the step arithmetic ----------------------------------------------------------------------------------------------


def test_step_ok_takes_four_bit_mantissas_only():
    assert all(disc.step_ok(h) for h in [2.0**-10, 3 * 2.0**-12, 15 * 2.0**-20, 9 * 2.0**-14])
    assert not any(disc.step_ok(h) for h in [17 * 2.0**-20, 0.1, 0.0, -2.0**-10, math.inf])


def test_round_step_is_the_largest_four_bit_step_below():
    for x in [1e-4, 3.3e-5, 2.0**-13, 7.77e-7]:
        r = round_step(x)
        assert disc.step_ok(r) and r <= x < r * (1 + 1 / 8)
    assert round_step(2.0**-13) == 2.0**-13


def test_land_step_lands_between_the_ladders_steps():
    h = 2.0**-10
    # need between h/8 and h/4: the ladder took h/8, the landed step is the 4-bit one at or below need
    need = 0.2 * h
    assert land_step(h, h / 8, need) == round_step(need) and h / 8 < round_step(need) <= need
    assert land_step(h, h / 8, h / 16) == h / 8  # need finer than the ladder's choice: the ladder's
    assert land_step(h, h / 2, 2 * h) == round_step(h * 15 / 16)  # no coarser than 15h/16
    assert land_step(2 * h, h, 1.5 * h, top=h) == h  # a lagging end's pass: at most h
    # below H_FREE_MIN: a power of two, the coarser when it meets need
    g = 3 * 2.0**-21
    assert land_step(g, g / 2, g / 2) == 2.0**-21 and land_step(g, g / 4, g / 2) == 2.0**-21
    assert land_step(g, g / 4, g / 4) == 2.0**-22 and land_step(g, g / 4, 1.2 * 2.0**-20) == 9 * 2.0**-23
    assert all(disc.step_ok(land_step(h, h / 8, x * h)) for x in np.linspace(0.01, 1.5, 40))
    assert H_FREE_MIN == 2.0**-20


def test_past_ladder_lands_below_the_ladders_step_on_a_predicted_miss_only():
    h = 2.0**-13
    step, margin = h / 8, 1.2
    # σ = 2, q = 1/100, T = 1000, δ = 1e-5: width 6.7e-5 of its target at h, order 2 → need h·√(1/67)/1.2, a miss at h/8
    need = h * math.sqrt(1 / 67) / margin
    got = past_ladder(step, need, margin, 2.0)
    assert got == round_step(need) and disc.step_ok(got) and need / (1 + 1 / 8) < got <= need < step
    # the ladder's step predicted to meet without the margin (need·margin >= step): kept
    assert past_ladder(step, step / margin, margin, 2.0) == step and past_ladder(step, 0.9 * step, margin, 2.0) == step
    # need more than 2× below the step: landed on at an order measured near 2 only (ORDER_FAR), never 8× below
    assert past_ladder(step, 0.3 * step, margin, 2.0) == round_step(0.3 * step)
    assert past_ladder(step, 0.3 * step, margin, 1.95) == round_step(0.3 * step)
    assert past_ladder(step, 0.3 * step, margin, 1.6) == step
    assert past_ladder(step, 0.12 * step, margin, 2.0) == step
    # need at or above it, no need: the ladder's step
    assert past_ladder(step, step, margin, 2.0) == step and past_ladder(step, 2 * step, margin, 2.0) == step
    assert past_ladder(step, 0.0, margin, 2.0) == step
    # below H_FREE_MIN only powers of two: kept
    assert past_ladder(2.0**-21, 0.6 * 2.0**-21, margin, 2.0) == 2.0**-21
    assert past_ladder(H_FREE_MIN, 0.7 * H_FREE_MIN, margin, 2.0) == H_FREE_MIN  # its landed step would be below
    # a width that fell as h^0.78 then h^3.1 (σ = 0.8, q = 1/1000, T = 1000, δ = 1e-10): no prediction trusted
    assert past_ladder(step, need, margin, 1.0) == step and past_ladder(step, need, margin, 1.5) == got


def test_non_power_of_two_steps_stay_off_the_arb_path():
    ev = event_from_dict({"kind": "laplace", "scale": "1", "count": 2})
    law = ga._laws([ev], ("remove",))["remove"][0][0]
    with pytest.raises(ValueError, match="power of two"):
        disc.discretise(law, 3 * 2.0**-10, 0.5)
    with pytest.raises(ValueError):
        disc.discretise(_law("1", "1/100"), 17 * 2.0**-14, 0.5)


# -- soundness at non-power-of-two steps ------------------------------------------------------------------------------


@pytest.mark.parametrize("h", STEPS)
@pytest.mark.parametrize("sigma,q,eps", [("1", "1/1000", 1e-3), ("0.8", "1/100", 0.02)])
def test_one_subsampled_step_brackets_the_quadrature(sigma, q, eps, h):
    """One step at h = m·2^-k: lower end's δ(ε) <= 40-digit quadrature <= upper end's, both within 2e-2 (measured on
    σ = 1, q = 1/1000 over ε in [6e-4, 1.5e-3] at 3·2^-13: up to 1.0e-2, as 2^-12's 4.7e-3 — where ε falls between
    grid points decides; σ = 0.8, q = 1/100: below 3e-5)."""
    law = _law(sigma, q)
    want = _step_delta(float(sigma), 1 / float(q.split("/")[1]), eps)
    theta = 2.0
    up, lo = dg.discretise_gauss(law, h, theta, disc.window(law, h, theta))
    got_lo, got_up = delta_lower(lo, eps), delta_upper(up, eps)
    assert got_lo <= want <= got_up
    assert got_lo >= want * (1 - 2e-2) and got_up <= want * (1 + 2e-2)


@pytest.mark.parametrize("h", STEPS[:2])
def test_composed_gaussian_brackets_the_closed_form(h):
    """N(0, σ²) with σ = 4 composed 64 times (μ = 2) on one grid at h = m·2^-k: the certified δ(ε) interval holds the
    closed form (mpmath) and is within 1e-4 of it at ε = 1, 2."""
    law = _law("4", None)
    d = disc.discretise(law, h, 0.5)
    U, L = power(d.upper, 64), power(d.lower, 64)
    for eps in (1.0, 2.0):
        want = _gauss_delta(2.0, eps)
        lo, hi = delta_lower(L, eps), delta_upper(U, eps)
        assert lo <= want <= hi
        assert hi - lo <= 1e-4 * want


def _split_interval(h: float) -> tuple[float, float]:
    """ε(δ = 1e-5) of σ = 1, q = 1/100, T = 100 from one split pass at step h (θ and hints from a coarse run)."""
    ev = event_from_dict({"kind": "gaussian", "sigma": "1", "poisson": "1/100", "count": 100})
    laws = ga._laws([ev], ("remove",))
    p = ga._Pass(laws, h, {"remove": 1.0}, {}, split=(0.718, 1e-5, 1e-6))
    assert p.split, "the split route is the one under test"
    return ga._solve(p.lo, 1e-5, False), ga._solve(p.up, 1e-5, True)


def test_split_pass_at_a_non_power_of_two_step_agrees_with_power_of_two_passes():
    """The split route (bulk, tail on the coarse grid m·h, coarsening by m) at h = 3·2^-14 against passes at the
    powers of two around it: every interval holds ε, so each pair must intersect, and the non-power-of-two one must
    hold the finest pass's midpoint (a width 20× below its own). Its width is not ordered with its neighbours' (the
    split's plan and tilts change with h: measured 4.8e-6 at 3·2^-14, 1.1e-5 at 2^-14)."""
    fine = _split_interval(2.0**-16)
    a, b = _split_interval(2.0**-13), _split_interval(2.0**-14)
    lo, hi = _split_interval(3 * 2.0**-14)
    mid = (fine[0] + fine[1]) / 2
    assert lo <= mid <= hi
    for x, y in (a, b, fine):
        assert lo <= y and x <= hi
    assert (fine[1] - fine[0]) * 20 < hi - lo


def test_mutation_grid_read_at_the_power_of_two_part_is_caught(monkeypatch):
    """Mutation: the discretised ends' grid read at the step's power-of-two part 2^⌊log2 h⌋ (the odd factor dropped,
    as code rebuilding h from its exponent would): every atom moves down by a third at h = 3·2^-13, and the upper
    end's δ(ε) falls below the quadrature (the bracket fails); the composed closed-form check fails the same way."""
    real = dg.discretise_gauss

    def pow2_grid(law, h, theta, win, **kw):
        return tuple(None if m is None else replace(m, h=2.0 ** math.floor(math.log2(h)))
                     for m in real(law, h, theta, win, **kw))

    monkeypatch.setattr(dg, "discretise_gauss", pow2_grid)
    h, eps = STEPS[0], 1e-3
    law = _law("1", "1/1000")
    want = _step_delta(1.0, 1e-3, eps)
    up, _ = dg.discretise_gauss(law, h, 2.0, disc.window(law, h, 2.0))
    assert delta_upper(up, eps) < want
    with pytest.raises(AssertionError):
        test_composed_gaussian_brackets_the_closed_form(h)


def test_a_row_lands_between_powers_of_two_and_agrees_with_the_ladder(monkeypatch):
    """σ = 0.5, q = 1/100, T = 100, δ = 1e-10 (the ladder took 2^-13 for 1.1e-7 where 1e-6 was asked): with landing,
    a pass at a step that is not a power of two, the width met, and the interval intersecting the ladder's."""
    spec = [{"kind": "gaussian", "sigma": "0.5", "poisson": "1/100", "count": 100}]
    from dpexact.accounting.accountant import Accountant

    free = Accountant(spec, max_seconds=30).epsilon_for_delta("1e-10", 1e-6)
    monkeypatch.setattr(ga, "FREE_STEPS", False)
    ladder = Accountant(spec, max_seconds=30).epsilon_for_delta("1e-10", 1e-6)
    hs = [p["h"] for p in free.detail["passes"]]
    assert any(math.frexp(h)[0] != 0.5 for h in hs) and all(disc.step_ok(h) for h in hs)
    assert all(math.frexp(p["h"])[0] == 0.5 for p in ladder.detail["passes"])
    for r in (free, ladder):
        assert r.upper - r.lower <= 1e-6 * r.upper
    assert max(free.lower, ladder.lower) <= min(free.upper, ladder.upper)
    assert min(hs) > min(p["h"] for p in ladder.detail["passes"])  # a coarser last step than the ladder's


def test_need_order_takes_the_measured_order_up_to_two():
    h = 2.0**-16
    assert ga._need_order([(2.0**-10, 1e-3)]) == (2.0, ga.NEED_MARGIN)  # one pass: h², the wide margin
    p, m = ga._need_order([(2 * h, 1e-5), (h, 1e-5 / 2**1.5)])
    assert abs(p - 1.5) < 1e-12 and m == ga.NEED_MARGIN_MEASURED
    assert ga._need_order([(2 * h, 1e-5), (h, 1e-5 / 8)]) == (2.0, ga.NEED_MARGIN_MEASURED)  # h³ counts as h²
    assert ga._need_order([(2 * h, 1e-5), (h, 0.9e-5)]) == (2.0, ga.NEED_MARGIN)  # below ORDER_MIN
    assert ga._need_order([(2 * h, 1e-5), (h, 2e-5)]) == (2.0, ga.NEED_MARGIN)  # widened
    assert ga._need_order([(2 * h, math.inf), (h, 2e-5)]) == (2.0, ga.NEED_MARGIN)
