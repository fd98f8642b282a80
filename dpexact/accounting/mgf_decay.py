"""A proved decay bound for the bulk moment generating function: |m(c + it)| <= V/|t| for every real t != 0.

Why: the MGF route (:mod:`.mgf_route`, :mod:`.mgf_inversion`) inverts m(z)^T by a trapezoidal sum over t and must stop
the sum at a finite node; the nodes it leaves out are bounded through this V (called once per accounting and
direction: ~0.1 ms, measured on the 108 DP-SGD table rows by ``benchmarks/accounting_mgf_decay.py``).

The law (standardised output y, as in :mod:`.discretise_gauss`): μ > 0 and r ∈ (0, 1] floats, s(y) = μy − μ²/2,
g = log(1 − r + r e^s), ρ = r e^s/(1 − r + r e^s) ∈ (0, 1] (ρ ≡ 1 when r = 1), ρ' = μρ(1 − ρ).
remove: p = (1 − r)φ + rφ(· − μ) = φ e^g, L = g, L' = μρ;   add: p = φ, L = −g, L' = −μρ.
m(z) = ∫_a^b p e^{zL} dy, z = c + it, c >= 0, a < b finite floats.

Theorem (one integration by parts, proved here in full; in the variable l = L(y), where G is the tilted loss density,
it is the classical O(1/|t|) decay of the Fourier transform of a function of bounded variation, Zygmund,
*Trigonometric Series*, Vol. I, Ch. II). L' != 0 on [a, b] (ρ > 0), so with G := p e^{cL}/|L'| > 0 (G ∈ C¹[a, b]),
p e^{zL} = ±G L' e^{itL} (+ remove, − add) and d/dy e^{itL} = it L' e^{itL}:
    m(c + it) = ±( [G e^{itL}/(it)]_a^b − (1/(it)) ∫_a^b G'(y) e^{itL(y)} dy ),
    |m(c + it)| <= (G(a) + G(b) + TV_{[a,b]}(G)) / |t| =: V/|t|,   TV = ∫_a^b |G'|.
Closed forms (log ρ = log r + s − g):
    log G = −y²/2 − ½ log 2π + K g(y) − s(y) − log(μ r),   K = c + 2 (remove), K = 1 − c (add),
    h := (log G)' = −y − μ + K μ ρ(y),   h' = −1 + K μ² ρ(1 − ρ)
(re-derived: remove p'/p = −y + μρ, add p'/p = −y; (log|L'|)' = (log ρ)' = μ(1 − ρ); c(log e^{L})' = ±cμρ).
sign G' = sign h. ρ(1 − ρ) <= 1/4 rises for ρ < 1/2 and falls after, and ρ increases in y, so h' > 0 exactly on
(y−, y+), where ρ(y±) = ρ± = (1 ± √D)/2, D = 1 − 4/(Kμ²) > 0; ρ− = 2/(Kμ²(1 + √D)) (no cancellation) and
y(ρ) = (log(ρ/(1 − ρ)) + log((1 − r)/r) + μ²/2)/μ. If K <= 0, D < 0 or r = 1, h' < 0 everywhere.

Algorithm, every claim checked in arb (python-flint, :data:`PREC` bits; comparisons of balls are certain or false):
1. y± as arb balls, widened to float intervals (outward); if D's ball holds 0, one interval spans [y(ρ_lo), y(ρ_hi)],
   ρ_lo,hi = (1 ∓ √D⁺)/2, D⁺ the ball's upper end. Outside the intervals h is monotone with known direction
   (decreasing left of all, increasing between two, decreasing right of all), clipped to [a, b].
2. Monotone segment [u, v]: if h(u), h(v) have certified equal signs, h has no zero there. Else a float bisection of
   the float h (no claim) gives lo <= hi; the bracket is accepted when (lo = u or h(lo) has the certified sign
   before the zero) and (hi = v or h(hi) the sign after): monotonicity then puts every zero of h in [u, v] into
   [lo, hi] (at most one, h' vanishing at isolated points only); else it is widened ×4 until it is (ends u, v at worst).
3. Critical interval I: if the arb enclosure of h over the ball I holds 0, I is a bracket holding at most 2 zeros
   (3 if it may hold both y−, y+) — h has at most that many monotone pieces in I.
4. h is analytic and not constant, so it has finitely many zeros in [a, b]; take x_0 = a <= x_1 <= ... <= x_n = b
   made of every zero plus filler points, bracket j giving as many points as its zero count (brackets are ordered
   and meet at most at their ends, so this is the order of the list). G' = G·h, G > 0: G is monotone on each
   [x_i, x_{i+1}], so TV = Σ |G(x_{i+1}) − G(x_i)| exactly (listing extra points in a monotone
   piece changes nothing). G(x_i) lies in the arb enclosure of exp(log G) over the bracket's ball, G(a), G(b) in
   arb enclosures at the exact floats; each |difference| is bounded by the upper end of |ball − ball|.
5. V = upper end of G(a) + G(b) + TV, rounded to the next float up; OverflowError if that is not finite (G and V
   can be astronomically large: arb carries any exponent, only the returned float cannot).
Rounding: every value that enters a claim is an arb ball (outward rounding by arb); floats enter only as exact
float points (bracket ends, a, b, μ, r, c) or through intervals widened outward with nextafter. The float h of the
bisection (math.exp, assumed within 4 ulp like numpy's in :mod:`.grid_measure`) only places points: no bound rests
on it.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

from ..numbers.backends import ball_context

__all__ = ["PREC", "DecayParts", "decay_constant", "decay_parts"]

#: arb precision of every certified step (y±, signs of h, G): 128 bits keeps the float points' signs decidable
#: down to |h| ~ 1e-36 and the enclosures of G over ulp-wide brackets tight
PREC = 128


class DecayParts(NamedTuple):
    """Arb enclosures of G(a), G(b), an upper bound of TV_{[a,b]}(G) (an arb whose upper end is the bound), and the
    brackets (lo, hi, zeros at most) holding every zero of h = (log G)' in [a, b]."""
    g_a: Any
    g_b: Any
    tv: Any
    brackets: list[tuple[float, float, int]]


