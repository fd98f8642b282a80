"""One-end passes (grid_accounting._choose_pass: refine only the end that limits), the upper-only saddle probe, the
suffix-sum evaluation of a lower measure's δ (grid_measure._delta_lower_suffix) and the warm-started bisection of ε:
each against an independent computation, with mutations that must make the checks fail."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpexact.accounting import discretise_gauss as dg
from dpexact.accounting import grid_accounting as ga
from dpexact.accounting import grid_measure as gm
from dpexact.accounting import root_bracket
from dpexact.accounting import split_composition as sc
from dpexact.accounting.accountant import Accountant
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_measure import GridMeasure


@pytest.fixture(autouse=True)
def _grid_route(monkeypatch):
    """These tests are about the grid route's own passes: the MGF route (tried first for a DP-SGD event) is kept out."""
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)


def _law(sigma: str, q: str, count: int):
    ev = event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q, "count": count})
    return ga._laws([ev], ("remove",))["remove"][0][0]


def _exact_delta(m: GridMeasure, eps: float) -> mp.mpf:
    """∫f_ε dm of a grid part at 30 digits from its stored entries (v_j·2^scale·e^{−θx_j}, x_j = (j₀ + k)h + shift)."""
    with mp.workdps(30):
        total = mp.mpf(0)
        e = mp.mpf(eps)
        for k, v in enumerate(m.v):
            if v <= 0:
                continue
            x = (mp.mpf(m.j0) + k) * mp.mpf(m.h) + mp.mpf(m.shift)
            if x > e:
                total += mp.mpf(v) * mp.mpf(2) ** m.scale * mp.exp(-m.theta * x) * (1 - mp.exp(e - x))
        return total


def _lower_measure(n: int = 4200, theta: float = 3.0, shift: float = 2.0**-20) -> GridMeasure:
    rng = np.random.default_rng(11)
    v = rng.random(n) ** 4 * np.exp(-np.linspace(0, 30, n))
    return GridMeasure(2.0**-12, theta, -900, shift, v / v.max(), -5, False, 0.0, 0.0)


def _grid_points(m: GridMeasure) -> list[float]:
    x = m.locations()
    # at, just below and just above atoms (an off-by-one in the suffix index shows there), and between
    return [float(x[i]) + d for i in (7, 2500, 4150) for d in (0.0, -1e-9, m.h / 2)] + [-1.0]


def test_suffix_lower_is_below_the_exact_sum_and_close_to_it() -> None:
    m = _lower_measure()
    assert len(m.v) >= gm.SUFFIX_MIN
    for eps in _grid_points(m):
        fast = gm._delta_lower_suffix(m, eps)
        exact = _exact_delta(m, eps)
        assert fast <= exact
        assert fast >= float(exact) * (1 - 1e-9) - 1e-300
        assert gm.delta_lower(m, eps) == fast


def test_suffix_lower_mutation_index_off_by_one_is_caught() -> None:
    """Either off-by-one of the suffix index stays a lower bound (a term with x_j <= ε enters S₁ − e^ε·S₂ as a
    non-positive one), so the closeness check is what catches it: skipping the first atom above ε loses its term."""
    m = _lower_measure()
    real = np.searchsorted
    pts = _grid_points(m)
    exact = [_exact_delta(m, eps) for eps in pts]
    try:
        np.searchsorted = lambda a, v, side="left": int(real(a, v, side=side)) + 1  # type: ignore[assignment]
        gm._SUF.clear()
        far = [gm._delta_lower_suffix(m, eps) < float(ex) * (1 - 1e-9) for eps, ex in zip(pts, exact)]
    finally:
        np.searchsorted = real  # type: ignore[assignment]
        gm._SUF.clear()
    assert any(far)


def test_suffix_lower_mutation_dropped_rounding_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """S₂ taken 1e-6 low (a rounding carried the wrong way, magnified) puts the bound above the exact sum."""
    m = _lower_measure()
    real = gm._suffix_sums

    def low(mm: GridMeasure):
        x, s1, s2, suf, xmax = real(mm)
        return x, s1, s2 * (1 - 1e-6), suf, xmax

    monkeypatch.setattr(gm, "_suffix_sums", low)
    assert any(gm._delta_lower_suffix(m, eps) > _exact_delta(m, eps) for eps in _grid_points(m))


@pytest.mark.parametrize("ends", ["upper", "lower"])
def test_one_end_discretisation_is_that_end_of_both(ends: str) -> None:
    law = _law("1", "1/100", 100)
    h, theta = 2.0**-9, 4.0
    win = (-20, 400)
    both = dg.discretise_gauss(law, h, theta, win)
    one = dg.discretise_gauss(law, h, theta, win, ends=ends)
    i = 0 if ends == "upper" else 1
    assert one[1 - i] is None
    assert one[i].j0 == both[i].j0 and one[i].scale == both[i].scale and one[i].shift == both[i].shift
    assert np.array_equal(one[i].v, both[i].v)
    with pytest.raises(ValueError, match="ends"):
        dg.discretise_gauss(law, h, theta, win, ends="neither")


def test_one_end_split_terms_keep_that_end_and_give_the_other_trivially() -> None:
    law = _law("0.8", "1/1000", 100)
    args = (law, 100, 2.0**-11, 8.0, 4.2, 1e-18, 1e-6)
    both = sc.split_direction(*args)
    low = sc.split_direction(*args, ends="lower")
    up = sc.split_direction(*args, ends="upper")
    for eps in (3.5, 4.2, 5.0):
        assert low.lo(eps) == both.lo(eps) and low.up(eps) == 1.0
        assert up.up(eps) == both.up(eps) and up.lo(eps) == 0.0
        assert both.lo(eps) <= both.up(eps)


