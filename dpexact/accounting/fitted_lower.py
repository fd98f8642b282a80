"""The fitted lower end of a loss law on the grid: the outputs of loss cells (b_k, b_{k+1}] merged (a
post-processing), the boundaries fitted so that each merged cell's loss λ_k lands just above its grid point g_k,
and each cell's mass moved down to g_k (or g_{k−1} where λ_k >= g_k is not certain) — :func:`lower_fitted`.

The law enters through :class:`FitCells` (:mod:`.discretise_gauss` gives the Gaussian's): certified log-masses and
losses of cells decide where a mass goes, float estimates only steer the boundaries, so the end is sound for any
boundaries, and the steering only decides how tight it is (the tilted-mass-weighted mean distance the losses move).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from ..numbers.golden import golden_section
from .gauss_cells import U

__all__ = ["EDGE_AIM", "EDGE_FAR", "EDGE_GAIN", "EDGE_GOOD", "EDGE_MORE", "EDGE_SCAN", "EDGE_SCAN_STEPS", "EDGE_STEPS", "FIT_STEPS", "FitCells",
           "lower_fitted"]

#: linearised solves of the fitted lower end's boundaries after the first averaged step (:func:`_chain_step`;
#: 0: the averaged step only). A choice of tightness only: the end is sound for any boundaries
FIT_STEPS = 1
#: grid shifts tried for the end cells of the fitted lower end (:func:`_edge_shift`; 0: none)
EDGE_STEPS = 1
#: the first shift aims the end cell's λ EDGE_AIM·h above its grid point, each further one EDGE_AIM_DECAY times
#: closer: a shift computed near the solution is accurate (Newton), and the aim is what that cell's loss moves
EDGE_AIM = 1e-3
EDGE_AIM_DECAY = 1e-2
#: further shifts while the best placement's mean move is above EDGE_GOOD·h (measured σ = 0.5, q = 1/1000, the
#: remove direction's bulk at θ ≈ 2.1, h = 2^-13 / 2^-15 / 2^-16: 1.4e-4·h / 2.0e-4·h / 1.7e-4·h after one shift (the
#: aim times the end cell's share of the tilted mass), 2.7e-7·h / 1.6e-7·h / 1.1e-7·h after at most three more;
#: T = 1000 compositions turn a move m into a lower end about T·m·h too low)
EDGE_MORE = 3
EDGE_GOOD = 1e-6
#: a further shift that lands within EDGE_FAR× of the best mean move without cutting it EDGE_GAIN× ends the further
#: shifts (the best kept): where the end cell has no shift that lands it on its grid point the steps wander near the
#: least residual (measured σ = 1, q = 1/1000, the split's tail window, ~500k cells: 3.0e-5·h → 4.68e-6·h → 7.30e-6·h →
#: 4.66e-6·h, each step a full placement, ~0.4 CPU-s; σ = 0.8 bulk at 2^-17, θ = 6.46: 2.2e-5·h → 2.4e-5·h → 9.8e-5·h →
#: …). A step far worse is an overshoot that the next one, re-aimed from it, corrects (σ = 0.5 bulk, θ = 2.1371, 2^-15
#: / 2^-16: 2.0e-4·h → 0.22·h → 1.6e-7·h and 1.7e-4·h → 0.14·h → 1.1e-7·h). A choice of cost only: every placement is
#: sound
EDGE_GAIN = 2.0
EDGE_FAR = 100.0
#: grid shifts sampled (equispaced in [0, h)) when the end-cell shifts left a mean move above EDGE_GOOD·h and the
#: losses' range ends inside a clipped window (the split's bulk; on the one-grid rows the scan moved the widths both
#: ways by a few % for 0.05-1.2 CPU-s a row), then golden-section steps on the best sample's neighbourhood (0: none). The
#: end cell at the support's end may have no shift that lands it on its grid point: its residual, as a function of
#: the shift, keeps one sign (measured σ = 0.8, q = 1/1000 bulk, θ = 6.46: a root at 2^-15 and 2^-16, none at 2^-17,
#: 2^-18), and the Newton steps then wander (2^-17: 2.2e-5·h kept). A move cannot be passed along the chain more
#: cheaply (each boundary it crosses moves the same mass the other way), so the least residual over the shift is the
#: best this end does: 2^-17 / 2^-18 8.1e-6·h / 1.5e-6·h (σ = 1, θ = 10 at 2^-15: 2.0e-4·h → 3.3e-5·h)
EDGE_SCAN = 6
EDGE_SCAN_STEPS = 4


class FitCells(Protocol):
    """The law's cells (loss boundaries ``bb``, cell k = (bb[k], bb[k+1]]) as the fit reads them."""

    def support(self) -> tuple[float, float]:
        """(inf, sup) of the losses (floats, may be infinite): a cell whose grid point lies outside cannot reach it."""

    def certified(self, bb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lower bound of log P′, λ, an error bound of λ) of every cell: bounds (NaN / inf where unknown)."""

    def estimates(self, bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log P′, λ) of every cell in floats — not bounds (NaN where a cell has no mass)."""

    def log_density(self, l: np.ndarray) -> np.ndarray:
        """log of the P′-density of the loss at l (a float estimate; −inf outside the support)."""

    def assemble(self, h: float, theta: float, j_lo: int, n: int, s: float, k: np.ndarray, keep: np.ndarray,
                 lv: np.ndarray, P_lo: np.ndarray, moved: np.ndarray) -> tuple[Any, float]:
        """The lower measure from the placed cells and the weighted mean move (:func:`.discretise_gauss._assemble`)."""


