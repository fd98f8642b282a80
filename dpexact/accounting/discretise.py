"""Discretise one direction of one event onto the loss grid {j·h}: the upper (pessimistic) and lower
(optimistic) :class:`~.grid_measure.GridMeasure`, with every mass an arb ball rounded outward.

Cells are C_j = (j·h, (j+1)·h]. With (P_j, Q_j) the P′- and Q′-masses of the outputs whose loss
falls in C_j (continuous part and atoms, :mod:`.loss_laws`):

* **upper** — *connect the dots* (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022): split each
  cell's outputs between the two grid points, keeping the Q′-mass and the P′-mass (a mean-preserving
  spread of dP′/dQ′ under Q′). The split pair dominates the true pair (the true one is its
  post-processing: merge the two points back), so its δ(ε) is an upper bound for every ε and
  every composition. Point j gets P′-mass (e^{(j+1)h}Q_j − P_j)/(e^h − 1) and point j+1 gets
  e^h(P_j − e^{jh}Q_j)/(e^h − 1). The error is of second order in h.
* **lower** — merge each cell into one output (a post-processing: its pair is dominated), whose loss
  λ_j = log(P_j/Q_j) lies in C_j; then move it down onto the shifted grid {i·h + s}: to
  j·h + s if λ_j >= j·h + s, else to (j−1)·h + s (lowering a loss lowers (1), :mod:`.grid_measure`).
  The shift s ∈ [0, h) is chosen to minimise the tilted mass-weighted distance moved, so in the bulk
  the loss moves by O(h²) instead of O(h).

Outside the window [J_lo·h, J_hi·h] the upper end keeps the tilted mass removed (``dropped``: P′ below
the window moved to its bottom would not be bounded by a small number, so it is dropped with the
Chernoff bound of :mod:`.grid_measure`); the lower end drops it. P′-mass at +∞ (Q′ = 0) and the cut
tail of truncated discrete laws are returned separately as (lower, upper) raw masses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers.backends import ball_context
from ..numbers.dot import dot_unthreaded
from .grid_measure import GridMeasure, normalise
from .loss_laws import GaussianBase, LaplaceBase, LossLaw

__all__ = ["Discretised", "discretise", "step_ok", "window", "COARSE_CELLS"]

#: cells of the coarse scan that finds the window of a continuous law
COARSE_CELLS = 2048
#: tilted mass outside the window, relative to the peak cell (upper: bounded and kept in ``dropped``)
WINDOW_BITS = 80
PREC = 128
#: the vectorised Gaussian path (:mod:`.discretise_gauss`); False forces the arb path (tests compare them)
FAST = True


@dataclass(frozen=True)
class Discretised:
    """The two ends of one direction of one event on one grid, and its mass at +∞ (raw P′-mass)."""

    upper: GridMeasure
    lower: GridMeasure
    inf_lower: float
    inf_upper: float
    cells: int


def _down(x: Any) -> float:
    return max(0.0, math.nextafter(float(x.lower()), -math.inf))


def _upf(x: Any) -> float:
    return math.nextafter(float(x.upper()), math.inf)


def _hint(law: LossLaw, theta: float) -> tuple[float, float]:
    lo, hi = law.loss_range()
    if isinstance(law.base, GaussianBase):
        mu = float(law.base.mu.mid())
        c = mu * mu / 2 + theta * mu * mu
        a, b = c - 40 * mu - 1, c + 40 * mu + 1
        if law.direction == "add" and law.r != 1:
            # L = −g(L₀) <= −log(1 − r): a tilt e^{θL} moves the mass up against that bound (it saturates there),
            # never below the untilted mass's range; so the window spans [−(untilted top of L₀), sup L] whatever
            # θ. (Mirroring the tilted Gaussian's range, −(μ²/2 + θμ² ± 40μ), put the whole range below the
            # support's top for θ >~ 80: measured σ = 2, q = 1/1000, θ = 144, h = 2^-13: window top 2h against
            # the support's 8.2h, the cut mass 4.6× the kept one)
            a, b = -(mu * mu / 2 + 40 * mu + 1), hi
        lo, hi = max(lo, a), min(hi, b)
    return lo, hi


def window(law: LossLaw, h: float, theta: float) -> tuple[int, int]:
    """Grid indices [J_lo, J_hi] holding the tilted mass of ``law`` (coarse scan in arb; outside it the
    tilted mass is below 2^-WINDOW_BITS of the peak coarse cell, and is bounded rigorously by the caller)."""
    from flint import arb

    js: list[int] = []
    atoms = law.atoms()
    for loss, _, _ in atoms:
        if loss is not None:
            x = float(loss.mid())
            js += [math.floor(x / h) - 1, math.ceil(x / h) + 1]
    if law.continuous and isinstance(law.base, GaussianBase):
        lo, hi = _hint(law, theta)
        rng = _gauss_range(law, theta, lo, hi)
        if rng is not None:
            js += [math.floor(rng[0] / h) - 1, math.ceil(rng[1] / h) + 1]
    elif law.continuous:
        lo, hi = _hint(law, theta)
        if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
            w = (hi - lo) / COARSE_CELLS
            pts = [lo + i * w for i in range(COARSE_CELLS + 1)]
            tilted = []
            with ball_context(PREC):
                for a, b in zip(pts[:-1], pts[1:]):
                    p, _ = law.cell(arb(a), arb(b))
                    tilted.append(float(p.mid()) * math.exp(min(theta * b, 700.0)) if float(p.mid()) > 0 else 0.0)
            t = np.array(tilted)
            top = t.max()
            if top > 0:
                keep = np.nonzero(t >= top * 2.0**-WINDOW_BITS)[0]
                a = pts[max(int(keep[0]) - 1, 0)]
                b = pts[min(int(keep[-1]) + 2, COARSE_CELLS)]
                js += [math.floor(a / h) - 1, math.ceil(b / h) + 1]
        if isinstance(law.base, LaplaceBase):
            lo, hi = law.loss_range()
            js += [math.floor(lo / h) - 1, math.ceil(hi / h) + 1]
    if not js:
        js = [-1, 1]
    j_lo, j_hi = min(js), max(js)
    if law.continuous and isinstance(law.base, GaussianBase):
        j_hi = max(j_hi, 1)  # the tilted tail bound needs a window top >= 0
    return j_lo, j_hi


_RANGES: dict = {}


def _gauss_range(law: LossLaw, theta: float, lo: float, hi: float) -> tuple[float, float] | None:
    """The Gaussian window's loss range (a float hint, cached per law and tilt: it does not depend on h)."""
    from .discretise_gauss import gauss_window

    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        return None
    key = (id(law), theta, lo, hi)
    hit = _RANGES.get(key)
    if hit is not None and hit[0] is law:
        return hit[1]
    if len(_RANGES) > 256:
        _RANGES.clear()
    rng = gauss_window(law, theta, lo, hi, COARSE_CELLS, WINDOW_BITS)
    _RANGES[key] = (law, rng)
    return rng


