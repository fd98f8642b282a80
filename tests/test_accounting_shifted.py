"""The split composition's terms by shifted evaluation (:mod:`dpexact.accounting.shifted_terms`): the profile
bounds against exact sums (mpmath), re-tilting against the measure it re-tilts, the whole route against nested
quadrature of two subsampled Gaussian steps and against the product route on a DP-SGD row — and by mutation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpexact.accounting import grid_measure as gm
from dpexact.accounting import shifted_terms as st
from dpexact.accounting import split_composition as sc
from dpexact.accounting.accountant import Accountant
from dpexact.accounting.grid_measure import GridMeasure
from subsampled_reference import two_step_remove as _two_step_remove


@pytest.fixture(autouse=True)
def _grid_route(monkeypatch):
    """These tests are about the grid route's own passes: the MGF route (tried first for a DP-SGD event) is kept out."""
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)

H, THETA = 2.0**-6, 3.0


def _measure(upper: bool, seed: int = 1) -> tuple[GridMeasure, list[tuple[float, float]]]:
    """A tilted grid measure with a bumpy shape on [-1, 1.5]; its (location, untilted mass) atoms."""
    rng = np.random.default_rng(seed)
    j0 = -64
    x = (j0 + np.arange(160)) * H
    m = np.exp(-((x - 0.2) ** 2) / 0.2) * rng.uniform(0.5, 1.5, len(x))
    m = 0.9 * m / m.sum()  # a sub-probability, as every part of a composed law (the profiles clip at 1)
    v = m * np.exp(THETA * x)
    scale = math.frexp(float(v.max()))[1]
    return GridMeasure(H, THETA, j0, 0.0, np.ldexp(v, -scale), scale, upper, 0.0, 0.0), list(zip(x.tolist(), m.tolist()))


@mpmath.workdps(40)
def _exact(atoms, t: float) -> mpmath.mpf:
    tt = mpmath.mpf(t)
    return +mpmath.fsum(mpmath.mpf(b) * (1 - mpmath.exp(tt - mpmath.mpf(a))) for a, b in atoms if a > t)


T_GRID = np.array([-3.0, -1.0, -0.3, 0.0, 0.13, 0.4, 0.77, 1.2, 1.49, 2.0])


def test_profile_brackets_the_exact_sum():
    up, atoms = _measure(True)
    lo, _ = _measure(False)
    U, L = st.Profile(up).upper(T_GRID), st.Profile(lo).lower(T_GRID)
    for t, u, l in zip(T_GRID, U, L):
        want = _exact(atoms, float(t))
        assert l <= want <= u
        assert u - l <= 1e-12 * max(float(want), 1e-300) + 1e-300


def test_profile_with_l2_error_bounds_every_measure_in_the_ball():
    """err > 0: the upper profile bounds Σ p f_t for p = v + e, ‖e‖₂ = err (e on the entries above t), and agrees with
    the per-ε evaluation of grid_measure within the closed form's factor."""
    up, atoms = _measure(True)
    err = 1e-6
    m = GridMeasure(up.h, up.theta, up.j0, up.shift, up.v, up.scale, True, 0.0, 0.0, err=err)
    prof = st.Profile(m)
    x = m.locations()
    for t in T_GRID:
        w = np.where(x > t, 2.0**m.scale * np.exp(-THETA * x) * -np.expm1(t - x), 0.0)
        nw = float(np.linalg.norm(w))
        e = err * w / nw if nw > 0 else 0 * w  # the worst direction
        worst = float(_exact(atoms, float(t))) + float(np.dot(e, w))
        u = float(prof.upper(np.array([t]))[0])
        assert u >= worst
        if t <= 1.2:  # past the last entry the closed form keeps its (valid) value at the span's end
            assert u <= 4 * gm.delta_upper(m, float(t))


@mpmath.workdps(40)
def test_retilt_keeps_the_measure_outward():
    """Re-tilted entries carry at least (upper) / at most (lower) the untilted masses they had (mpmath)."""
    for upper in (True, False):
        m, _ = _measure(upper)
        r = st.retilt(m, 40.0)
        assert r is not None and r.theta == 40.0
        for i in range(0, len(r.v), 7):
            j = r.j0 + i
            k = j - m.j0
            if not 0 <= k < len(m.v) or m.v[k] == 0:
                continue
            xj = mpmath.mpf(j * H)
            old = mpmath.mpf(m.v[k]) * mpmath.mpf(2) ** m.scale * mpmath.exp(-THETA * xj)
            new = mpmath.mpf(r.v[i]) * mpmath.mpf(2) ** r.scale * mpmath.exp(-40 * xj)
            assert (new >= old) if upper else (new <= old)
    removed = GridMeasure(H, THETA, 0, 0.0, np.ones(3), 0, True, dropped=1e-3, dropped_raw=1e-3)
    assert st.retilt(removed, 1.0) is None  # a removed part's tilted mass cannot be re-tilted


