"""Gap / adaptive sparse vector (CheckDP's suite): laws against independent computations, the
threshold-shift coupling certificate, and the refutation of the bad variant."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from scipy.stats import chisquare

import dpexact
from dpexact.mechanisms.sparse_vector.piecewise import Piecewise, integrate_product, noise_between
from dpexact.mechanisms.sparse_vector.threshold_integral import ball_ops, exact_ops
from dpexact.numbers.backends import ball_context
from dpexact.numbers.exp_sum import ExpSum
from dpexact.verification.proofs.threshold_coupling import coupling_bound, verify_coupling

EPS = Fraction(1, 10)
NAMES = ["gap-svt", "adaptive-svt", "bad-adaptive-svt"]


def _m(name, **kw):
    return dpexact.mechanism(name, **{"epsilon": EPS, "threshold": 1, "cutoff": 1, **kw})


# -- an independent oracle: the algorithm's law integrated numerically by mpmath -------------------
def _lap_cdf(x, b):
    x = mpmath.mpf(x)
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def _between(lo, hi, b):
    """Pr[η ∈ [lo, hi)] for η ~ Lap(b) (None = unbounded)."""
    if lo is not None and hi is not None and lo >= hi:
        return mpmath.mpf(0)
    return (1 if hi is None else _lap_cdf(hi, b)) - (0 if lo is None else _lap_cdf(lo, b))


def _quad_law(m, q, pattern, box):
    """Σ_branches ∫ f_ρ Π Pr[answer_i | ρ] dρ straight from the algorithm's description (module docstring of
    dpexact.mechanisms.sparse_vector.adaptive), by mpmath.quad split at every kink."""
    mpmath.mp.dps = 30

    def mp(x):
        x = Fraction(x.value if hasattr(x, "value") else x)
        return mpmath.mpf(x.numerator) / x.denominator

    b = [mp(x) for x in m.noise_scales()]
    q = [mp(x) for x in q]
    box = [(mp(lo), mp(hi)) for lo, hi in box]
    b1 = b[0]
    T = mpmath.mpf(1)
    sigma = mpmath.mpf(16)
    tops = [i for i, a in enumerate(pattern) if a == "T"]
    ivs = dict(zip(tops, box))
    bad = m.short_name == "bad-adaptive-svt"

    def mx(a, c):
        return c if a is None else max(a, c)

    def answer(i, rho, branch):
        x = T + rho - q[i]
        if m.short_name == "gap-svt":
            if branch == "F":
                return _lap_cdf(x, b[1])
            lo, hi = ivs[i]
            return _between(x + max(lo, 0), x + hi, b[1])
        if branch == "F":
            return _lap_cdf(x + sigma, b[2]) * _lap_cdf(x, b[1])
        lo, hi = ivs[i]
        top = _between(mx(lo - q[i], x + sigma), hi - q[i], b[2]) if bad else _between(x + max(lo, sigma), x + hi, b[2])
        mid = _lap_cdf(x + sigma, b[2]) * _between(x + max(lo, 0), x + hi, b[1])
        return top + mid

    def f(rho):
        v = mpmath.exp(-abs(rho) / b1) / (2 * b1)
        for i, a in enumerate(pattern):
            v *= answer(i, rho, a)
        return v

    kinks = {mpmath.mpf(0)}
    for i in range(len(pattern)):
        for c in (0, sigma, *(e for iv in box for e in iv)):
            kinks.add(mpmath.mpf(q[i]) - T - c)
            kinks.add(mpmath.mpf(q[i]) - T + c)
            for e in (e for iv in box for e in iv):
                kinks.add(mpmath.mpf(e) - T - sigma)
    pts = [-mpmath.inf] + sorted(kinks) + [mpmath.inf]
    return mpmath.quad(f, pts)


CASES = [([0, 1, 2], "FFT", [(Fraction(1, 2), 30)]), ([0, 1, 2], "T", [(-5, 40)]),
         ([3, -1, 0, 2], "FT", [(10, 20)]), ([-2, -2, 5], "FFT", [(-40, Fraction(-39, 2))])]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("q,pattern,box", CASES)
def test_box_law_matches_mpmath_quad(name, q, pattern, box):
    m = _m(name)
    lo, _ = m.part_box_probability(q, pattern, box, "ball", 128)
    ex, _ = m.part_box_probability(q, pattern, box, "exact")
    ref = _quad_law(m, [Fraction(x) for x in q], pattern, box)
    assert lo.contains(ex.to_arb(200))
    if ref == 0:  # a gap box below 0: no mass, exactly
        assert ex.is_zero() and name != "bad-adaptive-svt"
    else:
        assert abs(float(lo.mid()) - float(ref)) <= 1e-10 * float(ref)


@pytest.mark.parametrize("name", NAMES)
def test_pattern_law_sums_to_one_and_exact_inside_ball(name):
    m = _m(name)
    q = [0, 2, -1, 1]
    ball = m.pmf(q, "ball")
    ex = m.pmf(q, "exact")
    assert abs(float(sum(ball.values).mid()) - 1) < 1e-14
    assert sympy.simplify(sum(ex.values) - 1) == 0  # the exact backend sums to one exactly
    for b, e, s in zip(ball.values, m.exact_values(q), ex.values):
        assert b.contains(e.to_arb(200))
        assert sympy.simplify(s - e.to_sympy()) == 0  # the exact pmf is the law's exact values


def test_gap_svt_pattern_law_is_svt1_by_two_methods():
    """The piecewise engine (every value unrestricted) against the single-scale Laurent closed form of svt1."""
    m = _m("gap-svt", cutoff=2)
    s1 = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=2)
    q = [Fraction(x) for x in (0, 3, -2, 1, 1)]
    from dpexact.numbers.real import Real

    for a in m.outputs(5):
        mine = m._law([Real.of(x) for x in q], a, [(None, None)] * a.count("T"), exact_ops())
        assert mine == s1.exact_pattern_value(q, a)


@pytest.mark.parametrize("name,cutoff", [("gap-svt", 1), ("adaptive-svt", 1), ("bad-adaptive-svt", 1), ("adaptive-svt", 2)])
def test_law_matches_simulation_of_the_algorithm(name, cutoff):
    """Chi-square of (pattern, released-value bin) cells against box probabilities."""
    m = _m(name, cutoff=cutoff)
    q = [1, 0, 2]
    draws = 40_000
    runs = m.rvs_values(q, draws, random_state=11)
    edges = [-3000, -20, 0, 10, 16, 30, 60, 3000]
    cells = Counter()
    for pat, vals in runs:
        key = (pat,) + tuple(int(np.searchsorted(edges, v)) for v in vals)
        cells[key] += 1
    expected, observed = [], []
    for pat in m.outputs(3):
        k = pat.count("T")
        for bins in itertools.product(range(1, len(edges)), repeat=k):
            box = [(edges[j - 1], edges[j]) for j in bins]
            p, _ = m.part_box_probability(q, pat, box, "ball", 96)
            expected.append(float(p.mid()) * draws)
            observed.append(cells.get((pat,) + tuple(bins), 0))
    exp, obs = np.array(expected), np.array(observed)
    outside = draws - obs.sum()
    assert exp.sum() <= draws * (1 + 1e-12) and draws - exp.sum() < 1  # the window holds the mass
    keep = exp >= 5
    o = np.append(obs[keep], obs[~keep].sum() + outside)
    e = np.append(exp[keep], exp[~keep].sum() + (draws - exp.sum()))
    if e[-1] < 1e-6:  # no mass left over: no draw may land there either
        assert o[-1] == 0
        o, e = o[:-1], e[:-1]
    assert chisquare(o, e * o.sum() / e.sum()).pvalue > 1e-4


# -- the coupling certificate and the verdicts -----------------------------------------------------
@pytest.mark.parametrize("name,cutoff", [("gap-svt", 1), ("adaptive-svt", 1), ("adaptive-svt", 2), ("gap-svt", 2)])
def test_private_variants_certified_by_the_coupling(name, cutoff):
    m = _m(name, cutoff=cutoff)
    v = dpexact.verify(m, n=6, relation="all-differ")
    # the coupling proves ε for every n (symbolic; the per-n factor check is threshold_coupling's)
    assert v.verdict == "private" and v.certified and v.bracket.upper.domain["n"] == "every"
    assert v.worst_log_ratio <= 0.1 and coupling_bound(m, 6).bound <= Fraction(1, 10)


def test_coupling_bound_dominates_attained_box_ratios():
    """The coupling bound is an upper bound: no box of any searched pair exceeds it (ball law)."""
    for name in ("gap-svt", "adaptive-svt"):
        m = _m(name)
        bound = float(coupling_bound(m, 3).bound)
        rng = np.random.default_rng(3)
        worst = -np.inf
        for _ in range(40):
            q = [int(x) for x in rng.integers(-30, 30, 3)]
            z = [int(x) for x in rng.choice([-1, 0, 1], 3)]
            q2 = [a + b for a, b in zip(q, z)]
            pat = str(rng.choice(m.outputs(3)))
            lo = Fraction(int(rng.integers(-10, 60)))
            box = [(lo, lo + Fraction(1, 4))] * pat.count("T")
            p1, _ = m.part_box_probability(q, pat, box, "ball", 128)
            p2, _ = m.part_box_probability(q2, pat, box, "ball", 128)
            if p1 > 0 and p2 > 0:
                with ball_context(128):
                    r = (p1 / p2).log()
                assert r.lower() <= bound + 1e-12
                worst = max(worst, float(r.mid()))
        assert worst > 0.02  # the boxes probed really moved the ratio


def test_coupling_refuses_a_mechanism_with_too_little_noise():
    """Halving the middle-branch noise breaks the proof: the coupling must not certify it."""
    from dataclasses import dataclass

    from dpexact.mechanisms.sparse_vector.adaptive import AdaptiveSVT

    @dataclass(frozen=True)
    class HalfNoise(AdaptiveSVT):
        def noise_scales(self):
            b1, b2, b3 = super().noise_scales()
            return b1, b2 / 2, b3

    m = HalfNoise(epsilon=EPS, threshold=1, cutoff=1)
    assert coupling_bound(m, 4).bound > EPS
    assert verify_coupling(m, 4) is None


def test_bad_adaptive_refuted_with_an_independently_confirmed_box():
    m = _m("bad-adaptive-svt")
    cb = coupling_bound(m, 10)
    assert not cb.finite or cb.bound > EPS  # the coupling proves no ε (at n = 10 it is an upper end only)
    v = dpexact.verify(m, n=10, relation="all-differ")
    assert v.verdict == "violated" and v.certified
    cx = v.counterexample
    assert all(abs(a - b) <= 1 for a, b in zip(cx.scores, cx.neighbour_scores))
    e1, _ = m.part_box_probability(list(cx.scores), cx.output, list(cx.box), "exact")
    e2, _ = m.part_box_probability(list(cx.neighbour_scores), cx.output, list(cx.box), "exact")
    assert (e1 - ExpSum.exp(EPS) * e2).sign() == 1
    r1 = _quad_law(m, list(cx.scores), cx.output, list(cx.box))
    r2 = _quad_law(m, list(cx.neighbour_scores), cx.output, list(cx.box))
    assert mpmath.log(r1 / r2) > mpmath.mpf(1) / 10


# -- the piecewise engine on its own --------------------------------------------------------------
def test_piecewise_integral_against_quadrature():
    f = lambda u, lo, hi, b: _between(lo, hi, b)  # noqa: E731
    beta = Fraction(3)
    ops = exact_ops()
    fac = [noise_between(ops, beta, hi_shift=Fraction(1)), noise_between(ops, Fraction(6), lo=Fraction(-2), lo_shift=Fraction(1, 2), hi=Fraction(4)),
           Piecewise.indicator(ops, Fraction(-7), Fraction(5))]
    exact = integrate_product(ops, fac)
    mpmath.mp.dps = 30
    g = lambda u: mpmath.exp(-abs(u)) / 2 * f(u, None, u + 1, 3) * f(u, max(-2, u + mpmath.mpf(1) / 2), 4, 6) * (-7 <= u < 5)  # noqa: E731
    ref = mpmath.quad(g, [-7, -5, -2.5, -1, -0.5, 0, 3.5, 5])
    assert abs(exact.to_float() - float(ref)) < 1e-14
    with ball_context(128):
        ball = integrate_product(ball_ops(128), [noise_between(ball_ops(128), beta, hi_shift=Fraction(1)),
                                                 noise_between(ball_ops(128), Fraction(6), lo=Fraction(-2), lo_shift=Fraction(1, 2), hi=Fraction(4)),
                                                 Piecewise.indicator(ball_ops(128), Fraction(-7), Fraction(5))])
    assert ball.contains(exact.to_arb(200))


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,msg", [({"cutoff": -1}, "cutoff"), ({"threshold": "inf"}, "threshold"),
                                    ({"sigma": -1}, "sigma"), ({"epsilon": 0}, "epsilon"), ({"threshold": float("nan")}, "threshold")])
def test_bad_parameters(kw, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        _m("adaptive-svt", **kw)


@pytest.mark.parametrize("name", NAMES)
def test_bad_patterns_and_boxes(name):
    m = _m(name)
    with pytest.raises(ValueError, match="pattern"):
        m.part_box_probability([0, 1, 2], "TT", [(0, 1), (0, 1)])
    with pytest.raises(ValueError, match="pattern"):
        m.part_box_probability([0, 1, 2], "FFFFT", [(0, 1)])
    with pytest.raises(ValueError, match="box"):
        m.part_box_probability([0, 1, 2], "FT", [(0, 1), (1, 2)])
    with pytest.raises(ValueError, match="box"):
        m.part_box_probability([0, 1, 2], "FT", [(2, 1)])
    with pytest.raises(TypeError, match="pattern"):
        m.part_box_probability([0, 1, 2], 3, [(0, 1)])


@pytest.mark.parametrize("cutoff", [1, 2, 3])
def test_coupling_of_svt4_is_lyu_level_and_svt1_is_epsilon(cutoff):
    """The coupling reproduces Lyu et al.'s closed forms: Algorithm 4 is ((1+6c)/4)·ε-DP, Algorithm 1 ε-DP."""
    svt4 = dpexact.mechanism("svt4", epsilon=EPS, threshold=1, cutoff=cutoff)
    assert coupling_bound(svt4, 12).bound == Fraction(1 + 6 * cutoff, 4) * EPS
    svt1 = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=cutoff)
    assert coupling_bound(svt1, 24).bound == EPS  # enough ⊥ answers for the threshold shift to pay in full


