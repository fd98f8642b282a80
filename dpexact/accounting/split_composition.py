"""A Poisson-subsampled Gaussian composed T times, split into a bulk and a heavy tail, each on its own grid and
each term of the expansion at its own tilt (the remove direction; :mod:`.grid_accounting` uses it there).

Why: one grid must otherwise cover both the bulk of a subsampled loss (support ~ r·few wide) and its heavy tail
(L ≈ log r + L₀), and one tilt must serve both (measured in ARCHITECTURE.md's "Accountant" note).

One step's privacy-loss measure ω (under P′) is split at a loss c into the bulk ω_B (L <= c) and the tail ω_A
(L > c). Convolution is commutative and bilinear, so

    ω^{∗T} = Σ_{k=0}^{T} C(T, k) ω_B^{∗(T−k)} ∗ ω_A^{∗k}                                          (1)

(the PLD of a composition is the convolution of the PLDs: Sommer, Meiser & Mohammadi 2019; Zhu, Dong & Wang 2022;
(1) is the binomial expansion of that power), and δ(ε) = ∫f_ε dω^{∗T}, f_ε(x) = (1 − e^{ε−x})₊, is the sum of the
terms' integrals, each >= 0. The terms k >= K add at most Σ_{k>=K} C(T, k)·P′(bulk)^{T−k}·P′(tail)^k <=
Σ_{k>=K} C(T, k) a^k (a >= P′(tail), P′(bulk) <= 1, f_ε <= 1): the upper end adds that remainder
(:func:`binomial_rest`), the lower end drops those terms.

Each term is bounded on its own. With the other factors fixed, a term is ∫F dω_i for one factor ω_i, where
r ↦ r·F(log r) = E[(r − e^{ε−S})₊] is convex in r = e^x: so splitting an atom (x, P-mass p, Q-mass p·e^{−x})
between two points around x, keeping its P- and Q-mass (connect-the-dots), raises the term — Jensen — and
merging atoms lowers it; moving losses up (down) raises (lowers) it, f_ε being non-decreasing. So:

* **Discretisation.** The bulk on the fine grid (step h), the tail on the coarse one (H = m·h), both by
  :func:`.discretise_gauss.discretise_gauss` restricted to their windows (``outside``): c is a grid point of
  both, the bulk's cells end at c and the tail's start there (the lower end's fitted cells are clipped to the
  window). Both parts come from the same outward float parameters (μ↑, r↑ for the upper end, μ↓, r↓ for the
  lower), i.e. from one dominating (dominated) pair, whose own expansion (1) is bounded term by term.
* **Terms.** k = 0: B^{∗T} on the fine grid, tilted at the bulk's own saddle point (the bulk is bounded: its
  window is its support [log(1 − r), c] whatever the tilt) — or, that tilt near the products' (:data:`ZERO_NEAR`) or
  a rung of the shifted terms' ladder (:data:`SHARE_ZERO`), one product more on that tilt's chain of powers. k >= 1: tilted at the saddle point of the term k = 1;
  the upper end brings B^{∗(T−k)} onto the coarse grid by connect-the-dots per atom (:func:`coarsen_upper`) and
  convolves it with A^{∗k} there; the lower end refines A^{∗k} onto the fine grid (:func:`refine`, exact).

Every term is a :class:`~.grid_measure.GridMeasure` (tilted, FFT error bounded, removed parts bounded by the
smaller of Chernoff and their untilted mass), δ's ends are Σ C(T, k)·(its end) plus, upper only, the remainder
— nothing floored. The cut, K, the coarse factor and the tilts are float choices: they decide the width, never
the soundness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .discretise import window
from .grid_measure import (
    GridMeasure,
    U,
    convolve,
    delta_lower,
    delta_upper,
    normalise,
    power,
    power_by_steps,
    raw_total,
    to_entries,
)
from .grid_saddle import saddle
from .loss_laws import GaussianBase, LossLaw

__all__ = [
    "SplitPlan",
    "SplitTerms",
    "binomial_rest",
    "coarsen_upper",
    "plan_split",
    "refine",
    "split_direction",
    "split_terms",
]

#: number of terms k = 0..K−1 the cut is placed for (the rest bound then decides the actual K, up to K_MAX)
K_TARGET = 6
K_MAX = 24
#: coarse grid factor H = M_COARSE·h
M_COARSE = 8
#: terms k >= ENTRY_FROM form their last product with per-entry errors: tilted at the term k = 1's saddle point, their
#: mass near ε is far below their top, where a global ℓ2 error weighs as much as anywhere (measured: σ = 0.5,
#: q = 1/1000, T = 1000, δ = 1e-10, h = 2^-13: the ℓ2 term of k = 5 was 3.7e-14 against the whole term's 2.3e-15
#: with per-entry errors; k = 1 and the chains keep the ℓ2 form)
ENTRY_FROM = 2


@dataclass(frozen=True)
class SplitPlan:
    """Where the law is cut: the bulk's window (fine grid indices, step h) ends at c = cut·m·h, where the tail's
    window (coarse indices, step m·h) starts."""

    h: float
    m: int
    theta: float
    cut: int
    bulk: tuple[int, int]
    tail: tuple[int, int]
    #: the tail's lower end's window (:data:`LOWER_TAIL_CUT`); None: :attr:`tail`
    tail_lower: tuple[int, int] | None = None

    @property
    def cells(self) -> int:
        return (self.bulk[1] - self.bulk[0]) + (self.tail[1] - self.tail[0])


def _log_heavy_mass(law: LossLaw, l: float) -> float:
    """A float estimate of log P′(tail beyond l) (a hint for the cut: any cut is sound)."""
    from scipy.special import log_ndtr

    mu = float(law.base.mu.mid())
    r = float(law.r.mid())
    t = math.expm1(l) + r
    if t <= 0:
        return 0.0
    y = (math.log(t / r) + mu * mu / 2) / mu  # L > l  <=>  y > y(l)
    return float(np.logaddexp(math.log1p(-r) + log_ndtr(-y), math.log(r) + log_ndtr(mu - y)))


def plan_split(law: LossLaw, count: int, h: float, theta: float, eta: float, m: int = M_COARSE,
               scan: bool = True) -> SplitPlan | None:
    """The cut for a subsampled Gaussian ``law`` composed ``count`` times: the least heavy tail whose terms
    k >= K_TARGET are estimated below ``eta``; ``None`` when no split applies (no subsampling, the add direction,
    fewer than two compositions, or no cut below L = 600).

    The bulk's window is its whole support [log(1 − r), c] (bounded: no scan, whatever the tilt — the float scan
    of :func:`.discretise.window` looks for the tilted mass near the base Gaussian's tilted mean, which at a large
    tilt leaves a subsampled law's bulk out); the tail's window reaches where its untilted mass is negligible."""
    if not (law.continuous and isinstance(law.base, GaussianBase)) or law.r == 1 or count < 2 or eta <= 0:
        return None
    if law.direction != "remove":  # the add direction's heavy tail is on the left, where f_ε = 0: not split
        return None
    H = h * m
    K = min(K_TARGET, count)
    log_target = math.log(eta) - (math.lgamma(count + 1) - math.lgamma(K + 1) - math.lgamma(count - K + 1))
    # bisection on the loss axis for log a(c) = log_target / K (the leading term C(T, K)a^K of the remainder);
    # a(l) decreases in l
    want = log_target / K
    a, b = 0.0, 600.0
    if _log_heavy_mass(law, b) > want:
        return None
    for _ in range(80):
        mid = (a + b) / 2
        a, b = (mid, b) if _log_heavy_mass(law, mid) > want else (a, mid)
    cut = math.ceil(b / H)
    floor = float(law.loss_range()[0])  # log(1 − r): the bulk's least loss
    bulk = (math.floor(floor / h) - 1, cut * m)
    # the tail's window reaches where the untilted mass above is below eta·1e-6: the removed part above adds at most
    # that (its untilted bound, f_ε <= 1), whatever the tilt. Further only while the tilted tail peaks near
    # (L₀ ≈ θμ² <= TAIL_SCAN_PEAK): a far peak decides the MGF but not δ, and a window reaching it puts the composed
    # terms' tilted mass there and cuts the losses near ε
    a2, b2 = b, 600.0
    for _ in range(80):
        mid = (a2 + b2) / 2
        a2, b2 = (mid, b2) if _log_heavy_mass(law, mid) > math.log(eta) - 14 else (a2, mid)
    mu = float(law.base.mu.mid())
    scan = scan and TAIL_SCAN and theta * mu * mu <= TAIL_SCAN_PEAK
    j1 = max(math.ceil(b2 / H), window(law, H, theta)[1]) if scan else math.ceil(b2 / H)
    tail = (cut, max(j1, cut + 2))
    low = (cut, min(tail[1], max(math.ceil(b2 / H), cut + 2))) if LOWER_TAIL_CUT else None
    return SplitPlan(h, m, theta, cut, bulk, tail, low)


@dataclass(frozen=True)
class SplitParts:
    """The two parts of one direction, both ends each."""

    bulk_upper: GridMeasure
    bulk_lower: GridMeasure
    tail_upper: GridMeasure
    tail_lower: GridMeasure


def discretise_parts(law: LossLaw, plan: SplitPlan, ends: str = "both") -> SplitParts:
    """The bulk's and the tail's ends; ``ends`` = "upper" / "lower": the bulk's other end is None (the tail keeps its
    upper end always: its mass decides the remainder bound, hence K, for either end; its lower end only when asked —
    its fit over the long coarse window was 1.3 of 19.5 CPU-s on σ = 0.8, q = 1/1000, T = 1000, δ = 1e-5, spent
    on the saddle-point probes, which read upper ends only)."""
    from .discretise_gauss import discretise_gauss

    bu, bl = discretise_gauss(law, plan.h, plan.theta, plan.bulk, outside=(True, False), ends=ends)
    H = plan.h * plan.m
    tu = discretise_gauss(law, H, plan.theta, plan.tail, outside=(False, True), ends="upper")[0]
    tl = None if ends == "upper" else discretise_gauss(law, H, plan.theta, plan.tail_lower or plan.tail,
                                                       outside=(False, True), ends="lower")[1]
    return SplitParts(bu, bl, tu, tl)


# -- bringing a fine measure onto the coarse grid ----------------------------------------------------------------


def _ctd_factors(h: float, m: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Upper-rounded factors of an atom at offset u = r·h above a coarse point (r = 0..m−1): the tilted P-mass it
    sends down, (e^{H−u} − 1)/(e^H − 1)·e^{−θu}, and up, (e^H − e^{H−u})/(e^H − 1)·e^{θ(H−u)} (module docstring)."""
    from flint import arb

    from ..numbers.backends import ball_context

    lo, hi = np.zeros(m), np.zeros(m)
    lo[0] = 1.0
    with ball_context(128):
        H, TH = arb(h * m), arb(theta)
        D = H.exp() - 1
        for r in range(1, m):
            u = arb(r * h)
            a = ((H - u).exp() - 1) / D * (-TH * u).exp()
            b = (H.exp() - (H - u).exp()) / D * (TH * (H - u)).exp()
            lo[r] = math.nextafter(float(a.upper()), math.inf)
            hi[r] = math.nextafter(float(b.upper()), math.inf)
    return lo, hi


