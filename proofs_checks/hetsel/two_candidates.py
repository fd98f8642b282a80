"""hetsel: §V-A: two candidates."""

from __future__ import annotations

import functools
import itertools
from typing import Any, Sequence

import numpy as np

from ..catalogue import Verdict, claim
from ._helpers import BETA, F, GAMMA, _arb, _ball_str, _f, _mech, _prec
from ._grouped_pmfs import _half
from .gem import _gem_prime


def _two_candidate_symbolic() -> dict:
    import sympy

    e, d, d1, d2, z = sympy.symbols("epsilon d Delta1 Delta2 z", positive=True)
    l1, l2 = e / (2 * d1), e / (2 * d2)
    # Pr[z1 − z2 > d] = ∫ f_2(z) Pr[z1 > z + d] dz, exponential noise
    rnm = sympy.simplify(sympy.integrate(l1 * sympy.exp(-l1 * z) * sympy.exp(-l1 * (z + d)), (z, 0, sympy.oo)))
    rnmh = sympy.simplify(sympy.integrate(l2 * sympy.exp(-l2 * z) * sympy.exp(-l1 * (z + d)), (z, 0, sympy.oo)))
    return {"symbols": (e, d, d1, d2), "rnm": rnm, "rnmh": rnmh}


@claim("hetsel.text.rnm-two-candidate",
       "Two candidates, q_1 < q_2: RNM (Exp(ε/2Δ), Δ = max(Δ_1, Δ_2)) outputs the lower-scoring one with probability "
       "(1/2) exp(−ε(q_2 − q_1)/(2Δ)).", "hetsel §V-A",
       expected="holds",
       scope_quick="sympy integral; library rnm-global (arb) on 3 cases",
       scope_full="sympy integral; library rnm-global (arb) on 3 cases")
def rnm_two_candidate(quick: bool) -> Verdict:
    import sympy

    s = _two_candidate_symbolic()
    e, d, d1, _ = s["symbols"]
    ok = sympy.simplify(s["rnm"] - sympy.exp(-e * d / (2 * d1)) / 2) == 0  # common Δ (= Δ_1 in the symbols)
    rows, bad = [], []
    for D, eps, gap in (("9/5", "1", "1"), ("1/2", "1/10", "2"), ("3", "3", "1/4")):
        p = _mech("rnm-global", eps, [D, "1/3"]).pmf(["0", gap], backend="ball").values[0]
        closed = (-_arb(eps) * _arb(gap) / (2 * _arb(D))).exp() / 2
        rows.append({"Delta": [D, "1/3"], "epsilon": eps, "gap": gap, "pmf": _ball_str(p), "closed form": _ball_str(closed)})
        if not (p - closed).contains(0):
            bad.append(rows[-1])
    return Verdict("holds" if ok and not bad else "refuted", True, "sympy integral; library rnm-global (arb) on 3 cases",
                   {"integral": str(s["rnm"]), "rows": rows, "mismatches": bad})


@claim("hetsel.text.rnmh-two-candidate",
       "Two candidates, q_1 < q_2: RNMH (z_a ~ Exp(ε/2Δ_a)) outputs the lower-scoring one with probability "
       "exp(−ε(q_2 − q_1)/(2Δ_1))/(1 + Δ_2/Δ_1).", "hetsel §V-A",
       expected="holds",
       scope_quick="sympy integral; library rnmh (arb) on 3 cases",
       scope_full="sympy integral; library rnmh (arb) on 3 cases")
