"""The two removed parts of an upper grid measure (:mod:`dpexact.accounting.grid_measure`): left cuts moved up
onto the grid or bounded (Chernoff / untilted), right cuts bounded by the smaller of their Chernoff weight and
their untilted mass — checked against exact sums in mpmath, against independent compositions (binomial sums of
subsampled randomized response, nested quadrature of two subsampled Gaussian steps), and by mutation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpexact.accounting import grid_measure as gm
from dpexact.accounting.accountant import Accountant
from subsampled_reference import two_step_remove as _two_step_remove
from dataclasses import replace

from dpexact.accounting.grid_measure import GridMeasure, delta_upper, normalise

H, THETA = 2.0**-4, 1.0


def _measure(tail_mass: float = 1e-9) -> tuple[GridMeasure, list[tuple[float, float]]]:
    """An upper measure: a bulk around 0 (untilted mass ~1) and a light far tail on [6, 8] (a subsampled law's
    heavy tail), tilted by θ; returns it and its (location, untilted mass) atoms."""
    j0 = -24
    x = (j0 + np.arange(240)) * H
    m = np.where(np.abs(x) < 0.75, np.exp(-x * x / (2 * 0.25**2)), 0.0)  # compact: all of it above the cut
    m = m / m.sum()
    m = m + np.where((x >= 6) & (x <= 8), tail_mass, 0.0)
    v = m * np.exp(THETA * x)
    scale = math.frexp(float(v.max()))[1]
    meas = GridMeasure(H, THETA, j0, 0.0, np.ldexp(v, -scale), scale, True, 0.0, 0.0)
    return meas, [(float(a), float(b)) for a, b in zip(x, m) if b > 0]


@mpmath.workdps(40)  # its own precision, the global one untouched (other tests read it)
def _exact(atoms, eps: float) -> mpmath.mpf:
    e = mpmath.mpf(eps)
    return mpmath.fsum(mpmath.mpf(mm) * (1 - mpmath.exp(e - mpmath.mpf(xx))) for xx, mm in atoms if xx > eps)


def _cut(meas: GridMeasure) -> GridMeasure:
    # a floor as after an FFT product: the far tail's tilted entries (~1e-9·e^7 ≈ 1e-6 of the top) fall below it
    return normalise(meas, 1e-4 * float(meas.v.max()))


def test_right_cut_goes_to_its_own_part():
    meas, _ = _measure()
    cut = _cut(meas)
    assert cut.locations()[-1] < 6  # the tail left the grid ...
    assert cut.tail > 0 and 0 < cut.tail_raw < 1e-7  # ... into the right part, its untilted mass ~ 33 atoms × 1e-9
    assert cut.tail_raw == pytest.approx(33e-9, rel=1e-6)


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.5])
def test_removed_parts_bound_the_exact_sum(eps):
    meas, atoms = _measure()
    cut = _cut(meas)
    want = _exact(atoms, eps)
    assert delta_upper(cut, eps) >= want


def test_untilted_bound_is_tight_where_chernoff_is_not():
    """At ε = 3 the tail (at 6..8) is nearly all of δ: its untilted mass bounds it within a few %, while the
    Chernoff bound e^{θ(x − ε)} counts it 20-150 times over."""
    meas, atoms = _measure()
    cut = _cut(meas)
    eps = 3.0
    want = float(_exact(atoms, eps))
    got = delta_upper(cut, eps)
    assert want <= got <= 1.06 * want
    chernoff_only = gm._chernoff(cut, cut.tail, eps)
    assert chernoff_only > 10 * want


def test_mutated_untilted_mass_breaks_the_bound(monkeypatch):
    """The right part's untilted mass undercounted by half (a lost term): the bound falls below the exact sum."""
    meas, atoms = _measure()
    real = gm._raw_mass
    monkeypatch.setattr(gm, "_raw_mass", lambda v, x, t, s: 0.5 * real(v, x, t, s))
    cut = _cut(meas)
    assert delta_upper(cut, 3.0) < _exact(atoms, 3.0)


def test_left_fold_moves_tiny_entries_up():
    """Entries far below the cut at the left end are moved onto the first kept point (nothing is removed)."""
    j0 = -4
    x = (j0 + np.arange(40)) * H
    m = np.ones(40)
    m[:4] = 1e-30  # far below the cut
    v = m * np.exp(x)
    meas = GridMeasure(H, 1.0, j0, 0.0, v / v.max(), 0, True, 0.0, 0.0)
    cut = normalise(meas, 1e-3)
    assert cut.j0 == 0 and cut.dropped == 0 and cut.tail == 0


def _left_heavy() -> tuple[GridMeasure, list[tuple[float, float]]]:
    """An upper measure whose left end holds entries at an FFT-noise-like level (1e-9 of the top, far above
    2^-60): cut by a floor, they are moved up onto the first kept point (FOLD_GRID), not removed."""
    j0 = -40
    x = (j0 + np.arange(80)) * H
    m = np.where(x >= -0.5, np.exp(-x * x / 0.5), 0.0)
    m = m + np.where(x < -0.5, 1e-9, 0.0)
    v = m * np.exp(THETA * x)
    scale = math.frexp(float(v.max()))[1]
    return GridMeasure(H, THETA, j0, 0.0, np.ldexp(v, -scale), scale, True, 0.0, 0.0), list(zip(x.tolist(), m.tolist()))