def coarsen_upper(x: GridMeasure, m: int) -> GridMeasure:
    """An upper measure on the grid of step m·h whose ∫f_t is at least x's for every t (connect-the-dots per atom)."""
    if m == 1:
        return x
    n = len(x.v)
    idx = x.j0 + np.arange(n, dtype=np.int64)
    J = np.floor_divide(idx, m)
    r = idx - J * m
    f_lo, f_hi = _ctd_factors(x.h, m, x.theta)
    J0 = int(J[0])
    size = int(J[-1]) - J0 + 2
    out = np.bincount(J - J0, weights=x.v * f_lo[r], minlength=size)
    out += np.bincount(J - J0 + 1, weights=x.v * f_hi[r], minlength=size)
    # every entry is a sum of <= 2m non-negative rounded products
    out = out * (1 + (2 * m + 8) * U)
    # the error vector goes through the same linear map C: ‖Ce‖₂ <= (‖C‖₁‖C‖_∞)^{1/2}‖e‖₂ (Schur's test; a column
    # is one atom's two shares, a row receives at most one share of each kind per residue) — :mod:`.l2_error`
    err = 0.0
    if x.err > 0:
        col = float(np.max(f_lo + f_hi)) * (1 + 2 * U)
        row = float(f_lo.sum() + f_hi.sum()) * (1 + (2 * m + 2) * U)
        err = math.nextafter(x.err * math.sqrt(col * row) * (1 + 4 * U) * (1 + (2 * m + 8) * U), math.inf)
    # the error's span [j0, end) maps into coarse indices up to ⌊(end − 1)/m⌋ + 1
    end = (x.end - 1) // m + 2 if err > 0 else 0
    return normalise(GridMeasure(x.h * m, x.theta, J0, x.shift, out, x.scale, True, x.dropped, x.dropped_raw,
                                 x.tail, x.tail_raw, err, end))


