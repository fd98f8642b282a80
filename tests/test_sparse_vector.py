"""Sparse-vector laws against independent computations: mpmath.quad of the defining integral,
simulation of the algorithm's own randomness (seeded chi-square goodness of fit), exact ⊂ ball."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.stats import chisquare

import dpexact
from dpexact.mechanisms.sparse_vector import SVT1, SVT2, SVT3, SVT4, SVT5, SVT6, count_patterns, enumerate_patterns
from dpexact.mechanisms.sparse_vector.numerical import NumericalSVT
from dpexact.mechanisms.sparse_vector.released import BadGapSVT

QUERIES = [Fraction(0), Fraction(3, 2), Fraction(-1), Fraction(2)]
CASES = [
    (SVT1, dict(cutoff=1)),
    (SVT1, dict(cutoff=2)),
    (SVT1, dict(cutoff=2, monotone=True)),
    (SVT2, dict(cutoff=2)),
    (SVT3, dict(cutoff=1)),
    (SVT4, dict(cutoff=2)),
    (SVT5, dict()),
    (SVT6, dict()),
    (NumericalSVT, dict(cutoff=2)),
    (BadGapSVT, dict(cutoff=1)),
]


def _mech(cls, kw):
    return cls(epsilon=Fraction(3, 2), threshold=Fraction(1, 2), **kw)


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _quad_pattern(m, q, pattern) -> mpmath.mpf:
    """Pr[pattern] by mpmath.quad of f_ρ · Π tails, straight from the algorithm's definition."""
    b1, b2, b1r = (None if b is None else _mpf(b.to_fraction()) for b in m.noise_scales())
    T = _mpf(m.threshold.to_fraction())

    def tail(x):  # Pr[q + ν >= T + ρ] as a function of x = T + ρ - q
        if b2 is None:
            return mpmath.mpf(1) if x <= 0 else mpmath.mpf(0)
        return 1 - mpmath.exp(x / b2) / 2 if x < 0 else mpmath.exp(-x / b2) / 2

    segments, start = [], 0
    if m.resample:
        for i, a in enumerate(pattern):
            if a == "T":
                segments.append((start, i + 1))
                start = i + 1
        if start < len(pattern):
            segments.append((start, len(pattern)))
    else:
        segments = [(0, len(pattern))]
    total = mpmath.mpf(1)
    for s, e in segments:
        b = b1 if s == 0 else b1r

        def f(rho, s=s, e=e, b=b):
            v = mpmath.exp(-abs(rho) / b) / (2 * b)
            for i in range(s, e):
                t = tail(T + rho - _mpf(q[i]))
                v *= t if pattern[i] == "T" else 1 - t
            return v

        pts = sorted({mpmath.mpf(0)} | {_mpf(q[i]) - T for i in range(s, e)})
        total *= mpmath.quad(f, [-mpmath.inf] + pts + [mpmath.inf])
    return total


@pytest.mark.parametrize("cls,kw", CASES)
def test_pattern_law_matches_mpmath_quad(cls, kw):
    m = _mech(cls, kw)
    p = m.pmf(QUERIES, "ball:160")
    with mpmath.workdps(30):
        for a, ball in zip(p.details["outputs"], p.values):
            ref = _quad_pattern(m, QUERIES, a)
            assert abs(float(ball.mid()) - float(ref)) <= 1e-12 * max(1.0, float(ref)), (a, ball, ref)


@pytest.mark.parametrize("cls,kw", CASES)
def test_exact_inside_ball_and_sums_to_one(cls, kw):
    m = _mech(cls, kw)
    ex = m.exact_values(QUERIES)
    total = ex[0]
    for v in ex[1:]:
        total = total + v
    assert total == 1  # exactly, in Q[exp(Q)]
    ball = m.pmf(QUERIES, "ball")
    assert ball.contains([v.to_sympy() for v in ex])


@pytest.mark.parametrize("cls,kw", CASES)
def test_pattern_law_matches_simulation(cls, kw):
    m = _mech(cls, kw)
    q = [float(x) for x in QUERIES]
    draws = m.rvs(q, size=20000, random_state=12345)
    p = m.pmf(q)
    outs = p.details["outputs"]
    counts = Counter(draws)
    assert set(counts) <= set(outs)
    expected = np.asarray(p.values) * len(draws)
    keep = expected >= 5  # chi-square validity; the rest is pooled
    obs = np.array([counts[a] for a in outs], dtype=float)
    f_obs = np.append(obs[keep], obs[~keep].sum())
    f_exp = np.append(expected[keep], expected[~keep].sum())
    if f_exp[-1] == 0:
        f_obs, f_exp = f_obs[:-1], f_exp[:-1]
    assert chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue > 1e-3


def test_pattern_counts():
    for n in (1, 3, 6):
        for c in (None, 1, 2, 3):
            assert len(enumerate_patterns(n, c)) == count_patterns(n, c)
    assert count_patterns(10, 1) == 11 and count_patterns(10, None) == 1024


def test_svt3_box_probability_brackets_simulation_and_density_integral():
    m = _mech(SVT3, dict(cutoff=1))
    q = QUERIES
    box = [(Fraction(0), Fraction(1, 2))]
    lo, hi = m.part_box_probability(q, "FT", box)
    assert lo <= hi
    ex_lo, ex_hi = m.part_box_probability(q, "FT", box, backend="exact")
    assert lo.contains(ex_lo.to_arb(300)) and hi.contains(ex_hi.to_arb(300))
    # the probability itself, by integrating the density (mpmath) over the box, lies in [lo, hi]
    with mpmath.workdps(20):
        dens = lambda v: float(m.density(q, "FT", [Fraction(float(v))]).mid())
        val = mpmath.quad(dens, [0, 0.5])
    assert float(lo.mid()) * (1 - 1e-9) <= val <= float(hi.mid()) * (1 + 1e-9)
    # and a simulation of Algorithm 3 agrees with it
    runs = m.rvs_values([float(x) for x in q], 40000, random_state=7)
    hits = sum(1 for a, v in runs if a == "FT" and 0 <= v[0] <= 0.5)
    se = np.sqrt(val * (1 - val) / len(runs))
    assert abs(hits / len(runs) - val) < 5 * se