def _point(k: int) -> GridMeasure:
    """An upper measure: untilted mass >= 1 at k·H (its tilted weight rounded up)."""
    t = math.exp(THETA * k * H)
    e = math.frexp(t)[1]
    return GridMeasure(H, THETA, k, 0.0, np.array([math.ldexp(t, -e) * (1 + 1e-14)]), e, True, 0.0, 0.0)


def _moved_up_product(shift: float) -> tuple[GridMeasure, list[tuple[float, float]]]:
    meas, atoms = _left_heavy()
    cut = normalise(meas, 1e-6)
    k = round(shift / H)
    return gm.convolve(cut, _point(k)), [(a + k * H, b) for a, b in atoms]


@pytest.mark.parametrize("shift", [0.0, 1.0, 2.0, 2.5])
def test_left_cut_at_noise_level_is_moved_up_and_bounds(shift):
    """The noise-level left cut is moved up (nothing removed), and the product with a point mass at ``shift``
    (moving the cut entries across ε) still bounds the exact δ (mpmath) at every ε."""
    meas, _ = _left_heavy()
    cut = normalise(meas, 1e-6)
    assert cut.j0 > meas.j0 and cut.dropped == 0
    prod, moved = _moved_up_product(shift)
    for eps in (0.0, 0.5, 1.0, 1.5, 2.0):
        assert delta_upper(prod, eps) >= _exact(moved, eps)


def test_left_cut_mutation_losing_the_moved_mass_breaks_the_bound(monkeypatch):
    """Mutation: a fold that loses the cut entries' mass stops bounding δ once the product moves them above ε."""
    monkeypatch.setattr(gm, "_fold", lambda left, gain: 0.0)
    prod, moved = _moved_up_product(2.5)
    assert any(delta_upper(prod, e) < _exact(moved, e) for e in (0.5, 1.0, 1.5))


@mpmath.workdps(40)  # its own precision, the global one untouched (other tests read it)
def test_fold_weight_is_the_gained_tilt():
    """_fold(left, gain) bounds Σ left_i·e^{gain_i} (mpmath); a fold without the tilt gained (mutation) does not."""
    rng = np.random.default_rng(3)
    left = 10.0 ** rng.uniform(-30, -20, 50)
    gain = rng.uniform(0, 3, 50)
    want = mpmath.fsum(mpmath.mpf(a) * mpmath.exp(mpmath.mpf(g)) for a, g in zip(left, gain))
    assert gm._fold(left, gain) >= want
    assert float(left.sum()) < want  # the mutated weight would undercount


def _rr_exact(e0: int, q: mpmath.mpf, T: int, eps: mpmath.mpf) -> mpmath.mpf:
    """δ(ε) of T-fold Poisson-subsampled binary randomized response (both directions): binomial sums."""
    E = mpmath.e**e0
    p, s = E / (E + 1), 1 / (E + 1)
    best = mpmath.mpf(0)
    for pairs in ([(q * p + (1 - q) * s, s), (q * s + (1 - q) * p, p)], [(s, q * p + (1 - q) * s), (p, q * s + (1 - q) * p)]):
        (a1, b1), (a2, b2) = pairs
        l1, l2 = mpmath.log(a1 / b1), mpmath.log(a2 / b2)
        tot = mpmath.fsum(mpmath.binomial(T, k) * a1**k * a2 ** (T - k) * (1 - mpmath.exp(eps - (k * l1 + (T - k) * l2)))
                          for k in range(T + 1) if k * l1 + (T - k) * l2 > eps)
        best = max(best, tot)
    return best


@pytest.mark.parametrize("T,eps", [(60, "0.3"), pytest.param(300, "0.6", marks=pytest.mark.slow),
                                   pytest.param(300, "1.1", marks=pytest.mark.slow)])
@mpmath.workdps(50)  # its own precision, the global one untouched (other tests read it)
def test_subsampled_rr_binomial(T, eps):
    """e^1 is irrational, so the grid route runs (FFT, cuts, removed parts); the interval contains the binomial sum."""
    acc = Accountant([{"kind": "randomized-response", "epsilon": "1", "poisson": "1/100", "count": T}], max_seconds=60)
    r = acc.delta_for_epsilon(eps, 1e-3)
    want = _rr_exact(1, mpmath.mpf(1) / 100, T, mpmath.mpf(eps))
    assert r.lower <= want <= r.upper
    assert r.upper - r.lower <= 1e-2 * r.upper


def test_two_subsampled_gaussian_steps_nested_quadrature():
    """σ = 1/2 at q = 1/1000: δ comes from the heavy tail (one step with a large loss), the part the right cuts
    remove; the certified interval contains the quadrature value and is narrow."""
    eps = "0.5"
    want = _two_step_remove(mpmath.mpf(2), mpmath.mpf(1) / 1000, mpmath.mpf(eps))
    acc = Accountant([{"kind": "gaussian", "sigma": "1/2", "poisson": "1/1000", "count": 2}], direction="remove",
                     max_seconds=60)
    r = acc.delta_for_epsilon(eps, 1e-4)
    assert r.lower <= want <= r.upper
    assert r.upper - r.lower <= 1e-3 * r.upper
