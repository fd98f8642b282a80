"""The grid route of :class:`~.accountant.Accountant`: choose the tilt, discretise every event in every
direction, compose, evaluate δ(ε) or invert it, and refine the grid until the interval is narrow enough.

* Tilt θ (:mod:`.grid_measure`): the saddle point of Chernoff's bound on the composed loss,
  θ* = argmin_{θ>=0} K(θ) − θε with K = Σ count·log E[e^{θL}] (for δ(ε)), or the θ minimising
  ε(θ) = (K(θ) − log δ)/θ (for ε(δ)); K is read from the discretised laws of the previous pass
  (two coarse passes, the second at the first one's θ).
* Refinement: the step h shrinks (by powers of two, :func:`_next_step`, landing on the step the width needs when
  that lies between two of them, :func:`.grid_cost.land_step`) while the relative width
  (upper − lower)/upper exceeds the tolerance and the next pass (its CPU predicted from the last passes,
  :func:`_predict`) fits the budget; a direction certified below the max's lower end is left out of the later
  passes (:func:`_settle`).
* ε(δ): bisection on floats, each end *certified* by the measures: δ_upper(ε_hi) <= δ and
  δ_lower(ε_lo) > δ, so ε_lo < ε(δ) <= ε_hi.
"""

from __future__ import annotations

import copy
import math
import time
from typing import Any

import numpy as np

from ..numbers.real import Real
from . import discretise as discretise_mod
from .delta_epsilon import Enclosure
from .discretise import discretise
from .event_laws import loss_laws
from .events import Event

# the step prediction lives in grid_cost; its names stay readable here (the schedule's tests read them)
from .grid_cost import (  # noqa: F401
    NEED_MARGIN,
    NEED_MARGIN_MEASURED,
    budget_check,
    end_shares,
    land_step,
    pass_estimate,
    past_ladder,
    split_estimate,
)
from .grid_cost import need_margin as _need_margin  # noqa: F401
from .grid_cost import need_order as _need_order
from .grid_measure import GridMeasure, convolve, delta_lower, delta_upper, power
from .law_tilt import (
    _bounded,
    _law_start,
    _law_tilted,
    _law_tilts,
    _round_theta,
    _theta_for_delta,
    _theta_for_eps,
)
from .loss_laws import GaussianBase
from .root_bracket import next_guess as _next_guess
from .root_bracket import solve as _solve

__all__ = ["grid_delta", "grid_epsilon"]

H_COARSE = 2.0**-7
H_START = 2.0**-10
H_MIN = 2.0**-24
#: largest tilt (beyond it the saddle point sits further than any δ >= 1e-300 needs)
THETA_MAX = 100.0
#: the same for a direction whose losses are bounded above (a subsampled law's add direction, L <= −log(1 − q)): its
#: windows stay bounded at any tilt, and its δ lives at the top of a narrow range (measured: σ = 2, q = 1/1000,
#: T = 100, δ = 1e-18, add: ε in [0.029, 0.43] at θ = 25, h = 2^-14, the right cut's FFT noise deciding)
THETA_BOUNDED = 2000.0
#: compose a subsampled Gaussian by the bulk/tail split (:mod:`.split_composition`); False: one grid for all
SPLIT = True
#: leave a direction out of the later passes once its interval lies below another's (:func:`_settle`)
SETTLE = True
#: a full split pass whose own interval is wider than the previous one's (at a coarser step) switches the later passes'
#: terms k >= 1 to shifted evaluation (:mod:`.shifted_terms`) whatever their tilts: the products' cut mass and the
#: terms k >= 2 at the term k = 1's tilt lose as h shrinks (measured σ = 0.5, q = 1/1000, T = 1000, δ = 1e-18: widths
#: 3.4e-3, 5.6e-3, 1.0e-2 at 2^-10, 2^-13, 2^-15 by products)
SHIFT_ON_WIDEN = True
#: a shifted pass's CPU in units of the product pass at the same step, at most (measured 2.8×: the row above at 2^-13,
#: 2.57 s by products, 7.31 s shifted)
SHIFTED_COST = 4.0
#: the first fine pass's CPU in units of the last coarse pass's, at least (measured 2-3× on the σ = 2, q = 1/1000
#: DP-SGD rows, whose whole budget is ~0.25 s)
FIRST_PASS = 2.5


