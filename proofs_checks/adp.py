"""Claims of adp (F. Tramèr, lecture notes *Approximate Differential Privacy*) and their checks.

Gaussian mechanism: the exact privacy profile of N(0,σ²) vs N(Δ,σ²) (Balle & Wang 2018, Thm. 8)

    δ_exact(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),

evaluated in arb (Φ(x) = erfc(−x/√2)/2). Composition: by the optimal composition theorem
(Kairouz, Oh & Viswanath 2015) the k-fold composition of (ε,δ)-DP mechanisms is dominated by
k-fold "(ε,δ)-randomized response" (reveal the bit w.p. δ, else ε-RR); its hockey-stick
divergence is computed exactly in arb.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ._common import arb_of, mech, random_scores
from .catalogue import Figure, Verdict, claim


def _Phi(x: Any) -> Any:
    from flint import arb

    return (-x / arb(2).sqrt()).erfc() / 2


def gaussian_delta(eps: Any, sigma: Any, sens: Any = 1) -> Any:
    """Exact δ(ε) of the Gaussian mechanism with noise σ and ℓ2-sensitivity Δ (arb)."""
    a = sens / (2 * sigma)
    b = eps * sigma / sens
    return _Phi(a - b) - eps.exp() * _Phi(-a - b)


def classical_sigma(eps: Any, delta: Any, sens: Any = 1) -> Any:
    """adp Definition 5: σ = √(2 ln(1.25/δ)) Δ₂/ε (arb)."""
    from flint import arb

    return (2 * (arb(5) / 4 / delta).log()).sqrt() * sens / eps


def _gaussian_grid(eps_values: list[Fraction], deltas: list[Fraction]) -> tuple[list[dict], list[dict], int]:
    from flint import ctx

    old, ctx.prec = ctx.prec, 200
    rows, bad, undecided = [], [], 0
    try:
        for e in eps_values:
            for d in deltas:
                ea, da = arb_of(e), arb_of(d)
                dex = gaussian_delta(ea, classical_sigma(ea, da))
                diff = dex - da
                rows.append({"epsilon": float(e), "delta": float(d), "delta_exact": float(dex.mid()), "ratio": float((dex / da).mid())})
                if diff > 0:
                    bad.append(rows[-1])
                elif not diff <= 0:
                    undecided += 1
    finally:
        ctx.prec = old
    return rows, bad, undecided


_DELTAS = [Fraction(1, 10**j) for j in (1, 2, 3, 5, 8, 12, 20)] + [Fraction(1, 2), Fraction(9, 10), Fraction(99, 100)]


@claim("adp.theorem.2", "For any ε ≤ 1 and δ > 0, the Gaussian mechanism with σ = √(2 log(1.25/δ)) Δ₂/ε is (ε, δ)-DP.",
       "adp §3, Definition 5 and Theorem 2",
       expected="holds",
       scope_quick="arb (200 bits) exact privacy profile (Balle–Wang) on ε ∈ {1/100, 1/10, 1/2, 1, 1/10000, …} (|ε| = 5), δ ∈ {0.99, 0.9, 0.5, 1e-1 … 1e-20}; δ ≥ 1 is trivially DP",
       scope_full="arb (200 bits) exact privacy profile (Balle–Wang) on ε ∈ {1/20, 1/10, 3/20, 1/5, 1/4, 3/10, …} (|ε| = 21), δ ∈ {0.99, 0.9, 0.5, 1e-1 … 1e-20}; δ ≥ 1 is trivially DP")
def theorem_2(quick: bool) -> Verdict:
    eps = [Fraction(j, 20) for j in range(1, 21)] if not quick else [Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(1)]
    eps += [Fraction(1, 10**4)]
    rows, bad, undecided = _gaussian_grid(eps, _DELTAS)
    worst = max(rows, key=lambda r: r["ratio"])
    scope = f"arb (200 bits) exact privacy profile (Balle–Wang) on ε ∈ {{{', '.join(str(e) for e in eps[:6])}, …}} (|ε| = {len(eps)}), δ ∈ {{0.99, 0.9, 0.5, 1e-1 … 1e-20}}; δ ≥ 1 is trivially DP"
    ev = {"worst_delta_exact/delta": worst, "violations": bad[:5], "undecided": undecided}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev)


@claim("adp.text.gaussian-eps-above-one", "Footnote to Theorem 2: the theorem can also be proved for ε > 1 'with slightly different types of bounds' — "
       "checked here: whether the same calibration σ = √(2 log(1.25/δ))Δ₂/ε still gives (ε, δ)-DP for ε > 1.", "adp §3, footnote a of Theorem 2",
       expected="refuted",
       severity="false-statement",
       explanation="the classical calibration σ = √(2 log(1.25/δ))Δ₂/ε fails for large ε and δ; Theorem 2 itself is stated for ε < 1 only",
       scope_quick="arb exact privacy profile on ε ∈ (1, 5.0] step 1/4, δ ∈ {0.99, 0.9, 0.5, 1e-1 … 1e-20}",
       scope_full="arb exact privacy profile on ε ∈ (1, 10.0] step 1/4, δ ∈ {0.99, 0.9, 0.5, 1e-1 … 1e-20}")
def gaussian_eps_above_one(quick: bool) -> Verdict:
    eps = [Fraction(k, 4) for k in range(5, 41 if not quick else 21)]
    rows, bad, undecided = _gaussian_grid(eps, _DELTAS)
    fails = sorted({(r["epsilon"], r["delta"]) for r in bad})
    smallest = min(fails) if fails else None
    scope = f"arb exact privacy profile on ε ∈ (1, {float(eps[-1])}] step 1/4, δ ∈ {{0.99, 0.9, 0.5, 1e-1 … 1e-20}}"
    ev = {"failing_(eps,delta)": fails[:12], "n_failing": len(fails), "smallest_failing_eps": smallest, "undecided": undecided,
          "smallest_failing_eps_per_delta": {str(d): min(e for e, dd in fails if dd == d) for d in sorted({d for _, d in fails})},
          "note": "the footnote only says the theorem holds with different bounds for ε > 1; the classical calibration itself"}
    if bad:
        ev["note"] += " fails there (refuted as an unconditional calibration; holds for ε ≤ 1)"
        return Verdict("refuted", True, scope, ev)
    ev["note"] += " still holds on this grid"
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev)


@claim("adp.text.gaussian-delta-of-epsilon", "Adding N(0, σ²) noise to a Δ₂-sensitive f is (ε, δ(ε))-DP for every ε > 0 with δ(ε) = 1.25 exp(−ε²σ²/(2Δ₂²)).",
       "adp §3, paragraph after the proof of Theorem 2",
       expected="refuted",
       severity="false-statement",
       scope_quick="arb: σ ∈ {1/4, 1, 5}, Δ = 1, ε = k/8 up to 5",
       scope_full="arb: σ ∈ {1/4, 1/2, 1, 2, 5, 10}, Δ = 1, ε = k/8 up to 15")
def gaussian_delta_of_eps(quick: bool) -> Verdict:
    from flint import arb, ctx

    old, ctx.prec = ctx.prec, 200
    bad, rows, undecided = [], [], 0
    xs, exact_curve, claimed_curve = [], [], []
    try:
        sigmas = ("1/4", "1", "5") if quick else ("1/4", "1/2", "1", "2", "5", "10")
        for sigma in sigmas:
            s = arb_of(sigma)
            for k in range(1, 41 if quick else 121):
                e = arb(k) / 8
                dex = gaussian_delta(e, s)
                dcl = arb(5) / 4 * (-(e * e) * s * s / 2).exp()
                if sigma == "1":
                    xs.append(float(e.mid()))
                    exact_curve.append(float(dex.mid()))
                    claimed_curve.append(float(dcl.mid()))
                if dex > dcl:
                    bad.append({"sigma": sigma, "epsilon": float(e.mid()), "delta_exact": float(dex.mid()), "claimed": float(dcl.mid())})
                elif not dex <= dcl:
                    undecided += 1
    finally:
        ctx.prec = old
    fig = Figure("adp: Gaussian δ(ε), σ = Δ = 1", tuple(xs), {"exact (Balle–Wang)": tuple(exact_curve), "1.25 exp(−ε²σ²/2Δ²)": tuple(claimed_curve)}, "ε", "δ", logy=True)
    scope = f"arb: σ ∈ {{{', '.join(sigmas)}}}, Δ = 1, ε = k/8 up to {15 if not quick else 5}"
    ev = {"violations": bad[:6], "n_violations": len(bad), "undecided": undecided}
    if bad:
        eps_fail = sorted({b["epsilon"] for b in bad})
        sig_fail = sorted({b["sigma"] for b in bad}, key=lambda x: Fraction(x))
        ev["note"] = (f"fails for σ ∈ {sig_fail} at ε ≥ {eps_fail[0]} (large δ(ε) regime); on this grid it holds for the other σ — "
                      "i.e. it holds only under an extra condition (e.g. ε ≤ 1 with the σ of Definition 5)")
        return Verdict("refuted", True, scope, ev, fig)
    return Verdict("inconclusive" if undecided else "holds", not undecided, scope, ev, fig)


@claim("adp.text.gaussian-plrv", "For y ~ N(0,σ²) vs N(Δ₂,σ²) the privacy loss L(y) = (Δ₂² − 2yΔ₂)/(2σ²) is Gaussian with mean Δ₂²/(2σ²) and variance Δ₂²/σ².",
       "adp §3, proof of Theorem 2",
       expected="holds",
       scope_quick="sympy (symbolic σ, Δ₂)",
       scope_full="sympy (symbolic σ, Δ₂)")
def gaussian_plrv(quick: bool) -> Verdict:
    import sympy as sp
    from sympy.stats import E, Normal, variance

    y = sp.symbols("y", real=True)
    s, D = sp.symbols("sigma Delta", positive=True)
    loss = sp.log(sp.exp(-y**2 / (2 * s**2)) / sp.exp(-(y - D) ** 2 / (2 * s**2)))
    formula_ok = sp.simplify(sp.expand_log(loss, force=True) - (D**2 - 2 * y * D) / (2 * s**2)) == 0
    Y = Normal("Y", 0, s)
    L = (D**2 - 2 * Y * D) / (2 * s**2)
    mean, var = sp.simplify(E(L)), sp.simplify(variance(L))
    ok = formula_ok and sp.simplify(mean - D**2 / (2 * s**2)) == 0 and sp.simplify(var - D**2 / s**2) == 0
    return Verdict("holds" if ok else "refuted", True, "sympy (symbolic σ, Δ₂)", {"loss_formula_ok": formula_ok, "mean": str(mean), "variance": str(var)})


@claim("adp.text.gaussian-tail-bound", "If Z ~ N(0,σ²) then Pr(|Z| > tσ) ≤ 2 exp(−t²/2) for every t > 0; with σ = √(2 log(2/δ))Δ₂/ε this gives "
       "Pr[|N(0,1)| > √(2 log(2/δ))] ≤ δ.", "adp §3, proof of Theorem 2",
       expected="holds",
       scope_quick="sympy proof sketch of the sharper e^{−t²/2} bound + arb at t = k/40 ≤ 10",
       scope_full="sympy proof sketch of the sharper e^{−t²/2} bound + arb at t = k/40 ≤ 10")
def gaussian_tail(quick: bool) -> Verdict:
    import sympy as sp
    from flint import arb, ctx

    # Pr(|Z| > t) = erfc(t/√2) ≤ e^{−t²/2} for t ≥ 0 (derivative argument), hence ≤ 2e^{−t²/2}
    t = sp.symbols("t", nonnegative=True)
    h = sp.exp(-t**2 / 2) - sp.erfc(t / sp.sqrt(2))
    dh = sp.simplify(sp.diff(h, t))
    # h(0) = 0 and h' = e^{−t²/2}(√(2/π) − t): h increases then decreases to lim 0 ⇒ h ≥ 0
    h0, hinf = sp.simplify(h.subs(t, 0)), sp.limit(h, t, sp.oo)
    old, ctx.prec = ctx.prec, 128
    bad = []
    try:
        for k in range(1, 401):
            tt = arb(k) / 40
            if (tt / arb(2).sqrt()).erfc() > 2 * (-(tt * tt) / 2).exp():
                bad.append(k / 40)
    finally:
        ctx.prec = old
    ok = not bad and h0 == 0 and hinf == 0 and sp.simplify(dh - sp.exp(-t**2 / 2) * (sp.sqrt(2 / sp.pi) - t)) == 0
    return Verdict("holds" if ok else "refuted", True, "sympy proof sketch of the sharper e^{−t²/2} bound + arb at t = k/40 ≤ 10",
                   {"h(t)=e^{-t^2/2}-erfc(t/√2)": {"h(0)": str(h0), "h(∞)": str(hinf), "h'": str(dh)}, "violations": bad[:5],
                    "consequence": "2 exp(−log(2/δ)) = δ"})


@claim("adp.text.gaussian-vs-laplace-variance", "In the univariate case (Δ₂ = Δ₁) the Gaussian mechanism always adds noise of higher variance than the Laplace mechanism.",
       "adp §3, after Definition 5",
       expected="refuted",
       severity="false-statement",
       explanation="holds for δ < 5/(4e) ≈ 0.46, i.e. every practically used δ",
       scope_quick="sympy: exact solution set in δ ∈ (0,1) of Var_Gauss > Var_Laplace (Laplace scale Δ₁/ε)",
       scope_full="sympy: exact solution set in δ ∈ (0,1) of Var_Gauss > Var_Laplace (Laplace scale Δ₁/ε)")
def gaussian_vs_laplace(quick: bool) -> Verdict:
    import sympy as sp

    d = sp.symbols("delta", positive=True)
    # Var Gauss = 2 log(1.25/δ) Δ²/ε², Var Laplace(Δ/ε) = 2 Δ²/ε²: Gauss > Laplace ⇔ log(5/(4δ)) > 1 ⇔ δ < 5/(4e)
    sol = sp.solve_univariate_inequality(sp.log(sp.Rational(5, 4) / d) > 1, d, relational=False, domain=sp.Interval.open(0, 1))
    threshold = sp.Rational(5, 4) / sp.E
    holds_everywhere = sol == sp.Interval.open(0, 1)
    ev = {"gauss_variance_larger_for_delta_in": str(sol), "threshold": str(threshold), "threshold_float": float(threshold),
          "counterexample": {"delta": "1/2", "var_gauss/var_laplace": float(sp.log(sp.Rational(5, 2)))}}
    if not holds_everywhere:
        ev["note"] = "holds only for δ < 5/(4e) ≈ 0.46 (every practically used δ); for δ ∈ [5/(4e), 1) the Gaussian variance is not larger"
    return Verdict("holds" if holds_everywhere else "refuted", True, "sympy: exact solution set in δ ∈ (0,1) of Var_Gauss > Var_Laplace (Laplace scale Δ₁/ε)", ev)


# -- composition -----------------------------------------------------------------------------------


def rr_hockey_stick(eps: Any, delta: Any, k: int, eps_total: Any, total_over_eps: Fraction | None = None) -> Any:
    """H_{e^{ε̃}}(P^k ‖ Q^k) for k-fold (ε,δ)-RR (reveal w.p. δ, else ε-RR), in arb.

    = 1 − (1−δ)^k + (1−δ)^k Σ_i C(k,i) [a^{k−i} b^i − e^{ε̃} b^{k−i} a^i]_+,
    a = e^ε/(1+e^ε), b = 1/(1+e^ε) (any reveal under P has probability 0 under Q).
    The i-th bracket is positive iff (k − 2i) ε > ε̃; when ``total_over_eps`` = ε̃/ε is given
    (rational) that sign is decided exactly, otherwise by the ball.
    """
    from flint import arb

    a = eps.exp() / (1 + eps.exp())
    b = 1 / (1 + eps.exp())
    E = eps_total.exp()
    tot = arb(0)
    binom = arb(1)
    for i in range(k + 1):
        if i:
            binom = binom * (k - i + 1) / i
        if total_over_eps is not None:
            if k - 2 * i > total_over_eps:
                tot += binom * (a ** (k - i) * b**i - E * b ** (k - i) * a**i)
            continue
        term = binom * (a ** (k - i) * b**i - E * b ** (k - i) * a**i)
        if term > 0:
            tot += term
        elif not term <= 0:
            tot += term.union(arb(0))
    keep = (1 - delta) ** k
    return 1 - keep + keep * tot


def rr_hockey_stick_basic(eps_list: list[Fraction], delta_list: list[Fraction]) -> tuple[Fraction, int]:
    """H_{e^{Σε_i}} of the composition of (ε_i, δ_i)-RR, exactly: the sign of every bracket is decided
    exactly (the privacy loss of an RR outcome sequence is Σ ±ε_i ≤ Σ ε_i), so only the reveal
    events contribute and H = 1 − Π(1 − δ_i) (a rational). Returns (H, number of positive brackets)."""
    import itertools

    positive = 0
    for signs in itertools.product((1, -1), repeat=len(eps_list)):
        loss = sum(s * e for s, e in zip(signs, eps_list))
        if loss > sum(eps_list):
            positive += 1
    keep = Fraction(1)
    for d in delta_list:
        keep *= 1 - d
    return 1 - keep, positive


@claim("adp.theorem.1", "Basic composition: if M_i is (ε_i, δ_i)-DP (chosen adaptively), then (M_1, …, M_k) is (Σ ε_i, Σ δ_i)-DP.",
       "adp §1, Theorem 1",
       expected="holds",
       scope_quick="exact: compositions of (ε_i, δ_i)-RR with random rational ε_i ∈ (0, 3], δ_i ∈ [0, 0.06), k ≤ 10 — the worst case of (ε,δ)-DP composition by the optimal composition theorem (Kairouz–Oh–Viswanath, adaptive); every outcome sequence enumerated",
       scope_full="exact: compositions of (ε_i, δ_i)-RR with random rational ε_i ∈ (0, 3], δ_i ∈ [0, 0.06), k ≤ 10 — the worst case of (ε,δ)-DP composition by the optimal composition theorem (Kairouz–Oh–Viswanath, adaptive); every outcome sequence enumerated")
def basic_composition(quick: bool) -> Verdict:
    rng = np.random.default_rng(13)
    rows, bad = [], []
    for _ in range(20 if quick else 80):
        k = int(rng.integers(1, 9 if quick else 11))
        eps = [Fraction(int(v), 8) for v in rng.integers(1, 25, size=k)]
        dels = [Fraction(int(v), 1000) for v in rng.integers(0, 60, size=k)]
        H, positive = rr_hockey_stick_basic(eps, dels)
        rows.append({"k": k, "eps": [str(e) for e in eps], "H": str(H), "sum_delta": str(sum(dels))})
        if positive or H > sum(dels):
            bad.append(rows[-1])
    scope = ("exact: compositions of (ε_i, δ_i)-RR with random rational ε_i ∈ (0, 3], δ_i ∈ [0, 0.06), k ≤ 10 — the worst case of "
             "(ε,δ)-DP composition by the optimal composition theorem (Kairouz–Oh–Viswanath, adaptive); every outcome sequence enumerated")
    ev = {"sample": rows[:4], "violations": bad[:5],
          "note": "H = 1 − Π(1 − δ_i) ≤ Σ δ_i (union bound); pure case δ_i = 0: H = 0, tight for RR"}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


def advanced_epsilon(eps: Any, k: int, delta_prime: Any) -> Any:
    """adp Theorem 3: ε̃ = ε √(2k log(1/δ')) + k ε (e^ε − 1)/(e^ε + 1) (arb)."""
    return eps * (2 * k * (1 / delta_prime).log()).sqrt() + k * eps * (eps.exp() - 1) / (eps.exp() + 1)


@claim("adp.theorem.3", "Advanced composition: k adaptively chosen (ε, δ)-DP algorithms compose to (ε̃, kδ + δ')-DP with "
       "ε̃ = ε √(2k log(1/δ')) + k ε (e^ε − 1)/(e^ε + 1), for all ε, δ, δ' > 0.", "adp §4, Theorem 3",
       expected="holds",
       scope_quick="arb: k-fold (ε,δ)-RR (worst case by Kairouz–Oh–Viswanath) at e^{ε̃}; ε ∈ {0.01,0.1,0.5,1,2,5}, δ' ∈ {1e-3,1e-6,1e-9}, δ ∈ {0, 1e-6}, k ≤ 1000",
       scope_full="arb: k-fold (ε,δ)-RR (worst case by Kairouz–Oh–Viswanath) at e^{ε̃}; ε ∈ {0.01,0.1,0.5,1,2,5}, δ' ∈ {1e-3,1e-6,1e-9}, δ ∈ {0, 1e-6}, k ≤ 3000")
def advanced_composition(quick: bool) -> Verdict:
    from flint import ctx

    old, ctx.prec = ctx.prec, 200
    rows, bad, undec = [], [], 0
    xs, ratio_basic = [], []
    try:
        for e in ("1/100", "1/10", "1/2", "1", "2", "5"):
            for dp in ("1/1000", "1/1000000", "1/1000000000"):
                for dl in ("0", "1/1000000"):
                    for k in (1, 2, 10, 100, 1000) if quick else (1, 2, 3, 10, 30, 100, 300, 1000, 3000):
                        ea, dpa, da = arb_of(e), arb_of(dp), arb_of(dl)
                        et = advanced_epsilon(ea, k, dpa)
                        H = rr_hockey_stick(ea, da, k, et)
                        slack = k * da + dpa - H
                        rows.append({"eps": e, "delta_prime": dp, "delta": dl, "k": k, "eps_tilde": float(et.mid()), "H": float(H.mid()),
                                     "bound": float((k * da + dpa).mid())})
                        if slack < 0:
                            bad.append(rows[-1])
                        elif not slack >= 0:
                            undec += 1
                        if e == "1/10" and dp == "1/1000000" and dl == "0":
                            xs.append(float(k))
                            ratio_basic.append(float((et / (k * ea)).mid()))
    finally:
        ctx.prec = old
    fig = Figure("adp Thm 3: ε̃ / (kε) (ε = 0.1, δ' = 1e-6)", tuple(xs), {"advanced / basic": tuple(ratio_basic)}, "k", "ε̃ / kε", logx=True, hline=(1.0,))
    scope = ("arb: k-fold (ε,δ)-RR (worst case by Kairouz–Oh–Viswanath) at e^{ε̃}; ε ∈ {0.01,0.1,0.5,1,2,5}, δ' ∈ {1e-3,1e-6,1e-9}, δ ∈ {0, 1e-6}, "
             f"k ≤ {1000 if quick else 3000}")
    tightest = max(rows, key=lambda r: r["H"] / r["bound"])
    ev = {"points": len(rows), "tightest": tightest, "violations": bad[:5], "undecided": undec}
    if bad:
        return Verdict("refuted", True, scope, ev, fig)
    return Verdict("inconclusive" if undec else "holds", not undec, scope, ev, fig)


@claim("adp.text.tanh-approximation", "For small ε, (e^ε − 1)/(e^ε + 1) ≈ ε/2, so ε̃ = Θ(ε√(2k log(1/δ')) + kε²).", "adp §4, after Theorem 3",
       expected="holds",
       scope_quick="sympy limit and series at ε → 0",
       scope_full="sympy limit and series at ε → 0")
def tanh_approx(quick: bool) -> Verdict:
    import sympy as sp

    e = sp.symbols("epsilon", positive=True)
    f = (sp.exp(e) - 1) / (sp.exp(e) + 1)
    lim = sp.limit(f / (e / 2), e, 0)
    series = sp.series(f, e, 0, 5).removeO()
    below = sp.simplify((f - sp.tanh(e / 2)).rewrite(sp.exp)) == 0  # = tanh(ε/2) ≤ ε/2
    return Verdict("holds" if lim == 1 and below else "refuted", True, "sympy limit and series at ε → 0",
                   {"limit_ratio": str(lim), "series": str(series), "equals_tanh(eps/2)": below})


# -- exponential mechanism -------------------------------------------------------------------------


@claim("adp.theorem.4", "The exponential mechanism (Pr[y] ∝ exp(εq(y;D)/(2Δ))) is ε-DP.", "adp §6.1, Definition 7 and Theorem 4",
       expected="holds",
       scope_quick="arb: 36 neighbour pairs (random rational q, n ≤ 7, offsets in [−Δ,Δ]^n incl. the worst corner), ε ∈ {1/3, 1, 3}, all outputs, both directions",
       scope_full="arb: 150 neighbour pairs (random rational q, n ≤ 7, offsets in [−Δ,Δ]^n incl. the worst corner), ε ∈ {1/3, 1, 3}, all outputs, both directions")
def em_privacy(quick: bool) -> Verdict:
    from flint import ctx

    rng = np.random.default_rng(11)
    worst, undec, bad, pairs = 0.0, 0, [], 0
    old, ctx.prec = ctx.prec, 128
    try:
        for e in ("1/3", "1", "3"):
            m = mech("em", e)
            bound = arb_of(e).exp()
            for _ in range(6 if quick else 25):
                n = int(rng.integers(2, 8))
                q = [Fraction(s) for s in random_scores(rng, n, spread=4.0)]
                r = int(rng.integers(0, n))
                for d in ([1 if i == r else -1 for i in range(n)], [Fraction(int(v), 8) for v in rng.integers(-8, 9, size=n)]):
                    q2 = [x + y for x, y in zip(q, d)]
                    a = m.pmf([str(x) for x in q], backend="ball").values
                    b = m.pmf([str(x) for x in q2], backend="ball").values
                    pairs += 1
                    for u, v in ((a, b), (b, a)):
                        for s in range(n):
                            diff = u[s] - bound * v[s]
                            worst = max(worst, float((u[s] / (bound * v[s])).mid()))
                            if diff > 0:
                                bad.append({"eps": e, "q": [str(x) for x in q], "d": [str(x) for x in d], "s": s})
                            elif not diff <= 0:
                                undec += 1
    finally:
        ctx.prec = old
    scope = f"arb: {pairs} neighbour pairs (random rational q, n ≤ 7, offsets in [−Δ,Δ]^n incl. the worst corner), ε ∈ {{1/3, 1, 3}}, all outputs, both directions"
    ev = {"max_ratio/e^eps": worst, "violations": bad[:5], "undecided": undec,
          "note": "the ratio approaches but does not reach e^ε: the corner neighbour gives e^{ε/2}·(normaliser ratio < e^{ε/2})"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undec else "holds", not undec, scope, ev)


@claim("adp.theorem.5", "For |Y| = k, every Δ-sensitive q, every D and δ > 0: Pr[q(y;D) ≤ OPT(D) − 2Δ(log k + log(1/δ))/ε] ≤ δ for y ~ EM.",
       "adp §6.1, Theorem 5",
       expected="holds",
       scope_quick="arb: 25 (q, δ) cases, random rational q, k ≤ 9, ε ∈ {0.1, 1, 3}, δ ∈ {1/2, 1/10, 1/1000}",
       scope_full="arb: 97 (q, δ) cases, random rational q, k ≤ 9, ε ∈ {0.1, 1, 3}, δ ∈ {1/2, 1/10, 1/1000}")
def em_utility(quick: bool) -> Verdict:
    from flint import arb, ctx

    from dpexact.utility import error_tail

    rng = np.random.default_rng(12)
    worst, undec, bad, count = 0.0, 0, [], 0
    old, ctx.prec = ctx.prec, 128
    try:
        for e in ("1/10", "1", "3"):
            m = mech("em", e)
            ea = arb_of(e)
            for _ in range(5 if quick else 20):
                n = int(rng.integers(2, 10))
                q = random_scores(rng, n, spread=8.0 * (10 if e == "1/10" else 1))
                tail = error_tail(m, q, backend="ball")
                lv = [arb_of(x.value) for x in tail.exact_levels]
                for dl in (Fraction(1, 2), Fraction(1, 10), Fraction(1, 1000)):
                    T = 2 * ((arb(n)).log() + arb_of(1 / dl).log()) / ea
                    # Pr[E ≥ T]: the tail at the first level ≥ T
                    j = next((j for j in range(len(lv)) if lv[j] >= T), None)
                    if j is None:
                        continue
                    if not all((lv[i] < T) for i in range(j)):
                        undec += 1
                        continue
                    count += 1
                    val = tail.values[j]
                    worst = max(worst, float((val / arb_of(dl)).mid()))
                    if val > arb_of(dl):
                        bad.append({"eps": e, "q": q, "delta": str(dl)})
                    elif not val <= arb_of(dl):
                        undec += 1
    finally:
        ctx.prec = old
    scope = f"arb: {count} (q, δ) cases, random rational q, k ≤ 9, ε ∈ {{0.1, 1, 3}}, δ ∈ {{1/2, 1/10, 1/1000}}"
    ev = {"max Pr/δ": worst, "violations": bad[:5], "undecided": undec}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("inconclusive" if undec else "holds", not undec, scope, ev)


@claim("adp.text.voting-bound-without-factor-two", "Voting example (Δ = 1): with probability 1 − δ the score of the class selected by EM is at least "
       "OPT − (log k + log(1/δ))/ε.", "adp §6.1, sentence after Theorem 5",
       expected="refuted",
       severity="erratum",
       explanation="Theorem 5 with Δ = 1 gives 2(log k + log(1/δ))/ε: the sentence drops the factor 2; the worked example (OPT − 46) keeps it",
       scope_quick="arb: closed-form tail of EM on the worst-case vector (0, −T, …, −T); registry EM for k = 10",
       scope_full="arb: closed-form tail of EM on the worst-case vector (0, −T, …, −T); registry EM for k = 10")
def voting_without_two(quick: bool) -> Verdict:
    # worst-case vector (0, −T, …, −T) with T = (log k + log(1/δ))/ε: Pr[E ≥ T] = (k−1)x/(1+(k−1)x), x = e^{−εT/2} = √(δ/k)
    from flint import arb, ctx

    old, ctx.prec = ctx.prec, 128
    rows = []
    try:
        for k, dl, e in ((1000, Fraction(1, 100), "1/2"), (10, Fraction(1, 100), "1"), (2, Fraction(1, 10), "1")):
            ea = arb_of(e)
            T = ((arb(k)).log() + arb_of(1 / dl).log()) / ea
            x = (-(ea * T) / 2).exp()
            p_fail = (k - 1) * x / (1 + (k - 1) * x)
            rows.append({"k": k, "delta": str(dl), "epsilon": e, "T": float(T.mid()), "Pr[E>=T]": float(p_fail.mid()), "certainly_>_delta": bool(p_fail > arb_of(dl))})
    finally:
        ctx.prec = old
    # independent: the registry's EM on (0, −T, …, −T) at a rational T just below the threshold (T rounded down keeps Pr larger)
    from dpexact.utility import error_tail

    k, e = 10, "1"
    T = Fraction(int(float(np.log(10) + np.log(100)) * 1000), 1000)
    tail = error_tail(mech("em", e), ["0"] + [f"-{T}"] * (k - 1), backend="ball")
    rows.append({"registry_em_k=10_eps=1_T": str(T), "Pr[E>=T]": float(tail.values[1].mid())})
    refuted = any(r.get("certainly_>_delta") for r in rows)
    ev = {"counterexamples": rows, "note": "Theorem 5 with Δ = 1 gives 2(log k + log(1/δ))/ε; the sentence drops the factor 2. With the factor 2 "
                                            "the example 'OPT − 46' for k = 1000, ε = 0.5, δ = 0.01 is correct (see adp.text.voting-example-46)."}
    return Verdict("refuted" if refuted else "holds", True, "arb: closed-form tail of EM on the worst-case vector (0, −T, …, −T); registry EM for k = 10", ev)


@claim("adp.text.voting-example-46", "k = 1000 classes, ε = 0.5, probability 99%: EM selects a class with at least OPT − (2/0.5)(log 1000 + log 100) ≈ OPT − 46 votes; "
       "Gaussian noise would need standard deviation over √1000/0.5 ≈ 63.", "adp §6.1, end",
       expected="holds",
       scope_quick="exact arithmetic (sympy), rounded to integers as in the text",
       scope_full="exact arithmetic (sympy), rounded to integers as in the text")
def voting_46(quick: bool) -> Verdict:
    import sympy as sp

    v = sp.Rational(2) / sp.Rational(1, 2) * (sp.log(1000) + sp.log(100))
    g = sp.sqrt(1000) / sp.Rational(1, 2)
    vf, gf = float(v), float(g)
    ok = round(vf) == 46 and round(gf) == 63
    return Verdict("holds" if ok else "refuted", True, "exact arithmetic (sympy), rounded to integers as in the text",
                   {"em_margin": vf, "paper_em": 46, "gauss_sd": gf, "paper_gauss": 63})


@claim("adp.equation.2", "A mechanism is (ε, δ)-DP if Pr[|L_{M(D)‖M(D')}| > ε] ≤ δ for all neighbours (sufficient, not necessary).", "adp §2, eq. (2)",
       expected="holds",
       scope_quick="arb: Gaussian mechanism, σ ∈ {1/2, 1, 3}, Δ = 1, ε = k/8 ≤ 3",
       scope_full="arb: Gaussian mechanism, σ ∈ {1/2, 1, 3}, Δ = 1, ε = k/8 ≤ 3")
def plrv_condition(quick: bool) -> Verdict:
    from flint import arb, ctx

    # Gaussian: Pr[|L| > ε] with L ~ N(μ, 2μ), μ = Δ²/(2σ²), vs the exact δ(ε): δ_exact ≤ Pr[L > ε] ≤ Pr[|L| > ε]
    old, ctx.prec = ctx.prec, 128
    bad, rows, strict = [], [], 0
    try:
        for s in ("1/2", "1", "3"):
            sa = arb_of(s)
            mu = 1 / (2 * sa * sa)
            sd = (2 * mu).sqrt()
            for k in range(1, 25):
                e = arb(k) / 8
                p_abs = _Phi((-e - mu) / sd) + (1 - _Phi((e - mu) / sd))
                dex = gaussian_delta(e, sa)
                rows.append({"sigma": s, "eps": float(e.mid()), "Pr|L|>eps": float(p_abs.mid()), "delta_exact": float(dex.mid())})
                if dex > p_abs:
                    bad.append(rows[-1])
                elif dex < p_abs:
                    strict += 1
    finally:
        ctx.prec = old
    ev = {"violations": bad[:5], "strict_gaps": strict, "sample": rows[::12],
          "note": "the converse fails: δ_exact(ε) < Pr[|L| > ε] strictly at every point checked"}
    return Verdict("refuted" if bad else "holds", True, "arb: Gaussian mechanism, σ ∈ {1/2, 1, 3}, Δ = 1, ε = k/8 ≤ 3", ev)
