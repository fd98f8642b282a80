"""err: Theorem 1 and its relatives: privacy."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

from ..catalogue import Verdict, claim
from ._helpers import EPS, READINGS, _chain, _interval, _lattice, _mech, _orders, _xpmf


def _t1_pair(k: int, reading: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Neighbours (add one record to candidate 2) where T jumps from {top} to all of R; output: the last candidate (score −k).

    chain:    q = (0,−2,−2,−3,…,−k)  → T = {r1};  q' = (0,−1,−2,−3,…,−k) → T = R
    interval: q = (0,−3,−3,−4,…,−k)  → T = {r1};  q' = (0,−2,−3,−4,…,−k) → T = R (smallest valid c = k)
    """
    if reading == "chain":
        tail = tuple(range(-3, -k - 1, -1))
        return (0, -2, -2) + tail, (0, -1, -2) + tail
    tail = tuple(range(-4, -k - 1, -1))
    return (0, -3, -3) + tail, (0, -2, -3) + tail


def _t1_smallest(p: str, reading: str, name: str = "err", eps: str = EPS, bound: Fraction = Fraction(4), kw: tuple = (), kmax: int = 40) -> dict:
    for k in range(2 if reading == "chain" else 3, kmax + 1):
        q, q2 = _t1_pair(k, reading)
        A = _xpmf(name, q2, p, eps, (("candidate_set", reading),) + kw)
        B = _xpmf(name, q, p, eps, (("candidate_set", reading),) + kw)
        if B[-1] == 0 or A[-1] / B[-1] > bound:
            return {"k": k, "n": len(q), "q": f"(0,{q[1]},{q[2]},…,−{k})", "q'": f"(0,{q2[1]},{q2[2]},…,−{k})", "output": "last",
                    "ratio": "inf" if B[-1] == 0 else str(A[-1] / B[-1]), "ratio_float": math.inf if B[-1] == 0 else float(A[-1] / B[-1]),
                    "T(q)": len(_chain(q) if reading == "chain" else _interval(q)), "T(q')": len(_chain(q2) if reading == "chain" else _interval(q2))}
    return {"k": None}


@functools.lru_cache(maxsize=None)
def _theorem1_evidence(quick: bool) -> tuple[dict, bool]:
    import sympy as sp

    from dpexact.verification.decide.counterexample import Counterexample
    from dpexact.verification.neighbourhoods import HistogramAddRemove, LInfBox
    from dpexact.verification.decide.pure_dp import check_pure_dp

    proved = True
    ev: dict = {}
    # (a) the paper's own example pair (5,3,1) ~ (4,3,1) (chain: T = {r1} vs {r1, r2}), output r2
    m = _mech("err", EPS, "1/2")
    cx = Counterexample(m, HistogramAddRemove(), (Fraction(4), Fraction(3), Fraction(1)), (Fraction(5), Fraction(3), Fraction(1)), 1, math.nan, math.nan)
    rc = cx.recheck("exact")
    proved &= rc.proved
    A, B = _xpmf("err", (4, 3, 1), "1/2"), _xpmf("err", (5, 3, 1), "1/2")
    ev["paper_example"] = {"q": (5, 3, 1), "q'": (4, 3, 1), "p": "1/2", "output": "r2", "Pr[q']": str(A[1]), "Pr[q]": str(B[1]),
                           "ratio": str(A[1] / B[1]), "e^eps": 4, "exact_recheck": rc.proved}
    # (b) every p > 0 is violated: smallest k of the family, both readings
    fam = {}
    for reading in READINGS:
        for p in ("1/100", "1/10", "1/2", "9/10", "1") if quick else ("1/1000", "1/100", "1/10", "1/2", "9/10", "1"):
            row = _t1_smallest(p, reading)
            fam[f"{reading}, p={p}"] = row
            proved &= row["k"] is not None
    ev["family (ε = 2 log 2)"] = fam
    # (c) small ε in balls: ε = 1/10, p = 1/100 (chain)
    k = 2
    while 0.01 * math.exp(0.05 * k) * 19.5 / ((k + 1) * 0.99) < 1.3:
        k += 1
    q, q2 = _t1_pair(k, "chain")
    m = _mech("err", "1/10", "1/100")
    cxb = Counterexample(m, HistogramAddRemove(), tuple(Fraction(x) for x in q2), tuple(Fraction(x) for x in q), len(q) - 1, math.nan, math.nan)
    rb = cxb.recheck("ball", 256)
    proved &= rb.proved
    ev["small_eps_ball"] = {"epsilon": "1/10", "p": "1/100", "n": len(q), "log_ratio": [rb.log_ratio_lo, rb.log_ratio_hi], "epsilon_float": 0.1,
                            "ball_recheck": rb.proved}
    # (d) dpexact.verification.decide.pure_dp.check_pure_dp on a small lattice, both readings, two neighbourhoods
    scan = {}
    vecs = _orders(_lattice(3, 3))
    for reading in READINGS:
        for nbname, nb in (("add/remove", HistogramAddRemove()),) + ((("ℓ∞ box", LInfBox(1)),) if not quick else ()):
            res = check_pure_dp(_mech("err", EPS, "1/2", candidate_set=reading), vecs, nb)
            c = res.counterexample
            scan[f"{reading}, {nbname}"] = None if c is None else {**c.as_dict(), "recheck": res.recheck.arithmetic, "proved": res.recheck.proved}
            proved &= c is not None and res.recheck.proved
    ev["check_pure_dp (n = 3, q ∈ {0,…,−3}^3, p = 1/2)"] = scan
    # (e) symbolic: Pr[M(q)=last] ≤ (1−p) e^{−kε/2}, Pr[M(q')=last] ≥ p/(k+1): the ratio is unbounded in k for every p, ε > 0
    pp, s, e, kk = sp.symbols("p s epsilon k", positive=True)  # s = 1 − p
    lim = sp.limit(pp * sp.exp(kk * e / 2) / ((kk + 1) * s), kk, sp.oo)
    ev["symbolic"] = {"lower bound on the ratio": "p e^{kε/2} / ((k+1)(1−p))", "limit k→∞": str(lim)}
    proved &= lim == sp.oo
    ev["condition"] = "holds only for p = 0 (ERR = EM); for every p ∈ (0, 1] and ε > 0 a violation exists once n is large enough"
    return ev, bool(proved)