def test_choose_pass_refines_the_limiting_end() -> None:
    # a budget where a full pass fits 2^-13 only, a one-end pass 2^-14 (ample budget: both ends at the finest step)
    costs = [(2.0**-10, 0.2), (2.0**-12, 0.8)]
    # the budget from the schedule's own cost model: between a one-end and a full pass at 2^-14
    left = ga.PASS_SAFETY * ga._predict(costs, 2.0**-14) * (1 + ga.END_SHARE["lower"]) / 2
    # the lower end moved 10× more than the upper over the same halvings: its error limits
    lower_limits = {"lower": [(2.0**-10, 1.0), (2.0**-12, 1.01)], "upper": [(2.0**-10, 1.1), (2.0**-12, 1.099)]}
    assert ga._choose_pass(lower_limits, 2.0**-12, 0.8, costs, left)[0] == "lower"
    upper_limits = {"lower": [(2.0**-10, 1.0), (2.0**-12, 1.001)], "upper": [(2.0**-10, 1.1), (2.0**-12, 1.09)]}
    assert ga._choose_pass(upper_limits, 2.0**-12, 0.8, costs, left)[0] == "upper"
    even = {"lower": [(2.0**-10, 1.0), (2.0**-12, 1.01)], "upper": [(2.0**-10, 1.1), (2.0**-12, 1.09)]}
    assert ga._choose_pass(even, 2.0**-12, 0.8, costs, left)[0] == "both"
    assert ga._choose_pass(lower_limits, 2.0**-12, 0.8, costs, 300.0)[0] == "both"
    # one pass of an end only: no estimate, both ends
    assert ga._choose_pass({"lower": [(2.0**-12, 1.0)], "upper": []}, 2.0**-12, 0.8, costs, 4.0)[0] == "both"


def test_solve_with_a_guess_is_certified_by_its_own_evaluation() -> None:
    F = lambda e: math.exp(-3 * e)  # δ(ε) of a toy: the answer is log(1/t)/3
    t = 1e-7
    true = math.log(1 / t) / 3
    for guess in (None, (true * 0.99, true * 1.01), (1.0, 2.0), (10.0, 20.0)):
        hi = ga._solve(F, t, True, 1e-9, guess)
        lo = ga._solve(F, t, False, 1e-9, guess)
        assert F(hi) <= t < F(lo) and lo <= true <= hi
        assert hi - lo <= 1e-8 * true + 1e-3 * (guess[1] - guess[0] if guess else 0)


SPEC = [{"kind": "gaussian", "sigma": "0.8", "poisson": "1/1000", "count": 100}]
#: the v4 DP-SGD table's certified interval of this row (previous code, both ends refined together at 2^-14)
V4 = (4.20529821, 4.20530339)


def _force_lower_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pass after the first two fine ones refines the lower end alone, one halving at a time."""
    monkeypatch.setattr(ga, "_choose_pass", lambda track, h, spent, costs, left, need=0.0, shares=None: (
        ("lower", h / 2) if ga._end_errors(track) else ("both", h / 2)))


def test_accountant_with_one_end_passes_meets_the_full_passes_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row whose lower end limits (σ = 0.8, q = 1/1000, T = 100, δ = 1e-18): with lower-only passes and without,
    the certified intervals must intersect (and meet the v4 table's); the lower-only passes raise the lower end."""
    _force_lower_only(monkeypatch)
    e1 = Accountant(SPEC, max_seconds=3).epsilon_for_delta("1e-18", 1e-7)
    monkeypatch.undo()
    monkeypatch.setattr(ga, "ONE_END", False)
    e0 = Accountant(SPEC, max_seconds=3).epsilon_for_delta("1e-18", 1e-7)
    assert e1.lower <= e1.upper and e0.lower <= e0.upper
    assert max(e1.lower, e0.lower, V4[0]) <= min(e1.upper, e0.upper, V4[1])
    lows = [p for p in e1.detail["passes"] if p.get("ends") == "lower"]
    assert lows and all(p["upper"] == math.inf for p in lows)
    assert not any("ends" in p for p in e0.detail["passes"])


def test_accountant_mutation_trivial_upper_taken_as_zero_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lower-only pass whose missing upper end reads δ = 0 (instead of 1) would cut the interval below the truth."""
    real = sc.SplitTerms.up

    def up(self, eps: float) -> float:
        return 0.0 if not self.upper_terms else real(self, eps)

    _force_lower_only(monkeypatch)
    monkeypatch.setattr(sc.SplitTerms, "up", up)
    bad = Accountant(SPEC, max_seconds=3).epsilon_for_delta("1e-18", 1e-7)
    assert bad.upper < V4[0]


def test_solve_by_interpolation_needs_few_evaluations_and_stays_certified() -> None:
    """log δ curved like a Gaussian tail: from a fine pass's guess the interpolated bracket closes in two evaluations
    after the guess's ends (bisection: ~12), each end certified by its own evaluation and within the stop width of the
    true root (computed in closed form); without a guess the search still converges."""
    def F(e: float) -> float:
        return math.exp(-((e + 1.0) ** 2) * 20)

    t = 1e-30
    true = math.sqrt(math.log(1 / t) / 20) - 1.0
    W = 1e-7 * true
    for guess in ((true - 0.3 * W, true + 0.7 * W), (true - 0.9 * W, true + 0.05 * W), None):
        for upper in (True, False):
            n = [0]

            def G(e: float, n: list = n) -> float:
                n[0] += 1
                return F(e)

            x = ga._solve(G, t, upper, 1e-9, guess)
            assert (F(x) <= t and x >= true) if upper else (F(x) > t and x < true)
            stop = W * root_bracket.STOP_SHARE if guess else 0.0
            assert abs(x - true) <= max(1e-9 * (true + W), stop) * 1.000001
            if guess:
                assert n[0] <= 5
