"""The add direction of a Poisson-subsampled Gaussian (losses bounded above by −log(1 − q)) at large tilts: its
window must reach the support's top whatever θ, and one step's two ends must bracket δ(ε) and its tilted mass
computed independently (mpmath at 40 digits); the float saddle tilt from the law is checked against mpmath too."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpexact.accounting import discretise as disc
from dpexact.accounting.event_laws import loss_laws
from dpexact.accounting.events import event_from_dict
from dpexact.accounting.grid_measure import delta_lower, delta_upper


def _add_law(sigma: str, q: str):
    ev = event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q})
    return loss_laws(ev, ("add",))["add"]


def _mp_add_delta(sig: float, r: float, eps: float) -> mpmath.mpf:
    """δ(ε) of one add step, P′ = N(0, σ²), Q′ = (1 − r)N(0, σ²) + rN(1, σ²): closed form in Φ (mpmath)."""
    with mpmath.workdps(40):
        S, R, E = mpmath.mpf(sig), mpmath.mpf(r), mpmath.mpf(eps)
        x0 = S**2 * mpmath.log((mpmath.exp(-E) - 1 + R) / R) + mpmath.mpf(1) / 2  # P′ > e^ε Q′ iff x < x0
        return mpmath.ncdf(x0 / S) - mpmath.exp(E) * ((1 - R) * mpmath.ncdf(x0 / S) + R * mpmath.ncdf((x0 - 1) / S))


def _mp_add_mgf(sig: float, r: float, theta: float) -> mpmath.mpf:
    """E_{P′}[e^{θL}] of one add step, L = −log(1 − r + r·e^{L₀}), L₀ ~ N(−μ²/2, μ²), μ = 1/σ (quadrature)."""
    with mpmath.workdps(40):
        mu, R, TH = 1 / mpmath.mpf(sig), mpmath.mpf(r), mpmath.mpf(theta)
        f = lambda z: mpmath.npdf(z) * (1 - R + R * mpmath.exp(-mu**2 / 2 + mu * z)) ** (-TH)
        return mpmath.quad(f, [-mpmath.inf, -10, -3, 0, 3, 10, mpmath.inf])


@pytest.mark.parametrize("theta", [144.0, 637.0, 2000.0])
def test_add_window_reaches_the_top_at_large_tilts(theta):
    """σ = 2, q = 1/1000, h = 2^-13: the window's top is at or above sup L = −log(1 − q) (8.2 cells), and the
    upper end's tilted mass (kept + removed) bounds E[e^{θL}] from above, within (θh)²/4 (connect-the-dots' second-order
    excess: 5e-4 measured at θ = 637, 5e-3 at 2000), its removed part negligible.
    (With the window mirrored from the tilted Gaussian, θ = 144 put the top at 2h and removed 4.6× the kept mass.)"""
    law = _add_law("2", "1/1000")
    h = 2.0**-13
    j_lo, j_hi = disc.window(law, h, theta)
    assert j_hi * h >= -math.log1p(-1e-3)
    m = disc.discretise(law, h, theta).upper
    kept = math.fsum(m.v.tolist()) * 2.0**m.scale
    removed = (m.dropped + m.tail) * 2.0**m.scale
    want = float(_mp_add_mgf(2.0, 1e-3, theta))
    assert removed <= 1e-12 * kept
    assert want <= (kept + removed) * (1 + 1e-12)
    assert kept <= want * (1 + (theta * h) ** 2 / 4)


@pytest.mark.parametrize("theta,eps,rel", [(637.0, 5e-4, 2e-3), (2000.0, 7e-4, 2e-2), (36.0, 2e-4, 2e-3)])
def test_add_step_ends_bracket_closed_form_at_large_tilts(theta, eps, rel):
    """One add step's δ(ε) by the grid's two ends at a large tilt against the closed form, and tight (rel; near
    the support's top at θ = 2000 a cell moves the lower end by ~1 %)."""
    law = _add_law("2", "1/1000")
    h = 2.0**-16
    d = disc.discretise(law, h, theta)
    want = float(_mp_add_delta(2.0, 1e-3, eps))
    up, lo = delta_upper(d.upper, eps), delta_lower(d.lower, eps)
    assert lo <= want <= up
    assert up - lo <= rel * up


def _mp_remove_mgf(sig: float, r: float, theta: float) -> mpmath.mpf:
    """E_{P′}[e^{θL}] of one remove step = E_Q[(1 − r + r·e^{L₀})^{1+θ}] (quadrature, 40 digits)."""
    with mpmath.workdps(40):
        mu, R, TH = 1 / mpmath.mpf(sig), mpmath.mpf(r), mpmath.mpf(theta)
        f = lambda z: mpmath.npdf(z) * (1 - R + R * mpmath.exp(-mu**2 / 2 + mu * z)) ** (1 + TH)
        c = float((1 + TH) * mu)
        return mpmath.quad(f, [-mpmath.inf, -10, 0, c / 2, c, c + 10, mpmath.inf])


@pytest.mark.parametrize("sigma,q,theta", [("2", "1/1000", 637.0), ("2", "1/1000", 2000.0), ("0.5", "1/10", 50.0),
                                           ("1", "1/100", 0.3)])
def test_float_log_mgf_against_mpmath(sigma, q, theta):
    """K(θ) from the law in floats (law_tilt) against mpmath quadrature: add and remove, to 1e-9 (absolute)."""
    from dpexact.accounting.law_tilt import float_log_mgf

    ev = event_from_dict({"kind": "gaussian", "sigma": sigma, "poisson": q})
    laws = loss_laws(ev, ("remove", "add"))
    r = float(mpmath.mpf(q.split("/")[0]) / mpmath.mpf(q.split("/")[1]))
    rem_theta = min(theta, 100.0)
    assert float_log_mgf(laws["add"], theta) == pytest.approx(float(mpmath.log(_mp_add_mgf(float(sigma), r, theta))),
                                                              abs=1e-9)
    assert float_log_mgf(laws["remove"], rem_theta) == pytest.approx(
        float(mpmath.log(_mp_remove_mgf(float(sigma), r, rem_theta))), abs=1e-9)


def test_float_log_mgf_unsubsampled_closed_form():
    from dpexact.accounting.law_tilt import float_log_mgf

    law = loss_laws(event_from_dict({"kind": "gaussian", "sigma": "2"}), ("remove",))["remove"]
    assert float_log_mgf(law, 3.0) == pytest.approx(3 * 0.125 + 9 * 0.125, rel=1e-15)


def test_law_tilt_is_the_mpmath_saddle_point():
    """The add direction's θ for σ = 2, q = 1/1000, T = 1000, δ = 1e-18 (grid_accounting._law_tilts) minimises
    Chernoff's (T·K(θ) − log δ)/θ with K by mpmath: within 2 % of the mpmath argmin (~637), far from the coarse
    passes' 36–145."""
    from dpexact.accounting import grid_accounting as ga

    ev = event_from_dict({"kind": "gaussian", "sigma": "2", "poisson": "1/1000", "count": 1000})
    laws = ga._laws([ev], ("remove", "add"))
    log_d = math.log(1e-18)
    got = ga._law_tilts(laws, {"remove": 43.0, "add": 36.0},
                        lambda p, d, a, b: ga._theta_for_delta(p, log_d, d, a, b), {"remove": 100.0, "add": 2000.0})
    assert got["remove"] == 43.0
    f = lambda t: (1000 * mpmath.log(_mp_add_mgf(2.0, 1e-3, t)) - log_d) / t
    # f is unimodal (K convex): f(θ) below f at θ(1 ± 2 %) puts the argmin within 2 % of θ
    assert f(got["add"]) < min(f(got["add"] * 0.98), f(got["add"] * 1.02))
    assert 500 < got["add"] < 800


def test_coarse_passes_start_at_the_law_saddle_point():
    """σ = 2, q = 1/100, T = 1000, δ = 1e-18: the coarse passes' first θ (grid_accounting._law_start) is the mpmath
    argmin of Chernoff's (T·K(θ) − log δ)/θ in both directions (within 2 %), and the remove direction's coarse pass at
    it moves θ by less than the loop's stop (5 %): one coarse pass where θ = 0 took five (0, 2, 10, 41, 35)."""
    from dpexact.accounting import grid_accounting as ga

    ev = event_from_dict({"kind": "gaussian", "sigma": "2", "poisson": "1/100", "count": 1000})
    laws = ga._laws([ev], ("remove", "add"))
    log_d = math.log(1e-18)
    theta_of = lambda p, d, a, b: ga._theta_for_delta(p, log_d, d, a, b)
    got = ga._law_start(laws, theta_of, {"remove": 100.0, "add": 2000.0}, ga.H_COARSE)
    for d, mgf in (("remove", _mp_remove_mgf), ("add", _mp_add_mgf)):
        f = lambda t: (1000 * mpmath.log(mgf(2.0, 1e-2, t)) - log_d) / t
        assert f(got[d]) < min(f(got[d] * 0.98), f(got[d] * 1.02)), d
    assert 30 < got["remove"] < 40
    p = ga._Pass(laws, ga.H_COARSE, got, {})
    new = theta_of(p, "remove", got["remove"] / 4, 4 * got["remove"] + 2)
    assert abs(new - got["remove"]) <= 0.05 * got["remove"]
    assert ga._law_tilted(laws, "add") and not ga._law_tilted(laws, "remove")
    # q = 1/1000: the coarse grid does not resolve the law (−log(1 − q) < 2^-7), the coarse passes start at 0 as before
    ev = event_from_dict({"kind": "gaussian", "sigma": "2", "poisson": "1/1000", "count": 1000})
    small = ga._law_start(ga._laws([ev], ("remove", "add")), theta_of, {"remove": 100.0, "add": 2000.0}, ga.H_COARSE)
    assert small == {"remove": 0.0, "add": 0.0}


def test_need_margin_relaxed_only_on_measured_h2_convergence():
    """The step-to-tolerance margin (a float choice of step): 1.2 once two passes shrank the width at least as h²,
    1.5 from one pass or slower shrinking (the two rows its docstring measures)."""
    from dpexact.accounting import grid_accounting as ga

    assert ga._need_margin([(2.0**-10, 1e-3)]) == ga.NEED_MARGIN == 1.5
    assert ga._need_margin([(2.0**-16, 2.1e-5), (2.0**-19, 1.1e-7)]) == ga.NEED_MARGIN_MEASURED == 1.2
    assert ga._need_margin([(2.0**-10, 1.0e-3), (2.0**-12, 3.0e-4)]) == 1.5
    assert ga._need_margin([(2.0**-10, math.inf), (2.0**-12, 3.0e-4)]) == 1.5
