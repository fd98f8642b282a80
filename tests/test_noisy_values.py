"""Closed-form laws of released noisy values against simulation and numerical integration."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

import dpexact

Q = [Fraction(0), Fraction(3), Fraction(-2), Fraction(1)]


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_value_interval_law(noise):
    m = dpexact.mechanism("noisy-max-value", epsilon=1, noise=noise)
    b = 2.0
    lo, hi = Fraction(1), Fraction(6)
    p = m.interval_probability(Q, lo, hi)
    ex = m.interval_probability(Q, lo, hi, backend="exact")
    assert p.contains(ex.to_arb(300))

    # density of the max by mpmath: Σ_i f_i(x) Π_{j≠i} F_j(x), integrated over [lo, hi]
    def F(x):
        if noise == "laplace":
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2
        return 1 - mpmath.exp(-x / b) if x > 0 else mpmath.mpf(0)

    def f(x):
        if noise == "laplace":
            return mpmath.exp(-abs(x) / b) / (2 * b)
        return mpmath.exp(-x / b) / b if x > 0 else mpmath.mpf(0)

    qs = [float(x) for x in Q]

    def dens(x):
        s = 0
        for i, qi in enumerate(qs):
            t = f(x - qi)
            for j, qj in enumerate(qs):
                if j != i:
                    t *= F(x - qj)
            s += t
        return s

    with mpmath.workdps(30):
        ref = mpmath.quad(dens, [1, 3, 6])  # kinks of the density at the queries
    assert abs(float(p.mid()) - float(ref)) < 1e-12
    draws = m.rvs(qs, size=40000, random_state=3)
    frac = np.mean((draws >= 1) & (draws <= 6))
    assert abs(frac - float(ref)) < 5 * np.sqrt(float(ref) * (1 - float(ref)) / 40000)


@pytest.mark.parametrize("name", ["laplace", "noisy-hist", "noisy-hist-bad", "prefix-sum"])
def test_additive_box_law_matches_simulation(name):
    m = dpexact.mechanism(name, epsilon=Fraction(1, 2))
    q = [Fraction(0), Fraction(1), Fraction(-1)]
    box = [(Fraction(-1), Fraction(2))] * 3
    p = m.box_probability(q, box)
    assert p.contains(m.box_probability(q, box, backend="exact").to_arb(300))
    y = m.rvs([float(x) for x in q], size=40000, random_state=5)
    x = np.diff(y, axis=1, prepend=0.0) if m.prefix else y  # back to the noisy-value coordinates
    frac = np.mean(np.all((x >= -1) & (x <= 2), axis=1))
    pm = float(p.mid())
    assert abs(frac - pm) < 5 * np.sqrt(pm * (1 - pm) / 40000)


def test_closed_form_levels_and_witnesses():
    v = dpexact.verify(dpexact.mechanism("noisy-hist-bad", epsilon=Fraction(1, 10)), n=5)
    assert v.verdict == "violated" and v.certified and abs(v.worst_log_ratio - 10.0) < 1e-9
    v = dpexact.verify(dpexact.mechanism("noisy-hist", epsilon=Fraction(1, 10)), n=5)
    assert v.verdict == "private" and v.bracket.upper.upper == "1/10"  # density-ratio proof
    # the prefix sum is ε-DP only when one query moves; all queries moving costs n·ε
    v = dpexact.verify(dpexact.mechanism("prefix-sum", epsilon=Fraction(1, 10), relation="all-differ"), n=10)
    assert v.verdict == "violated" and abs(v.worst_log_ratio - 1.0) < 1e-9


@pytest.mark.parametrize("noise,expected", [("laplace", 0.25), ("exponential", float("inf"))])
def test_noisy_max_value_refuted_at_peer_setting(noise, expected):
    v = dpexact.verify(dpexact.mechanism("noisy-max-value", epsilon=Fraction(1, 10), noise=noise), n=5)
    assert v.verdict == "violated" and v.certified
    # Laplace: the left tail of the max gives e^{nΔ/b} = e^{5/20} exactly on tail intervals
    assert v.worst_log_ratio == expected or abs(v.worst_log_ratio - expected) < 1e-9


def test_bad_inputs():
    m = dpexact.mechanism("noisy-max-value", epsilon=1)
    with pytest.raises(ValueError, match="lo < hi"):
        m.interval_probability([0, 1], 2, 1)
    with pytest.raises(ValueError, match="noise"):
        dpexact.mechanism("noisy-max-value", epsilon=1, noise="gauss")
    with pytest.raises(ValueError, match="box"):
        dpexact.mechanism("laplace", epsilon=1).box_probability([0, 1], [(0, 1)])
    with pytest.raises(ValueError, match="copies"):
        dpexact.mechanism("laplace", epsilon=1, copies=0)


@pytest.mark.parametrize("c", [0, 2, 5])
def test_truncated_geometric_is_the_truncated_two_sided_geometric(c):
    """GeoSample's integer cdf gives Ghosh et al.'s truncated geometric with α = 2^k/(2^k+1), exactly."""
    m = dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10), n=5)
    a = Fraction(2**m.k, 2**m.k + 1)
    ref = [(1 - a) / (1 + a) * a ** abs(z - c) for z in range(6)]
    ref[0] = a**c / (1 + a)
    ref[5] = a ** (5 - c) / (1 + a)
    assert m.exact_pmf([c]) == ref
    draws = m.rvs([c], size=20000, random_state=11)
    counts = np.bincount(draws, minlength=6)
    from scipy.stats import chisquare

    assert chisquare(counts, np.array([float(x) for x in ref]) * 20000).pvalue > 1e-3


def test_truncated_geometric_level_as_coded_by_dpsniper():
    import math

    v = dpexact.verify(dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10)))
    assert v.verdict == "violated" and abs(v.worst_log_ratio - math.log(9 / 8)) < 1e-12
    v = dpexact.verify(dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10), log_base=2))
    # proved by the exhaustive exact comparison (verification/proofs/finite_levels.py): private, level ln(33/32)
    assert v.verdict == "private" and abs(v.worst_log_ratio - math.log(33 / 32)) < 1e-12
    assert v.bracket.upper.upper == "log(33/32)"
    with pytest.raises(ValueError, match="count"):
        dpexact.mechanism("truncated-geometric", epsilon=1).pmf([7])


def test_partial_sum_law_and_levels():
    m = dpexact.mechanism("partial-sum", epsilon=Fraction(1, 2))
    q = [Fraction(1), Fraction(2), Fraction(-1)]
    p = m.box_probability(q, [(Fraction(0), Fraction(3))])
    y = m.rvs([1.0, 2.0, -1.0], size=40000, random_state=9)[:, 0]
    frac = np.mean((y >= 0) & (y <= 3))
    pm = float(p.mid())
    assert abs(frac - pm) < 5 * np.sqrt(pm * (1 - pm) / 40000)
    bad = dpexact.verify(dpexact.mechanism("partial-sum", epsilon=Fraction(1, 10), noise_factor=Fraction(1, 2)), n=5)
    assert bad.verdict == "violated" and abs(bad.worst_log_ratio - 0.2) < 1e-9


def test_smart_sum_noise_recovery_and_levels():
    """CheckDP's program run literally: η = C y - D q recovers i.i.d. Laplace noise (KS), the bad
    version's block-end output is the exact block sum; the exact levels 2ε and ∞."""
    from scipy.stats import kstest

    m = dpexact.mechanism("smart-sum", epsilon=Fraction(1, 2), block=3)
    q = [1.0, -2.0, 0.5, 3.0, 1.0]
    y = m.rvs(q, size=20000, random_state=4)
    eta = []
    for i in range(5):
        if (i + 1) % 3 == 0:
            eta.append(y[:, i] - sum(q[i - 2 : i + 1]))
        else:
            eta.append(y[:, i] - (y[:, i - 1] if i else 0.0) - q[i])
    for e in eta:
        assert kstest(e, "laplace", args=(0, 2.0)).pvalue > 1e-3
    bad = dpexact.mechanism("smart-sum", epsilon=Fraction(1, 2), block=3, bad=True)
    yb = bad.rvs(q, size=100, random_state=5)
    assert np.all(yb[:, 2] == sum(q[:3]))
    v = dpexact.verify(dpexact.mechanism("smart-sum", epsilon=Fraction(1, 10)), n=10)
    assert v.verdict == "private" and v.bracket.upper.upper == "1/5"  # density-ratio proof at the claim 2ε
    from dpexact.verification.proofs.closed_forms import closed_form_verdict

    v = closed_form_verdict(dpexact.mechanism("smart-sum", epsilon=Fraction(1, 10)), 10)
    assert v.verdict == "private-within-scope" and abs(v.worst_log_ratio - 0.2) < 1e-12
    assert abs(v.worst_float_log_ratio - 0.2) < 1e-9  # the witness box attains the level
    v = dpexact.verify(dpexact.mechanism("smart-sum", epsilon=Fraction(1, 10), bad=True), n=10)
    assert v.verdict == "violated" and v.certified
    assert v.counterexample.as_dict()["epsilon"] == "1/5"  # the claim (CHECK: 2 * epsilon), not the noise parameter


