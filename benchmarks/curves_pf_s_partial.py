"""Statement S of docs/curves.md certified on a compact part of its domain (issue 34) — a partial certificate.

S: for every ρ > 0 and x ∈ [κ, 1] some λ >= 0 has Φ = ψ − λφ <= 0 on the whole n = 3 family
(ρ, 1, c) → (ρ, κ, s c), c ∈ (0, ∞], s ∈ [κ, 1] (φ = P_j − a(x) Q_j, ψ = P_i − B(x) Q_i).

This script proves, in arb ball arithmetic, Φ < 0 for every (ρ, x) in a region R of boxes, every c ∈ (0, ∞]
and every s ∈ [κ, 1], with one λ per (ρ, x) box (chosen by the float screen at the box's centre; the proof does
not depend on how it was chosen). Over a (ρ, x) box Φ is bounded by monotone corners (default): P_i, Q_i
decrease and P_j, Q_j increase with ρ (i's scale, in the race), a(x) and B(x) increase with x, and every term
of Φ = P_i − λP_j − B Q_i + λ a Q_j has a fixed sign; ``--plain`` uses balls over the box instead.
c is covered by three pieces whose formulas are exact there:

* c <= min(ρ, κ) (the third is the smallest scale on both sides): Φ/c, a polynomial in c (limits included);
* c >= max(min(ρ, 1), min(ρ, κ)/κ) (never the smallest): Φ affine in β = 1/c and β/s, β ∈ [0, β₀] (c = ∞
  included);
* between: the general integral with the upper limit min(A, B, C) as a ball.

R excludes (measured, not done): a band |ρ − x| < δ around the diagonal — there the n = 2 member (c = ∞) has
φ = ψ = 0 for ρ = x, so Φ = 0 whatever λ and no ball bound can prove Φ <= 0 (a divided difference in β and a λ
that follows the n = 2 ratio are needed) — and ρ outside [ρ_min, ρ_max] (the masses vanish like ρ or 1/ρ and λ
grows like 1/ρ: a rescaled form is needed). So this does NOT prove S, and nothing uses it.

    nice python benchmarks/curves_pf_s_partial.py --eps 1 --rho-range 2,2.2 --x-range 0.5,0.52 --nr 1 --nx 1 --depth 4

Measured (2026-12-06, load 4.5): that region (10% in ρ, 0.02 in x; log-area 0.0019 of the 3.5 of
ρ ∈ [1/16, 16] × [κ, 1]) is proved in 3.3 CPU-s (207,272 (c, s) boxes, (ρ, x) boxes split up to 5 times) — so
~6,000 CPU-s per ε for the compact part at this rate. A whole (ρ, x) box of that size fails at any (c, s) budget — the ball bound of Φ over
the (ρ, x) box overestimates by more than Φ's margin (~0.02 at c ≈ 0.3, s = 1): plain ball arithmetic needs
(ρ, x) boxes of ~1% and ~0.03 CPU-s each, i.e. thousands of CPU-s per ε for the compact part alone; mean-value
forms in (ρ, x) (curves/dual) are the next lever. With the monotone corner bound (default since):
ρ ∈ [2, 4] × x ∈ [0.5, 0.6] at ε = 1 in 4.2 CPU-s (203,211 (c, s) boxes, load 0.1); the whole
ρ ∈ [1/16, 16] × [κ, 1] run hit a 30-minute timeout at load ~7 (the script prints only at the end).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
from curves_pf_separation import margins
from flint import arb


def hull(lo: float, hi: float) -> arb:
    return arb(lo).union(arb(hi))


def win_general(A, B, C):
    """(1/A)(m − m²(1/B + 1/C)/2 + m³/(3BC)), m = min(A, B, C) as a ball: the true m is in it, so the value is."""
    m = A.min(B).min(C)
    return (m - m * m * (1 / B + 1 / C) / 2 + m * m * m / (3 * B * C)) / A


def win_fixed(A, B, U, beta):
    """Upper limit U = min(A, B) fixed (third not the smallest), third's inverse scale β: affine in β."""
    return (U - U * U * (1 / B + beta) / 2 + U * U * U * beta / (3 * B)) / A


def win_small_over_c(A, B, c):
    """(third of scale c the smallest) Pr/c = (1/A)(1/2 − c/(6B))."""
    return (0.5 - c / (6 * B)) / A


def phi_psi_general(rho, kap, a, b, c, s):
    c2 = s * c
    one = arb(1)
    Pi, Pj = win_general(rho, one, c), win_general(one, rho, c)
    Qi, Qj = win_general(rho, kap, c2), win_general(kap, rho, c2)
    return Pj - a * Qj, Pi - b * Qi


def phi_psi_small(rho, kap, a, b, c, s):
    one = arb(1)
    Pi, Pj = win_small_over_c(rho, one, c), win_small_over_c(one, rho, c)
    # Q side: third of scale s c; Pr/(s c) · s = Pr/c
    Qi, Qj = win_small_over_c(rho, kap, s * c) * s, win_small_over_c(kap, rho, s * c) * s
    return Pj - a * Qj, Pi - b * Qi


