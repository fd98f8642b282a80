"""err: App. C-D: the worst case of EM, q = (v, …, v, 0)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..catalogue import Figure, Verdict, claim
from ._helpers import READINGS, _arb, _ball, _bee, _chain, _interval, _mid, _s, _xerr, _xpmf


def _family(n: int, v: Fraction) -> tuple:
    return (v,) * (n - 1) + (0,)


def _eq12(n: int, v: Fraction, k: int = 1) -> Fraction:
    """(2Δ/ε) log(1/p') [1 − 1/(1+(n−1)p')] with ε = 2k log 2, Δ = 1: p' = 2^{kv}, (2Δ/ε) log(1/p') = −v."""
    pp = Fraction(1, 2 ** int(-k * v))
    return -v * (1 - 1 / (1 + (n - 1) * pp))


def _eq13(n: int, v: Fraction, k: int = 1) -> Fraction:
    pp = Fraction(1, 2 ** int(-k * v))
    return -v * (1 - (1 - (1 - pp) ** n) / (n * pp))


def _eq14(n: int, v: Fraction, p: Fraction, m: int, k: int = 1) -> Fraction:
    return (1 - p) * _eq12(n, v, k) + p / m * (m - 1) * (-v)


def _family_points(quick: bool) -> list[tuple[int, Fraction, int]]:
    """(n, v, k): integer v at ε = 2 log 2 (k = 1) and half-integers at ε = 4 log 2 (k = 2)."""
    pts = []
    for n in range(2, 6 if quick else 9):
        for j in range(0, 6 if quick else 9):
            pts.append((n, Fraction(-j), 1))
        for j in (1, 3, 5):
            pts.append((n, Fraction(-j, 2), 2))
    return pts


def _eps_k(k: int) -> str:
    return "2*log(2)" if k == 1 else "4*log(2)"


@claim("err.equation.12", "For q = (v,…,v,0), v ≤ 0: E[E(M_EM,q)] = (2Δ/ε) log(1/p') [1 − 1/(1+(n−1)p')], p' = exp(εv/(2Δ)).",
       "err App. C-D, eq. (12) (from pf eq. 7)",
       expected="holds",
       scope_quick="exact (fmpq): 36 (n, v), n ≤ 5, integer v at ε = 2 log 2 and half-integer v at ε = 4 log 2 (p' rational)",
       scope_full="exact (fmpq): 84 (n, v), n ≤ 8, integer v at ε = 2 log 2 and half-integer v at ε = 4 log 2 (p' rational)")
def equation_12(quick: bool) -> Verdict:
    bad, pts = [], _family_points(quick)
    for n, v, k in pts:
        q = _family(n, v)
        if _xerr(_xpmf("em", q, None, _eps_k(k)), q) != _eq12(n, v, k):
            bad.append({"n": n, "v": str(v)})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {len(pts)} (n, v), n ≤ {5 if quick else 8}, integer v at ε = 2 log 2 and "
                   "half-integer v at ε = 4 log 2 (p' rational)", {"checked": len(pts), "mismatches": bad[:3]})


@claim("err.equation.13", "For q = (v,…,v,0), v ≤ 0: E[E(M_PF,q)] = (2Δ/ε) log(1/p') [1 − (1 − (1−p')^n)/(n p')].",
       "err App. C-D, eq. (13) (from pf eq. 8)",
       expected="holds",
       scope_quick="exact (fmpq): 36 (n, v) as for eq. (12) (v = 0: both sides 0)",
       scope_full="exact (fmpq): 84 (n, v) as for eq. (12) (v = 0: both sides 0)")
def equation_13(quick: bool) -> Verdict:
    bad, pts = [], _family_points(quick)
    for n, v, k in pts:
        q = _family(n, v)
        if v != 0 and _xerr(_xpmf("pf", q, None, _eps_k(k)), q) != _eq13(n, v, k):
            bad.append({"n": n, "v": str(v)})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {len(pts)} (n, v) as for eq. (12) (v = 0: both sides 0)",
                   {"checked": len(pts), "mismatches": bad[:3]})


def _m_of(q: tuple, reading: str) -> int:
    return len(_chain(q) if reading == "chain" else _interval(q))


@claim("err.proposition.2", "For q = (v,…,v,0), v ≤ 0: E[E(M_ERR,q)] = (1−p)(2Δ/ε) log(1/p')[1 − 1/(1+(n−1)p')] + "
       "(2Δ/ε)(p/m)(m−1) log(1/p'), m = |T| (eq. 14).", "err App. C-D, Proposition 2, eq. (14) (Fig. 13)",
       expected="holds",
       scope_quick="exact (fmpq): 144 (n, v, p, reading) as for eq. (12), p ∈ {1/4, 3/4}",
       scope_full="exact (fmpq): 336 (n, v, p, reading) as for eq. (12), p ∈ {1/4, 3/4}")
def proposition_2(quick: bool) -> Verdict:
    from dpexact.mechanisms.exponential_rr import candidate_set

    bad, checked, ms = [], 0, {}
    for n, v, k in _family_points(quick):
        q = _family(n, v)
        for reading in READINGS:
            m = _m_of(q, reading)
            if m != len(candidate_set(_s(q), 1, reading)):
                bad.append({"q": _s(q), "issue": "T differs from dpexact's candidate_set", "reading": reading})
            ms.setdefault(reading, {})[str(v)] = "1" if m == 1 else "n"
            for p in ("1/4", "3/4"):
                E = _xerr(_xpmf("err", q, p, _eps_k(k), (("candidate_set", reading),)), q)
                checked += 1
                if E != _eq14(n, v, Fraction(p), m, k):
                    bad.append({"n": n, "v": str(v), "p": p, "reading": reading})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {checked} (n, v, p, reading) as for eq. (12), p ∈ {{1/4, 3/4}}",
                   {"checked": checked, "mismatches": bad[:3], "m by v": ms,
                    "note": "on this family T is {top} or R, so eq. (14) covers every case; which one depends on the reading of T"})


@claim("err.equation.15", "Case 1: for v < −cΔ, m = |T| = 1 and E[E(M_ERR,q)] = (1−p)(2Δ/ε) log(1/p')[1 − 1/(1+(n−1)p')] "
       "(§V-C: this applies for v < −Δ).", "err App. C-D, eq. (15); §V-C",
       expected="holds",
       scope_quick="exact (fmpq): 80 (n, v, p, reading) with m = 1",
       scope_full="exact (fmpq): 224 (n, v, p, reading) with m = 1")
def equation_15(quick: bool) -> Verdict:
    bad, checked, switch = [], 0, {}
    for n, v, k in _family_points(quick):
        q = _family(n, v)
        for reading in READINGS:
            m = _m_of(q, reading)
            if m != 1:
                continue
            for p in ("1/4", "3/4"):
                E = _xerr(_xpmf("err", q, p, _eps_k(k), (("candidate_set", reading),)), q)
                checked += 1
                if E != (1 - Fraction(p)) * _eq12(n, v, k):
                    bad.append({"n": n, "v": str(v), "p": p, "reading": reading})
    for reading in READINGS:
        vs = [Fraction(-j, 4) for j in range(0, 17)]
        one = [v for v in vs if _m_of(_family(4, v), reading) == 1]
        switch[reading] = f"m = 1 exactly for v < {str(max(one) + Fraction(1, 4))} on the grid v ∈ {{−j/4}}" if one else "never"
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {checked} (n, v, p, reading) with m = 1",
                   {"checked": checked, "mismatches": bad[:3], "where m = 1": switch,
                    "note": "Algorithm 3 gives m = 1 for v < −Δ (as §V-C states); Lemma 1's interval (smallest c) only for v < −2Δ, "
                            "consistent with eq. 15's 'v < −cΔ' since c = 2 there"})


@claim("err.equation.16", "Case 2: for −cΔ ≤ v ≤ 0, T = R, m = n and E[E(M_ERR,q)] = (2Δ/ε) log(1/p')[(1−p)(n−1)p'/(1+(n−1)p') + (n−1)p/n] "
       "= (2Δ/ε) log(1/p')[((1−p)n(n−1)p' + (k−1)p + (n−1)^2 pp')/(n + n(n−1)p')] = (2Δ/ε) log(1/p') (n−1)(np' + p − pp')/(n(np' − p' + 1)).",
       "err App. C-D, eq. (16)",
       expected="holds",
       scope_quick="sympy: the three expressions; exact (fmpq): 64 (n, v, p, reading) with T = R",
       scope_full="sympy: the three expressions; exact (fmpq): 112 (n, v, p, reading) with T = R")
def equation_16(quick: bool) -> Verdict:
    import sympy as sp

    n, p, pp, k = sp.symbols("n p pprime k", positive=True)
    l1 = (1 - p) * (n - 1) * pp / (1 + (n - 1) * pp) + (n - 1) * p / n
    l2 = ((1 - p) * n * (n - 1) * pp + (k - 1) * p + (n - 1) ** 2 * p * pp) / (n + n * (n - 1) * pp)
    l3 = (n - 1) * (n * pp + p - p * pp) / (n * (n * pp - pp + 1))
    l2n = l2.subs(k, n)
    eq12_13 = sp.simplify(l1 - l2n) == 0
    eq13_3 = sp.simplify(l2n - l3) == 0
    literal = sp.simplify(l1 - l2)
    bad, checked = [], 0
    for nn, v, kk in _family_points(quick):
        q = _family(nn, v)
        for reading in READINGS:
            if _m_of(q, reading) != nn:
                continue
            for P in ("1/4", "3/4"):
                E = _xerr(_xpmf("err", q, P, _eps_k(kk), (("candidate_set", reading),)), q)
                ppv = Fraction(1, 2 ** int(-kk * v))
                closed = -v * Fraction(nn - 1) * (nn * ppv + Fraction(P) - Fraction(P) * ppv) / (nn * (nn * ppv - ppv + 1))
                checked += 1
                if E != closed:
                    bad.append({"n": nn, "v": str(v), "p": P, "reading": reading})
    ok = eq12_13 and eq13_3 and not bad
    return Verdict("holds" if ok else "refuted", True, f"sympy: the three expressions; exact (fmpq): {checked} (n, v, p, reading) with T = R",
                   {"line1 = line2 (k read as n)": eq12_13, "line2 = line3": eq13_3, "line1 − line2 with the printed k": str(literal),
                    "checked": checked, "mismatches": bad[:3], "typo": "the middle expression prints (k−1)p; (n−1)p is meant"})


def _closed_arb(n: int, v: Any, eps: Any, p: Any = None, m: int | None = None) -> dict:
    """eqs. (12), (13), (14) in arb for q = (v,…,v,0), Δ = 1."""
    pp = (eps * v / 2).exp()
    L = -v  # (2Δ/ε) log(1/p')
    em = L * (1 - 1 / (1 + (n - 1) * pp))
    pf = L * (1 - (1 - (1 - pp) ** n) / (n * pp)) if v != 0 else L * 0
    out = {"EM": em, "PF": pf}
    if p is not None:
        out["ERR"] = (1 - p) * em + p / m * (m - 1) * L
    return out


@claim("err.figure.13", "Fig. 13: the expected errors of M_EM (eq. 12), M_PF (eq. 13) and the two expressions of M_ERR (eqs. 15, 16) "
       "under the worst-case scenario of M_EM, q = (v,…,v,0).", "err App. C-D, Fig. 13",
       expected="holds",
       scope_quick="arb (128 bits): closed forms vs dpexact's ball pmfs at v = −j/4, j ≤ 40, n = 10, ε = 1/10, p = 3/4, T by Algorithm 3",
       scope_full="arb (128 bits): closed forms vs dpexact's ball pmfs at v = −j/4, j ≤ 160, n = 10, ε = 1/10, p = 3/4, T by Algorithm 3")
def figure_13(quick: bool) -> Verdict:
    n, eps, p = 10, "1/10", "3/4"
    js = range(0, 41 if quick else 161)
    xs, ser, bad, undec = [], {"EM (12)": [], "PF (13)": [], "ERR (15/16)": []}, [], 0
    with _ball():
        e, P = _arb(eps), _arb(p)
        for j in js:
            v = Fraction(-j, 4)
            q = _s(_family(n, v))
            m = _m_of(_family(n, v), "chain")
            c = _closed_arb(n, _arb(v), e, P, m)
            lib = {"EM": _bee("em", q, eps), "PF": _bee("pf", q, eps), "ERR": _bee("err", q, eps, p)}
            for key in ("EM", "PF", "ERR"):
                if j == 0:
                    continue
                if not c[key].overlaps(lib[key]):
                    bad.append({"v": str(v), "mechanism": key})
                elif float(c[key].rad()) > 1e-20 * max(1.0, abs(_mid(c[key]))):
                    undec += 1
            xs.append(float(v))
            ser["EM (12)"].append(_mid(c["EM"]))
            ser["PF (13)"].append(_mid(c["PF"]) if j else 0.0)
            ser["ERR (15/16)"].append(_mid(c["ERR"]))
    fig = Figure("err Fig. 13: q = (v,…,v,0), n = 10, ε = 0.1, p = 0.75", tuple(xs), {k: tuple(v) for k, v in ser.items()},
                 "v", "expected error")
    return Verdict("refuted" if bad else "holds", True, f"arb (128 bits): closed forms vs dpexact's ball pmfs at v = −j/4, j ≤ {max(js)}, "
                   "n = 10, ε = 1/10, p = 3/4, T by Algorithm 3", {"points": len(xs), "mismatches": bad[:3], "wide": undec}, fig)