def test_smart_sum_box_law_matches_quadrature_of_its_density():
    """Pr[C y ∈ B] from the Laplace cdf product against a 2-D quadrature of the density of y
    (logpdf, which recovers the noise step by step) over the parallelogram {y : C y ∈ B}."""
    from scipy.integrate import dblquad

    m = dpexact.mechanism("smart-sum", epsilon=Fraction(1, 2), block=2)
    q = [Fraction(1), Fraction(-1, 2)]
    box = [(Fraction(-1), Fraction(2)), (Fraction(-3), Fraction(1, 2))]  # y0 ∈ [-1, 2], y1 ∈ [-3, 1/2] (block end)
    p = m.box_probability(q, box, "ball", 128)
    f = lambda y1, y0: np.exp(m.logpdf([1.0, -0.5], [y0, y1]))  # noqa: E731
    ref, err = dblquad(f, -1, 2, -3, 0.5, epsabs=1e-12, epsrel=1e-12)
    assert err < 1e-10 and abs(float(p.mid()) - ref) < 1e-9
    m3 = dpexact.mechanism("smart-sum", epsilon=Fraction(1, 2), block=3)  # off a block end: C y = y1 - y0
    box3 = [(Fraction(0), Fraction(1)), (Fraction(-1), Fraction(1))]
    f3 = lambda y1, y0: np.exp(m3.logpdf([1.0, -0.5], [y0, y1]))  # noqa: E731
    ref3, _ = dblquad(f3, 0, 1, lambda y0: y0 - 1, lambda y0: y0 + 1, epsabs=1e-12, epsrel=1e-12)
    assert abs(float(m3.box_probability(q, box3, "ball", 128).mid()) - ref3) < 1e-9
    exact = m3.box_probability(q, box3, "exact")
    assert m3.box_probability(q, box3, "ball", 128).contains(exact.to_arb(256))