def _laws(events: list[Event], directions: tuple[str, ...]) -> dict[str, list[tuple[Any, int]]]:
    out: dict[str, list] = {d: [] for d in directions}
    for e in events:
        if e.symmetric:  # H(P‖Q) = H(Q‖P): one law serves both directions
            law = loss_laws(e, ("remove",))["remove"]
            for d in directions:
                out[d].append((law, e.count))
        else:
            laws = loss_laws(e, directions)
            for d in directions:
                out[d].append((laws[d], e.count))
    return out


def _splittable(laws: dict[str, list]) -> bool:
    """Every direction is one subsampled Gaussian event composed more than once (the split route's case)."""
    return discretise_mod.FAST and all(
        len(items) == 1 and isinstance(items[0][0].base, GaussianBase) and items[0][0].r != 1 and items[0][1] >= 2
        for items in laws.values())


def _split_planned(items: list, h: float, theta: float) -> bool:
    from .split_composition import plan_split

    return plan_split(items[0][0], items[0][1], h, theta, 1e-20) is not None


class _Pass:
    """Composed upper/lower measures of every direction on one grid (h, θ).

    ``split``: (ε hint, δ hint, tolerance) — a direction that is one subsampled Gaussian composed T times is then
    composed by :mod:`.split_composition` (bulk on the grid h, heavy tail on a coarse grid, each term of the
    binomial expansion at its own tilt) when its cut falls inside the window. ``ends``: "lower" / "upper" computes
    that end only for the split directions (the other's δ is then the trivial 0 or 1: :func:`_passes` keeps the
    last pass's interval for it); the other directions always get both."""

    def __init__(self, laws: dict[str, list], h: float, theta: dict[str, float], cache: dict,
                 split: tuple[float, float, float] | None = None, ends: str = "both", shifted: bool = False) -> None:
        self.h, self.theta, self.ends = h, theta, ends
        self.dirs: dict[str, tuple[GridMeasure, GridMeasure, float, float]] = {}
        self.singles: dict[str, list[tuple[GridMeasure, int]]] = {}
        self.bad: dict[str, bool] = {}
        self.split: dict[str, Any] = {}
        self.cells = 0
        for d, items in laws.items():
            if split is not None and len(items) == 1:
                from .split_composition import split_direction

                law, count = items[0]
                terms = split_direction(law, count, h, theta[d], *split, ends=ends, shifted=shifted)
                if terms is not None:
                    self.split[d] = terms
                    self.cells += terms.cells
                    self.dirs[d] = (terms.upper_terms[0] if terms.upper_terms else None,  # type: ignore[assignment]
                                    terms.lower_terms[0] if terms.lower_terms else None, 0.0, 0.0)
                    self.singles[d] = []
                    self.bad[d] = False
                    continue
            U = L = None
            inf_up, log_keep = 0.0, 0.0
            singles = []
            for law, count in items:
                key = (id(law), h, theta[d])
                if key not in cache:
                    cache[key] = discretise(law, h, theta[d])
                disc = cache[key]
                self.cells += disc.cells
                singles.append((disc.upper, count))
                Uk, Lk = power(disc.upper, count), power(disc.lower, count)
                U = Uk if U is None else convolve(U, Uk)
                L = Lk if L is None else convolve(L, Lk)
                inf_up += count * disc.inf_upper
                if disc.inf_lower > 0:
                    log_keep += count * math.log1p(-disc.inf_lower)
            inf_up = math.nextafter(min(1.0, inf_up * (1 + 1e-12)), math.inf)
            inf_lo = max(0.0, -math.expm1(log_keep) * (1 - 1e-12))
            self.dirs[d] = (U, L, inf_up, inf_lo)  # type: ignore[assignment]
            self.singles[d] = singles
            # a window that misses the tilted mass (θ too large for it): its Chernoff remainder would
            # dominate; the caller lowers θ
            self.bad[d] = any(m.dropped * c > 1e-6 * float(m.v.sum()) for m, c in singles) or not math.isfinite(U.dropped)

    def dir_up(self, d: str, eps: float) -> float:
        if d in self.split:
            return self.split[d].up(eps)
        U, _, iu, _ = self.dirs[d]
        return delta_upper(U, eps) + iu

    def dir_lo(self, d: str, eps: float) -> float:
        if d in self.split:
            return self.split[d].lo(eps)
        _, L, _, il = self.dirs[d]
        return delta_lower(L, eps) + il

    def up(self, eps: float) -> float:
        return min(1.0, max(self.dir_up(d, eps) for d in self.dirs) * (1 + 1e-15))

    def lo(self, eps: float) -> float:
        return max(0.0, max(self.dir_lo(d, eps) for d in self.dirs) * (1 - 1e-15))

    def log_mgf(self, d: str, theta: float) -> float:
        """K(θ) of direction d, from the single-event upper measures (finite parts)."""
        total = 0.0
        for m, count in self.singles[d]:
            x = m.locations()
            pos = m.v > 0
            a = np.log(m.v[pos]) + (theta - m.theta) * x[pos]
            top = float(a.max())
            total += count * (top + math.log(float(np.exp(a - top).sum())) + m.scale * math.log(2))
        return total


