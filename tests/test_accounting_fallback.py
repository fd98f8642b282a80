"""Keeping the best end across passes (grid_accounting._passes, _next_guess), the one-grid fallback when the coarse
pass beats the first split pass, and the further end-cell shifts of the fitted lower end (discretise_gauss): each
against an independent computation, with mutations that must make the checks fail."""

from __future__ import annotations

import inspect
import math
import textwrap

import numpy as np
import pytest
from subsampled_reference import one_step_remove as _step_delta

from dpexact.accounting import discretise as disc
from dpexact.accounting import discretise_gauss as dg
from dpexact.accounting import fitted_lower as fl
from dpexact.accounting import grid_accounting as ga
from dpexact.accounting.accountant import Accountant
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_measure import delta_lower, delta_upper


@pytest.fixture(autouse=True)
def _grid_route(monkeypatch):
    """These tests are about the grid route's own passes: the MGF route (tried first for a DP-SGD event) is kept out."""
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)

# -- the intersection across passes ------------------------------------------------------------------------------


def _scripted_passes(table: dict[float, tuple[float, float]], monkeypatch: pytest.MonkeyPatch, passes=None):
    """Run _passes (or ``passes``, a mutant) on a cheap real event with each pass's interval read from ``table`` (by
    step): a constructed case whose finer passes are worse on one end."""
    ev = event_from_dict({"kind": "gaussian", "sigma": "1", "poisson": "1/100", "count": 10})
    steps = iter([2.0**-11, 2.0**-12, 2.0**-13, 2.0**-14, 2.0**-15, 2.0**-16])
    monkeypatch.setattr(ga, "_next_step", lambda h, spent, costs, left, growth=None, need=0.0: next(steps))
    monkeypatch.setattr(ga, "PASS_SAFETY", 0.0)  # every pass fits: the table decides

    def width(p):
        return table.get(p.h, (0.0, math.inf))

    run = ga._passes if passes is None else passes(vars(ga))
    return run([ev], ("remove",), 60.0, lambda p, d, a, b: 0.0, width, 1e-12)


#: each pass's interval by step; finer is not better (2^-14 and later: the trivial interval)
TABLE = {2.0**-10: (18.926, 18.94), 2.0**-11: (18.90, 18.935), 2.0**-12: (18.862, 18.9298), 2.0**-13: (18.92, 18.931)}


def test_passes_keep_the_best_end_of_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finer passes' lower ends are worse than the 2^-10 one's (as measured on σ = 0.5, q = 1/1000, T = 10^4,
    δ = 1e-18: 18.862 at 2^-12 against 18.926 at 2^-10): the interval keeps the best lower and the best upper."""
    (lo, hi), _, info = _scripted_passes(TABLE, monkeypatch)
    assert [p["h"] for p in info["passes"]][:4] == [2.0**-10, 2.0**-11, 2.0**-12, 2.0**-13]
    assert (lo, hi) == (18.926, 18.9298)


def test_passes_mutation_last_pass_only_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """_passes with its intersection replaced by the last pass's interval (a source mutation) loses the best ends."""
    src = inspect.getsource(ga._passes)
    keep = "result = now if result is None else (max(result[0], now[0]), min(result[1], now[1]))"
    assert keep in src

    def mutant(env: dict):
        ns = dict(env)
        exec(compile(textwrap.dedent(src.replace(keep, "result = now")), ga.__file__, "exec"), ns)  # noqa: S102 (a mutant)
        return ns["_passes"]

    (lo, hi), _, _ = _scripted_passes(TABLE, monkeypatch, mutant)
    assert (lo, hi) != (18.926, 18.9298)


def test_next_guess_is_the_intersection() -> None:
    assert ga._next_guess(None, (1.0, 2.0)) == (1.0, 2.0)
    # a finer pass worse on both ends (a split pass whose tilts miss) leaves the guess as it was
    assert ga._next_guess((12.7794, 12.7814), (12.759, 24.04)) == (12.7794, 12.7814)
    assert ga._next_guess((12.7794, 12.7814), (12.7801, 12.7820)) == (12.7801, 12.7814)
    # a one-end pass (δ's other end trivial) narrows the end it computed
    assert ga._next_guess((12.7794, 12.7814), (12.7800, math.inf)) == (12.7800, 12.7814)
    assert ga._next_guess(None, (0.0, math.inf)) is None