def test_bad_smart_sum_block_end_atom_is_counted_half_open():
    bad = dpexact.mechanism("smart-sum", epsilon=Fraction(1, 2), block=2, bad=True)
    q = [Fraction(1), Fraction(2)]  # block end y1 = q0 + q1 = 3 exactly
    wide = (Fraction(-100), Fraction(100))
    at = bad.box_probability(q, [wide, (Fraction(3), Fraction(4))], "exact")
    below = bad.box_probability(q, [wide, (Fraction(2), Fraction(3))], "exact")
    assert below.sign() == 0 and (at - bad.box_probability(q, [wide, wide], "exact")).sign() == 0
    z = bad.box_coordinates(bad.rvs([1.0, 2.0], size=50, random_state=0))
    assert np.all(z[:, 1] == 3.0)


# -- noisy max releasing the index and the value (the joint law of (I, V)) -------------------------

def _noise_pdf_cdf(noise, b):
    """Density and cdf of the noise, written out from their definitions (mpmath, any precision)."""
    if noise == "laplace":
        return (lambda x: mpmath.exp(-abs(x) / b) / (2 * b),
                lambda x: mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2)
    return (lambda x: mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0),
            lambda x: 1 - mpmath.exp(-x / b) if x > 0 else mpmath.mpf(0))


