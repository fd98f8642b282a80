"""pf: Section 2-3."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.backends import ball_context

from .._common import arb_of, mech, random_scores
from ..catalogue import Verdict, claim
from ._helpers import _all_orders, _coins, _exact_pmf, _lattice_vectors
from .sec5_optimality import _class_scores, _classes, _eps_of


def _utility_bounds(name: str, quick: bool) -> Verdict:
    """E ≤ (2Δ/ε) log n and Pr[E ≥ (2Δ/ε)(log n + t)] ≤ e^{-t}, in ball arithmetic."""
    from flint import arb

    from dpexact.utility import error_tail, expected_error

    rng = np.random.default_rng(1)
    cases: list[tuple[str, list[str]]] = []
    for eps in ("1/10", "1", "3"):
        for n in (2, 3, 5, 8) if quick else (2, 3, 4, 5, 8, 12):
            for _ in range(2 if quick else 6):
                cases.append((eps, random_scores(rng, n, spread=8.0 * (1 + 9 * (eps == "1/10")))))
            for c in (-1, -4, -12):  # the worst-case family (c,…,c,0)
                cases.append((eps, [str(c)] * (n - 1) + ["0"]))
    worst_mean, worst_tail, undecided, bad = -1.0, -1.0, 0, []
    with ball_context(128):
        for eps, q in cases:
            m = mech(name, eps)
            n = len(q)
            e = arb_of(eps)
            T0 = 2 / e * arb(n).log()
            ee = expected_error(m, q, backend="ball").value
            gap = ee - T0
            worst_mean = max(worst_mean, float((ee / T0).mid()))
            if gap > 0:
                bad.append({"q": q, "epsilon": eps, "kind": "mean", "E": float(ee.mid()), "bound": float(T0.mid())})
            elif not gap <= 0:
                undecided += 1
            tail = error_tail(m, q, backend="ball")
            lv = [arb_of(x.value) for x in tail.exact_levels]
            for j in range(1, len(lv)):
                t_lo = lv[j - 1] if float(lv[j - 1].mid()) >= float(T0.mid()) else T0
                if float(t_lo.mid()) > float(lv[j].mid()):
                    continue
                bound = n * (-(e * t_lo) / 2).exp()
                d = tail.values[j] - bound
                worst_tail = max(worst_tail, float((tail.values[j] / bound).mid()))
                if d > 0:
                    bad.append({"q": q, "epsilon": eps, "kind": "tail", "T": float(t_lo.mid()), "Pr": float(tail.values[j].mid()), "bound": float(bound.mid())})
                elif not d <= 0:
                    undecided += 1
    scope = f"{len(cases)} score vectors (random rationals and (c,…,c,0)), n ≤ {12 if not quick else 8}, ε ∈ {{0.1, 1, 3}}, Δ = 1; arb at 128 bits; tail checked at every error level"
    ev = {"max E/((2Δ/ε) log n)": worst_mean, "max Pr[E≥T]/(n e^{-εT/(2Δ)})": worst_tail, "undecided": undecided, "violations": bad[:5]}
    if bad:
        return Verdict("refuted", True, scope, ev)
    if undecided:
        return Verdict("inconclusive", False, scope, ev)
    return Verdict("holds", True, scope, ev)


@claim("pf.proposition.1", "For all q ∈ R^n and t ≥ 0: E[E(M_EM, q)] ≤ (2Δ/ε) log n and "
       "Pr[E(M_EM, q) ≥ (2Δ/ε)(log n + t)] ≤ exp(−t).", "pf §2.3, Proposition 1",
       expected="holds",
       scope_quick="60 score vectors (random rationals and (c,…,c,0)), n ≤ 8, ε ∈ {0.1, 1, 3}, Δ = 1; arb at 128 bits; tail checked at every error level",
       scope_full="162 score vectors (random rationals and (c,…,c,0)), n ≤ 12, ε ∈ {0.1, 1, 3}, Δ = 1; arb at 128 bits; tail checked at every error level")
def proposition_1(quick: bool) -> Verdict:
    return _utility_bounds("em", quick)


@claim("pf.corollary.1", "For all q ∈ R^n and t > 0: E[E(M_PF, q)] ≤ (2Δ/ε) log n and "
       "Pr[E(M_PF, q) ≥ (2Δ/ε)(log n + t)] ≤ exp(−t).", "pf §4, Corollary 1",
       expected="holds",
       scope_quick="60 score vectors (random rationals and (c,…,c,0)), n ≤ 8, ε ∈ {0.1, 1, 3}, Δ = 1; arb at 128 bits; tail checked at every error level",
       scope_full="162 score vectors (random rationals and (c,…,c,0)), n ≤ 12, ε ∈ {0.1, 1, 3}, Δ = 1; arb at 128 bits; tail checked at every error level")
def corollary_1(quick: bool) -> Verdict:
    return _utility_bounds("pf", quick)


@claim("pf.theorem.1", "The permute-and-flip mechanism M_PF is regular and ε-differentially private.",
       "pf §3, Theorem 1 (proof App. B)",
       expected="holds",
       scope_quick="(a) Prop. 2 condition Pr[q]_r ≥ e^{-ε} Pr[q+2Δe_r]_r exactly (fmpq) on all 125 (q, r) with q ∈ {0,…,−3}^n, n ≤ 3, ε = 2 log 2, Δ = 1; (b) Pr[M(q)=s] ≤ e^ε Pr[M(q+d)=s] exactly for 6516 (q, d, s), d ∈ {−1,0,1}^n, ε ∈ {2 log 2, 2 log(3/2)}; (c) dpexact.verification.decide.pure_dp.check_pairs (float screen, balls, exact on ties) over 54 random rational neighbour pairs (13 ratios equal to e^ε, decided exactly); regularity: see pf.lemma.3",
       scope_full="(a) Prop. 2 condition Pr[q]_r ≥ e^{-ε} Pr[q+2Δe_r]_r exactly (fmpq) on all 1677 (q, r) with q ∈ {0,…,−4}^n, n ≤ 4, ε = 2 log 2, Δ = 1; (b) Pr[M(q)=s] ≤ e^ε Pr[M(q+d)=s] exactly for 239292 (q, d, s), d ∈ {−1,0,1}^n, ε ∈ {2 log 2, 2 log(3/2)}; (c) dpexact.verification.decide.pure_dp.check_pairs (float screen, balls, exact on ties) over 192 random rational neighbour pairs (37 ratios equal to e^ε, decided exactly); regularity: see pf.lemma.3")
def theorem_1(quick: bool) -> Verdict:
    # (a) Proposition 2's condition exactly on integer vectors (ε = 2 log 2, e^{-ε} = 1/4)
    n_max, k = (3, 3) if quick else (4, 4)
    checked, tight_far, min_slack, viol = 0, 0, None, []
    for n in range(2, n_max + 1):
        for q in _all_orders(_lattice_vectors(n, k)):
            base = _exact_pmf("pf", q)
            for r in range(n):
                q2 = list(q)
                q2[r] += 2
                up = _exact_pmf("pf", q2)[r]
                slack = base[r] - Fraction(1, 4) * up
                checked += 1
                if slack < 0:
                    viol.append({"q": q, "r": r, "slack": str(slack)})
                if q[r] <= max(q) - 2 and slack == 0:
                    tight_far += 1
                min_slack = slack if min_slack is None else min(min_slack, slack)
    far = sum(1 for n in range(2, n_max + 1) for q in _all_orders(_lattice_vectors(n, k)) for r in range(n) if q[r] <= max(q) - 2)
    # (b) the DP inequality itself, exactly, for every integer neighbour offset d ∈ {−1,0,1}^n
    exact_pairs, exact_max, exact_bad = _exact_dp_ratio(n_max=3 if quick else 4, k=2 if quick else 3, offsets=(-1, 0, 1), factor=1)
    # (c) direct DP ratio on random rational vectors and their neighbours, in balls
    worst, at_equality, bad, pairs, undecided = _dp_ratio_search("pf", quick, monotone_neighbours=False)
    scope = (f"(a) Prop. 2 condition Pr[q]_r ≥ e^{{-ε}} Pr[q+2Δe_r]_r exactly (fmpq) on all {checked} (q, r) with q ∈ {{0,…,−{k}}}^n, "
             f"n ≤ {n_max}, ε = 2 log 2, Δ = 1; (b) Pr[M(q)=s] ≤ e^ε Pr[M(q+d)=s] exactly for {exact_pairs} (q, d, s), d ∈ {{−1,0,1}}^n, "
             f"ε ∈ {{2 log 2, 2 log(3/2)}}; (c) dpexact.verification.decide.pure_dp.check_pairs (float screen, balls, exact on ties) over {pairs} random "
             f"rational neighbour pairs ({at_equality} ratios equal to e^ε, decided exactly); regularity: see pf.lemma.3")
    ev = {"prop2_pairs_checked": checked, "prop2_violations": viol[:5], "prop2_min_slack": str(min_slack),
          "equality_when_q_r<=q*-2Δ": f"{tight_far}/{far}", "exact_max_ratio/e^eps": str(exact_max), "exact_violations": exact_bad[:5],
          "verifier_max_log_ratio-eps": worst, "verifier_ties_decided_exactly": at_equality, "verifier_violations": bad[:5], "verifier_undecided": undecided}
    if viol or bad or exact_bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev)


def _exact_dp_ratio(n_max: int, k: int, offsets: tuple[int, ...], factor: int, monotone: bool = False) -> tuple[int, Fraction, list]:
    """max over integer q, offsets d and outputs s of Pr[M(q)=s] / (e^{ε·factor/…} Pr[M(q+d)=s]), exactly.

    ``factor`` = 1: bound e^ε; ``factor`` = 2: bound e^{ε/2} (ε = 2 log a so e^{ε/2} = a).
    """
    pairs, worst, bad = 0, Fraction(0), []
    for a in (Fraction(2), Fraction(3, 2)):
        eps = f"2*log({a})"
        bound = a**2 if factor == 1 else a
        for n in range(2, n_max + 1):
            for q in _all_orders(_lattice_vectors(n, k)):
                P = _exact_pmf("pf", q, eps, monotone)
                for d in itertools.product(offsets, repeat=n):
                    P2 = _exact_pmf("pf", [x + y for x, y in zip(q, d)], eps, monotone)
                    for s in range(n):
                        for u, v in ((P[s], P2[s]), (P2[s], P[s])):
                            pairs += 1
                            r = u / (bound * v)
                            worst = max(worst, r)
                            if r > 1:
                                bad.append({"epsilon": eps, "q": q, "d": d, "s": s, "ratio/bound": str(r)})
    return pairs, worst, bad


def _dp_ratio_search(name: str, quick: bool, monotone_neighbours: bool, target_eps_factor: Any = 1) -> tuple[float, int, list, int, list]:
    """Random rational vectors and neighbours, decided by :func:`dpexact.verification.decide.pure_dp.check_pairs`
    (float screen, then ball arithmetic, exact arithmetic on ties) against the claimed ε·factor.

    Returns (largest certified upper bound of log-ratio − claimed ε, number of triples decided
    only in exact arithmetic — ratios equal to the bound —, violations, number of pairs,
    undecided triples).

    Neighbours q' = q + d with d ∈ [−Δ, Δ]^n (or [0, Δ]^n when ``monotone_neighbours``),
    including the worst-case corner d = Δ(e_r − (1 − e_r)) of pf Prop. 2 (or Δe_r).
    """
    from dpexact.numbers import Real
    from dpexact.verification.neighbourhoods import LInfBox, MonotoneBox
    from dpexact.verification.decide.pure_dp import check_pairs
    from dpexact.suites.soundness import Misclaimed

    rng = np.random.default_rng(2)
    nb = MonotoneBox(1) if monotone_neighbours else LInfBox(1)
    worst, at_bound, bad, n_pairs, undecided = -math.inf, 0, [], 0, []
    for eps in ("1/2", "1", "7/3"):
        m = mech(name, eps)
        claimed = m if target_eps_factor == 1 else Misclaimed(m, str(Real.of(eps) * Real.of(target_eps_factor)))
        pairs = []
        for n in (2, 3, 5) if quick else (2, 3, 4, 6):
            for _ in range(3 if quick else 8):
                q = [Fraction(s) for s in random_scores(rng, n, spread=3.0)]
                r = int(rng.integers(0, n))
                if monotone_neighbours:
                    nbrs = [[x + (1 if i == r else 0) for i, x in enumerate(q)], [x + Fraction(int(rng.integers(0, 9)), 8) for x in q]]
                else:
                    nbrs = [[x + (1 if i == r else -1) for i, x in enumerate(q)], [x + Fraction(int(rng.integers(-8, 9)), 8) for x in q]]
                pairs += [(tuple(q), tuple(q2)) for q2 in nbrs]
        res = check_pairs(claimed, pairs, nb)
        n_pairs += res.pairs
        at_bound += res.decided_exact
        worst = max(worst, res.worst_certified_hi - Real.of(claimed.epsilon).to_float())
        if res.counterexample is not None:
            bad.append({"epsilon": eps, **res.counterexample.as_dict()})
        elif not res.certified_all:
            undecided += [{"epsilon": eps, "triple": str(t)} for t in res.undecided_triples[:3]]
    return worst, at_bound, bad, n_pairs, undecided


@claim("pf.proposition.2", "A regular mechanism is ε-DP if Pr[M(q)=r] ≥ exp(−ε) Pr[M(q+2Δe_r)=r] for all (q, r); "
       "the worst-case neighbour of q for output r is q_r+Δ, q_s−Δ (s ≠ r).", "pf §3.1, Proposition 2 (proof App. B)",
       expected="holds",
       scope_quick="EM and PF (regular), ε = 2 log 2, Δ = 1, q ∈ {0,…,−2}^n, n ≤ 3; all offsets d ∈ {−1,0,1}^n; exact fmpq",
       scope_full="EM and PF (regular), ε = 2 log 2, Δ = 1, q ∈ {0,…,−3}^n, n ≤ 3; all offsets d ∈ {−1,0,1}^n; exact fmpq")
def proposition_2(quick: bool) -> Verdict:
    # For the regular mechanisms EM and PF: (i) the worst-case neighbour (shifted) equals q + 2Δe_r
    # exactly, and (ii) no neighbour on a grid gives a larger ratio than it (exact enumeration).
    n_max, k = (3, 2) if quick else (3, 3)
    checked, bad = 0, []
    for name in ("em", "pf"):
        for n in range(2, n_max + 1):
            for q in _all_orders(_lattice_vectors(n, k)):
                base = _exact_pmf(name, q)
                for r in range(n):
                    q2 = [x + (1 if i == r else -1) for i, x in enumerate(q)]
                    worst_nb = _exact_pmf(name, q2)[r] / base[r]
                    q3 = list(q)
                    q3[r] += 2
                    if worst_nb != _exact_pmf(name, q3)[r] / base[r]:
                        bad.append({"mechanism": name, "q": q, "r": r, "issue": "shift invariance"})
                    # every neighbour with integer offsets in {-1,0,1}^n
                    for d in itertools.product((-1, 0, 1), repeat=n):
                        ratio = _exact_pmf(name, [x + y for x, y in zip(q, d)])[r] / base[r]
                        checked += 1
                        if ratio > worst_nb:
                            bad.append({"mechanism": name, "q": q, "r": r, "d": d, "ratio": str(ratio), "worst": str(worst_nb)})
    scope = f"EM and PF (regular), ε = 2 log 2, Δ = 1, q ∈ {{0,…,−{k}}}^n, n ≤ {n_max}; all offsets d ∈ {{−1,0,1}}^n; exact fmpq"
    ev = {"neighbour_pairs": checked, "counterexamples": bad[:5],
          "note": "the condition is sufficient (proof via monotonicity + shift invariance); checked that the corner neighbour maximises the ratio"}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


@claim("pf.proposition.3", "M_PF solves the recurrence (6): Pr[M(q)=r] = exp(ε(q_r−q*)/(2Δ)) Pr[M(q+(q*−q_r)e_r)=r] "
       "for q_r < q*, and Pr[M(q)=r] = (1 − Σ_{s:q_s<q*} Pr[M(q)=s])/n_* for q_r = q*.", "pf §3.1, eq. (6), Proposition 3",
       expected="holds",
       scope_quick="exact (fmpq) on 205 (q, r), q integer in [−3, 0]^n, n ≤ 4, ε = 2 log 2; arb on 16 case-1 identities for random rational q, ε = 0.9",
       scope_full="exact (fmpq) on 691 (q, r), q integer in [−4, 0]^n, n ≤ 5, ε = 2 log 2; arb on 45 case-1 identities for random rational q, ε = 0.9")
def proposition_3(quick: bool) -> Verdict:
    n_max, k = (4, 3) if quick else (5, 4)
    checked, bad = 0, []
    for n in range(2, n_max + 1):
        for q in _all_orders(_lattice_vectors(n, k)) if n <= 3 else _lattice_vectors(n, k):
            P = _exact_pmf("pf", q)
            qs = max(q)
            nstar = sum(1 for x in q if x == qs)
            rest = Fraction(1) - sum((P[s] for s in range(n) if q[s] < qs), Fraction(0))
            for r in range(n):
                checked += 1
                if q[r] < qs:
                    q2 = list(q)
                    q2[r] = qs
                    rhs = Fraction(1, 2 ** (qs - q[r])) * _exact_pmf("pf", q2)[r]
                else:
                    rhs = rest / nstar
                if P[r] != rhs:
                    bad.append({"q": q, "r": r, "lhs": str(P[r]), "rhs": str(rhs)})
    # non-lattice (real) vectors: case 1 in balls
    rng = np.random.default_rng(3)
    undec, real_checked = 0, 0
    with ball_context(128):
        m = mech("pf", "0.9")
        for _ in range(6 if quick else 20):
            q = [Fraction(s) for s in random_scores(rng, int(rng.integers(2, 6)), spread=3.0, denominator=7)]
            P = m.pmf([str(x) for x in q], backend="ball").values
            for r in range(len(q)):
                if q[r] < 0:
                    q2 = list(q)
                    q2[r] = Fraction(0)
                    rhs = (arb_of("0.9") / 2 * arb_of(q[r])).exp() * m.pmf([str(x) for x in q2], backend="ball").values[r]
                    real_checked += 1
                    if not (P[r] - rhs).contains(0):
                        bad.append({"q": [str(x) for x in q], "r": r, "epsilon": "0.9", "lhs": str(P[r]), "rhs": str(rhs)})
                    elif float((P[r] - rhs).rad()) > 1e-20:
                        undec += 1
    scope = f"exact (fmpq) on {checked} (q, r), q integer in [−{k}, 0]^n, n ≤ {n_max}, ε = 2 log 2; arb on {real_checked} case-1 identities for random rational q, ε = 0.9"
    ev = {"exact_checked": checked, "ball_checked": real_checked, "ball_wide": undec, "mismatches": bad[:5]}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


@claim("pf.equation.5", "On the 2Δ-lattice the recurrence (5) — Pr[M(q)=r] = e^{−ε} Pr[M(q+2Δe_r)=r] if q_r ≤ q*−2Δ, "
       "(1 − Σ_{s:q_s<q*} Pr[M(q)=s])/n_* if q_r = q* — defines a unique mechanism, and it is M_PF.", "pf §3.1, eq. (5)",
       expected="holds",
       scope_quick="exact (fmpq): recurrence (5) solved by memoised recursion on every class of Q(n,k), n ≤ 4, k ≤ 3, ε ∈ {log 2, log(5/4)} (Δ = 1), against dpexact's exact PF pmf; symmetry makes the class form equivalent",
       scope_full="exact (fmpq): recurrence (5) solved by memoised recursion on every class of Q(n,k), n ≤ 5, k ≤ 4, ε ∈ {log 2, log(5/4)} (Δ = 1), against dpexact's exact PF pmf; symmetry makes the class form equivalent")
def equation_5(quick: bool) -> Verdict:
    from flint import fmpq

    # The recursion moves r up one lattice step (fewer total levels) and ends at n_* = n; in classes (counts per level):
    # z(c, ℓ) = ρ z(c − e_ℓ + e_{ℓ−1}, ℓ − 1) for ℓ ≥ 1, z(c, 0) = (1 − Σ_{ℓ≥1} c_ℓ z(c, ℓ)) / c_0.
    def solve(k: int, a: Fraction) -> dict:
        rho = fmpq(a.denominator, a.numerator)
        memo: dict = {}

        def z(c: tuple[int, ...], l: int) -> Any:
            if (c, l) not in memo:
                if l:
                    c2 = list(c)
                    c2[l] -= 1
                    c2[l - 1] += 1
                    memo[(c, l)] = rho * z(tuple(c2), l - 1)
                else:
                    memo[(c, l)] = (1 - sum((cnt * z(c, j) for j, cnt in enumerate(c) if cnt and j), fmpq(0))) / c[0]
            return memo[(c, l)]

        return z

    checked, bad = 0, []
    for a in (Fraction(2), Fraction(5, 4)):
        for n in range(2, 5 if quick else 6):
            for k in range(1, 4 if quick else 5):
                z = solve(k, a)
                for c in _classes(n, k):
                    q = _class_scores(c)
                    P = _exact_pmf("pf", q, _eps_of(a))  # dpexact's PF, exact
                    for i, x in enumerate(q):
                        checked += 1
                        if fmpq(P[i].numerator, P[i].denominator) != z(c, -x // 2):
                            bad.append({"epsilon": _eps_of(a), "class": c, "level": -x // 2})
    scope = (f"exact (fmpq): recurrence (5) solved by memoised recursion on every class of Q(n,k), n ≤ {4 if quick else 5}, k ≤ {3 if quick else 4}, "
             "ε ∈ {log 2, log(5/4)} (Δ = 1), against dpexact's exact PF pmf; symmetry makes the class form equivalent")
    return Verdict("refuted" if bad else "holds", True, scope, {"probabilities_compared": checked, "mismatches": bad[:5]})


@claim("pf.algorithm.2", "Algorithm 2 (repeatedly draw r uniformly with replacement, return it with probability p_r = exp(ε(q_r − q*)/(2Δ))) "
       "samples from the exponential mechanism M_EM.", "pf §4, Algorithm 2",
       expected="holds",
       scope_quick="exact (Fraction): output law of Algorithm 2 (geometric series) vs dpexact's EM pmf on 64 integer vectors, n ≤ 4, ε = 2 log 2",
       scope_full="exact (Fraction): output law of Algorithm 2 (geometric series) vs dpexact's EM pmf on 99 integer vectors, n ≤ 5, ε = 2 log 2")
def algorithm_2(quick: bool) -> Verdict:
    # Output law of Algorithm 2: each round returns r with probability p_r/n, continues with 1 − A, A = Σ_s p_s/n,
    # so Pr[r] = Σ_{t≥0} (1 − A)^t p_r/n = p_r/(nA) (geometric series; A ≥ 1/n > 0 because p at the maximum is 1).
    checked, bad = 0, []
    for n in range(2, 5 if quick else 6):
        for q in _all_orders(_lattice_vectors(n, 3)) if n <= 3 else _lattice_vectors(n, 3):
            p = _coins(q)
            A = sum(p, Fraction(0)) / n
            law = [pr / n / A for pr in p]
            checked += 1
            if law != _exact_pmf("em", q):
                bad.append({"q": q})
    return Verdict("refuted" if bad else "holds", True, f"exact (Fraction): output law of Algorithm 2 (geometric series) vs dpexact's EM pmf on {checked} integer vectors, n ≤ {4 if quick else 5}, ε = 2 log 2",
                   {"vectors": checked, "mismatches": bad[:5]})


def _alg3_law(p: list[Fraction]) -> list[Fraction]:
    """Exact output law of pf Algorithm 3 (draw without replacement, return the drawn r with probability p_r)."""

    @functools.lru_cache(maxsize=None)
    def P(rest: frozenset) -> tuple[Fraction, ...]:
        out = [Fraction(0)] * len(p)
        for s_ in rest:
            w = Fraction(1, len(rest))
            out[s_] += w * p[s_]
            if p[s_] != 1 and len(rest) > 1:
                sub = P(rest - {s_})
                for r in range(len(p)):
                    out[r] += w * (1 - p[s_]) * sub[r]
        return tuple(out)

    return list(P(frozenset(range(len(p)))))


@claim("pf.algorithm.3", "Algorithm 3 (draw items uniformly without replacement, return the drawn r with probability p_r) is equivalent to "
       "Algorithm 1 (permute-and-flip).", "pf §4, Algorithm 3 and text",
       expected="holds",
       scope_quick="exact (Fraction): output law of Algorithm 3 by recursion over the set of items not yet drawn vs dpexact's PF pmf (whose agreement with Algorithm 1's permutation sum is pf.lemma.1) on 64 integer vectors, n ≤ 4, ε = 2 log 2",
       scope_full="exact (Fraction): output law of Algorithm 3 by recursion over the set of items not yet drawn vs dpexact's PF pmf (whose agreement with Algorithm 1's permutation sum is pf.lemma.1) on 99 integer vectors, n ≤ 5, ε = 2 log 2")
def algorithm_3(quick: bool) -> Verdict:
    checked, bad = 0, []
    for n in range(2, 5 if quick else 6):
        for q in _all_orders(_lattice_vectors(n, 3)) if n <= 3 else _lattice_vectors(n, 3):
            checked += 1
            if _alg3_law(_coins(q)) != _exact_pmf("pf", q):
                bad.append({"q": q})
    scope = (f"exact (Fraction): output law of Algorithm 3 by recursion over the set of items not yet drawn vs dpexact's PF pmf (whose "
             f"agreement with Algorithm 1's permutation sum is pf.lemma.1) on {checked} integer vectors, n ≤ {4 if quick else 5}, ε = 2 log 2")
    return Verdict("refuted" if bad else "holds", True, scope, {"vectors": checked, "mismatches": bad[:5]})
