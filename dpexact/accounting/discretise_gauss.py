"""The (Poisson-subsampled) Gaussian on the loss grid in vectorised floats, every mass bounded: the same
two ends as :func:`.discretise.discretise` (connect-the-dots upper, merged-and-shifted lower), computed
from :mod:`.gauss_cells` instead of one arb erfc per boundary (~1 µs a cell instead of ~40 µs).

Parameters: μ = Δ/σ and the rate r are rounded *outward* to floats: the upper end uses μ↑ >= μ,
r↑ >= r, the lower end μ↓ <= μ, r↓ <= r. This is sound because the pairs are ordered by
post-processing (Blackwell): N(μ, 1), N(0, 1) is obtained from N(μ↑, 1), N(0, 1) by y ↦ (μ/μ↑)y + Z,
Z ~ N(0, 1 − (μ/μ↑)²), and (rP + (1−r)Q, Q) from (r↑P + (1−r↑)Q, Q) by replacing the output, with
probability 1 − r/r↑, by a fresh draw from Q (the same map serves the add direction, whose pair is
swapped). Post-processing lowers every δ(ε), also after (adaptive) composition; so the upper end may
describe the (μ↑, r↑) pair and the lower end the (μ↓, r↓) pair, both with exact float parameters.

Loss to output: in the standardised output y (Q = N(0, 1), P = N(μ, 1)) the base loss is
L₀ = μy − μ²/2 and L = g(L₀) = log(1 − r + r e^{L₀}) (remove) or −g(L₀) (add), so the loss cell
(l, l′] is the y-cell (y(l), y(l′)] (remove) or [y(−l′), y(−l)) (add), with
y(l) = (log((e^l − 1 + r)/r) + μ²/2)/μ; its float value's error is bounded term by term
(expm1, log within 4 ulp, as assumed in :mod:`.grid_measure`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..numbers.backends import ball_context
from ..numbers.dot import dot_unthreaded
from .gauss_cells import U, estimate_gauss_cells_ratio, log_gauss_cells_ratio
from .grid_measure import GridMeasure, normalise
from .loss_laws import GaussianBase, LossLaw

__all__ = ["discretise_gauss", "dominating_laws", "gauss_window"]

PREC = 128
LN2 = math.log(2)
TINY = 2.0**-1073
#: accepted relative error bound of one cell's mass on this path: narrow cells far out (a subsampled law's
#: heavy tail at h <= 2^-16, y ~ 10) have float ends within u·|y|, i.e. ~1e-9 of their width, and sent to the arb
#: path one by one (~0.7 ms a cell) they cost minutes; their masses are tiny, so 1e-7 (carried outward) is harmless
CELL_MAX_REL = 1e-7
#: linearised solves of the fitted lower end's boundaries after the first averaged step (:func:`_chain_step`;
#: 0: the averaged step only). A choice of tightness only: the end is sound for any boundaries
FIT_STEPS = 1
#: grid shifts tried for the end cells of the fitted lower end (:func:`_edge_shift`; 0: none)
EDGE_STEPS = 1
EDGE_AIM = 1e-3
#: further shifts while the best placement's mean move is above EDGE_GOOD·h (measured σ = 0.5, q = 1/1000, the remove
#: direction at θ ≈ 3: the mean move is 3e-5·h to 3e-4·h at h = 2^-10, 2^-11, 2^-13 but 2.7e-2·h at 2^-12 and 0.15·h
#: at 2^-9 after one shift — 5.5e-4·h and 8e-4·h after 2 and 4; those h's lower ends cost a row 1e-5 .. 3e-3 of ε)
EDGE_MORE = 3
EDGE_GOOD = 1e-3
#: the fitted lower end's mean move (in h) below which the shifted one is not computed
SHIFTED_SKIP = 1e-3


def _outward(x: Any) -> tuple[float, float]:
    lo = math.nextafter(float(x.lower()), -math.inf)
    hi = math.nextafter(float(x.upper()), math.inf)
    if x.rad() == 0 and float(x.mid()) == x.mid():
        lo = hi = float(x.mid())
    return lo, hi


def dominating_laws(law: LossLaw) -> tuple[LossLaw, LossLaw, tuple[float, float], tuple[float, float]]:
    """(upper law, lower law, (μ↑, r↑), (μ↓, r↓)) with float parameters (module docstring); r = 1.0: none."""
    from flint import arb

    mu_lo, mu_hi = _outward(law.base.mu)
    if law.r == 1:
        r_lo = r_hi = 1.0
    else:
        r_lo, r_hi = _outward(law.r)
        r_hi = min(r_hi, 1.0)

    def mk(mu: float, r: float) -> LossLaw:
        return LossLaw(GaussianBase(arb(mu)), 1 if r >= 1 else arb(r), law.direction)

    return mk(mu_hi, r_hi), mk(mu_lo, r_lo), (mu_hi, r_hi), (mu_lo, r_lo)


def _y_of_loss(l: np.ndarray, mu: float, r: float) -> tuple[np.ndarray, np.ndarray]:
    """y(l) and an absolute error bound; −inf where the preimage is empty (error then inf)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if r >= 1:
            G = l.copy()
            eG = np.zeros_like(l)
        else:
            E = np.expm1(l)
            t = E + r
            eta = (4 * U * np.abs(E) + U * np.abs(t)) / t
            good = (t > 0) & (eta < 0.25)
            lt = np.log(np.where(t > 0, t, 1.0))
            lq = math.log(r)
            G = np.where(t > 0, lt - lq, -np.inf)
            eG = np.where(good, 2 * eta + 4 * U * np.abs(lt) + 4 * U * abs(lq) + U * np.abs(G), np.inf)
        num = G + mu * mu / 2
        y = num / mu
        ey = ((eG + U * mu * mu + U * np.abs(num)) / mu + U * np.abs(y)) * 1.01
    return y, ey


