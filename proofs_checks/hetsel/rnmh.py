"""hetsel: §I and §IV-A: RNMH."""

from __future__ import annotations

import math

from ..catalogue import Verdict, claim
from ._helpers import _ball_str, _certify, _mech, _prec, _pure_dp
from ._grouped_pmfs import _group_high_ball, _half, _sum


@claim("hetsel.text.rnmh-not-dp",
       "RNMH (eq. 4: argmax q_a + z_a, z_a ~ Exp(ε/2Δ_a)) is not differentially private: there are sensitivities "
       "Δ_1, Δ_2 for which it is not ε'-DP for any ε' > 0 even with two candidates. Example: Δ_1 = 0, q_1 = q'_1 = 0; "
       "Δ_2 = 1, q_2 = 1/2 in D and q'_2 = −1/2 in D'; Pr[M(D) = 1] = 0 while Pr[M(D') = 1] = 1 − e^{−ε/4}.",
       "hetsel §I footnote 1, §IV-A",
       expected="holds",
       scope_quick="sympy: the paper's Δ_1 = 0 example; arb (256 bits): RNMH with Δ = (δ, 1), ε = 1, q = (0, −1/2) vs (0, 1/2), output 1, δ ∈ {1/4, 1/16}",
       scope_full="sympy: the paper's Δ_1 = 0 example; arb (256 bits): RNMH with Δ = (δ, 1), ε = 1, q = (0, −1/2) vs (0, 1/2), output 1, δ ∈ {1/4, 1/16, 1/64}")
def rnmh_not_dp(quick: bool) -> Verdict:
    import sympy

    # (a) the paper's example, symbolically (Δ_1 = 0: candidate 1's noisy score is exactly 0)
    e, z = sympy.symbols("epsilon z", positive=True)
    dens = e / 2 * sympy.exp(-e * z / 2)  # Exp(ε/2Δ_2), Δ_2 = 1: rate ε/2
    p_D = 0  # q_2 + z_2 = 1/2 + z_2 > 0 = q_1 + z_1 surely
    p_Dp = sympy.integrate(dens, (z, 0, sympy.Rational(1, 2)))  # −1/2 + z_2 < 0
    example_ok = sympy.simplify(p_Dp - (1 - sympy.exp(-e / 4))) == 0
    # (b) with Δ_1 = δ > 0 (the library rejects Δ = 0): certified ratios that grow without bound as δ → 0
    rows = []
    deltas = ("1/4", "1/16") if quick else ("1/4", "1/16", "1/64")
    for d in deltas:
        m = _mech("rnmh", 1, [d, 1])
        with _prec(256):
            a = m.pmf(["0", "-1/2"], backend="ball:256").values[0]
            b = m.pmf(["0", "1/2"], backend="ball:256").values[0]
            lr = (a / b).log()
        claimed = math.floor(float(lr.lower()))
        rows.append({"delta_1": d, "log_ratio": _ball_str(lr),
                     "certified_not_dp_at": _certify(m, ["0", "-1/2"], ["0", "1/2"], 0, claimed, [d, 1])})
    ok = example_ok and all(r["certified_not_dp_at"]["proved"] for r in rows)
    grow = all(rows[i + 1]["certified_not_dp_at"]["log_ratio"][0] > rows[i]["certified_not_dp_at"]["log_ratio"][1]
               for i in range(len(rows) - 1))
    scope = ("sympy: the paper's Δ_1 = 0 example; arb (256 bits): RNMH with Δ = (δ, 1), ε = 1, q = (0, −1/2) vs (0, 1/2), "
             f"output 1, δ ∈ {{{', '.join(deltas)}}}")
    ev = {"Pr[M(D')=1] symbolic": str(p_Dp), "equals 1-exp(-eps/4)": example_ok, "Pr[M(D)=1]": p_D,
          "ratios (log) by delta": rows, "log-ratio increases as delta -> 0": grow,
          "closed form (§V-A)": "Pr[out 1 | D] = e^{-ε(q2-q1)/(2δ)}/(1+1/δ) → 0 while Pr[out 1 | D'] ≥ 1 − e^{−ε/4}"}
    return Verdict("holds" if ok and grow else "refuted", True, scope, ev)