def phi_psi_large(rho, kap, a, b, beta, s):
    one = arb(1)
    up, uq = rho.min(one), rho.min(kap)
    Pi, Pj = win_fixed(rho, one, up, beta), win_fixed(one, rho, up, beta)
    Qi, Qj = win_fixed(rho, kap, uq, beta / s), win_fixed(kap, rho, uq, beta / s)
    return Pj - a * Qj, Pi - b * Qi


def masses(piece, rho, kap, v, s):
    """(P_i, P_j, Q_i, Q_j) — divided by c in the small piece — at the point ρ, with the piece's variable v and s
    as balls (small: v = c; large: v = β = 1/c; middle: v = c)."""
    one = arb(1)
    if piece == 0:
        return (win_small_over_c(rho, one, v), win_small_over_c(one, rho, v),
                win_small_over_c(rho, kap, s * v) * s, win_small_over_c(kap, rho, s * v) * s)
    if piece == 1:
        up, uq = rho.min(one), rho.min(kap)
        return (win_fixed(rho, one, up, v), win_fixed(one, rho, up, v),
                win_fixed(rho, kap, uq, v / s), win_fixed(kap, rho, uq, v / s))
    return (win_general(rho, one, v), win_general(one, rho, v),
            win_general(rho, kap, s * v), win_general(kap, rho, s * v))


def phi_upper_mono(piece, r0, r1, kap, a_hi, b_lo, lam, v, s):
    """Upper bound of Φ = P_i − λP_j − B Q_i + λ a Q_j over ρ ∈ [r0, r1], x ∈ [x0, x1] by monotonicity:
    P_i, Q_i decrease and P_j, Q_j increase with ρ (i's scale: the race), a(x), B(x) increase with x and
    every term has a fixed sign (λ, a, B, masses >= 0) — so corners replace the (ρ, x) balls."""
    Pi0, Pj0, _, _ = masses(piece, r0, kap, v, s)
    _, _, Qi1, Qj1 = masses(piece, r1, kap, v, s)
    return Pi0 - lam * Pj0 - b_lo * Qi1 + lam * a_hi * Qj1


def prove_box_mono(eps_arb, kap_f, rlo, rhi, xlo, xhi, lam, budget):
    """As ``prove_box`` with the monotone corner bound in (ρ, x) (no dependency on the (ρ, x) box's width)."""
    kap = (-eps_arb).exp()
    r0, r1 = arb(rlo), arb(rhi)
    x0, x1 = arb(xlo), arb(xhi)
    a_hi, b_lo = x1 * x1 / (2 * x1 - kap), (2 * x0 - x0 * x0) / kap
    lam = arb(lam)
    s_lo = kap_f * (1 - 1e-14)
    c_small = min(rlo, kap_f) * (1 - 1e-12)
    c_large = max(min(rhi, 1.0), min(rhi, kap_f) / s_lo) * (1 + 1e-12)
    stack = [(0, 0.0, c_small, s_lo, 1.0), (1, 0.0, 1 / c_large, s_lo, 1.0),
             (2, math.log(c_small), math.log(c_large), s_lo, 1.0)]
    used = 0
    while stack:
        piece, lo, hi, slo, shi = stack.pop()
        used += 1
        if used > budget:
            return None
        v = hull(lo, hi) if piece != 2 else hull(math.exp(lo), math.exp(hi))
        if phi_upper_mono(piece, r0, r1, kap, a_hi, b_lo, lam, v, hull(slo, shi)) < 0:
            continue
        if (hi - lo) / (1 + abs(hi) + abs(lo)) * 4 >= (shi - slo):
            mid = (lo + hi) / 2
            stack += [(piece, lo, mid, slo, shi), (piece, mid, hi, slo, shi)]
        else:
            mid = (slo + shi) / 2
            stack += [(piece, lo, hi, slo, mid), (piece, lo, hi, mid, shi)]
    return used


def prove_box(eps_arb, kap_f, rlo, rhi, xlo, xhi, lam, budget):
    """Φ < 0 on [rlo, rhi] × [xlo, xhi] × c ∈ (0, ∞] × s ∈ [κ, 1] with the constant λ; returns boxes used or None."""
    kap = (-eps_arb).exp()
    rho, x = hull(rlo, rhi), hull(xlo, xhi)
    a, b = x * x / (2 * x - kap), (2 * x - x * x) / kap
    lam = arb(lam)
    s_lo = kap_f * (1 - 1e-14)  # below the true κ = e^{−ε} (the float κ may be above it): s ∈ [s_lo, 1] ⊇ [κ, 1]
    c_small = min(rlo, kap_f) * (1 - 1e-12)
    c_large = max(min(rhi, 1.0), min(rhi, kap_f) / s_lo) * (1 + 1e-12)
    # (piece, lo, hi, slo, shi): piece 0 small c (variable c), 1 large (variable β), 2 middle (variable log c)
    stack = [(0, 0.0, c_small, s_lo, 1.0), (1, 0.0, 1 / c_large, s_lo, 1.0),
             (2, math.log(c_small), math.log(c_large), s_lo, 1.0)]
    used = 0
    while stack:
        piece, lo, hi, slo, shi = stack.pop()
        used += 1
        if used > budget:
            return None
        s = hull(slo, shi)
        if piece == 0:
            phi, psi = phi_psi_small(rho, kap, a, b, hull(lo, hi), s)
        elif piece == 1:
            phi, psi = phi_psi_large(rho, kap, a, b, hull(lo, hi), s)
        else:
            phi, psi = phi_psi_general(rho, kap, a, b, hull(math.exp(lo), math.exp(hi)), s)
        if psi - lam * phi < 0:
            continue
        # split the wider of the two (relative) coordinates
        if (hi - lo) / (1 + abs(hi) + abs(lo)) * 4 >= (shi - slo):
            mid = (lo + hi) / 2
            stack += [(piece, lo, mid, slo, shi), (piece, mid, hi, slo, shi)]
        else:
            mid = (slo + shi) / 2
            stack += [(piece, lo, hi, slo, mid), (piece, lo, hi, mid, shi)]
    return used