def _choose_shift(d: np.ndarray, w: np.ndarray, h: float) -> float:
    """s ∈ [0, h) (a multiple of h/1024) minimising Σ w·(moved distance): d − s if d >= s, else d − s + h."""
    if len(d) == 0 or not np.any(w > 0):
        return 0.0
    q = h / 1024
    cands = np.unique(np.clip(np.floor(d / q) * q, 0, h - q))
    if len(cands) > 512:
        cands = np.quantile(cands, np.linspace(0, 1, 512))
        cands = np.unique(np.floor(cands / q) * q)
    best, best_cost = 0.0, math.inf
    for s in cands:
        moved = np.where(d >= s, d - s, d - s + h)
        cost = dot_unthreaded(w, moved)
        if cost < best_cost:
            best, best_cost = float(s), cost
    return best


#: the largest odd factor m of a grid step h = m·2^-k. The Gaussian path (:mod:`.discretise_gauss`, :mod:`.fitted_lower`)
#: compares certified losses with its grid points j·h and shifted points j·h + s (s a multiple of h·2^-20) and so needs
#: them exact floats: (j·2^20 + i)·m·2^-(k+20) is exact while |x| < 2^(33−k), the same range in k as a power of two's
#: (the caller keeps non-power-of-two steps >= 2^-19: k <= 22, exact for |x| < 2^11, past any single law's window);
#: every ⌊x/h⌋ there picks a window with a cell to spare, a choice. The arb path of this module reads a loss's cell as
#: ⌊x/h⌋ and keeps to powers of two
STEP_ODD_MAX = 15


