"""The untilted masses and suffix sums a grid measure's evaluation reads (:mod:`dpexact.accounting.untilted`): each mass v·exp(scale·ln2 − θx) against the exact v·2^scale·e^{−θx} (mpmath, 50
digits, at the exact grid point) within the stated bound, the suffix sums within γ_k of the exact ones, and the
entries whose exponent leaves exp's range (the log path) finite wherever the true mass is."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpexact.accounting import grid_measure as gm
from dpexact.accounting import untilted as ut
from dpexact.accounting.grid_measure import GridMeasure

U = gm.U
TINY = 2.0**-1074


def _fresh(m: GridMeasure):
    ut._PRE.pop(id(m), None)
    ut._SUF.pop(id(m), None)
    return ut.untilted(m)


@mpmath.workdps(50)
def _exact(m: GridMeasure) -> tuple[list[mpmath.mpf], list[mpmath.mpf], list[mpmath.mpf]]:
    """Exact untilted masses, grid points (j0 + i)·h + shift and error scales |scale·ln2| + θ|x| of the float x."""
    th, sc = mpmath.mpf(m.theta), mpmath.mpf(m.scale)
    xs = [mpmath.mpf(m.j0 + i) * mpmath.mpf(m.h) + mpmath.mpf(m.shift) for i in range(len(m.v))]
    mass = [mpmath.mpf(float(v)) * mpmath.ldexp(1, m.scale) * mpmath.exp(-th * x) for v, x in zip(m.v, xs)]
    xf = m.locations()
    big = [abs(sc * mpmath.log(2)) + th * abs(mpmath.mpf(float(x))) for x in xf]
    return mass, xs, big


def _random_measures(seed: int, count: int) -> list[GridMeasure]:
    """Windows far from 0 and across it, θ from 0 to 60, |scale| up to ~10^5 (θ|x| ~ 10^5: argument rounding far above
    16u), v down to 2^-60 of the top with zeros and values near 1e-300, scale chosen so the exponent stays in exp's
    range on most of the window (the fast path) or not (the log path)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        h = int(rng.choice([1, 3, 5, 15])) * 2.0 ** -rng.integers(4, 21)
        n = int(rng.integers(2, 120))
        centre = float(rng.choice([0.0, 1.0, -1.0])) * 10.0 ** float(rng.uniform(-2, 3.7))
        j0 = round(centre / h) - n // 2
        shift = math.ldexp(float(rng.integers(-2**20, 2**20)), -int(rng.integers(20, 40)))
        theta = 0.0 if rng.random() < 0.1 else float(rng.choice([1, 10, 60])) * float(rng.uniform(0, 1))
        xm = (j0 + n / 2) * h + shift
        scale = round(theta * xm / math.log(2)) + int(rng.integers(-1250, 1250))
        v = rng.uniform(0, 1, n) * 2.0 ** -rng.integers(0, 61, n)
        v[rng.random(n) < 0.1] = 0.0
        if rng.random() < 0.2:
            v[rng.integers(0, n)] = 1e-300
        v[rng.integers(0, n)] = 1.0
        out.append(GridMeasure(h, theta, j0, shift, v, scale, bool(rng.random() < 0.5)))
    return out


