"""PF's curves at n >= 3 (issue 34): finite witness pairs at n, the ε²/8 refutation at every n, the bracket's ends.

The independent law: Pr[i] = p_i ∫_0^1 Π_{j≠i} (1 − p_j u) du with p_j = e^{c(q_j − max q)}, c = ε/(2Δ)
(McKenna & Sheldon 2020: the permutation is uniform, candidate j is met before i with probability u_i, and
rejected with probability 1 − p_j), integrated exactly as a polynomial in mpmath (benchmarks/curves_pf_rho.py).
"""

from __future__ import annotations

import importlib.util
import math
import pathlib
import random

import mpmath
import pytest

import dpexact
from dpexact.curves.curve import privacy_curve

EPS = ["0.1", "0.5", "1", "2", "4"]
_BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "curves_pf_rho.py"
_spec = importlib.util.spec_from_file_location("curves_pf_rho", _BENCH)
B = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(B)


def _dpexact_pf(eps, scores):
    m = dpexact.mechanism("pf", epsilon=eps)
    return m.pmf([repr(float(s)) for s in scores], backend="ball").values


def _kl(P, Q):
    return sum(p * mpmath.log(p / q) for p, q in zip(P, Q))


def test_independent_pf_law_is_the_n2_closed_form_and_dpexacts_law():
    # n = 2: Pr[second] = e^{−cg}/2 for g = q1 − q2 >= 0 (docs/curves.md), c = ε/2
    for eps, g in (("1", 0.7), ("0.1", 3.0), ("4", 0.25)):
        P = B.mp_pf(eps, [g, 0.0])
        with mpmath.workdps(50):
            assert abs(P[1] - mpmath.exp(-mpmath.mpf(eps) / 2 * mpmath.mpf(g)) / 2) < mpmath.mpf(10) ** -40
    rng = random.Random(3)
    for n in (3, 4, 7, 10):
        q = [rng.uniform(-5, 5) for _ in range(n)]
        mine, theirs = B.mp_pf("1", q), _dpexact_pf("1", q)
        with mpmath.workdps(50):  # the sum at the independent law's precision, whatever the global one
            assert abs(sum(mine) - 1) < mpmath.mpf(10) ** -40
        for a, b in zip(mine, theirs):
            assert abs(a - mpmath.mpf(float(b.mid()))) <= float(b.rad()) + 1e-15


def _refute_at(eps, n):
    c = privacy_curve("pf", eps, n)
    r = c.zcdp(tol=1e-9)
    e = float(eps)
    pair = r.witness["inputs_at_n"]
    first, second = pair["first_scores"], pair["second_scores"]
    assert len(first) == len(second) == n and all(abs(a - b) <= 1 for a, b in zip(first, second))
    ball = B.ball_kl(eps, first, second)
    mp = _kl(B.mp_pf(eps, first), B.mp_pf(eps, second))
    assert abs(mp - mpmath.mpf(float(ball.mid()))) < 1e-13  # two evaluations of the same finite pair agree
    assert ball > (float(eps) ** 2) / 8 * (1 + 1e-12)  # certified: this pair's KL (<= ρ) exceeds ε²/8
    assert abs(mp - r.lower) < 1e-9  # the finite pair is the limit's value up to O(n e^{−60}) and θ's rounding
    assert r.lower <= float(mp) + 1e-12 <= r.upper + 1e-12
    return r, e


@pytest.mark.parametrize("n", [3, 10])
def test_pf_refutes_eps_squared_over_8_at_n_with_a_finite_witness_pair(n):
    r, e = _refute_at("1", n)
    assert r.lower > 2.6 * e * e / 8


@pytest.mark.slow
def test_pf_refutation_on_the_whole_grid_at_n_3_to_10():
    for eps in EPS:
        for n in (3, 6, 10):
            _refute_at(eps, n)


@pytest.mark.parametrize("n", [3, 5, 10])
@mpmath.workdps(50)  # the 1e-30 slack below needs the independent law's 50 digits, whatever the global precision
def test_random_neighbours_at_n_stay_below_the_upper_end_and_in_the_n2_frontier(n):
    """Every random pair is below the certified upper end (a proof covers it); and — a screen of the conjecture
    in docs/curves.md, not a proof — its extreme losses lie in the region spanned by n = 2 pairs."""
    rng = random.Random(11 + n)
    eps = "1"
    c = privacy_curve("pf", eps, n)
    kup, rho = c.kl().upper, c.zcdp(tol=1e-9)
    kap = mpmath.e ** -1
    dyadic = lambda x: round(x * 2**20) / 2**20  # noqa: E731 — v ± 1 and v + offset are then exact floats:
    # a float sum v + 1 rounded to 53 bits would make a pair 1 + O(2^-50) apart, not neighbours
    for _ in range(25):
        q = [dyadic(rng.uniform(-6, 6)) for _ in range(n)]
        q2 = [v + rng.choice([-1, 1, dyadic(rng.uniform(-1, 1))]) for v in q]
        assert all(abs(a - b) <= 1 for a, b in zip(q, q2))
        P, Q = B.mp_pf(eps, q), B.mp_pf(eps, q2)
        assert _kl(P, Q) <= kup + 1e-12
        assert _kl(P, Q) <= rho.upper
        r = [p / s for p, s in zip(P, Q)]
        ri, rj = max(r), min(r)
        slack = mpmath.mpf("1e-30")  # a float 1 ± 1e-30 would be exactly 1: no slack for the 50-digit law's rounding
        assert ri <= mpmath.e * (1 + slack) and rj >= kap * (1 - slack)  # pure ε-DP (proved)
        if rj < 1 / (2 - kap):
            x = rj + mpmath.sqrt(max(rj * (rj - kap), 0))  # rj = κ up to the last digit on a pair at the bound
            assert ri <= (1 - (1 - x) ** 2) / kap + 1e-25


def test_frontier_is_the_n2_family():
    """The frontier formula of docs/curves.md is the n = 2 pair: gap g ∈ [0, ε] moving by ε (x = e^{−g})."""
    for eps in (0.1, 1.0, 4.0):
        kap = math.exp(-eps)
        for g in (0.0, 0.3 * eps, 0.5 * eps, eps):
            P = [1 - math.exp(-g) / 2, math.exp(-g) / 2]           # candidate i on top by g
            Q = [math.exp(-(eps - g)) / 2, 1 - math.exp(-(eps - g)) / 2]  # j raised by ε: j on top by ε − g
            ri, rj = P[0] / Q[0], P[1] / Q[1]
            x = rj + math.sqrt(rj * (rj - kap))
            assert abs(ri - (1 - (1 - x) ** 2) / kap) < 1e-12


def test_pf_bracket_at_n_is_not_claimed_tight():
    # ε = 3/4 has no certificate of statement S (dpexact/curves/pf_s_certified.py): the bracket stays [n = 2, ε-RR]
    c = privacy_curve("pf", "3/4", 5)
    r = c.zcdp(tol=1e-9)
    assert not c.tight and "pure" in c.scope
    assert 0 <= r.upper - 0.75 * math.tanh(0.375) < 1e-9  # ε-RR's ρ = its KL = ε tanh(ε/2)