def rnmh_two_candidate(quick: bool) -> Verdict:
    import sympy

    s = _two_candidate_symbolic()
    e, d, d1, d2 = s["symbols"]
    ok = sympy.simplify(s["rnmh"] - sympy.exp(-e * d / (2 * d1)) / (1 + d2 / d1)) == 0
    rows, bad = [], []
    for D1, D2, eps, gap in (("9/5", "1", "1", "1"), ("1/2", "2", "1/10", "2"), ("3", "1/4", "3", "1/4")):
        p = _mech("rnmh", eps, [D1, D2]).pmf(["0", gap], backend="ball").values[0]
        closed = (-_arb(eps) * _arb(gap) / (2 * _arb(D1))).exp() / (1 + _arb(D2) / _arb(D1))
        rows.append({"Delta": [D1, D2], "epsilon": eps, "gap": gap, "pmf": _ball_str(p), "closed form": _ball_str(closed)})
        if not (p - closed).contains(0):
            bad.append(rows[-1])
    return Verdict("holds" if ok and not bad else "refuted", True, "sympy integral; library rnmh (arb) on 3 cases",
                   {"integral": str(s["rnmh"]), "rows": rows, "mismatches": bad})


@claim("hetsel.text.hg-rnm-rnmh-sign",
       "HG(RNM, RNMH) = Pr[RNM ≠ a*] − Pr[RNMH ≠ a*] > 0 for Δ_1 < Δ_2 and < 0 for Δ_1 > Δ_2 (two candidates, "
       "q_1 < q_2): RNMH outperforms RNM exactly when the higher-scoring candidate has the larger sensitivity "
       "(Figure 16 plots it over Δ_1, Δ_2 for q_2 − q_1 ∈ {0.1, 1, 2, 5}, ε ∈ {0.1, 1, 3}).", "hetsel §V-A; Figure 16",
       expected="holds",
       scope_quick="closed forms of hetsel.text.rnm/rnmh-two-candidate in arb on Figure 16's ε × (q_2−q_1) grid, 5² Δ pairs each (240 cells)",
       scope_full="closed forms of hetsel.text.rnm/rnmh-two-candidate in arb on Figure 16's ε × (q_2−q_1) grid, 9² Δ pairs each (864 cells)")
def hg_rnm_rnmh_sign(quick: bool) -> Verdict:
    grid = ("1/10", "1/2", "1", "2", "5") if quick else ("1/10", "1/4", "1/2", "3/4", "1", "3/2", "2", "3", "5")
    bad, n, und = [], 0, 0
    with _prec(128):
        for eps in ("1/10", "1", "3"):
            for gap in ("1/10", "1", "2", "5"):
                e, g = _arb(eps), _arb(gap)
                for a, b in itertools.product(grid, grid):
                    if a == b:
                        continue
                    d1, d2 = _arb(a), _arb(b)
                    D = d1 if F(a) > F(b) else d2
                    hg = (-e * g / (2 * D)).exp() / 2 - (-e * g / (2 * d1)).exp() * d1 / (d1 + d2)
                    n += 1
                    want = 1 if F(a) < F(b) else -1
                    if (want == 1 and hg < 0) or (want == -1 and hg > 0):
                        bad.append({"Delta": [a, b], "epsilon": eps, "gap": gap, "HG": _ball_str(hg)})
                    elif not ((want == 1 and hg > 0) or (want == -1 and hg < 0)):
                        und += 1
    proof = ("Δ_1 < Δ_2: Δ = Δ_2, Δ_1/(Δ_1+Δ_2) < 1/2 and e^{−εd/(2Δ_1)} < e^{−εd/(2Δ_2)}, so Pr_RNMH[low] < Pr_RNM[low]; "
             "Δ_1 > Δ_2: Δ = Δ_1 and HG = e^{−εd/(2Δ_1)} (1/2 − Δ_1/(Δ_1+Δ_2)) < 0")
    scope = f"closed forms of hetsel.text.rnm/rnmh-two-candidate in arb on Figure 16's ε × (q_2−q_1) grid, {len(grid)}² Δ pairs each ({n} cells)"
    return Verdict("refuted" if bad else ("holds" if not und else "inconclusive"), not und, scope,
                   {"proof": proof, "cells": n, "violations": bad[:5], "undecided": und})


def _gem_two(name: str, d1: str, d2: str, eps: str, gap: str = "1", beta: str = BETA) -> Any:
    """Pr[GEM/mGEM/RNM outputs the lower candidate] (q = (0, gap)), arb."""
    m = _mech(name, eps, [d1, d2], **({"beta": beta} if name != "rnm-global" else {}))
    return m.pmf(["0", gap], backend="ball").values[0]


