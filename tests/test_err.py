"""Exponential randomized response (err §III): the set T, Lemma 1, Algorithms 2 and 3,
the paper's closed forms (eqs. 12-16), samplers (chi-square) and bad parameters."""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import fmpq

import dpexact
from dpexact.mechanisms.exponential_rr import candidate_set
from dpexact.numbers.real import Real
from dpexact.utility import expected_error
from test_grr_selection import chi2_pvalue

LOG2x2 = "2*log(2)"  # with Δ = 1: w_r = 2^(q_r - q*) (rational EM weights)


def em_exact(q):
    top = max(q)
    w = [Fraction(1, 2 ** (top - x)) for x in q]
    return [x / sum(w) for x in w]


def as_fractions(vals):
    return [Fraction(int(v.p), int(v.q)) for v in vals]


# -- the set T -----------------------------------------------------------------------------------
def test_candidate_set_paper_examples():
    # err §III-A/B: (5,3,1) has the single optimum r1; (5,4,1) has T = {r1, r2}
    assert candidate_set([5, 3, 1], 1, "chain") == [0]
    assert candidate_set([5, 4, 1], 1, "chain") == [0, 1]
    # the interval reading of Lemma 1 (smallest c) puts 3 in I = [5-2, 6] for (5,3,1)
    assert candidate_set([5, 3, 1], 1, "interval") == [0, 1]
    assert candidate_set([5, 4, 1], 1, "interval") == [0, 1]


@pytest.mark.parametrize("v, chain, interval", [("-1", 10, 10), ("-1.5", 1, 10), ("-2", 1, 10), ("-2.01", 1, 1)])
def test_candidate_set_worst_case_vector(v, chain, interval):
    q = [v] * 9 + [0]
    for scores in (q, np.array([float(Fraction(x)) for x in q])):
        assert len(candidate_set(scores, 1, "chain")) == chain
        assert len(candidate_set(scores, 1, "interval")) == interval


def test_candidate_set_float_ties_at_delta_are_exact():
    # 0.3 - 0.1 is not 0.2 in binary; the float path must decide with the exact binary values
    q = np.array([0.3, 0.1])
    exact = (Fraction(0.3) - Fraction(0.1)) <= Fraction(0.2)
    assert (candidate_set(q, 0.2, "chain") == [0, 1]) == exact
    assert candidate_set(np.array([1.0, 0.0, -1.0, -2.5]), 1, "chain") == [0, 1, 2]


# -- Lemma 1 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("q", [[5, 4, 1], [3, 3, 0, -4], [2, 0, 0], [0, -1, -2, -3, -7]])
@pytest.mark.parametrize("p", ["0", "1/4", "3/4", "1"])
def test_lemma1_exact(q, p):
    m = dpexact.mechanism("err", epsilon=LOG2x2, p=p)
    T = candidate_set(q, 1)
    P = Fraction(p)
    em = em_exact(q)
    expected = [(P / len(T) if r in T else 0) + (1 - P) * em[r] for r in range(len(q))]
    assert as_fractions(m.pmf(q, backend="exact").values) == expected


def test_backends_agree_irrational():
    m = dpexact.mechanism("err", epsilon="0.7", p="1/3", candidate_set="interval")
    q = [1, "0.25", -1, -3]
    ex = m.pmf(q, backend="exact")
    assert ex.details["field"] == "sympy"
    assert m.pmf(q, backend="ball").contains(ex.values)
    truth = np.array([float(mpmath.mpf(str(v.evalf(40)))) for v in ex.values])
    f = m.pmf(q)
    assert np.all(np.abs(f.values - truth) <= f.rel_error * truth)
    mp = m.pmf(q, backend="mp:40").to_float()
    assert np.allclose(mp, truth, rtol=1e-15, atol=0)


def test_monotone_option_uses_eps_over_delta():
    q = [2, 0, -1]
    a = dpexact.mechanism("err", epsilon="log(2)", p="1/2", monotone=True).pmf(q, backend="exact").values
    b = dpexact.mechanism("err", epsilon=LOG2x2, p="1/2").pmf(q, backend="exact").values
    assert a == b