class _Law(NamedTuple):
    mu: float
    r: float
    K: float  # float copy of K for the bisection only
    lam: float  # log((1 − r)/r) in floats (bisection only); unused when r = 1
    amu: Any  # arb μ, r, K (exact: μ, r, c are floats, K = c + 2 or 1 − c at PREC bits)
    ar: Any
    aK: Any


def _down(x: Any) -> float:
    return math.nextafter(float(x.lower()), -math.inf)


def _up(x: Any) -> float:
    return math.nextafter(float(x.upper()), math.inf)


def _ball(lo: float, hi: float) -> Any:
    """An arb ball containing the float interval [lo, hi] (exact when lo = hi)."""
    from flint import arb

    if lo == hi:
        return arb(lo)
    return arb((arb(lo) + arb(hi)) / 2, (arb(hi) - arb(lo)) / 2)  # mid, rad: the rad is rounded up by arb


def _rho_arb(P: _Law, y: Any) -> Any:
    from flint import arb

    if P.r == 1.0:
        return arb(1)
    s = P.amu * y - P.amu * P.amu / 2
    return P.ar / (P.ar + (1 - P.ar) * (-s).exp())  # = r e^s/(1 − r + r e^s), no overflow for s << 0


def _h_arb(P: _Law, y: Any) -> Any:
    """h = (log G)' = −y − μ + Kμρ(y), an arb enclosure over the ball y."""
    return -y - P.amu + P.aK * P.amu * _rho_arb(P, y)


def _h_float(P: _Law, y: float) -> float:
    """h in floats: only places the bisection's points (no claim rests on it)."""
    if P.r == 1.0:
        rho = 1.0
    else:
        x = P.mu * y - P.mu * P.mu / 2 - P.lam  # s − λ: ρ = 1/(1 + e^{−x})
        rho = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
    return -y - P.mu + P.K * P.mu * rho


def _log_G_arb(P: _Law, y: Any) -> Any:
    """log G = −y²/2 − ½ log 2π + K g − s − log(μr) over the ball y (g = s when r = 1)."""
    from flint import arb

    s = P.amu * y - P.amu * P.amu / 2
    g = s if P.r == 1.0 else (P.ar * s.expm1()).log1p()
    return -(y * y) / 2 - (2 * arb.pi()).log() / 2 + P.aK * g - s - (P.amu * P.ar).log()


def _critical(P: _Law) -> list[tuple[float, float, int]]:
    """Float intervals (lo, hi, zeros of h they may hold) containing the zeros of h' (at most two)."""
    if P.r == 1.0 or not P.aK > 0:
        return []
    D = 1 - 4 / (P.aK * P.amu * P.amu)
    if D < 0:
        return []
    lam = ((1 - P.ar) / P.ar).log()
    half_mu2 = P.amu * P.amu / 2

    def y_of_logit(z: Any) -> Any:
        return (z + lam + half_mu2) / P.amu

    if D > 0:
        e = 2 / (P.aK * P.amu * P.amu * (1 + D.sqrt()))  # ρ− = 1 − ρ+, without cancellation
        z = e.log() - (-e).log1p()  # logit ρ− < 0; logit ρ+ = −logit ρ−
        y_lo, y_hi = y_of_logit(z), y_of_logit(-z)
        out = [(_down(y_lo), _up(y_lo), 2), (_down(y_hi), _up(y_hi), 2)]
        if out[0][1] < out[1][0]:
            return out
        return [(out[0][0], out[1][1], 3)]  # their float intervals touch: one interval, both critical points
    from flint import arb

    dp = arb(D.upper())  # D's ball holds 0: both roots (if any) have ρ within (1 ∓ √D⁺)/2
    e = (1 - dp.sqrt()) / 2
    z = e.log() - (-e).log1p()
    return [(_down(y_of_logit(z)), _up(y_of_logit(-z)), 3)]