@claim("err.theorem.1", "M_ERR is ε-differentially private (for any p ∈ [0, 1], any quality vector).", "err §III-C, Theorem 1 (proof in Fig. 4)",
       expected="refuted",
       severity="false-statement",
       scope_quick="add/remove-one neighbours (ℓ1 = Δ = 1, err Definition 2); both readings of T; exact (fmpq, ε = 2 log 2) and arb (ε = 1/10) re-checks; dpexact.verification.decide.pure_dp.check_pure_dp scan; sympy limit",
       scope_full="add/remove-one neighbours (ℓ1 = Δ = 1, err Definition 2); both readings of T; exact (fmpq, ε = 2 log 2) and arb (ε = 1/10) re-checks; dpexact.verification.decide.pure_dp.check_pure_dp scan; sympy limit")
def theorem_1(quick: bool) -> Verdict:
    ev, proved = _theorem1_evidence(quick)
    return Verdict("refuted" if proved else "inconclusive", proved,
                   "add/remove-one neighbours (ℓ1 = Δ = 1, err Definition 2); both readings of T; exact (fmpq, ε = 2 log 2) and arb "
                   "(ε = 1/10) re-checks; dpexact.verification.decide.pure_dp.check_pure_dp scan; sympy limit", ev)


@claim("err.text.monotone-variant-dp", "For monotonic quality functions (e.g. the mode) M_ERR may use exp(ε q_r/Δ) instead of "
       "exp(ε q_r/(2Δ)); 'such approach also satisfies differential privacy'.", "err §III-C, paragraph before Lemma 1",
       expected="refuted",
       severity="false-statement",
       scope_quick="monotone neighbours q' = q + e_2 (one record added), exponent ε/Δ, ε = log 2 (e^ε = 2), exact (fmpq), both readings",
       scope_full="monotone neighbours q' = q + e_2 (one record added), exponent ε/Δ, ε = log 2 (e^ε = 2), exact (fmpq), both readings")