@mpmath.workdps(50)
def test_untilted_masses_within_the_stated_bound_of_the_exact_masses():
    fast = slow = 0
    worst_arg = 0.0  # the largest error seen, relative to the masses' bound without the argument's rounding
    for m in _random_measures(11, 60) + _random_measures(12, 60):
        x, mass, suf = _fresh(m)
        exact, _, big = _exact(m)
        assert np.array_equal(x, (m.j0 + np.arange(len(m.v), dtype=np.float64)) * m.h + m.shift)
        lv = np.log(np.where(m.v > 0, m.v, 1.0))
        a = m.scale * math.log(2) - m.theta * x
        far = (a > 709) | (a < -708)
        for j in range(len(m.v)):
            got, ex = mpmath.mpf(float(mass[j])), exact[j]
            if not math.isfinite(float(mass[j])):
                assert ex > mpmath.mpf(1.79e308)  # beyond the float range: ∞ (as before)
                continue
            err = abs(got - ex)
            # the readers' bound: rel = 8u·suf + 16u (plus 2^-1074 absolute for subnormal results)
            rel = 8 * U * float(suf[j]) + 16 * U
            assert err <= rel * ex + 8 * TINY, (j, float(err / ex) / U, float(suf[j]))
            if m.v[j] > 0 and not far[j] and big[j] <= 1e12:
                fast += 1
                # the docstring's tighter claim on the fast path: 5u·B + 10u
                assert err <= (5 * U * big[j] + 10 * U) * ex + TINY
            elif m.v[j] > 0:
                slow += 1
                assert err <= (8 * U * (abs(float(lv[j])) + big[j]) + 16 * U) * ex + 8 * TINY
            if ex > 1e-300:
                worst_arg = max(worst_arg, float(err / ex / (16 * U)))
        # suf bounds every later entry's error scale (to within its own rounding: ln2, scale·ln2, θ|x| and the sum, 4u)
        sm = mpmath.mpf(0)
        for j in range(len(m.v) - 1, -1, -1):
            if m.v[j] > 0:  # an empty entry has no error
                sm = max(sm, big[j])
            assert suf[j] >= sm * (1 - 4 * U)
    assert fast > 2000 and slow > 50
    # the argument's rounding matters here: without its term the bound (16u) would not hold
    assert worst_arg > 1


def test_overflowing_exponent_with_a_small_entry_gives_the_finite_mass():
    """scale·ln2 − θx > 709 (exp(·) = ∞) while v·2^scale·e^{−θx} is finite: the log path's finite mass, 0 where v = 0."""
    h, theta, j0, shift = 2.0**-10, 0.5, -64, 0.0
    v = np.array([2.0**-600, 0.0, 2.0**-700, 1e-300, 2.0**-1000])
    m = GridMeasure(h, theta, j0, shift, v, 1100, True)
    _, mass, suf = _fresh(m)
    assert np.all(np.isfinite(mass)) and mass[1] == 0.0
    exact, _, _ = _exact(m)
    for j in (0, 2, 3, 4):
        rel = 8 * U * float(suf[j]) + 16 * U
        assert abs(mpmath.mpf(float(mass[j])) - exact[j]) <= rel * exact[j]
    # on the same window, an exponent in range takes the fast path: the same masses within the bound
    m2 = GridMeasure(h, theta, j0, shift, v * 2.0**500, 600, True)
    _, mass2, suf2 = _fresh(m2)
    assert np.all(np.abs(mass2 - mass) <= (8 * U * suf2 + 16 * U + 8 * U * suf + 16 * U) * mass)


def test_underflowing_exponent_keeps_the_log_path():
    """scale·ln2 − θx < −708: those entries take exp(log v + scale·ln2 − θx), as before (subnormal or 0 alike); the
    rest of the window the fast formula."""
    h, theta, j0 = 1.0, 30.0, 25
    v = np.array([1.0, 0.5, 0.0, 1.5, 2.0**-60, 1.0])
    m = GridMeasure(h, theta, j0, 0.0, v, 100, False)
    x, mass, _ = _fresh(m)
    a = 100 * math.log(2) - theta * x
    assert a[0] > -708 > a[1]
    with np.errstate(divide="ignore", under="ignore"):
        old = np.where(v > 0, np.exp(np.log(np.where(v > 0, v, 1.0)) + 100 * math.log(2) - theta * x), 0.0)
    assert np.array_equal(mass[1:], old[1:]) and mass[0] == v[0] * math.exp(a[0])
    assert 0 < mass[1] < 2.0**-1022 and mass[-1] == 0.0


