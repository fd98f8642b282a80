"""rnm-exp's exact backend (closed-form integral of its definition) against independent oracles:
the ball backend's rigorous 1-D integration, a simulation of the algorithm's own randomness, and
(for a common scale) permute-and-flip, which has the same law."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import dpexact
from dpexact.mechanisms.report_noisy_max import ReportNoisyMax
from dpexact.numbers import get_backend

EXACT = get_backend("exact")

CASES = [
    ("1/10", [0, 1, 1, 2, -3], {}),
    ("1", [0, 0, 0], {}),
    ("log(3)", [2, 0, "1/2", -1], {}),
    ("3/2", ["1/3", 0, "-7/4"], {"monotone": True}),
    ("1", [5], {}),
]


@pytest.mark.parametrize("eps, scores, kw", CASES)
def test_exact_inside_ball_enclosure_and_sums_to_one(eps, scores, kw):
    m = dpexact.mechanism("rnm-exp", epsilon=eps, **kw)
    ex = m.pmf(scores, backend="exact")
    assert ex.error_kind == "exact" and ex.method == "integral"
    assert EXACT.sign(sympy.Add(*ex.values) - 1) == 0
    assert all(EXACT.sign(v) == 1 for v in ex.values)
    assert m.pmf(scores, backend="ball:128").contains(ex.values)


def test_heterogeneous_scales_inside_ball_enclosure():
    m = ReportNoisyMax(epsilon=1, noise="exponential", scales=("1/2", 1, "3/2", 2))
    q = [0, "1/2", "-1/3", 1]
    ex = m.pmf(q, backend="exact")
    assert EXACT.sign(sympy.Add(*ex.values) - 1) == 0
    assert m.pmf(q, backend="ball:128").contains(ex.values)


def test_common_scale_equals_permute_and_flip():
    # a known theorem (Ding et al. 2021), checked exactly: a tie would be decided by the zero test
    q = [0, -1, -1, "-5/2", -4]
    a = dpexact.mechanism("rnm-exp", epsilon="2/3").pmf(q, backend="exact").values
    b = dpexact.mechanism("pf", epsilon="2/3").pmf(q, backend="exact").values
    for x, y in zip(a, b):
        y = sympy.Rational(int(y.p), int(y.q)) if type(y).__name__ == "fmpq" else y
        assert EXACT.sign(sympy.sympify(x) - y) == 0


def test_simulation_of_the_algorithm_agrees():
    m = dpexact.mechanism("rnm-exp", epsilon="1/2")
    q = [0, 1, 3, 3, -2]
    p = m.pmf(q, backend="exact").to_float()
    n = 200_000
    draws = m.rvs(q, size=n, random_state=20261125)
    freq = np.bincount(draws, minlength=len(q)) / n
    sd = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 5 * sd)
    # and a wrong law is rejected by the same statistic (the test can fail)
    wrong = dpexact.mechanism("rnm-exp", epsilon="1").pmf(q, backend="exact").to_float()
    assert np.any(np.abs(freq - wrong) > 5 * np.sqrt(wrong * (1 - wrong) / n))


def test_expansion_cost_is_bounded(monkeypatch):
    from dpexact.mechanisms import rnm_exponential_exact

    monkeypatch.setattr(rnm_exponential_exact, "MAX_TERMS", 1000)
    rng = np.random.default_rng(7)
    q = list(rng.normal(size=12))  # no common lattice: 2^11 subset weights
    with pytest.raises(ValueError, match="terms"):
        dpexact.mechanism("rnm-exp", epsilon=1).pmf(q, backend="exact")


def test_verifier_decides_a_tight_triple_exactly():
    # Pr[M(q)=0] = e^ε Pr[M(q')=0] exactly for q' = q + Δ(-1, 1, 1): the ball enclosure
    # straddles e^ε, and the exact backend decides the tie (ratio <= e^ε holds with equality)
    from fractions import Fraction as F

    from dpexact.verification.decide.certified_ratio import PmfCache, decide_pair

    m = dpexact.mechanism("rnm-exp", epsilon="1/10")
    q, q2 = (F(0), F(0), F(1)), (F(-1), F(1), F(2))
    ex = m.pmf(list(q), backend="exact").values[0], m.pmf(list(q2), backend="exact").values[0]
    assert EXACT.sign(ex[0] - sympy.exp(sympy.Rational(1, 10)) * ex[1]) == 0
    d = decide_pair(PmfCache(m, 128), q, q2, 0)
    assert (d.status, d.arithmetic) == ("le", "exact")
    assert d.log_ratio_lo <= 0.1 <= d.log_ratio_hi


@pytest.mark.parametrize("q", [[0, 1, 2, 3, 4], [Fraction(1, 3), 0, Fraction(-7, 2)], [0, 0, 0, 0, 0, 0], [0, -10**6, 5]])
def test_ball_and_float_closed_form_agree_with_the_quadratures(q):
    """The closed form evaluated in balls (default for small n) against the acb / quad_vec quadratures."""
    m = dpexact.mechanism("rnm-exp", epsilon="1/10")
    cf = m.pmf(q, "ball")
    qd = m.pmf(q, "ball", method="quadrature")
    assert cf.method == "closed-form" and qd.method == "quadrature"
    for a, b in zip(cf.values, qd.values):
        assert a.overlaps(b)
    fq = [float(x) for x in q]
    f_cf = m.pmf(fq, "float")
    f_qd = m.pmf(fq, "float", method="quadrature")
    assert f_cf.method == "closed-form" and f_cf.error_kind == "rigorous"
    assert np.max(np.abs(f_cf.values - f_qd.values)) <= f_cf.abs_error + f_qd.abs_error


def _subset_sum(d, lam):
    """Independent reference: the 2^(n-1) subsets of the module docstring, enumerated."""
    import itertools
    n = len(d)
    out = []
    for r in range(n):
        others = [s for s in range(n) if s != r]
        by_exp = {}
        for size in range(len(others) + 1):
            for S in itertools.combinations(others, size):
                kappa = sum((lam[s] for s in S), Fraction(0))
                E = lam[r] * d[r] + sum((lam[s] * d[s] for s in S), Fraction(0))
                by_exp[E] = by_exp.get(E, 0) + (-1) ** size * lam[r] / (lam[r] + kappa)
        out.append({e: c for e, c in by_exp.items() if c != 0})
    return out


@pytest.mark.parametrize("seed", range(6))
def test_integer_expansion_equals_subset_enumeration(seed):
    from dpexact.mechanisms.rnm_exponential_exact import _CACHE, _expansion_rational
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    d = tuple(Fraction(int(v), int(rng.integers(1, 4))) for v in rng.integers(0, 6, n))
    d = tuple(v - min(d) for v in d)
    lam = tuple(Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 7))) for _ in range(n))
    _CACHE.clear()
    got, _ = _expansion_rational(d, lam, 10_000)
    assert list(got) == _subset_sum(d, lam)
    again, _ = _expansion_rational(d, lam, 10_000)  # from the cache: the same object
    assert again is got
