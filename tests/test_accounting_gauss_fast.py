"""The vectorised Gaussian discretisation (dpexact/accounting/gauss_cells.py, discretise_gauss.py) against
independent computations: cell masses and likelihood ratios against mpmath at 60 digits, the two ends of one
subsampled step against mpmath quadrature and against the arb path, the composed grid against the Gaussian
closed form (Δ√k), and mutations that must stop the enclosures from holding."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpexact.accounting import discretise as disc
from dpexact.accounting import gauss_cells
from dpexact.accounting.discretise_gauss import dominating_laws
from dpexact.accounting.event_laws import loss_laws
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_accounting import grid_delta
from dpexact.accounting.grid_measure import delta_lower, delta_upper
from dpexact.numbers.real import Real

rng = np.random.default_rng(33)


def _cells():
    """Cells of the standardised output: narrow and wide, bulk and far tails (|y| up to 35), both signs."""
    a = np.concatenate([rng.uniform(-35, 35, 40), rng.uniform(-3, 3, 20), [0.0, -1e-3, 7.5, -30.0]])
    w = np.concatenate([10.0 ** rng.uniform(-6, -0.7, 60), [1e-3, 2e-3, 0.05, 0.01]])
    return a, a + w


def _mp_log_mass(a, b):
    mpmath.mp.dps = 60
    A, B = mpmath.mpf(a), mpmath.mpf(b)
    if A > 0:  # survival functions: no cancellation in the upper tail
        m = mpmath.ncdf(-A) - mpmath.ncdf(-B)
    else:
        m = mpmath.ncdf(B) - mpmath.ncdf(A)
    return mpmath.log(m)


def test_cell_masses_enclose_mpmath():
    a, b = _cells()
    lo, hi, bad = gauss_cells.log_gauss_cells(a, b, np.zeros_like(a))
    # declined (the arb path takes them): wide cells far out (the rule's remainder grows as w^16·|y|^16) and
    # narrow cells far out (float ends: u·|y|/w relative); the bulk of cells is accepted
    X = np.maximum(np.abs(a), np.abs(b))
    w = b - a
    assert np.all((w[bad] * X[bad] > 0.5) | (X[bad] / w[bad] > 1e6))
    assert bad.sum() <= len(a) // 5
    for i in np.nonzero(~bad)[0]:
        want = _mp_log_mass(float(a[i]), float(b[i]))
        assert lo[i] <= want <= hi[i], (a[i], b[i])
        assert hi[i] - lo[i] < 3e-9  # and tight: the accepted bound is 1e-9 relative (MAX_REL) each side


def test_cell_masses_mutation_is_caught():
    """A mass off by a relative 1e-10 (a dropped or perturbed term) falls outside the enclosure somewhere."""
    a, b = _cells()
    lo, hi, bad = gauss_cells.log_gauss_cells(a, b, np.zeros_like(a))
    misses = 0
    for i in np.nonzero(~bad)[0]:
        want = _mp_log_mass(float(a[i]), float(b[i]))
        mutated = (lo[i] + 1e-10, hi[i] + 1e-10)
        misses += not (mutated[0] <= want <= mutated[1])
    assert misses > len(a) // 2


@pytest.mark.parametrize("mu", [2.0, 1.25, 0.5])
def test_likelihood_ratio_encloses_mpmath(mu):
    a, b = _cells()
    lr, err, bad = gauss_cells.log_gauss_ratio(a, b, np.zeros_like(a), mu)
    mpmath.mp.dps = 60
    for i in np.nonzero(~bad)[0]:
        # ρ = P(cell)/Q(cell) from Φ differences at 60 digits (P: the cell shifted by −μ)
        A, B = mpmath.mpf(float(a[i])), mpmath.mpf(float(b[i]))
        want = _mp_log_mass(A - mu, B - mu) - _mp_log_mass(A, B)
        assert abs(want - lr[i]) <= err[i], (a[i], b[i], mu)
    # the bound is far below a grid step (the connect-the-dots split divides by h)
    assert np.max(err[~bad]) < 1e-11
    assert (~bad).sum() >= len(a) - 4


@pytest.mark.parametrize("mu", [2.0, 0.5])
def test_one_pass_equals_the_two_functions(mu):
    """The discretisation reads both enclosures from one pass over the nodes (log_gauss_cells_ratio): the same floats
    as the two functions checked against mpmath above, declined cells included."""
    a, b = _cells()
    e = np.full_like(a, 1e-12)
    one = gauss_cells.log_gauss_cells_ratio(a, b, e, mu)
    two = (*gauss_cells.log_gauss_cells(a, b, e), *gauss_cells.log_gauss_ratio(a, b, e, mu))
    for x, y in zip(one, two):
        assert np.array_equal(x, y, equal_nan=x.dtype != bool)


def _rule_unblocked(a, b, mu):
    """The rule as it was before the cells were taken in blocks (one (m, cells) array for all of them)."""
    t, w, _, _, _ = gauss_cells.gl_rule()
    c, r = (a + b) * 0.5, (b - a) * 0.5
    x = r * t[:, None]
    x += c
    s = -0.5 * x
    s *= x
    top = s.max(axis=0)
    s -= top
    om = np.exp(s, out=s)
    om *= w[:, None]
    S = gauss_cells._node_sum(om)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logI = np.log(r) + top + np.log(S) - 0.5 * math.log(2 * math.pi)
        ell = x * mu - 0.5 * mu * mu
        ltop = ell.max(axis=0)
        v = np.exp(ell - ltop) * om
        lr = ltop + np.log(gauss_cells._node_sum(v) / S)
    return r, top, logI, lr


@pytest.mark.parametrize("block", [1, 7, 64, 8192])
def test_blocked_rule_is_bitwise_the_unblocked_one(monkeypatch, block):
    """A pure speed change: the blocked rule gives every cell's values bit for bit (bulk cells of a fine grid, the
    far tails, empty, infinite and NaN cells, a cell count that is no multiple of the block)."""
    monkeypatch.setattr(gauss_cells, "RULE_BLOCK", block)
    a0, b0 = _cells()
    y = np.linspace(-4.0, 9.0, 20_001)
    a = np.concatenate([a0, y[:-1], [-np.inf, 1.0, np.nan, 2.0]])
    b = np.concatenate([b0, y[1:], [0.5, 1.0, 3.0, np.inf]])
    mu = 1 / 0.8
    with np.errstate(all="ignore"):
        got, want = gauss_cells._rule(a, b, mu), _rule_unblocked(a, b, mu)
        got_q = gauss_cells._rule(a, b, None)
    for g_, w_ in list(zip(got, want)) + list(zip(got_q[:3], want[:3])):
        # NaN at the same cells (an empty or undefined cell; its sign bit may follow the SIMD path), every other value
        # bit for bit
        nan = np.isnan(w_)
        assert np.array_equal(np.isnan(g_), nan)
        assert g_[~nan].tobytes() == w_[~nan].tobytes()
    assert got_q[3] is None


def test_blocked_cells_are_bitwise_the_whole_pass(monkeypatch):
    """A pure speed change: log_gauss_cells_ratio taken in blocks gives the same floats as in one block."""
    y = np.linspace(-4.0, 9.0, 5_001)
    a, b = np.concatenate([_cells()[0], y[:-1]]), np.concatenate([_cells()[1], y[1:]])
    e = np.full_like(a, 1e-12)
    with np.errstate(all="ignore"):
        whole = gauss_cells.log_gauss_cells_ratio(a, b, e, 1.25)
        monkeypatch.setattr(gauss_cells, "CELLS_BLOCK", 333)
        got = gauss_cells.log_gauss_cells_ratio(a, b, e, 1.25)
    for x, z in zip(got, whole):
        assert np.array_equal(x, z, equal_nan=x.dtype != bool)


def test_endpoint_error_widens_the_enclosure():
    """Cells whose ends are known only within e: the enclosure must hold for the mass of any cell within e."""
    a = np.array([1.0, -2.0, 10.0])
    b = a + 1e-3
    e = np.full(3, 1e-7)
    lo, hi, _ = gauss_cells.log_gauss_cells(a, b, e)
    for i in range(3):
        for da, db in ((-5e-8, 5e-8), (5e-8, -5e-8)):
            want = _mp_log_mass(float(a[i]) + da, float(b[i]) + db)
            assert lo[i] <= want <= hi[i]


def _laws(sigma: str, q: str):
    ev = event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q})
    return loss_laws(ev, ("remove", "add"))


def test_dominating_parameters_are_outward():
    law = _laws("0.8", "1/1000")["remove"]
    _, _, (mu_u, r_u), (mu_l, r_l) = dominating_laws(law)
    from flint import arb

    assert arb(mu_u) >= law.base.mu and arb(mu_l) <= law.base.mu
    assert arb(r_u) >= law.r and arb(r_l) <= law.r


def _step_delta(sig: float, r: float, eps: float, direction: str):
    """δ(ε) of one Poisson-subsampled Gaussian step by mpmath quadrature (60 digits)."""
    mpmath.mp.dps = 40
    S, R, E = mpmath.mpf(sig), mpmath.mpf(r), mpmath.mpf(eps)
    A = lambda x: R * mpmath.npdf(x, 1, S) + (1 - R) * mpmath.npdf(x, 0, S)
    Q = lambda x: mpmath.npdf(x, 0, S)
    if direction == "remove":
        x0 = S**2 * mpmath.log((mpmath.exp(E) - 1 + R) / R) + mpmath.mpf(1) / 2
        return mpmath.quad(lambda x: A(x) - mpmath.exp(E) * Q(x), [x0, x0 + 5 * S, x0 + 20 * S, mpmath.inf])
    x0 = S**2 * mpmath.log((mpmath.exp(-E) - 1 + R) / R) + mpmath.mpf(1) / 2
    return mpmath.quad(lambda x: Q(x) - mpmath.exp(E) * A(x), [-mpmath.inf, x0 - 20 * S, x0 - 5 * S, x0])


@pytest.mark.parametrize("sigma,q,eps,direction", [("0.8", "1/100", 0.5, "remove"), ("2", "1/10", 0.05, "remove"),
                                                   ("1", "1/10", 0.05, "add"), ("0.5", "1/1000", 1.0, "remove")])
def test_one_step_ends_bracket_quadrature_and_agree_with_arb(sigma, q, eps, direction):
    law = _laws(sigma, q)[direction]
    want = _step_delta(float(sigma), Real.of(q).to_float(), eps, direction)
    h, theta = 2.0**-9, 1.0
    win = disc.window(law, h, theta)
    fast = disc.discretise(law, h, theta, win)
    up, lo = delta_upper(fast.upper, eps), delta_lower(fast.lower, eps)
    assert lo <= want <= up
    # tight at this coarse step (h = 2^-9): 1e-2 relative; the rate 1/1000's lump sits within one cell here
    assert up - lo <= 1e-2 * up
    old = disc.FAST
    try:
        disc.FAST = False
        slow = disc.discretise(law, h, theta, win)
    finally:
        disc.FAST = old
    # the same construction (connect the dots) in floats and in arb: equal to the float bounds' width
    assert delta_upper(slow.upper, eps) == pytest.approx(up, rel=1e-8)


def test_composed_grid_contains_gaussian_closed_form():
    """Unsubsampled Gaussians composed on the grid (fast path): the interval holds Δ√k's closed form."""
    from dpexact.accounting.delta_epsilon import GaussianMechanism, delta_for_epsilon

    evs = [event_from_dict({"kind": "gaussian", "sigma": "2", "count": 7}), event_from_dict({"kind": "gaussian", "sigma": "3"})]
    d = grid_delta(evs, ("remove",), Real.of("1"), 1e-6, 30)
    closed = delta_for_epsilon(GaussianMechanism(1, "sqrt(7/4 + 1/9)"), "1", 1, 256)
    assert d.lower <= closed.lower <= closed.upper <= d.upper
    assert d.upper - d.lower <= 1e-5 * d.upper


def test_mutated_cell_masses_break_the_upper_end(monkeypatch):
    """Cell masses 10 % low (a lost term in the rule): the upper end no longer bounds the quadrature value,
    while the unmutated end at the same step does — the test can fail."""
    from dpexact.accounting import discretise_gauss as dg

    law = _laws("0.8", "1/100")["remove"]
    want = _step_delta(0.8, 0.01, 0.5, "remove")
    h, theta = 2.0**-10, 1.0
    win = disc.window(law, h, theta)
    good = dg.discretise_gauss(law, h, theta, win)[0]
    assert delta_upper(good, 0.5) >= want
    real = dg.log_gauss_cells_ratio

    def low(a, b, e, mu):
        lo, hi, bad, *ratio = real(a, b, e, mu)
        return (lo + math.log(0.9), hi + math.log(0.9), bad, *ratio)

    monkeypatch.setattr(dg, "log_gauss_cells_ratio", low)
    bad_m = dg.discretise_gauss(law, h, theta, win)[0]
    assert delta_upper(bad_m, 0.5) < want