def step_ok(h: float) -> bool:
    """h > 0 is m·2^k with m odd <= :data:`STEP_ODD_MAX` (a mantissa of at most 4 significant bits)."""
    if not (h > 0 and math.isfinite(h)):
        return False
    f = math.frexp(h)[0] * 16  # in [8, 16): an integer when the mantissa has <= 4 bits
    return f == math.floor(f)


def discretise(law: LossLaw, h: float, theta: float, win: tuple[int, int] | None = None) -> Discretised:
    """Both ends of ``law`` on the grid of step ``h`` (m·2^k, :func:`step_ok`; a power of two off the Gaussian path),
    tilted by ``theta`` (module docstring).

    Only cells holding mass are visited (all cells of the window for a continuous law, the atoms' cells
    otherwise), so a finite law costs its number of atoms whatever h is."""
    from flint import arb

    gauss = law.continuous and isinstance(law.base, GaussianBase) and FAST
    if not (step_ok(h) and (gauss or math.frexp(h)[0] == 0.5)):
        raise ValueError(f"grid step must be m·2^k with m odd <= {STEP_ODD_MAX} (a power of two off the Gaussian "
                         f"path), got {h}")
    j_lo, j_hi = win if win is not None else window(law, h, theta)
    n = j_hi - j_lo
    if gauss:
        from .discretise_gauss import discretise_gauss

        up, lo = discretise_gauss(law, h, theta, (j_lo, j_hi))
        return Discretised(up, lo, 0.0, 0.0, n)
    with ball_context(PREC):
        H, TH = arb(h), arb(theta)
        pts: dict[int, Any] = {}
        tilts: dict[int, Any] = {}

        def pt(i: int) -> Any:
            if i not in pts:
                pts[i] = arb((j_lo + i) * h)
            return pts[i]

        def tilt(i: int) -> Any:
            if i not in tilts:
                tilts[i] = (TH * pt(i)).exp()
            return tilts[i]

        P: dict[int, Any] = {}
        Q: dict[int, Any] = {}
        if law.continuous:
            for i, (pm, qm) in enumerate(law.cells([pt(i) for i in range(n + 1)])):
                P[i], Q[i] = pm, qm
        inf_lo, inf_hi = arb(0), law.cut_mass()
        up_extra: list[tuple[int, Any]] = []  # (cell-relative grid index, P′-mass) of atoms placed conservatively
        lo_extra: list[tuple[int, Any]] = []
        for loss, p, q in law.atoms():
            if loss is None:
                inf_lo += p
                inf_hi += p
                continue
            j = math.floor(float(loss.mid()) / h)  # candidate cell (j·h, (j+1)·h]
            for jj in (j - 1, j, j + 1):
                if loss > arb(jj * h) and loss <= arb((jj + 1) * h):
                    if not j_lo <= jj < j_hi:
                        raise ArithmeticError("an atom fell outside its window")
                    i = jj - j_lo
                    P[i] = P.get(i, arb(0)) + p
                    Q[i] = Q.get(i, arb(0)) + q
                    break
            else:  # the ball holds a grid point: place each end conservatively
                k = round(float(loss.mid()) / h) - j_lo
                up_extra.append((k + 1, p))
                lo_extra.append((k - 1, p))
        D = H.exp() - 1
        eh = H.exp()
        # upper: connect the dots
        up: dict[int, Any] = {}
        for i in sorted(P):
            if P[i] == 0 and Q[i] == 0:
                continue
            e_lo, e_hi = pt(i).exp(), pt(i + 1).exp()
            up[i] = up.get(i, arb(0)) + (e_hi * Q[i] - P[i]) / D * tilt(i)
            up[i + 1] = up.get(i + 1, arb(0)) + eh * (P[i] - e_lo * Q[i]) / D * tilt(i + 1)
        for k, p in up_extra:
            up[k] = up.get(k, arb(0)) + p * tilt(k)
        dropped = raw = arb(0)
        if law.continuous:
            below, above = law.mass_below(pt(0)), law.tilted_above(pt(n), TH)
            dropped = (TH * pt(0)).exp() * below + above
            raw = below + above * (-TH * pt(n)).exp()  # on L > l: e^{θL} >= e^{θl}
        # lower: merge, then the shift trick
        lam = []
        for i in sorted(P):
            if P[i] > 0 and Q[i] > 0:
                lam.append((i, (P[i] / Q[i]).log() - pt(i), P[i]))
        d = np.array([float(x.lower()) for _, x, _ in lam])
        lw = np.array([float(p.mid().log()) + theta * ((j_lo + i) * h) for i, _, p in lam]) if lam else np.zeros(0)
        wts = np.exp(lw - lw.max()) if len(lw) else lw
        s = _choose_shift(d, wts, h)
        S = arb(s)
        lo: dict[int, Any] = {}
        for i, dd, p in lam:
            k = i if dd >= S else i - 1
            if k < 0:
                continue  # below the window: dropped (a lower end may drop mass)
            lo[k] = lo.get(k, arb(0)) + p * (TH * (pt(k) + S)).exp()
        for k, p in lo_extra:
            if 0 <= k <= n:
                lo[k] = lo.get(k, arb(0)) + p * (TH * (pt(k) + S)).exp()
        upper = _to_measure(up, dropped, h, theta, j_lo, n, 0.0, True, raw)
        lower = _to_measure(lo, arb(0), h, theta, j_lo, n, s, False)
        return Discretised(upper, lower, _down(inf_lo), _upf(inf_hi), len(P))


