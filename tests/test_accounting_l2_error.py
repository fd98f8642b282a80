"""The FFT error carried in ℓ2 form (:mod:`dpexact.accounting.l2_error`): checked against convolutions done exactly
(Python fractions) and δ summed in mpmath, compared with the per-entry bound it replaces, and mutation-tested on
constructed cases where Cauchy–Schwarz and Young's inequality are tight."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpexact.accounting import grid_measure as gm
from dpexact.accounting import l2_error
from dpexact.accounting.grid_measure import GridMeasure, convolve, delta_lower, delta_upper, fft_error_bound, power

H, THETA = 2.0**-4, 0.5


def _bell(n: int, j0: int, centre: float, width: float, seed: int) -> np.ndarray:
    """Tilted entries of a bell-shaped measure with a little noise (so no entry is special), max 1."""
    x = (j0 + np.arange(n)) * H
    rng = np.random.default_rng(seed)
    v = np.exp(-((x - centre) ** 2) / (2 * width**2) + THETA * x) * (1 + 0.1 * rng.random(n))
    return v / v.max()


def _measure(v: np.ndarray, j0: int, upper: bool, err: float = 0.0) -> GridMeasure:
    return GridMeasure(H, THETA, j0, 0.0, v, 0, upper, 0.0, 0.0, 0.0, 0.0, err)


def _exact_conv(a: np.ndarray, b: np.ndarray) -> list[Fraction]:
    fa, fb = [Fraction(float(t)) for t in a], [Fraction(float(t)) for t in b]
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, s in enumerate(fa):
        if s:
            for j, t in enumerate(fb):
                out[i + j] += s * t
    return out


def _exact_delta(entries, j0: int, scale: int, eps: float, theta: float = THETA) -> mpmath.mpf:
    """Σ_{x_j > ε} P_j·2^scale·e^{−θx_j}(1 − e^{ε − x_j}) for exact tilted entries P_j at x_j = (j0 + j)·h."""
    mpmath.mp.dps = 40
    e = mpmath.mpf(eps)
    total = mpmath.mpf(0)
    for j, p in enumerate(entries):
        x = mpmath.mpf((j0 + j) * H)
        if x > e and p:
            total += mpmath.mpf(p.numerator) / p.denominator * mpmath.ldexp(1, scale) * mpmath.exp(-theta * x) \
                * (1 - mpmath.exp(e - x))
    return total


def _pair():
    a, b = _bell(120, -40, 0.5, 0.8, 1), _bell(110, -30, 1.0, 0.7, 2)
    return a, b, -40, -30


def test_fft_error_bound_holds_against_the_exact_convolution():
    """The computed FFT convolution is within the ℓ2 bound of the exact one (measured: far within — the bound is
    Higham's worst case; the test states the ratio it sees)."""
    a, b, _, _ = _pair()
    n = len(a) + len(b) - 1
    nf = 1 << (n - 1).bit_length()
    c = np.fft.irfft(np.fft.rfft(a, nf) * np.fft.rfft(b, nf), nf)[:n]
    exact = _exact_conv(a, b)
    diff = math.sqrt(float(sum((Fraction(float(ci)) - ei) ** 2 for ci, ei in zip(c, exact))))
    bound = fft_error_bound(a, b, nf)
    assert 0 < diff <= bound
    assert bound / diff > 10  # a worst-case bound: measured ~10^3 here


@pytest.mark.parametrize("upper", [True, False])
def test_composed_delta_bounds_hold_against_exact_sums(upper):
    """One FFT product, normalised (cuts included): the δ end brackets the exact δ of the exact product at every ε."""
    a, b, ja, jb = _pair()
    m = convolve(_measure(a, ja, upper), _measure(b, jb, upper))
    assert m.err > 0
    exact = _exact_conv(a, b)
    for eps in (-1.0, 0.0, 0.7, 1.5, 3.0, 5.0):
        want = _exact_delta(exact, ja + jb, 0, eps)
        if upper:
            assert delta_upper(m, eps) >= want
        else:
            assert delta_lower(m, eps) <= want


def test_lower_entries_within_the_carried_l2_error():
    """The carried err bounds ‖p − v‖₂ on the kept window (the lower end: its cut entries are dropped, so p is the
    exact product restricted to the window)."""
    a, b, ja, jb = _pair()
    m = convolve(_measure(a, ja, False), _measure(b, jb, False))
    exact = _exact_conv(a, b)
    off = m.j0 - (ja + jb)
    sq = sum((Fraction(float(math.ldexp(float(vi), m.scale))) - exact[off + i]) ** 2 for i, vi in enumerate(m.v))
    assert math.sqrt(float(sq)) <= math.ldexp(m.err, m.scale)


def test_power_recurrence_holds_for_repeated_squarings():
    """x^{∗8} by three squarings (each error carried through the recurrence (R)): both δ ends bracket the exact
    8-fold convolution's δ."""
    a = _bell(40, -16, 0.2, 0.6, 3)
    up, lo = power(_measure(a, -16, True), 8), power(_measure(a, -16, False), 8)
    assert up.err > 0 and lo.err > 0
    exact = [Fraction(float(t)) for t in a]
    one = exact
    for _ in range(7):
        nxt = [Fraction(0)] * (len(exact) + len(one) - 1)
        for i, s in enumerate(exact):
            for j, t in enumerate(one):
                nxt[i + j] += s * t
        exact = nxt
    for eps in (0.5, 2.0, 4.0, 6.0):
        want = _exact_delta(exact, -16 * 8, 0, eps)
        assert delta_lower(lo, eps) <= want <= delta_upper(up, eps)


def test_the_l2_term_is_below_the_per_entry_bound_it_replaces():
    """v6 added the per-entry bound b = fft_error_bound(...) to every entry: in δ that counts b·Σ_{x_j>ε} w_j; the ℓ2
    term counts ‖e‖₂·‖w‖₂ once. On this product the new term is smaller at every ε (and by the measured factor)."""
    a, b, ja, jb = _pair()
    n = len(a) + len(b) - 1
    nf = 1 << (n - 1).bit_length()
    per_entry = fft_error_bound(a, b, nf)
    m = convolve(_measure(a, ja, True), _measure(b, jb, True))
    x = (ja + jb + np.arange(n)) * H
    for eps in (0.0, 1.0, 2.0):
        w = np.where(x > eps, np.exp(-THETA * x) * -np.expm1(eps - x), 0.0)
        old = per_entry * float(w.sum())
        new = gm._err_term(m, eps) * 2.0**-m.scale * 2.0**m.scale  # same units (scale 0 inputs)
        assert 0 < new < old
    # the gain grows like (Σw)/‖w‖₂ ~ (θh)^{-1/2}: here ~ (0.5/16)^{-1/2} ≈ 6 at least
    assert old / new > 3


# -- mutation: constructed cases where the inequalities are tight ---------------------------------------------------


def _adversarial(eps: float):
    """A measure v with declared ℓ2 error E and the true p = v + e, e = E·w/‖w‖₂ aligned with δ's weights at ε:
    Cauchy–Schwarz is an equality, so δ(p) − δ(v) = E·‖w‖₂ exactly."""
    j0, n = -20, 80
    v = _bell(n, j0, 1.0, 0.8, 4)
    x = (j0 + np.arange(n)) * H
    w = np.where(x > eps, np.exp(-THETA * x) * -np.expm1(eps - x), 0.0)
    E = 1e-4
    e = E * w / np.linalg.norm(w)
    return v, j0, E, v + e


def _delta_of(p: np.ndarray, j0: int, eps: float) -> float:
    return float(_exact_delta([Fraction(float(t)) for t in p], j0, 0, eps))


@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_l2_evaluation_is_tight_and_its_mutation_is_caught(eps, monkeypatch):
    v, j0, E, p = _adversarial(eps)
    m = _measure(v, j0, True, E)
    truth = _delta_of(p, j0, eps)
    got = delta_upper(m, eps)
    assert got >= truth
    assert got - truth < 1e-3 * (truth - _delta_of(v, j0, eps))  # tight: the slack is rounding only
    real = l2_error.delta_error
    monkeypatch.setattr(gm, "delta_error", lambda *a: 0.5 * real(*a))
    assert delta_upper(m, eps) < truth  # the halved constant is caught


def test_young_recurrence_is_tight_and_its_mutation_is_caught(monkeypatch):
    """y a point mass: ‖g∗e‖₂ = ‖g‖₁‖e‖₂ is an equality, so the recurrence's cross term must be counted in full."""
    eps = 1.0
    v, j0, E, p = _adversarial(eps + 2 * H)  # y shifts everything by 2h: e stays aligned with δ's weights
    x = _measure(v, j0, True, E)
    y = _measure(np.array([1.0]), 2, True)
    truth = _delta_of(p, j0 + 2, eps)
    assert delta_upper(convolve(x, y), eps) >= truth
    real = l2_error.convolve_error

    def halved(F, g1, e1, n1, g2, e2, n2):
        return F + 0.5 * (real(F, g1, e1, n1, g2, e2, n2) - F)

    monkeypatch.setattr(gm, "convolve_error", halved)
    assert delta_upper(convolve(x, y), eps) < truth


def test_lower_end_subtracts_the_l2_term():
    """The lower end of the adversarial case with e = −E·w/‖w‖₂: δ(p) = δ(v) − E‖w‖₂ must not be exceeded."""
    eps = 1.0
    v, j0, E, p_plus = _adversarial(eps)
    p = 2 * v - p_plus  # v − e
    assert np.all(p >= 0)
    m = _measure(v, j0, False, E)
    truth = _delta_of(p, j0, eps)
    assert delta_lower(m, eps) <= truth
    assert truth - delta_lower(m, eps) < 1e-3 * (_delta_of(v, j0, eps) - truth)


# -- the per-entry form (to_entries) and the lower end's cut points ---------------------------------------------------


@pytest.mark.parametrize("upper", [True, False])
def test_per_entry_product_of_converted_factors_brackets_the_exact_delta(upper):
    """x^{∗4} carried in ℓ2 form, turned into per-entry bounds (to_entries) and multiplied once more in the per-entry
    mode: the δ end still brackets the exact 5-fold product's δ (the split's terms k >= 2 are formed this way)."""
    a = _bell(40, -16, 0.2, 0.6, 5)
    x = power(_measure(a, -16, upper), 4)
    assert x.err > 0
    z = convolve(gm.to_entries(x), _measure(a, -16, upper), l2=False)
    assert z.err == 0
    exact = [Fraction(float(t)) for t in a]
    one = exact
    for _ in range(4):
        nxt = [Fraction(0)] * (len(exact) + len(one) - 1)
        for i, s in enumerate(exact):
            for j, t in enumerate(one):
                nxt[i + j] += s * t
        exact = nxt
    for eps in (0.5, 2.0, 4.0):
        want = _exact_delta(exact, -16 * 5, 0, eps)
        if upper:
            assert delta_upper(z, eps) >= want
        else:
            assert delta_lower(z, eps) <= want
    with pytest.raises(ValueError, match="per-entry"):
        convolve(x, x, l2=False)


def _tilted(theta: float, E: float):
    """A lower measure tilted by a large θ (peak of the tilted entries near x ≈ 3) with ℓ2 error E."""
    j0, n = -40, 160
    x = (j0 + np.arange(n)) * H
    v = np.exp(-((x - 1.0) ** 2) / 2 + theta * x)
    v = v / v.max()
    return GridMeasure(H, theta, j0, 0.0, v, 0, False, 0.0, 0.0, 0.0, 0.0, E), v, j0, x


def test_lower_end_far_below_the_peak_keeps_its_mass_by_cutting():
    """At ε far below the tilted peak the ℓ2 term (weighted by e^{−θx}) exceeds the mass there: counted from ε it
    leaves 0; dropping the entries below a cut point keeps a lower bound that is not 0 (and below the exact value
    for the worst error vector of that norm, e = −E·w/‖w‖₂ over the kept entries)."""
    theta, E, eps = 4.0, 1e-3, -1.0
    m, v, j0, x = _tilted(theta, E)
    assert gm._delta_lower_terms(m, eps) == 0.0  # one cut point, ε itself: the ℓ2 term over the whole span
    got = delta_lower(m, eps)
    assert got > 0
    # the worst e for every cut point at once is not one vector; check each cut point's own worst case
    x0 = int(np.searchsorted(x, eps, side="right"))
    peak = int(np.argmax(v))
    for k in range(gm.LOWER_CUTS + 1):
        i = x0 + (peak - x0) * k // gm.LOWER_CUTS
        w = np.where(np.arange(len(v)) >= i, np.exp(-theta * x) * -np.expm1(eps - x), 0.0)
        p = np.maximum(v - E * w / np.linalg.norm(w), 0.0)
        truth = float(_exact_delta([Fraction(float(t)) for t in p], j0, 0, eps, theta))
        assert gm._delta_lower_terms(m, eps, i) <= truth


def test_lower_cut_point_mutation_is_caught(monkeypatch):
    """A cut point's own ℓ2 term (the error counted from the cut on) halved: with no mass below the cut and the worst
    e aligned with the weights from the cut on, the exact δ equals the sum minus the full term, so the mutated bound
    exceeds it."""
    theta, E, eps = 4.0, 1e-3, -1.0
    m, v, j0, x = _tilted(theta, E)
    x0 = int(np.searchsorted(x, eps, side="right"))
    i = x0 + (int(np.argmax(v)) - x0) // 2  # a cut point between ε and the peak
    v = np.where(np.arange(len(v)) >= i, v, 0.0)
    m = GridMeasure(H, theta, j0, 0.0, v, 0, False, 0.0, 0.0, 0.0, 0.0, E)
    w = np.where(np.arange(len(v)) >= i, np.exp(-theta * x) * -np.expm1(eps - x), 0.0)
    p = v - E * w / np.linalg.norm(w)
    assert np.all(p >= 0)
    truth = float(_exact_delta([Fraction(float(t)) for t in p], j0, 0, eps, theta))
    assert gm._delta_lower_terms(m, eps, i) <= truth
    real = gm._err_term
    monkeypatch.setattr(gm, "_err_term", lambda mm, e, start=None: 0.5 * real(mm, e, start))
    assert gm._delta_lower_terms(m, eps, i) > truth
    assert x0 < i


def _integer_pair(na: int, nb: int, seed: int, spiky: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer-valued factors (< 2^20) and their exact product: every partial sum stays below 2^53, so the int64
    convolution is exact — an independent reference for the FFT products. ``spiky``: small entries and a few spikes,
    whose FFT rounding (spread over every entry) is far above u·‖c‖₂."""
    rng = np.random.default_rng(seed)
    top = 4 if spiky else 2**20
    a, b = rng.integers(0, top, na), rng.integers(0, top, nb)
    if spiky:
        a[rng.integers(0, na, 5)] = 2**20
        b[rng.integers(0, nb, 2)] = 2**20
    a[0] = a[-1] = b[0] = b[-1] = 2**19  # no zero ends: the lengths are the factors' own
    return a.astype(np.float64), b.astype(np.float64), np.convolve(a, b)


@pytest.mark.parametrize("long_first", [True, False])
@pytest.mark.parametrize("spiky", [False, True])
def test_blocked_fft_product_is_within_its_bound_of_the_exact_product(long_first: bool, spiky: bool) -> None:
    """A long factor times a short one goes by blocks (overlap-add, gm._block_plan); the computed product is within
    the returned ℓ2 bound of the exact one, and so is the one-FFT product with its own bound. Spiky factors: the
    blocks' rounding is above the bound's addition term 2u‖c̃‖₂ alone (the blocks' own bounds are needed)."""
    a, b, exact = _integer_pair(40000, 300, 3, spiky)
    if not long_first:
        a, b = b, a
    assert gm._block_plan(len(a) if long_first else len(b), len(b) if long_first else len(a)) is not None
    c, F = gm.fft_product(a, b)
    assert len(c) == len(exact)
    diff = float(np.sqrt(np.sum((c - exact.astype(np.float64)) ** 2)))
    assert 0 < diff <= F
    if spiky:
        assert diff > 2 * gm.U * float(np.sqrt(np.sum(c * c)))
    # the one-FFT route on the same factors: same answer within both bounds
    old = gm.BLOCKS
    try:
        gm.BLOCKS = False
        c1, F1 = gm.fft_product(a, b)
    finally:
        gm.BLOCKS = old
    assert float(np.sqrt(np.sum((c1 - exact) ** 2))) <= F1
    assert float(np.sqrt(np.sum((c - c1) ** 2))) <= F + F1


def test_blocked_convolve_brackets_the_exact_delta() -> None:
    """A measure of 6000 entries times one of 40 (blocked) brackets the exact δ of the exact product, at every ε."""
    a = _bell(6000, -3000, 0.5, 40.0, 4)
    b = _bell(40, -20, 0.2, 0.3, 5)
    assert gm._block_plan(len(a), len(b)) is not None
    exact = np.convolve(np.array([Fraction(float(t)) for t in a], dtype=object),
                        np.array([Fraction(float(t)) for t in b], dtype=object))
    up = convolve(_measure(a, -3000, True), _measure(b, -20, True))
    lo = convolve(_measure(a, -3000, False), _measure(b, -20, False))
    for eps in (-50.0, 0.0, 30.0, 150.0):
        want = _exact_delta(list(exact), -3020, 0, eps)
        assert delta_lower(lo, eps) <= want <= delta_upper(up, eps)


@pytest.mark.parametrize(("k", "blocked"), [(7, True), (12, False)])
def test_power_by_steps_brackets_the_exact_power(monkeypatch: pytest.MonkeyPatch, k: int, blocked: bool) -> None:
    """x^{∗k} left to right (squarings and products by x; at k = 7 the last by blocks): the δ ends bracket the exact
    δ of the exact power (integer entries / 2^10, convolved in Python integers), as do those of right-to-left
    ``power``."""
    rng = np.random.default_rng(7)
    ints = rng.integers(1, 2**10, 40)
    x_up, x_lo = _measure(ints / 2.0**10, -20, True), _measure(ints / 2.0**10, -20, False)
    exact = np.array([int(t) for t in ints], dtype=object)
    for _ in range(k - 1):
        exact = np.convolve(exact, np.array([int(t) for t in ints], dtype=object))
    entries = [Fraction(int(p), 2 ** (10 * k)) for p in exact]
    plans = []
    real = gm._block_plan
    monkeypatch.setattr(gm, "_block_plan", lambda na, nb: plans.append(real(na, nb)) or real(na, nb))
    up, lo = gm.power_by_steps(x_up, k), gm.power_by_steps(x_lo, k)
    assert any(p is not None for p in plans) == blocked
    up0, lo0 = power(x_up, k), power(x_lo, k)
    for eps in (-3.0, 0.0, 2.0, 5.0):
        want = _exact_delta(entries, -20 * k, 0, eps)
        assert delta_lower(lo, eps) <= want <= delta_upper(up, eps)
        assert delta_lower(lo0, eps) <= want <= delta_upper(up0, eps)