def refine(x: GridMeasure, m: int) -> GridMeasure:
    """The same measure on the grid of step h/m (its atoms are grid points of the finer grid: exact)."""
    if m == 1:
        return x
    v = np.zeros((len(x.v) - 1) * m + 1)
    v[::m] = x.v
    return GridMeasure(x.h / m, x.theta, x.j0 * m, x.shift, v, x.scale, x.upper, x.dropped, x.dropped_raw, x.tail,
                       x.tail_raw, x.err, (x.end - 1) * m + 1 if x.err > 0 else 0)


# -- the terms ------------------------------------------------------------------------------------------------------


def binomial_rest(n: int, K: int, a: float, b: float) -> float:
    """An upper bound on Σ_{k=K}^{n} C(n, k) b^{n−k} a^k (a, b >= 0), in arb."""
    if K > n:
        return 0.0
    if a == 0:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    from flint import arb

    from ..numbers.backends import ball_context

    with ball_context(128):
        A, B = arb(a), arb(b)
        t = arb(math.comb(n, K)) * A ** K * (B ** (n - K) if b > 0 else arb(0 if n > K else 1))
        if b > 0:
            rho = arb(n - K) / (K + 1) * A / B  # ratio of consecutive terms, largest at k = K
            if rho < 1:
                return math.nextafter(float((t / (1 - rho)).upper()), math.inf)
        # slow path: the whole sum
        s = arb(0)
        for k in range(K, n + 1):
            s += arb(math.comb(n, k)) * A ** k * B ** (n - k)
        return math.nextafter(float(s.upper()), math.inf)