@claim("hetsel.text.gem-two-candidate-scores",
       "Two candidates, q_1 < q_2, t = 2 log(|A|/β)/ε: if Δ_1 > Δ_2 then q_1 − tΔ_1 < q_2 − tΔ_2, so q'_1 < 0 and "
       "q'_2 = 0 (candidate 2 stays favoured); if Δ_1 < Δ_2 it is possible that q_1 − tΔ_1 > q_2 − tΔ_2, and then "
       "q'_1 = 0 and q'_2 < 0 (candidate 1 favoured).", "hetsel §V-A",
       expected="holds",
       scope_quick="exact (sympy sign) on 5 two-candidate instances, β = 1/20",
       scope_full="exact (sympy sign) on 5 two-candidate instances, β = 1/20")
def gem_two_candidate_scores(quick: bool) -> Verdict:
    rows, bad = [], []
    for d1, d2, eps, gap in (("1", "1/2", "1", "1"), ("3", "1/10", "1/10", "5"), ("1/10", "1", "1/10", "1"),
                             ("1/2", "1", "1", "1"), ("1/4", "2", "2", "1/2")):
        m = _mech("gem", eps, [d1, d2])
        qp = m.transformed_scores(["0", gap])
        t = m.t(2)
        s1 = qp[0].sign()
        s2 = qp[1].sign()
        from dpexact.numbers import Real

        flipped = (Real.of(0) - t * Real.of(d1) - (Real.of(gap) - t * Real.of(d2))).sign() > 0
        expect = (-1, 0) if not flipped else (0, -1)
        rows.append({"Delta": [d1, d2], "epsilon": eps, "gap": gap, "q'": [str(x) for x in qp], "q1 − tΔ1 > q2 − tΔ2": flipped})
        if (F(d1) > F(d2) and flipped) or (s1, s2) != expect:
            bad.append(rows[-1])
    flips = [r for r in rows if r["q1 − tΔ1 > q2 − tΔ2"]]
    ok = not bad and flips
    return Verdict("holds" if ok else "refuted", True, "exact (sympy sign) on 5 two-candidate instances, β = 1/20",
                   {"rows": rows, "violations": bad, "instances with candidate 1 favoured": len(flips)})


@claim("hetsel.text.gem-favours-best-more-than-rnm",
       "Two candidates, q_1 < q_2, Δ_1 > Δ_2: GEM favours candidate 2 more heavily than RNM (candidate 1 is penalised "
       "for its larger sensitivity).", "hetsel §V-A",
       expected="refuted",
       severity="false-statement",
       explanation="holds iff tΔ_1(Δ_1 − Δ_2) > (q_2 − q_1)Δ_2, t = 2 log(|A|/β)/ε",
       scope_quick="q = (0, 1), Δ = (1, 9/10), ε = 1, β = 1/20 (arb pmfs of gem and rnm-global); condition checked on 36 cases",
       scope_full="q = (0, 1), Δ = (1, 9/10), ε = 1, β = 1/20 (arb pmfs of gem and rnm-global); condition checked on 36 cases")