def test_tilt_ladder_spans_product_to_top():
    lad = st.tilt_ladder(7.0, 900.0)
    assert lad[0] == pytest.approx(7.0, rel=1e-4) and max(lad) == pytest.approx(900.0, rel=1e-4)
    assert len(lad) <= st.LADDER + 2 and lad == sorted(lad)
    assert st.tilt_ladder(50.0, 20.0) == [50.0]


@pytest.fixture
def forced_shifted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sc, "SHIFTED", True)
    monkeypatch.setattr(sc, "SHIFTED_FROM", 0.0)


def _two_steps(eps: str, tol: float = 1e-4):
    acc = Accountant([{"kind": "gaussian", "sigma": "1/2", "poisson": "1/1000", "count": 2}], direction="remove",
                     max_seconds=60)
    return acc.delta_for_epsilon(eps, tol)


def test_shifted_route_contains_the_quadrature_value(forced_shifted):
    want = _two_step_remove(mpmath.mpf(2), mpmath.mpf(1) / 1000, mpmath.mpf("0.5"))
    r = _two_steps("0.5")
    assert r.lower <= want <= r.upper
    assert r.upper - r.lower <= 1e-3 * r.upper


def test_shifted_route_mutation_evaluating_too_far_right_is_caught(forced_shifted, monkeypatch):
    """Mutation: U read at t + 0.05 (a smaller δ_n than at t) stops bounding δ: the quadrature value leaves."""
    real = st.Profile.upper
    monkeypatch.setattr(st.Profile, "upper", lambda self, t: real(self, t + 0.05))
    want = _two_step_remove(mpmath.mpf(2), mpmath.mpf(1) / 1000, mpmath.mpf("0.5"))
    r = _two_steps("0.5")
    assert r.upper < want


def test_dp_sgd_row_shifted_narrows_and_agrees_with_products(monkeypatch):
    """σ = 2, q = 1/1000, T = 100, δ = 1e-18 (remove): the products' tilt is capped at THETA_MAX and their interval
    stays wide; the shifted route meets 1e-6 and lies inside the products' interval."""
    spec = [{"kind": "gaussian", "sigma": "2", "poisson": "1/1000", "count": 100}]
    e1 = Accountant(spec, direction="remove", max_seconds=20).epsilon_for_delta("1e-18", 1e-6)
    monkeypatch.setattr(sc, "SHIFTED", False)
    e0 = Accountant(spec, direction="remove", max_seconds=20).epsilon_for_delta("1e-18", 1e-6)
    assert max(e0.lower, e1.lower) <= min(e0.upper, e1.upper)
    assert e1.detail["tolerance_met"] and (e1.upper - e1.lower) <= 1e-6 * e1.upper
    assert (e0.upper - e0.lower) >= 100 * (e1.upper - e1.lower)


def _remove_law(sigma: str, q: str, count: int):
    from dpexact.accounting.event_laws import loss_laws
    from dpexact.accounting.events import event_from_dict

    return loss_laws(event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q, "count": count}),
                     ("remove",))["remove"]


def _delta_interval(sigma: str, q: str, count: int, delta: float, eps: float, h: float) -> tuple[float, float, sc.SplitTerms]:
    terms = sc.split_direction(_remove_law(sigma, q, count), count, h, 0.0, eps, delta, 1e-6)
    return terms.lo(eps), terms.up(eps), terms


def test_bulk_far_above_the_product_tilt_takes_shifted_terms(monkeypatch):
    """σ = 1, q = 1/1000, T = 100, δ = 1e-10 (t0/θ₁ ≈ 17): the products cut the bulk's power on the right at the FFT
    bound's level and count the cut in full (δ width 2.7e-5 of δ at 2^-16); the shifted terms, chosen by the ratio,
    are ~10× narrower. Both are proved: they intersect."""
    eps, h = 0.3933224, 2.0**-16
    lo1, up1, terms = _delta_interval("1", "1/1000", 100, 1e-10, eps, h)
    assert terms.thetas[0] >= sc.SHIFTED_RATIO * terms.thetas[1] and terms.thetas[1] < sc.SHIFTED_FROM
    assert all(isinstance(t, st.ShiftedTerm) for t in terms.upper_terms[1:])
    monkeypatch.setattr(sc, "SHIFTED_RATIO", math.inf)
    lo0, up0, terms0 = _delta_interval("1", "1/1000", 100, 1e-10, eps, h)
    assert all(isinstance(t, GridMeasure) for t in terms0.upper_terms)
    assert max(lo0, lo1) <= min(up0, up1)
    assert up1 - lo1 <= 4e-6 * up1
    assert up0 - lo0 >= 5 * (up1 - lo1)