def test_pattern_verdicts_name_the_coupling_scope():
    m = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=1)
    v = dpexact.verify(m, n=5, relation="all-differ")  # the symbolic coupling proves every n
    assert v.verdict == "private" and any("for every n" in s for s in v.scope.notes)
    from dpexact.verification.routes import _unit_or_kind_search as _search_mechanism

    v = _search_mechanism(m, 5, "all-differ")  # the pattern search alone, extended by the per-n factor check
    assert v.verdict == "private-within-scope"
    assert any("EVERY pair" in s for s in v.scope.notes)
    m3 = dpexact.mechanism("svt3", epsilon=EPS, threshold=1, cutoff=1)
    # its released answer is tied to the test: only the zero shift aligns it, and then every query pays its own
    # noise, nΔ/b2 (b2 = cΔ/ε2 = 20) > ε — an upper end at n = 5, no proof of ε (Lyu et al.: ∞-DP as n grows)
    cb = coupling_bound(m3, 5)
    assert cb.finite and cb.bound == 5 * Fraction(1, 20) and cb.bound > EPS


def test_coupling_picks_a_shift_per_monotone_half():
    """svt1 with monotone=True (query noise halved) is ε-DP for monotone neighbours: shift Δ when the
    queries rise, 0 when they fall; under ALL_DIFFER no shift works (Lyu et al.'s reason for 4cΔ/ε)."""
    m = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=1, monotone=True)
    assert coupling_bound(m, 10, "monotone").bound == EPS
    assert coupling_bound(m, 10, "all-differ").bound > EPS


