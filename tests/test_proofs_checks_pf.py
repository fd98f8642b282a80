"""pf claims (proofs_checks/pf/): each test recomputes a key number
independently (sequential PF recursion, numpy softmax EM, closed forms, scipy quadrature)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from test_proofs_checks_reference import coins, em_pmf, em_probs, eq7, eq8, pf_pmf_sequential, pf_probs, total_error
from test_proofs_checks_reference import solve_regular_lp as solve_regular_lp_ref
from claim_runs import run



def _mid(ball: str) -> float:
    """Midpoint of an arb ball printed as '[m +/- r]'."""
    return float(ball.strip("[]").split("+/-")[0])



def test_proposition_1_em_utility_bound():
    v = run("pf.proposition.1")
    assert v.certified
    assert 0 < v.evidence["max E/((2Δ/ε) log n)"] < 1
    # independent: worst case of eq. (7) over p stays below log n (units 2Δ/ε)
    ps = np.logspace(-8, 0, 4000)[:-1]
    for n in (2, 3, 10, 1000):
        assert max(eq7(n, p) for p in ps) < math.log(n)


def test_corollary_1_pf_utility_bound():
    v = run("pf.corollary.1")
    assert v.certified
    ps = np.logspace(-8, 0, 4000)[:-1]
    for n in (2, 5, 100):
        assert max(eq8(n, p) for p in ps) < math.log(n)


def test_theorem_1_pf_is_dp():
    v = run("pf.theorem.1")
    assert v.certified
    assert v.evidence["exact_max_ratio/e^eps"] == "1"  # the bound is attained
    # independent: sequential PF on q = (0, −1, −3) at ε = 2 log 2; worst neighbour of r = 2 is q + 2Δ e_r
    P = pf_pmf_sequential(coins((0, -1, -3)))
    P2 = pf_pmf_sequential(coins((0, -1, -1)))
    assert P2[2] / P[2] == 4  # = e^ε exactly, since q_r ≤ q* − 2Δ (pf §3)
    P3 = pf_pmf_sequential(coins((0, -1, 1)))  # r = 1 becomes the maximum: inequality strict
    assert P3[2] / pf_pmf_sequential(coins((0, -1, -1)))[2] <= 4


def test_proposition_2_worst_neighbour():
    v = run("pf.proposition.2")
    assert v.certified and v.evidence["neighbour_pairs"] > 1000
    # independent (EM softmax): the corner neighbour ratio equals the ratio for q + 2Δ e_r
    q, r, eps = np.array([0.0, -0.7, -2.0]), 1, 1.3
    corner = q + np.where(np.arange(3) == r, 1.0, -1.0)
    shifted = q + 2.0 * (np.arange(3) == r)
    assert em_pmf(corner, eps)[r] == pytest.approx(em_pmf(shifted, eps)[r], rel=1e-14)


def test_proposition_3_recurrence():
    v = run("pf.proposition.3")
    assert v.certified and v.evidence["exact_checked"] > 100
    q = (0, -2, -1, 0)
    P = pf_pmf_sequential(coins(q))
    Pup = pf_pmf_sequential(coins((0, 0, -1, 0)))
    assert P[1] == Fraction(1, 4) * Pup[1]
    assert P[0] == P[3] == (1 - P[1] - P[2]) / 2


def test_theorem_2_dominance():
    v = run("pf.theorem.2")
    assert v.certified and v.evidence["counterexamples"] == []
    q = (0, -1, -1, -3)
    pf = [float(x) for x in pf_pmf_sequential(coins(q))]
    em = em_pmf(q, 2 * math.log(2))
    gaps = -np.array(q, float)
    for t in (1, 3):
        assert sum(p for p, g in zip(pf, gaps) if g >= t) <= sum(p for p, g in zip(em, gaps) if g >= t)


@pytest.mark.parametrize("eq", ["7", "8"])
def test_equations_7_8(eq):
    v = run(f"pf.equation.{eq}")
    assert v.certified and v.evidence["checked"] > 0
    n, c = 4, -3  # ε = 2 log 2: p = 2^c, (2Δ/ε) log(1/p) = −c
    q = (c,) * (n - 1) + (0,)
    P = pf_pmf_sequential(coins(q)) if eq == "8" else [Fraction(x).limit_denominator(10**9) for x in em_pmf(q, 2 * math.log(2))]
    E = float(sum(p * (-s) for p, s in zip(P, q)))
    closed = (eq7 if eq == "7" else eq8)(n, 2.0**c) / math.log(2)  # (2Δ/ε) = 1/log 2
    assert E == pytest.approx(closed, rel=1e-8)


def test_proposition_4_worst_case_family():
    v = run("pf.proposition.4")
    assert not v.certified
    row = next(r for r in v.evidence["rows"] if r["n"] == 3 and r["mechanism"] == "em")
    # independent: coarse grid of EM errors on (0, a, b) never beats the family maximum
    best = 0.0
    for a in np.linspace(0, 12, 61):
        for b in np.linspace(0, 12, 61):
            q = np.array([0.0, -a, -b])
            best = max(best, float(em_pmf(q, 1.0) @ (-q)))
    lo, hi = row["family_max"]
    assert best <= hi + 1e-12 and row["search_max (arb)"] <= hi
    ps = np.linspace(1e-4, 1, 20000)
    assert 2 * max(eq7(3, p) for p in ps[:-1]) == pytest.approx(lo, rel=1e-6)  # grid max ≈ the rigorous max
    assert "why_not_certified" in v.evidence


def test_proposition_5_lower_bound():
    v = run("pf.proposition.5")
    assert v.certified
    n = np.arange(2, 10**5)
    assert np.all((1 - 1 / n) ** n >= 0.25 - 1e-15)
    for nn in (2, 10, 1000):
        assert eq8(nn, 1 / nn) >= math.log(nn) / 4  # units 2Δ/ε: (Δ/(2ε)) log n = (2Δ/ε) log(n)/4
    assert v.evidence["pmf"][0]["E_PF"] == str(Fraction(1, 4))  # n = 2: log n · (1/2)^2 / log 2 with ε = 2 log 2


def test_lemmas_1_2_pmf_formulas():
    for cid in ("pf.lemma.1", "pf.lemma.2"):
        v = run(cid)
        assert v.certified and v.evidence["checked"] > 100
    p = coins((0, -1, -2, -2))
    P = pf_pmf_sequential(p)
    # Lemma 2 for r = 3 written out by hand: others {0,1,2}
    others = [p[0], p[1], p[2]]
    s = 1 - sum(others) / 2 + (others[0] * others[1] + others[0] * others[2] + others[1] * others[2]) / 3 - others[0] * others[1] * others[2] / 4
    assert P[3] == p[3] * s


def test_lemma_3_regularity():
    v = run("pf.lemma.3")
    assert v.certified and v.evidence["monotone"] > 100
    P = pf_pmf_sequential(coins((0, -2, -1)))
    Q = pf_pmf_sequential(coins((-1, 0, -2)))  # permutation (1,2,0) of the scores
    assert [Q[1], Q[2], Q[0]] == [P[0], P[1], P[2]]


def test_lemma_4_g_monotone():
    v = run("pf.lemma.4")
    assert v.certified
    p = coins((0, -1, -3, -2))
    P = pf_pmf_sequential(p)
    g = [x / y for x, y in zip(P, p)]
    assert g[2] <= g[3] <= g[1] <= g[0]


def test_lemma_5_partial_sums():
    v = run("pf.lemma.5")
    assert v.certified and v.evidence["partial_sums"] > 100
    f = np.sort(np.random.default_rng(0).normal(size=50))
    f -= f.mean()
    assert np.all(np.cumsum(f) <= 1e-12)


def test_lemma_7_threshold():
    import mpmath

    v = run("pf.lemma.7")
    assert v.certified and v.evidence["intro_'≈ 0.96'_matches"]
    t = v.evidence["threshold_float"]
    assert round(math.log((3 + math.sqrt(5)) / 2), 2) == 0.96
    assert t == pytest.approx(math.log((3 + math.sqrt(5)) / 2), rel=1e-15)
    s = lambda e: mpmath.nsum(lambda k: k * mpmath.exp(-k * e), [1, mpmath.inf])  # noqa: E731
    assert s(t - 1e-6) > 1 > s(t + 1e-6)


def test_remark_1_monotone():
    v = run("pf.remark.1")
    assert v.certified
    # independent: q = (0, −3), r = 1 moved up by Δ = 1: ratio e^{ε/2} = 2 exactly at ε = 2 log 2
    P = pf_pmf_sequential(coins((0, -3)))
    Q = pf_pmf_sequential(coins((0, -2)))
    assert Q[1] / P[1] == 2


def test_figure_1b_ratio_between_one_and_two():
    v = run("pf.text.fig1b-ratio-between-one-and-two")
    assert v.certified
    assert 1 <= v.evidence["min_ratio"] and v.evidence["max_ratio"] <= 2
    for p in (1e-3, 0.3, 0.9):
        assert eq7(2, p) / eq8(2, p) == pytest.approx(2 / (1 + p), rel=1e-9)


def test_figure_1b_limits():
    import mpmath

    v = run("pf.text.fig1b-ratio-limit-p-to-zero")
    assert v.certified
    with mpmath.workdps(50):
        p = mpmath.mpf("1e-12")
        r = (1 - 1 / (1 + 4 * p)) / (1 - (1 - (1 - p) ** 5) / (5 * p))
        assert abs(r - 2) < 1e-9
    v = run("pf.text.fig1b-ratio-limit-n-to-infinity")
    assert v.certified and v.evidence["p_decreases_with_n"]
    assert v.evidence["p_for_ratio"]["1.5"][0] == pytest.approx(1 / 3, rel=1e-9)  # n = 2: 2/(1+p) = 1.5
    # independent: the float root of R_3(p) = 1.5 lies in the rigorous bracket for n = 3
    from scipy.optimize import brentq

    lo, hi = v.evidence["brackets"]["3/2"][1]
    root = brentq(lambda p: eq7(3, p) / eq8(3, p) - 1.5, 1e-6, 0.99, xtol=1e-15)
    assert lo - 1e-12 <= root <= hi + 1e-12 and root == pytest.approx((5 - math.sqrt(17)) / 4, rel=1e-9)  # R_3 = 6/((3−p)(1+2p))
    with mpmath.workdps(50):
        n, p = 10**6, mpmath.mpf("0.1")
        assert abs((1 - 1 / (1 + (n - 1) * p)) / (1 - (1 - (1 - p) ** n) / (n * p)) - 1) < 1e-4


def test_figure_1a():
    v = run("pf.figure.1")
    assert v.certified and v.figure is not None
    ps = np.linspace(1e-3, 1, 1000)[:-1]
    assert all(eq7(3, p) > eq8(3, p) for p in ps)


def test_figure_1c_worst_case_ratio():
    v = run("pf.text.fig1c-worst-case-ratio")
    assert v.certified
    row2 = v.evidence["rows"][0]
    lo, hi = row2["ratio_enclosure"]
    assert lo <= row2["worst_EM"] / row2["worst_PF"] * (1 + 1e-6) and row2["worst_EM"] / row2["worst_PF"] <= hi * (1 + 1e-6)
    # the analytic bound for every n >= 10^4: 1/((1 − log(x0)/x0)(1 − 1/x0)), x0 = log 10^4
    x0 = math.log(10**4)
    assert v.evidence["bound_for_all_n>=1e4"] == pytest.approx(1 / ((1 - math.log(x0) / x0) * (1 - 1 / x0)), rel=1e-12)
    assert v.evidence["bound_for_all_n>=1e4"] < lo
    # n = 2 in closed form: PF error (2Δ/ε) log(1/p) p/2, max at p = 1/e: 1/e; EM: max of 2 log(1/p) p/(1+p)
    assert row2["worst_PF"] == pytest.approx(1 / math.e, rel=1e-9)
    ps = np.linspace(1e-4, 1, 200001)[:-1]
    assert row2["worst_EM"] == pytest.approx(max(2 * eq7(2, p) for p in ps), rel=1e-7)


def test_never_observed_ratio_above_two():
    v = run("pf.text.never-observed-ratio-above-two")
    assert not v.certified and "why_not_certified" in v.evidence
    assert 1.9 < v.evidence["largest_ratio_found"] <= 2 + 1e-9
    assert all(r["proven_<=2"] for r in v.evidence["ball_recheck_of_best_points"].values())
    q = np.array([0.0, -40.0])
    pf = np.array([1 - 0.5 * math.exp(-20), 0.5 * math.exp(-20)])  # n = 2: Pr[PF = 1] = p/2
    assert (em_pmf(q, 1.0) @ -q) / (pf @ -q) <= 2


@pytest.fixture()
def hepth_env(dpbench_path, monkeypatch):
    monkeypatch.setenv("DPEXACT_DPBENCH", str(dpbench_path))
    from dpexact.data import load_dpbench

    return load_dpbench("HEPTH", dpbench_path)


def _em_error(q, eps):
    q = np.asarray(q, float)
    return float(em_pmf(q, eps) @ (q.max() - q))


def _pf_error_recurrence(q, eps):
    import dpexact

    from fractions import Fraction

    q = np.asarray(q, float)
    # the float ε's exact binary value, the same number em_pmf uses (a float would warn about its decimal)
    p = dpexact.mechanism("pf", epsilon=Fraction(eps)).pmf(q, method="recurrence").to_float()
    return float(p @ (q.max() - q))


def test_hepth_mode_claims(hepth_env):
    x = hepth_env
    v = run("pf.text.hepth-mode-ratio")
    assert v.certified and any("doubled" in k for k in v.evidence["reproduces_paper"])
    assert v.evidence["rounds_to_paper (ball)"]["counts (text, ε/(2Δ))"] is False
    ratio_doubled = _em_error(2 * x, 0.04) / _pf_error_recurrence(2 * x, 0.04)
    ratio_counts = _em_error(x, 0.04) / _pf_error_recurrence(x, 0.04)
    assert round(ratio_doubled, 2) == 1.84 and round(ratio_counts, 2) == 1.57
    v = run("pf.text.hepth-mode-pf-error")
    assert v.certified and v.evidence["reproduces_paper"] == []
    assert _pf_error_recurrence(2 * x, 0.04) == pytest.approx(5.3227, abs=1e-3)
    v = run("pf.text.hepth-mode-budget")
    assert v.certified
    factor = next(val for k, val in v.evidence["computed"].items() if "doubled" in k)
    assert _em_error(2 * x, 0.04 * factor) == pytest.approx(_pf_error_recurrence(2 * x, 0.04), rel=1e-8)


def test_hepth_median_claims(hepth_env):
    x = hepth_env
    # independent median quality (pf authors' formula): d_r = max(0, 2L − N + 1, N − 2(L + x_r))
    N, L = x.sum(), np.concatenate([[0], np.cumsum(x)[:-1]])
    q = -np.maximum(0, np.maximum(2 * L - N + 1, N - 2 * (L + x)))
    pf_err, em_err = _pf_error_recurrence(q, 0.01), _em_error(q, 0.01)
    for cid in ("pf.text.hepth-median-ratio", "pf.text.hepth-median-pf-error", "pf.text.hepth-median-budget"):
        assert run(cid).certified
    comp = run("pf.text.hepth-median-pf-error").evidence["computed"]["lower median (text)"]
    assert comp == pytest.approx(pf_err, rel=1e-9) and round(pf_err, 2) == 17.23
    assert round(em_err / pf_err, 3) == 1.909
    f = run("pf.text.hepth-median-budget").evidence["computed"]["lower median (text)"]
    assert _em_error(q, 0.01 * f) == pytest.approx(pf_err, rel=1e-8) and round(f, 2) == 1.20


def test_figure_3_hepth_mode_range(hepth_env):
    v = run("pf.figure.3")
    assert v.certified
    x = hepth_env
    assert _em_error(2 * x, 0.3) / _pf_error_recurrence(2 * x, 0.3) > 1.9
    e_last = float(v.evidence["epsilon_range"][1])
    assert _em_error(x, e_last) / _pf_error_recurrence(x, e_last) == pytest.approx(_mid(v.evidence["ratio_last"]), rel=1e-9)
    assert _pf_error_recurrence(x, e_last) == pytest.approx(1.0, rel=1e-6)  # the grid ends where E_PF = 1


def _rnm_laplace_scipy(c: float, n: int = 3, b: float = 2.0) -> float:
    F = lambda x: 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)  # noqa: E731
    f = lambda x: math.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    P = sum(integrate.quad(lambda x: f(x) * F(x - c) ** (n - 1), a, z, epsabs=1e-14, epsrel=1e-13)[0]
            for a, z in ((-np.inf, c), (c, 0), (0, np.inf)))
    return -c * (1 - P)


def test_appendix_f_integral():
    v = run("pf.appendix.f")
    assert v.certified
    row = next(r for r in v.evidence["rows"] if r["c"] == "-2" and r["n"] == 3)
    assert row["rnm-laplace (arb)"] == pytest.approx(_rnm_laplace_scipy(-2.0), rel=1e-10)
    # the closed form reported for n = 3, evaluated independently, against scipy quadrature
    b, c = 2.0, -2.0
    closed = c * (-b * math.exp(c / b) - 7 * b + 6 * c) * math.exp(c / b) / (12 * b)
    assert v.evidence["symbolic"][3]["E"] == "c*(-b*exp(c/b) - 7*b + 6*c)*exp(c/b)/(12*b)"
    assert closed == pytest.approx(_rnm_laplace_scipy(c), rel=1e-10) and row["closed_form"] == pytest.approx(closed, rel=1e-12)
    assert v.evidence["symbolic"][3]["depends_only_on_p"]


def test_figure_4_rnm_em_pf():
    v = run("pf.figure.4")
    assert v.certified
    em = lambda c: 2 * eq7(3, math.exp(c / 2))  # noqa: E731  ε = Δ = 1: p = e^{c/2}, units 2
    pf = lambda c: 2 * eq8(3, math.exp(c / 2))  # noqa: E731
    assert _rnm_laplace_scipy(-0.5) < em(-0.5) and _rnm_laplace_scipy(-8.0) > em(-8.0)
    assert pf(-0.5) < _rnm_laplace_scipy(-0.5) and pf(-8.0) < em(-8.0)


# -- new and LP-backed claims ----------------------------------------------------------------------


def test_equation_5_lattice_recurrence():
    v = run("pf.equation.5")
    assert v.certified and v.evidence["probabilities_compared"] > 100
    # independent: recurrence (5) unrolled by hand on levels (0, 1, 2) with ρ = e^{−ε} = 1/2 (each step raises r by 2Δ)
    rho = Fraction(1, 2)
    z_001 = rho * Fraction(1, 3)  # (0,0,1): the level-1 item, raised once, is one of three maxima
    z_011 = rho * (1 - z_001) / 2  # (0,1,1): a level-1 item, raised, is one of the two maxima of (0,0,1)
    z_002 = rho * z_001  # (0,0,2): the level-2 item, raised, is the level-1 item of (0,0,1)
    z2 = rho * z_011  # (0,1,2): the level-2 item, raised, is a level-1 item of (0,1,1)
    z1 = rho * (1 - z_002) / 2  # (0,1,2): the level-1 item, raised, is a maximum of (0,0,2)
    assert (z1, z2) == (Fraction(11, 48), Fraction(5, 48))
    assert pf_probs((0, 1, 2), 2) == [1 - z1 - z2, z1, z2]


def test_algorithms_2_3():
    v2, v3 = run("pf.algorithm.2"), run("pf.algorithm.3")
    assert v2.certified and v3.certified and v3.evidence["vectors"] > 50
    # Algorithm 2 as an absorbing chain solved by numpy: x_r = p_r/n + (1 − A) x_r
    q = np.array([0.0, -1.0, -3.0, -2.0])
    p = np.exp(q - q.max())
    n = q.size
    x = np.linalg.solve(np.eye(n) * (1 - (1 - p.sum() / n)), p / n)
    assert x == pytest.approx(em_pmf(q, 2.0), rel=1e-12)
    # Algorithm 3 (the sequential reference) equals Lemma 1's permutation average on one vector
    import itertools

    pc = coins((0, -1, -2, -2))
    perm_avg = [sum(pc[r] * math.prod(1 - pc[s] for s in range(4) if pi.index(s) < pi.index(r)) for pi in itertools.permutations(range(4))) / 24
                for r in range(4)]
    assert perm_avg == pf_pmf_sequential(pc)


def test_appendix_e_dynamic_programme():
    v = run("pf.appendix.e")
    assert v.certified and v.evidence["recurrence_steps_by_n"][5] == 50
    # independent float implementation of App. E on a random vector, against the sequential recursion
    rng = np.random.default_rng(3)
    q = -rng.integers(0, 5, size=7).astype(float)
    q[0] = 0.0
    p = np.exp(q)
    n = p.size
    S = np.zeros((n + 1, n + 1))
    S[0, :] = 1
    for k in range(1, n + 1):
        for r in range(1, n + 1):
            S[k, r] = S[k, r - 1] + p[r - 1] * S[k - 1, r - 1]
    probs = []
    for r in range(n):
        T = [1.0]
        for k in range(1, n + 1):
            T.append(S[k, n] - p[r] * T[-1])
        probs.append(p[r] * sum((-1) ** k / (k + 1) * T[k] for k in range(n + 1)))
    ref = [float(x) for x in pf_pmf_sequential(tuple(p))]
    assert probs == pytest.approx(ref, abs=1e-12)


def test_theorem_3_overall_optimality():
    v = run("pf.theorem.3")
    assert v.certified and v.evidence["violations"] == []
    # independent: the unreduced LP with scipy linprog; its optimum is PF's total at ε = log 3 (above the threshold)
    for n, k, a in ((3, 2, 3), (3, 3, Fraction(21, 8))):
        res, _, _ = solve_regular_lp_ref(n, k, a)
        assert res.fun == pytest.approx(float(total_error(pf_probs, n, k, a)), rel=1e-9)
    # ε*(3,3): the root of ρ + 2ρ² + 3ρ³ = 1 (finite Lemma 7), below log((3+√5)/2)
    rho = min(r.real for r in np.roots([3, 2, 1, -1]) if abs(r.imag) < 1e-12 and r.real > 0)
    assert v.evidence["eps_star(n,k)"]["3,3"] == pytest.approx(-math.log(rho), rel=1e-12)
    assert -math.log(rho) < math.log((3 + math.sqrt(5)) / 2)


def _pf_error_rows(vecs, var, a, n):
    rows = []
    for v in vecs:
        e = float(sum(p * l for p, l in zip(pf_probs(v, a), v)))
        rows.append(({var(v, r): float(v[r]) for r in range(n) if v[r]}, e + 1e-12))
    return rows


def test_proposition_6_pareto():
    v = run("pf.proposition.6")
    assert v.certified and v.evidence["counterexamples"] == []
    assert v.evidence["instances_where_PF_is_not_overall_optimal"] > 0  # the interesting regime is covered
    # independent: below the threshold (ε = log 5/4) a mechanism beats PF on average on Q(3,3) ...
    n, k, a = 3, 3, Fraction(5, 4)
    free, _, _ = solve_regular_lp_ref(n, k, a)
    pf_total = float(total_error(pf_probs, n, k, a))
    assert free.fun < pf_total * (1 - 1e-4)
    # ... but not without being worse somewhere: adding E[err(M,q)] ≤ E[err(PF,q)] ∀q brings the optimum back to PF's total
    res, _, _ = solve_regular_lp_ref(n, k, a, extra_ub=lambda vecs, var: _pf_error_rows(vecs, var, a, n))
    assert res.fun == pytest.approx(pf_total, rel=1e-7)
    assert all(c["optimum/EM_total"] < 1 for c in v.evidence["control_EM_in_place_of_PF_(must_be_<1)"].values())


def test_lemma_6():
    v = run("pf.lemma.6")
    assert v.certified and v.evidence["exact_LPs"] == v.evidence["min_equals_PF"] > 20
    # independent: min Pr[M(q)=r] over the LP with PF's errors as caps equals PF's probability, for a few (q, r)
    n, k, a = 3, 2, Fraction(5, 4)
    for levels, r in (((0, 1, 2), 2), ((0, 0, 1), 2), ((0, 2, 2), 1)):
        _, vecs, var = solve_regular_lp_ref(n, k, a)
        res, _, _ = solve_regular_lp_ref(n, k, a, extra_ub=lambda vecs, var: _pf_error_rows(vecs, var, a, n), objective={var(levels, r): 1.0})
        assert res.fun == pytest.approx(float(pf_probs(levels, a)[r]), rel=1e-7)


def test_equation_10_dual_bounds():
    v = run("pf.equation.10")
    assert v.certified and v.evidence["violations"] == []
    # independent: pf's recurrence on the vector (0, 0, −2Δ) at ε = log 2, k = 3 (below the threshold): n_* y = −Σ t ρ^t = −11/8 < −1
    rho = Fraction(1, 2)
    y = -Fraction(1, 2) * sum(rho**t * t for t in range(1, 4))  # y_r(q − 2Δ t e_r) = t (single zero left)
    assert 2 * y == Fraction(-11, 8) and v.evidence["example_below_threshold_log2_n3_k3_y0*n_*"]["(2, 1, 0, 0)"] == "-11/8"


def test_figure_2_pf_optimality_ratio():
    v = run("pf.figure.2")
    assert v.certified and v.figure is not None
    best = v.evidence["largest_below_threshold"]
    assert round(best["ratio_enclosure"][1], 2) == 1.01
    # independent: the largest ratio in the quick scope, recomputed with linprog on the unreduced LP
    n, k = best["n"], best["k"]
    a = Fraction(best["epsilon"][4:-1])
    res, _, _ = solve_regular_lp_ref(n, k, a)
    ratio = float(total_error(pf_probs, n, k, a)) / res.fun
    assert best["ratio_enclosure"][0] - 1e-8 <= ratio <= best["ratio_enclosure"][1] + 1e-8


def test_figure_2_k_and_n_dependence():
    v = run("pf.text.fig2-pf-ratio-k-n")
    assert v.certified and v.evidence["decreases_in_k"] == []
    a = Fraction(3, 2)
    r = []
    for k in (1, 2, 3):
        res, _, _ = solve_regular_lp_ref(3, k, a)
        r.append(float(total_error(pf_probs, 3, k, a)) / res.fun)
    assert r[0] == pytest.approx(1.0, abs=1e-9) and r[0] < r[1] < r[2] < 1.01
    assert v.evidence["max_ratio(n,k)"]["3,3"] >= r[2] - 1e-9


def test_figure_2_em_ratio():
    v = run("pf.text.fig2-em-ratio")
    assert v.certified
    # ε → ∞ limit on Q(3,1) counted by hand: one zero: 3 vectors × 2 ones; two zeros: 3 vectors × 1 one
    num = 3 * 2 / 1 + 3 * 1 / 2  # Σ (#level-1 items)/n_*
    den = 3 * 2 / 2 + 3 * 1 / 3  # Σ (#level-1 items)/(n_* + 1)
    assert v.evidence["eps_to_inf_limits"][3]["eps_to_inf_by_k"][1] == pytest.approx(num / den) == pytest.approx(1.875)
    # at ε = log 100 PF is optimal (Theorem 3), so EM's ratio is EM's total over PF's
    a = Fraction(100)
    r = float(total_error(em_probs, 3, 1, a) / total_error(pf_probs, 3, 1, a))
    lo, hi = v.evidence["ratio_at_largest_eps_on_grid"]["3,1"]
    assert lo - 1e-12 <= r <= hi + 1e-12 and 1.8 < r < 1.875


def test_figure_2_small_epsilon():
    v = run("pf.text.fig2-ratios-to-one-small-eps")
    assert not v.certified
    # n = 2: PF is optimal for every ε, so EM's ratio − 1 = EM total/PF total − 1; at ε = log(1.001) it is ≈ 1.5e-3
    a = 1 + Fraction(1, 1000)
    r = float(total_error(em_probs, 2, 4, a) / total_error(pf_probs, 2, 4, a)) - 1
    row = next(x for x in v.evidence["rows"] if x["n"] == 2 and x["epsilon"] == "log(1+1e-3)")
    assert row["em-1"] == pytest.approx(r, rel=1e-6) and 0 < r < 2e-3


def test_figure_1a_text_claims():
    v = run("pf.text.fig1a-zero-at-extremes")
    assert v.certified
    assert eq7(5, 1.0) == eq8(5, 1.0) == 0 and eq7(5, 1e-300) < 1e-290
    v = run("pf.text.fig1a-max-near-p-1-over-n")
    assert v.certified
    from scipy.optimize import minimize_scalar

    # EM at n = 1000: the maximiser solves 1 + x = log(n/x) (x = np), far above 4
    r = minimize_scalar(lambda u: -eq7(1000, math.exp(-u)), bounds=(1, 20), method="bounded", options={"xatol": 1e-12})
    x = 1000 * math.exp(-r.x)
    assert x == pytest.approx(4.42, abs=0.01)
    row = next(r for r in v.evidence["rows"] if r["n"] == 1000 and r["mechanism"] == "em")
    assert row["maximiser_within_factor_4_of_1/n"] is False and row["n·argmax_p"] == pytest.approx(x, rel=1e-4)


def test_quality_sensitivity(hepth_env):
    v = run("pf.text.quality-sensitivity-one")
    assert v.certified
    # independent: the authors' median formula on every add-one neighbour of HEPTH
    x = hepth_env.astype(np.int64)

    def med(h):
        N, L = h.sum(), np.concatenate([[0], np.cumsum(h)[:-1]])
        return -np.maximum(0, np.maximum(2 * L - N + 1, N - 2 * (L + h)))

    q0 = med(x)
    worst = 0
    for j in range(0, x.size, 7):
        y = x.copy()
        y[j] += 1
        worst = max(worst, int(np.abs(med(y) - q0).max()))
    assert worst == 1 == v.evidence["rows"]["HEPTH"]["median"]["max_change_over_neighbours"]


def _eps_for_em_error(q, target):
    from scipy.optimize import brentq

    return brentq(lambda e: _em_error(q, e) - target, 1e-6, 5.0, xtol=1e-14, rtol=1e-13)


def test_figure_3b_3c_and_7(hepth_env):
    x = hepth_env
    v = run("pf.text.fig3b-hepth-median-range")
    assert v.certified
    v = run("pf.text.fig3c-five-datasets-em-50")
    assert v.certified and "HEPTH" in v.evidence["below_1.75_text_convention"]
    e = _eps_for_em_error(x, 50.0)
    ratio = 50.0 / _pf_error_recurrence(x, e)
    assert ratio == pytest.approx(1.4666, abs=1e-4)
    assert _mid(v.evidence["rows"]["HEPTH"]["counts (text, ε/(2Δ))"]["ratio"]) == pytest.approx(ratio, rel=1e-7)
    v = run("pf.figure.7")
    assert v.certified and "HEPTH" in v.evidence["below_1.75_text_convention"]["mode"]


def test_figures_5_6(hepth_env):
    x = hepth_env
    v = run("pf.figure.5")
    assert v.certified and v.evidence["non_increasing_steps"] == {}
    e = _eps_for_em_error(x, 10.0)
    ratio = 10.0 / _pf_error_recurrence(x, e)
    assert ratio == pytest.approx(_mid(v.evidence["at_E_EM=10"]["HEPTH"]["ratio"]), rel=1e-7) and ratio < 1.75
    v = run("pf.figure.6")
    assert v.certified and v.evidence["non_increasing_steps"] == {}


def test_figure_3_asymptotics(hepth_env):
    x = hepth_env
    v = run("pf.text.fig3-asymptotic-factor-two")
    assert v.certified and v.evidence["rows"]["mode"]["maximal_scores"] == 1
    e_big, ball = list(v.evidence["rows"]["mode"]["ratio_at_eps"].items())[-1]
    assert _em_error(x, float(e_big)) / _pf_error_recurrence(x, float(e_big)) == pytest.approx(_mid(ball), rel=1e-9)
    v = run("pf.text.fig3-c-exp-minus-eps")
    assert v.certified
    ea, eb = (float(e) for e in v.evidence["rows"]["mode"]["epsilon_pair"])
    slope = (math.log(_em_error(x, eb)) - math.log(_em_error(x, ea))) / (eb - ea)
    assert slope == pytest.approx(_mid(v.evidence["rows"]["mode"]["log_slope_near_E_PF=1"]["em"]), rel=1e-8)
    gap = int(np.sort(x)[-1] - np.sort(x)[-2])
    assert gap == 61 and slope < -20  # the asymptotic rate is gap/2 = 30.5 per unit ε, not 1


def test_lp_library_cases_met_by_the_pf_checks():
    """Two dpexact.lp failures met while wiring pf §5 (fixed in dpexact/lp): an exact root at ρ = 1 of a dual
    polynomial (n >= 5, k = 1), and an enclosure whose repaired point had exactly tight rows (Q(5,1), ε = log 8/5)."""
    from flint import arb

    from dpexact.lp import build_regular_lp, certify_exact, enclose_optimum, solve_regular_lp
    from dpexact.lp.dual_certificate import dual_feasibility_threshold

    assert dual_feasibility_threshold(5, 1).epsilon_star is None  # k = 1: Σ_{t≤1} t ρ^t = ρ < 1, feasible for every ε
    sol = solve_regular_lp(build_regular_lp(5, 1, "log(8/5)"))
    enc = enclose_optimum(sol)
    opt = certify_exact(sol).optimum
    assert enc.lower.lower() <= arb(opt) <= enc.upper.upper() and enc.width < 1e-20
    # independent: the unreduced LP with linprog
    res, _, _ = solve_regular_lp_ref(5, 1, Fraction(8, 5))
    assert 2 * res.fun == pytest.approx(int(opt.p) / int(opt.q), rel=1e-9)