def _eps_bounds(eps: Real) -> tuple[float, float]:
    b = eps.to_arb(256)
    return max(0.0, math.nextafter(float(b.lower()), -math.inf)), math.nextafter(float(b.upper()), math.inf)


def _passes(events: list[Event], directions: tuple[str, ...], budget: float, theta_of: Any, width_of: Any,
            tolerance: float, hint_of: Any = None, below_of: Any = None) -> tuple[Any, _Pass, dict]:
    laws = _laws(events, directions)
    split_mode = SPLIT and hint_of is not None and _splittable(laws)
    free_steps = FREE_STEPS and _gaussian(laws)
    cache: dict = {}
    t0 = time.process_time()
    budget_check(laws, H_COARSE, {d: 0.0 for d in directions}, events, budget)
    # θ by a trust region: K(θ) read from laws discretised at θ₀ is reliable near θ₀ only (their
    # windows were cut for θ₀), so each coarse pass may move θ within [θ₀/4, 4θ₀ + 2]; it starts at the law's own
    # saddle point where the coarse step resolves the law (:func:`_law_start`), and a direction started there whose θ
    # _law_tilts replaces afterwards need not settle here
    cap = {d: THETA_BOUNDED if _bounded(laws[d]) else THETA_MAX for d in directions}
    theta = _law_start(laws, theta_of, cap, H_COARSE)
    settle = [d for d in directions if not (theta[d] > 0 and _law_tilted(laws, d))]
    for _ in range(6):
        tc = time.process_time()
        p = _Pass(laws, H_COARSE, theta, cache)
        coarse_cpu = time.process_time() - tc
        new = {d: theta[d] / 2 if p.bad[d] else min(theta_of(p, d, theta[d] / 4, 4 * theta[d] + 2), cap[d])
               for d in directions}
        if all(abs(new[d] - theta[d]) <= 0.05 * theta[d] + 1e-3 for d in settle):
            break
        theta = new
    theta = _law_tilts(laws, theta, theta_of, cap)
    h = H_START
    seed = width_of(p) if split_mode else None  # the coarse pass's interval: where the split's hints come from
    # a larger tilt widens the windows (the tilted heavy tail of a subsampled law reaches further out): lower
    # it until the first fine pass is estimated within 1/8 of the budget left (the estimate counts cells and FFT
    # work only, measured 2-5× below a pass's CPU on subsampled laws; any θ >= 0 is sound). Measured on the
    # DP-SGD rows this trades: q = 1/1000, σ = 1, T = 10^4, δ = 1e-5 width 0.65 → 0.042, but T = 100, δ = 1e-18
    # 1.6e-3 → 0.78 (that row needs the large tilt); no rule found that keeps both
    # (the split route tilts each term at its own saddle point, from the pass's θ only as a start)
    estimate = split_estimate if split_mode else pass_estimate
    free = [d for d in directions if not (split_mode and _split_planned(laws[d], h, theta[d]))]
    while free and max(theta[d] for d in free) > 1 and pass_estimate({d: laws[d] for d in free}, h, theta, events).seconds > (budget - (time.process_time() - t0)) / 8:
        theta = {d: _round_theta(t / 2) if d in free else t for d, t in theta.items()}
    # the cell model leaves out a pass's fixed work (windows, saddle points, the lower end's boundary solves), which
    # decides at the smallest budgets: the first fine pass is taken to cost at least FIRST_PASS × the last coarse one
    first = max(estimate(laws, h, theta, events).seconds, FIRST_PASS * coarse_cpu)
    if PASS_SAFETY * first > budget - (time.process_time() - t0):
        # no fine pass fits: the last coarse pass (a proved interval whatever its θ) is the answer
        lo, hi = width_of(p)
        info = {"route": "grid", "h": H_COARSE, "theta": p.theta, "cells": p.cells, "tolerance": tolerance,
                "tolerance_met": hi == lo or (math.isfinite(hi) and hi - lo <= tolerance * abs(hi)),
                "passes": [{"h": H_COARSE, "lower": lo, "upper": hi, "cpu_seconds": round(coarse_cpu, 3)}],
                "cpu_seconds": round(time.process_time() - t0, 3), "stopped": "budget: no fine pass fits"}
        return (lo, hi), p, info
    history = []
    widths: list[tuple[float, float]] = []  # (h, width of the intersection) after each pass: :func:`_need_margin`
    costs: list[tuple[float, float]] = []
    result = seed  # every pass is a proved interval, the coarse one too
    stalls = 0
    # a direction whose whole interval lies below another's is settled: it cannot decide the max, so later passes
    # leave it out (their interval for the others is one for the max; the settled ends are kept in it)
    settled: dict[str, tuple[float, float]] = {}
    if SETTLE and below_of is not None and seed is not None:
        settled = _settle(p, seed[0], below_of, {})
    active = {d: v for d, v in laws.items() if d not in settled}
    ends = "both"
    track: dict[str, list[tuple[float, float]]] = {"lower": [], "upper": []}  # (h, end) of the passes that made it
    use_split = split_mode
    info_switch = None
    shifted, last_split = False, None  # :data:`SHIFT_ON_WIDEN`
    growth = GROWTH
    while True:
        t1 = time.process_time()
        p = _Pass(active, h, theta, cache, split=(*hint_of(result or seed), tolerance) if use_split else None,
                  ends=ends, shifted=shifted)
        for _ in range(8):  # θ too large for a window: lower it on that direction and redo the pass
            if not any(p.bad.values()):
                break
            theta = {d: (_round_theta(theta[d] / 4) if p.bad.get(d) else theta[d]) for d in directions}
            cache.clear()
            # the same pass again (split and ends kept: without them a split direction fell back to one grid at
            # its coarse θ, was 'bad' there in turn and lost its θ too — measured σ = 2, q = 1/1000, T = 1000,
            # δ = 1e-18 at 2^-13: remove [0.146, 0.147] by the split became [0.108, 1.67] at θ/4)
            p = _Pass(active, h, theta, cache, split=(*hint_of(result or seed), tolerance) if use_split else None,
                      ends=ends, shifted=shifted)
        now = _with_settled(width_of(p), settled)
        if SETTLE and below_of is not None and len(active) > 1:
            settled = _settle(p, now[0], below_of, settled)
            active = {d: v for d, v in laws.items() if d not in settled}
        spent = time.process_time() - t1
        one_end = ends != "both" and bool(p.split)
        # a one-end pass's CPU in full-pass units (the schedule predicts full passes), at the shares of its route
        shares = end_shares(p.split.values(), END_SHARE)
        costs.append((h, spent / shares[ends] if one_end else spent))
        history.append({"h": h, "lower": now[0], "upper": now[1], "cpu_seconds": round(spent, 3)}
                       | ({"ends": ends} if one_end else {}))
        for e, v in (("lower", now[0]), ("upper", now[1])):
            if not one_end or e == ends:
                track[e].append((h, v))
        # every pass is a proved interval: keep their intersection
        prev = result
        result = now if result is None else (max(result[0], now[0]), min(result[1], now[1]))
        lo, hi = result
        if use_split and len(history) == 1 and SPLIT_FALLBACK and _narrower(seed, now):
            # the one-grid coarse pass beat the first split pass: the split's tilts miss this row (measured: rows whose
            # ε is decided by a few tail steps, e.g. σ = 0.5, q = 1/1000, T = 100, δ = 1e-18: the coarse pass at 2^-7
            # [12.7794, 12.7814], the split at 2^-10 [12.759, 24.04]); the later passes use one grid at the coarse θ,
            # their CPU predicted from the coarse pass (a one-grid pass's cells grow as 1/h), their step chosen afresh
            info_switch = {"h": h, "seed": list(seed), "split": list(now)}
            use_split, ends = False, "both"
            costs, h = [(H_COARSE, coarse_cpu)], H_COARSE  # the next step is chosen afresh from the coarse one
            growth, stalls = GROWTH_ONE_GRID, -1  # the split pass's own interval is no stall of the one-grid route
        if SHIFT_ON_WIDEN and use_split and p.split and not one_end and not shifted:
            # a full split pass wider than the last one at a coarser step: its product terms lose as h shrinks
            widened = last_split is not None and now[1] - now[0] > last_split[1] - last_split[0]
            last_split = now
            left = budget - (time.process_time() - t0)
            if widened and PASS_SAFETY * SHIFTED_COST * spent <= left:
                # the same step again with shifted terms, their CPU predicted from their own passes
                shifted, costs, stalls = True, [], 0
                cache.clear()
                continue
        # a pass that narrows the interval by less than a quarter is a stall; two in a row end the refinement
        if prev is not None and math.isfinite(hi) and (prev[1] - prev[0]) - (hi - lo) < 0.25 * (prev[1] - prev[0]):
            stalls += 1
        else:
            stalls = 0
        stalled = stalls >= 2
        met = hi == lo or (math.isfinite(hi) and hi - lo <= tolerance * abs(hi))
        left = budget - (time.process_time() - t0)
        cheapest = min(shares.values()) if (ONE_END and use_split and _end_errors(track)) else 1.0
        # an end last refined at a coarser step (the other end's one-end pass was at h) may still be refined at h
        lag = cheapest < 1.0 and any(pts and pts[-1][0] > h for pts in track.values())
        if met or stalled or h / 2 < H_MIN or PASS_SAFETY * cheapest * _predict(costs, h if lag else h / 2, growth) > left:
            break
        # the coarsest step predicted to meet the tolerance with room (width ~ h^p, :func:`_need_order`)
        widths.append((h, hi - lo))
        order, margin = _need_order(widths)
        need = h * (tolerance * abs(hi) / (hi - lo)) ** (1 / order) / margin if math.isfinite(hi) and hi > lo else 0.0
        choice = _choose_pass(track, h, spent, costs, left, need, shares) if use_split else ("both", _next_step(h, spent, costs, left, growth, need))
        if choice is None:  # no pass of either end, nor of both, is predicted to fit the budget left
            break
        ends, step = choice
        if free_steps:  # an end lagging at a coarser step (its ladder from 2h, :func:`_choose_pass`) lands no coarser than h
            lagging = ends != "both" and bool(track[ends]) and track[ends][-1][0] > h
            step = land_step(2 * h if lagging else h, step, need, top=h if lagging else None)
            # need_order's p = 2 with NEED_MARGIN is no measurement: 0 then
            finer = past_ladder(step, need, margin, order if margin == NEED_MARGIN_MEASURED else 0.0)
            share = shares[ends] if ends != "both" else 1.0
            if finer < step and PASS_SAFETY * share * _predict(costs, finer, growth) <= left:
                step = finer
        h = step
        cache.clear()
    info = {"route": "grid", "h": h, "theta": theta, "cells": p.cells, "tolerance": tolerance, "tolerance_met": met,
            "passes": history, "cpu_seconds": round(time.process_time() - t0, 3)}
    if info_switch is not None:
        info["one_grid_after"] = info_switch
    if settled:
        info["settled"] = {d: {"lower": a, "upper": b} for d, (a, b) in settled.items()}
    if p.split:
        info["split"] = {d: {"K": t.K, "remainder": t.rest, "tilts": list(t.thetas), "coarse_factor": t.m}
                         for d, t in p.split.items()}
    return result, p, info


