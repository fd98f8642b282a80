"""Report noisy max: pmfs checked against independent values.

* exponential noise vs permute-and-flip and Gumbel noise vs the exponential mechanism (known
  identities; the implementations share nothing: 1-D integrals vs PF's / EM's own formulas);
* Laplace noise: ball vs float and mp within their stated errors, n = 2 against a hand-derived
  closed form, pf Appendix F's (c, c, 0) expected-error formula, pf Figure 4's ordering;
* heterogeneous scales (RNMH, hetsel eq. 4) against a hand-derived closed form for n = 2.
"""

import math

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from scipy import integrate

import dpexact
from dpexact.mechanisms.report_noisy_max import FLOAT_LIMIT, MP_LIMIT, SCALAR_LIMIT, ReportNoisyMax
from dpexact.numbers.real import Real
from dpexact.utility import expected_error

SCORE_VECTORS = [
    [3, 1, 1, 0],  # ties below the top
    [0, 0, -2],  # tie at the top
    [5, 0],
    ["1/3", 0, "-7/5", "1/3", "-3"],  # non-dyadic kinks, tie at the top
    [2, 2, 2],  # all tied
]
PAIRS = [("rnm-exp", "pf"), ("rnm-gumbel", "em")]


def _float_close(a, b) -> None:
    tol = a.abs_error + b.abs_error
    assert np.max(np.abs(a.to_float() - b.to_float())) <= tol


@pytest.mark.parametrize("rnm,ref", PAIRS)
@pytest.mark.parametrize("q", SCORE_VECTORS, ids=str)
@pytest.mark.parametrize("eps,monotone", [("1", False), ("2*log(3)", False), ("0.3", True)])
def test_identity_with_pf_and_em(rnm, ref, q, eps, monotone):
    """Exponential-noise RNM = PF and Gumbel-noise RNM = EM in law, on float and ball."""
    m = dpexact.mechanism(rnm, epsilon=eps, monotone=monotone)
    r = dpexact.mechanism(ref, epsilon=eps, monotone=monotone)
    qf = [float(Real.of(x)) for x in q]
    _float_close(m.pmf(qf), r.pmf(qf))
    mb, rb = m.pmf(q, backend="ball"), r.pmf(q, backend="ball")
    assert mb.error_kind == "rigorous"
    assert all(x.overlaps(y) for x, y in zip(mb.values, rb.values))
    assert mb.abs_error < 1e-30


@pytest.mark.parametrize("q", SCORE_VECTORS + [[0, -1.5, -30, -31.25]], ids=str)
@pytest.mark.parametrize("eps,monotone", [("1", False), ("1/3", True)])
def test_laplace_ball_encloses_float_and_mp(q, eps, monotone):
    m = dpexact.mechanism("rnm-laplace", epsilon=eps, monotone=monotone)
    b = m.pmf(q, backend="ball:160")
    mids, rads = b.to_float(), b.radii()
    f = m.pmf([float(Real.of(x)) for x in q])
    assert np.all(np.abs(f.values - mids) <= f.abs_error + rads)
    mp = m.pmf(q, backend="mp:30")
    old, ctx.prec = ctx.prec, 200
    try:
        for x, y in zip(mp.values, b.values):
            # compare at full precision: |mp - ball| <= mp's estimate (+ the ball itself)
            assert abs(y - arb(mpmath.nstr(x, 45))) <= arb(mp.abs_error) + arb("1e-44")
    finally:
        ctx.prec = old
    assert b.total().contains(1) and abs(sum(mids) - 1) <= 1e-15


def _laplace_pair_closed_form(delta: arb, scale: arb) -> arb:
    """Pr[the lower of two scores wins], gap δ >= 0, iid Lap(b) noise.

    W = Z_1 - Z_0 has density e^{-|w|/b}(1 + |w|/b)/(4b) (convolution of two Laplace
    densities), so Pr[W > δ] = e^{-δ/b}(2 + δ/b)/4.
    """
    t = delta / scale
    return (-t).exp() * (2 + t) / 4