def test_registry_aliases_are_the_peers_algorithms():
    assert type(dpexact.mechanism("isvt1", epsilon=1)) is SVT5
    assert type(dpexact.mechanism("isvt2", epsilon=1)) is SVT6
    assert type(dpexact.mechanism("isvt3", epsilon=1)) is SVT4
    assert type(dpexact.mechanism("isvt4", epsilon=1)) is SVT3
    # StatDP's iSVT3 uses b1 = 4/ε, b2 = 4/(3ε) (statdp/algorithms.py)
    b1, b2, _ = SVT4(epsilon=Fraction(1, 10)).noise_scales()
    assert b1.to_fraction() == 40 and b2.to_fraction() == Fraction(40, 3)


@pytest.mark.parametrize(
    "kw,exc,msg",
    [
        (dict(cutoff=-1), ValueError, "cutoff"),
        (dict(cutoff=0), ValueError, "cutoff"),
        (dict(cutoff=1.5), TypeError, "cutoff"),
        (dict(threshold=float("inf")), ValueError, "threshold"),
        (dict(threshold=float("nan")), ValueError, "threshold"),
        (dict(epsilon=-1), ValueError, "epsilon"),
        (dict(monotone="yes"), TypeError, "monotone"),
        (dict(monotone=1), TypeError, "monotone"),
    ],
)
def test_bad_parameters(kw, exc, msg):
    args = dict(epsilon=1, threshold=0, cutoff=1)
    args.update(kw)
    with pytest.raises(exc, match=msg):
        SVT1(**args)


def test_bad_patterns_and_queries():
    m = SVT1(epsilon=1, cutoff=1)
    with pytest.raises(ValueError, match="pattern"):
        m.pattern_probability([0, 1, 2], "FF")  # wrong length
    with pytest.raises(ValueError, match="pattern"):
        m.pattern_probability([0, 1, 2], "TF")  # continues after the abort
    with pytest.raises(ValueError, match="pattern"):
        m.pattern_probability([0, 1, 2], "FXF")
    with pytest.raises(ValueError, match="cutoff"):
        SVT6(epsilon=1, cutoff=0)
    assert len(SVT6(epsilon=1, cutoff=1).outputs(3)) == 4  # DP-Auditorium's variant aborts after one ⊤
    with pytest.raises(ValueError, match="box"):
        SVT3(epsilon=1).part_box_probability([0, 1], "T", [(1, 0)])
    with pytest.raises(ValueError):
        m.pmf([0, float("inf")])


def test_numerical_svt_value_loss_is_the_tail_ratio():
    """The released values' sup log-ratio Σ|q_i - q'_i|/b3 equals the ratio on a tail box (mpmath.quad)."""
    m = NumericalSVT(epsilon=Fraction(1, 2), threshold=0, cutoff=1)
    q, q2 = [Fraction(0), Fraction(2)], [Fraction(1), Fraction(1)]
    loss = float(m.value_loss(q, q2, "FT").to_float())
    b3 = float(m.release_scale().to_float())
    f = lambda v, c: mpmath.exp(-abs(v - c) / b3) / (2 * b3)
    with mpmath.workdps(30):
        num = mpmath.quad(lambda v: f(v, 2), [5, 6])  # v >= max(q_1, q'_1): tail box
        den = mpmath.quad(lambda v: f(v, 1), [5, 6])
    assert abs(float(mpmath.log(num / den)) - loss) < 1e-12


def test_trie_pass_equals_one_integral_per_pattern_exactly():
    from dpexact.mechanisms.sparse_vector.threshold_integral import exact_ops, laurent_patterns, laurent_segment

    m = SVT1(epsilon=Fraction(3, 2), threshold=Fraction(1, 2), cutoff=2)
    b1, b2, _ = m.noise_scales()
    k = (b2 / b1).value
    deltas = [(x - m.threshold) / b2 for x in [Fraction(q) for q in QUERIES]]
    pats = m.outputs(len(QUERIES))
    ops = exact_ops()
    shared = laurent_patterns(ops, k, deltas, pats)
    for a, v in zip(pats, shared):
        assert v == laurent_segment(ops, k, [(deltas[i], a[i] == "T") for i in range(len(a))])


def test_monotone_svt1_halves_the_query_noise():
    """Lyu et al. Algorithm 1 for monotonic queries (CheckDP svt_increasing.c: Lap(2/ε), Lap(2·NN/ε))."""
    from dpexact.mechanisms.neighbourhoods import LInfBox, MonotoneBox

    for c in (1, 3):
        b1, b2, _ = SVT1(epsilon=Fraction(1, 10), cutoff=c, monotone=True).noise_scales()
        assert b1.to_fraction() == 2 / Fraction(1, 10) and b2.to_fraction() == 2 * c / Fraction(1, 10)
        assert SVT1(epsilon=Fraction(1, 10), cutoff=c).noise_scales()[1].to_fraction() == 4 * c / Fraction(1, 10)
    m = dpexact.mechanism("svt1", epsilon=1, monotone=True)
    assert isinstance(m.neighbourhood(), MonotoneBox) and m.params()["monotone"] is True
    assert isinstance(dpexact.mechanism("svt1", epsilon=1).neighbourhood(), LInfBox)
