"""pf: Appendix A-C lemmas."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from .._common import mech, random_scores, rounds_to, sorted_zero_sum_partial_sums
from ..catalogue import Verdict, claim
from ._helpers import _all_orders, _coins, _exact_pmf, _lattice_vectors
from .sec2_3_mechanism import _dp_ratio_search, _exact_dp_ratio


def _lemma_pmfs(quick: bool):
    n_max, k = (4, 3) if quick else (5, 3)
    for n in range(2, n_max + 1):
        for q in _all_orders(_lattice_vectors(n, k)) if n <= 3 else _lattice_vectors(n, k):
            yield q, _coins(q), _exact_pmf("pf", q)


@claim("pf.lemma.1", "Pr[M_PF(q)=r] = p_r Σ_π (1/n!) Π_{s: π(s)<π(r)} (1 − p_s), p_r = exp(ε(q_r − q*)/(2Δ)).", "pf App. A, Lemma 1",
       expected="holds",
       scope_quick="exact (fmpq) sum over all n! permutations vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
       scope_full="exact (fmpq) sum over all n! permutations vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2")
def lemma_1(quick: bool) -> Verdict:
    checked, bad = 0, []
    for q, p, P in _lemma_pmfs(quick):
        n = len(q)
        perms = list(itertools.permutations(range(n)))
        for r in range(n):
            tot = Fraction(0)
            for pi in perms:
                prod = Fraction(1)
                for s in range(n):
                    if pi[s] < pi[r]:
                        prod *= 1 - p[s]
                tot += prod
            checked += 1
            if p[r] * tot / len(perms) != P[r]:
                bad.append({"q": q, "r": r})
    return Verdict("refuted" if bad else "holds", True, "exact (fmpq) sum over all n! permutations vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
                   {"checked": checked, "mismatches": bad[:5]})


@claim("pf.lemma.2", "Pr[M_PF(q)=r] = p_r Σ_{S ⊆ R, r ∉ S} (−1)^{|S|}/(|S|+1) Π_{s∈S} p_s.", "pf App. A, Lemma 2",
       expected="holds",
       scope_quick="exact (fmpq) inclusion–exclusion sum vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
       scope_full="exact (fmpq) inclusion–exclusion sum vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2")
def lemma_2(quick: bool) -> Verdict:
    checked, bad = 0, []
    for q, p, P in _lemma_pmfs(quick):
        n = len(q)
        for r in range(n):
            others = [s for s in range(n) if s != r]
            tot = Fraction(0)
            for size in range(len(others) + 1):
                for S in itertools.combinations(others, size):
                    prod = Fraction(1)
                    for s in S:
                        prod *= p[s]
                    tot += Fraction((-1) ** size, size + 1) * prod
            checked += 1
            if p[r] * tot != P[r]:
                bad.append({"q": q, "r": r})
    return Verdict("refuted" if bad else "holds", True, "exact (fmpq) inclusion–exclusion sum vs the mechanism's exact pmf; integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
                   {"checked": checked, "mismatches": bad[:5]})


@claim("pf.lemma.3", "M_PF is regular: symmetric, shift-invariant and monotone (Definition 3).", "pf App. B, Lemma 3",
       expected="holds",
       scope_quick="exact (fmpq) on all integer q ∈ [−2,0]^n, n ≤ 3, ε = 2 log 2: every permutation, shifts −3 and 5, monotone moves by {0,1}; one √2 shift in arb",
       scope_full="exact (fmpq) on all integer q ∈ [−2,0]^n, n ≤ 4, ε = 2 log 2: every permutation, shifts −3 and 5, monotone moves by {0,1}; one √2 shift in arb")
def lemma_3(quick: bool) -> Verdict:
    n_max, k = (3, 2) if quick else (4, 2)
    sym = shift = mono = 0
    bad = []
    for n in range(2, n_max + 1):
        vecs = _all_orders(_lattice_vectors(n, k))
        for q in vecs:
            P = _exact_pmf("pf", q)
            for perm in itertools.permutations(range(n)):
                Pq = _exact_pmf("pf", [q[i] for i in perm])
                sym += 1
                if Pq != [P[i] for i in perm]:
                    bad.append({"property": "symmetry", "q": q, "perm": perm})
            for c in (-3, 5):
                shift += 1
                if _exact_pmf("pf", [x + c for x in q]) != P:
                    bad.append({"property": "shift", "q": q, "c": c})
            # monotonicity: q'_r ≥ q_r, q'_s ≤ q_s ⇒ Pr[q]_r ≤ Pr[q']_r
            for r in range(n):
                for d in itertools.product((0, 1), repeat=n):
                    q2 = [x + (d[i] if i == r else -d[i]) for i, x in enumerate(q)]
                    mono += 1
                    if P[r] > _exact_pmf("pf", q2)[r]:
                        bad.append({"property": "monotone", "q": q, "q_prime": q2, "r": r})
    # shift invariance by an irrational amount, in balls
    m = mech("pf", "1")
    a = m.pmf(["0", "-1/3", "-2"], backend="ball").values
    b = m.pmf(["sqrt(2)", "sqrt(2)-1/3", "sqrt(2)-2"], backend="ball").values
    if not all((x - y).contains(0) for x, y in zip(a, b)):
        bad.append({"property": "shift by √2 (ball)"})
    scope = f"exact (fmpq) on all integer q ∈ [−{k},0]^n, n ≤ {n_max}, ε = 2 log 2: every permutation, shifts −3 and 5, monotone moves by {{0,1}}; one √2 shift in arb"
    return Verdict("refuted" if bad else "holds", True, scope, {"symmetry": sym, "shift": shift, "monotone": mono, "counterexamples": bad[:5]})


@claim("pf.lemma.4", "If q_r ≤ q_s then g_r(q) ≤ g_s(q), where Pr[M_PF(q)=r] = p_r g_r(q) and g_r(q) = (1/n!) Σ_π Π_{t:π(t)<π(r)} (1−p_t).",
       "pf App. C.1, Lemma 4 (the proof's last step prints '= 0'; it should read '≥ 0')",
       expected="holds",
       scope_quick="exact (fmpq): g_r = Pr[M(q)=r]/p_r on integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
       scope_full="exact (fmpq): g_r = Pr[M(q)=r]/p_r on integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2")
def lemma_4(quick: bool) -> Verdict:
    checked, bad = 0, []
    for q, p, P in _lemma_pmfs(quick):
        g = [P[r] / p[r] for r in range(len(q))]
        for r in range(len(q)):
            for s in range(len(q)):
                if q[r] <= q[s]:
                    checked += 1
                    if g[r] > g[s]:
                        bad.append({"q": q, "r": r, "s": s})
    return Verdict("refuted" if bad else "holds", True, "exact (fmpq): g_r = Pr[M(q)=r]/p_r on integer q ∈ [−3,0]^n, n ≤ 5, ε = 2 log 2",
                   {"pairs": checked, "counterexamples": bad[:5], "note": "pf's proof of Lemma 4 ends with '(e) = 0' where '≥ 0' is meant"})


@claim("pf.lemma.5", "If f_1 ≤ … ≤ f_n and Σ f_r = 0 then every partial sum Σ_{r≤s} f_r ≤ 0.", "pf App. C.1, Lemma 5",
       expected="holds",
       scope_quick="exact rationals: 1224 partial sums of random sorted zero-sum vectors, n ≤ 11",
       scope_full="exact rationals: 12124 partial sums of random sorted zero-sum vectors, n ≤ 11")
def lemma_5(quick: bool) -> Verdict:
    checked, bad, scope = sorted_zero_sum_partial_sums(quick)
    return Verdict("refuted" if bad else "holds", True, scope,
                   {"partial_sums": checked, "counterexamples": bad[:3], "note": "the proof names the index t where s is meant"})


@claim("pf.lemma.7", "If ε ≥ log((3+√5)/2) then Σ_{k≥1} k e^{−kε} ≤ 1 (and, conversely, the sum exceeds 1 below that threshold).",
       "pf App. D, Lemma 7",
       expected="holds",
       scope_quick="sympy: closed form of Σ k x^k, exact solution set of x/(1−x)^2 ≤ 1 on (0,1) with x = e^{−ε}",
       scope_full="sympy: closed form of Σ k x^k, exact solution set of x/(1−x)^2 ≤ 1 on (0,1) with x = e^{−ε}")
def lemma_7(quick: bool) -> Verdict:
    import sympy as sp

    k = sp.symbols("k", integer=True, positive=True)
    e = sp.symbols("epsilon", positive=True)
    x = sp.symbols("x", positive=True)
    S = sp.summation(k * x**k, (k, 1, sp.oo))
    S = sp.piecewise_fold(S)
    closed = S.args[0][0] if isinstance(S, sp.Piecewise) else S
    closed = sp.simplify(closed)
    check_closed = sp.simplify(closed - x / (1 - x) ** 2) == 0
    # x = e^{-ε} ∈ (0,1): x/(1−x)^2 ≤ 1 ⇔ x^2 − 3x + 1 ≥ 0 ⇔ x ≤ (3−√5)/2
    sol = sp.solve_univariate_inequality(x / (1 - x) ** 2 <= 1, x, relational=False, domain=sp.Interval.open(0, 1))
    threshold_x = (3 - sp.sqrt(5)) / 2
    ok_set = sp.simplify(sol.symmetric_difference(sp.Interval.Lopen(0, threshold_x))) == sp.S.EmptySet
    eps_threshold = -sp.log(threshold_x)
    same = sp.simplify(sp.exp(eps_threshold) - (3 + sp.sqrt(5)) / 2) == 0
    paper_form = sp.simplify(sp.exp(e) / (1 - sp.exp(e)) ** 2 - closed.subs(x, sp.exp(-e))) == 0
    approx = rounds_to(float(eps_threshold), 0.96, 2)  # pf §1: "≈ 0.96"; the float is far from a rounding boundary (0.9624)
    ok = check_closed and ok_set and same and paper_form and approx
    return Verdict("holds" if ok else "refuted", True, "sympy: closed form of Σ k x^k, exact solution set of x/(1−x)^2 ≤ 1 on (0,1) with x = e^{−ε}",
                   {"sum": str(closed), "solution_set_x": str(sol), "epsilon_threshold": str(sp.nsimplify(eps_threshold)), "threshold_float": float(eps_threshold),
                    "paper_closed_form_e^eps/(1-e^eps)^2_matches": bool(paper_form), "intro_'≈ 0.96'_matches": approx})


@claim("pf.remark.1", "With a monotonic quality function (adding an individual can only increase scores), M_PF (exponent ε/(2Δ)) is ε/2-DP; "
       "the worst-case neighbour is q + Δe_r.", "pf App. B, Remark 1",
       expected="holds",
       scope_quick="exact (fmpq): 1984 comparisons, integer q ∈ [−2,0]^n, n ≤ 3, monotone offsets d ∈ {0,1}^n, ε ∈ {2 log 2, 2 log(3/2)}, bound e^{ε/2}; 1984 more for monotone=True (exponent ε/Δ) against e^ε; dpexact.verification.decide.pure_dp.check_pairs on 54 random rational monotone pairs (17 ratios equal to the bound, decided exactly); 8 more pairs for monotone=True against e^ε (7 ratios equal to the bound, decided exactly)",
       scope_full="exact (fmpq): 48576 comparisons, integer q ∈ [−3,0]^n, n ≤ 4, monotone offsets d ∈ {0,1}^n, ε ∈ {2 log 2, 2 log(3/2)}, bound e^{ε/2}; 48576 more for monotone=True (exponent ε/Δ) against e^ε; dpexact.verification.decide.pure_dp.check_pairs on 192 random rational monotone pairs (62 ratios equal to the bound, decided exactly); 24 more pairs for monotone=True against e^ε (14 ratios equal to the bound, decided exactly)")
def remark_1(quick: bool) -> Verdict:
    nm, k = (3, 2) if quick else (4, 3)
    # exact: monotone neighbours q' = q + d, d ∈ {0,1}^n (Δ = 1), exponent ε/(2Δ), bound e^{ε/2}
    ex_pairs, ex_max, ex_bad = _exact_dp_ratio(nm, k, offsets=(0, 1), factor=2)
    # exact: dpexact's monotone=True option (exponent ε/Δ) against e^ε
    op_pairs, op_max, op_bad = _exact_dp_ratio(nm, k, offsets=(0, 1), factor=1, monotone=True)
    worst, at_eq, bad, pairs, undecided = _dp_ratio_search("pf", quick, monotone_neighbours=True, target_eps_factor="1/2")
    worst2, at_eq2, bad2, pairs2, undecided2 = _monotone_option_check(quick)
    undecided = undecided + undecided2
    scope = (f"exact (fmpq): {ex_pairs} comparisons, integer q ∈ [−{k},0]^n, n ≤ {nm}, monotone offsets d ∈ {{0,1}}^n, ε ∈ {{2 log 2, 2 log(3/2)}}, "
             f"bound e^{{ε/2}}; {op_pairs} more for monotone=True (exponent ε/Δ) against e^ε; dpexact.verification.decide.pure_dp.check_pairs on {pairs} random "
             f"rational monotone pairs ({at_eq} ratios equal to the bound, decided exactly); {pairs2} more pairs for monotone=True "
             f"against e^ε ({at_eq2} ratios equal to the bound, decided exactly)")
    ev = {"exact_max_ratio/e^{eps/2}": str(ex_max), "exact_monotone_option_max_ratio/e^eps": str(op_max),
          "verifier_max_log_ratio-eps/2": worst, "verifier_max_ratio_monotone_option/e^eps": worst2, "ratios_at_equality": at_eq + at_eq2,
          "violations": (ex_bad + op_bad + bad + bad2)[:5], "verifier_undecided": undecided}
    if ex_bad or op_bad or bad or bad2:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev)


def _monotone_option_check(quick: bool) -> tuple[float, int, list, int, list]:
    """pf with ``monotone=True`` on monotone neighbours (q' = q + e_r), decided by the library's
    :func:`dpexact.verification.decide.pure_dp.check_pairs` (float screen, balls, exact on ties), both orders.

    Returns (largest certified upper bound of the ratio / e^ε, triples decided exactly — ratios equal
    to the bound —, violations, pairs, undecided triples).
    """
    from dpexact.numbers import Real
    from dpexact.verification.neighbourhoods import MonotoneBox
    from dpexact.verification.decide.pure_dp import check_pairs

    rng = np.random.default_rng(8)
    worst, at_bound, bad, pairs, undecided = 0.0, 0, [], 0, []
    for eps in ("1/2", "2"):
        m = mech("pf", eps, monotone=True)
        prs = []
        for _ in range(4 if quick else 12):
            n = int(rng.integers(2, 6))
            q = [Fraction(s) for s in random_scores(rng, n, spread=3.0)]
            r = int(rng.integers(0, n))
            prs.append((tuple(q), tuple(x + (1 if i == r else 0) for i, x in enumerate(q))))
        res = check_pairs(m, prs, MonotoneBox(1))
        pairs += res.pairs
        at_bound += res.decided_exact
        undecided += [{"epsilon": eps, "triple": str(t)} for t in res.undecided_triples[:3]] if not res.certified_all else []
        worst = max(worst, math.exp(res.worst_certified_hi - Real.of(eps).to_float()))
        if res.counterexample is not None:
            bad.append({"epsilon": eps, **res.counterexample.as_dict()})
    return worst, at_bound, bad, pairs, undecided