def test_solve_from_the_intersection_is_as_fine_as_from_a_good_guess() -> None:
    """The bisection stops within STOP_SHARE of the guess's width: from the intersection it ends ~1e-5 wide, from
    the bad pass's own interval ([12.759, 24.04], as measured) ~1e-2 (the mutation the intersection removes)."""
    true = 12.78028
    F = lambda e: math.exp(-3 * (e - true)) * 1e-18
    good = ga._next_guess((12.7794, 12.7814), (12.759, 24.04))
    lo, hi = ga._solve(F, 1e-18, False, 1e-9, good), ga._solve(F, 1e-18, True, 1e-9, good)
    assert lo < true <= hi and hi - lo < 1e-5
    lo_b, hi_b = ga._solve(F, 1e-18, False, 1e-9, (12.759, 24.04)), ga._solve(F, 1e-18, True, 1e-9, (12.759, 24.04))
    assert lo_b < true <= hi_b and hi_b - lo_b > 1e-3


# -- the one-grid fallback -----------------------------------------------------------------------------------------

SPEC = [{"kind": "gaussian", "sigma": "0.5", "poisson": "1/1000", "count": 100}]


def _one_grid_reference() -> tuple[float, float]:
    """An independent certified interval of ε(1e-18) for SPEC: one grid at 2^-11, the remove direction only (the add
    direction's ε is below 0.3, measured), θ = 3, no split, no schedule, no warm start."""
    from dpexact.numbers.real import Real

    ev = event_from_dict(SPEC[0])
    laws = ga._laws([ev], ("remove",))
    p = ga._Pass(laws, 2.0**-11, {"remove": 3.0}, {})
    t = Real.of("1e-18").to_arb(256)
    t_lo, t_hi = math.nextafter(float(t.lower()), -math.inf), math.nextafter(float(t.upper()), math.inf)
    return ga._solve(p.lo, t_hi, False), ga._solve(p.up, t_lo, True)


def test_fallback_to_one_grid_narrows_a_tail_decided_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """σ = 0.5, q = 1/1000, T = 100, δ = 1e-18: the split's first pass is [12.76, 24.04] where the coarse one-grid pass
    is [12.7794, 12.7814] (measured); the fallback's later one-grid passes narrow the interval below 1e-5 relative
    (v5: 1.6e-4). Its interval and the one-grid reference's intersect (both certified)."""
    ref = _one_grid_reference()
    assert ref[1] - ref[0] < 1e-4
    e = Accountant(SPEC, max_seconds=4).epsilon_for_delta("1e-18", 1e-6)
    assert "one_grid_after" in e.detail
    assert max(e.lower, ref[0]) <= min(e.upper, ref[1])
    assert (e.upper - e.lower) / e.upper < 1e-5
    monkeypatch.setattr(ga, "SPLIT_FALLBACK", False)
    old = Accountant(SPEC, max_seconds=4).epsilon_for_delta("1e-18", 1e-6)
    assert "one_grid_after" not in old.detail
    assert max(old.lower, ref[0]) <= min(old.upper, ref[1])
    assert (old.upper - old.lower) / old.upper > 1e-4


