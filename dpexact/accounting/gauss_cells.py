"""Certified Gaussian cell masses in vectorised floats: the fast path of :mod:`.discretise` for the
(Poisson-subsampled) Gaussian, replacing one arb erfc per cell boundary by a Gauss–Legendre rule
whose every error is bounded.

For a cell [a, b] of the standardised output y, the mass I = ∫_a^b φ is computed in log form by the
m-point Gauss–Legendre rule, and returned with an absolute bound on the error of log I, made of

* the rule's remainder (Davis & Rabinowitz 1984, (2.7.12)): |E| <= c_m (b−a)^{2m+1} max|φ^{(2m)}|,
  c_m = (m!)^4 / ((2m+1)((2m)!)^3); φ^{(2m)} = He_{2m}·φ and |He_{2m}(x)| <= H̄(|x|) (the polynomial
  with the absolute values of its coefficients); and I >= (b−a)·min φ, max φ / min φ <= e^{(b−a)X}
  on [a, b] with X = max(|a|, |b|) — so |E|/I <= c_m (b−a)^{2m} H̄(X) e^{(b−a)X};
* the nodes and weights: computed in arb (roots of P_m) and rounded to floats; the moved nodes change
  φ by at most a relative X·|Δx|·e^{...}, the weights by their rounding;
* the endpoints: ã, b̃ carry an absolute error e (from the loss-to-output map, bounded by the caller);
  the mass of the difference of the cells is at most φ_max·(e_a + e_b), relative (e_a + e_b)/(b − a)·e^{(b−a)X};
* float rounding of −x²/2, exp (numpy, assumed within 4 ulp as in :mod:`.grid_measure`), the positive
  sum (γ_m) and the final log: bounded by 16u(1 + x² + |log terms|), doubled.

Cells where the bound exceeds ``MAX_REL`` (wide cells at the ends of a subsampled law, empty preimages)
are flagged for the arb path. Everything returned is a pair (log-lower, log-upper) of the true mass.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

__all__ = ["MAX_REL", "M_NODES", "gl_rule", "log_gauss_cells", "log_gauss_ratio"]

U = 2.0**-53
M_NODES = 8
#: largest accepted relative error bound of one cell mass (else: the arb path)
MAX_REL = 1e-9


@functools.cache
def gl_rule(m: int = M_NODES) -> tuple[np.ndarray, np.ndarray, float, float, np.ndarray]:
    """Nodes t, weights w on [−1, 1] (floats), their absolute error bound, c_m (rounded up), and the
    coefficients of H̄_{2m} (absolute values, exact integers as floats)."""
    from flint import arb

    ts, ws, err = [], [], 0.0
    for k in range(m):
        t, w = arb.legendre_p_root(m, k, weight=True)
        ts.append(float(t.mid()))
        ws.append(float(w.mid()))
        err = max(err, float(t.rad()) + float(abs(t - ts[-1]).upper()), float(w.rad()) + float(abs(w - ws[-1]).upper()))
    c = Fraction(math.factorial(m) ** 4, (2 * m + 1) * math.factorial(2 * m) ** 3)
    cm = math.nextafter(float(c) * (1 + 4 * U), math.inf)
    from numpy.polynomial import hermite_e

    he = np.abs(hermite_e.herme2poly([0] * (2 * m) + [1]))  # exact small integers
    return np.array(ts), np.array(ws), math.nextafter(err * 2, math.inf), cm, he


def _hbar(x: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """H̄(x) for x >= 0 (non-negative terms: Horner rounding <= (1 + 2u)^{2n}; we multiply by 1 + 1e-12)."""
    out = np.zeros_like(x)
    for c in coeffs[::-1]:
        out = out * x + c
    return out * (1 + 1e-12)


def log_gauss_cells(a: np.ndarray, b: np.ndarray, e_ab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log-lower, log-upper) of ∫_a^b φ for cells a < b (floats) whose true ends are within ``e_ab`` (the
    sum of both ends' absolute errors), and a mask of the cells whose bound is above ``MAX_REL``
    (their values are then meaningless: the caller recomputes them) — except that a masked cell with finite
    ends, a finite log and log-upper − log-lower < 1 still has a true bound (the relative error is then below
    1/2, where the bound's formula holds), which :mod:`.discretise_gauss` keeps for tail cells."""
    t, w, tw_err, cm, he = gl_rule()
    m = len(t)
    width = b - a
    X = np.maximum(np.abs(a), np.abs(b)) + e_ab  # bounds |x| on the cell and its perturbations
    c = (a + b) * 0.5
    r = width * 0.5
    # the rule on [c − r, c + r] (c, r rounded: their cell differs from [a, b] by <= u(|a| + |b|) at each end)
    x = c[:, None] + r[:, None] * t[None, :]
    s = -0.5 * x * x
    top = s.max(axis=1)
    S = (w[None, :] * np.exp(s - top[:, None])).sum(axis=1)
    with np.errstate(divide="ignore"):
        logI = np.log(r) + top + np.log(S) - 0.5 * math.log(2 * math.pi)
    ok = (width > 0) & np.isfinite(logI)
    wpos = np.where(width > 0, width, 1.0)
    spread = np.exp(np.minimum(wpos * X + wpos * wpos, 700.0))  # >= max φ / min φ on the widened cell
    with np.errstate(over="ignore", invalid="ignore"):
        rem = cm * wpos ** (2 * m) * _hbar(X, he) * spread
        # endpoints: the given errors plus the rounding of c, r (ends of the rule's cell)
        ends = (e_ab + 4 * U * X) / wpos * spread
        # nodes: |Δx| <= r·tw_err + 3u·X  ->  relative change of φ <= e^{X|Δx| + Δx²} − 1; weights: tw_err/w
        dx = r * tw_err + 3 * U * X
        nodes = np.expm1(X * dx + dx * dx) * 1.01 + tw_err / float(w.min())
        fl = 32 * U * (1 + X * X + np.abs(np.log(r)) + np.abs(top) + m)
        rel = rem + ends + nodes
        err = -np.log1p(-np.minimum(rel, 0.5)) * 1.01 + fl
    bad = ~ok | ~(rel <= MAX_REL) | ~np.isfinite(err)
    return logI - err, logI + err, bad