def _joint(noise, **kw):
    return dpexact.mechanism("noisy-max-value", epsilon=1, noise=noise, release="index-value", **kw)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_value_law_matches_quadrature_at_50_digits(noise):
    """Pr[I = i, V ∈ [lo, hi]] = ∫ f(v - q_i) Π_{j≠i} F(v - q_j) dv by mpmath.quad at 50 digits."""
    m = _joint(noise)
    f, F = _noise_pdf_cdf(noise, mpmath.mpf(2))
    qs = [mpmath.mpf(int(x)) for x in Q]
    with mpmath.workdps(50):
        for i in range(len(Q)):
            for lo, hi in [(Fraction(-7), Fraction(-5, 2)), (Fraction(1, 3), Fraction(6)), (Fraction(-3), Fraction(40))]:
                pts = sorted({mpmath.mpf(lo.numerator) / lo.denominator, mpmath.mpf(hi.numerator) / hi.denominator}
                             | {mpmath.mpf(int(x)) for x in Q if lo < x < hi})  # the density's kinks

                def dens(v, i=i):
                    t = f(v - qs[i])
                    for j, qj in enumerate(qs):
                        if j != i:
                            t *= F(v - qj)
                    return t

                ref = mpmath.quad(dens, pts)
                ball, upper = m.part_box_probability(Q, i, [(lo, hi)], "ball", prec=256)
                assert ball is upper  # the closed form is the probability itself, not a bracket
                assert abs(float(ball.mid()) - float(ref)) <= 1e-15 * max(1e-300, float(ref)) + 1e-300
                assert abs(mpmath.mpf(ball.mid().str(60, radius=False)) - ref) < mpmath.mpf(10) ** -45, (i, lo, hi)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_value_exact_inside_ball_and_marginals(noise):
    m = _joint(noise)
    lo, hi = Fraction(1), Fraction(6)
    ex = [m.part_box_probability(Q, i, [(lo, hi)], "exact")[0] for i in range(len(Q))]
    for i, e in enumerate(ex):
        assert m.part_box_probability(Q, i, [(lo, hi)], "ball")[0].contains(e.to_arb(300))
    # summed over the index: the value-only law, exactly in Q[exp(Q)]
    total = ex[0]
    for e in ex[1:]:
        total = total + e
    assert total == dpexact.mechanism("noisy-max-value", epsilon=1, noise=noise).interval_probability(Q, lo, hi, "exact")
    # integrated over the value (a window holding all but e^-1000 of the mass): report noisy max's pmf
    rnm = dpexact.mechanism("rnm-laplace" if noise == "laplace" else "rnm-exp", epsilon=1)
    pmf = rnm.pmf(Q, "exact").values
    for i in range(len(Q)):
        p, _ = m.part_box_probability(Q, i, [(-2000, 2000)], "ball")
        assert abs(float(p.mid()) - float(pmf[i])) < 1e-15
        assert float(p.rad()) < 1e-30


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_value_law_matches_simulation(noise):
    """Seeded runs of the algorithm, binned on (index × value interval) cells: chi-square goodness of fit."""
    from scipy.stats import chisquare

    m = _joint(noise)
    qs = [float(x) for x in Q]
    edges = [Fraction(-1000), Fraction(-1), Fraction(1, 2), Fraction(2), Fraction(7, 2), Fraction(5), Fraction(1000)]
    runs = m.rvs_values(qs, 40000, random_state=2024)
    obs = np.zeros((len(Q), len(edges) - 1))
    for i, (v,) in runs:
        k = np.searchsorted([float(e) for e in edges], v) - 1
        assert 0 <= k < len(edges) - 1
        obs[i, k] += 1
    exp = np.array([[float(m.part_box_probability(Q, i, [(a, b)])[0].mid()) for a, b in zip(edges, edges[1:])]
                    for i in range(len(Q))]) * len(runs)
    assert abs(exp.sum() - len(runs)) < 1e-6
    keep = exp.ravel() >= 5
    f_obs = np.append(obs.ravel()[keep], obs.ravel()[~keep].sum())
    f_exp = np.append(exp.ravel()[keep], exp.ravel()[~keep].sum())
    if f_exp[-1] < 1e-9:
        assert f_obs[-1] == 0
        f_obs, f_exp = f_obs[:-1], f_exp[:-1]
    assert chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue > 1e-3
    # rvs draws the index (the finite part of the mixed output)
    idx = m.rvs(qs, size=5, random_state=1)
    assert set(int(i) for i in idx) <= set(range(len(Q)))


