"""Statement S of docs/curves.md (PF at every n dominated by its n = 2 pairs): the certificate of one (ρ, x) box.

S: for every ρ > 0 and x ∈ [κ, 1] some λ >= 0 has Φ = ψ − λφ <= 0 on the n = 3 family (ρ, 1, c) → (ρ, κ, s c),
c ∈ (0, ∞], s ∈ [κ, 1] (φ = P_j − a(x) Q_j, ψ = P_i − B(x) Q_i; a(x) = x²/(2x − κ), B(x) = (2x − x²)/κ).
This module proves Φ <= 0 on one box of (ρ, x) in arb balls, for all (c, s); ``benchmarks/curves_pf_s_certify.py``
covers the whole domain with boxes and writes the certificate. Why each step is valid (docs/curves.md, "S"):

* **One function of the relative scale.** Every mass is a multiple of I(g; p) = ∫_0^{min(1, g)} (1 − p u)(1 − u/g) du
  (p ∈ [0, 1]; g the third's scale relative to the winner's) — homogeneity of the race, three zones of ρ:
  ``small`` ρ ∈ [0, κ] (variable γ = c/ρ, λ = μ/ρ; limit ρ = 0 included), ``mid`` ρ ∈ [κ, 1] (variable c),
  ``large`` ρ >= 1 written in r = 1/ρ ∈ [0, 1] (variable c, λ = ν/ρ, Φ·ρ; limit r = 0 included).
* **Corners in (ρ, x).** P_i, Q_i decrease and P_j, Q_j increase with ρ (race), a, B increase with x, every
  term of Φ has a fixed sign: Φ over the box <= f(v) − g(s v) with the P side f at ρ_lo and the Q side g at ρ_hi.
* **Lemma E.** min_{s ∈ [κ, 1]} g(s v) is at s = κ, s = 1 or the vertex v* of g's quadratic piece (when convex
  and v* ∈ [κv, v]): three one-dimensional inequalities in v.
* **Corners in v.** I is nondecreasing in g, so Σ w_t I(k_t v; p_t) over [v0, v1] is at most its value with
  v1 in the terms with w_t > 0 and v0 in the others. Below every break point (k_t v <= 1) h(v)/v is affine in v,
  above all of them h is affine in β = 1/v: both checked at their two ends (v = 0 and β = 0 included exactly).
* **The tangency** (``mode = "n2"``, mid zone, near ρ = x): λ = λ₂(ρ, x), the n = 2 member's ratio ψ₂/φ₂, so Φ is
  exactly β·D_s for c >= 1 (Lemma T); D_s is affine in 1/s and is checked negative at s = κ and s = 1 as a ball
  over the box. Below c = 1 the corners above are used with λ ∈ λ₂(box).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Box", "check_box", "frontier", "lambda_two", "weak_third_slope"]

INF = float("inf")


@dataclass(frozen=True)
class Box:
    """A box of (ρ, x) in one zone, in coordinates t, u ∈ [0, 1] whose ends map exactly onto the zones' ends:
    ρ = κt (``small``), ρ = κ^{1−t} (``mid``), 1/ρ = t (``large``); x = κ + (1 − κ)u."""

    zone: str
    t0: float
    t1: float
    u0: float
    u1: float

    def rho_ends(self, kappa: Any) -> tuple:
        """Balls containing (ρ_lo, ρ_hi) — for ``large`` the ends of r = 1/ρ, (r_lo, r_hi)."""
        from flint import arb

        if self.zone == "small":
            return kappa * self.t0, kappa * self.t1
        if self.zone == "mid":
            lk = kappa.log()
            return (lk * (1 - arb(self.t0))).exp(), (lk * (1 - arb(self.t1))).exp()
        if self.zone == "large":
            return arb(self.t0), arb(self.t1)
        raise ValueError(f"zone: unknown {self.zone!r}")

    def x_ends(self, kappa: Any) -> tuple:
        return kappa + (1 - kappa) * self.u0, kappa + (1 - kappa) * self.u1


def frontier(kappa: Any, x: Any) -> tuple:
    """(a(x), B(x)) = (x²/(2x − κ), (2x − x²)/κ): the n = 2 frontier point."""
    return x * x / (2 * x - kappa), (2 * x - x * x) / kappa


def lambda_two(kappa: Any, rho: Any, x: Any) -> Any:
    """λ₂ = ψ₂/φ₂ of the n = 2 member for κ <= ρ, x <= 1, with the common factor (ρ − x) cancelled."""
    return (2 - rho - x) * (2 * x - kappa) / (2 * x * rho - kappa * rho - kappa * x)


def weak_third_slope(kappa: Any, rho: Any, x: Any, lam: Any, inv_s: Any) -> Any:
    """dΦ/dβ (β = 1/c) for c >= 1 in the mid zone: Φ = Φ₂ + β·D_s, D_s = (P_i1 − λP_j1) + (1/s)(λ a Q_j1 − B Q_i1)."""
    a, b = frontier(kappa, x)
    pi1, pj1 = -rho / 2 + rho * rho / 3, -rho * rho / 6
    qi1, qj1 = -kappa * kappa / (6 * rho), -kappa / 2 + kappa * kappa / (3 * rho)
    return (pi1 - lam * pj1) + inv_s * (lam * a * qj1 - b * qi1)


def _I(g: Any, p: Any) -> Any:
    """I(g; p) for g > 0 a point or ball (the form is chosen by g's side of 1; both sides: the min form)."""
    if g <= 1:
        return g * (0.5 - p * g / 6)
    ig = 1 / g
    if g >= 1:
        return 1 - p / 2 - ig * (0.5 - p / 3)
    m = g.min(1)
    return m - m * m * (p + ig) / 2 + m * m * m * p * ig / 3


def _sum_at(terms: list, v0: Any, v1: Any) -> Any:
    """Upper bound of Σ w I(k v; p) over v ∈ [v0, v1] (I nondecreasing in g)."""
    out = 0 * v0
    for w, k, p in terms:
        if w >= 0:
            out += w * _I(k * v1, p)
        elif w <= 0:
            out += w * _I(k * v0, p)
        else:
            raise ArithmeticError("a term's sign is undecided")
    return out


def _small_over_v(terms: list, v: Any) -> Any:
    """Σ w I(k v; p)/v when every k v <= 1: Σ w k (1/2 − p k v/6) (affine in v)."""
    return sum((w * k * (0.5 - p * k * v / 6) for w, k, p in terms), 0 * v)


def _large(terms: list, beta: Any) -> Any:
    """Σ w I(k v; p) when every k v >= 1, in β = 1/v: Σ w (1 − p/2 − (β/k)(1/2 − p/3)) (affine in β)."""
    return sum((w * (1 - p / 2 - (beta / k) * (0.5 - p / 3)) for w, k, p in terms), 0 * beta)


def _negative_on(arb: Any, terms: list, const: Any, lo: float, hi: float, budget: int) -> int | None:
    """Prove Σ w I(k v; p) + const < 0 for v ∈ [lo, hi] (lo may be 0 only if const = 0; hi may be ∞).
    Returns the evaluations used, or None when the budget runs out."""
    ks = [float(k.upper()) for _, k, _ in terms] + [float(k.lower()) for _, k, _ in terms]
    v_small = min(1 / k for k in ks) * (1 - 1e-9)
    v_large = max(1 / k for k in ks) * (1 + 1e-9)
    used = 0
    if lo == 0:
        top = min(v_small, hi)
        used += 2
        if not (_small_over_v(terms, arb(0)) < 0 and _small_over_v(terms, arb(top)) < 0):
            return None
        lo = top
    if hi == INF:
        bot = max(v_large, lo)
        used += 2
        if not (_large(terms, arb(0)) + const < 0 and _large(terms, 1 / arb(bot)) + const < 0):
            return None
        hi = bot
    if hi <= lo:
        return used
    stack = [(lo, hi)]
    while stack:
        v0, v1 = stack.pop()
        used += 1
        if used > budget:
            return None
        if _sum_at(terms, arb(v0), arb(v1)) + const < 0:
            continue
        mid = (v0 * v1) ** 0.5 if v0 > 0 else v1 / 2
        if not v0 < mid < v1:
            return None
        stack += [(v0, mid), (mid, v1)]
    return used


def _zone_terms(arb: Any, kappa: Any, box: Box, lam_lo: Any, lam_hi: Any) -> tuple:
    """P-side and Q-side term lists (w, k, p) of f(v) and g(v'), Φ <= f(v) − g(s v) over the box (corners), and K,
    the Q side's k (its quadratic piece is v' <= 1/K). λ's role per zone: λ (mid), μ = ρλ (small), ν = ρλ (large)."""
    xlo, xhi = box.x_ends(kappa)
    a_hi, _ = frontier(kappa, xhi)
    _, b_lo = frontier(kappa, xlo)
    lo, hi = box.rho_ends(kappa)
    one = arb(1)
    if box.zone == "small":  # v = γ = c/ρ; P_i = I(γ; ρ), P_j/ρ = I(γ; 1), Q_i = I(γ'; ρ/κ), Q_j/ρ = I(γ'; 1)/κ
        P = [(one, one, lo), (-lam_lo, one, one)]
        Q = [(b_lo, one, hi / kappa), (-lam_hi * a_hi / kappa, one, one)]
        return P, Q, one
    if box.zone == "mid":  # v = c; P_i = I(c/ρ; ρ), P_j = ρ I(c/ρ; 1), Q_i = (κ/ρ) I(c'/κ; 1), Q_j = I(c'/κ; κ/ρ)
        P = [(one, 1 / lo, lo), (-lam_lo * lo, 1 / lo, one)]
        Q = [(b_lo * kappa / hi, 1 / kappa, one), (-lam_hi * a_hi, 1 / kappa, kappa / hi)]
        return P, Q, 1 / kappa
    # large, in r = 1/ρ (lo, hi are r): Φ·ρ; P_i·ρ = I(c; 1), P_j = I(c; r), Q_i·ρ = κ I(c'/κ; 1), Q_j = I(c'/κ; κr)
    P = [(one, one, one), (-lam_lo, one, hi)]
    Q = [(b_lo * kappa, 1 / kappa, one), (-lam_hi * a_hi, 1 / kappa, kappa * lo)]
    return P, Q, 1 / kappa


def _vertex(Q: list, K: Any) -> Any | None:
    """Vertex v* of g's quadratic piece g = (K/2) Σw v' − (K²/6) Σ w p v'² when it is convex (Σ w p < 0) and
    v* <= 1/K (else None: Lemma E then needs only the ends). A ball; a sign it cannot decide is an error."""
    sw = sum(w for w, _, _ in Q)
    swp = sum(w * p for w, _, p in Q)
    if swp >= 0:
        return None
    if not swp < 0:
        raise ArithmeticError("convexity undecided")
    star = 3 * sw / (2 * K * swp)
    if star > 1 / K or star <= 0:
        return None
    return star


def _member_cancels(arb: Any, kappa: Any, box: Box) -> bool:
    """Guard of the identity ψ₂ − λ₂φ₂ = 0 (c = ∞) behind the n2 mode, at the box's centre from the general masses
    (an error in ``frontier`` or ``lambda_two`` makes the ball exclude 0)."""
    lo, hi = box.rho_ends(kappa)
    xl, xh = box.x_ends(kappa)
    rho, x = (lo + hi) / 2, (xl + xh) / 2
    a, b = frontier(kappa, x)
    pi, pj = 1 - rho / 2, rho / 2  # n = 2, κ <= ρ <= 1: (1/A)(m − m²/(2B)) with m = ρ
    qi, qj = kappa / (2 * rho), 1 - kappa / (2 * rho)  # m = κ
    return (pi - b * qi - lambda_two(kappa, rho, x) * (pj - a * qj)).contains(0)


def check_box(box: Box, kappa: Any, lam: float, mode: str = "const", budget: int = 3000) -> dict | None:
    """Prove Φ <= 0 over ``box`` × c ∈ (0, ∞] × s ∈ [κ, 1]; ``lam`` is λ (mid) or μ = ρλ (small, large); ``mode``
    "n2" (mid zone only) uses λ = λ₂(ρ, x) instead. Returns {"evals": …} or None (not proved at this budget)."""
    from flint import arb

    used = 0
    vmax = INF
    if mode == "n2":
        if box.zone != "mid":
            raise ValueError("mode: n2 is the mid zone's")
        rho, x = arb.union(*box.rho_ends(kappa)), arb.union(*box.x_ends(kappa))
        lam2 = lambda_two(kappa, rho, x)
        if not lam2 > 0:
            return None
        if not _member_cancels(arb, kappa, box):
            raise ArithmeticError("λ₂ does not cancel the n = 2 member: the frontier and λ₂ disagree")
        for inv_s in (arb(1), 1 / kappa):  # D_s is affine in 1/s: its two ends
            used += 1
            if not weak_third_slope(kappa, rho, x, lam2, inv_s) < 0:
                return None
        lam_lo, lam_hi = arb(lam2.lower()), arb(lam2.upper())
        vmax = 1.0  # c >= 1: Φ = β D_s exactly (Lemma T); below: corners with λ ∈ λ₂(box)
    else:
        if lam < 0:
            raise ValueError("lam must be >= 0")
        lam_lo = lam_hi = arb(lam)
    P, Q, K = _zone_terms(arb, kappa, box, lam_lo, lam_hi)
    for sigma in (kappa, arb(1)):  # Lemma E's ends s = κ, s = 1: h(v) = f(v) − g(σ v)
        terms = P + [(-w, k * sigma, p) for w, k, p in Q]
        got = _negative_on(arb, terms, arb(0), 0, vmax, budget)
        if got is None:
            return None
        used += got
    star = _vertex(Q, K)
    if star is not None:  # Lemma E's vertex: f(v) < g(v*) for v with v* ∈ [κv, v]
        gstar = sum((w * _I(k * star, p) for w, k, p in Q), arb(0))
        lo, hi = float(star.lower()), min(float((star / kappa).upper()), vmax)
        if lo < hi:
            got = _negative_on(arb, P, -gstar, lo, hi, budget)
            if got is None:
                return None
            used += got
    return {"evals": used}