def gem_favours_best(quick: bool) -> Verdict:
    a = _gem_two("gem", "1", "9/10", "1")
    b = _gem_two("rnm-global", "1", "9/10", "1")
    diff = a - b
    # condition: GEM's exponent (d + t(Δ1−Δ2))/(Δ1+Δ2) exceeds RNM's d/Δ1 iff tΔ1(Δ1−Δ2) > dΔ2
    grid_bad, n = [], 0
    for d1, d2 in (("1", "9/10"), ("1", "1/2"), ("2", "1"), ("5", "1/10")):
        for eps in ("1/10", "1", "10"):
            for gap in ("1/10", "1", "5"):
                pg, pr = _gem_two("gem", d1, d2, eps, gap), _gem_two("rnm-global", d1, d2, eps, gap)
                T = 2 * (_arb(2) / _arb(BETA)).log() / _arb(eps)
                cond = T * _arb(d1) * (_arb(d1) - _arb(d2)) - _arb(gap) * _arb(d2)
                n += 1
                if (cond > 0 and not pg < pr) or (cond < 0 and not pg > pr):
                    grid_bad.append({"Delta": [d1, d2], "epsilon": eps, "gap": gap})
    scope = "q = (0, 1), Δ = (1, 9/10), ε = 1, β = 1/20 (arb pmfs of gem and rnm-global); condition checked on 36 cases"
    ev = {"Pr_GEM[out 1]": _ball_str(a), "Pr_RNM[out 1]": _ball_str(b), "difference": _ball_str(diff),
          "holds iff": "t Δ_1 (Δ_1 − Δ_2) > (q_2 − q_1) Δ_2, t = 2 log(|A|/β)/ε (fails for close sensitivities or large ε)",
          "condition mismatches on grid": grid_bad, "grid cases": n}
    return Verdict("refuted" if diff > 0 else "inconclusive", bool(diff > 0), scope, ev)


@claim("hetsel.text.gem-worse-than-random",
       "Two candidates, q_1 < q_2, Δ_1 < Δ_2: GEM can favour candidate 1 and then performs worse than random "
       "selection; this occurs when the sensitivity gap is large and when ε is small (t large).", "hetsel §V-A",
       expected="holds",
       scope_quick="q = (0, 1), β = 1/20, arb pmfs",
       scope_full="q = (0, 1), β = 1/20, arb pmfs")
def gem_worse_than_random(quick: bool) -> Verdict:
    rows = []
    for d1, d2, eps in (("1/10", "1", "1/10"), ("1/10", "1", "1"), ("1/2", "1", "1/10"), ("1/10", "2", "1/10")):
        p = _gem_two("gem", d1, d2, eps)
        rows.append({"Delta": [d1, d2], "epsilon": eps, "Pr[out 1]": _ball_str(p), "worse than random": bool(p > _half())})
    ok = rows[0]["worse than random"] and rows[3]["worse than random"]
    mono = _f(_gem_two("gem", "1/10", "1", "1/10")) > _f(_gem_two("gem", "1/10", "1", "1")) and \
        _f(_gem_two("gem", "1/10", "2", "1/10")) > _f(_gem_two("gem", "1/2", "1", "1/10"))
    return Verdict("holds" if ok and mono else "refuted", True, "q = (0, 1), β = 1/20, arb pmfs",
                   {"rows": rows, "condition": "Pr[out 1] > 1/2 iff t(Δ_2 − Δ_1) > q_2 − q_1", "monotone in gap and 1/ε": mono})


@claim("hetsel.text.mgem-favours-best-more-than-rnm",
       "Two candidates, q_1 < q_2, Δ_1 < Δ_2: mGEM favours candidate 2 more heavily than RNM.", "hetsel §V-A",
       expected="refuted",
       severity="false-statement",
       explanation="holds iff TΔ_2(Δ_2 − Δ_1) > (q_2 − q_1)Δ_1, T = 2 log(|A|/β)/ε",
       scope_quick="q = (0, 1), Δ = (9/10, 1), ε = 1, β = 1/20 (arb pmfs of mgem and rnm-global)",
       scope_full="q = (0, 1), Δ = (9/10, 1), ε = 1, β = 1/20 (arb pmfs of mgem and rnm-global)")
def mgem_favours_best(quick: bool) -> Verdict:
    a = _gem_two("mgem", "9/10", "1", "1")
    b = _gem_two("rnm-global", "9/10", "1", "1")
    diff = a - b
    scope = "q = (0, 1), Δ = (9/10, 1), ε = 1, β = 1/20 (arb pmfs of mgem and rnm-global)"
    ev = {"Pr_mGEM[out 1]": _ball_str(a), "Pr_RNM[out 1]": _ball_str(b), "difference": _ball_str(diff),
          "holds iff": "T Δ_2 (Δ_2 − Δ_1) > (q_2 − q_1) Δ_1, T = 2 log(|A|/β)/ε"}
    return Verdict("refuted" if diff > 0 else "inconclusive", bool(diff > 0), scope, ev)