def choose_lambda(eps, rho, x):
    kap = math.exp(-eps)
    beta = np.concatenate([[0.0], np.logspace(-6, 6, 150)])
    r = margins(eps, rho, x, beta, np.linspace(kap, 1, 9))
    lo, up = max(r["L"], 0.0), r["U"]
    if not math.isfinite(up):
        return lo * 1.5 + 1e-3
    return (lo + up) / 2


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eps", default="1")
    ap.add_argument("--rho-range", default="0.0625,16")
    ap.add_argument("--x-range", default=None, help="lo,hi inside [κ, 1] (default: all of [κ, 1])")
    ap.add_argument("--band", type=float, default=0.05, help="excluded relative band |ρ − x| < band·x")
    ap.add_argument("--nr", type=int, default=24, help="initial ρ boxes (log-spaced)")
    ap.add_argument("--nx", type=int, default=6, help="initial x boxes")
    ap.add_argument("--budget", type=int, default=4000, help="(c, s) boxes per (ρ, x) box before it is split")
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--plain", action="store_true", help="ball bounds over the (ρ, x) box (no monotone corners)")
    args = ap.parse_args()
    eps = float(args.eps)
    eps_arb = arb(args.eps)
    kap = math.exp(-eps)
    r0, r1 = map(float, args.rho_range.split(","))
    t0 = time.process_time()
    lr = np.linspace(math.log(r0), math.log(r1), args.nr + 1)
    # x-range [κ, 1]: the lower end rounded up by 1e-15 relative would leave a sliver; use κ's ball lower end
    xlo0, xhi0 = (kap * (1 - 1e-15), 1.0) if args.x_range is None else map(float, args.x_range.split(","))
    xs = np.linspace(xlo0, xhi0, args.nx + 1)
    todo = [(math.exp(lr[k]), math.exp(lr[k + 1]), xs[m], xs[m + 1], 0) for k in range(args.nr) for m in range(args.nx)]
    excluded, failed, boxes = [], [], 0
    area = 0.0
    while todo:
        rlo, rhi, xlo, xhi, d = todo.pop()
        # skip the band around the diagonal (only whole boxes inside it are skipped; a box meeting it is split)
        if rhi >= xlo * (1 - args.band) and rlo <= xhi * (1 + args.band):
            if d >= args.depth or (rlo >= xlo * (1 - args.band) and rhi <= xhi * (1 + args.band)):
                excluded.append((rlo, rhi, xlo, xhi))
                continue
            todo += _split(rlo, rhi, xlo, xhi, d)
            continue
        lam = choose_lambda(eps, math.sqrt(rlo * rhi), (xlo + xhi) / 2)
        used = (prove_box if args.plain else prove_box_mono)(eps_arb, kap, rlo, rhi, xlo, xhi, lam, args.budget)
        if used is None:
            if d >= args.depth:
                failed.append((rlo, rhi, xlo, xhi))
            else:
                todo += _split(rlo, rhi, xlo, xhi, d)
            continue
        boxes += used
        area += math.log(rhi / rlo) * (xhi - xlo)
    print(json.dumps({"eps": args.eps, "rho_range": [r0, r1], "band": args.band, "proved_log_area": area,
                      "total_log_area": math.log(r1 / r0) * (xs[-1] - xs[0]), "x_range": [xs[0], xs[-1]], "excluded_boxes": len(excluded),
                      "failed_boxes": failed[:5], "n_failed": len(failed), "cs_boxes": boxes,
                      "cpu": round(time.process_time() - t0, 1), "load": os.getloadavg()[0]}))


def _split(rlo, rhi, xlo, xhi, d):
    rm, xm = math.sqrt(rlo * rhi), (xlo + xhi) / 2
    return [(rlo, rm, xlo, xm, d + 1), (rm, rhi, xlo, xm, d + 1), (rlo, rm, xm, xhi, d + 1), (rm, rhi, xm, xhi, d + 1)]


if __name__ == "__main__":
    main()
