"""The cost model of the grid route (:mod:`.grid_accounting`): a pass's CPU estimated from its cells and its
compositions before it is spent (the budget check refuses an accounting whose first pass would not fit), and the
step a pass lands on (:func:`land_step`: between powers of two when the width needs it)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..cost_limits import CostEstimate, CostLimitError
from . import discretise as discretise_mod
from .discretise import window
from .events import Event
from .loss_laws import GaussianBase, LossLaw

if TYPE_CHECKING:
    from .split_composition import SplitTerms

__all__ = ["budget_check", "end_shares", "estimate_seconds", "land_step", "need_margin", "need_order", "pass_estimate",
           "refuse", "round_step", "split_estimate"]

#: seconds per grid cell of a discretisation (arb erfc, exp, log per cell; measured ~40 µs here)
_CELL_SECONDS = 4e-5
#: the same for the vectorised Gaussian path (:mod:`.discretise_gauss`; measured ~3 µs a cell, both ends)
_GAUSS_CELL_SECONDS = 4e-6

def window_cells(law: LossLaw, h: float, theta: float) -> int:
    a, b = window(law, h, theta)
    return b - a


def estimate_seconds(cells: int, total_count: int, fast_cells: int = 0) -> CostEstimate:
    """Cost model of one grid pass: arb work per cell (vectorised work per Gaussian cell) plus FFT squarings."""
    disc = cells * _CELL_SECONDS + fast_cells * _GAUSS_CELL_SECONDS
    cells += fast_cells
    fft = 2e-7 * cells * max(1.0, math.log2(max(total_count, 2))) ** 2
    return CostEstimate("certified accounting (grid pass)", 64.0 * cells * 8, disc + fft, "cells × arb cost + FFT",
                        {"discretisation": disc, "composition": fft})


def refuse(est: CostEstimate, budget: float) -> None:
    raise CostLimitError(f"max_seconds: {est.describe()}, above the budget of {budget:g} s", est)


def budget_check(laws: dict, h: float, theta: dict[str, float], events: list[Event], budget: float) -> None:
    est = pass_estimate(laws, h, theta, events)
    if est.seconds > budget:
        refuse(est, budget)


def pass_estimate(laws: dict, h: float, theta: dict[str, float], events: list[Event]) -> CostEstimate:
    cells = fast = 0
    seen = set()
    for d, items in laws.items():
        for law, _ in items:
            if (id(law), theta[d]) in seen or not law.continuous:
                continue
            seen.add((id(law), theta[d]))
            a, b = window(law, h, theta[d])
            if isinstance(law.base, GaussianBase) and discretise_mod.FAST:
                fast += b - a
            else:
                cells += b - a
    return estimate_seconds(cells, sum(e.count for e in events), fast)


def split_estimate(laws: dict, h: float, theta: dict[str, float], events: list[Event]) -> CostEstimate:
    """The cost model of a split pass: the bulk's fine cells twice (two tilts) and the tail's coarse cells."""
    from .split_composition import plan_split

    fast = 0
    for d, items in laws.items():
        law, count = items[0]
        plan = plan_split(law, count, h, theta[d], 1e-20)
        fast += 2 * plan.cells if plan is not None else window_cells(law, h, theta[d])
    return estimate_seconds(0, sum(e.count for e in events), fast)


#: a one-end pass's CPU as a share of a full pass on the split route when its terms k >= 1 are shifted terms
#: (:mod:`.shifted_terms`): there the upper end is the dearer one — its windowed evaluations on every copy of the
#: ladder — while the products' lower end (A^{∗k} refined onto the fine grid) is theirs. Measured (build + 15
#: evaluations, upper / lower share of a both-ends pass): σ = 0.8, q = 1/1000, T = 1000, δ = 1e-5 at 2^-16, 2^-17, 2^-18
#: 0.71 / 0.41, 0.72 / 0.41, 0.72 / 0.44; σ = 1, q = 1/1000, T = 100, δ = 1e-10 at 2^-17 0.71 / 0.52. The products'
#: shares (:data:`.grid_accounting.END_SHARE`: lower 0.9, upper 0.7) recorded a lower pass there at half its full-pass
#: units and predicted the next upper pass at 13 s; it took 21 s (a 30 s budget overrun by 7 %). One pair serves both
#: ways (a pass of one end predicts the other's): upper/lower 1.6 against the measured 1.38-1.76, each way within
#: 1.17× of the measured ratio (inside :data:`.grid_accounting.PASS_SAFETY`)
END_SHARE_SHIFTED = {"both": 1.0, "lower": 0.5, "upper": 0.8}


def end_shares(split_terms: Iterable[SplitTerms], products: dict[str, float]) -> dict[str, float]:
    """The one-end shares of a pass (float estimates deciding the schedule only): :data:`END_SHARE_SHIFTED` when a
    split direction's terms k >= 1 are shifted terms, else ``products``."""
    return END_SHARE_SHIFTED if any(t.shifted for t in split_terms) else products


