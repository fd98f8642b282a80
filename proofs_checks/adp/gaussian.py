"""adp: shared helpers."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpexact.numbers.backends import ball_context

from .._common import arb_of
from ..catalogue import Figure, Verdict, claim


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
    rows, bad, undecided = [], [], 0
    with ball_context(200):
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
    from flint import arb

    bad, rows, undecided = [], [], 0
    xs, exact_curve, claimed_curve = [], [], []
    with ball_context(200):
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
    from flint import arb

    # Pr(|Z| > t) = erfc(t/√2) ≤ e^{−t²/2} for t ≥ 0 (derivative argument), hence ≤ 2e^{−t²/2}
    t = sp.symbols("t", nonnegative=True)
    h = sp.exp(-t**2 / 2) - sp.erfc(t / sp.sqrt(2))
    dh = sp.simplify(sp.diff(h, t))
    # h(0) = 0 and h' = e^{−t²/2}(√(2/π) − t): h increases then decreases to lim 0 ⇒ h ≥ 0
    h0, hinf = sp.simplify(h.subs(t, 0)), sp.limit(h, t, sp.oo)
    bad = []
    with ball_context(128):
        for k in range(1, 401):
            tt = arb(k) / 40
            if (tt / arb(2).sqrt()).erfc() > 2 * (-(tt * tt) / 2).exp():
                bad.append(k / 40)
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