def _q10_shifted(monkeypatch, term_saddle: bool) -> tuple[float, float, float, float]:
    """σ = 1/2, q = 1/10, T = 100 at ε = 31.37099 (δ ≈ 1e-5), h = 2^-10: δ's ends forced shifted and by products."""
    eps, h = 31.37099, 2.0**-10
    lo0, up0, _ = _delta_interval("1/2", "1/10", 100, 1e-5, eps, h)
    monkeypatch.setattr(sc, "SHIFTED_FROM", 0.0)
    monkeypatch.setattr(sc, "TERM_SADDLE", term_saddle)
    lo1, up1, terms = _delta_interval("1/2", "1/10", 100, 1e-5, eps, h)
    assert all(isinstance(t, st.ShiftedTerm) for t in terms.upper_terms[1:])
    return lo0, up0, lo1, up1


def test_shifted_tail_powers_at_the_terms_saddle_point_on_a_wide_bulk(monkeypatch):
    """A wide bulk (q = 1/10): A^{∗k} tilted at the whole term's saddle point keeps the shifted terms as tight as the
    products (the interval of either route, both proved, intersect)."""
    lo0, up0, lo1, up1 = _q10_shifted(monkeypatch, True)
    assert max(lo0, lo1) <= min(up0, up1)
    assert up1 - lo1 <= 1.5 * (up0 - lo0)


def test_shifted_tail_powers_mutation_tilt_of_a_alone_is_caught(monkeypatch):
    """Mutation: A^{∗k} tilted for A^{∗k} alone (the tilt before TERM_SADDLE) puts its mass near ε, far right of where a
    wide bulk reads it: the term k = 2's interval is ~150× wider than the products' (still proved: they intersect)."""
    lo0, up0, lo1, up1 = _q10_shifted(monkeypatch, False)
    assert max(lo0, lo1) <= min(up0, up1)
    assert up1 - lo1 > 1.5 * (up0 - lo0)


def test_end_shares_follow_the_route():
    """The schedule's one-end shares: a pass whose split terms k >= 1 are shifted terms predicts its upper end as the
    dearer one (measured), a products pass keeps the products' shares."""
    from dpexact.accounting.grid_cost import END_SHARE_SHIFTED, end_shares

    products = {"both": 1.0, "lower": 0.9, "upper": 0.7}
    up, _ = _measure(True)
    lo, _ = _measure(False)
    prod = sc.SplitTerms(10, [up, up], [lo, lo], 0.0, 2, 100)
    shifted = sc.SplitTerms(10, [up, st.ShiftedTerm([up], [], up, None)], [], 0.0, 2, 100)
    assert not prod.shifted and shifted.shifted
    assert end_shares([prod], products) is products
    assert end_shares([prod, shifted], products) is END_SHARE_SHIFTED
    assert END_SHARE_SHIFTED["upper"] > END_SHARE_SHIFTED["lower"]  # the measured order (grid_cost)


def test_window_from_the_first_y_holds_as_eps_moves(monkeypatch):
    """A shifted term's window that starts at the tail's first y keeps it as ε moves up (no re-windowing per call), and
    the windowed value agrees with a full evaluation (both are bounds; the window only leaves out what it bounds)."""
    eps, h = 0.3035539, 2.0**-13  # σ = 0.8, q = 1/1000, T = 1000, δ = 1e-5: y₀ holds 6e-5 of the term k = 1
    law = _remove_law("0.8", "1/1000", 1000)
    terms = sc.split_direction(law, 1000, h, 0.0, eps, 1e-5, 1e-6, ends="upper")
    calls = []
    real = st._End._full
    monkeypatch.setattr(st._End, "_full", lambda self, e, t: calls.append(e) or real(self, e, t))
    terms.up(eps)
    first = len(calls)
    moved = [terms.up(eps * (1 + i * 1e-9)) for i in range(1, 6)]
    assert first > 0 and len(calls) == first
    fresh = sc.split_direction(law, 1000, h, 0.0, eps, 1e-5, 1e-6, ends="upper")
    want = fresh.up(eps * (1 + 5e-9))
    assert abs(moved[-1] - want) <= 1e-9 * want