#: the finest step that is not a power of two: its grid points are exact floats for |x| < 2^9 (h = m·2^-k with k <= 24,
#: :data:`.discretise.STEP_ODD_MAX`), the range a power of two has at :data:`.grid_accounting.H_MIN`
H_FREE_MIN = 2.0**-20
#: significant bits of a landed step (m odd < 2^4: :func:`.discretise.step_ok`); it is rounded down by < 1/8
STEP_BITS = 4


def round_step(x: float) -> float:
    """The largest step <= x with at most :data:`STEP_BITS` significant bits."""
    f, e = math.frexp(x)
    return math.ldexp(math.floor(f * 2**STEP_BITS) / 2**STEP_BITS, e)


def land_step(h: float, nxt: float, need: float, top: float | None = None) -> float:
    """The step to take after a pass at h for the ladder's choice ``nxt`` (:func:`.grid_accounting._next_step`, h/2^i):
    when ``need`` (the step predicted to meet the tolerance) lies between nxt and h, the coarsest step of
    :data:`STEP_BITS` bits at or below it (at most ``top``, default 15h/16) — the ladder would take a step up to 2× finer than the width needs, and a pass's
    CPU grows ~1/h (measured: σ = 0.5, q = 1/100, T = 1000, δ = 1e-18 took 2^-13 for 6.1 s, 1.5e-7 where 1e-6 was
    asked). A step below :data:`H_FREE_MIN` is a power of two: the coarser one when it still meets need, else the finer.
    A float choice of grid: every step gives a proved interval."""
    step = nxt
    if need > nxt:
        step = max(nxt, round_step(min(need, h * 15 / 16 if top is None else top)))
    if step < H_FREE_MIN and math.frexp(step)[0] != 0.5:
        up = 2.0 ** math.ceil(math.log2(step))
        step = up if up <= need else up / 2
    return step


#: how far below the ladder's step (:func:`.grid_accounting._next_step` goes at most h/8 a pass) :func:`past_ladder`
#: may land: 8 (h/64 after a pass at h) where the order is measured near 2 (:data:`ORDER_FAR`), else 2. Measured on the
#: DP-SGD table (same run): 2 → 8 total 85.3 → 80.3 s, σ = 1, q = 1/1000, T = 1000, δ = 1e-5 2.05 → 1.62 s (one pass
#: fewer); without ORDER_FAR σ = 0.8, q = 1/1000, T = 100, δ = 1e-5 jumped at order 1.53 (then 2.4) to 8.8e-8 of a
#: 1e-6 target, 1.29 → 2.31 s
BELOW_LADDER = 8.0
#: the least measured order (:func:`need_order`) :func:`past_ladder` trusts: below it the width fell erratically
#: (σ = 0.8, q = 1/1000, T = 1000, δ = 1e-10: h^0.78 from 2^-10 to 2^-13, then h^3.1 to 2^-16, which met)
ORDER_LAND = 1.5
#: ... and the least it trusts for a landing more than 2× below the ladder's step
ORDER_FAR = 1.9