#: fall back to one grid when the coarse one-grid pass is narrower than the first split pass (:func:`_passes`)
SPLIT_FALLBACK = True


def _narrower(a: tuple[float, float] | None, b: tuple[float, float]) -> bool:
    """Interval a is narrower than b (an infinite end is wider than any finite one)."""
    if a is None or not math.isfinite(a[1]):
        return False
    return not math.isfinite(b[1]) or a[1] - a[0] < b[1] - b[0]


#: refine only the end that limits (:func:`_limiting_end`) on the split route
ONE_END = True
#: a one-end pass's CPU as a share of a full pass, on the safe side of the measured ones (lower 0.74-0.86 on a
#: σ = 0.8, q = 1/1000 row: its fitted cells cost most of the discretisation; upper ~0.4 there, but 0.67 on σ = 2,
#: q = 1/100, T = 100, whose small passes are mostly fixed work — 0.45 overshot that row's 10× budget by 3 %). A float
#: estimate that decides the schedule only
END_SHARE = {"both": 1.0, "lower": 0.9, "upper": 0.7}
def _end_errors(track: dict[str, list[tuple[float, float]]]) -> dict[str, tuple[float, float]] | None:
    """Each end's estimated error and the step it was made at: e ≈ move·ρ/(1 − ρ), ρ = (h/h_prev)², from its last
    two passes (the ~h² convergence measured on the DP-SGD rows); None before two passes of each."""
    err = {}
    for e, pts in track.items():
        if len(pts) < 2:
            return None
        (h1, v1), (h2, v2) = pts[-2], pts[-1]
        if not (math.isfinite(v1) and math.isfinite(v2)) or h2 >= h1:
            return None
        rho = (h2 / h1) ** 2
        err[e] = (abs(v2 - v1) * rho / (1 - rho), h2)
    return err


