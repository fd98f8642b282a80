"""adp: composition."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.backends import ball_context

from .._common import arb_of
from ..catalogue import Figure, Verdict, claim


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
    rows, bad, undec = [], [], 0
    xs, ratio_basic = [], []
    with ball_context(200):
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
