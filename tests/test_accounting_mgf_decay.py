"""The decay bound |m(c + it)| <= V/|t| of the bulk MGF (:mod:`dpexact.accounting.mgf_decay`): checked against
rigorous enclosures of m(c + it) (python-flint ``acb.integral`` at 100 bits, itself cross-checked by ``mpmath.quad``
at 30 digits on an interval split at every half-oscillation), its total variation against a brute-force sum on a fine
mpmath grid of G = p e^{cL}/|L'| written from the definitions (not the module's closed forms), and mutation-tested:
a wrong sign of μ in h, a dropped zero, missed critical points and dropped end terms each make a check fail."""

from __future__ import annotations

import functools
import itertools
import math

import mpmath
import pytest
from flint import acb, arb, ctx

from dpexact.accounting import mgf_decay as md
from dpexact.accounting.mgf_decay import decay_constant, decay_parts

# (μ, r, remove, a, b, c)
DPSGD = (1.0, 0.01, True, -12.0, 9.0, 5.0)  # σ = 1, q = 0.01: one maximum of G
THREE = (3.0, 0.01, True, -12.0, 15.0, 2.0)  # h has three zeros: G has a maximum, a minimum, a maximum
PLAIN = (1.0, 1.0, True, -12.0, 9.0, 0.0)  # r = 1 (ρ ≡ 1), c = 0
ADD_LOW = (1.0, 0.01, False, -12.0, 9.0, 0.5)  # add, K = 1 − c > 0
ADD_HIGH = (2.0, 0.1, False, -6.0, 8.0, 3.0)  # add, K < 0: h' < 0 everywhere
SMALL = (0.5, 0.001, True, -24.0, 20.0, 30.0)  # σ = 2, q = 1/1000, strong tilt
MONO = (1.0, 0.01, True, -2.0, -1.0, 5.0)  # G increasing on the whole window: no zero of h
UNIMODAL = [DPSGD, PLAIN, ADD_LOW, ADD_HIGH, SMALL, MONO]
#: V over the best constant the truth admits (max over the sampled t of |t|·|m(c + it)|): measured 1.10–1.87 on
#: UNIMODAL, 3.24 on THREE (a bimodal G: TV counts both maxima)
TIGHT_UNIMODAL, TIGHT_THREE = 2.5, 3.5
FACTORS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 21.0)
T_MAX = 5000.0  # acb.integral's cost grows with the oscillations; beyond the decay scale a few points suffice


def _m_acb(mu: float, r: float, remove: bool, a: float, b: float, c: float, t: float) -> acb:
    """m(c + it) enclosed by acb.integral (log with the analytic flag: the branch cut is respected)."""
    old = ctx.prec
    ctx.prec = 100
    try:
        amu, ar, z = arb(mu), arb(r), acb(c, t)
        norm = 1 / (2 * arb.pi()).sqrt()

        def f(y, analytic):
            s = amu * y - amu * amu / 2
            g = (1 - ar + ar * s.exp()).log(analytic=analytic)
            if remove:
                p = ((1 - ar) * (-(y * y) / 2).exp() + ar * (-((y - amu) ** 2) / 2).exp()) * norm
            else:
                p = (-(y * y) / 2).exp() * norm
            return p * (z * (g if remove else -g)).exp()

        return acb.integral(f, a, b)
    finally:
        ctx.prec = old


def _m_mpmath(mu: float, r: float, remove: bool, a: float, b: float, c: float, t: float) -> mpmath.mpc:
    """m(c + it) by mpmath.quad at 30 digits, split every 0.5 in y and wherever L crosses a multiple of π/|t|."""
    with mpmath.workdps(30):
        mu_, r_, z = mpmath.mpf(mu), mpmath.mpf(r), mpmath.mpc(c, t)

        def L(y):
            g = mpmath.log(1 - r_ + r_ * mpmath.exp(mu_ * y - mu_**2 / 2))
            return g if remove else -g

        def y_of(level):
            g = level if remove else -level
            return (mpmath.log((mpmath.exp(g) - 1 + r_) / r_) + mu_**2 / 2) / mu_

        pts = set(mpmath.linspace(a, b, int((b - a) / 0.5) + 2))
        la, lb = sorted([L(mpmath.mpf(a)), L(mpmath.mpf(b))])
        for k in range(int(mpmath.ceil(la * abs(t) / mpmath.pi)), int(mpmath.floor(lb * abs(t) / mpmath.pi)) + 1):
            if a < (y := y_of(k * mpmath.pi / abs(t))) < b:
                pts.add(y)
        pts = sorted(pts)

        def f(y):
            p = (1 - r_) * mpmath.npdf(y) + r_ * mpmath.npdf(y - mu_) if remove else mpmath.npdf(y)
            return p * mpmath.exp(z * L(y))

        return mpmath.fsum(mpmath.quad(f, [u, v], method="gauss-legendre") for u, v in itertools.pairwise(pts))