@claim("hetsel.equation.5",
       "With k/2 candidates of score q_1 and sensitivity Δ_1 and k/2 of score q_2 > q_1 and sensitivity Δ_2, RNMH "
       "outputs one of the higher-scoring candidates whenever max_{i≤k/2} z_{a_i} − max_{i>k/2} z_{a_i} ≤ q_2 − q_1 (eq. 5).",
       "hetsel §I, eq. (5)",
       expected="holds",
       scope_quick="3 configurations, k ≤ 4; arb: the mechanism's pmf vs the law of the two noise maxima",
       scope_full="5 configurations, k ≤ 6; arb: the mechanism's pmf vs the law of the two noise maxima")
def equation_5(quick: bool) -> Verdict:
    rows, bad = [], []
    cases = [(1, "2", "1", "1", "1/2"), (2, "1", "3", "1/2", "1"), (2, "9/5", "1", "2", "2")]
    if not quick:
        cases += [(3, "1", "1/2", "1", "1/4"), (3, "1/2", "2", "1/10", "3")]
    for m, d1, d2, eps, gap in cases:
        lib = _mech("rnmh", eps, [d1] * m + [d2] * m).pmf(["0"] * m + [gap] * m, backend="ball").values
        p_lib = _sum(list(lib[m:]))
        p_eq5 = _group_high_ball(m, d1, d2, eps, gap)
        agree = bool((p_lib - p_eq5).contains(0))
        rows.append({"k": 2 * m, "Delta": [d1, d2], "epsilon": eps, "q2-q1": gap, "Pr[high] (pmf)": _ball_str(p_lib),
                     "Pr[eq. 5 event]": _ball_str(p_eq5), "agree": agree})
        if not agree:
            bad.append(rows[-1])
    scope = f"{len(cases)} configurations, k ≤ {2 * max(c[0] for c in cases)}; arb: the mechanism's pmf vs the law of the two noise maxima"
    return Verdict("refuted" if bad else "holds", True, scope, {"rows": rows, "mismatches": bad})


@claim("hetsel.text.footnote-2",
       "In the setting of eq. (5), the expectation of the left-hand side max_{i≤k/2} z_{a_i} − max_{i>k/2} z_{a_i} is "
       "H_{k/2}(Δ_1 − Δ_2), H_{k/2} the (k/2)-th harmonic number.", "hetsel §I, footnote 2",
       expected="refuted",
       severity="erratum",
       explanation="E[LHS] = (2/ε)·H_{k/2}(Δ_1 − Δ_2): the footnote drops the mean 2/ε of Exp(ε/2)",
       scope_quick="sympy: E[max of m Exp(rate λ)] = H_m/λ for m ≤ 5, rate λ = ε/(2Δ) (mean 2Δ/ε, hetsel §I)",
       scope_full="sympy: E[max of m Exp(rate λ)] = H_m/λ for m ≤ 5, rate λ = ε/(2Δ) (mean 2Δ/ε, hetsel §I)")
