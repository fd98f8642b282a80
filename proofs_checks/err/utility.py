"""err: App. C: utility."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .._common import sorted_zero_sum_partial_sums
from ..catalogue import Verdict, claim
from ._helpers import EPS, _arb, _ball, _bee, _chain, _em, _fr, _interval, _lattice, _mech, _xerr, _xpmf


def _box_sup_m3(p: float, eps: float, boxes: int) -> Any:
    """Upper bound (arb) of sup E[E(M_ERR, q)] over q = (0, −a, −a−b), a, b ∈ [0, Δ] (n = 3, T = R by Algorithm 3)."""
    from flint import arb

    P, e = _arb(Fraction(p).limit_denominator(10**6)), _arb(Fraction(eps).limit_denominator(10**6))
    best = None
    with _ball(64):
        for i in range(boxes):
            for j in range(boxes):
                a = arb((2 * i + 1) / (2 * boxes), 1 / (2 * boxes))
                b = arb((2 * j + 1) / (2 * boxes), 1 / (2 * boxes))
                w1, w2 = (-e * a / 2).exp(), (-e * (a + b) / 2).exp()
                em = (w1 * a + w2 * (a + b)) / (1 + w1 + w2)
                E = (1 - P) * em + P * (2 * a + b) / 3
                up = E.upper()
                best = up if best is None or up > best else best
    return best


@claim("err.proposition.1", "Given q ∈ R^n and M_ERR, the optimal expected error occurs in scenarios where only one v_i is in T, while the "
       "worst-case expected error occurs in scenarios where all v_i are in T (eq. 8: m = 1 gives a smaller error than m > 1, "
       "m = |R| the largest).", "err App. C-A, Proposition 1 (used in §V-A/§V-B)",
       expected="refuted",
       severity="false-statement",
       scope_quick="exact (fmpq) errors at ε = 2 log 2; arb enclosure of the sup over the m = 3 region (Algorithm 3's T) at ε = 1; exact fixed-q monotonicity on q ∈ {0,…,−3}^n, n ≤ 4",
       scope_full="exact (fmpq) errors at ε = 2 log 2; arb enclosure of the sup over the m = 3 region (Algorithm 3's T) at ε = 1; exact fixed-q monotonicity on q ∈ {0,…,−4}^n, n ≤ 5")
def proposition_1(quick: bool) -> Verdict:
    from flint import arb

    p = "1/2"
    qa, qb = (0, 0, 0), (0, -2, -2)
    Ea, Eb = _xerr(_xpmf("err", qa, p), qa), _xerr(_xpmf("err", qb, p), qb)
    # worst case: n = 3, ε = 1, p = 1/100: a vector with m = 1 beats the sup over all m = 3 vectors (arb boxes)
    sup3 = _box_sup_m3(0.01, 1.0, 12 if quick else 30)
    qw = ("0", "-3", "-3")
    Ew = _bee("err", list(qw), "1", "1/100")
    worst_refuted = bool(Ew > arb(sup3))
    # fixed-q counterfactual reading: replace T by the top-m set, m = 1..n — eq. 8 is non-decreasing in m
    n_max, k = (4, 3) if quick else (5, 4)
    mono, cnt = True, 0
    for n in range(2, n_max + 1):
        for q in _lattice(n, k):
            em = _em(q)
            P = Fraction(1, 2)
            vals = [-(1 - P) * sum(x * e for x, e in zip(q, em)) - P * Fraction(sum(q[:m]), m) for m in range(1, n + 1)]
            cnt += 1
            mono &= all(a <= b for a, b in zip(vals, vals[1:]))
    ev = {"optimal_part": {"q (m = 3 = |R|)": qa, "E": str(Ea), "q' (m = 1)": qb, "E'": str(Eb), "p": p, "eps": "2 log 2"},
          "worst_part": {"n": 3, "eps": 1, "p": "1/100", "q (m = 1)": qw, "E": str(Ew), "sup over all q with T = R (arb boxes)": str(sup3),
                         "refuted": worst_refuted},
          "fixed_q_reading": {"vectors": cnt, "error non-decreasing in m when T is replaced by the top-m set": mono},
          "condition": "true only as a statement about one fixed q with T artificially replaced by its top-m set; across score vectors "
                       "(scenarios) both parts fail"}
    ok = Ea < Eb
    return Verdict("refuted" if ok else "holds", True,
                   "exact (fmpq) errors at ε = 2 log 2; arb enclosure of the sup over the m = 3 region (Algorithm 3's T) at ε = 1; "
                   f"exact fixed-q monotonicity on q ∈ {{0,…,−{k}}}^n, n ≤ {n_max}", ev)


@claim("err.equation.8", "E[E(M_ERR, q)] = q* − Σ_r q_r (1−p) p_r/Σ p_r' − Σ_{r∈T} (p/m) q_r.", "err App. C-A, eq. (8)",
       expected="holds",
       scope_quick="exact (fmpq): 136 (q, p, reading), q ∈ {0,…,−3}^n, n ≤ 4, ε = 2 log 2",
       scope_full="exact (fmpq): 500 (q, p, reading), q ∈ {0,…,−4}^n, n ≤ 5, ε = 2 log 2")
def equation_8(quick: bool) -> Verdict:
    n_max, k = (4, 3) if quick else (5, 4)
    checked, bad = 0, []
    for reading, fn in (("chain", _chain), ("interval", _interval)):
        for n in range(2, n_max + 1):
            for q in _lattice(n, k):
                T = fn(q)
                em = _em(q)
                for p in ("1/4", "3/4"):
                    P = Fraction(p)
                    rhs = max(q) - sum((1 - P) * x * e for x, e in zip(q, em)) - sum(P / len(T) * q[r] for r in T)
                    lhs = _xerr(_xpmf("err", q, p, EPS, (("candidate_set", reading),)), q)
                    checked += 1
                    if lhs != rhs:
                        bad.append({"q": q, "p": p, "reading": reading})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {checked} (q, p, reading), q ∈ {{0,…,−{k}}}^n, n ≤ {n_max}, ε = 2 log 2",
                   {"checked": checked, "mismatches": bad[:3]})


@claim("err.lemma.4", "If f_1 ≤ … ≤ f_n and Σ_r f_r = 0, every partial sum Σ_{r≤s} f_r ≤ 0 (printed with hypothesis "
       "'Σ_{r=1}^s f_r = 0', included 'verbatim from [pf]').", "err App. C-B, Lemma 4",
       expected="holds",
       scope_quick="exact rationals: 1224 partial sums of random sorted zero-sum vectors, n ≤ 11",
       scope_full="exact rationals: 12124 partial sums of random sorted zero-sum vectors, n ≤ 11")
def lemma_4(quick: bool) -> Verdict:
    checked, bad, scope = sorted_zero_sum_partial_sums(quick)
    return Verdict("refuted" if bad else "holds", True, scope,
                   {"partial_sums": checked, "counterexamples": bad[:3],
                    "typos": ["hypothesis 2 prints Σ_{r=1}^{s} f_r = 0 (Σ_{r=1}^{n} is meant; as printed the lemma is a tautology)",
                              "the proof says 'the partial sum is non-negative' where non-positive is meant"]})


@claim("err.theorem.3", "For datasets with |T| = 1, M_ERR is never worse than M_EM: E[E(M_ERR,q)] ≤ E[E(M_EM,q)] and "
       "Pr[E(M_ERR,q) ≥ t] ≤ Pr[E(M_EM,q) ≥ t] (eqs. 7, 9, 10: f_r = −p p_r/Σp_r' ≤ 0 for r ∉ T).", "err App. C-B, Theorem 3 (Fig. 12)",
       expected="holds",
       scope_quick="exact (fmpq): 56 (q, p, reading) with |T| = 1, q ∈ {0,…,−4}^n, n ≤ 4, ε = 2 log 2 — tails at every level; arb: 4 random rational q with a top gap > Δ",
       scope_full="exact (fmpq): 206 (q, p, reading) with |T| = 1, q ∈ {0,…,−5}^n, n ≤ 5, ε = 2 log 2 — tails at every level; arb: 15 random rational q with a top gap > Δ")
def theorem_3(quick: bool) -> Verdict:
    from dpexact.utility import error_tail, stochastic_dominance

    n_max, k = (4, 4) if quick else (5, 5)
    checked, bad = 0, []
    for reading, fn in (("chain", _chain), ("interval", _interval)):
        for n in range(2, n_max + 1):
            for q in _lattice(n, k):
                if len(fn(q)) != 1:
                    continue
                for p in ("1/4", "3/4"):
                    m = _mech("err", EPS, p, candidate_set=reading)
                    d = stochastic_dominance(m, _mech("em"), list(q), backend="exact", recheck=None)
                    ta, tb = error_tail(m, list(q), backend="exact"), error_tail(_mech("em"), list(q), backend="exact")
                    ident = all(_fr(a) == (1 - Fraction(p)) * _fr(b) for a, b in zip(ta.values[1:], tb.values[1:]))
                    checked += 1
                    if not d.dominates or not ident:
                        bad.append({"q": q, "p": p, "reading": reading})
    rng = np.random.default_rng(12)
    ball_n, undec = 0, 0
    for _ in range(4 if quick else 15):
        n = int(rng.integers(2, 8))
        q = ["0"] + [f"-{int(x)}/8" for x in rng.integers(9, 80, size=n - 1)]  # gap > Δ: |T| = 1
        eps = ("1/10", "1", "4")[int(rng.integers(0, 3))]
        d = stochastic_dominance(_mech("err", eps, "1/3"), _mech("em", eps), q, backend="float", recheck="ball")
        ball_n += 1
        if d.dominates is False:
            bad.append({"q": q, "eps": eps})
        elif d.dominates is None:
            undec += 1
    scope = (f"exact (fmpq): {checked} (q, p, reading) with |T| = 1, q ∈ {{0,…,−{k}}}^n, n ≤ {n_max}, ε = 2 log 2 — tails at every level; "
             f"arb: {ball_n} random rational q with a top gap > Δ")
    ev = {"checked_exact": checked, "ball_vectors": ball_n, "undecided": undec, "counterexamples": bad[:3],
          "identity": "Pr[E_ERR ≥ t] = (1−p) Pr[E_EM ≥ t] for t > 0 exactly, so E_ERR = (1−p) E_EM"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undec else "holds", not undec, scope, ev)


@claim("err.lemma.5", "There is always a range of p in [0, 1] where the expected error of M_ERR is never worse than M_PF for datasets "
       "with |T| = 1 (eq. 11).", "err App. C-B, Lemma 5",
       expected="holds",
       scope_quick="exact (fmpq): every sorted integer q ∈ {0,…,−4}^n with |T| = 1, n ≤ 4, ε = 2 log 2; E_ERR vs E_PF at p0 = 1 − E_PF/E_EM, (1+p0)/2, 1 and p0/2",
       scope_full="exact (fmpq): every sorted integer q ∈ {0,…,−5}^n with |T| = 1, n ≤ 5, ε = 2 log 2; E_ERR vs E_PF at p0 = 1 − E_PF/E_EM, (1+p0)/2, 1 and p0/2")
def lemma_5(quick: bool) -> Verdict:
    n_max, k = (4, 4) if quick else (5, 5)
    rows, bad, p0max, checked = [], [], Fraction(0), 0
    for n in range(2, n_max + 1):
        for q in _lattice(n, k):
            if len(_chain(q)) != 1:
                continue
            Eem, Epf = _xerr(_xpmf("em", q), q), _xerr(_xpmf("pf", q), q)
            p0 = 1 - Epf / Eem
            p0max = max(p0max, p0)
            tests = [(p0, "le"), ((1 + p0) / 2, "le"), (Fraction(1), "le")] + ([(p0 / 2, "gt")] if p0 > 0 else [])
            for pp, want in tests:
                E = _xerr(_xpmf("err", q, str(pp)), q)
                checked += 1
                if (want == "le" and E > Epf) or (want == "gt" and not E > Epf):
                    bad.append({"q": q, "p": str(pp)})
            if len(rows) < 4 and p0 > 0:
                rows.append({"q": q, "range of p": f"[{p0}, 1]", "p0": float(p0)})
    return Verdict("refuted" if bad else "holds", True,
                   f"exact (fmpq): every sorted integer q ∈ {{0,…,−{k}}}^n with |T| = 1, n ≤ {n_max}, ε = 2 log 2; E_ERR vs E_PF at "
                   "p0 = 1 − E_PF/E_EM, (1+p0)/2, 1 and p0/2",
                   {"checked": checked, "examples": rows, "max p0 (a uniform range is [max p0, 1])": str(p0max), "max_p0_float": float(p0max),
                    "violations": bad[:3], "range": "exactly [1 − E_PF/E_EM, 1] for each q, since E_ERR = (1−p) E_EM is linear in p"})


@claim("err.lemma.6", "The expected error of M_ERR can be worse than M_EM for datasets with |T| > 1 (better iff 1/m ≤ p_r/Σ p_r' for "
       "the non-optimal members of T).", "err App. C-C, Lemma 6",
       expected="holds",
       scope_quick="exact (fmpq), ε = 2 log 2, Δ = 1",
       scope_full="exact (fmpq), ε = 2 log 2, Δ = 1")
def lemma_6(quick: bool) -> Verdict:
    rows = []
    for q in ((0, -1), (0, -1, -2, -3)):
        for p in ("1/10", "1/2"):
            Ee, Em = _xerr(_xpmf("err", q, p), q), _xerr(_xpmf("em", q), q)
            rows.append({"q": q, "p": p, "|T|": len(_chain(q)), "E_ERR": str(Ee), "E_EM": str(Em), "worse": Ee > Em})
    ok = all(r["worse"] for r in rows)
    return Verdict("holds" if ok else "refuted", True, "exact (fmpq), ε = 2 log 2, Δ = 1", {"examples": rows})