def _log_cells(law: LossLaw, pts: np.ndarray, mu: float, r: float, arb_pts: Any) -> tuple[np.ndarray, ...]:
    """(P′lo, P′hi, Q′lo, Q′hi, λ, e_λ): log bounds of the direction's masses on the loss cells
    (pts[i], pts[i+1]], and the cell's loss λ = log(P′/Q′) within ±e_λ (from the likelihood ratio ρ of the
    base cell, whose errors largely cancel: :func:`.gauss_cells.log_gauss_cells_ratio`)."""
    remove = law.direction == "remove"
    y, ey = _y_of_loss(pts if remove else -pts, mu, r)
    a, b = (y[:-1], y[1:]) if remove else (y[1:], y[:-1])
    e = (ey[:-1] + ey[1:])
    with np.errstate(invalid="ignore", over="ignore"):
        qlo, qhi, bq, lr, elr, br = log_gauss_cells_ratio(a, b, e, mu)
        # a cell declined at MAX_REL whose bound is still within CELL_MAX_REL keeps it (gauss_cells docstring)
        bq = bq & ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(qlo) & np.isfinite(qhi) & (b > a)
                    & (qhi - qlo <= 2.2 * CELL_MAX_REL))
        # P-mass of the base cell = Q-mass × ρ (exactly), so its log bounds add the two errors
        f = 2 * U * (np.abs(qlo) + np.abs(lr))
        plo, phi = qlo + lr - elr - f, qhi + lr + elr + f
    bad = bq | br | ~np.isfinite(a) | ~np.isfinite(b)
    if r < 1:
        lq, l1q = math.log(r), math.log1p(-r)
        dq, d1q = 4 * U * abs(lq), 4 * U * abs(l1q) + 2 * U
        with np.errstate(invalid="ignore"):
            mlo = np.logaddexp(lq - dq + plo, l1q - d1q + qlo)
            mhi = np.logaddexp(lq + dq + phi, l1q + d1q + qhi)
            f = 16 * U * (1 + np.abs(mlo) + np.abs(mhi))
            mlo, mhi = mlo - f, mhi + f
            # log(rρ + 1 − r): monotone in log ρ, so its error is at most e_ρ plus the roundings
            g = np.logaddexp(lq + lr, l1q)
            eg = elr + dq + d1q + 16 * U * (1 + np.abs(g) + np.abs(lq + lr))
    else:
        mlo, mhi = plo, phi
        g, eg = lr, elr
    if remove:
        out = [mlo, mhi, qlo, qhi, g, eg]
    else:
        out = [qlo, qhi, mlo, mhi, -g, eg]
    idx = np.nonzero(bad)[0]
    if len(idx):
        with ball_context(PREC):
            for i in idx:
                pm, qm = law.cell(arb_pts[i], arb_pts[i + 1])
                for k, z in ((0, pm), (2, qm)):
                    out[k][i], out[k + 1][i] = _arb_log_bounds(z)
                fin = all(np.isfinite(out[j][i]) for j in range(4))
                lo = out[0][i] - out[3][i] if fin else -np.inf
                hi = out[1][i] - out[2][i] if fin else np.inf
                if fin:
                    out[4][i], out[5][i] = (lo + hi) / 2, (hi - lo) / 2 + 4 * U * (abs(lo) + abs(hi) + 1)
                else:
                    out[4][i], out[5][i] = np.nan, np.inf
    return tuple(out)


def _arb_log_bounds(x: Any) -> tuple[float, float]:
    lo, hi = x.lower(), x.upper()
    llo = math.nextafter(float(lo.log().lower()), -math.inf) if lo > 0 else -math.inf
    lhi = math.nextafter(float(hi.log().upper()), math.inf) if hi > 0 else -math.inf
    return llo, lhi


