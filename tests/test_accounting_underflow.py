"""δ of a grid measure whose losses reach past exp's range (x > 745: e^{−x} is 0 in floats, e^{−x}·m subnormal before
that). The suffix-sum reading S₁ − e^ε·S₂ lost those terms of S₂ and overstated the lower end (measured: 28 % above the
term-by-term sum on σ = 163/100, q = 0.8989, T = 2824, δ = 1e-17, where the grid's ε interval then missed the MGF route's
and a 40-digit Bromwich quadrature's). Each reading is checked here against the exact sum over the same entries in mpmath."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpexact.accounting import grid_measure as gm
from dpexact.accounting import shifted_terms as st
from dpexact.accounting.grid_measure import GridMeasure


def _measure(upper: bool, n: int = 6000, theta: float = 0.28, x0: float = 600.0, h: float = 2.0**-4) -> GridMeasure:
    # tilted entries around a peak near x = 690, so the untilted masses reach ~1e-80 at the peak and tiny beyond
    j0 = int(x0 / h)
    x = (j0 + np.arange(n)) * h
    v = np.exp(-((x - 690.0) ** 2) / 50.0)
    return GridMeasure(h=h, theta=theta, j0=j0, shift=0.0, v=v / v.max(), scale=-400, upper=upper)


def _exact(m: GridMeasure, eps: float) -> mp.mpf:
    """∫f_ε dm over the entries, each untilted mass v_j·2^scale·e^{−θx_j} and f_ε(x) = 1 − e^{ε−x}, at 60 digits."""
    mp.mp.dps = 60
    total = mp.mpf(0)
    for j, vj in enumerate(m.v):
        x = mp.mpf((m.j0 + j) * m.h) + m.shift
        if x > eps and vj > 0:
            total += mp.mpf(float(vj)) * mp.mpf(2) ** m.scale * mp.e ** (-m.theta * x) * (1 - mp.e ** (eps - x))
    return total


@pytest.mark.parametrize("eps", [650.0, 683.7, 699.0])
def test_lower_readings_stay_below_the_exact_sum(eps):
    m = _measure(upper=False)
    exact = _exact(m, eps)
    assert exact > 0
    assert gm._delta_lower_suffix(m, eps) <= exact
    assert gm._delta_lower_terms(m, eps) <= exact
    assert gm.delta_lower(m, eps) <= exact
    assert gm.delta_lower(m, eps) >= 0.99 * float(exact)  # still tight: the terms' sum answers where S₂ underflows


@pytest.mark.parametrize("eps", [650.0, 683.7, 699.0])
def test_upper_reading_stays_above_the_exact_sum(eps):
    m = _measure(upper=True)
    assert gm.delta_upper(m, eps) >= _exact(m, eps)


def test_profile_readings_bracket_the_exact_sum():
    ts = np.array([650.0, 683.7, 699.0])
    lo = st.Profile(_measure(upper=False))._parts(ts, False)
    up = st.Profile(_measure(upper=True))._parts(ts, True)
    for t, a, b in zip(ts, lo, up, strict=True):
        exact = _exact(_measure(upper=False), float(t))
        assert a <= exact <= b


def test_mutation_suffix_without_the_underflow_part_overstates(monkeypatch):
    """The suffix reading with S₂'s underflowed terms ignored (the old code: no absolute part, no fallback) exceeds the
    exact sum — the case the absolute part exists for."""
    m = _measure(upper=False)
    eps = 683.7
    x, s1, s2, _, _ = gm._suffix_sums(m)
    i = int(np.searchsorted(x, eps, side="right"))
    old = float(s1[i]) - math.exp(eps) * float(s2[i])
    assert old > _exact(m, eps)


def test_grid_route_contains_the_bromwich_value(monkeypatch):
    """The row where the bug showed: ε(1e-17) ∈ (683.7288804, 683.7289078) by a 40-digit Bromwich quadrature of the
    whole law (benchmarks/accounting_bromwich_mpmath.py, minutes; values in its docstring). The grid route alone (the
    MGF route kept out) must contain that interval's points on both sides."""
    from dpexact import Accountant
    from dpexact.accounting import accountant

    monkeypatch.setattr(accountant, "MGF_FIRST", False)
    ev = {"kind": "gaussian", "sigma": "163/100", "poisson": "8989/10000", "count": 2824}
    r = Accountant([ev], max_seconds=30, direction="remove").epsilon_for_delta("1e-17", 1e-3)
    assert r.lower <= 683.7289078 and r.upper >= 683.7288804, (r.lower, r.upper)


def test_untilted_total_counts_underflowed_masses():
    """Untilted masses v·2^-1076 (θ = 0): every one rounds to 0 in floats, yet their exact total (~2e-322, 60-digit sum)
    is far above 0 — the bound must count them (n·2^-1074)."""
    m = _measure(upper=True)
    m = GridMeasure(h=m.h, theta=0.0, j0=m.j0, shift=0.0, v=m.v, scale=-1076, upper=True, dropped_raw=0.0)
    assert not np.any(gm._untilted(m)[1] > 0)
    mp.mp.dps = 60
    exact = sum(mp.mpf(float(vj)) for vj in m.v if vj > 0) * mp.mpf(2) ** m.scale
    assert exact > mp.mpf(2) ** -1070
    assert gm.raw_total_untilted(m) >= exact
    assert gm.raw_total(m) >= exact