def footnote_2(quick: bool) -> Verdict:
    import sympy

    u, lam, e, d1, d2 = sympy.symbols("u lambda epsilon Delta1 Delta2", positive=True)
    rows, ok = [], True
    for m in (1, 2, 3, 5) if not quick else (1, 2, 3):
        # E[max of m i.i.d. Exp(rate λ)] = ∫_0^∞ (1 − (1 − e^{−λx})^m) dx = ∫_0^1 (1 − (1−u)^m)/(λu) du
        poly = sympy.expand(sympy.cancel((1 - (1 - u) ** m) / u))
        emax = sympy.integrate(poly, (u, 0, 1)) / lam
        ok &= sympy.simplify(emax - sympy.harmonic(m) / lam) == 0
        lhs = sympy.simplify(emax.subs(lam, e / (2 * d1)) - emax.subs(lam, e / (2 * d2)))
        printed = sympy.harmonic(m) * (d1 - d2)
        rows.append({"k/2": m, "E[LHS]": str(lhs), "printed": str(printed), "E[LHS]/printed": str(sympy.simplify(lhs / printed))})
    cx = {"k": 2, "epsilon": 1, "Delta": [2, 1], "E[LHS]": str(sympy.Integer(2) * sympy.harmonic(1) * (2 - 1) / 1), "printed": "1"}
    scope = "sympy: E[max of m Exp(rate λ)] = H_m/λ for m ≤ 5, rate λ = ε/(2Δ) (mean 2Δ/ε, hetsel §I)"
    ev = {"rows": rows, "E[max]=H_m/lambda verified": bool(ok), "correct": "E[LHS] = (2/ε) H_{k/2} (Δ_1 − Δ_2)",
          "counterexample": cx, "holds only when": "ε = 2 (the footnote drops the mean 2/ε of Exp(ε/2))"}
    return Verdict("refuted", True, scope, ev)


@claim("hetsel.text.eq5-lhs-growth",
       "In the setting of eq. (5) with Δ_1 > Δ_2, max_{i≤k/2} z_{a_i} stochastically dominates max_{i>k/2} z_{a_i}, so the "
       "expectation of the left-hand side of eq. (5) is positive, grows linearly with Δ_1 − Δ_2 and roughly "
       "logarithmically with k.", "hetsel §I",
       expected="holds",
       scope_quick="sympy: E[LHS] = (2/ε) H_{k/2} (Δ_1 − Δ_2), H_m = log m + γ_E + o(1)",
       scope_full="sympy: E[LHS] = (2/ε) H_{k/2} (Δ_1 − Δ_2), H_m = log m + γ_E + o(1)")
def eq5_lhs_growth(quick: bool) -> Verdict:
    import sympy

    e, d1, d2, x = sympy.symbols("epsilon Delta1 Delta2 x", positive=True)
    rows, ok = [], True
    for m in (1, 2, 4, 8, 64) if quick else (1, 2, 4, 8, 64, 1024):
        # E[max of m Exp(rate λ)] = H_m/λ (hetsel.text.footnote-2); here λ = ε/(2Δ)
        lhs = 2 * sympy.harmonic(m) * (d1 - d2) / e
        lin = sympy.simplify(sympy.diff(lhs, d1, 2)) == 0 and sympy.simplify(sympy.diff(lhs, d1)) != 0
        ok &= bool(lin)
        rows.append({"k": 2 * m, "E[LHS]": str(lhs), "H_{k/2} − log(k/2)": float(sympy.harmonic(m) - sympy.log(m))})
    # dominance: Pr[max ≤ x] = (1 − e^{−εx/(2Δ)})^{k/2}, and d/dΔ (1 − e^{−c/Δ}) = −(c/Δ²) e^{−c/Δ} < 0 (c = εx/2)
    c = e * x / 2
    dom = sympy.simplify(sympy.diff(1 - sympy.exp(-c / d1), d1) + c / d1**2 * sympy.exp(-c / d1)) == 0
    ok &= bool(dom)
    return Verdict("holds" if ok else "refuted", True, "sympy: E[LHS] = (2/ε) H_{k/2} (Δ_1 − Δ_2), H_m = log m + γ_E + o(1)",
                   {"rows": rows, "cdf of the max decreasing in Δ": bool(dom)})


@claim("hetsel.text.rnmh-below-half",
       "In the setting of eq. (5): if k or Δ_1 − Δ_2 is large, the probability that RNMH outputs a higher-scoring "
       "candidate may be less than 50%; this is never the case for RNM.", "hetsel §I",
       expected="holds",
       scope_quick="arb: law of the noise maxima; RNMH Δ=(10,1) k=2 and Δ=(5/4,1) k up to 64, ε=1, q2−q1=1; RNM on 27 configurations",
       scope_full="arb: law of the noise maxima; RNMH Δ=(10,1) k=2 and Δ=(5/4,1) k up to 64, ε=1, q2−q1=1; RNM on 27 configurations")