def _estimate_cells(law: LossLaw, pts: np.ndarray, mu: float, r: float) -> tuple[np.ndarray, np.ndarray]:
    """(log P′, λ) of the direction's loss cells (pts[i], pts[i+1]] in floats — estimates for choosing boundaries,
    *not bounds*: :func:`_log_cells` without its error terms and without the arb path (cells with an infinite end
    or wide ones — where the rule may be far off — from scipy's log Φ instead; NaN where a cell has no mass)."""
    remove = law.direction == "remove"
    y, _ = _y_of_loss(pts if remove else -pts, mu, r)
    a, b = (y[:-1], y[1:]) if remove else (y[1:], y[:-1])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        lq, lr = estimate_gauss_cells_ratio(a, b, mu)
        w = b - a
        far = ~(w * (np.maximum(np.abs(a), np.abs(b)) + w) <= 1.0) & (w > 0)  # an infinite end too
        if np.any(far):
            aa, bb = a[far], b[far]
            lq[far] = _log_cell_float(aa, bb)
            lr[far] = _log_cell_float(aa - mu, bb - mu) - lq[far]
        g = np.logaddexp(math.log(r) + lr, math.log1p(-r)) if r < 1 else lr
        lp = lq + g if remove else lq
        lam = np.where(np.isfinite(lp) & np.isfinite(g), g if remove else -g, np.nan)
    return lp, lam


def _exp_scaled(logv: np.ndarray, e: int, upper: bool) -> np.ndarray:
    """exp(logv − e·ln2) rounded outward (subtraction, ln2's rounding and exp within 4 ulp bounded)."""
    if np.any(np.isnan(logv)) or np.any(logv == np.inf):
        raise ArithmeticError("a cell's log-mass is not a number")
    fin = np.isfinite(logv)
    lv = np.where(fin, logv, 0.0)
    err = 4 * U * (np.abs(lv) + abs(e) * LN2) + 2 * U * abs(e)
    with np.errstate(over="ignore", under="ignore"):
        z = lv - e * LN2
        if upper:
            return np.where(fin, np.exp(z + err) * (1 + 8 * U), 0.0) + TINY
        return np.where(fin, np.exp(z - err) * (1 - 8 * U), 0.0)


def _choose_shift(d: np.ndarray, w: np.ndarray, h: float) -> float:
    """s ∈ [0, h), a multiple of h/1024, minimising Σ w·(d − s mod h) exactly (sorted sweep: the cost
    C − sW + h·W_{<s} is minimised at a candidate)."""
    pos = w > 0
    d, w = d[pos], w[pos]
    if len(d) == 0:
        return 0.0
    q = h / 1024
    cands = np.unique(np.clip(np.floor(d / q) * q, 0, h - q))
    order = np.argsort(d)
    ds, cw = d[order], np.concatenate([[0.0], np.cumsum(w[order])])
    below = cw[np.searchsorted(ds, cands, side="left")]
    cost = -cands * cw[-1] + h * below
    return float(cands[int(np.argmin(cost))])


