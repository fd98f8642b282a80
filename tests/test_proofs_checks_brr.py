"""brr claims (proofs_checks/brr/): each test recomputes a key number
independently — channels and local errors built by hand with fractions / numpy, the local search
by direct comparison of Q (not the derivative of eq. 9), limits in floats at large N, the LP with
scipy's linprog."""

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from scipy.optimize import linprog

import proofs_checks.catalogue as cat
from claim_runs import run




# -- independent references ------------------------------------------------------------------------


def dists(n: int, k: int) -> list[int]:
    """Sorted |k − y|, y = 1..N (k 1-indexed)."""
    return sorted(abs(k - y) for y in range(1, n + 1))


def q_top(srt, a, h):
    """Q (brr eq. 8) with the h smallest losses weighted a, the others 1."""
    n = len(srt)
    return (a * sum(srt[:h]) + sum(srt[h:])) / (h * a + n - h)


def local_m_by_q(lams, a):
    """Algorithm 1 without derivatives: raise s_{h+1} to a while that lowers Q."""
    srt = sorted(Fraction(x) for x in lams)
    h = 1
    while h < len(srt) and q_top(srt, a, h + 1) < q_top(srt, a, h):
        h += 1
    return h


def global_m_by_q(n, a):
    return min(local_m_by_q(dists(n, k), a) for k in range(1, n + 1))


def brr_rows(n, a, m):
    """eq. (7) by hand on |x − y| (ties: lower index first)."""
    Z = m * a + n - m
    rows = []
    for x in range(n):
        top = sorted(range(n), key=lambda y: (abs(x - y), y))[:m]
        rows.append([(a if y in top else 1) / Z for y in range(n)])
    return rows


def qg_float(n, a, m):
    """Q_g(BRR)/Q_g(GRR) and the local ratios in floats (numpy) for large N."""
    k = np.arange(n)
    lam = np.sort(np.abs(k[:, None] - k[None, :]), axis=1).astype(float)
    S, T = lam[:, :m].sum(axis=1), lam.sum(axis=1)
    qb = (a * S + T - S) / (m * a + n - m)
    qg = T / (a + n - 1)
    return qb.sum() / qg.sum(), (qb / qg).max(), (qb / qg).min()


# -- tests -----------------------------------------------------------------------------------------------


def test_equation_6_grr():
    v = run("brr.equation.6")
    assert v.certified and v.evidence["channels"] > 10
    from dpexact.ldp import GeneralizedRR

    ch = GeneralizedRR(2, "log(3)").channel("exact")
    assert [[Fraction(int(x.p), int(x.q)) for x in r] for r in ch.rows] == [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]


def test_equation_7_brr_m1_is_grr():
    v = run("brr.equation.7")
    assert v.certified and v.evidence["mismatches"] == []
    from dpexact.ldp import absolute_loss, brr_channel

    a = Fraction(3)
    got = brr_channel(absolute_loss(5), "log(3)", 2, "exact")
    assert [[Fraction(int(x.p), int(x.q)) for x in r] for r in got.rows] == brr_rows(5, a, 2)
    assert brr_rows(5, a, 1)[2] == [Fraction(1, 7), Fraction(1, 7), Fraction(3, 7), Fraction(1, 7), Fraction(1, 7)]


def test_equation_9_derivative_sign():
    v = run("brr.equation.9")
    assert v.certified
    lam = [Fraction(0), Fraction(2), Fraction(3), Fraction(7)]
    s = [Fraction(5), Fraction(2), Fraction(1), Fraction(3)]

    def Q(w):
        return sum(l * x for l, x in zip(lam, w)) / sum(w)

    for i in range(4):
        num = sum((lam[i] - lam[j]) * s[j] for j in range(4))
        for step in (Fraction(1, 3), Fraction(7)):
            w = list(s)
            w[i] += step
            assert (Q(w) > Q(s)) == (num > 0) and (Q(w) < Q(s)) == (num < 0)