@dataclass
class SplitTerms:
    """δ(ε)'s ends of the split composition (1): Σ_{k<K} C(T, k)·(term k) + (upper) the remainder."""

    count: int
    upper_terms: list
    lower_terms: list
    rest: float
    K: int
    cells: int
    m: int = M_COARSE
    thetas: tuple = ()

    def up(self, eps: float) -> float:
        if not self.upper_terms:  # a pass that refines the lower end only: δ <= 1 is the (trivial) upper end
            return 1.0
        s = 0.0
        for k, t in enumerate(self.upper_terms):
            c = math.comb(self.count, k)
            cf = float(c)
            if cf < c:
                cf = math.nextafter(cf, math.inf)
            if isinstance(t, GridMeasure):
                s += cf * delta_upper(t, eps)
            else:  # a term too small to matter next to the sum so far keeps its crude bound (A's mass)
                c0 = cf * t.crude()
                s += c0 if c0 <= s * CRUDE_REL else cf * t.up(eps)
        return math.nextafter((s + self.rest) * (1 + (len(self.upper_terms) + 4) * U), math.inf)

    def lo(self, eps: float) -> float:
        if not self.lower_terms:  # a pass that refines the upper end only
            return 0.0
        s = 0.0
        for k, t in enumerate(self.lower_terms):
            c = math.comb(self.count, k)
            cf = float(c)
            if cf > c:
                cf = math.nextafter(cf, 0.0)
            if isinstance(t, GridMeasure):
                s += cf * delta_lower(t, eps)
            elif cf * t.crude() > s * CRUDE_REL:  # else its lower bound 0 is kept
                s += cf * t.lo(eps)
        return max(0.0, s * (1 - (len(self.lower_terms) + 4) * U))

    @property
    def shifted(self) -> bool:
        """Its terms k >= 1 are shifted terms (:mod:`.shifted_terms`), not products."""
        return any(not isinstance(t, GridMeasure) for t in self.upper_terms + self.lower_terms)

    def measures(self) -> list[GridMeasure]:
        return [t for t in self.upper_terms if isinstance(t, GridMeasure)]


def _bulk_power(B: GridMeasure, n: int) -> GridMeasure:
    """B^{∗n} of the bulk (:data:`BY_STEPS`)."""
    return (power_by_steps if BY_STEPS else power)(B, n)


def _chain(B: GridMeasure, n: int, K: int) -> list[GridMeasure]:
    """[B^{∗n}, B^{∗(n−1)}, ..., B^{∗(n−K+1)}] (K <= n)."""
    X = _bulk_power(B, n - K + 1)
    out = [X]
    for _ in range(K - 1):
        X = convolve(X, B)
        out.append(X)
    return out[::-1]