# -- Algorithm 2 (naive) and Algorithm 3 (sampler law) by enumerating their randomness -----------
def rejection_law(q, acceptance):
    """Law of 'repeat r ~ Uniform until Bernoulli(a_r)': one round accepts r w.p. a_r/n."""
    per_round = [a / len(q) for a in acceptance]
    return [x / sum(per_round) for x in per_round]


@pytest.mark.parametrize("q", [[5, 3, 1], [4, 4, 0], [1, 0, 0, -2]])
def test_naive_algorithm2_enumerated(q):
    P = Fraction(2, 5)
    top = max(q)
    tops = [i for i, x in enumerate(q) if x == top]
    acc = [(1 - P) * Fraction(1, 2 ** (top - x)) for x in q]  # line 6
    law = rejection_law(q, acc)
    expected = [P * (Fraction(1, len(tops)) if r in tops else 0) + (1 - P) * law[r] for r in range(len(q))]
    m = dpexact.mechanism("err-naive", epsilon=LOG2x2, p="2/5")
    assert as_fractions(m.pmf(q, backend="exact").values) == expected


@pytest.mark.parametrize("q", [[5, 4, 1], [3, 3, 2, 1, -3], [2, 0, -5]])
@pytest.mark.parametrize("p", ["3/4", "1/3"])
def test_algorithm3_law_by_enumeration(q, p):
    """All visiting orders of T (lines 6-12) and all coin outcomes, then lines 13-18."""
    P = Fraction(p)
    T = candidate_set(q, 1)
    t = len(T)
    out = [Fraction(0)] * len(q)
    stay = Fraction(0)
    perms = list(itertools.permutations(T))
    for perm in perms:
        for coins in itertools.product([True, False], repeat=t):
            pr = Fraction(1, len(perms))
            for c in coins:
                pr *= P / t if c else 1 - P / t
            if any(coins):
                out[perm[coins.index(True)]] += pr
            else:
                stay += pr
    top = max(q)
    law = rejection_law(q, [(1 - P) * Fraction(1, 2 ** (top - x)) for x in q])
    expected = [out[r] + stay * law[r] for r in range(len(q))]
    m = dpexact.mechanism("err-alg3", epsilon=LOG2x2, p=p)
    assert as_fractions(m.pmf(q, backend="exact").values) == expected
    # it differs from Lemma 1 exactly when |T| >= 2
    lemma = as_fractions(dpexact.mechanism("err", epsilon=LOG2x2, p=p).pmf(q, backend="exact").values)
    assert (lemma == expected) == (t == 1)


def test_algorithm3_p_one_does_not_terminate():
    with pytest.raises(ValueError, match="never terminate"):
        dpexact.mechanism("err-alg3", epsilon=1, p=1).pmf([1, 1, 0])
    assert dpexact.mechanism("err-alg3", epsilon=1, p=1).pmf([3, 1, 0]).values[0] == 1.0


# -- samplers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kw", [("err", {}), ("err", {"candidate_set": "interval"}), ("err-naive", {}),
                                      ("err-alg3", {}), ("err", {"monotone": True})])
def test_samplers_chi_square(name, kw):
    m = dpexact.mechanism(name, epsilon="1.5", p="0.6", **kw)
    assert chi2_pvalue(m, [3.0, 2.5, 2.0, 0.3, 0.0, -2.0], size=150_000, seed=7) > 1e-4


# -- the paper's closed forms (eqs. 12-16, Fig. 13) ----------------------------------------------
def closed_forms(n, eps, p, v, delta=1):
    pp = mpmath.exp(eps * v / (2 * delta))
    L = 2 * delta / eps * mpmath.log(1 / pp)
    e12 = L * (1 - 1 / (1 + (n - 1) * pp))
    e13 = L * (1 - (1 - (1 - pp) ** n) / (n * pp))
    e15 = (1 - p) * e12
    e16 = L * (n - 1) * (n * pp + p - p * pp) / (n * (n * pp - pp + 1))
    return e12, e13, e15, e16


def eq14(n, eps, p, v, m):
    pp = mpmath.exp(eps * v / 2)
    L = 2 / eps * mpmath.log(1 / pp)
    return (1 - p) * L * (1 - 1 / (1 + (n - 1) * pp)) + 2 / eps * p / m * (m - 1) * mpmath.log(1 / pp)