def test_algorithm_1_local_optimum_is_bipartite():
    import itertools

    v = run("brr.algorithm.1")
    assert v.certified and v.evidence["rows"] >= 60
    lam, a = [Fraction(x) for x in (0, 1, 1, 2, 2, 3)], Fraction(3)
    best = min(sum(l * x for l, x in zip(lam, w)) / sum(w) for w in itertools.product((1, a), repeat=6))
    assert best == q_top(lam, a, local_m_by_q(lam, a))


def test_local_search_step_2_disagrees_with_algorithm_1():
    v = run("brr.text.local-search-step-2")
    assert v.certified
    ex = v.evidence["counterexample"]
    row, a = [Fraction(0), Fraction(1), Fraction(2)], Fraction(3)
    assert local_m_by_q(row, a) == ex["m_algorithm_1"] == 1 and ex["m_step_2"] == 2
    assert str(q_top(row, a, 1)) == ex["Q(m=1) = GRR"] == "3/5" and str(q_top(row, a, 2)) == ex["Q(m=2)"] == "5/7"


def test_algorithm_2_is_not_qg_optimal():
    v = run("brr.algorithm.2")
    assert v.certified
    ex = v.evidence["counterexample"]
    n, a = ex["N"], Fraction(ex["e^eps"])
    assert global_m_by_q(n, a) == ex["m_alg2"]

    def qg(m):
        rows = brr_rows(n, a, m)
        return sum(sum(p * abs(x - y) for y, p in enumerate(r)) for x, r in enumerate(rows)) / n

    assert str(qg(ex["m_alg2"])) == ex["Qg(m_alg2)"] and str(qg(ex["best_m"])) == ex["Qg(best)"]
    assert qg(ex["best_m"]) < qg(ex["m_alg2"])


def test_min_m_dominance_fails_with_a_vanishing_derivative():
    v = run("brr.text.min-m-dominance")
    assert v.certified
    n, a = 5, Fraction(2)
    assert global_m_by_q(n, a) == 1
    q1 = [q_top(dists(n, k), a, 1) for k in range(1, 6)]
    q2 = [q_top(dists(n, k), a, 2) for k in range(1, 6)]
    assert all(x <= y for x, y in zip(q2, q1)) and any(x < y for x, y in zip(q2, q1))
    assert v.evidence["counterexample"]["Q(larger m)"] == [str(x) for x in q2]


def test_figure_3_adjacent_rows():
    v = run("brr.figure.3")
    assert v.certified and v.evidence["comparisons"] > 1000
    up, lo = dists(9, 2), dists(9, 3)  # k − 1 = 2, k = 3: j0 = 2k − 2 = 4
    assert up[:4] == lo[:4] and all(u == l + 1 for u, l in zip(up[4:], lo[4:]))