def split_terms(parts: SplitParts, plan: SplitPlan, count: int, eta: float,
                zero: tuple[GridMeasure, GridMeasure] | None = None, ends: str = "both",
                ladder: list[tuple[GridMeasure, GridMeasure]] | None = None, eps_hint: float | None = None) -> SplitTerms:
    """The terms k < K of (1) for both ends, K the least (<= K_MAX) whose remainder bound is below ``eta``.
    ``zero``: the bulk's (upper, lower) ends at another tilt for the term k = 0 (each term of (1) is a measure of its
    own, so each may be tilted at its own saddle point: the bulk alone reaches ε with a larger tilt than the tail).
    ``ladder``: the bulk's ends at several tilts; the terms k >= 1 are then bounded by shifted evaluation
    (:mod:`.shifted_terms`) on the bulk's powers at those tilts instead of one product on the coarse grid."""
    # the terms k >= K of (1) for the true parts are at most C(T, k)·P′(bulk)^{T−k}·P′(tail)^k: P′(bulk) <= 1, and the
    # tail's upper end keeps the tail's mass (connect-the-dots keeps each cell's P′-mass, rounded up)
    a = raw_total(parts.tail_upper)
    b = 1.0
    K = 1  # K <= count: every term k < K has a bulk factor
    while K < min(K_MAX, count) and binomial_rest(count, K, a, b) > eta:
        K += 1
    rest = binomial_rest(count, K, a, b)
    if ladder is not None:
        return _shifted_split(parts, plan, count, K, rest, zero, ends, ladder, eps_hint)
    ups, los = [], []
    for B, A, out, upper in ((parts.bulk_upper, parts.tail_upper, ups, True),
                             (parts.bulk_lower, parts.tail_lower, los, False)):
        if ends != "both" and (ends == "upper") != upper:  # that end is not asked for: its terms stay empty
            continue
        if zero is None:
            xs = _chain(B, count, K)
        else:  # B^{∗T} at the pass's tilt is not needed: the term k = 0 has its own
            xs = [None] + (_chain(B, count - 1, K - 1) if K > 1 else [])
        if zero is not None:
            out.append(_bulk_power(zero[0] if upper else zero[1], count))
        else:
            out.append(xs[0])
        Ak = None
        for k in range(1, K):
            Ak = A if Ak is None else convolve(Ak, A)
            f1, f2 = (coarsen_upper(xs[k], plan.m), Ak) if upper else (xs[k], refine(Ak, plan.m))
            if k >= ENTRY_FROM:  # the last product with per-entry errors (grid_measure.convolve)
                f1, f2 = to_entries(f1), to_entries(f2)
            out.append(convolve(f1, f2, l2=k < ENTRY_FROM))
    return SplitTerms(count, ups, los, rest, K, plan.cells, plan.m)


def _tail_power(a: GridMeasure, k: int, theta: float) -> GridMeasure:
    """a^{∗k}, a re-tilted at θ first when it can be (:func:`.shifted_terms.retilt`; else at its own tilt)."""
    from .shifted_terms import retilt

    b = retilt(a, theta, removed=True) if theta != a.theta else a
    return power(a if b is None else b, k)