@pytest.mark.parametrize("gap", ["0", "1/3", "1", "5/2", "17"])
@pytest.mark.parametrize("eps,monotone", [("1", False), ("2*log(3)", True), ("0.1", False)])
def test_laplace_two_candidates_closed_form(gap, eps, monotone):
    m = dpexact.mechanism("rnm-laplace", epsilon=eps, monotone=monotone)
    q = [gap, 0]
    b = m.pmf(q, backend="ball:128")
    old, ctx.prec = ctx.prec, 256
    try:
        closed = _laplace_pair_closed_form(Real.of(gap).to_arb(256), m.noise_scale().to_arb(256))
    finally:
        ctx.prec = old
    assert b.values[1].overlaps(closed) and b.values[0].overlaps(1 - closed)
    assert b.abs_error < 1e-30
    f = m.pmf([float(Real.of(gap)), 0.0])
    assert abs(f.values[1] - float(closed.mid())) <= f.abs_error


@pytest.mark.parametrize("noise", ["exponential", "laplace", "gumbel"])
def test_equal_scales_vector_matches_common_scale(noise):
    common = ReportNoisyMax(epsilon="1/2", noise=noise)
    per = ReportNoisyMax(epsilon="1/2", noise=noise, scales=(4, 4, 4, 4))  # 2Δ/ε = 4
    q = [1, 0, "-1/2", 1]
    assert all(x.overlaps(y) for x, y in zip(common.pmf(q, "ball").values, per.pmf(q, "ball").values))


@pytest.mark.parametrize("b0,b1,gap", [("1", "1/2", "1"), ("3", "1", "0"), ("1/2", "2", "3/2"), ("1", "1", "2")])
def test_heterogeneous_exponential_closed_form(b0, b1, gap):
    """RNMH with exponential noise, n = 2 (hetsel eq. 4): with scores (δ, 0), δ >= 0,
    Pr[1] = Pr[b1 E1 > δ + b0 E0] = ∫ e^{-u} e^{-(δ + b0 u)/b1} du = b1/(b0+b1) e^{-δ/b1}."""
    m = ReportNoisyMax(epsilon=1, noise="exponential", scales=(b0, b1))
    B0, B1, D = (Real.of(x).to_arb(200) for x in (b0, b1, gap))
    closed = B1 / (B0 + B1) * (-D / B1).exp()
    p = m.pmf([gap, 0], backend="ball")
    assert p.values[1].overlaps(closed) and p.values[0].overlaps(1 - closed)
    f = m.pmf([float(Real.of(gap)), 0.0])
    assert abs(f.values[1] - float(closed.mid())) <= f.abs_error


@pytest.mark.parametrize("noise", ["exponential", "laplace", "gumbel"])
def test_heterogeneous_backends_agree(noise):
    m = ReportNoisyMax(epsilon=1, noise=noise, scales=(1, "1/2", 3, "5/4"))
    q = [0, 1, "1/2", "-1/3"]
    b = m.pmf(q, backend="ball")
    f = m.pmf([0, 1, 0.5, -1 / 3])
    assert np.all(np.abs(f.values - b.to_float()) <= f.abs_error + b.radii())
    assert b.total().contains(1)