def _G(mu: float, r: float, remove: bool, c: float):
    """G = p e^{cL}/|L'| from the definitions, in mpmath (30 digits)."""
    mu_, r_, c_ = mpmath.mpf(mu), mpmath.mpf(r), mpmath.mpf(c)

    def G(y):
        e = r_ * mpmath.exp(mu_ * y - mu_**2 / 2)
        g = mpmath.log(1 - r_ + e)
        dL = mu_ * e / (1 - r_ + e)
        if remove:
            return ((1 - r_) * mpmath.npdf(y) + r_ * mpmath.npdf(y - mu_)) * mpmath.exp(c_ * g) / dL
        return mpmath.npdf(y) * mpmath.exp(-c_ * g) / dL

    return G


@functools.cache
def _grid(args: tuple, n: int = 6000) -> tuple[mpmath.mpf, list[float]]:
    """Σ |G(y_{k+1}) − G(y_k)| on n + 1 equispaced points (a lower bound of TV), and the grid's interior extrema."""
    mu, r, remove, a, b, c = args
    with mpmath.workdps(30):
        G = _G(mu, r, remove, c)
        ys = [a + (b - a) * k / n for k in range(n + 1)]
        gs = [G(mpmath.mpf(y)) for y in ys]
        d = [gs[k + 1] - gs[k] for k in range(n)]
        extrema = [ys[k] for k in range(1, n) if (d[k - 1] > 0) != (d[k] > 0)]
        return mpmath.fsum(abs(x) for x in d), extrema


def _tv_check(args: tuple, rel: float = 1e-5) -> bool:
    """The grid's TV is at most the module's TV (soundness) and within rel of it (tightness)."""
    tv = float(decay_parts(*args).tv.upper())
    grid, _ = _grid(args)
    return float(grid) <= tv and float(grid) >= tv * (1 - rel)


def _decay_scale(args: tuple, V: float) -> float:
    """t where V/t equals m(c) (>= |m(c + it)|): where the bound starts to say something."""
    return V / float(_m_acb(*args, 0.0).real.lower())


def _bound_check(args: tuple, ts: list[float]) -> tuple[bool, float]:
    """(|m(c + it)| <= V/|t| for every t in ts, max |t|·|m| over them); the enclosures must be accurate."""
    V = decay_constant(*args)
    ok, best = True, 0.0
    for t in ts:
        m = _m_acb(*args, t)
        assert m.real.is_finite() and m.imag.is_finite(), (args, t)
        mag = abs(m)
        assert float(mag.rad()) <= 1e-9 * V / abs(t), (args, t, m)  # the reference decides the comparison
        ok = ok and mag.upper() <= arb(V) / abs(t)
        best = max(best, abs(t) * float(mag.lower()))
    return ok, best