def past_ladder(step: float, need: float, margin: float, order: float) -> float:
    """The step to take instead of the ladder's ``step`` when ``need`` (the step predicted to meet the tolerance, with
    ``margin``, from a width measured to shrink as h^order — 0 when not measured — with order >= :data:`ORDER_LAND`,
    and >= :data:`ORDER_FAR` for need below step/2) lies below it by at most :data:`BELOW_LADDER` and the ladder's
    step is predicted to miss even without the margin (need·margin < step): the coarsest landed step (:func:`round_step`) at or below need — one pass where the
    ladder made a near miss and a second pass (measured: σ = 2, q = 1/100, T = 1000, δ = 1e-5 from 2^-13 at 6.7e-5 of
    the target width: 2^-16 gave 1.05e-6 where 1e-6 was asked, then 2^-16.42 too). A step predicted to meet without
    the margin is kept (near misses of the margin met there: σ = 2, q = 1/100, T = 100, δ = 1e-5, 9.5e-7), and so is a
    step below :data:`H_FREE_MIN` (only powers of two there). A float choice of grid: every step gives a proved
    interval; the caller checks the finer pass fits the budget."""
    if need <= 0 or step < H_FREE_MIN or order < ORDER_LAND or not (step / BELOW_LADDER <= need < step and need * margin < step):
        return step
    if need < step / 2 and order < ORDER_FAR:
        return step
    landed = round_step(need)
    return landed if landed >= H_FREE_MIN else step

#: the step predicted to meet the tolerance (width ~ h²) is divided by this: a width predicted at 0.44 of the target.
#: Without it a large budget bought steps far finer than the tolerance asks (measured: σ = 1, q = 1/10, T = 1000,
#: δ = 1e-18 at 20 s: 3.3e-8 for 8.3 s, against 4.1e-7 for 2.0 s at 5 s)
NEED_MARGIN = 1.5
#: the same once two passes measured the width shrinking at least as h² (:func:`need_margin`): 0.69 of the target
NEED_MARGIN_MEASURED = 1.2


def need_margin(widths: list[tuple[float, float]]) -> float:
    """NEED_MARGIN_MEASURED when the last two passes' widths shrank at least as h² (the prediction then errs on the safe
    side: σ = 2, q = 1/1000, T = 1000, δ = 1e-5 shrank as h^2.5 from 2^-16 to 2^-19, and 1.5 then bought 2^-21 for 8.6 s
    where 2^-20 met, the row 12.1 → 7.1 s), else NEED_MARGIN (σ = 0.5, q = 1/1000, T = 10⁴, δ = 1e-5 shrank as h^0.9
    from 2^-10 to 2^-12: 1.2 from one pass took three passes, 3.4 s, 1.5 two, 1.5 s). A float choice of step."""
    if len(widths) >= 2:
        (h1, w1), (h2, w2) = widths[-2], widths[-1]
        if 0 < w2 <= w1 * (h2 / h1) ** 2 and h2 < h1 and math.isfinite(w1):
            return NEED_MARGIN_MEASURED
    return NEED_MARGIN


#: the least measured order p (width ~ h^p over the last two passes) that the step prediction takes as it is; below
#: it (a pass that widened, or whose tilts missed) the prediction keeps p = 2 and :func:`need_margin`
ORDER_MIN = 1.0


def need_order(widths: list[tuple[float, float]]) -> tuple[float, float]:
    """(p, margin) of the step predicted to meet the tolerance, h·(target/width)^(1/p)/margin: the last two passes'
    measured order p, at most 2, with :data:`NEED_MARGIN_MEASURED`; else p = 2 with :func:`need_margin`. A measured
    order below 2 was taken as 2 with margin 1.5, which overshot near misses (σ = 0.8, q = 1/1000, T = 100, δ = 1e-5:
    1.2e-6 at 2^-16 after shrinking as h^1.98, then 2^-16.83 for 3.2 s where h^1.98 said 0.75·2^-16 met; now 2^-16.42,
    6.9e-7, 2.1 s); for a width t× the target the step is coarser than that rule's iff (1/p − 1/2)·ln t < ln 1.25, so a
    long jump at a low order gets the finer step. A float choice of step."""
    if len(widths) >= 2:
        (h1, w1), (h2, w2) = widths[-2], widths[-1]
        if h2 < h1 and 0 < w2 < w1 and math.isfinite(w1):
            p = math.log(w1 / w2) / math.log(h1 / h2)
            if p >= ORDER_MIN:
                return min(p, 2.0), NEED_MARGIN_MEASURED
    return 2.0, need_margin(widths)