def _laplace_pdf_cdf(scale: float):
    def f(x):
        return math.exp(-abs(x) / scale) / (2 * scale)

    def F(x):
        return 0.5 * math.exp(x / scale) if x < 0 else 1 - 0.5 * math.exp(-x / scale)

    return f, F


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("c", [-0.5, -2.0, -7.0])
def test_appendix_f_ccc0_expected_error(n, c):
    """pf App. F: for q = (c,...,c,0), E = -c (1 - Pr[M = n]) with
    Pr[M = n] = ∫ f(x) F(x - c)^{n-1} dx, evaluated here with scipy.quad on the paper's formula."""
    f, F = _laplace_pdf_cdf(2.0)  # Lap(2Δ/ε), ε = Δ = 1
    p_top, quad_err = integrate.quad(lambda x: f(x) * F(x - c) ** (n - 1), -np.inf, np.inf,
                                     points=None, epsabs=1e-14, epsrel=1e-13, limit=200)
    formula = -c * (1 - p_top)
    q = [c] * (n - 1) + [0.0]
    m = dpexact.mechanism("rnm-laplace", epsilon=1)
    e = expected_error(m, q, backend="ball")
    assert abs(e.as_float - formula) <= abs(c) * quad_err + e.error_bound + 1e-14
    p = m.pmf(q, backend="ball")
    assert abs(float(p.values[-1].mid()) - p_top) <= quad_err + 1e-14


def test_figure4_ordering():
    """pf Fig. 4 (ε = Δ = 1, q = (c, c, 0)): RNM-Laplace beats EM for c near 0, loses for c << 0;
    PF beats both for every c. Decided rigorously on balls."""
    em, pf, nm = (dpexact.mechanism(k, epsilon=1) for k in ("em", "pf", "rnm-laplace"))

    def err(m, c):
        return expected_error(m, [c, c, 0], backend="ball").value

    for c in ["-1/4", "-1", "-2"]:
        e_em, e_pf, e_nm = err(em, c), err(pf, c), err(nm, c)
        assert e_nm < e_em and e_pf < e_nm
    for c in ["-6", "-10", "-20"]:
        e_em, e_pf, e_nm = err(em, c), err(pf, c), err(nm, c)
        assert e_nm > e_em and e_pf < e_em


def test_registry_and_scales():
    for name in ("rnm-exp", "rnm-gumbel", "rnm-laplace"):
        m = dpexact.mechanism(name, epsilon="1/2", sensitivity=3)
        assert m.short_name == name and m.noise_scale().to_fraction() == 12
        assert dpexact.mechanism(name, epsilon="1/2", sensitivity=3, monotone=True).noise_scale().to_fraction() == 6
        assert name in dpexact.available()
    assert ReportNoisyMax(epsilon=1).noise == "laplace"  # pf Appendix F
    p = ReportNoisyMax(epsilon=1, noise="gumbel", scales=[1, "1/2"]).params()
    assert p["scales"] == ["1", "1/2"] and p["noise"] == "gumbel"


@pytest.mark.parametrize("kwargs,exc,word", [
    ({"epsilon": 0}, ValueError, "epsilon"),
    ({"epsilon": float("nan")}, ValueError, "epsilon"),
    ({"epsilon": -1}, ValueError, "epsilon"),
    ({"epsilon": 1, "sensitivity": 0}, ValueError, "sensitivity"),
    ({"epsilon": 1, "sensitivity": float("inf")}, ValueError, "sensitivity"),
    ({"epsilon": 1, "noise": "cauchy"}, ValueError, "noise"),
    ({"epsilon": 1, "scales": (1, -2)}, ValueError, "scales[1]"),
    ({"epsilon": 1, "scales": ()}, ValueError, "scales"),
    ({"epsilon": 1, "scales": "1,2"}, TypeError, "scales"),
    ({"epsilon": 1, "monotone": "yes"}, TypeError, "monotone"),
])
def test_bad_parameters(kwargs, exc, word):
    with pytest.raises(exc, match=word.replace("[", r"\[").replace("]", r"\]")):
        ReportNoisyMax(**kwargs)