def test_products_widening_with_h_and_the_shifted_terms_at_that_step():
    """σ = 1/2, q = 1/1000, T = 1000 at ε = 14.7907 (δ ≈ 1e-18): the products' δ interval *widens* from 2^-10 to 2^-11
    (their tilt θ₁ ≈ 3.7 is below SHIFTED_FROM and t0/θ₁ ≈ 1.1 below SHIFTED_RATIO, so no rule picks shifted terms);
    forced at 2^-11 (the schedule's switch, ``shifted=True``), the shifted terms are >= 10× narrower than the products at
    either step, and both proved intervals intersect. Mutation: ``shifted`` ignored (the products again) fails the
    narrowing."""
    eps, law = 14.7907, _remove_law("1/2", "1/1000", 1000)
    coarse = sc.split_direction(law, 1000, 2.0**-10, 0.0, eps, 1e-18, 1e-6)
    fine = sc.split_direction(law, 1000, 2.0**-11, 0.0, eps, 1e-18, 1e-6)
    assert not coarse.shifted and not fine.shifted
    w_coarse, w_fine = coarse.up(eps) - coarse.lo(eps), fine.up(eps) - fine.lo(eps)
    assert w_fine > w_coarse
    forced = sc.split_direction(law, 1000, 2.0**-11, 0.0, eps, 1e-18, 1e-6, shifted=True)
    assert forced.shifted
    lo, up = forced.lo(eps), forced.up(eps)
    assert max(lo, fine.lo(eps), coarse.lo(eps)) <= min(up, fine.up(eps), coarse.up(eps))
    assert 10 * (up - lo) <= w_coarse


def test_schedule_switches_to_shifted_terms_when_a_split_pass_widens():
    """The DP-SGD row σ = 1/2, q = 1/1000, T = 1000, δ = 1e-18 (table v8: 2.5e-4 wide by products at 30 s, passes
    widening 3.4e-3 → 5.6e-3 → 1.0e-2): the pass that widened is redone at its own step with shifted terms, and the row
    meets 1e-6. The interval must contain the product route's (proved) interval's intersection with it."""
    spec = [{"kind": "gaussian", "sigma": "1/2", "poisson": "1/1000", "count": 1000}]
    r = Accountant(spec, max_seconds=30).epsilon_for_delta("1e-18", 1e-6)
    passes = r.detail["passes"]
    redo = [i for i in range(1, len(passes)) if passes[i]["h"] == passes[i - 1]["h"]
            and passes[i - 1]["upper"] - passes[i - 1]["lower"] > passes[i - 2]["upper"] - passes[i - 2]["lower"]]
    assert redo, passes
    i = redo[0]
    assert passes[i]["upper"] - passes[i]["lower"] <= 1e-2 * (passes[i - 1]["upper"] - passes[i - 1]["lower"])
    assert r.detail["tolerance_met"] and r.upper - r.lower <= 1e-6 * r.upper
    assert max(passes[i - 1]["lower"], r.lower) <= min(passes[i - 1]["upper"], r.upper)


@mpmath.workdps(40)
def test_profile_mass_from_untilted_bounds_the_exact_untilted_mass():
    """Profile.mass (:func:`.grid_measure.raw_total_untilted`, read from the cached untilted masses) against the exact
    untilted mass (mpmath over the tilted entries, e^{−θx}·v·2^scale) plus the removed parts' untilted bounds; it
    must not fall below it and stay as tight as :func:`.grid_measure.raw_total`."""
    for seed in range(1, 9):
        m0, _ = _measure(True, seed)
        m = GridMeasure(m0.h, m0.theta, m0.j0, m0.shift, m0.v, m0.scale, True, 0.0, 1e-9 * seed, 0.0, 3e-12 * seed)
        x = m.locations()
        exact = mpmath.fsum(mpmath.mpf(float(v)) * mpmath.ldexp(1, m.scale) * mpmath.exp(-mpmath.mpf(m.theta) * mpmath.mpf(float(xi)))
                            for v, xi in zip(m.v, x)) + mpmath.mpf(m.dropped_raw) + mpmath.mpf(m.tail_raw)
        got = st.Profile(m).mass
        assert got >= exact
        assert got <= exact * (1 + 1e-12)
        assert got <= gm.raw_total(m) * (1 + 1e-13) and gm.raw_total(m) <= got * (1 + 1e-13)