@claim("hetsel.text.mgem-worse-than-random",
       "Two candidates, q_1 < q_2, Δ_1 > Δ_2: mGEM can perform worse than random selection since it can favour "
       "candidate 1.", "hetsel §V-A",
       expected="holds",
       scope_quick="q = (0, 1), Δ = (1, 1/10), ε = 1/10, β = 1/20, arb",
       scope_full="q = (0, 1), Δ = (1, 1/10), ε = 1/10, β = 1/20, arb")
def mgem_worse_than_random(quick: bool) -> Verdict:
    p = _gem_two("mgem", "1", "1/10", "1/10")
    return Verdict("holds" if p > _half() else "refuted", True, "q = (0, 1), Δ = (1, 1/10), ε = 1/10, β = 1/20, arb",
                   {"Pr[out 1]": _ball_str(p), "condition": "Pr[out 1] > 1/2 iff T(Δ_1 − Δ_2) > q_2 − q_1"})


@claim("hetsel.text.gem-reorders",
       "Ignoring the normalisation, GEM reorders the candidates according to q(a,D) − tΔ_a and mGEM according to "
       "q(a,D) + tΔ_a (t = 2 log(|A|/β)/ε).", "hetsel §V-B",
       expected="holds",
       scope_quick="exact rationals, 80 random instances (k ≤ 5, rational t of either sign)",
       scope_full="exact rationals, 400 random instances (k ≤ 5, rational t of either sign)")
def gem_reorders(quick: bool) -> Verdict:
    rng = np.random.default_rng(9)
    bad, n, order_breaks = [], 0, None
    for _ in range(40 if quick else 200):
        k = int(rng.integers(2, 6))
        q = [F(int(v), 2) for v in rng.integers(-10, 11, k)]
        d = [F(int(v), 4) for v in rng.integers(1, 17, k)]
        t = F(int(rng.integers(1, 25)), 4)
        for sgn in (1, -1):
            u = [x - sgn * t * y for x, y in zip(q, d)]
            qp = _gem_prime(q, d, sgn * t)
            n += 1
            top_u = {i for i in range(k) if u[i] == max(u)}
            top_p = {i for i in range(k) if qp[i] == 0}
            if top_u != top_p:
                bad.append({"q": [str(x) for x in q], "Delta": [str(x) for x in d], "t": str(sgn * t)})
            if order_breaks is None:
                for i, j in itertools.permutations(range(k), 2):
                    if u[i] > u[j] and qp[i] < qp[j]:
                        order_breaks = {"q": [str(x) for x in q], "Delta": [str(x) for x in d], "t": str(sgn * t),
                                        "q - tΔ": [str(x) for x in u], "q'": [str(x) for x in qp]}
                        break
    scope = f"exact rationals, {n} random instances (k ≤ 5, rational t of either sign)"
    ev = {"maximisers of q' = maximisers of q ∓ tΔ": not bad, "violations": bad[:3],
          "example where the normalisation changes the rest of the order": order_breaks}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


@functools.lru_cache(maxsize=512)
def _hg_rs(d1: str, d2: str, gamma: str, eps: str = "1/10", gap: str = "1") -> Any:
    """HG(RNM, RS_γ) = Pr[RNM ≠ a*] − Pr[RS_γ ≠ a*] for q = (0, gap) in arb (library pmfs)."""
    a = _mech("rnm-global", eps, [d1, d2]).pmf(["0", gap], backend="ball").values[0]
    b = _mech("rs-gamma", eps, [d1, d2], gamma=gamma).pmf(["0", gap], backend="ball").values[0]
    return a - b