def _shifted_split(parts: SplitParts, plan: SplitPlan, count: int, K: int, rest: float,
                   zero: tuple[GridMeasure, GridMeasure] | None, ends: str,
                   ladder: list[tuple[GridMeasure, GridMeasure]], eps_hint: float | None = None) -> SplitTerms:
    """:func:`split_terms` with the terms k >= 1 as :class:`.shifted_terms.ShiftedTerm`: C(T, k)·Σ_y A^{∗k}({y})·
    δ_{T−k}(ε − y), the bulk's (T − k)-fold powers at every tilt of the ladder, A^{∗k} with its ℓ2 error."""
    from .shifted_terms import ShiftedTerm

    want_up, want_lo = ends in ("both", "upper"), ends in ("both", "lower")
    chains_up = [_chain(bu, count - 1, K - 1) for bu, _ in ladder] if want_up and K > 1 else []
    chains_lo = [_chain(bl, count - 1, K - 1) for _, bl in ladder] if want_lo and K > 1 else []
    z_up, z_lo = zero if zero is not None else (parts.bulk_upper, parts.bulk_lower)
    # a rung of the ladder that is the term k = 0's own pair (:data:`SHARE_ZERO`): B^{∗T} = B^{∗(T−1)} ∗ B, one product
    # on its chain's first power instead of a power of its own
    at = next((i for i, pair in enumerate(ladder) if pair is zero), None) if zero is not None and K > 1 else None
    ups = ([convolve(chains_up[at][0], z_up) if at is not None else _bulk_power(z_up, count)]) if want_up else []
    los = ([convolve(chains_lo[at][0], z_lo) if at is not None else _bulk_power(z_lo, count)]) if want_lo else []
    bulk = parts.bulk_upper if parts.bulk_upper is not None else parts.bulk_lower  # a one-end pass has one of them
    for k in range(1, K):
        # A^{∗k} (k >= 2, an FFT product) at the tilt that puts its tilted mass at y = ε: the terms read it near ε and
        # to its right, while at the product's tilt its mass near ε can sit far below the top of a heavy tail (measured:
        # σ = 2, q = 1/1000, T = 10⁴, δ = 1e-5, the term k = 2's lower end 1e-125 against its upper 1.7e-4)
        tk = parts.tail_upper.theta if k == 1 or eps_hint is None else saddle(
            ([(bulk, count - k)] if TERM_SADDLE else []) + [(parts.tail_upper, k)], eps_hint, 0.0, THETA_MAX)
        Au = _tail_power(parts.tail_upper, k, tk) if want_up else None
        Al = _tail_power(parts.tail_lower, k, tk) if want_lo else None
        term = ShiftedTerm([c[k - 1] for c in chains_up], [c[k - 1] for c in chains_lo], Au, Al)
        if want_up:
            ups.append(term)
        if want_lo:
            los.append(term)
    return SplitTerms(count, ups, los, rest, K, plan.cells, plan.m)


#: the probe grid on which the saddle points of the terms are found
H_PROBE = 2.0**-10
#: the largest tilt of the terms with a tail factor (as :data:`.grid_accounting.THETA_MAX`), and of the bulk alone
THETA_MAX = 100.0
THETA_BULK = 2000.0
#: the terms k >= 1 by shifted evaluation on a ladder of the bulk's tilts (:mod:`.shifted_terms`); False: one
#: product each on the coarse grid
SHIFTED = True
#: ... when the product's saddle point is at least this: a large tilt on a wide tail factor is where the products' upper
#: end worsens as h shrinks (measured at fixed ε, relative δ width at 2^-16 / 2^-18: σ = 2, q = 1/100, T = 100,
#: δ = 1e-18, θ₁ = 34: products 6.7e-5 / 1.2e-4, shifted 9.6e-6 / 1.8e-6; σ = 2, q = 1/1000, T = 10⁴, δ = 1e-5, θ₁ = 56:
#: products 1.0 at 2^-17, shifted 3.4e-4); below it the products are used unless :data:`SHIFTED_RATIO` says otherwise
SHIFTED_FROM = 30.0
#: ... or when the bulk alone reaches ε only at a tilt t0 >= SHIFTED_RATIO × the product's θ₁: at θ₁ the bulk's
#: (T − k)-fold power is far below its tilted peak on the right, the products cut it there at the FFT bound's level
#: (:data:`.grid_measure.RIGHT_F_BITS`) and its cut mass counts in full, growing as h shrinks (measured: σ = 1,
#: q = 1/1000, T = 100, δ = 1e-10, t0/θ₁ = 244/14, relative δ width at 2^-16 / 2^-17: products 2.7e-5 / 3.9e-5, the
#: term k = 1's cut 2.1e-15 / 3.3e-15 of δ = 1e-10; shifted 2.0e-6 / 4.8e-7). Where t0 ≈ θ₁ (q = 1/10: 1.0-1.2) the
#: products are as tight and cheaper
SHIFTED_RATIO = 4.0
#: the bulk's powers left to right (:func:`.grid_measure.power_by_steps`: products by the short one-step bulk only)
BY_STEPS = True
#: the ladder's top rung at the term k = 0's tilt t0 (above the bulk's own top saddle point: t = ε − y < ε), sharing
#: the term k = 0's discretisation, so that B^{∗T} is one product on that rung's chain instead of a power of its own
SHARE_ZERO = True
#: by products, the term k = 0 at the products' tilt t1 (no tilt of its own) when t0 <= ZERO_NEAR·t1: B^{∗T} is then one
#: product on the chain B^{∗(T−K+1)}, ..., B^{∗(T−1)} instead of a power and a discretisation of its own. Measured (CPU,
#: relative width; t0/t1): σ = 2, q = 1/100, T = 1000, δ = 1e-5 (1.12) 2.27 → 1.73 s, 2.82e-7 → 2.73e-7; σ = 1,
#: q = 1/100, T = 1000, δ = 1e-10 (1.50) 2.80 → 2.05 s, 3.58e-7 → 3.74e-7; σ = 0.8, q = 1/100, T = 1000, δ = 1e-5 (1.48)
#: 3.66 → 2.50 s, 2.28e-7 → 2.34e-7. A float choice of tilt: every term is a proved measure at any tilt
ZERO_NEAR = 1.6
#: A^{∗k} (k >= 2) of a shifted term tilted at the saddle point of the whole term B^{∗(T−k)} ∗ A^{∗k} at ε (False: of
#: A^{∗k} alone)
TERM_SADDLE = True
#: a shifted term whose crude bound C(T, k)·(A^{∗k}'s mass) is below this fraction of the terms before it keeps that
#: bound (upper end) or 0 (lower end) unevaluated: the bisections of ε(δ) evaluate every term tens of times
CRUDE_REL = 1e-10

