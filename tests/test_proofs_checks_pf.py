"""pf claims (proofs_checks/pf.py): each test asserts the verdict and recomputes a key number
independently (sequential PF recursion, numpy softmax EM, closed forms, scipy quadrature)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from test_proofs_checks_reference import coins, em_pmf, eq7, eq8, pf_pmf_sequential
from dpexact.cli.check import import_catalogue

cat = import_catalogue()
_CACHE: dict = {}


def run(cid: str):
    if cid not in _CACHE:
        (c,) = cat.select(["pf"], [cid])
        o = cat.run_claim(c, quick=True)
        assert not o.crashed, o.verdict.evidence
        _CACHE[cid] = o.verdict
    return _CACHE[cid]


def test_proposition_1_em_utility_bound():
    v = run("pf.proposition.1")
    assert v.verdict == "holds" and v.certified
    assert 0 < v.evidence["max E/((2Δ/ε) log n)"] < 1
    # independent: worst case of eq. (7) over p stays below log n (units 2Δ/ε)
    ps = np.logspace(-8, 0, 4000)[:-1]
    for n in (2, 3, 10, 1000):
        assert max(eq7(n, p) for p in ps) < math.log(n)


def test_corollary_1_pf_utility_bound():
    v = run("pf.corollary.1")
    assert v.verdict == "holds" and v.certified
    ps = np.logspace(-8, 0, 4000)[:-1]
    for n in (2, 5, 100):
        assert max(eq8(n, p) for p in ps) < math.log(n)


def test_theorem_1_pf_is_dp():
    v = run("pf.theorem.1")
    assert v.verdict == "holds" and v.certified
    assert v.evidence["exact_max_ratio/e^eps"] == "1"  # the bound is attained
    # independent: sequential PF on q = (0, −1, −3) at ε = 2 log 2; worst neighbour of r = 2 is q + 2Δ e_r
    P = pf_pmf_sequential(coins((0, -1, -3)))
    P2 = pf_pmf_sequential(coins((0, -1, -1)))
    assert P2[2] / P[2] == 4  # = e^ε exactly, since q_r ≤ q* − 2Δ (pf §3)
    P3 = pf_pmf_sequential(coins((0, -1, 1)))  # r = 1 becomes the maximum: inequality strict
    assert P3[2] / pf_pmf_sequential(coins((0, -1, -1)))[2] <= 4


def test_proposition_2_worst_neighbour():
    v = run("pf.proposition.2")
    assert v.verdict == "holds" and v.certified and v.evidence["neighbour_pairs"] > 1000
    # independent (EM softmax): the corner neighbour ratio equals the ratio for q + 2Δ e_r
    q, r, eps = np.array([0.0, -0.7, -2.0]), 1, 1.3
    corner = q + np.where(np.arange(3) == r, 1.0, -1.0)
    shifted = q + 2.0 * (np.arange(3) == r)
    assert em_pmf(corner, eps)[r] == pytest.approx(em_pmf(shifted, eps)[r], rel=1e-14)


def test_proposition_3_recurrence():
    v = run("pf.proposition.3")
    assert v.verdict == "holds" and v.certified and v.evidence["exact_checked"] > 100
    q = (0, -2, -1, 0)
    P = pf_pmf_sequential(coins(q))
    Pup = pf_pmf_sequential(coins((0, 0, -1, 0)))
    assert P[1] == Fraction(1, 4) * Pup[1]
    assert P[0] == P[3] == (1 - P[1] - P[2]) / 2


def test_theorem_2_dominance():
    v = run("pf.theorem.2")
    assert v.verdict == "holds" and v.certified and v.evidence["counterexamples"] == []
    q = (0, -1, -1, -3)
    pf = [float(x) for x in pf_pmf_sequential(coins(q))]
    em = em_pmf(q, 2 * math.log(2))
    gaps = -np.array(q, float)
    for t in (1, 3):
        assert sum(p for p, g in zip(pf, gaps) if g >= t) <= sum(p for p, g in zip(em, gaps) if g >= t)


@pytest.mark.parametrize("eq", ["7", "8"])
def test_equations_7_8(eq):
    v = run(f"pf.equation.{eq}")
    assert v.verdict == "holds" and v.certified and v.evidence["checked"] > 0
    n, c = 4, -3  # ε = 2 log 2: p = 2^c, (2Δ/ε) log(1/p) = −c
    q = (c,) * (n - 1) + (0,)
    P = pf_pmf_sequential(coins(q)) if eq == "8" else [Fraction(x).limit_denominator(10**9) for x in em_pmf(q, 2 * math.log(2))]
    E = float(sum(p * (-s) for p, s in zip(P, q)))
    closed = (eq7 if eq == "7" else eq8)(n, 2.0**c) / math.log(2)  # (2Δ/ε) = 1/log 2
    assert E == pytest.approx(closed, rel=1e-8)


def test_proposition_4_worst_case_family():
    v = run("pf.proposition.4")
    assert v.verdict == "holds" and not v.certified
    row = next(r for r in v.evidence["rows"] if r["n"] == 3 and r["mechanism"] == "em")
    # independent: coarse grid of EM errors on (0, a, b) never beats the family maximum
    best = 0.0
    for a in np.linspace(0, 12, 61):
        for b in np.linspace(0, 12, 61):
            q = np.array([0.0, -a, -b])
            best = max(best, float(em_pmf(q, 1.0) @ (-q)))
    assert best <= row["family_max"] + 1e-12
    ps = np.linspace(1e-4, 1, 20000)
    assert row["family_max"] == pytest.approx(2 * max(eq7(3, p) for p in ps[:-1]), rel=1e-6)


def test_proposition_5_lower_bound():
    v = run("pf.proposition.5")
    assert v.verdict == "holds" and v.certified
    n = np.arange(2, 10**5)
    assert np.all((1 - 1 / n) ** n >= 0.25 - 1e-15)
    for nn in (2, 10, 1000):
        assert eq8(nn, 1 / nn) >= math.log(nn) / 4  # units 2Δ/ε: (Δ/(2ε)) log n = (2Δ/ε) log(n)/4
    assert v.evidence["pmf"][0]["E_PF"] == str(Fraction(1, 4))  # n = 2: log n · (1/2)^2 / log 2 with ε = 2 log 2


@pytest.mark.parametrize("cid", ["pf.proposition.6", "pf.theorem.3", "pf.figure.2", "pf.lemma.6"])
def test_lp_dependent_claims_are_inconclusive(cid):
    v = run(cid)
    assert v.verdict == "inconclusive" and not v.certified and "machinery not yet available" in v.evidence["reason"]
    # the threshold of Theorem 3 / Lemma 7 is 2 log(golden ratio)
    assert math.log((3 + math.sqrt(5)) / 2) == pytest.approx(2 * math.log((1 + math.sqrt(5)) / 2), rel=1e-15)


def test_lemmas_1_2_pmf_formulas():
    for cid in ("pf.lemma.1", "pf.lemma.2"):
        v = run(cid)
        assert v.verdict == "holds" and v.certified and v.evidence["checked"] > 100
    p = coins((0, -1, -2, -2))
    P = pf_pmf_sequential(p)
    # Lemma 2 for r = 3 written out by hand: others {0,1,2}
    others = [p[0], p[1], p[2]]
    s = 1 - sum(others) / 2 + (others[0] * others[1] + others[0] * others[2] + others[1] * others[2]) / 3 - others[0] * others[1] * others[2] / 4
    assert P[3] == p[3] * s


def test_lemma_3_regularity():
    v = run("pf.lemma.3")
    assert v.verdict == "holds" and v.certified and v.evidence["monotone"] > 100
    P = pf_pmf_sequential(coins((0, -2, -1)))
    Q = pf_pmf_sequential(coins((-1, 0, -2)))  # permutation (1,2,0) of the scores
    assert [Q[1], Q[2], Q[0]] == [P[0], P[1], P[2]]


def test_lemma_4_g_monotone():
    v = run("pf.lemma.4")
    assert v.verdict == "holds" and v.certified
    p = coins((0, -1, -3, -2))
    P = pf_pmf_sequential(p)
    g = [x / y for x, y in zip(P, p)]
    assert g[2] <= g[3] <= g[1] <= g[0]


def test_lemma_5_partial_sums():
    v = run("pf.lemma.5")
    assert v.verdict == "holds" and v.certified and v.evidence["partial_sums"] > 100
    f = np.sort(np.random.default_rng(0).normal(size=50))
    f -= f.mean()
    assert np.all(np.cumsum(f) <= 1e-12)


def test_lemma_7_threshold():
    import mpmath

    v = run("pf.lemma.7")
    assert v.verdict == "holds" and v.certified
    t = v.evidence["threshold_float"]
    assert t == pytest.approx(math.log((3 + math.sqrt(5)) / 2), rel=1e-15)
    s = lambda e: mpmath.nsum(lambda k: k * mpmath.exp(-k * e), [1, mpmath.inf])  # noqa: E731
    assert s(t - 1e-6) > 1 > s(t + 1e-6)


def test_remark_1_monotone():
    v = run("pf.remark.1")
    assert v.verdict == "holds" and v.certified
    # independent: q = (0, −3), r = 1 moved up by Δ = 1: ratio e^{ε/2} = 2 exactly at ε = 2 log 2
    P = pf_pmf_sequential(coins((0, -3)))
    Q = pf_pmf_sequential(coins((0, -2)))
    assert Q[1] / P[1] == 2


def test_figure_1b_ratio_between_one_and_two():
    v = run("pf.text.fig1b-ratio-between-one-and-two")
    assert v.verdict == "holds" and v.certified
    assert 1 <= v.evidence["min_ratio"] and v.evidence["max_ratio"] <= 2
    for p in (1e-3, 0.3, 0.9):
        assert eq7(2, p) / eq8(2, p) == pytest.approx(2 / (1 + p), rel=1e-9)


def test_figure_1b_limits():
    import mpmath

    v = run("pf.text.fig1b-ratio-limit-p-to-zero")
    assert v.verdict == "holds" and v.certified
    with mpmath.workdps(50):
        p = mpmath.mpf("1e-12")
        r = (1 - 1 / (1 + 4 * p)) / (1 - (1 - (1 - p) ** 5) / (5 * p))
        assert abs(r - 2) < 1e-9
    v = run("pf.text.fig1b-ratio-limit-n-to-infinity")
    assert v.verdict == "holds"
    assert v.evidence["p_for_ratio"]["1.5"][0] == pytest.approx(1 / 3, rel=1e-9)  # n = 2: 2/(1+p) = 1.5
    with mpmath.workdps(50):
        n, p = 10**6, mpmath.mpf("0.1")
        assert abs((1 - 1 / (1 + (n - 1) * p)) / (1 - (1 - (1 - p) ** n) / (n * p)) - 1) < 1e-4


def test_figure_1a():
    v = run("pf.figure.1")
    assert v.verdict == "holds" and v.certified and v.figure is not None
    ps = np.linspace(1e-3, 1, 1000)[:-1]
    assert all(eq7(3, p) > eq8(3, p) for p in ps)


def test_figure_1c_worst_case_ratio():
    v = run("pf.text.fig1c-worst-case-ratio")
    assert v.verdict == "holds"
    row2 = v.evidence["rows"][0]
    # n = 2 in closed form: PF error (2Δ/ε) log(1/p) p/2, max at p = 1/e: 1/e; EM: max of 2 log(1/p) p/(1+p)
    assert row2["worst_PF"] == pytest.approx(1 / math.e, rel=1e-9)
    ps = np.linspace(1e-4, 1, 200001)[:-1]
    assert row2["worst_EM"] == pytest.approx(max(2 * eq7(2, p) for p in ps), rel=1e-7)


def test_never_observed_ratio_above_two():
    v = run("pf.text.never-observed-ratio-above-two")
    assert v.verdict == "holds" and not v.certified
    assert 1.9 < v.evidence["largest_ratio_found"] <= 2 + 1e-9
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

    q = np.asarray(q, float)
    p = dpexact.mechanism("pf", epsilon=eps).pmf(q, method="recurrence").to_float()
    return float(p @ (q.max() - q))


def test_hepth_mode_claims(hepth_env):
    x = hepth_env
    v = run("pf.text.hepth-mode-ratio")
    assert v.verdict == "refuted" and any("doubled" in k for k in v.evidence["reproduces_paper"])
    ratio_doubled = _em_error(2 * x, 0.04) / _pf_error_recurrence(2 * x, 0.04)
    ratio_counts = _em_error(x, 0.04) / _pf_error_recurrence(x, 0.04)
    assert round(ratio_doubled, 2) == 1.84 and round(ratio_counts, 2) == 1.57
    v = run("pf.text.hepth-mode-pf-error")
    assert v.verdict == "refuted" and v.evidence["reproduces_paper"] == []
    assert _pf_error_recurrence(2 * x, 0.04) == pytest.approx(5.3227, abs=1e-3)
    v = run("pf.text.hepth-mode-budget")
    assert v.verdict == "refuted"
    factor = next(val for k, val in v.evidence["computed"].items() if "doubled" in k)
    assert _em_error(2 * x, 0.04 * factor) == pytest.approx(_pf_error_recurrence(2 * x, 0.04), rel=1e-8)


def test_hepth_median_claims(hepth_env):
    x = hepth_env
    # independent median quality (pf authors' formula): d_r = max(0, 2L − N + 1, N − 2(L + x_r))
    N, L = x.sum(), np.concatenate([[0], np.cumsum(x)[:-1]])
    q = -np.maximum(0, np.maximum(2 * L - N + 1, N - 2 * (L + x)))
    pf_err, em_err = _pf_error_recurrence(q, 0.01), _em_error(q, 0.01)
    for cid, verdict in (("pf.text.hepth-median-ratio", "refuted"), ("pf.text.hepth-median-pf-error", "refuted"), ("pf.text.hepth-median-budget", "refuted")):
        assert run(cid).verdict == verdict
    comp = run("pf.text.hepth-median-pf-error").evidence["computed"]["lower median (text)"]
    assert comp == pytest.approx(pf_err, rel=1e-9) and round(pf_err, 2) == 17.23
    assert round(em_err / pf_err, 3) == 1.909
    f = run("pf.text.hepth-median-budget").evidence["computed"]["lower median (text)"]
    assert _em_error(q, 0.01 * f) == pytest.approx(pf_err, rel=1e-8) and round(f, 2) == 1.20


def test_figure_3_hepth_mode_range(hepth_env):
    v = run("pf.figure.3")
    assert v.verdict == "holds"
    x = hepth_env
    assert _em_error(2 * x, 0.3) / _pf_error_recurrence(2 * x, 0.3) > 1.9


def _rnm_laplace_scipy(c: float, n: int = 3, b: float = 2.0) -> float:
    F = lambda x: 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)  # noqa: E731
    f = lambda x: math.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    P = sum(integrate.quad(lambda x: f(x) * F(x - c) ** (n - 1), a, z, epsabs=1e-14, epsrel=1e-13)[0]
            for a, z in ((-np.inf, c), (c, 0), (0, np.inf)))
    return -c * (1 - P)


def test_appendix_f_integral():
    v = run("pf.appendix.f")
    assert v.verdict == "holds"
    row = next(r for r in v.evidence["rows"] if r["c"] == -2.0)
    assert row["rnm-laplace (arb)"] == pytest.approx(_rnm_laplace_scipy(-2.0), rel=1e-10)


def test_figure_4_rnm_em_pf():
    v = run("pf.figure.4")
    assert v.verdict == "holds" and v.certified
    em = lambda c: 2 * eq7(3, math.exp(c / 2))  # noqa: E731  ε = Δ = 1: p = e^{c/2}, units 2
    pf = lambda c: 2 * eq8(3, math.exp(c / 2))  # noqa: E731
    assert _rnm_laplace_scipy(-0.5) < em(-0.5) and _rnm_laplace_scipy(-8.0) > em(-8.0)
    assert pf(-0.5) < _rnm_laplace_scipy(-0.5) and pf(-8.0) < em(-8.0)