def rnmh_below_half(quick: bool) -> Verdict:
    # (a) large Δ1 − Δ2 (k = 2) and large k (Δ1 − Δ2 = 1/4), ε = 1, q2 − q1 = 1
    big_gap = _group_high_ball(1, 10, 1, 1, 1)
    ks = []
    for m in (1, 2, 4, 8, 16, 32) if not quick else (1, 4, 16, 32):
        ks.append((2 * m, _group_high_ball(m, "5/4", 1, 1, 1)))
    below = [k for k, p in ks if p < _half()]
    # (b) RNM (common Δ = max Δ_a): Pr[high] ≥ 1/2 in arb on a grid (symmetry + monotonicity)
    rnm_rows, rnm_bad = [], []
    for m in (1, 2, 3):
        for eps in ("1/10", "1", "5"):
            for gap in ("1/100", "1", "4"):
                d = "9/5"
                p = _group_high_ball(m, d, d, eps, gap)
                rnm_rows.append(float(p.mid()))
                if not p > _half():
                    rnm_bad.append({"k": 2 * m, "epsilon": eps, "gap": gap, "Pr[high]": _ball_str(p)})
    ok = big_gap < _half() and below and not rnm_bad
    scope = "arb: law of the noise maxima; RNMH Δ=(10,1) k=2 and Δ=(5/4,1) k up to 64, ε=1, q2−q1=1; RNM on 27 configurations"
    ev = {"RNMH Pr[high], Delta=(10,1), k=2": _ball_str(big_gap),
          "RNMH Pr[high], Delta=(5/4,1), by k": {str(k): _ball_str(p) for k, p in ks}, "k with Pr < 1/2": below,
          "RNM min Pr[high]": min(rnm_rows), "RNM violations": rnm_bad}
    return Verdict("holds" if ok else "refuted", True, scope, ev)


@claim("hetsel.text.rnmh-beats-rnm-when-high-more-sensitive",
       "In the setting of eq. (5), when Δ_1 < Δ_2 (the higher-scoring half is more sensitive) RNMH selects a "
       "high-scoring candidate more frequently than RNM.", "hetsel §I",
       expected="holds",
       scope_quick="arb on 18 configurations (k, Δ_1 < Δ_2, ε, q2 − q1)",
       scope_full="arb on 27 configurations (k, Δ_1 < Δ_2, ε, q2 − q1)")
def rnmh_beats_rnm(quick: bool) -> Verdict:
    rows, bad = [], []
    for m in (1, 2, 5) if not quick else (1, 3):
        for d1, d2 in (("1/2", "1"), ("1", "9/5"), ("1/10", "3")):
            for eps, gap in (("1/10", "1"), ("1", "1/2"), ("3", "2")):
                a = _group_high_ball(m, d1, d2, eps, gap)  # RNMH
                b = _group_high_ball(m, d2, d2, eps, gap)  # RNM: Δ = max = Δ_2 for everyone
                diff = a - b
                rows.append(float(diff.mid()))
                if not diff > 0:
                    bad.append({"k": 2 * m, "Delta": [d1, d2], "epsilon": eps, "gap": gap, "diff": _ball_str(diff)})
    scope = f"arb on {len(rows)} configurations (k, Δ_1 < Δ_2, ε, q2 − q1)"
    ev = {"min Pr_RNMH[high] − Pr_RNM[high]": min(rows), "violations": bad,
          "proof": "max of the low half's noise is stochastically smaller under RNMH (Δ_1 < Δ = Δ_2), the high half's law is unchanged"}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