@pytest.mark.parametrize("cutoff", [1, 2])
def test_coupling_covers_threshold_redraws(cutoff):
    """svt2 redraws its threshold after each ⊤: one shift per segment; the proof gives ε (Lyu et al. Thm 2
    for Algorithm 2) and agrees with the pattern verifier, whose exact worst ratio stays below it."""
    m = dpexact.mechanism("svt2", epsilon=EPS, threshold=1, cutoff=cutoff)
    assert coupling_bound(m, 10).bound == EPS
    assert dpexact.verify(m, n=6, relation="all-differ").verdict == "private"  # every n (symbolic coupling)
    from dpexact.verification.routes import _unit_or_kind_search as _search_mechanism

    v = _search_mechanism(m, 6, "all-differ")
    assert v.verdict == "private-within-scope" and any("EVERY pair" in s for s in v.scope.notes)
    assert v.worst_log_ratio <= 0.1


def test_a_law_with_too_many_branch_terms_is_refused_before_any_integral():
    """cutoff 5 on 10 queries: 29525 branch sequences of 10 factors each (≈ 5 min of integrals)."""
    from dpexact.cost_limits import CostLimitError
    from dpexact.mechanisms.sparse_vector.adaptive import MAX_TERM_FACTORS

    m = dpexact.mechanism("adaptive-svt", epsilon=1, cutoff=5)
    terms = sum(len(v) for v in m._walk(10).values())
    assert terms == 29525 and 10 * terms > MAX_TERM_FACTORS
    with pytest.raises(CostLimitError, match=r"n: adaptive-svt law on n = 10 queries \(29525 branch terms"):
        m.pmf([0] * 10)
    with pytest.raises(CostLimitError):
        m.exact_values([0] * 10)
    assert abs(sum(float(x) for x in m.pmf([0] * 4).values) - 1) < 1e-12  # small n: the law as before
