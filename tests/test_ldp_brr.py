"""BRR (brr §3): channel eq. 7, Algorithms 1–2 against direct minimisation, Algorithm 3 vs search."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from dpexact.ldp import (
    BipartiteRR,
    GeneralizedRR,
    LossMatrix,
    absolute_loss,
    brr_channel,
    closed_form_m,
    global_search,
    jaccard_similarity,
    local_search,
)
from dpexact.ldp.brr_closed_form import exact_floor

A3 = Fraction(3)  # e^ε for ε = log 3


def q_top_h(sorted_losses, a, h):
    """Q of brr eq. 8 with the first h sorted outputs weighted a, the rest 1 (direct formula)."""
    s = [a if i < h else Fraction(1) for i in range(len(sorted_losses))]
    return sum(l * w for l, w in zip(sorted_losses, s)) / sum(s)


def brute_local_m(row, a, reading):
    """Independent reading of Algorithm 1: raising s_i lowers Q iff Q(i) < Q(i−1)."""
    srt = sorted(row)
    h = 1
    while h < len(srt) and q_top_h(srt, a, h + 1) < q_top_h(srt, a, h):
        h += 1
    if reading == "text":
        return min(h + 1, len(srt))
    return h


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13])
@pytest.mark.parametrize("reading", ["pseudocode", "text"])
def test_local_search_matches_direct_q(n, reading):
    lm = absolute_loss(n)
    for x in range(n):
        row = lm.values[x]
        got = local_search(row, "log(3)", reading=reading)
        assert got.m == brute_local_m(row, A3, reading)
        # pseudocode m is a minimiser of Q over h (Q is unimodal in h on these rows)
        if reading == "pseudocode":
            qs = [q_top_h(sorted(row), A3, h) for h in range(1, n + 1)]
            assert qs[got.m - 1] == min(qs)


def test_global_search_is_min_of_local():
    lm = absolute_loss(11)
    g = global_search(lm, 1)
    assert g.m == min(local_search(r, 1).m for r in lm.values)
    assert g.local_m == tuple(local_search(r, 1).m for r in lm.values)


@pytest.mark.parametrize("m", [1, 2, 4, 7])
def test_brr_channel_eq7_brute_force(m):
    n = 7
    lm = absolute_loss(n)
    ch = brr_channel(lm, "log(3)", m, "exact")
    hi, lo = A3 / (m * A3 + n - m), 1 / (m * A3 + n - m)
    for x in range(n):
        row = [Fraction(int(v.p), int(v.q)) for v in ch.rows[x]]
        high = [y for y in range(n) if row[y] == hi]
        assert len(high) == m and all(row[y] in (hi, lo) for y in range(n))
        # Y_m(x) = the m closest points: no outside point is strictly closer than an inside one
        assert max(abs(x - y) for y in high) <= min([abs(x - y) for y in range(n) if y not in high] or [n])
    # LDP: exact ratio e^ε unless m = N (the uniform channel)
    r = ch.max_column_ratio().ratio
    assert r == (1 if m == n else 3)


def test_tie_break_rule():
    lm = absolute_loss(5)
    lower = brr_channel(lm, "log(3)", 2, "exact", tie_break="lower-index")
    higher = brr_channel(lm, "log(3)", 2, "exact", tie_break="higher-index")
    # input 3 (index 2): neighbours 2 and 4 tie at distance 1
    assert lower.rows[2][1] > lower.rows[2][3]
    assert higher.rows[2][3] > higher.rows[2][1]
    assert lower.global_error().value == higher.global_error().value


def test_m1_grr_and_uniform_edge_cases():
    lm = absolute_loss(6)
    g = GeneralizedRR(6, 1).channel("exact")
    b = brr_channel(lm, 1, 1, "exact")
    assert all(sympy.simplify(u - v) == 0 for r, s in zip(g.rows, b.rows) for u, v in zip(r, s))


@pytest.mark.parametrize("eps", ["1/2", 1, 2, "log(3)"])
def test_brr_local_errors_never_exceed_grr(eps):
    """brr Theorem 2 (first part) / Theorem 4: Q^(k)(BRR) <= Q^(k)(GRR) for every k."""
    for lm in (absolute_loss(12), jaccard_similarity(12)):
        b = BipartiteRR(lm, eps).channel("ball")
        g = GeneralizedRR(12, eps).channel("ball", loss=lm)
        for qb, qg in zip(b.local_errors(), g.local_errors()):
            if lm.kind == "loss":
                assert not (qb > qg)
            else:
                assert not (qb < qg)


def test_brr_sampler_matches_channel():
    n, k = 9, 200_000
    b = BipartiteRR(absolute_loss(n), 1)
    p = b.channel("float").to_float()
    for x in (0, 4, 7):
        draws = b.sample(x, size=k, random_state=10 + x)
        freq = np.bincount(draws, minlength=n) / k
        sd = np.sqrt(p[x] * (1 - p[x]) / k)
        assert np.all(np.abs(freq - p[x]) <= 6 * sd)


def test_jaccard_search_uses_negated_utility():
    """brr §4.2: for a utility the ranking and the derivative sign flip; −λ does both."""
    lm = jaccard_similarity(10)
    neg = LossMatrix.from_rows([[-v for v in r] for r in lm.values])
    one_minus = LossMatrix.from_rows([[1 - v for v in r] for r in lm.values])
    assert global_search(lm, 1).local_m == global_search(neg, 1).local_m == global_search(one_minus, 1).local_m


def root_m1(n, a):
    """The positive root of (a−1)i² + (2N−a+1)i − N(N+1) (x = 1's derivative sign), exact sympy."""
    return (sympy.sqrt(n * n * a + (1 - a) ** 2 / 4) - (n - a / 2 + sympy.Rational(1, 2))) / (a - 1)


GRID = ["1/4", "1/2", "3/4", 1, "log(3)", 2, 3]


@pytest.mark.parametrize("eps", GRID)
def test_closed_form_m1_is_the_extreme_inputs_local_search(eps):
    """Independent derivation (see brr_closed_form): m1 = x=1's local m unless the root is an integer;
    and for ε >= 1 the closed form (= m1) is never below the searched global minimum."""
    a = sympy.exp(sympy.sympify(eps))
    for n in range(2, 41):
        cf = closed_form_m(n, eps)
        loc = local_search(absolute_loss(n).values[0], eps).m
        r = root_m1(n, a)
        v = r.evalf(60)
        near_int = abs(v - round(v)) < sympy.Float("1e-40") and sympy.simplify(r - round(v)) == 0
        if near_int:
            assert cf.m1 == loc + 1
        else:
            assert cf.m1 == loc
        if cf.branch == "eps>=1":
            assert cf.m >= global_search(absolute_loss(n), eps).m


def test_closed_form_disagrees_with_search_at_n10_eps1():
    """A disagreement, checked by hand: input 5 has sorted losses 0,1,1,2,2,3,3,4,4,5; the
    derivative numerators are e−16, e−16, 4e−9 (>0): local m = 3 < 4 = Algorithm 3's m1."""
    lm = absolute_loss(10)
    e = sympy.E
    assert (e - 16) < 0 and (4 * e - 9) > 0
    assert local_search(lm.values[4], 1).m == 3
    assert global_search(lm, 1).m == 3
    assert closed_form_m(10, 1).m == 4


def test_exact_floor_integral_and_irrational():
    assert exact_floor(sympy.sqrt(16) / 2) == 2
    assert exact_floor((sympy.sqrt(17) - 1) / 2) == 1
    assert exact_floor(sympy.E * 100) == 271


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: BipartiteRR(absolute_loss(5), 0), "epsilon"),
        (lambda: BipartiteRR(absolute_loss(5), 1, m=0), "m"),
        (lambda: BipartiteRR(absolute_loss(5), 1, m=6), "m"),
        (lambda: BipartiteRR(absolute_loss(5), 1, m_rule="magic"), "m_rule"),
        (lambda: BipartiteRR(absolute_loss(5), 1, reading="other"), "reading"),
        (lambda: BipartiteRR(jaccard_similarity(5), 1, m_rule="closed-form").resolved_m(), "closed-form"),
        (lambda: BipartiteRR([[0, 1, 2]], 1), "loss"),
        (lambda: BipartiteRR([[0, 1], [1]], 1), "rectangular"),
        (lambda: brr_channel(absolute_loss(4), 1, 2, tie_break="random"), "tie_break"),
        (lambda: closed_form_m(1, 1), "domain"),
        (lambda: closed_form_m(5, "-1"), "epsilon"),
        (lambda: local_search([0], 1), "row"),
    ],
)
def test_bad_parameters(build, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build()