#: the tail's lower end on a window ending where its untilted mass above is negligible (plan_split's eta·e^-14) rather
#: than at the scanned tilted peak: a lower measure may leave out any outputs (δ only falls), and beyond that point
#: they weigh < eta·e^-14 each step. The fit over the long coarse window was the largest cost of the fine passes
#: on σ <= 1, q = 1/1000 (σ = 1, T = 100, δ = 1e-5 at 2^-18: 451k cells reaching loss 13.8 for a mass negligible
#: beyond 2.2, 1.18 of 3.3 CPU-s)
LOWER_TAIL_CUT = True
#: the tail's window also reaches the scanned tilted mass while the tilted tail peaks at L₀ ≈ θμ² <= TAIL_SCAN_PEAK
#: (measured on the DP-SGD rows: better there, e.g. σ = 0.5, q = 1/1000, T = 1000, δ = 1e-10 width 1.3e-3 → 4.6e-4;
#: beyond, the composed terms' tilted mass sits at that far peak and the losses near ε are cut: σ = 2, q = 1/1000,
#: T = 1000, δ = 1e-5 width 0.13 → 1). A choice of accuracy only: either window is sound
TAIL_SCAN = True
TAIL_SCAN_PEAK = 15.0
#: ... also on the shifted route: not needed there, where a shifted term bounds the tail's removed part by its untilted
#: mass (f <= 1) and no product carries the tail's tilted mass (measured, same intervals: σ = 2, q = 1/1000, T = 10⁴,
#: δ = 1e-18 0.96 → 0.51 s, σ = 1, q = 1/1000, T = 1000, δ = 1e-5 2.65 → 2.14 s; unscanned on both routes, σ = 0.8,
#: q = 1/100, T = 1000, δ = 1e-10 (by products) missed its width, 1.7 → 16.8 s)
TAIL_SCAN_SHIFTED = False