@pytest.mark.parametrize("scores,backend,exc", [
    ([], "float", ValueError),
    ([1, float("nan")], "float", ValueError),
    ([1, float("inf")], "ball", ValueError),
    ([[1, 2], [3, 4]], "float", ValueError),
    ("1,2", "float", TypeError),
    (list(range(FLOAT_LIMIT + 1)), "float", ValueError),
    (list(range(SCALAR_LIMIT + 1)), "ball", ValueError),
    (list(range(MP_LIMIT + 1)), "mp", ValueError),
])
def test_bad_scores(scores, backend, exc):
    with pytest.raises(exc, match="scores"):
        dpexact.mechanism("rnm-laplace", epsilon=1).pmf(scores, backend=backend)


def test_exact_backend_and_scale_length():
    for name in ("rnm-gumbel",):  # no closed form (exponential and Laplace noise have one)
        with pytest.raises(ValueError, match="ball"):
            dpexact.mechanism(name, epsilon=1).pmf([1, 0], backend="exact")
    m = ReportNoisyMax(epsilon=1, scales=(1, 2, 3))
    with pytest.raises(ValueError, match="scales"):
        m.pmf([1, 0])
    with pytest.raises(ValueError, match="scales"):
        m.rvs([1, 0], size=3)
    with pytest.raises(ValueError, match="method"):
        m.pmf([1, 0, 0], method="recurrence")


@pytest.mark.parametrize("noise", ["laplace", "gumbel", "exponential"])
@pytest.mark.parametrize("scales,q", [([2, 2000], [0, 0]), ([1, 10**6, 1000], [1, 0, 0.5]), ([3, 3e9, 3], [0, -1e7, 3])])
def test_float_quadrature_resolves_scales_orders_of_magnitude_apart(noise, scales, q):
    """A narrow density inside a wide cluster once fell between the quadrature nodes (mass 1/4 lost
    with a bound of 1e-13); the float pmf must agree with the rigorous ball within its bound."""
    m = ReportNoisyMax(1, noise=noise, scales=scales)
    p = m.pmf(q, "float", method="quadrature")
    b = m.pmf(q, "ball", method="quadrature")
    for x, v in zip(p.values, b.values):
        assert abs(x - float(v.mid())) <= p.abs_error + float(v.rad())


def test_noisy_max_coupling_bound_and_its_soundness():
    """Conditioning on the other noises: log-ratio <= shift·h/b for every pair. The bound is ε on ALL_DIFFER,
    no attained ratio exceeds it (balls on random pairs), and each family's hazard is below 1 (mpmath grid)."""
    from dpexact.mechanisms.noise import noise_family
    from dpexact.verification.proofs.noisy_max_coupling import noisy_max_bound

    for fam in ("laplace", "exponential", "gumbel"):
        f = noise_family(fam)
        with mpmath.workdps(80):  # 1 - F(50) cancels ~22 digits; equality holds on t >= 0 (Laplace, exponential)
            worst_h = max(f.pdf_mp(mpmath.mpf(t) / 8) / (1 - f.cdf_mp(mpmath.mpf(t) / 8)) for t in range(-400, 400))
            assert worst_h <= f.hazard_max() * (1 + mpmath.mpf(10) ** -40)
    rng = np.random.default_rng(4)
    for name in ("rnm-laplace", "rnm-exp", "rnm-gumbel"):
        m = dpexact.mechanism(name, epsilon="1/2")
        assert noisy_max_bound(m) == Real.of("1/2") and noisy_max_bound(m, "one-differ") == Real.of("1/4")
        mono = dpexact.mechanism(name, epsilon="1/2", monotone=True)
        assert noisy_max_bound(mono, "monotone") == Real.of("1/2") and noisy_max_bound(mono) == Real.of(1)
        worst = 0.0
        for _ in range(15):
            q = [int(x) for x in rng.integers(-3, 4, 3)]
            q2 = [a + int(b) for a, b in zip(q, rng.choice([-1, 1], 3))]
            a, b = m.pmf(q, "ball").values, m.pmf(q2, "ball").values
            for x, y in zip(a, b):
                worst = max(worst, float((x / y).log().upper()))
        assert 0.3 < worst <= 0.5 + 1e-12