@mpmath.workdps(50)
def test_suffix_sums_enclose_the_exact_sums():
    """s₁[i], s₂[i] with γ_k (k = n − i terms), each mass's rel and e^{−x}'s 8u(1 + max|x|), as the readers widen them
    (:func:`dpexact.accounting.grid_measure._delta_lower_suffix`, :meth:`.shifted_terms.Profile._parts`), enclose the exact sums."""
    for m in _random_measures(21, 40):
        ut._PRE.pop(id(m), None)
        ut._SUF.pop(id(m), None)
        with np.errstate(invalid="ignore"):  # an infinite mass times e^{−x} = 0 (a sum the readers do not use)
            x, s1, s2, suf, xmax = ut.suffix_sums(m)
        exact, xs, _ = _exact(m)
        n = len(x)
        if not (np.all(np.isfinite(s1)) and np.all(np.isfinite(s2))):
            continue  # the readers fall back (or give ∞ / 0) on a non-finite sum
        e1 = e2 = mpmath.mpf(0)
        for i in range(n - 1, -1, -1):
            e1 += exact[i]
            e2 += exact[i] * mpmath.exp(-xs[i])
            k = n - i
            g = k * U / (1 - k * U)
            rel = 8 * U * float(suf[i]) + 16 * U
            ex = 8 * U * (1 + xmax)
            slack = 8 * k * TINY  # subnormal masses: absolute
            assert s1[i] * (1 - g) * (1 - rel) - slack <= e1 <= s1[i] * (1 + g) * (1 + rel) + slack
            assert s2[i] * (1 - g) * (1 - rel) * (1 - ex) - slack <= e2 <= s2[i] * (1 + g) * (1 + rel) * (1 + ex) + slack


@pytest.mark.parametrize("seed", [3, 4])
def test_untilted_matches_the_log_formula_on_in_range_measures(seed):
    """On measures whose exponents stay in range the two formulas give the same masses to within both bounds, and
    the new error scales are no larger than the old ones (|log v| + |scale·ln2| + θ|x|, suffix maxima over v > 0) at
    every entry with mass, in a window whose last entry has mass (as :func:`.grid_measure.normalise` leaves it)."""
    for m in _random_measures(seed, 30):
        x, mass, suf = _fresh(m)
        pos = m.v > 0
        with np.errstate(divide="ignore", under="ignore", over="ignore"):
            lv = np.where(pos, np.log(np.where(pos, m.v, 1.0)), 0.0)
            old = np.where(pos, np.exp(lv + m.scale * math.log(2) - m.theta * x), 0.0)
        big = np.where(pos, np.abs(lv) + abs(m.scale * math.log(2)) + m.theta * np.abs(x), 0.0)
        osuf = np.maximum.accumulate(big[::-1])[::-1]
        ok = np.isfinite(old) & (old > 1e-300)
        r = 8 * U * (suf + osuf) + 32 * U
        assert np.all(np.abs(mass[ok] - old[ok]) <= r[ok] * old[ok])
        if pos[-1]:  # a normalised window ends on a positive entry: there the new scale is at most the old one
            assert np.all(suf[pos] <= osuf[pos] * (1 + 4 * U))


@mpmath.workdps(50)
def test_raw_mass_bounds_the_exact_untilted_mass_from_above_and_tightly():
    """grid_measure._raw_mass (an upper bound on Σ v·2^scale·e^{−θx}, read by normalise's cuts and raw_total) against
    the 50-digit sum of the exact masses: at or above it, within 1e-9 relative (its widening is (8·big + n + 16)u);
    ∞ only where the exact sum exceeds the float range; 0 for no mass. Mutation: the sum returned without its
    widening falls below the exact sum on some of these measures."""
    below = 0
    for m in _random_measures(31, 60):
        exact, _, _ = _exact(m)
        true = mpmath.fsum(exact)
        got = gm._raw_mass(m.v, m.locations(), m.theta, m.scale)
        if true > mpmath.mpf(1.7e308):
            assert got == math.inf
            continue
        assert got >= true
        if true > 1e-290:  # normal range: relative (below it the bound adds n·2^-1074 for underflowed masses)
            assert got <= true * (1 + 1e-9)
        mass, _ = ut.masses(m.v, m.locations(), m.theta, m.scale)
        below += float(mass.sum()) < true
    assert below > 0  # the unwidened float sum falls below the truth somewhere: the widening is load-bearing
    z = GridMeasure(2.0**-10, 1.0, 0, 0.0, np.zeros(5), 0, True)
    assert gm._raw_mass(z.v, z.locations(), 1.0, 0) == 0.0