@pytest.mark.parametrize("noise,expected", [("laplace", 0.25), ("exponential", float("inf"))])
def test_index_value_refuted_at_peer_setting(noise, expected):
    m = dpexact.mechanism("noisy-max-value", epsilon=Fraction(1, 10), noise=noise, release="index-value")
    v = dpexact.verify(m, n=5)
    assert v.verdict == "violated" and v.certified and v.recheck.proved
    cx = v.counterexample
    assert m.neighbourhood().contains(cx.scores, cx.neighbour_scores)
    # independent exact re-check of the box probabilities in Q[exp(Q)]
    from dpexact.numbers.exp_sum import ExpSum

    p1, _ = m.part_box_probability(list(cx.scores), cx.output, list(cx.box), "exact")
    p2, _ = m.part_box_probability(list(cx.neighbour_scores), cx.output, list(cx.box), "exact")
    assert (p1 - ExpSum.exp(Fraction(1, 10)) * p2).sign() == 1
    assert v.worst_log_ratio == expected or abs(v.worst_log_ratio - expected) < 1e-9


def test_index_value_bad_inputs_and_cli():
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    with pytest.raises(ValueError, match="release"):
        dpexact.mechanism("noisy-max-value", epsilon=1, release="foo")
    m = _joint("laplace")
    with pytest.raises(ValueError, match="lo < hi"):
        m.part_box_probability([0, 1], 0, [(2, 1)])
    with pytest.raises(ValueError, match="output"):
        m.part_box_probability([0, 1], 2, [(0, 1)])
    with pytest.raises(TypeError, match="output"):
        m.part_box_probability([0, 1], "0", [(0, 1)])
    with pytest.raises(ValueError, match="box"):
        m.part_box_probability([0, 1], 0, [(0, 1), (1, 2)])
    with pytest.raises(ValueError, match="release"):
        dpexact.mechanism("noisy-max-value", epsilon=1).part_box_probability([0, 1], 0, [(0, 1)])
    assert dpexact.mechanism("noisy-max-value", epsilon=1).output_kind == "interval" and m.output_kind == "mixed"
    r = CliRunner().invoke(app, ["verify", "-m", "noisy-max-value", "-e", "1/10", "--n", "5", "-p", "release=index-value"])
    assert r.exit_code == 1 and "violated" in r.output  # exit 1: violated
    r = CliRunner().invoke(app, ["verify", "-m", "noisy-max-value", "-e", "1/10", "-p", "release=foo"])
    assert r.exit_code == 2 and "release" in r.output and "Traceback" not in r.output


def test_truncated_geometric_k_exact_at_powers_of_two_and_refused_where_undefined():
    """k = ⌈log₂(2/ε)⌉ is decided exactly when 2/ε is a power of two (it was undecidable in balls);
    k < 0 (ε ≥ 4 in base 2, ε ≥ 2e in base e) has no integer cdf: a one-line error naming epsilon."""
    import math

    for e in ("1", "1/2", "1/4", "1/10", "2/3", "3"):
        k = dpexact.mechanism("truncated-geometric", epsilon=e, log_base=2).k
        r = 2 / Fraction(e)
        assert 2 ** (k - 1) < r <= 2**k  # the defining property of the ceiling, in exact integers
        assert dpexact.mechanism("truncated-geometric", epsilon=e).k == math.ceil(math.log(r))
    for e, base in (("4", 2), ("6", "e"), (1000.0, "e")):
        with pytest.raises(ValueError, match="^epsilon: GeoSample needs k"):
            dpexact.mechanism("truncated-geometric", epsilon=e, log_base=base)