def discretise_gauss(law: LossLaw, h: float, theta: float, win: tuple[int, int],
                     outside: tuple[bool, bool] = (True, True), ends: str = "both") -> tuple[Any, Any]:
    """(upper, lower) ends of a Gaussian ``law`` on the grid of step h (no mass at +∞).

    ``outside`` says whether the mass below / above the window belongs to this measure (the upper end then bounds
    it in ``dropped``); False when it is another part's (:mod:`.split_composition`: the law restricted to the
    window, whose cells never reach past the window's ends on either end). ``ends``: "both", or "upper" / "lower"
    alone (the other is then None and not computed: the two ends are independent constructions, and a caller that
    needs one end only — a saddle-point probe, a pass refining the end that limits — saves the other's work)."""
    from flint import arb

    if ends not in ("both", "upper", "lower"):
        raise ValueError(f"ends: 'both', 'upper' or 'lower', got {ends!r}")
    j_lo, j_hi = win
    n = j_hi - j_lo
    law_u, law_l, (mu_u, r_u), (mu_l, r_l) = dominating_laws(law)
    if ends == "lower":
        return None, _lower_end(law_l, mu_l, r_l, h, theta, j_lo, n, outside)
    pts = (j_lo + np.arange(n + 1, dtype=np.float64)) * h  # exact: h a power of two
    arb_pts = [arb(float(x)) for x in pts] if n < 0 else _LazyArb(pts)
    _, _, _, Qu_hi, lam_u, elam_u = _log_cells(law_u, pts, mu_u, r_u, arb_pts)
    li = pts[:-1]
    tl = (1 + theta) * pts
    # upper: connect the dots; α = fraction of the cell's P′-mass sent to its top point, from λ − l ∈ [0, h]
    with np.errstate(invalid="ignore"):
        rnd = elam_u + 2 * U * (np.abs(lam_u) + np.abs(li))
        dl_lo = np.clip(np.nan_to_num(lam_u - li - rnd, nan=0.0, neginf=0.0), 0.0, h)
        dl_hi = np.clip(np.nan_to_num(lam_u - li + rnd, nan=h, posinf=h, neginf=0.0), 0.0, h)
    eh = math.expm1(h)
    a_lo = np.maximum(0.0, np.expm1(dl_lo) * (1 - 6 * U) / (eh * (1 + 5 * U)))
    a_hi = np.minimum(1.0, np.expm1(dl_hi) * (1 + 6 * U) / (eh * (1 - 5 * U)))
    # the uncertain fraction a_hi − α goes to the top point only (bottom 1 − a_hi, top a_hi): that is the true split
    # with mass moved up and a little added (sound for an upper end), where widening both ends would add the
    # fraction a_hi − a_lo to the cell's mass — ~1e-13/h a step, which T compositions multiply
    with np.errstate(divide="ignore", invalid="ignore"):
        la = np.log1p(-a_hi)
        lb = np.log(a_hi)
    base_err = 8 * U * (np.abs(np.nan_to_num(Qu_hi)) + np.abs(tl[:-1]) + np.abs(tl[1:]) + 2 + np.abs(np.nan_to_num(la, neginf=0.0)) + np.abs(np.nan_to_num(lb, neginf=0.0)))
    fin = np.isfinite(Qu_hi)
    A = np.where(fin, np.nan_to_num(Qu_hi) + tl[:-1] + la + base_err, -np.inf)
    B = np.where(fin & (a_hi > 0), np.nan_to_num(Qu_hi) + tl[1:] + np.nan_to_num(lb, neginf=0.0) + base_err, -np.inf)
    with ball_context(PREC):
        TH = arb(theta)
        p0, pn = arb(float(pts[0])), arb(float(pts[-1]))
        below = law_u.mass_below(p0) if outside[0] else arb(0)
        above = law_u.tilted_above(pn, TH) if outside[1] else arb(0)
        dropped = (TH * p0).exp() * below + above
        # untilted mass of the removed parts: above the window e^{θL} >= e^{θ·pn}, or its plain mass (θ = 0), whichever
        # is smaller (a window cut below a heavy tail's tilted peak makes the first one large)
        up_raw = above * (-TH * pn).exp()
        if outside[1]:
            plain = law_u.tilted_above(pn, arb(0))
            up_raw = plain if plain < up_raw else up_raw
        raw = math.nextafter(float((below + up_raw).upper()), math.inf)
        top = float(np.nanmax(np.concatenate([A, B])))
        if dropped > 0 and not math.isfinite(top):
            # the scale follows the grid: a removed part's tilted mass can be astronomically larger (a heavy tail
            # tilted far out, whose untilted bound is what counts) and would make the TINY floor of every cell large
            top = float(dropped.upper().log().upper())
        e = math.floor(top / LN2) + 2
        up = np.zeros(n + 1)
        up[:-1] += _exp_scaled(A, e, True)
        up[1:] += _exp_scaled(B, e, True)
        up = up * (1 + 2 * U)
        dr = 0.0
        if dropped != 0:
            dr = math.nextafter(float((dropped * arb(2) ** (-e)).upper()), math.inf)
    upper = normalise(GridMeasure(h, theta, j_lo, 0.0, up, e, True, dr, raw))
    if ends == "upper":
        return upper, None
    return upper, _lower_end(law_l, mu_l, r_l, h, theta, j_lo, n, outside)


def _lower_end(law_l: LossLaw, mu_l: float, r_l: float, h: float, theta: float, j_lo: int, n: int,
               outside: tuple[bool, bool]) -> GridMeasure:
    """Two sound lower ends; the one whose losses moved least (weighted by tilted mass)."""
    fitted, c_fit = _lower_fitted(law_l, mu_l, r_l, h, theta, j_lo, n, clip=not all(outside))
    if c_fit <= SHIFTED_SKIP * h:  # the shifted end moves the losses by ~h/100 at best (measured): not tried
        return fitted
    shifted, c_sh = _lower_shifted(law_l, mu_l, r_l, h, theta, j_lo, n)
    return fitted if c_fit <= c_sh else shifted