def monotone_variant(quick: bool) -> Verdict:
    rows, proved = {}, True
    for reading in READINGS:
        for p in ("1/100", "1/2"):
            # ε = log 2 with monotone=True: w_r = 2^(q_r − q*), e^ε = 2
            row = _t1_smallest(p, reading, eps="log(2)", bound=Fraction(2), kw=(("monotone", True),))
            rows[f"{reading}, p={p}"] = row
            proved &= row["k"] is not None
    return Verdict("refuted" if proved else "inconclusive", proved,
                   "monotone neighbours q' = q + e_2 (one record added), exponent ε/Δ, ε = log 2 (e^ε = 2), exact (fmpq), both readings",
                   {"counterexamples": rows, "condition": "the EM part is ε-DP on monotone neighbours; the violation comes from T changing, "
                                                          "so it holds only when T cannot change between neighbours (e.g. p = 0)"})


@claim("err.lemma.2", "M_ERR is regular: symmetric, shift-invariant and monotone (Definitions 6-8).", "err App. A, Lemma 2",
       expected="refuted",
       severity="false-statement",
       explanation="monotonicity fails: lowering a candidate can cut r out of T",
       scope_quick="exact (fmpq): all integer q ∈ {0,…,−3}^n, n ≤ 3, p = 1/2, ε = 2 log 2; every permutation, shifts −3 and 5, monotone moves q'_r = q_r + d_r, q'_s = q_s − d_s, d ∈ {0,…,1}^n ({0,1}^n for n = 4); both readings of T",
       scope_full="exact (fmpq): all integer q ∈ {0,…,−3}^n, n ≤ 4, p = 1/2, ε = 2 log 2; every permutation, shifts −3 and 5, monotone moves q'_r = q_r + d_r, q'_s = q_s − d_s, d ∈ {0,…,2}^n ({0,1}^n for n = 4); both readings of T")
def lemma_2(quick: bool) -> Verdict:
    n_max, k = (3, 3) if quick else (4, 3)
    sym = shift = mono = 0
    bad: dict = {"symmetry": [], "shift": [], "monotonicity": []}
    for reading in READINGS:
        kw = (("candidate_set", reading),)
        for n in range(2, n_max + 1):
            for q in _orders(_lattice(n, k)):
                P = _xpmf("err", q, "1/2", EPS, kw)
                for perm in itertools.permutations(range(n)):
                    Pq = _xpmf("err", tuple(q[i] for i in perm), "1/2", EPS, kw)
                    sym += 1
                    if list(Pq) != [P[i] for i in perm]:
                        bad["symmetry"].append({"q": q, "perm": perm, "reading": reading})
                for c in (-3, 5):
                    shift += 1
                    if _xpmf("err", tuple(x + c for x in q), "1/2", EPS, kw) != P:
                        bad["shift"].append({"q": q, "c": c, "reading": reading})
                for r in range(n):
                    for d in itertools.product((0, 1) if quick or n > 3 else (0, 1, 2), repeat=n):
                        q2 = tuple(x + (d[i] if i == r else -d[i]) for i, x in enumerate(q))
                        mono += 1
                        if P[r] > _xpmf("err", q2, "1/2", EPS, kw)[r]:
                            bad["monotonicity"].append({"q": q, "q'": q2, "r": r, "reading": reading,
                                                        "Pr[q]_r": str(P[r]), "Pr[q']_r": str(_xpmf("err", q2, "1/2", EPS, kw)[r])})
    broken = [k_ for k_, v in bad.items() if v]
    ev = {"checked": {"symmetry": sym, "shift": shift, "monotonicity": mono}, "violated": broken,
          "counterexamples": {k_: v[:2] for k_, v in bad.items()},
          "monotonicity_counts": {r: sum(1 for b in bad["monotonicity"] if b["reading"] == r) for r in READINGS},
          "note": "lowering a candidate between the top and r can cut r off T (chain) or change c (interval), dropping Pr[r] by p/m"}
    return Verdict("refuted" if broken else "holds", True,
                   f"exact (fmpq): all integer q ∈ {{0,…,−{k}}}^n, n ≤ {n_max}, p = 1/2, ε = 2 log 2; every permutation, shifts −3 and 5, "
                   f"monotone moves q'_r = q_r + d_r, q'_s = q_s − d_s, d ∈ {{0,…,{1 if quick else 2}}}^n ({{0,1}}^n for n = 4); both readings of T", ev)
