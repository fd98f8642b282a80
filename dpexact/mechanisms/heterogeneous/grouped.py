"""Selection probabilities of *groups* of equal candidates, in ball arithmetic (hetsel §VI).

In hetsel's synthetic scenarios (Figures 2, 3, 8, 12, 18) many of the |A| = 100 candidates share
(score, sensitivity). The law of the selected group is then a one-dimensional integral over the
winner's noisy score, evaluated with ``acb.integral`` on pieces where every factor is one entire
branch, with a rigorous bound on the cut-off tails added to the radius. This is exact in
distribution (no sampling) and costs one integral per group instead of a pmf over 100
candidates.

Report-noisy-max with exponential noise (RNM at the global Δ, RNMH, and GEM / mGEM after their
score shift, hetsel eqs. 3, 4, 6-7) is :func:`rnm_exp_groups_ball`; random stopping RS_γ
(Algorithm 1) and its truncated-negative-binomial variant (Appendix C, η = 0) are
:func:`rs_groups_ball` (the mixture formula of :mod:`.rs_gamma`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

from ...numbers import Real
from ...numbers.backends import BallBackend

__all__ = ["rnm_exp_groups_ball", "rs_groups_ball"]


def rnm_exp_groups_ball(groups: Sequence[tuple[Any, Any, int]], prec: int = 128) -> list[Any]:
    """Report noisy max with exponential noise on groups of equal candidates, in arb.

    ``groups`` = ``[(q_g, b_g, m_g)]``: ``m_g`` candidates with score ``q_g`` and noise
    ``Exp`` of *mean* ``b_g`` (exact numbers: int, Fraction, str or :class:`Real`). Returns
    ``Pr[M ∈ group g]`` as balls. Scores are shifted exactly so that ``max_h q_h = 0``; every
    noisy score is ≥ its score, so the winner's value y is ≥ 0, and on [0, ∞) every factor is
    one entire branch:

        Pr[g] = m_g ∫_0^∞ f_g(y) F_g(y)^{m_g-1} ∏_{h≠g} F_h(y)^{m_h} dy.

    The integral is cut at ``R = S·max b`` and the tail ``≤ m_g ∫_R^∞ f_g ≤ m_g e^{-S}`` is
    added to the radius.
    """
    from flint import acb, arb

    qr = [Real.of(g[0]) for g in groups]
    top = qr[0]
    for x in qr[1:]:
        if (x - top).sign() > 0:
            top = x
    with BallBackend(prec).context():
        ds = [(x - top).to_arb(prec) for x in qr]  # <= 0, exactly 0 for the maxima
        bs = [Real.of(g[1]).to_arb(prec) for g in groups]
        ms = [int(g[2]) for g in groups]
        S = (prec + 10) * math.log(2) + math.log(sum(ms))
        R = arb(math.ceil(S * max(float(b.upper()) for b in bs)) + 1)
        out = []
        for g in range(len(groups)):
            def f(y: Any, analytic: bool, g: int = g) -> Any:
                val = (-(y - ds[g]) / bs[g]).exp() / bs[g] * ms[g]
                for h in range(len(groups)):
                    k = ms[h] - (1 if h == g else 0)
                    if k:
                        val = val * (1 - (-(y - ds[h]) / bs[h]).exp()) ** k
                return val

            v = acb.integral(f, 0, R).real
            out.append(v + arb(0, ms[g] * math.exp(-S)))
    return out


def rs_groups_ball(groups: Sequence[tuple[Any, Any, int]], gamma: Any, prec: int = 128, eta: Any = None) -> list[Any]:
    """RS_γ (``eta=None``: geometric stopping) or its TNB variant on groups of equal candidates, in arb.

    ``groups`` = ``[(q_g, b_g, m_g)]`` with Laplace scale ``b_g``. With ``n = Σ m_g``,
    ``G(y) = Σ_h (m_h/n) F_h(y)`` and ``w = 1 - (1-γ)G = γ + (1-γ) Σ_h (m_h/n) S_h(y)``:

        Pr[g] = (m_g/n) ∫ f_g(y) P'(G(y)) dy,  P'(x) = γ/w²  (geometric),  (1-γ)/(log(1/γ) w)  (η = 0).

    Cut at the distinct q_h (one branch per piece), truncated to [L, R]; the tails are at most
    ``(m_g/n) max P' e^{-S}``.
    """
    from flint import acb, arb

    with BallBackend(prec).context():
        g_ = Real.of(gamma).to_arb(prec)
        n = sum(int(g[2]) for g in groups)
        qs = [Fraction(str(g[0])) for g in groups]
        if any(q.denominator & (q.denominator - 1) for q in qs):
            raise ValueError("groups: scores must be dyadic rationals (exact piece boundaries)")
        qa = [Real.of(g[0]).to_arb(prec) for g in groups]
        bs = [Real.of(g[1]).to_arb(prec) for g in groups]
        ws = [arb(int(g[2])) / n for g in groups]
        if eta is None:
            dpmax = 1 / g_

            def dp(w: Any) -> Any:
                return g_ / (w * w)
        elif Fraction(str(eta)) == 0:
            lg = -g_.log()
            dpmax = (1 - g_) / (lg * g_)

            def dp(w: Any) -> Any:
                return (1 - g_) / (lg * w)
        else:
            raise ValueError("eta: only the geometric law (None) and η = 0 are implemented")
        S = (prec + 10) * math.log(2) + max(0.0, math.log(float(dpmax.upper())))
        bmax = max(float(b.upper()) for b in bs)
        cuts = sorted(set(qs))
        L = arb(math.floor(float(cuts[0]) - S * bmax) - 1)
        R = arb(math.ceil(float(cuts[-1]) + S * bmax) + 1)
        edges = [L, *[Real.of(c).to_arb(prec) for c in cuts], R]
        exact_hi: list[Fraction | None] = [*cuts, None]
        out = []
        for g in range(len(groups)):
            total = arb(0)
            for j in range(len(edges) - 1):
                hi = exact_hi[j]
                left = [hi is not None and hi <= qh for qh in qs]  # piece lies left of q_h

                def f(y: Any, analytic: bool, g: int = g, left: list = left) -> Any:
                    s = 0
                    for h in range(len(groups)):
                        d = (y - qa[h]) / bs[h]
                        s = s + ws[h] * ((1 - d.exp() / 2) if left[h] else (-d).exp() / 2)
                    w = g_ + (1 - g_) * s
                    d = (y - qa[g]) / bs[g]
                    fg = (d.exp() if left[g] else (-d).exp()) / (2 * bs[g])
                    return fg * dp(w) * ws[g]

                total = total + acb.integral(f, edges[j], edges[j + 1]).real
            tail = float((ws[g] * dpmax).upper()) * math.exp(-S)
            out.append(total + arb(0, tail))
    return out