def _choose_pass(track: dict[str, list[tuple[float, float]]], h: float, spent: float,
                 costs: list[tuple[float, float]], left: float, need: float = 0.0,
                 shares: dict[str, float] | None = None) -> tuple[str, float] | None:
    """(ends, step) of the next pass: each choice's step is the finest that fits the budget left at its cost
    (:data:`END_SHARE`), and the one whose predicted width (each end's error × (h′/h_end)², an end not refined
    keeping its own) is least is taken; None when, the ends' errors known, no choice fits. A float choice of which
    measures to compute: any pass is a proved interval for the ends it makes."""
    err = _end_errors(track) if ONE_END else None
    best = ("both", _next_step(h, spent, costs, left, need=need))
    if err is None:
        return best
    best_w = math.inf
    for ends in ("both", "lower", "upper"):
        share = (shares or END_SHARE)[ends]
        # an end whose last pass is coarser than h (the other end's one-end pass was at h): its pass may be at h
        base = 2 * h if ends != "both" and err[ends][1] > h else h
        if PASS_SAFETY * share * _predict(costs, base / 2) > left:
            continue
        step = _next_step(base, spent, costs, left / share, need=need)
        w = sum(e * min(1.0, (step / he) ** 2) if ends in ("both", name) else e for name, (e, he) in err.items())
        if w < best_w * (1 - 1e-9):
            best, best_w = (ends, step), w
    return best if best_w < math.inf else None