@pytest.mark.parametrize("p", ["0.25", "0.75"])
@pytest.mark.parametrize("v", ["-0.5", "-1", "-1.5", "-3", "-30"])
def test_paper_eqs_12_to_16(p, v):
    n, eps = 10, "0.1"
    q = [v] * (n - 1) + [0]
    with mpmath.workdps(40):
        e12, e13, e15, e16 = closed_forms(n, mpmath.mpf(eps), mpmath.mpf(p), mpmath.mpf(v))
        err = dpexact.mechanism("err", epsilon=eps, p=p)
        got = expected_error(err, q, backend="ball").value
        em = expected_error(dpexact.mechanism("em", epsilon=eps), q, backend="ball").value
        pf = expected_error(dpexact.mechanism("pf", epsilon=eps), q, backend="ball").value
        m = len(candidate_set(q, 1))
        e14 = eq14(n, mpmath.mpf(eps), mpmath.mpf(p), mpmath.mpf(v), m)
    tol = 1e-30
    assert abs(float(em.mid()) - float(e12)) <= tol + 1e-15 * float(e12)
    assert abs(float(pf.mid()) - float(e13)) <= tol + 1e-15 * float(e13)
    target = e15 if Fraction(v) < -1 else e16  # err §V-C: eq. 15 for v < -Δ, eq. 16 for -Δ <= v <= 0
    assert abs(float(got.mid()) - float(target)) <= 1e-15 * float(target)
    assert abs(float(got.mid()) - float(e14)) <= 1e-15 * float(e14)


# -- properties claimed by the paper -----------------------------------------------------------------
def test_complete_err_violates_eps_dp_on_neighbours():
    """err Theorem 1 claims ε-DP because 'T is the same across all neighbouring datasets'.
    (5,4,1) and (5,3,1) differ by Δ = 1 in one score but have T = {r1,r2} vs {r1}."""
    m = dpexact.mechanism("err", epsilon="0.1", p="0.75")
    a = m.pmf([5, 4, 1], backend="exact").values
    b = m.pmf([5, 3, 1], backend="exact").values
    ratio = Real.of(a[1] / b[1])
    assert (ratio - Real.of("exp(1/10)")).sign() > 0
    assert ratio.to_float() > 5  # Pr[r2]: 5.55x larger on (5,4,1) than on its neighbour (5,3,1)


def test_theorem3_never_worse_than_em_when_T_is_singleton():
    rng = np.random.default_rng(5)
    for _ in range(20):
        q = np.sort(rng.uniform(-20, 0, 8))[::-1].copy()
        q[0] = q[1] + rng.uniform(1.01, 4)  # gap > Δ: |T| = 1
        for p in ("0.1", "0.5", "0.9"):
            e = expected_error(dpexact.mechanism("err", epsilon=0.5, p=p), q)
            em = expected_error(dpexact.mechanism("em", epsilon=0.5), q)
            assert e.as_float <= em.as_float + e.error_bound + em.error_bound


# -- bad parameters -------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, match", [
    ({"epsilon": 1}, "p"),
    ({"epsilon": 1, "p": "1.5"}, "p"),
    ({"epsilon": 1, "p": -0.1}, "p"),
    ({"epsilon": 1, "p": "nan"}, "p"),
    ({"epsilon": 0, "p": "0.5"}, "epsilon"),
    ({"epsilon": 1, "p": "0.5", "sensitivity": -1}, "sensitivity"),
    ({"epsilon": 1, "p": "0.5", "candidate_set": "ball"}, "candidate_set"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        dpexact.mechanism("err", **kw)


def test_bad_parameters_other_variants():
    with pytest.raises(ValueError, match="tie_break"):
        dpexact.mechanism("err-naive", epsilon=1, p="0.5", tie_break="x")
    with pytest.raises(ValueError, match="p"):
        dpexact.mechanism("err-alg3", epsilon=1, p=2)
    with pytest.raises(ValueError, match="scores"):
        dpexact.mechanism("err", epsilon=1, p="0.5").pmf([1.0, math.inf])
    assert fmpq(1) == dpexact.mechanism("err", epsilon=1, p="0.5").pmf([3], backend="exact").values[0]