def _log2(x: Any) -> float:
    """log₂|x| of an arb (−inf for 0), without going through a float that could overflow."""
    from flint import arb

    m = abs(x.mid())
    if m == 0:
        return -math.inf
    return float((m.log() / arb(2).log()).mid())


def _to_measure(vals: dict, dropped: Any, h: float, theta: float, j0: int, n: int, shift: float, upper: bool,
                raw: Any = 0) -> GridMeasure:
    """Entries 0..n, scaled by a power of two (exact) and rounded outward to floats; ``raw`` bounds the untilted
    mass of the ``dropped`` part."""
    from flint import arb

    logs = [_log2(v) for v in vals.values()] + ([_log2(dropped)] if upper and dropped != 0 else [])
    top = max(logs, default=-math.inf)
    if top == -math.inf:
        return GridMeasure(h, theta, j0, shift, np.zeros(1), 0, upper, 0.0, 0.0)
    e = math.floor(top) + 1
    f = arb(2) ** (-e)
    v = np.zeros(n + 1)
    for i, x in vals.items():
        v[i] = _upf(x * f) if upper else _down(x * f)
    dr = _upf(dropped * f) if upper and dropped != 0 else 0.0
    raw_f = _upf(raw) if upper and raw != 0 else 0.0
    return normalise(GridMeasure(h, theta, j0, shift, v, e, upper, dr, raw_f))