@claim("hetsel.text.rnmh-laplace-k-eps",
       "RNMH with Laplace noise (z_a ~ Lap(Δ_a/ε)) is kε-DP, k the number of candidates.", "hetsel §IV-A",
       expected="holds",
       scope_quick="ε = 1, Lap(Δ_a/ε); box-neighbour vertices of the listed vectors, both orders, all outputs; arb (pure_dp verifier)",
       scope_full="ε = 1, Lap(Δ_a/ε); box-neighbour vertices of the listed vectors, both orders, all outputs; arb (pure_dp verifier)")
def rnmh_laplace_k_eps(quick: bool) -> Verdict:
    configs = [(["1", "1"], [[0, 0], [0, 3]]), (["1/10", "1", "1"], [[0, 1, 1]])]
    if not quick:
        configs = [(["1", "1"], [[0, 0], [0, 1], [0, 3]]), (["1/10", "1", "1"], [[0, 0, 0], [0, 1, 1]]),
                   (["1/2", "2"], [[0, 0], [0, "1/2"], [1, -2]]), (["1/10", "1/2", "1"], [[0, 0, 0], [1, 0, "1/2"]])]
    rows = []
    for sens, vecs in configs:
        m = _mech("rnmh-laplace", 1, sens)
        rows.append(_pure_dp(m, vecs, sens, claimed=len(sens)))
    ok = all(r["certified_all"] for r in rows)
    bad = [r for r in rows if "counterexample" in r]
    scope = "ε = 1, Lap(Δ_a/ε); box-neighbour vertices of the listed vectors, both orders, all outputs; arb (pure_dp verifier)"
    ev = {"rows": rows, "argument": "each noisy score q_a + Lap(Δ_a/ε) is ε-DP; k-fold composition then argmax (post-processing)"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("holds" if ok else "inconclusive", ok, scope, ev)


@claim("hetsel.text.rnmh-laplace-k-minus-1-eps",
       "RNMH with Laplace noise Lap(Δ_a/ε) is in fact (k−1)ε-DP (k candidates), and this analysis is tight.",
       "hetsel §IV-A",
       expected="refuted",
       severity="false-statement",
       scope_quick="k = 2, Δ = (1, 1), ε = 1: q = (0, T) vs q' = (−1, T + 1), output 1; arb (256 bits) and sympy closed form; k = 3, Δ = (1/10, 1, 1), claimed 2ε",
       scope_full="k = 2, Δ = (1, 1), ε = 1: q = (0, T) vs q' = (−1, T + 1), output 1; arb (256 bits) and sympy closed form; k = 3, Δ = (1/10, 1, 1), claimed 2ε")
def rnmh_laplace_k_minus_1(quick: bool) -> Verdict:
    m = _mech("rnmh-laplace", 1, [1, 1])
    cx = _certify(m, [0, 0], [-1, 1], 0, 1, [1, 1])
    cx3 = _certify(_mech("rnmh-laplace", 1, ["1/10", 1, 1]), [0, 0, 0], ["-1/10", 1, 1], 0, 2, ["1/10", 1, 1])
    # the privacy loss of the same pair of directions approaches kε = 2ε as the gap T grows
    import sympy

    T = sympy.symbols("T", nonnegative=True)
    # z1 − z2 for two Lap(1) variables: Pr[z1 − z2 > t] = e^{−t}(2 + t)/4 (t ≥ 0)
    tail = lambda t: sympy.exp(-t) * (2 + t) / 4  # noqa: E731
    ratio = sympy.simplify(tail(T) / tail(T + 2))
    lim = sympy.limit(ratio, T, sympy.oo)
    Ts = (0, 10) if quick else (0, 10, 100)
    lib = []
    for t in Ts:
        with _prec(256):
            a = m.pmf([0, t], backend="ball:256").values[0]
            b = m.pmf([-1, t + 1], backend="ball:256").values[0]
            lib.append({"T": t, "log_ratio (pmf)": _ball_str((a / b).log()), "closed form": float(sympy.log(ratio.subs(T, t)))})
    scope = "k = 2, Δ = (1, 1), ε = 1: q = (0, T) vs q' = (−1, T + 1), output 1; arb (256 bits) and sympy closed form"
    ev = {"counterexample_(k-1)eps": cx, "counterexample_k=3 (Δ=(1/10,1,1), claimed 2ε)": cx3, "ratio closed form": str(ratio), "limit of ratio (T→∞)": str(lim),
          "by T": lib, "holds for": "kε (see hetsel.text.rnmh-laplace-k-eps); the loss approaches kε = 2ε, not (k−1)ε = ε"}
    proved = bool(cx["proved"] and cx3["proved"])
    return Verdict("refuted" if proved else "inconclusive", proved, scope + "; k = 3, Δ = (1/10, 1, 1), claimed 2ε", ev)


@claim("hetsel.appendix.a",
       "RNMH with Laplace noise Lap(Δ_i/ε) is not ε'-DP for any ε' < (k−1)ε: with Δ_1 = 0, Δ_i = 1 (i ≥ 2), "
       "D_1: q_i = 0 for all i, D_2: q_1 = 0, q_i = 1 (i ≥ 2), Pr[M(D_1)=1] = (1/2)^{k−1}, "
       "Pr[M(D_2)=1] = (e^{−ε}/2)^{k−1} and the ratio is exp((k−1)ε) (eqs. 8–15).", "hetsel Appendix A, eqs. (8)-(15)",
       expected="holds",
       scope_quick="sympy for k ≤ 6 (Δ_1 = 0 as in the paper); arb: library RNMH-Laplace with Δ = (δ, 1, 1), ε = 1",
       scope_full="sympy for k ≤ 6 (Δ_1 = 0 as in the paper); arb: library RNMH-Laplace with Δ = (δ, 1, 1), ε = 1")
def appendix_a(quick: bool) -> Verdict:
    import sympy

    e, z = sympy.symbols("epsilon z", positive=True)
    # Lap(1/ε): density (ε/2) e^{−ε|z|}, i.e. (ε/2) e^{εz} on z < 0
    p0 = sympy.integrate(e / 2 * sympy.exp(e * z), (z, -sympy.oo, 0))  # Pr[z < 0]
    p1 = sympy.integrate(e / 2 * sympy.exp(e * z), (z, -sympy.oo, -1))  # Pr[z < −1]
    rows, ok = [], sympy.simplify(p0 - sympy.Rational(1, 2)) == 0 and sympy.simplify(p1 - sympy.exp(-e) / 2) == 0
    for k in range(2, 5 if quick else 7):
        r = sympy.simplify(p0 ** (k - 1) / p1 ** (k - 1))
        rows.append({"k": k, "ratio": str(r)})
        ok &= sympy.simplify(r - sympy.exp((k - 1) * e)) == 0
    # the library rejects Δ = 0; with Δ_1 = δ > 0 the ratio approaches e^{(k−1)ε} from below
    lib = []
    for d in ("1/10", "1/100") if quick else ("1/10", "1/100", "1/1000"):
        m = _mech("rnmh-laplace", 1, [d, 1, 1])
        with _prec(256):
            a = m.pmf([0, 0, 0], backend="ball:256").values[0]
            b = m.pmf([0, 1, 1], backend="ball:256").values[0]
            lib.append({"delta_1": d, "k": 3, "log_ratio": _ball_str((a / b).log())})
    scope = "sympy for k ≤ 6 (Δ_1 = 0 as in the paper); arb: library RNMH-Laplace with Δ = (δ, 1, 1), ε = 1"
    ev = {"Pr[z<0]": str(p0), "Pr[z<-1]": str(p1), "ratios": rows, "library (Δ_1 = δ > 0)": lib,
          "note": "§IV-A writes the noise as Lap(ε/Δ_a) (a rate), Appendix A as Lap(Δ_i/ε) (a scale); the proof uses the scale"}
    return Verdict("holds" if ok else "refuted", True, scope, ev)
