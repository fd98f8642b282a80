"""pf: Figure 1 text claims."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.backends import ball_context

from .._common import arb_of, mech
from ..catalogue import Figure, Verdict, claim
from ._helpers import _eq7_arb, _eq8_arb, _ratio_arb


def _fig1_ratio_grid(quick: bool) -> tuple[list[int], list[Any]]:
    ns = [2, 3, 5, 10, 100, 1000] if quick else [2, 3, 4, 5, 10, 20, 100, 1000, 10**4, 10**5]
    ps = [Fraction(1, 2**j) for j in range(0, 41 if quick else 81, 1 if quick else 1)] + [Fraction(k, 100) for k in range(1, 100)]
    return ns, sorted(set(ps))


@claim("pf.text.fig1b-ratio-between-one-and-two", "The ratio E[E(M_EM,q)]/E[E(M_PF,q)] on q = (c,…,c,0) is always between one and two.",
       "pf §4.1, text on Figure 1b",
       expected="holds",
       scope_quick="arb (256 bits) on n ∈ [2, 3, 5, 10, 100, 1000], p ∈ {2^-j, j ≤ 40} ∪ {k/100}; closed forms for n = 2, 3",
       scope_full="arb (256 bits) on n ∈ [2, 3, 4, 5, 10, 20, 100, 1000, 10000, 100000], p ∈ {2^-j, j ≤ 80} ∪ {k/100}; closed forms for n = 2, 3")
def fig1b_between(quick: bool) -> Verdict:
    from flint import arb

    ns, ps = _fig1_ratio_grid(quick)
    lo, hi, undecided, bad = 10.0, 0.0, 0, []
    with ball_context(256):
        for n in ns:
            for p in ps:
                if p == 1:
                    continue
                r = _ratio_arb(n, arb(p.numerator) / p.denominator)
                lo, hi = min(lo, float(r.mid())), max(hi, float(r.mid()))
                if r < 1 or r > 2:
                    bad.append({"n": n, "p": str(p), "ratio": float(r.mid())})
                elif not (r >= 1 and r <= 2):
                    undecided += 1
    # symbolic: ratio - 1 and 2 - ratio for n = 2, 3 as rational functions of p
    import sympy as sp

    p = sp.symbols("p", positive=True)
    sym = {}
    for n in (2, 3):
        R = (1 - 1 / (1 + (n - 1) * p)) / (1 - (1 - (1 - p) ** n) / (n * p))
        sym[n] = str(sp.factor(sp.simplify(R)))
    scope = f"arb (256 bits) on n ∈ {ns}, p ∈ {{2^-j, j ≤ {40 if quick else 80}}} ∪ {{k/100}}; closed forms for n = 2, 3"
    ev = {"min_ratio": lo, "max_ratio": hi, "undecided": undecided, "violations": bad[:5], "closed_forms": sym}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev)


@claim("pf.text.fig1b-ratio-limit-p-to-zero", "The EM/PF ratio on (c,…,c,0) approaches two as p → 0 (larger ε).", "pf §4.1, text on Figure 1b",
       expected="holds",
       scope_quick="sympy limits p → 0+ of (7)/(8) for fixed n, and the general-n leading-order expansion",
       scope_full="sympy limits p → 0+ of (7)/(8) for fixed n, and the general-n leading-order expansion")
def fig1b_limit_p(quick: bool) -> Verdict:
    import sympy as sp

    p, n = sp.symbols("p n", positive=True)
    limits = {}
    for nn in (2, 3, 5, 10) if quick else (2, 3, 4, 5, 10, 50):
        R = (1 - 1 / (1 + (nn - 1) * p)) / (1 - (1 - (1 - p) ** nn) / (nn * p))
        limits[nn] = str(sp.limit(R, p, 0, "+"))
    # general n: numerator ~ (n−1)p, denominator ~ (n−1)p/2 (series of (1−p)^n to second order)
    den_series = sp.expand(1 - (1 - (1 - n * p + n * (n - 1) / 2 * p**2)) / (n * p))
    general = sp.limit(((n - 1) * p) / den_series, p, 0, "+")
    ok = all(v == "2" for v in limits.values()) and sp.simplify(general - 2) == 0
    scope = "sympy limits p → 0+ of (7)/(8) for fixed n, and the general-n leading-order expansion"
    return Verdict("holds" if ok else "refuted", True, scope, {"limits": limits, "general_n_leading_order": str(general)})


# Rigorous evaluation of eqs. (7)/(8) without cancellation. With m = n − 1 and x = 1 − p:
#   eq. (8) bracket  D(p) = 1 − (1 − x^n)/(np) = (p/n) S(p),  S(p) = Σ_{i=0}^{m−1} (m − i) x^i   (all terms ≥ 0)
#   eq. (7) bracket  G(p) = m p / (1 + m p)
#   EM/PF ratio      R(p) = G/D = n m / ((1 + m p) S(p))
# G and D increase with p, S decreases, log(1/p) decreases: on [a, b] every quantity is enclosed by
# its values at the ends (monotone pieces), which makes interval bounds cheap and rigorous.


def _S_arb(n: int, p: Any) -> Any:
    """S(p) = Σ_{i<n−1} (n−1−i)(1−p)^i in arb: the sum for n ≤ 64, else the closed form at extra precision."""
    from flint import arb, ctx

    m = n - 1
    if p == 0:
        return arb(m * (m + 1) // 2)
    if n <= 64:
        x = 1 - p
        tot, xi = arb(0), arb(1)
        for i in range(m):
            tot += (m - i) * xi
            xi *= x
        return tot
    # (m − (m+1)x + x^{m+1})/(1 − x)^2 loses about 2 log2(1/(m p)) + log2(m) bits for small m p
    lost = int(2 * max(0.0, -math.log2(max(float(p.mid()) * m, 1e-300))) + math.log2(m)) + 64
    with ball_context(ctx.prec + lost):
        x = 1 - p
        return (m - (m + 1) * x + x ** (m + 1)) / (p * p)


def _fam_arb(which: str, n: int, p: Any) -> Any:
    """eq. (7) (``which="em"``) or (8) (``"pf"``) at p, in units of 2Δ/ε (arb)."""
    g = (n - 1) * p / (1 + (n - 1) * p) if which == "em" else p / n * _S_arb(n, p)
    return (1 / p).log() * g


def _fam_upper(which: str, n: int, a: Any, b: Any) -> Any:
    """Upper bound of eq. (7)/(8) on [a, b] ⊂ (0, 1] (monotone pieces); for a = 0 uses f ≤ (n−1) b log(1/b), b ≤ 1/e."""
    from flint import arb

    if a == 0:
        if not b <= arb(1) / arb(1).exp():
            raise ValueError("b must be <= 1/e when a = 0")
        return (n - 1) * b * (1 / b).log()
    g = (n - 1) * b / (1 + (n - 1) * b) if which == "em" else b / n * _S_arb(n, b)
    return (1 / a).log() * g


def _fam_max(which: str, n: int, rel: float = 1e-7, within: tuple[Any, Any] | None = None) -> tuple[Any, Any, float]:
    """Rigorous enclosure [lower, upper] of max_{p ∈ (0,1]} of eq. (7)/(8) (or of its sup on ``within``), and the argmax found.

    Lower bound: the value at a point (ball); upper bound: the largest monotone-piece bound after adaptive
    bisection of a geometric partition, refined until every piece is below lower·(1 + rel).
    """
    from flint import arb

    with ball_context(128):
        if within is None:
            lo_end = arb(10) ** -(4 + 2 * int(math.log10(n))) / n
            edges = [arb(0)] + [lo_end * (arb(1) / lo_end) ** (arb(j) / 120) for j in range(121)]
        else:
            a0, b0 = within
            edges = [a0 + (b0 - a0) * arb(j) / 40 for j in range(41)]
        edges[-1] = arb(1) if within is None else edges[-1]
        pieces = list(zip(edges, edges[1:]))
        # lower bound: best midpoint value among the pieces
        best, best_p = arb(0), None
        for a, b in pieces:
            m = (a + b) / 2 if a != 0 else b / 2
            v = _fam_arb(which, n, arb(m.mid()))
            if v.lower() > best.lower():
                best, best_p = v, float(m.mid())
        done = arb(0)  # max upper bound over pieces already below best·(1 + rel) (best only grows, so they stay done)
        for _ in range(80):
            refine = []
            for a, b in pieces:
                u = _fam_upper(which, n, a, b)
                if u.upper() > best.lower() * (1 + rel):
                    refine.append((a, b))
                else:
                    done = done.max(arb(u.upper()))
            if not refine:
                return arb(best.lower()), arb(done.upper()), best_p
            pieces = []
            for a, b in refine:
                m = arb(((a + b) / 2).mid()) if a != 0 else arb((b / 2).mid())
                v = _fam_arb(which, n, m)
                if v.lower() > best.lower():
                    best, best_p = v, float(m.mid())
                pieces += [(a, m), (m, b)]
        raise ArithmeticError(f"could not bound the maximum of eq. ({'7' if which == 'em' else '8'}) at n = {n}")


def _ratio_R_bounds(n: int, a: Any, b: Any) -> tuple[Any, Any]:
    """Enclosure of the EM/PF ratio R(p) = n m / ((1 + m p) S(p)) over p ∈ [a, b] (monotone factors)."""
    m = n - 1
    lo = n * m / ((1 + m * b) * _S_arb(n, a))
    hi = n * m / ((1 + m * a) * _S_arb(n, b))
    return lo, hi


def _ratio_crossing(n: int, target: Any, width: float = 1e-9) -> tuple[Any, Any]:
    """A bracket [lo, hi] containing every p ∈ (0, 1] with R(p) = target (rigorous; bisection of undecided pieces).

    R > target on (0, lo) and R < target on (hi, 1] are proven piece by piece.
    """
    from flint import arb

    with ball_context(128):
        lo_end = arb(10) ** -(6 + 2 * int(math.log10(n))) / n
        edges = [arb(0)] + [lo_end * (arb(1) / lo_end) ** (arb(j) / 200) for j in range(201)]
        edges[-1] = arb(1)
        pieces = list(zip(edges, edges[1:]))
        for _ in range(200):
            und = []
            for a, b in pieces:
                r_lo, r_hi = _ratio_R_bounds(n, a, b)
                if r_lo > target or r_hi < target:
                    continue
                und.append((a, b))
            if not und:
                raise ArithmeticError("no crossing found")
            left, right = und[0][0], und[-1][1]
            if float((right - left).upper()) < width * float(left.mid() or 1e-300):
                return arb(left.lower()), arb(right.upper())
            pieces = []
            for a, b in und:
                mid = arb(((a + b) / 2).mid()) if a != 0 else arb((b / 2).mid())
                pieces += [(a, mid), (mid, b)]
        raise ArithmeticError("bisection did not converge")


@claim("pf.text.fig1b-ratio-limit-n-to-infinity", "For every p > 0 the EM/PF ratio on (c,…,c,0) converges to one as n → ∞; "
       "the p needed for a fixed ratio decreases with n.", "pf §4.1, text on Figure 1b",
       expected="holds",
       scope_quick="sympy limits n → ∞ at p ∈ {1/2, 1/10, 1/1000}; for ratio targets 1.5 and 1.9 and n ∈ [2, 3, 5, 10, 100, 1000, 10000]: every solution p of R_n(p) = target bracketed in arb (R = n(n−1)/((1+(n−1)p) S(p)), S a sum of positive terms, monotone pieces), consecutive brackets disjoint and ordered. Between the listed n nothing is claimed",
       scope_full="sympy limits n → ∞ at p ∈ {1/2, 1/10, 1/1000}; for ratio targets 1.5 and 1.9 and n ∈ [2, 3, 4, 5, 10, 20, 100, 1000, 10000, 100000, 1000000]: every solution p of R_n(p) = target bracketed in arb (R = n(n−1)/((1+(n−1)p) S(p)), S a sum of positive terms, monotone pieces), consecutive brackets disjoint and ordered. Between the listed n nothing is claimed")
def fig1b_limit_n(quick: bool) -> Verdict:
    import sympy as sp

    p, n = sp.symbols("p n", positive=True)
    R = (1 - 1 / (1 + (n - 1) * p)) / (1 - (1 - (1 - p) ** n) / (n * p))
    lims = {}
    for pv in (sp.Rational(1, 2), sp.Rational(1, 10), sp.Rational(1, 1000)):
        lims[str(pv)] = str(sp.limit(R.subs(p, pv), n, sp.oo))
    ok = all(v == "1" for v in lims.values())
    # every p with R_n(p) = T lies in a rigorous bracket (monotone-piece enclosures of R = n m/((1+mp) S(p)));
    # "decreases with n" = the bracket for the next n lies entirely below the bracket for this n
    ns = (2, 3, 5, 10, 100, 1000, 10**4) if quick else (2, 3, 4, 5, 10, 20, 100, 1000, 10**4, 10**5, 10**6)
    req, brackets, mono = {}, {}, True
    for target in ("3/2", "19/10"):
        T = arb_of(target)
        br = [_ratio_crossing(nn, T) for nn in ns]
        brackets[target] = [[float(a.mid()), float(b.mid())] for a, b in br]
        req[str(float(Fraction(target)))] = [float(((a + b) / 2).mid()) for a, b in br]
        mono &= all(bool(b2 < a1) for (a1, _), (_, b2) in zip(br, br[1:]))
    scope = (f"sympy limits n → ∞ at p ∈ {{1/2, 1/10, 1/1000}}; for ratio targets 1.5 and 1.9 and n ∈ {list(ns)}: every solution p of "
             "R_n(p) = target bracketed in arb (R = n(n−1)/((1+(n−1)p) S(p)), S a sum of positive terms, monotone pieces), consecutive "
             "brackets disjoint and ordered. Between the listed n nothing is claimed")
    return Verdict("holds" if ok and mono else "refuted", True, scope,
                   {"limits": lims, "p_for_ratio": req, "brackets": brackets, "p_decreases_with_n": mono})


@claim("pf.figure.1", "Figure 1a: for n = 3, ε = Δ = 1 the expected error of M_PF (eq. 8) is below that of M_EM (eq. 7) for all p ∈ (0,1).",
       "pf §4.1, Figure 1a",
       expected="holds",
       scope_quick="arb at 251 values of p (strict inequality)",
       scope_full="arb at 251 values of p (strict inequality)")
def figure_1(quick: bool) -> Verdict:
    from flint import arb

    ps = [Fraction(k, 200) for k in range(1, 200)] + [Fraction(1, 2**j) for j in range(8, 60)]
    bad, undec = [], 0
    xs, em, pf = [], [], []
    with ball_context(256):
        for p in sorted(set(ps)):
            a = arb(p.numerator) / p.denominator
            d = _eq7_arb(3, a) - _eq8_arb(3, a)
            if d < 0:
                bad.append(str(p))
            elif not d > 0:
                undec += 1
            if p >= Fraction(1, 1000):
                xs.append(float(p))
                em.append(2 * float(_eq7_arb(3, a).mid()))
                pf.append(2 * float(_eq8_arb(3, a).mid()))
    fig = Figure("pf Fig. 1a: expected error on (c,c,0), ε=Δ=1", tuple(xs), {"EM (eq. 7)": tuple(em), "PF (eq. 8)": tuple(pf)}, "p", "expected error")
    scope = f"arb at {len(ps)} values of p (strict inequality)"
    ev = {"points": len(ps), "violations": bad[:5], "undecided": undec}
    return Verdict("refuted" if bad else ("inconclusive" if undec else "holds"), not undec, scope, ev, fig)


@claim("pf.text.fig1c-worst-case-ratio", "The ratio of worst-case expected errors (max over p of eq. 7 / max over p of eq. 8) is largest "
       "at n = 2 and decays towards 1 as n increases.", "pf §4.1, text on Figure 1c",
       expected="holds",
       scope_quick="rigorous enclosures of max_p eq. (7) and (8) (arb, monotone-piece bounds, adaptive bisection) for n ∈ [2, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1000, 10000, 1000000]: ratio strictly decreasing along these n, below its n = 2 value; for every n ≥ 10^4 the ratio is ≤ U0 < ratio(2) (analytic bound); the ratio ≥ 1 (pf Thm 2) and ≤ U0(x0) → 1, so it tends to 1. Integers between the listed n below 10^4 are not covered",
       scope_full="rigorous enclosures of max_p eq. (7) and (8) (arb, monotone-piece bounds, adaptive bisection) for n ∈ [2, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1000, 10000, 100000, 1000000, 100000000, 10000000000]: ratio strictly decreasing along these n, below its n = 2 value; for every n ≥ 10^4 the ratio is ≤ U0 < ratio(2) (analytic bound); the ratio ≥ 1 (pf Thm 2) and ≤ U0(x0) → 1, so it tends to 1. Integers between the listed n below 10^4 are not covered")
def fig1c(quick: bool) -> Verdict:
    from flint import arb

    ns = [2, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1000, 10**4, 10**6] + ([] if quick else [10**5, 10**8, 10**10])
    ns.sort()
    rows, encl = [], []
    with ball_context(128):
        for n in ns:
            em_lo, em_hi, pem = _fam_max("em", n, rel=1e-5 if quick else 1e-6)
            pf_lo, pf_hi, ppf = _fam_max("pf", n, rel=1e-5 if quick else 1e-6)
            r_lo, r_hi = em_lo / pf_hi, em_hi / pf_lo
            encl.append((r_lo, r_hi))
            rows.append({"n": n, "worst_EM": 2 * float(em_lo.mid()), "worst_PF": 2 * float(pf_lo.mid()), "ratio": float(((r_lo + r_hi) / 2).mid()),
                         "ratio_enclosure": [float(r_lo.lower()), float(r_hi.upper())], "argmax_p": {"em": pem, "pf": ppf}})
        decreasing = all(bool(b_hi < a_lo) for (a_lo, _), (_, b_hi) in zip(encl, encl[1:]))
        # all n >= N0 = 10^4 at once: W_EM <= log n (elementary for n >= 4) and W_PF >= eq.(8) at p = log(n)/n
        # >= (log n − log log n)(1 − 1/log n), so ratio <= U(x) = x^2/((x − log x)(x − 1)), x = log n; for x >= x0 >= e,
        # log x <= x log(x0)/x0, hence U <= 1/((1 − log(x0)/x0)(1 − 1/x0)) =: U0 — and U0 → 1 as x0 → ∞ (the limit)
        x0 = arb(10**4).log()
        U0 = 1 / ((1 - x0.log() / x0) * (1 - 1 / x0))
        tail_ok = bool(U0 < encl[0][0])
        x0b = arb(10**12).log()
        U0b = 1 / ((1 - x0b.log() / x0b) * (1 - 1 / x0b))
    largest_at_2 = all(bool(e[1] < encl[0][0]) for e in encl[1:])
    fig = Figure("pf Fig. 1c: worst-case expected error (ε=Δ=1)", tuple(float(n) for n in ns),
                 {"EM": tuple(r["worst_EM"] for r in rows), "PF": tuple(r["worst_PF"] for r in rows)}, "n", "worst-case expected error", logx=True)
    ok = decreasing and largest_at_2 and tail_ok
    scope = (f"rigorous enclosures of max_p eq. (7) and (8) (arb, monotone-piece bounds, adaptive bisection) for n ∈ {ns}: ratio strictly "
             "decreasing along these n, below its n = 2 value; for every n ≥ 10^4 the ratio is ≤ U0 < ratio(2) (analytic bound); the ratio ≥ 1 "
             "(pf Thm 2) and ≤ U0(x0) → 1, so it tends to 1. Integers between the listed n below 10^4 are not covered")
    ev = {"rows": rows, "monotone_decreasing_on_listed_n": decreasing, "bound_for_all_n>=1e4": float(U0.mid()),
          "bound_for_all_n>=1e12": float(U0b.mid()), "ratio_at_n=2": rows[0]["ratio_enclosure"]}
    return Verdict("holds" if ok else "refuted", True, scope, ev, fig)


@claim("pf.text.fig1a-zero-at-extremes", "At the two extremes p = 1 and p → 0 the expected errors (7) and (8) of both mechanisms are exactly 0.",
       "pf §4.1, text after Figure 1",
       expected="holds",
       scope_quick="sympy: values at p = 1 and limits p → 0+ for fixed n, and a bound valid for every n",
       scope_full="sympy: values at p = 1 and limits p → 0+ for fixed n, and a bound valid for every n")
def fig1a_extremes(quick: bool) -> Verdict:
    import sympy as sp

    p = sp.symbols("p", positive=True)
    n = sp.symbols("n", positive=True, integer=True)
    out = {}
    ok = True
    for nn in ((2, 3, 10) if quick else (2, 3, 4, 5, 10, 20)):
        e7 = sp.log(1 / p) * (1 - 1 / (1 + (nn - 1) * p))
        e8 = sp.log(1 / p) * (1 - (1 - (1 - p) ** nn) / (nn * p))
        vals = [sp.simplify(e7.subs(p, 1)), sp.simplify(e8.subs(p, 1)), sp.limit(e7, p, 0, "+"), sp.limit(e8, p, 0, "+")]
        out[nn] = [str(v) for v in vals]
        ok &= all(v == 0 for v in vals)
    # general n: both brackets are ≤ (n−1)p (eq. 7: (n−1)p/(1+(n−1)p); eq. 8: (p/n) S(p) ≤ (n−1)p/2), and p log(1/p) → 0
    general = sp.limit((n - 1) * p * sp.log(1 / p), p, 0, "+")
    ok &= general == 0
    return Verdict("holds" if ok else "refuted", True, "sympy: values at p = 1 and limits p → 0+ for fixed n, and a bound valid for every n",
                   {"[eq7(1), eq8(1), lim eq7, lim eq8]": out, "general_n_bound_limit": str(general)})


@claim("pf.text.fig1a-max-near-p-1-over-n", "The maximum expected error of each mechanism on (c,…,c,0) occurs somewhere in the middle, "
       "typically near p = 1/n.", "pf §4.1, text after Figure 1",
       expected="refuted",
       severity="wrong-number",
       explanation="the maximiser p* satisfies n·p* ≈ log n for EM: near 1/n only for small n (within a factor 4 up to n = 100)",
       scope_quick="n ∈ [2, 3, 10, 100, 1000, 10000], ε = Δ = 1: 'near 1/n' read as within a factor 4 (criterion fixed before computing); decided rigorously by comparing the sup of eq. (7)/(8) inside [1/(4n), 4/n] and outside it (arb, monotone pieces)",
       scope_full="n ∈ [2, 3, 5, 10, 100, 1000, 10000, 1000000], ε = Δ = 1: 'near 1/n' read as within a factor 4 (criterion fixed before computing); decided rigorously by comparing the sup of eq. (7)/(8) inside [1/(4n), 4/n] and outside it (arb, monotone pieces)")
def fig1a_argmax(quick: bool) -> Verdict:
    from flint import arb

    ns = (2, 3, 10, 100, 1000, 10**4) if quick else (2, 3, 5, 10, 100, 1000, 10**4, 10**6)
    rows, near, far = [], [], []
    with ball_context(128):
        for n in ns:
            for which in ("em", "pf"):
                lo, _, pstar = _fam_max(which, n, rel=1e-6)
                a, b = arb(1) / (4 * n), arb(4) / n
                _, sup_in, _ = _fam_max(which, n, rel=1e-6, within=(a, b.min(arb(1))))
                inside = None
                if sup_in < lo:
                    inside = False  # every maximiser lies outside [1/(4n), 4/n]
                else:
                    parts = [(arb(0), a)] + ([(b, arb(1))] if b < 1 else [])
                    sup_out = max((_fam_max(which, n, rel=1e-6, within=pr)[1] for pr in parts), key=lambda v: float(v.mid()))
                    if sup_out < lo:
                        inside = True
                rows.append({"n": n, "mechanism": which, "n·argmax_p": n * pstar, "max": 2 * float(lo.mid()), "maximiser_within_factor_4_of_1/n": inside})
                (near if inside else far).append((n, which))
    undecided = [r for r in rows if r["maximiser_within_factor_4_of_1/n"] is None]
    ok = not far and not undecided
    scope = (f"n ∈ {list(ns)}, ε = Δ = 1: 'near 1/n' read as within a factor 4 (criterion fixed before computing); decided rigorously by "
             "comparing the sup of eq. (7)/(8) inside [1/(4n), 4/n] and outside it (arb, monotone pieces)")
    ev = {"rows": rows, "outside_factor_4": [f"n={n} {w}" for n, w in far]}
    if far:
        ev["note"] = ("n·p* grows without bound (about log n for EM: the maximiser solves 1 + x = log(n/x), x = np), so the maximiser "
                      "drifts away from 1/n; within a factor 4 only for n up to " + str(max((n for n, _ in near), default=None)))
    if undecided and not far:
        return Verdict("inconclusive", False, scope, ev)
    return Verdict("holds" if ok else "refuted", True, scope, ev)


@claim("pf.text.never-observed-ratio-above-two", "No score vector q with E[E(M_EM,q)]/E[E(M_PF,q)] > 2 has been observed "
       "(open question whether it is possible).", "pf §4.1, after Figure 1",
       expected="holds",
       scope_quick="ε = Δ = 1, differential evolution (float pmfs, a-priori error ≲ 1e-12 relative) over q ∈ [−80, 0]^(n−1) × {0}, n ∈ [2, 3, 4, 6]",
       scope_full="ε = Δ = 1, differential evolution (float pmfs, a-priori error ≲ 1e-12 relative) over q ∈ [−80, 0]^(n−1) × {0}, n ∈ [2, 3, 4, 5, 6, 8, 12]")
def ratio_above_two(quick: bool) -> Verdict:
    from scipy.optimize import differential_evolution

    from dpexact.utility import expected_error

    pf, em = mech("pf", 1), mech("em", 1)
    rows, best = [], (0.0, None)
    for n in (2, 3, 4, 6) if quick else (2, 3, 4, 5, 6, 8, 12):

        def neg(x: np.ndarray) -> float:
            q = np.concatenate([[0.0], -np.abs(x)])
            a = expected_error(em, q).as_float
            b = expected_error(pf, q).as_float
            return -(a / b) if b > 1e-300 else 0.0

        r = differential_evolution(neg, [(0.0, 80.0)] * (n - 1), seed=6, maxiter=30 if quick else 120, tol=1e-12)
        rows.append({"n": n, "max_ratio": -float(r.fun), "q": [0.0] + [-abs(float(v)) for v in r.x]})
        if -r.fun > best[0]:
            best = (-float(r.fun), rows[-1]["q"])
    scope = f"ε = Δ = 1, differential evolution (float pmfs, a-priori error ≲ 1e-12 relative) over q ∈ [−80, 0]^(n−1) × {{0}}, n ∈ {[r['n'] for r in rows]}"
    ev = {"rows": rows, "largest_ratio_found": best[0]}
    # the best point of each search re-evaluated in arb
    from dpexact.utility import expected_error as ee


    rechecks = {}
    with ball_context(128):
        for row in rows:
            q = [str(-Fraction(abs(v)).limit_denominator(10**6)) if v else "0" for v in row["q"]]
            rr = ee(em, q, backend="ball").value / ee(pf, q, backend="ball").value
            rechecks[row["n"]] = {"2 - ratio (arb)": (2 - rr).str(5, radius=True), "proven_<=2": bool(rr <= 2)}
    ev["ball_recheck_of_best_points"] = rechecks
    ev["n=2_exact"] = "every q ∈ R^2 is (c, 0) up to order and shift: ratio = 2/(1+p) < 2 (see pf.text.fig1b-ratio-between-one-and-two)"
    ev["why_not_certified"] = "a finite search cannot certify that no q with ratio > 2 exists (n ≥ 3); it is an open question in pf"
    if best[0] > 2 + 1e-6:
        from dpexact.utility import expected_error as ee

        q = [str(Fraction(v).limit_denominator(10**6)) for v in best[1]]
        a, b = ee(em, q, backend="ball").value, ee(pf, q, backend="ball").value
        ev["ball_recheck"] = {"q": q, "ratio": str(a / b)}
        return Verdict("refuted", bool(a / b > 2), scope, ev)
    return Verdict("holds", False, scope, ev)