def split_direction(law: LossLaw, count: int, h: float, theta: float, eps_hint: float, delta_hint: float,
                    tolerance: float, m: int | None = None, ends: str = "both",
                    shifted: bool = False) -> SplitTerms | None:
    """The split composition of one direction: cut, tilts (k = 0 at the bulk's saddle point for ``eps_hint``,
    k >= 1 at the saddle point of the term k = 1), both ends of every term (``ends`` = "upper" / "lower": that end
    only, the other's terms empty: δ's trivial bounds 1 and 0). ``shifted``: the terms k >= 1 by shifted evaluation
    whatever the tilts (the caller saw the products' interval widen as h shrank). ``None``: no split applies."""
    m = M_COARSE if m is None else m
    eta = max(delta_hint, 1e-300) * min(tolerance, 1e-3) * 1e-3
    # the probe's step resolves one step's spread (about r·(e^{μ²} − 1)^{1/2}): T·K_B(θ) amplifies the
    # connect-the-dots inflation of a coarser probe, and the saddle point moves with it
    mu, r = float(law.base.mu.mid()), float(law.r.mid())
    spread = r * math.sqrt(math.expm1(min(mu * mu, 700.0)))
    hp = min(H_PROBE, h * 4, 2.0 ** math.floor(math.log2(max(spread / 8, 2.0**-40))))
    hp = max(hp, h)
    probe = plan_split(law, count, hp, theta, eta, m)
    if probe is None:
        return None
    pp = discretise_parts(law, probe, ends="upper")  # the saddle points read the upper ends only
    # up to THETA_MAX: the terms k >= 1 are decided by losses near ε, far right of their tilted peak at a small tilt,
    # where the right cut's noise and the ℓ2 error weigh most (measured: σ = 2, q = 1/1000, T = 100, δ = 1e-10,
    # h = 2^-20, capped at 4θ + 2 = 22: the term k = 1's right cut 6.1e-15 and ℓ2 term 1.9e-15 against δ = 1e-10;
    # at the saddle point's 100: 1.2e-15 and 2.9e-17). The tail's window is scanned (for the tilted mass) only
    # within the coarse passes' trust region 4θ + 2 (θ the pass's tilt): beyond it a scan can reach a far tilted peak
    # (measured 1.2M cells, 69 s, at θ = 53); unscanned, the window reaches where the untilted mass is negligible,
    # which bounds what lies beyond it (f_ε <= 1)
    lo, hi = 0.0, THETA_MAX
    # the bulk alone (k = 0) is bounded on both sides: its window is its support whatever the tilt, and a
    # concentrated bulk (small r·μ) puts ε at a saddle point far above THETA_MAX
    t0 = saddle([(pp.bulk_upper, count)], eps_hint, lo, THETA_BULK)
    t1 = saddle([(pp.bulk_upper, count - 1), (pp.tail_upper, 1)], eps_hint, lo, hi)
    use_ladder = SHIFTED and (t1 >= SHIFTED_FROM or (t1 > 0 and (shifted or t0 >= SHIFTED_RATIO * t1)))
    plan = plan_split(law, count, h, t1, eta, m, scan=t1 <= 4 * theta + 2 and (TAIL_SCAN_SHIFTED or not use_ladder))
    if plan is None:
        return None
    parts = discretise_parts(law, plan, ends=ends)
    from .discretise_gauss import discretise_gauss

    # the same cut and window (the parts must partition one pair's outputs), the bulk at its own tilt — or, by
    # products with t0 near t1 (:data:`ZERO_NEAR`), B^{∗T} at t1: one product more on the chain, no power of its own
    zero = None if (not use_ladder and t0 <= ZERO_NEAR * t1) else discretise_gauss(
        law, h, t0, plan.bulk, outside=(True, False), ends=ends)
    ladder = None
    if use_ladder:
        from .shifted_terms import retilt, tilt_ladder

        # the top tilt: the bulk's (T − 1)-fold power's saddle point at the largest t = ε − y, y >= c (the cut)
        top = saddle([(pp.bulk_upper, count - 1)], eps_hint - plan.cut * plan.m * h, lo, THETA_BULK)
        tilts = tilt_ladder(t1, top)
        if SHARE_ZERO and len(tilts) > 1 and t0 >= tilts[-1]:
            tilts = tilt_ladder(t1, t0)  # its top rung at the term k = 0's tilt: that rung's chain then ends in B^{∗T}
        ladder = []
        for t in tilts:
            if SHARE_ZERO and t == t0 and len(tilts) > 1:
                ladder.append(zero)  # the same pair: :func:`_shifted_split` finds it by identity
                continue
            # the bulk's window is its support whatever the tilt: its ends re-tilted when they can be (no removed part),
            # from whichever discretisation (at t1 or t0) is nearer in log θ — the fitted lower end is fitted for its
            # own tilt's weights (measured σ = 0.8, q = 1/1000, T = 100, δ = 1e-18: the term k = 1's lower end 4 % short
            # re-tilted from t0 = 79, exact from t1 = 7.2)
            src = (parts.bulk_upper, parts.bulk_lower) if abs(math.log((t + 1e-9) / (t1 + 1e-9))) <= abs(
                math.log((t + 1e-9) / (t0 + 1e-9))) else zero
            pair = tuple(retilt(z, t) if z is not None else None for z in src)
            if any(z is not None and q is None for z, q in zip(src, pair)):
                pair = discretise_gauss(law, h, t, plan.bulk, outside=(True, False), ends=ends)
            ladder.append(pair)
    terms = split_terms(parts, plan, count, eta, zero, ends=ends, ladder=ladder, eps_hint=eps_hint)
    terms.thetas = (t0, t1)
    return terms
