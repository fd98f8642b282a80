"""The (Poisson-subsampled) Gaussian on the loss grid in vectorised floats, every mass bounded: the same
two ends as :func:`.discretise.discretise` (connect-the-dots upper, merged-and-shifted or fitted lower — the fit
itself in :mod:`.fitted_lower`, fed this law's cells), computed from :mod:`.gauss_cells` instead of one arb erfc per
boundary (~1 µs a cell instead of ~40 µs).

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
from .fitted_lower import lower_fitted
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
#: cells per block of :func:`_log_cells` (its per-cell temporaries stay in cache)
CELLS_BLOCK = 16384
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


def _y_of_loss(l: np.ndarray, mu: float, r: float, err: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """y(l) and an absolute error bound; −inf where the preimage is empty (error then inf). ``err`` False: y only
    (the same floats; the estimates need no bound, and it is ~half the work)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if r >= 1:
            G = l.copy()
            eG = np.zeros_like(l) if err else None
        else:
            E = np.expm1(l)
            t = E + r
            lt = np.log(np.where(t > 0, t, 1.0))
            lq = math.log(r)
            G = np.where(t > 0, lt - lq, -np.inf)
            if err:
                eta = (4 * U * np.abs(E) + U * np.abs(t)) / t
                good = (t > 0) & (eta < 0.25)
                eG = np.where(good, 2 * eta + 4 * U * np.abs(lt) + 4 * U * abs(lq) + U * np.abs(G), np.inf)
        num = G + mu * mu / 2
        y = num / mu
        if not err:
            return y, None
        ey = ((eG + U * mu * mu + U * np.abs(num)) / mu + U * np.abs(y)) * 1.01
    return y, ey


def _log_cells(law: LossLaw, pts: np.ndarray, mu: float, r: float, arb_pts: Any) -> tuple[np.ndarray, ...]:
    """(P′lo, P′hi, Q′lo, Q′hi, λ, e_λ): log bounds of the direction's masses on the loss cells
    (pts[i], pts[i+1]], and the cell's loss λ = log(P′/Q′) within ±e_λ (from the likelihood ratio ρ of the
    base cell, whose errors largely cancel: :func:`.gauss_cells.log_gauss_cells_ratio`)."""
    remove = law.direction == "remove"
    n = len(pts) - 1
    if n > CELLS_BLOCK:  # per-point and per-cell operations only: the same floats, in cache (500k cells: 115 → 100 ms)
        parts = [_float_cells(remove, pts[i:i + CELLS_BLOCK + 1], mu, r) for i in range(0, n, CELLS_BLOCK)]
        *out, bad = (np.concatenate(p) for p in zip(*parts))
    else:
        *out, bad = _float_cells(remove, pts, mu, r)
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


def _float_cells(remove: bool, pts: np.ndarray, mu: float, r: float) -> tuple[np.ndarray, ...]:
    """:func:`_log_cells` in floats, and the mask of the cells it sends to the arb path."""
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
        return mlo, mhi, qlo, qhi, g, eg, bad
    return qlo, qhi, mlo, mhi, -g, eg, bad


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
    n = len(pts) - 1
    if n > CELLS_BLOCK:  # as in :func:`_log_cells`: the same floats, in cache
        parts = [_estimate_cells(law, pts[i:i + CELLS_BLOCK + 1], mu, r) for i in range(0, n, CELLS_BLOCK)]
        lp, lam = (np.concatenate(p) for p in zip(*parts))
        return lp, lam
    y, _ = _y_of_loss(pts if remove else -pts, mu, r, err=False)
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
    pts = (j_lo + np.arange(n + 1, dtype=np.float64)) * h  # exact: h = m·2^-k (discretise.step_ok)
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
    """The fitted lower end (:func:`.fitted_lower.lower_fitted`) of the Gaussian ``law`` with float parameters μ, r."""
    return lower_fitted(_GaussFitCells(law, mu, r), h, theta, j_lo, n, clip)


class _GaussFitCells:
    """:class:`.fitted_lower.FitCells` of the Gaussian: certified cells from :func:`_log_cells`, estimates from
    :func:`_estimate_cells` (module globals read at each call)."""

    def __init__(self, law: LossLaw, mu: float, r: float) -> None:
        self.law, self.mu, self.r = law, mu, r

    def certified(self, bb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        P_lo, _, _, _, lam, elam = _log_cells(self.law, bb, self.mu, self.r, _LazyArb(bb))
        return P_lo, lam, elam

    def estimates(self, bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _estimate_cells(self.law, bb, self.mu, self.r)

    def support(self) -> tuple[float, float]:
        return self.law.loss_range()

    def log_density(self, l: np.ndarray) -> np.ndarray:
        return _log_loss_density(self.law, l, self.mu, self.r)

    def assemble(self, *args: Any) -> tuple[GridMeasure, float]:
        return _assemble(*args)


def _log_loss_density(law: LossLaw, l: np.ndarray, mu: float, r: float) -> np.ndarray:
    """log of the direction's P′-density of the loss at l (a float estimate for the fit's chain solve, never a bound):
    the density of y (P′ = rN(μ, 1) + (1 − r)N(0, 1) remove, N(0, 1) add) times dy/dl, y = y(±l)."""
    if len(l) > CELLS_BLOCK:  # per point: the same floats, in cache
        return np.concatenate([_log_loss_density(law, l[i:i + CELLS_BLOCK], mu, r)
                               for i in range(0, len(l), CELLS_BLOCK)])
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