def _segment_bracket(P: _Law, u: float, v: float, d: int) -> tuple[float, float] | None:
    """[lo, hi] ⊂ [u, v] holding every zero of h in [u, v], where h is monotone (d = +1 increasing, −1 decreasing);
    None when h(u), h(v) have certified equal signs (no zero)."""
    from flint import arb

    hu, hv = _h_arb(P, arb(u)), _h_arb(P, arb(v))
    if (hu > 0 and hv > 0) or (hu < 0 and hv < 0):
        return None
    lo, hi = u, v
    while True:  # float bisection: d·h < 0 before the zero
        m = lo + (hi - lo) / 2
        if not lo < m < hi:
            break
        if d * _h_float(P, m) < 0:
            lo = m
        else:
            hi = m
    w = max(hi - lo, math.ulp(lo), math.ulp(hi))
    while True:
        ok_lo = lo <= u or d * _h_arb(P, arb(lo)) < 0  # certified: no zero in [u, lo]
        ok_hi = hi >= v or d * _h_arb(P, arb(hi)) > 0  # certified: no zero in [hi, v]
        if ok_lo and ok_hi:
            return max(lo, u), min(hi, v)
        w *= 4
        if not ok_lo:
            lo = max(u, lo - w)
        if not ok_hi:
            hi = min(v, hi + w)


def _brackets(P: _Law, a: float, b: float) -> list[tuple[float, float, int]]:
    """Brackets (lo, hi, zeros at most), in increasing order, holding every zero of h in [a, b]."""
    crit = _critical(P)
    out: list[tuple[float, float, int]] = []
    # the line cut at the critical intervals: monotone segments (direction) and the intervals themselves
    edges = [-math.inf] + [x for lo, hi, _ in crit for x in (lo, hi)] + [math.inf]
    for i in range(len(edges) - 1):
        u, v = max(edges[i], a), min(edges[i + 1], b)
        if u > v:
            continue
        if i % 2 == 0:  # monotone segment: decreasing at both ends of the line, increasing between y− and y+
            d = 1 if 0 < i < len(edges) - 2 else -1
            if u < v and (br := _segment_bracket(P, u, v, d)) is not None:
                out.append((br[0], br[1], 1))
            elif u == v:
                hu = _h_arb(P, _ball(u, u))
                if not (hu > 0 or hu < 0):
                    out.append((u, u, 1))
        else:
            hI = _h_arb(P, _ball(u, v))
            if not (hI > 0 or hI < 0):
                out.append((u, v, crit[i // 2][2]))
    return out


def decay_parts(mu: float, r: float, remove: bool, a: float, b: float, c: float) -> DecayParts:
    """G(a), G(b), TV_{[a,b]}(G) (upper) and the zero brackets of h, as in the module docstring."""
    from flint import arb

    if not (math.isfinite(mu) and mu > 0 and 0 < r <= 1 and math.isfinite(a) and math.isfinite(b) and a < b
            and math.isfinite(c) and c >= 0):
        raise ValueError(f"decay_parts: need μ > 0, r in (0, 1], finite a < b, c >= 0; got {mu}, {r}, {a}, {b}, {c}")
    with ball_context(PREC):
        aK = arb(c) + 2 if remove else 1 - arb(c)
        lam = math.log1p(-r) - math.log(r) if r < 1 else 0.0
        P = _Law(mu, r, float(aK), lam, arb(mu), arb(r), aK)
        brackets = _brackets(P, a, b)
        g_a, g_b = _log_G_arb(P, arb(a)).exp(), _log_G_arb(P, arb(b)).exp()
        pts = [g_a]
        for lo, hi, k in brackets:
            pts += [_log_G_arb(P, _ball(lo, hi)).exp()] * k
        pts.append(g_b)
        tv = arb(0)
        for x, y in itertools.pairwise(pts):
            tv += abs(y - x)
        return DecayParts(g_a, g_b, tv, brackets)


def decay_constant(mu: float, r: float, remove: bool, a: float, b: float, c: float) -> float:
    """V (a float, rounded up) with |m(c + it)| <= V/|t| for every real t != 0, where
    m(z) = ∫_a^b p(y) e^{z L(y)} dy (law and window as in the module docstring), c >= 0.

    V = G(a) + G(b) + TV_{[a,b]}(G), G = p e^{cL}/|L'|; raises OverflowError when V does not fit a float."""
    parts = decay_parts(mu, r, remove, a, b, c)
    with ball_context(PREC):
        v = _up(parts.g_a + parts.g_b + parts.tv)
    if not math.isfinite(v):
        raise OverflowError(f"decay_constant: V exceeds the float range (μ={mu}, r={r}, c={c}, [{a}, {b}])")
    return v