def log_gauss_ratio(a: np.ndarray, b: np.ndarray, e_ab: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log ρ and an absolute bound on its error, ρ = ∫_a^b φ(y − μ)dy / ∫_a^b φ(y)dy = the φ-weighted mean
    of e^{L₀(y)}, L₀ = μy − μ²/2, over the cell — the cell's likelihood ratio, computed with the same nodes
    for both integrals so that the errors common to them cancel (μ a float, the pair's exact parameter).

    Error terms (log scale): the two rules' remainders (as in :func:`log_gauss_cells`, with X for each
    integrand); the ends: |∂ log ρ/∂b| <= φ(b)|e^{L₀(b)}/ρ − 1|/I <= spread·expm1(μw′)/w, the same at a,
    so moving them by e_ab moves log ρ by <= e_ab·spread·expm1(μw′)/w (w′ = w + e_ab); the float rule is a
    weighted mean of e^{L₀} at the computed nodes with weights within a factor 1 ± η of the exact rule's
    (η: weights, −x²/2, exp), which moves the mean by <= 2η·expm1(μw′) in log, and the moved nodes move
    L₀ by <= μ·|Δx|; the factor e^{ℓ} (ℓ = μx − μ²/2 rounded) and the two positive sums and the division."""
    t, w, tw_err, cm, he = gl_rule()
    m = len(t)
    width = b - a
    wpos = np.where(width > 0, width, 1.0)
    X = np.maximum(np.abs(a), np.abs(b)) + e_ab
    XP = np.maximum(np.abs(a - mu), np.abs(b - mu)) + e_ab + 4 * U * (X + mu)
    c = (a + b) * 0.5
    r = width * 0.5
    x = c[:, None] + r[:, None] * t[None, :]
    s = -0.5 * x * x
    top = s.max(axis=1)
    om = w[None, :] * np.exp(s - top[:, None])
    ell = mu * x - 0.5 * mu * mu
    ltop = ell.max(axis=1)
    num = (om * np.exp(ell - ltop[:, None])).sum(axis=1)
    den = om.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lr = ltop + np.log(num / den)
        wp = wpos + e_ab
        spread = np.exp(np.minimum(wp * X + wp * wp, 700.0))
        spreadP = np.exp(np.minimum(wp * XP + wp * wp, 700.0))
        rem = cm * wpos ** (2 * m) * (_hbar(X, he) * spread + _hbar(XP, he) * spreadP)
        osc = np.expm1(mu * wp)
        ends = (e_ab + 4 * U * X) * np.maximum(spread, spreadP) * osc / wpos
        dx = r * tw_err + 3 * U * X
        eta = tw_err / float(w.min()) + 8 * U * (1 + X * X)
        moved = 2.02 * eta * np.expm1(mu * (wp + 2 * dx)) + mu * dx
        fl = 8 * U * (abs(mu) * X + mu * mu + 1) + (2 * m + 6) * U + 4 * U * np.abs(lr)
        err = 2 * (rem + ends + moved + fl)
    bad = ~(width > 0) | ~np.isfinite(lr) | ~(err <= 1e-9)
    return lr, err, bad