def test_fallback_mutation_untilted_one_grid_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback's passes at θ = 0 instead of the coarse pass's θ (~3) resolve nothing at δ = 1e-18: the width
    check of the test above fails."""
    real = ga._Pass.__init__

    def untilted(self, laws, h, theta, cache, split=None, ends="both", shifted=False):
        if split is None and h < ga.H_COARSE:
            theta = {d: 0.0 for d in theta}
        real(self, laws, h, theta, cache, split, ends, shifted)

    monkeypatch.setattr(ga._Pass, "__init__", untilted)
    e = Accountant(SPEC, max_seconds=4).epsilon_for_delta("1e-18", 1e-6)
    assert (e.upper - e.lower) / e.upper > 1e-5


def test_narrower_orders_infinite_ends() -> None:
    assert ga._narrower((1.0, 2.0), (1.0, math.inf))
    assert not ga._narrower((1.0, math.inf), (1.0, 2.0))
    assert not ga._narrower(None, (1.0, 2.0))
    assert ga._narrower((12.7794, 12.7814), (12.759, 24.04))
    assert not ga._narrower((0.5, 0.58), (0.514, 0.546))


# -- further end-cell shifts ---------------------------------------------------------------------------------------


def _fitted(h: float, theta: float = 2.9685211181640625):
    ev = event_from_dict(SPEC[0])
    law = ga._laws([ev], ("remove",))["remove"][0][0]
    a, b = disc.window(law, h, theta)
    _, ll, _, (mu, r) = dg.dominating_laws(law)
    return law, dg._lower_fitted(ll, mu, r, h, theta, a, b - a)


@pytest.mark.parametrize("k", [9, 12])
def test_further_edge_shifts_cut_the_move_below_one_shifts(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """σ = 0.5, q = 1/1000 at θ ≈ 2.97 (the row above's tilt): one shift, aimed 1e-3·h above the end cell's grid point,
    leaves the mean move at 1.2e-3·h (2^-9) and 1.5e-4·h (2^-12), measured (0.15·h and 2.7e-2·h while the shift was
    read from the lifted cells); the further ones, each aimed closer, bring it to 5.8e-7·h and 4.0e-7·h. The end stays
    below the quadrature."""
    h = 2.0**-k
    _, (m, cost) = _fitted(h)
    assert cost / h < 1e-5
    for eps in (1e-3, 0.5, 3.0):
        assert delta_lower(m, eps) <= _step_delta(0.5, 1e-3, eps)
    monkeypatch.setattr(fl, "EDGE_MORE", 0)
    _, (_, cost1) = _fitted(h)
    assert cost1 / h > 5e-5


def test_further_edge_shifts_mutation_inverted_stop_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopping the further shifts when the move is *large* (the test inverted) keeps 2^-12's one-shift move."""
    monkeypatch.setattr(fl, "EDGE_GOOD", math.inf)
    _, (_, cost) = _fitted(2.0**-12)
    assert cost / 2.0**-12 > 5e-5


def test_lower_end_at_2_12_is_within_the_quadrature_and_the_upper_end() -> None:
    """Soundness and closeness of one step's ends at 2^-12 with the further shifts: lower <= quadrature <= upper,
    the lower within 1e-4 relative at ε = 0.5 and 3."""
    h = 2.0**-12
    law, _ = _fitted(h)
    up, lo = dg.discretise_gauss(law, h, 2.9685211181640625, disc.window(law, h, 2.9685211181640625))
    for eps in (0.5, 3.0):
        want = _step_delta(0.5, 1e-3, eps)
        assert delta_lower(lo, eps) <= want <= delta_upper(up, eps)
        assert delta_lower(lo, eps) >= want * (1 - 1e-4)


# -- a square transforms its factor once -----------------------------------------------------------------------------


def _upper_measure(n: int = 3000):
    from dpexact.accounting.grid_measure import GridMeasure

    rng = np.random.default_rng(5)
    v = rng.random(n) * np.exp(-np.linspace(0, 20, n))
    return GridMeasure(2.0**-12, 2.0, -700, 0.0, v / v.max(), -3, True, 1e-30, 1e-25, 2e-31, 3e-26)


def test_square_is_the_same_floats_as_a_product_of_copies() -> None:
    """convolve(x, x) (one transform) against convolve(x, copy of x) (two): every field equal, both sides."""
    from dataclasses import replace

    from dpexact.accounting import grid_measure as gm

    for upper in (True, False):
        x = replace(_upper_measure(), upper=upper)
        y = replace(x, v=x.v.copy())
        a, b = gm.convolve(x, x), gm.convolve(x, y)
        assert np.array_equal(a.v, b.v) and (a.j0, a.scale, a.dropped, a.dropped_raw, a.tail, a.tail_raw) == \
            (b.j0, b.scale, b.dropped, b.dropped_raw, b.tail, b.tail_raw)


def test_square_mutation_conjugate_transform_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A square that reused the conjugate transform (the correlation x ⋆ x instead of x ∗ x) differs."""
    from dataclasses import replace

    from dpexact.accounting import grid_measure as gm

    real = np.fft.rfft
    calls: list = []

    def rfft(a, n=None):
        out = real(a, n)
        calls.append(1)
        return out.conj() if len(calls) == 1 else out

    x = _upper_measure()
    y = replace(x, v=x.v.copy())
    good = gm.convolve(x, y)
    monkeypatch.setattr(np.fft, "rfft", rfft)
    bad = gm.convolve(x, x)
    assert len(calls) == 1
    assert bad.v.shape != good.v.shape or not np.allclose(bad.v, good.v, rtol=1e-6, atol=0)


def test_next_step_stops_at_the_step_the_tolerance_needs() -> None:
    """With a budget for h/8, the step stops at the coarsest power of two at or below ``need`` (the step predicted to
    meet the tolerance); without ``need`` it goes to h/8. A float choice: any step is a proved pass."""
    h = 2.0**-10
    costs = [(2.0**-9, 0.05), (h, 0.1)]  # ~b/h: a halving doubles the cost
    assert ga._next_step(h, 0.1, costs, 100.0) == h / 8
    assert ga._next_step(h, 0.1, costs, 100.0, need=h / 3) == h / 4
    assert ga._next_step(h, 0.1, costs, 100.0, need=h) == h / 2  # at least one halving
