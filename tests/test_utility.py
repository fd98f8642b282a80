"""Utility metrics against independent computations: enumeration of pf Algorithm 1, pf Prop. 4
closed forms (eqs. 7-8), pf Theorem 2 (PF's tail <= EM's), exact values and root finding."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.mechanisms.exponential import ExponentialMechanism
from dpexact.mechanisms.permute_and_flip import PermuteAndFlip
from dpexact.utility import (
    epsilon_for_error,
    error_tail,
    error_variance,
    expected_error,
    stochastic_dominance,
)

LOG9 = "2*log(3)"  # with Δ = 1 and integer scores: p_r = exp((ε/2)(q_r - q*)) = 3^(q_r - q*)


def frac(v) -> Fraction:
    if type(v).__name__ == "fmpq":
        return Fraction(int(v.p), int(v.q))
    import sympy

    r = sympy.nsimplify(v)
    assert r.is_Rational, v
    return Fraction(int(r.p), int(r.q))


# -- independent references -------------------------------------------------------------------
def pf_by_enumeration(q: list[int]) -> list[Fraction]:
    """pf Algorithm 1 run over every permutation: r is returned when its coin is the first heads."""
    top = max(q)
    p = [Fraction(1, 3 ** (top - x)) for x in q]
    n = len(q)
    out = [Fraction(0)] * n
    perms = list(itertools.permutations(range(n)))
    for perm in perms:
        survive = Fraction(1)
        for r in perm:
            out[r] += survive * p[r] / len(perms)
            survive *= 1 - p[r]
    return out


def em_exact(q: list[int]) -> list[Fraction]:
    top = max(q)
    w = [Fraction(1, 3 ** (top - x)) for x in q]
    s = sum(w)
    return [v / s for v in w]


def moments(q: list[int], probs: list[Fraction]) -> tuple[Fraction, Fraction, dict[int, Fraction]]:
    g = [max(q) - x for x in q]
    mean = sum(p * x for p, x in zip(probs, g))
    var = sum(p * (x - mean) ** 2 for p, x in zip(probs, g))
    tail = {t: sum(p for p, x in zip(probs, g) if x >= t) for t in sorted(set(g))}
    return mean, var, tail


small_vectors = st.lists(st.integers(-4, 0), min_size=1, max_size=5)


@settings(max_examples=25, deadline=None)
@given(small_vectors)
def test_exact_metrics_match_enumeration_of_algorithm_1_and_em(q: list[int]) -> None:
    for name, ref in (("pf", pf_by_enumeration), ("em", em_exact)):
        mech = dpexact.mechanism(name, epsilon=LOG9)
        mean, var, tail = moments(q, ref(q))
        e = expected_error(mech, q, backend="exact")
        v = error_variance(mech, q, backend="exact")
        t = error_tail(mech, q, backend="exact")
        assert frac(e.value) == mean and e.error_bound == 0
        assert frac(v.value) == var and v.error_kind == "exact"
        assert [frac(x) for x in t.values] == list(tail.values())
        assert t.levels.tolist() == [float(x) for x in tail]


@settings(max_examples=25, deadline=None)
@given(small_vectors, st.sampled_from(["float", "ball", "mp:40"]))
def test_other_backends_within_their_bounds_of_the_exact_values(q: list[int], backend: str) -> None:
    for name, ref in (("pf", pf_by_enumeration), ("em", em_exact)):
        mech = dpexact.mechanism(name, epsilon=LOG9)
        mean, var, tail = moments(q, ref(q))
        e = expected_error(mech, q, backend=backend)
        v = error_variance(mech, q, backend=backend)
        t = error_tail(mech, q, backend=backend)
        if backend == "ball":
            ctx.prec = 200
            try:
                assert e.value.contains(arb(mean.numerator) / mean.denominator)
                assert v.value.contains(arb(var.numerator) / var.denominator)
                for b, x in zip(t.values, tail.values()):
                    assert b.contains(arb(x.numerator) / x.denominator)
            finally:
                ctx.prec = 53
        elif backend == "float":
            assert abs(Fraction(e.value) - mean) <= Fraction(e.error_bound)
            assert abs(Fraction(v.value) - var) <= Fraction(v.error_bound)
            for f, b, x in zip(t.values, t.abs_error, tail.values()):
                assert abs(Fraction(float(f)) - x) <= Fraction(float(b))
        else:  # mp: its bounds are estimates at the working precision; compare at 60 digits
            with mpmath.workdps(60):
                mp = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
                assert abs(e.value - mp(mean)) <= 10 * e.error_bound + mpmath.mpf(10) ** -38
                assert abs(v.value - mp(var)) <= 10 * v.error_bound + mpmath.mpf(10) ** -38
                for f, x in zip(t.values, tail.values()):
                    assert abs(f - mp(x)) <= mpmath.mpf(10) ** -38


# -- pf Proposition 4, eqs. (7)-(8), for q = (c, ..., c, 0) -------------------------------------
def prop4(n: int, p, c):
    """(E_EM, E_PF, P0_EM, P0_PF) from pf eqs. (7)-(8); P0 = Pr[max] = 1 - E/(-c)."""
    e_em = -c * (1 - 1 / (1 + (n - 1) * p))
    e_pf = -c * (1 - (1 - (1 - p) ** n) / (n * p))
    return e_em, e_pf, 1 - e_em / (-c), 1 - e_pf / (-c)


@pytest.mark.parametrize("n", [2, 3, 5, 12])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_prop4_closed_forms_exact(n: int, k: int) -> None:
    q = [-k] * (n - 1) + [0]
    e_em, e_pf, p0_em, p0_pf = prop4(n, Fraction(1, 3**k), Fraction(-k))
    for name, e_ref, p0 in (("em", e_em, p0_em), ("pf", e_pf, p0_pf)):
        mech = dpexact.mechanism(name, epsilon=LOG9)
        assert frac(expected_error(mech, q, backend="exact").value) == e_ref
        # the error is -c with probability 1 - P0 and 0 otherwise
        assert frac(error_variance(mech, q, backend="exact").value) == k * k * p0 * (1 - p0)
        assert [frac(x) for x in error_tail(mech, q, backend="exact").values] == [1, 1 - p0]


@pytest.mark.parametrize("n, c, eps", [(2, -0.3, "0.7"), (3, -1.3, "0.7"), (50, -2.5, "1.1"), (1000, -7.0, "0.9"), (7, -40.0, "2")])
def test_prop4_closed_forms_float_mp_ball(n: int, c: float, eps: str) -> None:
    q = [c] * (n - 1) + [0.0]
    with mpmath.workdps(150):  # eq. (8) cancels badly for tiny p: evaluate it with many digits
        p = mpmath.exp(mpmath.mpf(eps) / 2 * mpmath.mpf(c))
        refs = prop4(n, p, mpmath.mpf(c))
        var_refs = [mpmath.mpf(c) ** 2 * p0 * (1 - p0) for p0 in refs[2:]]
    for name, e_ref, p0, var_ref in (("em", refs[0], refs[2], var_refs[0]), ("pf", refs[1], refs[3], var_refs[1])):
        mech = dpexact.mechanism(name, epsilon=eps)
        f = expected_error(mech, q)
        assert abs(f.as_float - e_ref) <= f.error_bound
        fv = error_variance(mech, q)
        assert abs(fv.as_float - var_ref) <= fv.error_bound
        ft = error_tail(mech, q)
        assert abs(ft.as_float[1] - (1 - p0)) <= ft.abs_error[1]
        with mpmath.workdps(60):
            mid = lambda ball: mpmath.mpf(ball.mid().str(60, radius=False))  # noqa: E731
            b = expected_error(mech, q, backend="ball:160")
            assert abs(mid(b.value) - e_ref) <= b.error_bound + mpmath.mpf(10) ** -55
            bv = error_variance(mech, q, backend="ball:160")
            assert abs(mid(bv.value) - var_ref) <= bv.error_bound + mpmath.mpf(10) ** -55
            m = expected_error(mech, q, backend="mp:40")
            assert abs(m.value - e_ref) <= mpmath.mpf(10) ** -36 * abs(e_ref)


# -- pf Theorem 2: PF's error tail is never above EM's ------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-30, 0), min_size=2, max_size=40),
    st.sampled_from(["0.1", "0.5", "1", LOG9, "3"]),
    st.booleans(),
)
def test_theorem2_pf_tail_below_em_tail_float_screen(q: list[int], eps: str, monotone: bool) -> None:
    pf = dpexact.mechanism("pf", epsilon=eps, monotone=monotone)
    em = dpexact.mechanism("em", epsilon=eps, monotone=monotone)
    d = stochastic_dominance(pf, em, q, recheck=None)
    assert d.dominates is not False
    assert d.worst_violation <= d.worst_violation_bound
    assert expected_error(pf, q).as_float <= expected_error(em, q).as_float + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_theorem2_ball_recheck_on_random_vectors(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    q = rng.normal(0, 5, size=n).round(3)
    eps = ["0.2", "1", "4"][seed % 3]
    d = stochastic_dominance(dpexact.mechanism("pf", epsilon=eps), dpexact.mechanism("em", epsilon=eps), q)
    assert d.checked_in.startswith("ball")
    assert d.dominates is True and d.worst_violation < 0


def test_dominance_worked_example_exact() -> None:
    # q = (0, -1), p = 1/3: Pr[E >= 1] is p/(1+p) = 1/4 for EM and p/2 = 1/6 for PF (pf Lemma 1)
    em, pf = dpexact.mechanism("em", epsilon=LOG9), dpexact.mechanism("pf", epsilon=LOG9)
    d = stochastic_dominance(em, pf, [0, -1], recheck="exact")
    assert d.dominates is False and d.checked_in == "exact"
    assert d.worst_level == 1.0 and d.worst_violation == pytest.approx(1 / 12, rel=1e-15)
    r = stochastic_dominance(pf, em, [0, -1], recheck="ball")
    assert r.dominates is True and r.worst_violation == pytest.approx(-1 / 12, rel=1e-15)
    same = stochastic_dominance(pf, pf, [0, 0, 0])  # one level only: trivially dominated
    assert same.dominates is True and same.levels.size == 0


def test_prob_at_least_is_a_step_function() -> None:
    t = error_tail(dpexact.mechanism("em", epsilon=LOG9), [0, -1, -1, -3], backend="exact")
    p = [frac(x) for x in t.values]  # levels 0, 1, 3
    assert t.prob_at_least(-2.0) == 1.0 and t.prob_at_least(0.0) == 1.0
    assert t.prob_at_least(0.5) == t.prob_at_least(1.0) == pytest.approx(float(p[1]), rel=1e-15)
    assert t.prob_at_least(2.0) == pytest.approx(float(p[2]), rel=1e-15)
    assert t.prob_at_least(3.5) == 0.0
    with pytest.raises(ValueError, match="t"):
        t.prob_at_least(float("nan"))


# -- ε for a target expected error ------------------------------------------------------------
@pytest.mark.parametrize("name, n, c, target", [("em", 3, -2.0, 0.5), ("pf", 3, -2.0, 0.5), ("pf", 40, -1.0, 0.3), ("em", 40, -1.0, 0.3)])
def test_epsilon_for_error_matches_closed_form_root(name: str, n: int, c: float, target: float) -> None:
    q = [c] * (n - 1) + [0.0]
    with mpmath.workdps(50):
        idx = 0 if name == "em" else 1
        f = lambda e: prop4(n, mpmath.exp(e / 2 * c), mpmath.mpf(c))[idx] - target  # noqa: E731
        root = mpmath.findroot(f, (mpmath.mpf("0.01"), mpmath.mpf(100)), solver="anderson")
    r = epsilon_for_error(name, q, target)
    assert r.certified and r.lower <= root <= r.upper
    assert abs(r.epsilon - root) <= 1e-11 * root
    assert abs(r.expected_error - target) <= 1e-12


def test_epsilon_for_error_monotone_halves_the_budget_and_accepts_factories() -> None:
    q = np.array([0, -1, -3, -3, -7.5])
    std = epsilon_for_error("em", q, 1.0)
    mono = epsilon_for_error("em", q, 1.0, monotone=True)  # exponent ε/Δ instead of ε/(2Δ)
    assert mono.epsilon == pytest.approx(std.epsilon / 2, rel=1e-11)
    via_class = epsilon_for_error(PermuteAndFlip, q, 1.0)
    via_name = epsilon_for_error("pf", q, 1.0)
    assert via_class.epsilon == via_name.epsilon
    # pf Theorem 2: PF reaches the same expected error with a smaller budget
    assert via_name.upper < std.lower


def test_epsilon_for_error_detects_non_monotone_errors() -> None:
    # a perverse factory whose expected error *increases* with ε
    def inverted(epsilon):
        return ExponentialMechanism(epsilon=1 / epsilon)

    with pytest.raises(ArithmeticError, match="monoton"):
        epsilon_for_error(inverted, [0, -1, -2], 0.2)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(target=0.0), ValueError, "target"),
        (dict(target=-1), ValueError, "target"),
        (dict(target=2.0), ValueError, "target"),  # max - mean of (0, -1, -2) is 1
        (dict(target=float("nan")), ValueError, "target"),
        (dict(target=0.5, start=0), ValueError, "start"),
        (dict(target=0.5, mechanism=3), TypeError, "mechanism"),
        (dict(target=0.5, scores=[]), ValueError, "scores"),
        (dict(target=0.5, scores=[0, float("inf")]), ValueError, "scores"),
        (dict(target=0.5, mechanism="nope"), ValueError, "nope"),
    ],
)
def test_epsilon_for_error_bad_input(kwargs: dict, exc: type, word: str) -> None:
    args = dict(mechanism="pf", scores=[0, -1, -2])
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        epsilon_for_error(args.pop("mechanism"), args.pop("scores"), **args)


@pytest.mark.parametrize("func", [expected_error, error_tail, error_variance])
def test_metrics_bad_input(func) -> None:
    pf = dpexact.mechanism("pf", epsilon=1)
    with pytest.raises(ValueError, match="scores"):
        func(pf, [0.0, float("nan")])
    with pytest.raises(ValueError, match="scores"):
        func(pf, [])
    with pytest.raises(ValueError, match="backend"):
        func(pf, [0, 1], backend="quad")


def test_dominance_bad_recheck() -> None:
    pf = dpexact.mechanism("pf", epsilon=1)
    with pytest.raises(ValueError, match="recheck"):
        stochastic_dominance(pf, pf, [0, -1], recheck="mp")