def test_min_m_at_extreme_or_middle():
    v = run("brr.text.min-m-at-extreme-or-middle")
    assert v.certified and v.evidence["cases"] >= 2000
    a = Fraction(3, 2)
    for n in range(2, 31):
        ms = [local_m_by_q(dists(n, k), a) for k in range(1, n + 1)]
        assert min(ms) in (ms[0], ms[(n - 1) // 2])


def test_eps_ge_1_extreme_row_refuted():
    v = run("brr.text.eps-ge-1-extreme-row")
    assert v.certified
    a = Fraction(3)  # ε = log 3 > 1
    assert local_m_by_q(dists(5, 1), a) == 2 and local_m_by_q(dists(5, 3), a) == 1
    assert v.evidence["counterexample"]["local_m_middle"] == 1


def test_a1_extreme_m_integral_root():
    v = run("brr.appendix.a1-extreme-m")
    assert v.certified and v.evidence["all_mismatches_are_integral_roots"]
    i = sympy.symbols("i")
    roots = sympy.solve(2 * i**2 + 6 * i - 20, i)  # (a−1)i² + (2N−a+1)i − N(N+1), N = 4, a = 3
    assert 2 in roots
    row = [Fraction(x) for x in dists(4, 1)]
    assert q_top(row, Fraction(3), 2) == q_top(row, Fraction(3), 1) and local_m_by_q(row, Fraction(3)) == 1


def test_a1_middle_m_parity_rule():
    v = run("brr.appendix.a1-middle-m")
    assert v.certified and v.evidence["correct_rule_matches_search"]
    ex = v.evidence["counterexample"]
    n, a = ex["N"], 1.5
    i = math.floor((math.sqrt(a * (n * n - 1) + 1) - n) / (a - 1) + 1)
    assert (n, i, i + 1) == (3, 2, ex["m2"])
    assert local_m_by_q(dists(3, 2), Fraction(3, 2)) == ex["local_m_middle"] == 1


def test_algorithm_3_vs_search():
    v = run("brr.algorithm.3")
    assert v.certified
    agree, total = map(int, v.evidence["agreement"].split("/"))
    assert total == 8 * 299 and 0.6 < agree / total < 0.85
    assert v.evidence["closed_form_minus_search"] == {"1": total - agree}
    # N = 10, ε = 1 by floats (e^ε irrational: no ties): Algorithm 3 line 2 vs a float search on Q
    n, a = 10, math.e
    m1 = math.floor((math.sqrt(n * n * a + (1 - a) ** 2 / 4) - (n - a / 2 + 0.5)) / (a - 1))

    def lm(srt):
        h = 1
        while h < n and q_top(srt, a, h + 1) < q_top(srt, a, h):
            h += 1
        return h

    assert (m1, min(lm(dists(n, k)) for k in range(1, n + 1))) == (4, 3)


def test_theorem_1_1_limit():
    v = run("brr.theorem.1.1")
    assert v.certified
    row = v.evidence["search at large N"][0]
    n, u = row["N"], 2.0
    # extreme row's root (Algorithm 3 line 2) over N, in floats
    a = u * u
    r1 = (math.sqrt(n * n * a + (1 - a) ** 2 / 4) - (n - a / 2 + 0.5)) / (a - 1)
    assert abs(r1 / n - 1 / (u + 1)) < 2 / n and abs(row["m_search/N"] - 1 / 3) < 2 / n


def test_theorem_1_2_counterexamples():
    v = run("brr.theorem.1.2")
    assert v.certified
    a = sympy.Integer(3)
    for n in (4, 5):
        m1 = sympy.floor((sympy.sqrt(n * n * a + (1 - a) ** 2 / 4) - (n - a / 2 + sympy.Rational(1, 2))) / (a - 1))
        assert (int(m1), global_m_by_q(n, Fraction(3))) == (2, 1)


def test_theorem_1_3_ldp():
    v = run("brr.theorem.1.3")
    assert v.certified and v.evidence["violations"] == []
    P = np.array([[float(p) for p in r] for r in brr_rows(7, Fraction(3), 3)])
    assert P.max(axis=0).max() / P.min(axis=0).min() == pytest.approx(3.0, rel=1e-14)
    assert np.max(P.max(axis=0) / P.min(axis=0)) == pytest.approx(3.0, rel=1e-14)


def numerator(srt, i, a):
    """Σ_{j<i}(λ_i − λ_j)·a + Σ_{j>i}(λ_i − λ_j) (1-indexed i)."""
    return sum((srt[i - 1] - srt[j]) * a for j in range(i - 1)) + sum(srt[i - 1] - srt[j] for j in range(i, len(srt)))


@pytest.mark.parametrize("cid, n, k", [("brr.equation.14", 11, 1), ("brr.equation.15", 12, 6), ("brr.equation.16", 13, 7)])
def test_equations_14_15_16(cid, n, k):
    v = run(cid)
    assert v.certified and v.evidence["failures"] == []
    a = sympy.symbols("a")
    srt = dists(n, k)
    for i in range(2 if cid.endswith("14") else 3, n + 1, 1 if cid.endswith("14") else 2):
        if cid.endswith("14"):
            paper = (a - 1) / 2 * i**2 + (n - a / 2 + sympy.Rational(1, 2)) * i - sympy.Rational(n * n + n, 2)
        else:
            paper = (a - 1) / 4 * i**2 + (n - (a - 1)) * sympy.Rational(i, 2) + ((a - 1) - n * n - 2 * n + (n % 2)) / 4
        assert sympy.expand(numerator(srt, i, a) - paper) == 0


def test_equation_17_reversed_bound():
    v = run("brr.equation.17")
    assert v.certified
    n, a = 4, 4.0
    i1r = (math.sqrt(n * n * a + (1 - a) ** 2 / 4) - (n - a / 2 + 0.5)) / (a - 1)
    assert i1r == pytest.approx(float(v.evidence["counterexample"]["i1r"].split("≈")[1]), abs=1e-6)
    assert i1r > n * (math.sqrt(a) - 1) / (a - 1) == 4 / 3
    assert 2 * math.log((math.sqrt(5) + 1) / 2) == pytest.approx(0.9624, abs=5e-5)


def paper_inf(u):
    return u - (u - 1) / (u + 1) * (math.sqrt(u * u + 2 * u + 2) + 1)


def test_theorem_2_local_ratios():
    v = run("brr.theorem.2")
    assert v.certified and v.evidence["finite_violations"] == []
    # finite statement by hand: N = 24, e^ε = 3/2
    a = Fraction(3, 2)
    m = global_m_by_q(24, a)
    for k in range(1, 25):
        assert q_top(dists(24, k), a, m) <= q_top(dists(24, k), a, 1)
    # asymptotics in floats at N = 4001, u = 2 (m ≈ N/(u + 1))
    _, hi, lo = qg_float(4001, 4.0, 1334)
    assert hi == pytest.approx(2 / 3, abs=2e-3) and lo == pytest.approx(paper_inf(2.0), abs=2e-3)


def test_appendix_a2_case_formulas():
    v = run("brr.appendix.a2")
    assert v.certified and v.evidence["formulas_checked"] > 500
    n, m, a = 9, 5, Fraction(3)
    rows = brr_rows(n, a, m)
    for k in (1, 2, 5):  # n = k − 1 is the distance to the nearer edge: cases (3), (2), (1)
        nn = min(k - 1, n - k)
        q = sum(p * abs(k - 1 - y) for y, p in enumerate(rows[k - 1]))
        Z = n + (a - 1) * m
        T = Fraction((n - nn) * (n - nn - 1) + nn * (nn + 1), 2)
        if m - 1 <= 2 * nn:
            want = Fraction(m - 1, 2) * Fraction(m + 1, 2) * a / Z + (T - Fraction((m - 1) * (m + 1), 4)) / Z
        else:
            s2 = Fraction((m - 1 - nn) * (m - nn), 2)
            want = (s2 + Fraction(nn * (nn + 1), 2)) * a / Z + (Fraction((n - nn) * (n - nn - 1), 2) - s2) / Z
        assert q == want


def test_theorem_3_wrong_limit():
    v = run("brr.theorem.3")
    assert v.certified
    assert v.evidence["counterexample"] == {"eps": "2 log 2", "paper_limit": "5/8", "true_limit": "23/36"}
    ratio, _, _ = qg_float(4001, 4.0, 1334)
    assert abs(ratio - 23 / 36) < 1.5e-3 and ratio - 5 / 8 > 0.012


def test_equation_18_coefficient():
    v = run("brr.equation.18")
    assert v.certified
    u, a = 2.0, 4.0
    c = 1 / (u + 1)
    D = 1 + (a - 1) * c
    paper = ((1 - c) * (c * c * (a - 1) + 2) + c * c) / (4 * D) - 1 / (6 * D) + c * (a + (a - 1) * (c * c - 1)) / (2 * D) - c * c * (a + (c - 1) * (a - 1)) / (4 * D)
    assert paper == pytest.approx(5 / 24, rel=1e-12)
    # the sums displayed in (18), numerically at N = 30001, c = 1/3, divided by N²
    N = 30001
    M = int((c * N - 1) / 2)
    n1 = np.arange(0, M + 1, dtype=float)
    s1 = ((N - 2 * n1 + 2 * n1**2 / N) * a + N * (c - 1) * (c + 1 - 2 * n1 / N) * (a - 1)).sum() / D
    n2 = np.arange(M + 1, (N - 1) // 2 + 1, dtype=float)
    s2 = (N / (2 * D) * (c * c * (a - 1) + 2 - 4 * n2 / N + 4 * n2**2 / N**2)).sum()
    assert (s1 + s2) / N**2 == pytest.approx(23 / 108, abs=2e-4)


def test_theorem_4_general_domains():
    v = run("brr.theorem.4")
    assert v.certified and v.evidence["cases_with_m>1"] > 5
    rng = np.random.default_rng(2024)
    a = Fraction(3)
    L = [[Fraction(int(x)) for x in r] for r in rng.integers(0, 7, size=(6, 6))]
    m = min(local_m_by_q(r, a) for r in L)
    for x, r in enumerate(L):
        srt = sorted(r)
        grr = (a * r[x] + sum(r) - r[x]) / (a + 5)
        assert q_top(srt, a, m) <= grr


def test_globally_optimal_refuted_by_lp():
    v = run("brr.text.globally-optimal")
    assert v.certified
    ex = v.evidence["counterexample"]
    n, a = ex["N"], float(Fraction(ex["e^eps"]))
    c = np.array([abs(x - y) / n for x in range(n) for y in range(n)])
    A_eq = np.kron(np.eye(n), np.ones(n))
    rows = []
    for y in range(n):
        for x in range(n):
            for x2 in range(n):
                if x != x2:
                    r = np.zeros(n * n)
                    r[x * n + y], r[x2 * n + y] = 1, -a
                    rows.append(r)
    res = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=A_eq, b_eq=np.ones(n), bounds=(0, None), method="highs")
    assert res.status == 0 and res.fun == pytest.approx(float(Fraction(ex["Qg_optimal_LDP"])), abs=1e-9)
    assert res.fun < float(Fraction(ex["Qg_BRR"])) - 1e-3


def test_exponential_improvement():
    v = run("brr.text.exponential-improvement")
    assert v.certified
    us = np.linspace(1.01, 1000, 20000)
    assert np.all(us * (7 * us + 9) / (4 * (us + 1) ** 2) <= 7 / 4)


def test_grr_qloss_is_bounded():
    v = run("brr.text.grr-qloss-explodes")
    assert v.certified
    n, a = 100, 10.0
    P = np.full((n, n), 1 / (a + n - 1))
    np.fill_diagonal(P, a / (a + n - 1))
    D = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    qloss = (P * D).sum() / (n * (n - 1))
    assert qloss == pytest.approx(101 / 327, rel=1e-12) and qloss < 1 / 3


def test_figure_1_asymptote():
    v = run("brr.figure.1")
    assert v.certified and v.figure is not None
    for row in v.evidence["rows"]:
        u = float(Fraction(row["u"]))
        assert row["true_limit"] == pytest.approx((7 * u + 9) / (4 * (u + 1) ** 2))
        assert row["paper_asym"] == pytest.approx((7 * u + 1) / (4 * u * (u + 1)))
    ratio, _, _ = qg_float(1001, 4.0, 333)  # m ≈ N/(e^{ε/2} + 1)
    assert ratio == pytest.approx(v.evidence["counterexample"]["exact ratio at N=1001"], abs=2e-3)


def test_ratio_half_at_eps_2():
    v = run("brr.text.ratio-half-at-eps-2")
    assert v.certified
    u = math.e
    assert (7 * u + 9) / (4 * (u + 1) ** 2) == pytest.approx(v.evidence["true_limit_at_eps_2"], rel=1e-12)
    assert round((7 * u + 9) / (4 * (u + 1) ** 2), 1) == 0.5 == round((7 * u + 1) / (4 * u * (u + 1)), 1)


def test_figure_4_em_and_m_one():
    v = run("brr.figure.4")
    assert v.certified
    assert global_m_by_q(20, Fraction(100)) == 1  # BRR ≡ GRR at N = 20, ε = log 100
    row = next(t for t in v.evidence["table"] if t["N"] == 20 and t["eps"] == "2")
    n, eps = 20, 2.0
    D = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    W = np.exp(-eps * D / (2 * (n - 1)))
    P = W / W.sum(axis=1, keepdims=True)
    assert (P * D).sum() / (n * (n - 1)) == pytest.approx(row["EM"], rel=1e-12)
    assert row["BRR"] < row["GRR"] and row["BRR"] < row["EM"]


def test_figure_5_jaccard():
    v = run("brr.figure.5")
    assert v.certified
    n, eps = 20, 0.5
    x = np.arange(1, n + 1, dtype=float)
    J = np.outer(x, x) / (x[:, None] ** 2 + x[None, :] ** 2 - np.outer(x, x))
    delta = (J.max(axis=0) - J.min(axis=0)).max()
    W = np.exp(eps * (J - J.max(axis=1, keepdims=True)) / (2 * delta))
    P = W / W.sum(axis=1, keepdims=True)
    row = next(t for t in v.evidence["table"] if t["N"] == 20 and t["eps"] == "1/2")
    assert (P * J).sum() / n == pytest.approx(row["EM"], rel=1e-12)
    a = math.exp(eps)
    G = np.full((n, n), 1 / (a + n - 1))
    np.fill_diagonal(G, a / (a + n - 1))
    assert (G * J).sum() / n == pytest.approx(row["GRR"], rel=1e-12)
    assert row["BRR"] > row["GRR"] and row["BRR"] > row["EM"]


def test_discretisation_end_to_end_error():
    v = run("brr.text.discretisation-n")
    assert v.certified
    ex = v.evidence["counterexample"]
    a = float(Fraction(ex["e^eps"]))

    def e2e(n, m):  # midpoint rule in x on [0, 1]
        xs = (np.arange(200000) + 0.5) / 200000
        grid = np.linspace(0, 1, n)
        idx = np.argmin(np.abs(xs[:, None] - grid[None, :]), axis=1)
        P = np.array([[float(p) for p in r] for r in brr_rows(n, Fraction(ex["e^eps"]), m)])
        return float(np.mean((P[idx] * np.abs(xs[:, None] - grid[None, :])).sum(axis=1)))

    lo, hi = e2e(ex["from_N"], ex["m"]), e2e(ex["to_N"], ex["m_then"])
    assert lo == pytest.approx(float(Fraction(ex["error_from"])), rel=1e-6) and hi == pytest.approx(float(Fraction(ex["error_to"])), rel=1e-6)
    assert hi / lo > 1.2 and a == 100


@pytest.mark.parametrize("cid", ["brr.figure.6", "brr.text.lbs-improvements", "brr.text.gbdt-rmse", "brr.text.sgd-accuracy", "brr.text.dnn-accuracy"])
def test_external_data_claims_are_inconclusive(cid):
    v = run(cid)
    assert not v.certified and "not reproducible offline" in v.evidence["reason"]


def test_every_brr_claim_is_encoded():
    ids = [c.id for c in cat.catalogue(["brr"])]
    for needed in ("brr.theorem.1.1", "brr.theorem.1.2", "brr.theorem.1.3", "brr.theorem.2", "brr.theorem.3", "brr.theorem.4",
                   "brr.algorithm.1", "brr.algorithm.2", "brr.algorithm.3", "brr.text.globally-optimal", "brr.figure.1"):
        assert needed in ids
    assert len(ids) == len(set(ids)) >= 38