@claim("hetsel.figure.3",
       "HG(RNM, RS_γ), computed for γ = 0.01, ε = 0.1, q_1 = 0, q_2 = 1 over (Δ_1, Δ_2), follows the pattern predicted "
       "by RNMH: positive (RS_γ better) for Δ_1 < Δ_2 and negative for Δ_1 > Δ_2.", "hetsel §V-A, Figure 3",
       expected="refuted",
       severity="wrong-number",
       explanation="a thin band next to the diagonal has the opposite sign",
       scope_quick="arb pmfs of rnm-global and rs-gamma (γ = 1/100, ε = 1/10, q = (0, 1)); 20 off-diagonal grid cells and a band Δ_2/Δ_1 ∈ (1, 1.1]",
       scope_full="arb pmfs of rnm-global and rs-gamma (γ = 1/100, ε = 1/10, q = (0, 1)); 72 off-diagonal grid cells and a band Δ_2/Δ_1 ∈ (1, 1.1]")
def figure_3(quick: bool) -> Verdict:
    grid = ("1/10", "1/2", "1", "2", "5") if quick else ("1/10", "1/4", "1/2", "3/4", "1", "3/2", "2", "3", "5")
    cells, wrong = 0, []
    for a, b in itertools.product(grid, grid):
        if a == b:
            continue
        h = _hg_rs(a, b, "1/100")
        cells += 1
        if (F(a) < F(b) and not h > 0) or (F(a) > F(b) and not h < 0):
            wrong.append({"Delta": [a, b], "HG": _ball_str(h)})
    # near the diagonal the sign is RS_γ's extra noise, not the RNMH pattern
    band = []
    for r in ("101/100", "51/50", "103/100", "21/20", "11/10"):
        h = _hg_rs("1", r, "1/100")
        band.append({"Delta": ["1", r], "HG": _ball_str(h), "sign": "+" if h > 0 else "-" if h < 0 else "?"})
    diag = [{"Delta": [a, a], "HG": _ball_str(_hg_rs(a, a, "1/100"))} for a in ("1/10", "1", "5")]
    cx = next((b for b in band if b["sign"] == "-"), None)
    scope = f"arb pmfs of rnm-global and rs-gamma (γ = 1/100, ε = 1/10, q = (0, 1)); {cells} off-diagonal grid cells and a band Δ_2/Δ_1 ∈ (1, 1.1]"
    ev = {"grid cells against the pattern": wrong, "band next to the diagonal (Δ_1 = 1)": band, "diagonal": diag,
          "holds except": "in a thin band Δ_1 < Δ_2 ≲ 1.03 Δ_1 where RS_γ's extra noise (Lap(3Δ/ε) vs Exp(ε/2Δ)) dominates: "
                          "HG < 0 on the diagonal and slightly above it"}
    if cx is not None:
        return Verdict("refuted", True, scope, {**ev, "counterexample": cx})
    return Verdict("refuted" if wrong else "holds", True, scope, ev)


def _max_abs_hg(gamma: str, grid: Sequence[str]) -> tuple[float, list]:
    out, rows = 0.0, []
    for a, b in itertools.product(grid, grid):
        h = _hg_rs(a, b, gamma)
        out = max(out, abs(_f(h)))
        rows.append(h)
    return out, rows


@claim("hetsel.figure.15",
       "As γ decreases and candidates are sampled several times, a stronger effect of heterogeneity (and of the "
       "correlation between scores and sensitivities) on HG(RNM, RS_γ) is observed (ε = 0.1, q_1 = 0, q_2 = 1).",
       "hetsel Appendix D, Figure 15 caption",
       expected="holds",
       scope_quick="arb pmfs, γ ∈ {1/2, 1/10, 1/100}, 3² grid of (Δ_1, Δ_2), ε = 1/10, q = (0, 1)",
       scope_full="arb pmfs, γ ∈ {1/2, 1/10, 1/100}, 5² grid of (Δ_1, Δ_2), ε = 1/10, q = (0, 1)")