def lower_fitted(cells: FitCells, h: float, theta: float, j_lo: int, n: int,
                 clip: bool = False) -> tuple[Any, float]:
    """Lower end: merge the outputs of loss cells (b_k, b_{k+1}] fitted around the grid points g_k = (j_lo + k)h
    (a partition of the outputs: a post-processing), each cell's loss λ_k moved down to g_k if λ_k >= g_k
    is certain, else to g_{k−1} (:mod:`.grid_measure`: lowering losses lowers δ).

    The boundaries only decide how tight the end is, never whether it is sound: starting from the centred
    cells b_k = g_k − h/2, a Newton-like step moves each boundary by the mean of its neighbours' offsets
    β = λ − g (a cell's λ follows its boundaries about one for one); then the chain of cell equations
    λ_k(b_k, b_{k+1}) = g_k is solved, linearised (:func:`_chain_step`), and each boundary is raised by twice the
    larger shortfall (g − λ plus its error bound) of its two cells, which lifts each λ_k just above g_k. An end cell
    (an outer boundary with no effect) keeps its residual; the grid shift s is then re-aimed at it, Newton steps on s
    (:func:`_edge_shift`). Cells whose grid point lies outside the losses' range are emptied throughout
    (:func:`_off_support`). So the losses move by about the residual instead of O(h) (measured on the σ = 0.5,
    q = 1/1000 bulk at 2^-13 .. 2^-16: ~1e-7·h, against 3e-3·h to 3e-2·h with the averaged step alone). The steps,
    the chain solve and the shifts read float estimates of the cells (``cells.estimates``); the margins and the placement read the certified masses
    and λ ± e_λ (``cells.certified``): a loss goes to g_k only if its certified lower bound is at or above g_k.

    ``clip``: the outer boundaries are kept within the window [j_lo·h, (j_lo + n)·h] (a part of a split law must
    not reach into the neighbouring part's outputs); the cells are then a partition of the window's outputs."""
    g = (j_lo + np.arange(n + 1, dtype=np.float64)) * h
    ends = (float(g[0]), float(g[-1]))
    b = (j_lo + np.arange(n + 2, dtype=np.float64) - 0.5) * h

    def offsets(bb: np.ndarray) -> tuple[np.ndarray, ...]:
        """(P′ lower bound, λ, its error bound) of the cells: certified."""
        return cells.certified(bb)

    def estimates(bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log P′, λ) in floats, not bounds: enough to move boundaries, at about half the cost."""
        return cells.estimates(bb)

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
    lo_l, hi_l = cells.support()

    def sup(bb: np.ndarray, gg: np.ndarray) -> np.ndarray:
        return _off_support(bb, gg, lo_l, hi_l, h)

    def step(bb: np.ndarray, beta: np.ndarray) -> np.ndarray:
        beta = np.nan_to_num(beta, nan=0.0, posinf=0.0, neginf=0.0)
        corr = np.empty(n + 2)
        corr[1:-1] = (beta[:-1] + beta[1:]) / 2
        corr[0], corr[-1] = beta[0], beta[-1]
        nb = bb - np.clip(corr, -h / 4, h / 4)
        return nb if np.all(np.diff(nb) > 0) else bb

    def clipped(bb: np.ndarray) -> np.ndarray:
        """The cells cover the window exactly: boundaries past an end collapse onto it (empty cells)."""
        if not clip:
            return bb
        bb = np.clip(bb, ends[0], ends[1])
        bb[0], bb[-1] = ends
        return bb

    def fit(s: float, warm: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """``warm``: solved boundaries for another shift, moved with the grid (one linearised solve then suffices)."""
        g = g0 + s
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # divide: empty clipped cells (log 0)
            if warm is None:
                b = sup(b0 + s, g)
                _, lam = estimates(b)
                b = sup(step(b, lam - g), g)
            else:
                b = sup(warm, g)
            for _ in range(FIT_STEPS):  # solve λ_k(b_k, b_{k+1}) = g_k (linearised)
                P, lam = estimates(b)
                b = sup(_chain_step(b, g, P, lam, cells.log_density(b), theta, h), g)
            solved = b
            # the margins from certified λ and e_λ: with estimates (e_λ from elsewhere) a cell's lift is off by its
            # e_λ's error, which moves its loss by as much (measured: ~1e-8 of δ's lower end after T = 1000)
            P_lo, lam, elam = offsets(b)
            b = sup(_lifted(b, g, lam, elam, h), g)
            b = clipped(b)
            P_lo, lam, elam = offsets(b)
        return g, b, P_lo, lam, elam, solved

    def place(s: float, warm: np.ndarray | None = None) -> tuple[tuple[Any, float], np.ndarray, np.ndarray]:
        g, _, P_lo, lam, elam, solved = fit(s, warm)
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
        return (cells.assemble(h, theta, j_lo - off, n + off, s, k + off, keep, lv, P_lo, np.where(keep, lam - pos, h)),
                g, solved)

    best, g, solved = place(s)
    # the chain is solved but its end cells have an inert outer boundary (a hard end of the support, or a clipped
    # window's end): their residual stays and the margins pass it on. Shift the grid so that the heavier end
    # cell's λ sits on its grid point (β moves by (c − 1)·Δs there, c = ∂λ/∂b of its inner boundary) and keep the
    # cheapest placement (all sound). The shift is read from the solved (and clipped) boundaries, not the lifted ones:
    # the next placement starts from the solved ones moved with the grid and lifts them again, so a shift aimed at the
    # lifted residual (a fraction of the solved one) is too short (measured: 2^-16's end cell 0.028·h short before the lift,
    # shifts of 0.01·h, 0.008·h, ... and a mean move still 0.14·h after four)
    for i in range(EDGE_STEPS + (EDGE_MORE if EDGE_STEPS else 0)):  # EDGE_STEPS = 0: no shift at all
        if i >= EDGE_STEPS and best[1] <= EDGE_GOOD * h:  # the further steps only where the first left a large move
            break
        with np.errstate(all="ignore"):
            bs = clipped(solved)
            P_s, lam_s = estimates(bs)
        s2 = _edge_shift(bs, g, P_s, lam_s, cells.log_density(bs), theta, h, s, EDGE_AIM * EDGE_AIM_DECAY**i)
        if s2 is None:
            break
        warm = solved + (s2 - s)
        cand, g, solved = place(s2, warm if np.all(np.diff(warm) > 0) else None)
        s = s2
        wander = best[1] <= cand[1] * EDGE_GAIN and cand[1] < best[1] * EDGE_FAR
        if cand[1] < best[1]:
            best = cand
        if i >= EDGE_STEPS and wander:  # a further step near the best that does not improve: the next ones wander too
            break
    inside = (math.isfinite(lo_l) and ends[0] < lo_l) or (math.isfinite(hi_l) and hi_l < ends[1])
    if EDGE_SCAN and EDGE_STEPS and clip and inside and best[1] > EDGE_GOOD * h:  # EDGE_STEPS = 0: no shift at all
        best = _scan_shift(lambda t: place(t)[0], h, best)
    return best


def _scan_shift(place: Any, h: float, best: tuple[Any, float]) -> tuple[Any, float]:
    """The cheapest placement among :data:`EDGE_SCAN` equispaced shifts and :data:`EDGE_SCAN_STEPS` golden-section
    steps around the best of them (the mean move is periodic in the shift, with one trough: measured), or ``best``
    when cheaper. A float choice: every placement is sound."""
    seen: dict[float, tuple[Any, float]] = {}

    def cost(s: float) -> float:
        s = math.floor((s % h) / h * 2.0**20) * h * 2.0**-20
        if s not in seen:
            seen[s] = place(s)
        return seen[s][1]

    pts = [j * h / EDGE_SCAN for j in range(EDGE_SCAN)]
    vals = [cost(p) for p in pts]
    j = int(np.argmin(vals))
    if vals[j] < best[1]:  # refine only where the samples beat the Newton steps
        golden_section(cost, pts[j] - h / EDGE_SCAN, pts[j] + h / EDGE_SCAN, EDGE_SCAN_STEPS - 2)
    return min([best] + list(seen.values()), key=lambda v: v[1])


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


def _off_support(b: np.ndarray, g: np.ndarray, lo: float, hi: float, h: float) -> np.ndarray:
    """Boundaries with the cells whose grid point lies outside the losses' range [lo, hi] emptied: such a cell's λ
    cannot reach its grid point, and a cell holding the support's end below its own grid point (g_k < lo < b_{k+1})
    has no boundary that lifts it — its mass would go a whole step down, and the end shift aims at a target it cannot
    reach (measured: σ = 0.5, q = 1/1000 at 2^-15, mean move 1.4e-2·h). Its upper boundary goes just below lo, so
    the next cell becomes the end cell. A float choice: any boundaries are sound."""
    pad = h * 2.0**-10
    nb = b.copy()
    if math.isfinite(lo):
        below = np.nonzero(g < lo)[0]
        if len(below):
            k = int(below[-1]) + 2  # boundaries 0 .. k − 1 end at or below lo − pad, strictly increasing
            nb[:k] = np.minimum(nb[:k], lo - pad * (k - np.arange(k)))
    if math.isfinite(hi):
        above = np.nonzero(g > hi)[0]
        if len(above):
            k = int(above[0])  # boundaries k .. start at or above hi + pad
            nb[k:] = np.maximum(nb[k:], hi + pad * (1 + np.arange(len(nb) - k)))
    return nb if np.all(np.diff(nb) > 0) else b


def _partials(b: np.ndarray, P_lo: np.ndarray, lam: np.ndarray, logd: np.ndarray) -> tuple[np.ndarray, ...]:
    """(finite, ∂λ_k/∂b_k, ∂λ_k/∂b_{k+1}) of every cell (:func:`_chain_step`)."""
    with np.errstate(all="ignore"):
        ok = np.isfinite(P_lo) & np.isfinite(lam)  # a boundary outside the support (density 0): its partial is 0
        A = np.where(ok, np.exp(logd[:-1] - P_lo) * np.expm1(lam - b[:-1]), 0.0)
        C = np.where(ok, -np.exp(logd[1:] - P_lo) * np.expm1(lam - b[1:]), 0.0)
    return ok, np.nan_to_num(A), np.nan_to_num(C)


def _edge_shift(b: np.ndarray, g: np.ndarray, P_lo: np.ndarray, lam: np.ndarray, logd: np.ndarray, theta: float,
                h: float, s: float, aim: float = EDGE_AIM) -> float | None:
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
                best = (cost, (beta - aim * h) / (1.0 - float(d[k])))
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
