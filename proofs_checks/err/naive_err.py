"""err: §III-A: naive ERR."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..catalogue import Verdict, claim
from ._helpers import EPS, _arb, _ball, _em, _hist_neighbours, _lattice, _mech, _orders, _s, _xerr, _xpmf


@claim("err.algorithm.2", "Algorithm 2 (naive M_ERR) implements Fig. 1: with probability p return argmax q_r, otherwise "
       "M_EM (rejection loop with acceptance (1−p) exp(ε(q_r − q*)/(2Δ))).", "err §III-A, Fig. 1 and Algorithm 2",
       expected="holds",
       scope_quick="exact (fmpq): 68 (q, p), integer q, n ≤ 4, ε = 2 log 2, p ∈ {1/4, 3/4}",
       scope_full="exact (fmpq): 138 (q, p), integer q, n ≤ 5, ε = 2 log 2, p ∈ {1/4, 3/4}")
def algorithm_2(quick: bool) -> Verdict:
    checked, bad, ties = 0, [], 0
    for n in range(2, (4 if quick else 5) + 1):
        for q in _lattice(n, 3):
            top = max(q)
            for P in (Fraction(1, 4), Fraction(3, 4)):
                acc = [(1 - P) * Fraction(1, 2 ** (top - x)) for x in q]  # line 6
                rej = [x / sum(acc) for x in acc]  # law of lines 4-7 (the factor 1−p cancels)
                tops = [i for i, x in enumerate(q) if x == top]
                ties += len(tops) > 1
                law = [P * (Fraction(1, len(tops)) if r in tops else 0) + (1 - P) * rej[r] for r in range(n)]
                fig1 = [P * (Fraction(1, len(tops)) if r in tops else 0) + (1 - P) * e for r, e in enumerate(_em(q))]
                checked += 1
                if law != fig1 or list(_xpmf("err-naive", q, str(P))) != law:
                    bad.append({"q": q, "p": str(P)})
    return Verdict("refuted" if bad else "holds", True,
                   f"exact (fmpq): {checked} (q, p), integer q, n ≤ {4 if quick else 5}, ε = 2 log 2, p ∈ {{1/4, 3/4}}",
                   {"checked": checked, "mismatches": bad[:3], "vectors_with_tied_argmax": ties,
                    "note": "ties in argmax are not covered by the paper; a uniform tie-break is used (dpexact tie_break='uniform'). "
                            "Line 6's factor (1−p) only slows the loop: it cancels in the law"})


def _ratio_all(name: str, q: tuple, q2: tuple, p: str, eps: str = EPS, kw: tuple = ()) -> tuple[Fraction, int]:
    """max_r Pr[M(q)=r]/Pr[M(q2)=r] over both orders (exact; inf as a large sentinel)."""
    A, B = _xpmf(name, q, p, eps, kw), _xpmf(name, q2, p, eps, kw)
    best, arg = Fraction(0), -1
    for r in range(len(q)):
        for u, v in ((A[r], B[r]), (B[r], A[r])):
            if v == 0:
                if u > 0:
                    return Fraction(10**30), r
                continue
            if u / v > best:
                best, arg = u / v, r
    return best, arg


@claim("err.text.naive-dp-with-gap", "If q* is more than Δ apart from every other score (e.g. (5,3,1): the mode of q and of any "
       "neighbour such as (4,3,1) or (5,4,1) is still r1), naive M_ERR fulfils ε-differential privacy.", "err §III-A",
       expected="holds",
       scope_quick="exact (fmpq): 372 (q, q', p) with integer q, q1 − q2 ≥ 2, n ≤ 3, all add/remove neighbours, p ∈ {1/4, 9/10}, ε = 2 log 2; arb: 6 random rational q (gap > Δ) with ℓ1-neighbours, p = 0.9",
       scope_full="exact (fmpq): 2100 (q, q', p) with integer q, q1 − q2 ≥ 2, n ≤ 4, all add/remove neighbours, p ∈ {1/4, 9/10}, ε = 2 log 2; arb: 25 random rational q (gap > Δ) with ℓ1-neighbours, p = 0.9")
def naive_dp_with_gap(quick: bool) -> Verdict:
    # exact: every integer q with q1 − q2 ≥ 2 > Δ and every add/remove neighbour (ℓ1 = Δ = 1)
    n_max, k = (3, 4) if quick else (4, 4)
    pairs, worst, bad = 0, Fraction(0), []
    for n in range(2, n_max + 1):
        for q in _orders(_lattice(n, k)):
            srt = sorted(q, reverse=True)
            if srt[0] - srt[1] <= 1:
                continue
            for q2 in _hist_neighbours(q):
                for p in ("1/4", "9/10"):
                    r, _ = _ratio_all("err-naive", q, q2, p)
                    pairs += 1
                    worst = max(worst, r / 4)
                    if r > 4:
                        bad.append({"q": q, "q'": q2, "p": p, "ratio/e^eps": str(r / 4)})
    # ball: random rational q with gap > Δ and random ℓ1 neighbours (mass split over two coordinates)
    rng = np.random.default_rng(11)
    ball_pairs, ball_bad, undec = 0, [], 0
    with _ball():
        for _ in range(6 if quick else 25):
            n = int(rng.integers(2, 6))
            eps = ("1/2", "1", "3")[int(rng.integers(0, 3))]
            rest = sorted((Fraction(-int(rng.integers(9, 40)), 8) for _ in range(n - 1)), reverse=True)
            q = [Fraction(0)] + rest  # gap ≥ 9/8 > Δ
            a, b = rng.choice(n, 2, replace=False) if n > 1 else (0, 0)
            t = Fraction(int(rng.integers(0, 9)), 8)
            q2 = list(q)
            q2[a] += t * (1 if rng.random() < 0.5 else -1)
            q2[b] += (1 - t) * (1 if rng.random() < 0.5 else -1)
            m = _mech("err-naive", eps, "0.9")
            A = m.pmf(_s(tuple(q)), backend="ball").values
            B = m.pmf(_s(tuple(q2)), backend="ball").values
            E = _arb(eps).exp()
            ball_pairs += 1
            for u, v in ((A, B), (B, A)):
                for r in range(n):
                    dlt = u[r] - E * v[r]
                    if dlt > 0:
                        ball_bad.append({"q": _s(tuple(q)), "q'": _s(tuple(q2)), "r": r, "eps": eps})
                    elif not dlt <= 0:
                        undec += 1
    scope = (f"exact (fmpq): {pairs} (q, q', p) with integer q, q1 − q2 ≥ 2, n ≤ {n_max}, all add/remove neighbours, "
             f"p ∈ {{1/4, 9/10}}, ε = 2 log 2; arb: {ball_pairs} random rational q (gap > Δ) with ℓ1-neighbours, p = 0.9")
    ev = {"exact_max_ratio/e^eps": str(worst), "violations": (bad + ball_bad)[:5], "ball_undecided": undec,
          "proof": "a unique argmax survives an ℓ1 change ≤ Δ when the gap exceeds Δ; then Pr = p[r=top] + (1−p)EM_r and "
                   "(p + (1−p)x)/(p + (1−p)y) ≤ max(1, x/y) ≤ e^ε",
          "note": "under ℓ∞ neighbours (every score moves by ≤ Δ) a gap in (Δ, 2Δ) does not protect the argmax: "
                  "(5, 3.5, 1) ~ (4, 4.5, 1); the paper's Definition 2 is ℓ1"}
    if bad or ball_bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undec else "holds", not undec, scope, ev)


@claim("err.text.naive-not-dp", "Without the gap assumption naive M_ERR is not differentially private: for (5,4,1) the neighbours "
       "(4,4,1) and (5,5,1) have maximisers r1 or r2.", "err §III-A",
       expected="holds",
       scope_quick="add/remove-one neighbours, ε = 2 log 2; exact (fmpq) re-check for n ≤ 60, arb (256 bits) beyond",
       scope_full="add/remove-one neighbours, ε = 2 log 2; exact (fmpq) re-check for n ≤ 60, arb (256 bits) beyond")
def naive_not_dp(quick: bool) -> Verdict:
    from dpexact.verification.decide.counterexample import Counterexample
    from dpexact.verification.neighbourhoods import HistogramAddRemove

    rows, proved = [], True
    # the paper's example, and the dilution family q = (0,−1,−1,…,−1) ~ q' = (0,0,−1,…,−1) (output r2):
    # ratio = [p/2 + 2(1−p)/(k+4)](k+3)/(1−p) ≥ p(k+3)/(2(1−p)), unbounded in k for every p > 0
    for p in ("1/10", "3/4") if quick else ("1/100", "1/10", "1/2", "3/4"):
        P = Fraction(p)
        if P >= Fraction(3, 4):
            q, q2, r = (5, 4, 1), (5, 5, 1), 1
        else:
            k = 1
            while (P / 2 + 2 * (1 - P) / (k + 4)) * (k + 3) / (1 - P) <= Fraction(9, 2):
                k += 1
            q, q2, r = (0, -1) + (-1,) * k, (0, 0) + (-1,) * k, 1
        m = _mech("err-naive", EPS, p)
        cx = Counterexample(m, HistogramAddRemove(), tuple(Fraction(x) for x in q2), tuple(Fraction(x) for x in q), r, math.nan, math.nan)
        exact = len(q) <= 60
        rc = cx.recheck("exact" if exact else "ball", 256)
        proved &= rc.proved
        row = {"p": p, "n": len(q), "q'": q2 if len(q2) < 8 else f"(0,0,−1×{len(q2) - 2})", "q": q if len(q) < 8 else f"(0,−1,−1×{len(q) - 2})",
               "output": r, "log_ratio": [rc.log_ratio_lo, rc.log_ratio_hi], "epsilon": math.log(4), "recheck": rc.arithmetic, "proved": rc.proved}
        if exact:
            A, B = _xpmf("err-naive", q2, p), _xpmf("err-naive", q, p)
            row["ratio"] = str(A[r] / B[r])
        rows.append(row)
    ev = {"counterexamples": rows, "note": "for every p > 0 the ratio grows linearly with the number of candidates tied one Δ below the top, "
          "so naive ERR is not ε-DP for any p > 0 (p = 0 is EM)"}
    return Verdict("holds" if proved else "inconclusive", proved,
                   "add/remove-one neighbours, ε = 2 log 2; exact (fmpq) re-check for n ≤ 60, arb (256 bits) beyond", ev)


@claim("err.text.naive-improvement-factor", "In the naive setting (q* more than Δ above every other score) M_ERR is never worse than "
       "M_EM and improves the expected error by a factor of 1/(1−p), 0 ≤ p < 1.", "err §III-A (pointing to Theorem 3)",
       expected="holds",
       scope_quick="exact (fmpq): 152 (q, p, mechanism), sorted integer q with q1 − q2 ≥ 2, n ≤ 4, ε = 2 log 2",
       scope_full="exact (fmpq): 1000 (q, p, mechanism), sorted integer q with q1 − q2 ≥ 2, n ≤ 6, ε = 2 log 2")
def naive_improvement(quick: bool) -> Verdict:
    checked, bad = 0, []
    for n in range(2, (4 if quick else 6) + 1):
        for q in _lattice(n, 4 if quick else 5):
            if len(q) > 1 and q[1] > -2:
                continue
            e_em = _xerr(_xpmf("em", q), q)
            for p in ("0", "1/4", "3/4", "99/100"):
                for name in ("err-naive", "err"):
                    e = _xerr(_xpmf(name, q, p), q)
                    checked += 1
                    if e != (1 - Fraction(p)) * e_em:
                        bad.append({"q": q, "p": p, "mechanism": name})
    return Verdict("refuted" if bad else "holds", True,
                   f"exact (fmpq): {checked} (q, p, mechanism), sorted integer q with q1 − q2 ≥ 2, n ≤ {4 if quick else 6}, ε = 2 log 2",
                   {"checked": checked, "E_ERR = (1−p) E_EM exactly": not bad, "mismatches": bad[:3]})