def _lower_fitted(law: LossLaw, mu: float, r: float, h: float, theta: float, j_lo: int, n: int,
                  clip: bool = False) -> tuple[GridMeasure, float]:
    """Lower end: merge the outputs of loss cells (b_k, b_{k+1}] fitted around the grid points g_k = (j_lo + k)h
    (a partition of the outputs: a post-processing), each cell's loss λ_k moved down to g_k if λ_k >= g_k
    is certain, else to g_{k−1} (:mod:`.grid_measure`: lowering losses lowers δ).

    The boundaries only decide how tight the end is, never whether it is sound: starting from the centred
    cells b_k = g_k − h/2, a Newton-like step moves each boundary by the mean of its neighbours' offsets
    β = λ − g (a cell's λ follows its boundaries about one for one); then the chain of cell equations
    λ_k(b_k, b_{k+1}) = g_k is solved, linearised (:func:`_chain_step`), and each boundary is raised by twice the
    larger shortfall (g − λ plus its error bound) of its two cells, which lifts each λ_k just above g_k. An end cell
    (an outer boundary with no effect) keeps its residual; the grid shift s is then re-aimed at it once
    (:func:`_edge_shift`). So the losses move by about the residual instead of O(h) (measured on a q = 1/1000 bulk:
    ~1e-5·h to 1e-3·h, against 3e-3·h to 3e-2·h with the averaged step alone). The steps and the chain solve read
    float estimates of the cells (:func:`_estimate_cells`); the margins and the placement read the certified masses
    and λ ± e_λ (:func:`_log_cells`): a loss goes to g_k only if its certified lower bound is at or above g_k.

    ``clip``: the outer boundaries are kept within the window [j_lo·h, (j_lo + n)·h] (a part of a split law must
    not reach into the neighbouring part's outputs); the cells are then a partition of the window's outputs."""
    g = (j_lo + np.arange(n + 1, dtype=np.float64)) * h
    ends = (float(g[0]), float(g[-1]))
    b = (j_lo + np.arange(n + 2, dtype=np.float64) - 0.5) * h

    def offsets(bb: np.ndarray) -> tuple[np.ndarray, ...]:
        """(P′ lower bound, λ, its error bound) of the cells: certified."""
        P_lo, _, _, _, lam, elam = _log_cells(law, bb, mu, r, _LazyArb(bb))
        return P_lo, lam, elam

    def estimates(bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log P′, λ) in floats, not bounds: enough to move boundaries, at about half the cost."""
        return _estimate_cells(law, bb, mu, r)

    # a near-atom (the subsampled law's lump just above log(1 − r)) cannot be moved by boundaries: the grid
    # is shifted by s ∈ [0, h) (a multiple of h/2^20) so that a grid point sits just below the heaviest cell's λ
    # (its certified lower bound: the margins cannot lift an atom that falls short)
    with np.errstate(invalid="ignore", over="ignore"):
        wt = np.nan_to_num(estimates(b)[0], nan=-np.inf)
        s = 0.0
        if np.any(np.isfinite(wt)):
            i = int(np.argmax(wt))
            _, lam, elam = offsets(b[i:i + 2])
            if np.isfinite(lam[0]) and np.isfinite(elam[0]):
                off = (lam[0] - 4 * elam[0] - 64 * U * abs(g[i]) - g[i]) % h
                s = math.floor(off / h * 2.0**20) * h * 2.0**-20
                if not 0.0 <= s < h:
                    s = 0.0
    g0, b0 = g, b

    def step(bb: np.ndarray, beta: np.ndarray) -> np.ndarray:
        beta = np.nan_to_num(beta, nan=0.0, posinf=0.0, neginf=0.0)
        corr = np.empty(n + 2)
        corr[1:-1] = (beta[:-1] + beta[1:]) / 2
        corr[0], corr[-1] = beta[0], beta[-1]
        nb = bb - np.clip(corr, -h / 4, h / 4)
        return nb if np.all(np.diff(nb) > 0) else bb

    def fit(s: float, warm: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """``warm``: solved boundaries for another shift, moved with the grid (one linearised solve then suffices)."""
        g = g0 + s
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # divide: empty clipped cells (log 0)
            if warm is None:
                b = b0 + s
                _, lam = estimates(b)
                b = step(b, lam - g)
            else:
                b = warm
            for _ in range(FIT_STEPS):  # solve λ_k(b_k, b_{k+1}) = g_k (linearised)
                P, lam = estimates(b)
                b = _chain_step(b, g, P, lam, _log_loss_density(law, b, mu, r), theta, h)
            solved = b
            # the margins from certified λ and e_λ: with estimates (e_λ from elsewhere) a cell's lift is off by its
            # e_λ's error, which moves its loss by as much (measured: ~1e-8 of δ's lower end after T = 1000)
            P_lo, lam, elam = offsets(b)
            b = _lifted(b, g, lam, elam, h)
            if clip:  # the cells cover the window exactly: boundaries past an end collapse onto it (empty cells)
                b = np.clip(b, ends[0], ends[1])
                b[0], b[-1] = ends
            P_lo, lam, elam = offsets(b)
        return g, b, P_lo, lam, elam, solved

    def place(s: float, warm: np.ndarray | None = None) -> tuple[tuple[GridMeasure, float], np.ndarray, ...]:
        g, b, P_lo, lam, elam, solved = fit(s, warm)
        with np.errstate(invalid="ignore", over="ignore"):
            ok = np.isfinite(P_lo) & np.isfinite(lam) & np.isfinite(elam)
            lam_lo = lam - elam - 2 * U * (np.abs(lam) + np.abs(g))
        k = np.arange(n + 1) - np.where(ok, lam_lo < g, True)
        # clipped: the window's first cell starts at the window's bottom, where a split law's tail is heaviest; a
        # loss below its first grid point goes one point further down (j_lo − 1) instead of being dropped
        off = 1 if clip else 0
        keep = ok & (k >= -off)
        pos = (j_lo + k) * h + s
        lv = P_lo + theta * pos
        lv = np.where(keep, lv - 8 * U * (np.abs(np.nan_to_num(P_lo)) + np.abs(theta * pos) + 1), -np.inf)
        return (_assemble(h, theta, j_lo - off, n + off, s, k + off, keep, lv, P_lo, np.where(keep, lam - pos, h)),
                b, P_lo, lam, g, solved)

    best, b, P_lo, lam, g, solved = place(s)
    # the chain is solved but its end cells have an inert outer boundary (a hard end of the support, or a clipped
    # window's end): their residual stays and the margins pass it on. Shift the grid so that the heavier end
    # cell's λ sits on its grid point (β moves by (c − 1)·Δs there, c = ∂λ/∂b of its inner boundary) and keep the
    # cheaper of the two placements (both sound)
    for i in range(EDGE_STEPS + (EDGE_MORE if EDGE_STEPS else 0)):  # EDGE_STEPS = 0: no shift at all
        if i >= EDGE_STEPS and best[1] <= EDGE_GOOD * h:  # the further steps only where the first left a large move
            break
        s2 = _edge_shift(b, g, P_lo, lam, _log_loss_density(law, b, mu, r), theta, h, s)
        if s2 is None:
            break
        warm = solved + (s2 - s)
        cand, b, P_lo, lam, g, solved = place(s2, warm if np.all(np.diff(warm) > 0) else None)
        s = s2
        if cand[1] < best[1]:
            best = cand
    return best


def _lifted(b: np.ndarray, g: np.ndarray, lam: np.ndarray, elam: np.ndarray, h: float) -> np.ndarray:
    """Boundaries raised by per-boundary margins: raising b_k raises both neighbours' λ; a cell whose λ is not
    certainly above its grid point asks for twice its shortfall (a cell already above asks nothing: raising it is
    not needed, and an end cell's residual passed on to its neighbour cost it that much)."""
    short = g - lam + elam + 64 * U * np.abs(g)
    need = np.nan_to_num(2 * np.maximum(short, 0.0), nan=0.0, posinf=0.0)
    need = np.minimum(need, h / 8)
    m = np.zeros(len(b))
    m[1:-1] = np.maximum(need[:-1], need[1:])
    m[0], m[-1] = need[0], need[-1]
    nb = b + m
    return nb if np.all(np.diff(nb) > 0) else b


def _log_loss_density(law: LossLaw, l: np.ndarray, mu: float, r: float) -> np.ndarray:
    """log of the direction's P′-density of the loss at l (a float estimate for :func:`_chain_step`, never a bound):
    the density of y (P′ = rN(μ, 1) + (1 − r)N(0, 1) remove, N(0, 1) add) times dy/dl, y = y(±l)."""
    s = l if law.direction == "remove" else -l
    with np.errstate(all="ignore"):
        t = np.expm1(s) + r
        y = (np.log(t / r) + mu * mu / 2) / mu
        c = 0.5 * math.log(2 * math.pi)
        lp0, lp1 = -y * y / 2 - c, -(y - mu) ** 2 / 2 - c
        if law.direction != "remove":
            lm = lp0
        elif r < 1:
            lm = np.logaddexp(math.log(r) + lp1, math.log1p(-r) + lp0)
        else:
            lm = lp1
        return np.where(t > 0, lm + s - np.log(t) - math.log(mu), -np.inf)


def _partials(b: np.ndarray, P_lo: np.ndarray, lam: np.ndarray, logd: np.ndarray) -> tuple[np.ndarray, ...]:
    """(finite, ∂λ_k/∂b_k, ∂λ_k/∂b_{k+1}) of every cell (:func:`_chain_step`)."""
    with np.errstate(all="ignore"):
        ok = np.isfinite(P_lo) & np.isfinite(lam)  # a boundary outside the support (density 0): its partial is 0
        A = np.where(ok, np.exp(logd[:-1] - P_lo) * np.expm1(lam - b[:-1]), 0.0)
        C = np.where(ok, -np.exp(logd[1:] - P_lo) * np.expm1(lam - b[1:]), 0.0)
    return ok, np.nan_to_num(A), np.nan_to_num(C)


def _edge_shift(b: np.ndarray, g: np.ndarray, P_lo: np.ndarray, lam: np.ndarray, logd: np.ndarray, theta: float,
                h: float, s: float) -> float | None:
    """A grid shift s′ ∈ [0, h) (a multiple of h/2^20) putting the heavier end cell's λ just above its grid point,
    or None when its residual is already small (a float choice: any shift is sound)."""
    ok, A, C = _partials(b, P_lo, lam, logd)
    idx = np.nonzero(ok)[0]
    if len(idx) < 3:
        return None
    with np.errstate(all="ignore"):
        lw = P_lo + theta * g
        top = float(np.max(lw[idx]))
        best = None
        for k, d in ((int(idx[0]), C), (int(idx[-1]), A)):
            beta = float(lam[k] - g[k])
            cost = math.exp(float(lw[k]) - top) * abs(beta)
            if 0.0 < d[k] < 0.95 and (best is None or cost > best[0]):
                # aim a little above the grid point: the linear model of λ in the shift is rough for a near-atom
                best = (cost, (beta - EDGE_AIM * h) / (1.0 - float(d[k])))
    if best is None or best[0] <= 1e-9 * h:
        return None
    s2 = (s + best[1]) % h
    s2 = math.floor(s2 / h * 2.0**20) * h * 2.0**-20
    return s2 if 0.0 <= s2 < h and s2 != s else None


def _chain_step(b: np.ndarray, g: np.ndarray, P_lo: np.ndarray, lam: np.ndarray, logd: np.ndarray, theta: float,
                h: float) -> np.ndarray:
    """One linearised solve of λ_k(b_k, b_{k+1}) = g_k for every cell k (a float choice of boundaries).

    ∂λ_k/∂b_k = (p(b_k)/P_k)(e^{λ_k − b_k} − 1) =: a_k and ∂λ_k/∂b_{k+1} = (p(b_{k+1})/P_k)(1 − e^{λ_k − b_{k+1}}) =: c_k
    (λ = log P′/Q′ of the cell, Q′-density p·e^{−l}), both about 1/2. The averaged step of :func:`_lower_fitted`
    cannot remove a residual that alternates from cell to cell (its correction averages it away; measured: ~0.002h
    left, which T compositions turn into a shift of ~T·0.002h); the chain a_k x_k + c_k x_{k+1} = −β_k is instead
    solved from the heaviest tilted cell outwards (one free boundary, chosen for the least weighted move)."""
    n1 = len(g)
    beta = np.nan_to_num(lam - g, nan=0.0, posinf=0.0, neginf=0.0)
    ok, A, C = _partials(b, P_lo, lam, logd)
    with np.errstate(all="ignore"):
        good = ok & (A > 1e-3) & (C > 1e-3)
        lw = np.where(ok, P_lo + theta * g, -np.inf)
        if not np.any(good):
            return b
        w = np.exp(lw - np.max(lw[good]))
        w = np.where(np.isfinite(w), w, 0.0)
        i = int(np.argmax(np.where(good, w, -1.0)))
        # x_{k+1} = α_k x_k + γ_k upwards from boundary i, x_k = β′_k x_{k+1} + δ_k downwards; x_i free: x = u·x_i + v
        u, v = np.zeros(n1 + 1), np.zeros(n1 + 1)
        u[i] = 1.0
        al, ga = np.where(good, -A / C, 0.0), np.where(good, -beta / C, 0.0)
        uf = np.cumprod(al[i:])
        u[i + 1:] = uf
        v[i + 1:] = uf * np.cumsum(np.where(uf != 0, ga[i:] / uf, 0.0))
        if i > 0:
            be, de = np.where(good, -C / A, 0.0), np.where(good, -beta / A, 0.0)
            ub = np.cumprod(be[:i][::-1])
            u[:i] = ub[::-1]
            v[:i] = (ub * np.cumsum(np.where(ub != 0, de[:i][::-1] / ub, 0.0)))[::-1]
        bad = ~np.isfinite(u) | ~np.isfinite(v) | (np.abs(u) > 1e50)
        u, v = np.where(bad, 0.0, u), np.where(bad, 0.0, v)
        wb = np.zeros(n1 + 1)
        wb[:-1] += w
        wb[1:] += w
        x = u * (-float((wb * u * v).sum()) / max(float((wb * u * u).sum()), 1e-300)) + v
    width = np.diff(b)
    lim = 0.2 * np.minimum(np.r_[width[0], width], np.r_[width, width[-1]])
    nb = b + np.clip(np.nan_to_num(x), -lim, lim)
    return nb if np.all(np.diff(nb) > 0) else b


def _assemble(h: float, theta: float, j_lo: int, n: int, s: float, k: np.ndarray, keep: np.ndarray, lv: np.ndarray,
              P_lo: np.ndarray, moved: np.ndarray) -> tuple[GridMeasure, float]:
    """The lower measure from its placed cells, and the tilted-mass-weighted mean distance the losses moved
    (the caller keeps the end that moved them least: any of them is sound)."""
    if not np.any(keep):
        return normalise(GridMeasure(h, theta, j_lo, s, np.zeros(n + 1), 0, False, 0.0, 0.0)), math.inf
    e_l = math.floor(float(lv[keep].max()) / LN2) + 2
    vals = _exp_scaled(lv, e_l, False)
    lo_v = np.bincount(k[keep], weights=vals[keep], minlength=n + 1) * (1 - 2 * U)
    wsum = float(vals[keep].sum())
    cost = dot_unthreaded(vals[keep], np.nan_to_num(moved[keep], nan=h)) / wsum if wsum > 0 else math.inf
    return normalise(GridMeasure(h, theta, j_lo, s, lo_v, e_l, False, 0.0, 0.0)), cost


def _lower_shifted(law: LossLaw, mu: float, r: float, h: float, theta: float, j_lo: int, n: int) -> tuple[GridMeasure, float]:
    """Lower end on the plain cells (l_i, l_{i+1}], each merged (its loss λ_i) and moved down onto the shifted
    grid {l + s}: to l_i + s if λ_i − l_i >= s is certain, else to l_{i−1} + s; s minimises the tilted-mass
    weighted distance moved (:func:`_choose_shift`)."""
    pts = (j_lo + np.arange(n + 1, dtype=np.float64)) * h
    li = pts[:-1]
    with np.errstate(invalid="ignore", over="ignore"):
        P_lo, _, _, Q_hi, lam, elam = _log_cells(law, pts, mu, r, _LazyArb(pts))
        rnd = elam + 2 * U * (np.abs(lam) + np.abs(li))
        # d < 0 by rounding only: λ > l holds for every cell, so d = 0 is a valid lower bound
        d = np.clip(np.nan_to_num(lam - li - rnd, nan=0.0, neginf=0.0, posinf=0.0), 0.0, h)
    ok = np.isfinite(P_lo) & np.isfinite(Q_hi)
    lw = np.where(ok, P_lo + theta * li, -np.inf)
    wts = np.exp(lw - lw.max()) if np.any(ok) else np.zeros(n)
    s = _choose_shift(np.where(ok, d, 0.0), wts, h)
    k = np.arange(n) - (d < s)
    keep = ok & (k >= 0)
    pos = (j_lo + k) * h + s
    lv = P_lo + theta * pos
    lv = np.where(keep, lv - 8 * U * (np.abs(np.nan_to_num(P_lo)) + np.abs(theta * pos) + 1), -np.inf)
    return _assemble(h, theta, j_lo, n, s, k, keep, lv, P_lo, np.where(d >= s, d - s, d - s + h))


class _LazyArb:
    """arb grid points, made only for the few cells that fall back to the arb path."""

    def __init__(self, pts: np.ndarray) -> None:
        self.pts = pts

    def __getitem__(self, i: int) -> Any:
        from flint import arb

        return arb(float(self.pts[i]))


def _log_cell_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log ∫_a^b φ in floats (a hint for the window, not a bound)."""
    from scipy.special import log_ndtr

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        right = (a + b) > 0
        la = np.where(right, log_ndtr(-a), log_ndtr(b))
        lb = np.where(right, log_ndtr(-b), log_ndtr(a))
        return la + np.log1p(-np.exp(lb - la))


def gauss_window(law: LossLaw, theta: float, lo: float, hi: float, cells: int, bits: int) -> tuple[float, float] | None:
    """The loss range holding the tilted P′-mass above 2^-bits of the peak coarse cell (floats: a hint;
    the mass outside the window is bounded rigorously by the discretisation)."""
    mu = float(law.base.mu.mid())
    r = 1.0 if law.r == 1 else float(law.r.mid())
    pts = np.linspace(lo, hi, cells + 1)
    remove = law.direction == "remove"
    y, _ = _y_of_loss(pts if remove else -pts, mu, r)
    a, b = (y[:-1], y[1:]) if remove else (y[1:], y[:-1])
    lq, lp = _log_cell_float(a, b), _log_cell_float(a - mu, b - mu)
    with np.errstate(invalid="ignore"):
        mix = np.logaddexp(math.log(r) + lp, math.log1p(-r) + lq) if r < 1 else lp
    lpp = mix if remove else lq
    t = np.nan_to_num(lpp + theta * pts[1:], nan=-np.inf)
    top = t.max()
    if not np.isfinite(top):
        return None
    keep = np.nonzero(t >= top - bits * LN2)[0]
    return float(pts[max(int(keep[0]) - 1, 0)]), float(pts[min(int(keep[-1]) + 2, cells)])