def test_term_zero_from_the_top_rung_chain_agrees_with_its_own_power(monkeypatch):
    """σ = 2, q = 1/1000, T = 100, δ = 1e-10 (shifted, t0 above the bulk's top saddle point): with SHARE_ZERO the
    ladder's top rung is the term k = 0's pair and B^{∗T} is B^{∗(T−1)} ∗ B on its chain; the term's δ ends and the
    whole interval intersect those of B^{∗T} by its own power (both proved), and are as narrow."""
    eps, h = 0.0327539, 2.0**-15
    lo1, up1, terms = _delta_interval("2", "1/1000", 100, 1e-10, eps, h)
    t0 = terms.thetas[0]
    assert terms.upper_terms[1].bulk_up[-1].theta == t0 and terms.upper_terms[0].theta == t0
    monkeypatch.setattr(sc, "SHARE_ZERO", False)
    lo0, up0, terms0 = _delta_interval("2", "1/1000", 100, 1e-10, eps, h)
    assert terms0.upper_terms[1].bulk_up[-1].theta < t0
    z1 = (gm.delta_lower(terms.lower_terms[0], eps), gm.delta_upper(terms.upper_terms[0], eps))
    z0 = (gm.delta_lower(terms0.lower_terms[0], eps), gm.delta_upper(terms0.upper_terms[0], eps))
    assert 0 < max(z0[0], z1[0]) <= min(z0[1], z1[1])
    assert z1[1] - z1[0] <= 1.5 * (z0[1] - z0[0])
    assert max(lo0, lo1) <= min(up0, up1) and up1 - lo1 <= 1.5 * (up0 - lo0)


def test_window_from_sampled_ys_gives_the_full_evaluation(monkeypatch):
    """The window and the profiles' picks chosen from every (N/FULL_SAMPLE)-th y (the first evaluation of a pass) give
    the same ends as choosing them from every y, to 1e-8 (the window leaves out < 1e3·WINDOW_REL of each term, and a y
    between sampled ones takes the nearest one's pick: measured 3e-9 at most), at several ε; the sampled route is
    taken (no full evaluation)."""
    eps, h = 0.6331382, 2.0**-13
    ends = {}
    for fs in (0, 64):
        monkeypatch.setattr(st, "FULL_SAMPLE", fs)
        terms = sc.split_direction(_remove_law("2", "1/100", 100), 100, h, 0.0, eps, 1e-18, 1e-6)
        shifted = [t for t in terms.upper_terms if isinstance(t, st.ShiftedTerm)]
        assert shifted and max(len(t._au.y) for t in shifted) > 4 * 64
        full = []
        real = st._End._full
        monkeypatch.setattr(st._End, "_full", lambda self, e, t: full.append(1) or real(self, e, t))
        ends[fs] = [(terms.lo(e), terms.up(e)) for e in (eps * (1 - 1e-6), eps, eps * (1 + 1e-7), eps * 1.01)]
        monkeypatch.setattr(st._End, "_full", real)
        assert (len(full) == 0) == (fs > 0)
    for (l0, u0), (l1, u1) in zip(ends[0], ends[64]):
        assert 0 < l0 <= u0 and abs(u1 - u0) <= 1e-8 * u0 and abs(l1 - l0) <= 1e-8 * u0


def test_products_term_zero_at_the_products_tilt_agrees_with_its_own_tilt(monkeypatch):
    """σ = 2, q = 1/100, T = 1000, δ = 1e-5 by products (t0/t1 ≈ 1.1 <= ZERO_NEAR): B^{∗T} on the chain at t1 and by its
    own power at t0 are both proved: their δ ends and the whole intervals intersect, and they are as narrow."""
    eps, h = 0.6220303, 2.0**-13
    lo1, up1, terms = _delta_interval("2", "1/100", 1000, 1e-5, eps, h)
    t0, t1 = terms.thetas
    assert not terms.shifted and t0 <= sc.ZERO_NEAR * t1 and terms.upper_terms[0].theta == terms.upper_terms[1].theta
    monkeypatch.setattr(sc, "ZERO_NEAR", 0.0)
    lo0, up0, terms0 = _delta_interval("2", "1/100", 1000, 1e-5, eps, h)
    assert terms0.upper_terms[0].theta == t0 != t1
    z1 = (gm.delta_lower(terms.lower_terms[0], eps), gm.delta_upper(terms.upper_terms[0], eps))
    z0 = (gm.delta_lower(terms0.lower_terms[0], eps), gm.delta_upper(terms0.upper_terms[0], eps))
    assert 0 < max(z0[0], z1[0]) <= min(z0[1], z1[1])
    assert max(lo0, lo1) <= min(up0, up1) and up1 - lo1 <= 1.5 * (up0 - lo0)