def figure_15(quick: bool) -> Verdict:
    grid = ("1/10", "1", "5") if quick else ("1/10", "1/2", "1", "2", "5")
    gammas = ("1/2", "1/10", "1/100")
    res = {g: _max_abs_hg(g, grid) for g in gammas}
    mx = {g: res[g][0] for g in gammas}
    # certified comparison at the cell (Δ_1, Δ_2) = (min, max) of the grid
    a, b = grid[0], grid[-1]
    lo, hi = _hg_rs(a, b, "1/2"), _hg_rs(a, b, "1/100")
    certified = bool(abs(hi) > abs(lo))
    ok = mx["1/2"] < mx["1/10"] < mx["1/100"] and certified
    return Verdict("holds" if ok else "refuted", True,
                   f"arb pmfs, γ ∈ {{1/2, 1/10, 1/100}}, {len(grid)}² grid of (Δ_1, Δ_2), ε = 1/10, q = (0, 1)",
                   {"max |HG| by gamma": mx, f"HG at Delta=({a},{b})": {"gamma=1/2": _ball_str(lo), "gamma=1/100": _ball_str(hi)}})


@claim("hetsel.text.gamma-ablation",
       "For large γ, as the expected number of samples is 2, there are only small performance differences between RNM and "
       "RS_γ; as γ increases, the differences between the two mechanisms become more visible.", "hetsel Appendix D",
       expected="refuted",
       severity="erratum",
       explanation="the differences grow as γ decreases, as the Figure 15 caption says",
       scope_quick="arb pmfs of rnm-global and rs-gamma, ε = 1/10, q = (0, 1), 3² grid",
       scope_full="arb pmfs of rnm-global and rs-gamma, ε = 1/10, q = (0, 1), 5² grid")
def gamma_ablation(quick: bool) -> Verdict:
    grid = ("1/10", "1", "5") if quick else ("1/10", "1/2", "1", "2", "5")
    mx = {g: _max_abs_hg(g, grid)[0] for g in ("1/2", "1/10", "1/100")}
    a, b = grid[0], grid[-1]
    lo, hi = _hg_rs(a, b, "1/2"), _hg_rs(a, b, "1/100")
    refuted = bool(abs(hi) > abs(lo))  # the difference at the smaller γ is larger
    ev = {"max |HG(RNM, RS_γ)| by γ": mx, "counterexample": {"Delta": [a, b], "HG at γ=1/2": _ball_str(lo), "HG at γ=1/100": _ball_str(hi)},
          "correct reading": "the differences grow as γ *decreases* (as the Figure 15 caption says); γ = 1/2 (E[K] = 2) gives the smallest"}
    return Verdict("refuted" if refuted else "inconclusive", refuted,
                   f"arb pmfs of rnm-global and rs-gamma, ε = 1/10, q = (0, 1), {len(grid)}² grid", ev)


@claim("hetsel.text.no-uniform-winner",
       "No single mechanism uniformly outperforms RNM: for each mechanism that utilises heterogeneous sensitivities "
       "(GEM, mGEM, RS_γ, RNMH) there is a setting where it performs worse than RNM and even worse than random selection.",
       "hetsel Abstract, §I",
       expected="holds",
       scope_quick="two candidates q = (0, 1), β = γ = 1/20, arb pmfs",
       scope_full="two candidates q = (0, 1), β = γ = 1/20, arb pmfs")
def no_uniform_winner(quick: bool) -> Verdict:
    cases = [("gem", ["1/10", "1"], "1/10", {}), ("mgem", ["1", "1/10"], "1/10", {}),
             ("rs-gamma", ["1", "1/10"], "1/10", {"gamma": GAMMA}), ("rs-gamma-tnb", ["2", "1/10"], "1/10", {"gamma": GAMMA}),
             ("rnmh", ["10", "1"], "1", {})]
    rows, ok = [], True
    for name, d, eps, kw in cases:
        p = _mech(name, eps, d, **kw).pmf(["0", "1"], backend="ball").values[0]
        r = _mech("rnm-global", eps, d).pmf(["0", "1"], backend="ball").values[0]
        good = bool(p > _half()) and bool(p > r)
        ok &= good
        rows.append({"mechanism": name, "Delta": d, "epsilon": eps, "Pr[worse candidate]": _ball_str(p),
                     "RNM": _ball_str(r), "random": "1/2", "worse than random and RNM": good})
    return Verdict("holds" if ok else "refuted", True, "two candidates q = (0, 1), β = γ = 1/20, arb pmfs", {"rows": rows})