def _ts(args: tuple) -> list[float]:
    td = _decay_scale(args, decay_constant(*args))
    ts = [f * td for f in FACTORS if f * td <= T_MAX] or [T_MAX]
    return ts + [-ts[len(ts) // 2]]  # the bound is claimed for every real t != 0


def _tangent_c() -> float:
    """c with a zero of h at y+ (remove, μ = 3, r = 0.01): h(y+(c)) = 0, solved in mpmath."""
    with mpmath.workdps(40):
        mu, r = mpmath.mpf(3), mpmath.mpf("0.01")

        def F(c):
            K = c + 2
            e = (1 - mpmath.sqrt(1 - 4 / (K * mu * mu))) / 2
            y = (-mpmath.log(e / (1 - e)) + mpmath.log((1 - r) / r) + mu * mu / 2) / mu
            rho = 1 - e
            return -y - mu + K * mu * rho

        return float(mpmath.findroot(F, 0.5))


@pytest.mark.parametrize("args", UNIMODAL + [THREE], ids=lambda a: f"mu{a[0]}-r{a[1]}-{'rm' if a[2] else 'add'}-[{a[3]},{a[4]}]-c{a[5]}")
def test_bound_holds_and_is_within_a_small_factor(args):
    ok, best = _bound_check(args, _ts(args))
    assert ok
    V = decay_constant(*args)
    assert V / best <= (TIGHT_THREE if args == THREE else TIGHT_UNIMODAL), V / best


def test_bound_holds_far_out_and_at_a_double_zero():
    # 20–25× the decay scale (~3000 oscillations of e^{itL} over the window), and at a tangency of h (zero on y+)
    assert _bound_check(DPSGD, [4000.0, 4321.5, -5000.0])[0]
    tangent = (3.0, 0.01, True, -12.0, 15.0, _tangent_c())
    assert any(k >= 2 for _, _, k in decay_parts(*tangent).brackets)  # the critical interval holds the zero
    assert _bound_check(tangent, [0.5, 3.0, 40.0, 300.0])[0]
    assert _tv_check(tangent, rel=1e-4)


def test_acb_reference_agrees_with_mpmath_quad():
    for args, t in [(PLAIN, 1.3), (ADD_HIGH, 40.0), (DPSGD, 60.0)]:
        ref, mp = _m_acb(*args, t), _m_mpmath(*args, t)
        assert abs(complex(ref.real.mid(), ref.imag.mid()) - complex(mp)) <= 1e-20 * max(1.0, abs(complex(mp)))


@pytest.mark.parametrize("args", UNIMODAL + [THREE], ids=lambda a: f"mu{a[0]}-r{a[1]}-{'rm' if a[2] else 'add'}-[{a[3]},{a[4]}]-c{a[5]}")
def test_total_variation_against_a_fine_grid(args):
    assert _tv_check(args)
    # every extremum of G seen on the grid lies in a bracket (within one grid step)
    _, extrema = _grid(args)
    step = (args[4] - args[3]) / 6000
    br = decay_parts(*args).brackets
    assert all(any(lo - step <= y <= hi + step for lo, hi, _ in br) for y in extrema)
    assert len(br) == {THREE: 3, MONO: 0}.get(args, 1)


def test_plain_gaussian_has_the_closed_form():
    # r = 1, remove: G = φ(y) e^{(c+1)s}/μ, one maximum at y = (c+1)μ, so V = G(a) + G(b) + TV = 2 G_max
    for mu, c in [(1.0, 0.0), (0.5, 3.0), (2.0, 1.5)]:
        k = (c + 1) * mu
        g_max = math.exp(k * k / 2 - (c + 1) * mu * mu / 2) / (math.sqrt(2 * math.pi) * mu)
        V = decay_constant(mu, 1.0, True, -12.0, 12.0 + k, c)
        assert 1.0 <= V / (2 * g_max) <= 1 + 1e-12


def test_overflow_and_invalid_arguments():
    with pytest.raises(OverflowError):
        decay_constant(30.0, 1.0, True, -12.0, 1000.0, 50.0)
    assert decay_parts(30.0, 1.0, True, -12.0, 1000.0, 50.0).tv.is_finite()  # arb carries the exponent
    for bad in [(0.0, 0.5, True, -1.0, 1.0, 1.0), (1.0, 0.0, True, -1.0, 1.0, 1.0), (1.0, 1.5, True, -1.0, 1.0, 1.0),
                (1.0, 0.5, True, 1.0, 1.0, 1.0), (1.0, 0.5, True, -1.0, 1.0, -0.5), (1.0, 0.5, False, -math.inf, 1.0, 1.0)]:
        with pytest.raises(ValueError):
            decay_constant(*bad)


# ---- mutations: each breaks one term of the bound, and a check above must then fail ----

def _wrong_sign(monkeypatch):
    """h = −y + μ + Kμρ (the sign of the μ term, from (log|L'|)' = μ(1 − ρ), flipped) in both the arb and float h."""
    monkeypatch.setattr(md, "_h_arb", lambda P, y: -y + P.amu + P.aK * P.amu * md._rho_arb(P, y))
    real_f = md._h_float
    monkeypatch.setattr(md, "_h_float", lambda P, y: real_f(P, y) + 2 * P.mu)


def test_mutation_wrong_sign_of_mu_in_h_is_caught(monkeypatch):
    _wrong_sign(monkeypatch)
    assert not _tv_check(DPSGD)
    assert not _tv_check(THREE)


def test_mutation_dropped_zero_is_caught(monkeypatch):
    real = md._brackets
    monkeypatch.setattr(md, "_brackets", lambda P, a, b: [])  # endpoints only: TV = |G(b) − G(a)|
    assert not _tv_check(DPSGD)
    assert not _bound_check(DPSGD, _ts(DPSGD))[0]
    monkeypatch.setattr(md, "_brackets", lambda P, a, b: [x for i, x in enumerate(real(P, a, b)) if i != 1])
    assert not _tv_check(THREE)  # the minimum of G dropped


def test_mutation_missed_critical_points_is_caught(monkeypatch):
    monkeypatch.setattr(md, "_critical", lambda P: [])  # h taken as decreasing throughout: one zero found of three
    assert len(decay_parts(*THREE).brackets) < 3
    assert not _tv_check(THREE)


def test_mutation_dropped_end_terms_is_caught(monkeypatch):
    # far beyond the decay scale the end terms dominate: |t|·|m| -> |G(b) e^{itL(b)} − G(a) e^{itL(a)}| > TV here
    td = _decay_scale(MONO, decay_constant(*MONO))
    ts = [f * td for f in (1, 2, 3, 5, 8, 13, 21, 34, 55)]
    assert _bound_check(MONO, ts)[0]
    real = md.decay_parts
    monkeypatch.setattr(md, "decay_parts", lambda *a: real(*a)._replace(g_a=arb(0), g_b=arb(0)))  # V = TV only
    assert not _bound_check(MONO, ts)[0]