def _only(p: _Pass, d: str) -> _Pass:
    """The pass restricted to direction d (its measures shared)."""
    q = copy.copy(p)
    q.dirs = {d: p.dirs[d]}
    return q


def _settle(p: _Pass, lower: float, below_of: Any, settled: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """``settled`` plus the directions d of p whose quantity (ε_d or δ_d) is certified <= ``lower``, the pass's lower
    end for the max (``below_of(p_d, x)``: p_d's upper end is <= x). The max is then max(ε_d, the rest's) with
    ε_d in [0, lower]: a settled direction joins later intervals as (0, lower), sound whichever direction decides
    (one evaluation per direction, no bisection). At least one direction stays active."""
    if len(p.dirs) < 2 or not lower > 0:
        return settled
    out = dict(settled)
    for d in p.dirs:
        if len(out) + 1 < len(settled) + len(p.dirs) and below_of(_only(p, d), lower):
            out[d] = (0.0, lower)
    return out


def _with_settled(iv: tuple[float, float], settled: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """The max over directions: the active ones' interval joined with the settled ones' (the max's ends are the
    ends' maxima)."""
    lo, hi = iv
    for a, b in settled.values():
        lo, hi = max(lo, a), max(hi, b)
    return lo, hi


def _predict(costs: list[tuple[float, float]], h: float, growth: float | None = None) -> float:
    """The CPU of a pass at step h, a + b/h fitted to the last two passes (one pass: b/h alone, pessimistic: its
    fixed work counted as work per cell), and at least the last pass's CPU grown by GROWTH per halving (two close
    passes dominated by fixed work fit a tiny b: measured σ = 2, q = 1/100, T = 10^4: 0.163 s, 0.180 s at
    2^-10, 2^-11, then 1.81 s at 2^-15 where the fit said 0.69 s). A float estimate that decides only how fine to
    go, never a bound."""
    h2, c2 = costs[-1]
    floor = c2 * (h2 / h) ** math.log2(GROWTH if growth is None else growth)
    if len(costs) < 2 or costs[-2][0] == h2:
        return max(c2 * h2 / h, floor)
    h1, c1 = costs[-2]
    b = max((c2 - c1) / (1 / h2 - 1 / h1), 0.0)
    a = max(c2 - b / h2, 0.0)
    if b == 0.0:  # no measured growth (timing noise): back to the pessimistic one-pass model
        return max(c2 * h2 / h, floor)
    return max(a + b / h, floor)


#: the least growth of a pass's CPU per halving of h: 1.6-2.1× per single halving on the DP-SGD rows' fine passes, but
#: 2.9× per halving over a jump of three (σ = 2, q = 1/100, T = 100, δ = 1e-18: 0.5 s at 2^-14, 11.7 s at 2^-17, a 10 s
#: budget overrun by 35 %: wider windows and more FFT work per cell at finer steps)
GROWTH = 2.6
#: the same for one-grid passes of a subsampled Gaussian after the split fallback (measured 2.1-2.2× per halving from
#: 2^-11 to 2^-14 on σ = 0.8, q = 1/100, T = 100, δ = 1e-18: 0.42 → 4.16 s)
GROWTH_ONE_GRID = 2.3


#: a pass is started when its predicted CPU times this fits the budget left (the ratio target is a hard cap)
PASS_SAFETY = 1.3
def _next_step(h: float, spent: float, costs: list[tuple[float, float]], left: float,
               growth: float | None = None, need: float = 0.0) -> float:
    """The next grid step: h/2, or a smaller power of two when the passes so far say it fits the budget left.

    Every pass is a proved interval and a finer one all but replaces the coarser ones, so the budget is best spent
    on few passes: the step is the finest (at most h/8) whose predicted CPU (:func:`_predict`) fits the budget
    left — all of it from two measured passes on (times :data:`PASS_SAFETY`), half of it after one (whose
    model is pessimistic) — but not finer than ``need``, the step predicted to meet the tolerance."""
    share = left / PASS_SAFETY if len(costs) >= 2 else left / 2
    nxt = h / 2
    while nxt / 2 >= H_MIN and _predict(costs, nxt / 2, growth) <= share and nxt > h / 8 and nxt > need:
        nxt /= 2
    return nxt


#: let the step land between powers of two (:func:`.grid_cost.land_step`) when every law takes the Gaussian path
#: (:func:`_gaussian`)
FREE_STEPS = True


def _gaussian(laws: dict[str, list]) -> bool:
    """Every law is discretised by :mod:`.discretise_gauss` (its grid steps may be m·2^-k: :func:`.discretise.step_ok`)."""
    return discretise_mod.FAST and all(law.continuous and isinstance(law.base, GaussianBase)
                                       for items in laws.values() for law, _ in items)


def grid_delta(events: list[Event], directions: tuple[str, ...], eps: Real, tolerance: float, budget: float) -> Enclosure:
    """Certified δ(ε) by the grid route (module docstring)."""
    e_lo, e_hi = _eps_bounds(eps)

    def width(p: _Pass) -> tuple[float, float]:
        return p.lo(e_hi), p.up(e_lo)

    def hint_of(iv: tuple[float, float]) -> tuple[float, float]:
        return e_lo, (iv[0] if iv[0] > 0 else iv[1] * 1e-3)

    def below_of(p: _Pass, x: float) -> bool:
        return p.up(e_lo) <= x

    (lo, hi), p, info = _passes(events, directions, budget, lambda p, d, a, b: _theta_for_eps(p, e_lo, d, a, b), width,
                                tolerance, hint_of, below_of)
    info["directions"] = {d: {"lower": max(0.0, p.dir_lo(d, e_hi)), "upper": min(1.0, p.dir_up(d, e_lo))} for d in p.dirs}
    return Enclosure(lo, hi, None, "certified grid PLD (connect-the-dots / merged ends, tilted FFT with error bound)", info)


def grid_epsilon(events: list[Event], directions: tuple[str, ...], delta: Real, tolerance: float, budget: float) -> Enclosure:
    """Certified ε(δ) by the grid route: ε_lo < ε(δ) <= ε_hi (module docstring)."""
    b = delta.to_arb(256)
    t_lo, t_hi = math.nextafter(float(b.lower()), -math.inf), math.nextafter(float(b.upper()), math.inf)
    log_t = math.log(t_lo)

    def theta_of(p: _Pass, d: str, a: float, b: float) -> float:
        return _theta_for_delta(p, log_t, d, a, b)

    last: list[tuple[float, float]] = []
    # the bisection stops at 1/1024 of the asked width (the interval loses at most that) and starts from the last
    # pass's interval: ~20 evaluations of δ per end instead of ~55 (measured: the solves were ~1/4 of a pass's CPU)
    rel = tolerance * 2.0**-10

    def width(p: _Pass) -> tuple[float, float]:
        guess = last[-1] if last else None
        hi = _solve(p.up, t_lo, True, rel, guess)
        lo = _solve(p.lo, t_hi, False, rel, guess)
        # the next guess is the intersection of every pass so far (each certified), not this pass's own interval: a
        # pass worse than an earlier one (a split pass whose tilts miss, a one-end pass) would otherwise set the next
        # bisection's stop (STOP_SHARE of the guess's width) far too coarse (measured σ = 0.5, q = 1/1000, T = 100,
        # δ = 1e-18: a split pass [12.76, 24.04] made the next one-grid pass stop ~0.01 short on both ends)
        nxt = _next_guess(guess, (lo, hi))
        if nxt is not None:
            last.append(nxt)
        return lo, hi

    def hint_of(iv: tuple[float, float]) -> tuple[float, float]:
        lo, hi = iv
        return (lo + hi) / 2 if math.isfinite(hi) else max(2 * lo, 1.0), t_lo

    def below_of(p: _Pass, x: float) -> bool:  # p.up(x) <= t_lo: ε_d <= x (as for the upper end of _solve)
        return p.up(x) <= t_lo

    (lo, hi), p, info = _passes(events, directions, budget, theta_of, width, tolerance, hint_of, below_of)
    return Enclosure(lo, hi, None, "certified grid PLD (connect-the-dots / merged ends, tilted FFT with error bound)", info)
