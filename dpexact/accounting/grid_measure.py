"""Certified measures on a privacy-loss grid: the two ends (pessimistic, optimistic) of a discretised
privacy-loss distribution, their composition by FFT with a proved error bound, and δ(ε) from them.

A privacy-loss distribution (PLD) of a pair (P, Q) is the law of L = log P(Y)/Q(Y), Y ~ P; then

    δ(ε) = E[(1 − e^{ε − L})₊] + P(L = ∞),                                                   (1)

and the PLD of a composition (adaptive included, for dominating pairs: Zhu, Dong & Wang 2022,
Thm 6/10; Sommer, Meiser & Mohammadi 2019; Koskela, Jälkö & Honkela 2020) is the convolution of
the PLDs. Write f_ε(x) = (1 − e^{ε−x})₊: it is non-decreasing and >= 0. For measures ν, ν′ on
ℝ ∪ {∞} write ν ≼ ν′ when ∫g dν <= ∫g dν′ for every non-decreasing g >= 0; ≼ is kept by
convolution of non-negative measures (integrate one factor at a time). So

* an **upper** measure ν′ ≽ (true PLD) — losses moved up, masses rounded up, mass sent to ∞ —
  composed with others gives an upper bound on (1) at every ε, and
* a **lower** measure (losses moved down, masses rounded down, mass dropped) a lower bound.

Representation (:class:`GridMeasure`): atoms at x_j = j·h + shift (h = m·2^-k, m odd <= 15 — j·h exact in floats; shift a
dyadic: exact floats), stored **exponentially tilted**: v[i]·2^scale = m_j·e^{θ x_j} for
j = j0 + i, with θ >= 0 fixed for a whole computation. Tilting commutes with convolution
(e^{θ(x+y)} = e^{θx}e^{θy}); it keeps the region that decides δ(ε) (losses near ε) at the top of
the float range, so the FFT's absolute error — relative to the largest tilted entries — is small
there (saddle-point / exponential tilting, as in Esscher's transform). An upper measure also
carries ``dropped`` (units 2^scale): the tilted mass ∫e^{θx}dν of parts removed from the grid; since
f_ε(x) <= e^{θ(x − ε)} for θ >= 0, the removed part adds at most dropped·2^scale·e^{−θε} to (1)
(Chernoff's bound). It also carries ``dropped_raw``, an upper bound on the *untilted* mass of the same removed
part: since f_ε <= 1 that part adds at most dropped_raw to (1) as well, so it adds min(Chernoff, raw).
Mass cut at the *right* end (a subsampled law's heavy tail, below the FFT error floor) goes to a second removed
part, ``tail`` / ``tail_raw`` (tilted / untilted, the same two bounds): one step in the heavy tail makes
e^{θ(x − ε)} large, so there the untilted mass is the better bound, while left of ε (and for entries made of
FFT error at negative losses, whose untilted mass e^{−θx}·err is huge) Chernoff is. The two parts compose
separately (:func:`convolve`) and each adds the smaller of its two bounds, so a left cut's large untilted mass
never spoils the right cut's bound, nor the other way round.
Mass cut at the *left* end is not removed at all when it is small: it is moved up onto the
first kept point (moving a loss up is sound for an upper measure, :func:`normalise`), which keeps it on the grid.

FFT error (numpy's pocketfft; Higham 2002, *Accuracy and Stability of Numerical Algorithms*,
Thm 24.2: ‖fl(Fx) − Fx‖₂ <= (log₂N)η/(1 − (log₂N)η)·‖Fx‖₂, η = μ + γ₄(√2 + μ)): with
ρ = that factor (we take η = 16u, above γ₄√2 + μ for twiddles accurate to 2u), the computed
c̃ = IFFT(FFT a · FFT b) of non-negative a, b satisfies

    ‖c̃ − a∗b‖_∞ <= ‖c̃ − a∗b‖₂ <= (1 + ρ)(ρ(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂) + ρ²√N‖a‖₂‖b‖₂ + 4u‖a‖₂‖b‖₁) + ρ‖a‖₂‖b‖₁

(‖Fa‖_∞ <= ‖a‖₁, ‖F⁻¹v‖₂ = ‖v‖₂/√N); :func:`fft_error_bound` doubles it. That ℓ2 bound is carried as it is
(``err``), through later convolutions and cuts, and added once when δ is evaluated (:mod:`.l2_error`: the
invariant, the recurrence for the repeated squarings and its proof); the entries are the computed ones, clipped
at 0. (Until v7 it was used as a per-entry bound added to every entry: counted n times over in δ.)

Evaluation of (1) uses numpy's exp/expm1/log, assumed accurate to 4 ulp (numpy's SIMD and
glibc's implementations are documented within that), each term's argument error bounded, and
the sum's rounding bounded by n·u; the end result is widened by the total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..numbers.dot import dot_unthreaded
from .l2_error import (
    convolve_error,
    cut_error_mass,
    delta_error,
    direct_error,
    fold_error_mass,
    raw_error_mass,
)
from .untilted import _PRE, _SUF, CACHE_ENTRIES, masses  # noqa: F401  (the caches, for tests and their bound)
from .untilted import suffix_sums as _suffix_sums
from .untilted import untilted as _untilted

__all__ = ["GridMeasure", "convolve", "to_entries", "power", "power_by_steps", "fft_error_bound", "fft_product", "delta_upper", "delta_lower", "U"]

U = 2.0**-53
#: entries with tilted mass below max·2^-CUT_BITS are removed (upper: into ``dropped``)
CUT_BITS = 60
#: a product's right end is cut below F·2^-RIGHT_F_BITS (F its rounding's ℓ2 bound), its left end below F: a
#: choice of accuracy and cost only (every cut is bounded). Measured (σ = 0.8, q = 1/1000, T = 1000, δ = 1e-10,
#: h = 2^-15, δ-relative width / FFT work): at F 7.3e-5 / 102M, at F·2^-6 3.6e-5 / 108M, at F·2^-12 the same width
#: for 122M; at F·2^-20 the supports grow 6× (FFT noise kept)
RIGHT_F_BITS = 6
#: the error part of a left cut is moved up onto the first kept point while its tilted mass there stays below
#: FOLD_ERR × the top entry, else removed (``dropped``): removal counts it √(#cut)·err, at every cut (measured
#: 3.4e-14 against 2.6e-16 moved up, in δ units, on the row above)
FOLD_ERR = 1e-3
#: the grid part of a left cut (entries at the FFT's noise level, far below ε) is moved up onto the first kept point
#: while its tilted mass there stays below FOLD_GRID × the top entry, else removed (``dropped``, bounded by Chernoff
#: as if it sat at ε). Moved up, its bound is the mass it has at x_a; removed, it grew with every squaring (measured:
#: σ = 2, q = 1/1000, T = 100, h = 2^-20, the bulk's 99-fold power: removed 3.4e-7 of the top, its Chernoff bound
#: 5.2e-14 of the term k = 1 against δ = 1e-10; moved up: the supports unchanged, that term 0)
FOLD_GRID = 1e-3


@dataclass(frozen=True)
class GridMeasure:
    """A measure on the grid {j·h + shift}, tilted by e^{θx}, with tilted mass v[i]·2^scale at j0 + i.

    Attributes:
        h: grid step (m·2^-k with m odd <= 15: :func:`.discretise.step_ok`).
        theta: tilt θ >= 0.
        j0: grid index of v[0].
        shift: the common offset of all atoms (a dyadic float).
        v: non-negative float64 entries (max 1 after normalising).
        scale: binary exponent of the entries.
        upper: True for a pessimistic (upper) measure, False for an optimistic (lower) one.
        dropped: (upper only) tilted mass removed from the grid, in units 2^scale.
        dropped_raw: (upper only) an upper bound on the untilted mass of the same removed part (a probability
            bound, no units; ``inf`` when unknown).
        tail: (upper only) tilted mass of a second removed part (the right cuts), in units 2^scale.
        tail_raw: (upper only) an upper bound on the untilted mass of that part.
        err: ℓ2 bound on the (signed) error vector of the entries, units 2^scale (:mod:`.l2_error`): the measure
            stands for some p >= 0 on the grid indices [j0, end) with ‖p − v‖₂ <= err (v zero beyond its window).
        err_end: the end of that span (grid index); 0 means j0 + len(v), the window's own end.
    """

    h: float
    theta: float
    j0: int
    shift: float
    v: np.ndarray
    scale: int
    upper: bool
    dropped: float = 0.0
    dropped_raw: float = math.inf
    tail: float = 0.0
    tail_raw: float = 0.0
    err: float = 0.0
    err_end: int = 0

    @property
    def size(self) -> int:
        return len(self.v)

    @property
    def end(self) -> int:
        """The end (grid index, exclusive) of the span that holds both v's window and the error vector."""
        return max(self.err_end, self.j0 + len(self.v))

    def locations(self) -> np.ndarray:
        # j0 + i exact in floats (|j| < 2^53): arange's start + i·1 is the same float, in one array
        x = np.arange(self.j0, self.j0 + len(self.v), dtype=np.float64)
        x *= self.h
        x += self.shift
        return x


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def normalise(m: GridMeasure, floor: float = 0.0, right_floor: float | None = None) -> GridMeasure:
    """Cut entries below max(max·2^-CUT_BITS, 4·floor) at both ends (at the right end 4·``right_floor`` when given)
    and rescale so max v = 1 (exact). ``floor``: the FFT error's level: entries at that level carry no information,
    and keeping them would let the support grow linearly with the number of compositions. The carried ℓ2 error
    (``err``) is restricted to the kept window; the cut true entries p_j <= v_j + |e_j| are bounded part by part
    (:mod:`.l2_error`).

    Upper measures: the right cut goes into ``tail`` and ``tail_raw``; the left cut is moved up onto the
    first kept point when its tilted mass there, Σ v_i e^{θ(x_a − x_i)}, stays below 2^-CUT_BITS of the top (a loss
    moved up: sound), else it goes into ``dropped`` (tilted) and ``dropped_raw`` (untilted)."""
    v = m.v
    if len(v) == 0 or not np.any(v > 0):
        return replace(m, v=np.zeros(1), j0=m.j0, dropped=m.dropped)
    top = float(v.max())
    E = m.err
    a, b = _kept(v, max(top * 2.0**-CUT_BITS, 4 * floor))
    if right_floor is not None:
        b = _kept(v, max(top * 2.0**-CUT_BITS, 4 * right_floor))[1]
    dropped, raw, tail, tail_raw = m.dropped, m.dropped_raw, m.tail, m.tail_raw
    v = v.copy() if m.upper and a > 0 else v
    if m.upper and (a > 0 or b < len(v)):
        out = 0.0
        x = _Locations(m)
        if a > 0:
            left = v[:a]
            arg = m.theta * (x[a] - x[:a])  # >= 0: the tilt gained by moving each entry up to x_a
            # the cut true entries are <= v_j + |e_j| (:mod:`.l2_error`): the two non-negative parts are moved up or
            # removed each on its own; the error part's masses by Cauchy–Schwarz
            fold = _fold(left, arg)
            if fold <= top * FOLD_GRID:
                v[a] = _up(_up(v[a] + fold) * (1 + U))
            else:
                out += float(left.sum()) * (1 + len(v) * U)
                raw = _up(raw + _raw_mass(left, x[:a], m.theta, m.scale))
            fold_e = fold_error_mass(E, arg)
            if fold_e <= top * FOLD_ERR:
                v[a] = _up(_up(v[a] + fold_e) * (1 + U))
            else:
                out += cut_error_mass(E, a)
                raw = _up(raw + raw_error_mass(E, float(x[0]), a, m.h, m.theta, m.scale))
        if b < len(v):
            # p_j <= v_j + |e_j|: v_j goes to ``tail``, |e_j| stays in the error vector (its norm unchanged, the
            # span kept): counted once, in ℓ2, where δ is evaluated — not √(#cut)·err at every cut
            tail = _up(tail + float(v[b:].sum()) * (1 + len(v) * U))
            tail_raw = _up(tail_raw + _raw_mass(v[b:], x[b:], m.theta, m.scale))
        if out > 0:
            dropped = _up(_up(dropped + out))
    # a lower measure's cut p_j are dropped: its error vector is restricted to the kept window; an upper one's span
    # keeps the right cut's error part (above)
    end = m.end if (m.upper or b == len(v)) else 0
    v = v[a:b]
    e = math.frexp(top)[1]
    dropped, tail, E = _rescale(dropped, e), _rescale(tail, e), _rescale(E, e)
    return replace(m, v=np.ldexp(v, -e), j0=m.j0 + a, scale=m.scale + e, dropped=dropped, dropped_raw=raw,
                   tail=tail, tail_raw=tail_raw, err=E, err_end=end if E > 0 else 0)


def _kept(v: np.ndarray, level: float) -> tuple[int, int]:
    """The first and one past the last index with v >= level (one boolean pass, no index array)."""
    mask = v >= level
    a = int(np.argmax(mask))
    if not mask[a]:
        raise IndexError("normalise: no entry at the cut level")
    return a, len(v) - int(np.argmax(mask[::-1]))


class _Locations:
    """x_i = (j0 + i)·h + shift on demand, slice by slice: the same floats as :meth:`GridMeasure.locations` (j0 + i is
    an exact float), without the whole window's array when only its cut ends are read."""

    def __init__(self, m: GridMeasure) -> None:
        self.m = m

    def __getitem__(self, k: int | slice) -> np.ndarray | float:
        m, n = self.m, len(self.m.v)
        if isinstance(k, slice):
            i0, i1, _ = k.indices(n)
            return (m.j0 + np.arange(i0, max(i0, i1), dtype=np.float64)) * m.h + m.shift
        return float((m.j0 + np.arange(k, k + 1, dtype=np.float64))[0] * m.h + m.shift)


def _fold(left: np.ndarray, gain: np.ndarray) -> float:
    """Σ left_i·e^{gain_i} rounded up: the tilted mass of entries moved up by gain_i/θ (their untilted mass kept)."""
    with np.errstate(over="ignore"):
        # an empty entry moved up stays empty (0·e^{gain} = 0, also where e^{gain} overflows)
        return dot_unthreaded(left, np.exp(np.where(left > 0, gain, 0.0))) * (1 + (len(left) + 8 + 8 * float(gain.max())) * U)


def _rescale(t: float, e: int) -> float:
    """A removed tilted mass in units 2^scale, re-expressed in units 2^(scale + e) (rounded up)."""
    if t <= 0:
        return t
    try:
        return _up(math.ldexp(t, -e) * (1 + 2 * U))
    except OverflowError:  # the removed part dwarfs the kept one: the bound is then ∞ (still true)
        return math.inf


def _raw_mass(v: np.ndarray, x: np.ndarray, theta: float, scale: int) -> float:
    """An upper bound on Σ v_i·2^scale·e^{−θx_i} (the untilted mass of tilted entries at increasing x, θ >= 0): each
    mass within 5u·B + 10u <= 8u·big + 16u of its exact value (:func:`.untilted.masses`, big the largest error scale),
    the sum of n terms within nu, plus n·2^-1074 for masses that underflowed (each then within 2^-1075 absolute); an
    overflowed mass makes the bound ∞ (still true)."""
    if len(v) == 0 or not np.any(v > 0):
        return 0.0
    mass, suf = masses(v, x, theta, scale)
    s = float(mass.sum())
    if not math.isfinite(s):
        return math.inf
    big = float(suf[0])
    return _up(_up(s * (1 + (8 * big + len(v) + 16) * U) * math.exp(8 * big * U)) + len(v) * 2.0**-1074)


def raw_total(m: GridMeasure) -> float:
    """An upper bound on the untilted mass of ``m`` (its grid part, its error vector and its removed part)."""
    grid = _up(_raw_mass(m.v, m.locations(), m.theta, m.scale)
               + raw_error_mass(m.err, m.j0 * m.h + m.shift, m.end - m.j0, m.h, m.theta, m.scale))
    return _up(_up(grid + m.dropped_raw) + m.tail_raw)


_RAW: dict[int, tuple[GridMeasure, float]] = {}
#: the longest measure :func:`_grid_raw` keeps (alive) in its memo
RAW_MEMO_MAX = 2**17


def _grid_raw(m: GridMeasure) -> float:
    """:func:`raw_total` of m's grid part and error vector (its removed parts left out), once per measure: a power's
    products by steps read the one-step factor's at every step."""
    hit = _RAW.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    r = raw_total(replace(m, dropped_raw=0.0, tail_raw=0.0))
    if len(m.v) <= RAW_MEMO_MAX:  # the one-step factors; a long power is read once
        if len(_RAW) > 64:
            _RAW.clear()
        _RAW[id(m)] = (m, r)
    return r


def raw_total_untilted(m: GridMeasure) -> float:
    """:func:`raw_total` from the untilted masses :func:`_untilted` keeps for ``m`` (no second log and exp pass over the
    entries: a shifted term's profiles read both). Each mass within (8·big + 16)u as in :func:`_raw_mass` (:mod:`.untilted`:
    within 5u·big + 10u), big = the largest error scale (the suffix maxima's first); their sum of n terms
    within nu, plus n·2^-1074 for masses that underflowed; an overflowed mass makes the bound ∞ (still true)."""
    x, mass, suf = _untilted(m)
    n = len(mass)
    if n == 0 or not np.any(m.v > 0):
        grid = 0.0
    else:
        big = float(suf[0])
        # plus n·2^-1074 for masses that underflowed (each then within 2^-1075 absolute; all of them may have), as in
        # _raw_mass
        grid = _up(_up(float(mass.sum()) * (1 + (8 * big + n + 16) * U) * math.exp(8 * big * U)) + n * 2.0**-1074)
    grid = _up(grid + raw_error_mass(m.err, m.j0 * m.h + m.shift, m.end - m.j0, m.h, m.theta, m.scale))
    return _up(_up(grid + m.dropped_raw) + m.tail_raw)


def fft_error_bound(a: np.ndarray, b: np.ndarray, n_fft: int) -> float:
    """A bound on max_k |c̃_k − (a∗b)_k| for the numpy FFT convolution (module docstring), doubled."""
    lg = max(1.0, math.log2(n_fft))
    eta = 16 * U
    rho = lg * eta / (1 - lg * eta)
    a1, a2 = float(a.sum()) * (1 + len(a) * U), math.sqrt(dot_unthreaded(a, a) * (1 + len(a) * U)) * (1 + U)
    if b is a:  # a square: the same norms
        b1, b2 = a1, a2
    else:
        b1, b2 = float(b.sum()) * (1 + len(b) * U), math.sqrt(dot_unthreaded(b, b) * (1 + len(b) * U)) * (1 + U)
    e = (1 + rho) * (rho * (a2 * b1 + a1 * b2) + rho * rho * math.sqrt(n_fft) * a2 * b2 + 4 * U * a2 * b1) + rho * a2 * b1
    return 2 * e


#: a product whose short factor is at most this fraction of the long one's length may go by blocks (:func:`fft_product`)
BLOCKS = True


def _block_plan(na: int, nb: int) -> tuple[int, int] | None:
    """(FFT length N, block length L = N − nb + 1) of the blocked product of lengths na >= nb, when its FFT work
    ((2·blocks + 1)·N log N) is below 0.7 of one product at the full length (3·N log N); None otherwise. A float choice
    of cost only."""
    n = na + nb - 1
    full = 1 << (n - 1).bit_length()
    best, cost = None, 0.7 * 3 * full * math.log2(full)
    N = 1 << (2 * nb - 1).bit_length()  # >= 2nb: L > nb, so at most two blocks overlap at any entry
    while N < full:
        L = N - nb + 1
        c = (2 * -(-na // L) + 1) * N * math.log2(N)
        if c < cost:
            best, cost = (N, L), c
        N *= 2
    return best


def fft_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """The computed product c̃ ≈ a∗b of non-negative a, b (length len(a) + len(b) − 1) and a bound F >= ‖c̃ − a∗b‖₂.

    One FFT of the next power of two at or above the product's length, F = :func:`fft_error_bound`; or, when one factor
    is short (:func:`_block_plan`: a bulk power times one step, measured 16 of the 34 products at FFT length 2^19 of a
    fine split pass, each 27 ms), by blocks (overlap-add): the long factor cut into blocks a_i of length L, each
    product a_i∗b by one FFT of length N (b transformed once: the same floats for every block), added at its offset.
    a∗b = Σ_i shift(a_i∗b) exactly, so by the triangle inequality the computed blocks' errors add up to at most
    Σ_i F_i (F_i = fft_error_bound(a_i, b, N)); L >= len(b) makes every entry a sum of at most two blocks' entries,
    one rounded addition each: |fl(p + q) − (p + q)| <= u|p + q| <= u/(1 − u)·|fl(p + q)|, hence at most
    2u·‖c̃‖₂ in ℓ2. (The operand order of fft_error_bound is kept: a's blocks first, as a is first in one product.)"""
    n = len(a) + len(b) - 1
    plan = _block_plan(max(len(a), len(b)), min(len(a), len(b))) if BLOCKS and b is not a else None
    if plan is None:
        nf = 1 << (n - 1).bit_length()
        fa = np.fft.rfft(a, nf)
        # a square (power's repeated squaring) transforms its factor once: the same floats as transforming it twice
        fb = fa if b is a else np.fft.rfft(b, nf)
        return np.fft.irfft(fa * fb, nf)[:n], fft_error_bound(a, b, nf)
    N, L = plan
    long_first = len(a) >= len(b)
    lg, sh = (a, b) if long_first else (b, a)
    fs = np.fft.rfft(sh, N)
    c = np.zeros(n)
    F = 0.0
    for i in range(0, len(lg), L):
        blk = lg[i:i + L]
        m = len(blk) + len(sh) - 1
        c[i:i + m] += np.fft.irfft(np.fft.rfft(blk, N) * fs, N)[:m]
        F = _up(F + (fft_error_bound(blk, sh, N) if long_first else fft_error_bound(sh, blk, N)))
    add = 2 * U * math.sqrt(dot_unthreaded(c, c) * (1 + n * U)) * (1 + 2 * U)
    return c, _up(_up(F + add) * (1 + 2 * U))


def convolve(x: GridMeasure, y: GridMeasure, l2: bool = True) -> GridMeasure:
    """The composition x ∗ y (same h, θ, side): FFT convolution with its error bound carried in ℓ2 form (``l2``), or
    (``l2=False``, factors without ``err``: :func:`to_entries`) added to every entry outward, as until v6 — the
    per-entry form keeps the error where the factors' mass is, which the ℓ2 norm forgets (:mod:`.l2_error`)."""
    if x.h != y.h or x.theta != y.theta or x.upper != y.upper:
        raise ValueError("convolve: measures on different grids, tilts or sides")
    if not l2 and (x.err > 0 or y.err > 0):
        raise ValueError("convolve: per-entry mode needs factors without an ℓ2 error (to_entries)")
    if len(x.v) * len(y.v) <= 4096:
        c = np.convolve(x.v, y.v)
        # direct sums of m non-negative products: relative error <= γ_{m+1} per entry
        F = direct_error(c, min(len(x.v), len(y.v)))
        per_entry = 2 * (min(len(x.v), len(y.v)) + 2) * U * c + 2.0**-1074
    else:
        c, F = fft_product(x.v, y.v)
        per_entry = F
    if not l2:  # ‖·‖_∞ <= ‖·‖₂: F bounds every entry's error
        if x.upper:
            c = (np.maximum(c, 0.0) + per_entry * (1 + 4 * U)) * (1 + 2 * U)
        else:
            c = np.maximum(c - per_entry * (1 + 4 * U), 0.0)
    # the true product p₁∗p₂ >= 0: clipping moves the computed entries towards it (:mod:`.l2_error`)
    c = np.maximum(c, 0.0)
    gx, gy = _up(float(x.v.sum()) * (1 + len(x.v) * U)), _up(float(y.v.sum()) * (1 + len(y.v) * U))
    nx, ny = x.end - x.j0, y.end - y.j0
    err = convolve_error(F, gx, x.err, nx, gy, y.err, ny) if l2 else 0.0
    end = x.end + y.end - 1 if err > 0 else 0  # p₁∗p₂ lives on the sum of the spans
    if x.upper:
        # the factors' grid parts p = v + e: their tilted masses within √n·err of v's
        sx, sy = _up(gx + cut_error_mass(x.err, nx)), _up(gy + cut_error_mass(y.err, ny))
        dropped = (x.dropped * (sy + y.dropped) + sx * y.dropped) * (1 + 4 * U)
        # (g₁ + A₁ + B₁)∗(g₂ + A₂ + B₂): part A (left cuts) is A₁∗(g₂ + A₂) + g₁∗A₂, part B (right cuts) every term
        # with a B factor; tilted masses multiply like untilted ones (e^{θ(x+y)} = e^{θx}e^{θy})
        tail = _up((_mul(x.tail, sy + y.dropped + y.tail) + _mul(sx + x.dropped, y.tail)) * (1 + 4 * U))
        raw = tail_raw = 0.0
        if x.dropped_raw > 0 or y.dropped_raw > 0 or x.tail_raw > 0 or y.tail_raw > 0:
            rx = _grid_raw(x)
            ry = rx if y is x else _grid_raw(y)
            if x.dropped_raw > 0 or y.dropped_raw > 0:
                raw = _up((_mul(x.dropped_raw, ry + y.dropped_raw) + _mul(rx, y.dropped_raw)) * (1 + 4 * U))
            if x.tail_raw > 0 or y.tail_raw > 0:
                tail_raw = _up((_mul(x.tail_raw, ry + y.dropped_raw + y.tail_raw) + _mul(rx + x.dropped_raw, y.tail_raw)) * (1 + 4 * U))
    else:
        dropped = raw = tail = tail_raw = 0.0
    out = GridMeasure(x.h, x.theta, x.j0 + y.j0, x.shift + y.shift, c, x.scale + y.scale, x.upper, dropped, raw, tail,
                      tail_raw, err, end)
    # entries at the FFT's noise level carry no information (kept, they would let the support grow with every
    # product): cut as :data:`RIGHT_F_BITS` says
    if not l2:
        return normalise(out, float(np.max(per_entry)) if x.upper else 0.0)
    return normalise(out, F, F * 2.0**-RIGHT_F_BITS)


def to_entries(m: GridMeasure) -> GridMeasure:
    """The same end with its ℓ2 error turned into a per-entry one (|e_j| <= ‖e‖₂ = err): an upper measure gets +err on
    every entry of its window and the span's part beyond it (tilted mass <= √(#)·err) joins ``tail``; a lower one
    gets −err, clipped at 0 (its span is its window: the lower end drops cut entries). Pointwise bounds: err = 0."""
    if m.err == 0:
        return m
    E = m.err
    if not m.upper:
        return replace(m, v=np.maximum(m.v - E * (1 + 4 * U), 0.0), err=0.0, err_end=0)
    v = (m.v + E * (1 + 4 * U)) * (1 + 2 * U)
    extra = m.end - (m.j0 + len(m.v))
    tail, tail_raw = m.tail, m.tail_raw
    if extra > 0:
        tail = _up(tail + cut_error_mass(E, extra))
        tail_raw = _up(tail_raw + raw_error_mass(E, (m.j0 + len(m.v)) * m.h + m.shift, extra, m.h, m.theta, m.scale))
    return replace(m, v=v, err=0.0, err_end=0, tail=tail, tail_raw=tail_raw)


def _mul(a: float, b: float) -> float:
    """a·b rounded up, with 0·∞ = 0 (a removed part that is empty stays empty whatever the other's bound)."""
    return 0.0 if a == 0 or b == 0 else _up(a * b)


def power(x: GridMeasure, k: int) -> GridMeasure:
    """x^{∗k} by repeated squaring (⌊log₂k⌋ squarings and at most as many products)."""
    if k < 1:
        raise ValueError(f"power: k must be >= 1, got {k}")
    result: GridMeasure | None = None
    base = x
    while True:
        if k & 1:
            result = base if result is None else convolve(result, base)
        k >>= 1
        if not k:
            break
        base = convolve(base, base)
    return result  # type: ignore[return-value]


def power_by_steps(x: GridMeasure, k: int) -> GridMeasure:
    """x^{∗k} left to right: for each bit of k after the first, a squaring of the running power and, where the bit is
    set, one product by x itself. Every product but the squarings has the one-step factor x, which :func:`fft_product`
    takes by blocks when x is short (a bulk of 7.5e3 entries against powers of 2.7e5: ~2.5× cheaper than one FFT at
    the product's length), where :func:`power` multiplies two large powers (right to left: result ∗ x^{2^j})."""
    if k < 1:
        raise ValueError(f"power_by_steps: k must be >= 1, got {k}")
    result = x
    for bit in bin(k)[3:]:
        result = convolve(result, result)
        if bit == "1":
            result = convolve(result, x)
    return result


def _terms(m: GridMeasure, eps: float, start: int | None = None) -> tuple[np.ndarray, float]:
    """Terms m_j·f_ε(x_j) for x_j > ε (from window index ``start`` on, when given: x_start > ε), and a relative
    error bound for each (max over terms)."""
    x, mass, suf = _untilted(m)
    i = int(np.searchsorted(x, eps, side="right")) if start is None else start  # locations increase: x[i:] > ε
    if i >= len(x):
        return np.zeros(0), 0.0
    t = mass[i:] * (-np.expm1(eps - x[i:]))
    # errors: the mass within rel (:mod:`.untilted`), expm1 4 ulp plus its argument's rounding (u|ε − x| relative to
    # |ε − x| <= 2u relative), product 1u: within 2·rel, and the readers widen by (1 ± rel)·e^{±4rel}
    rel = 8 * U * float(suf[i]) + 16 * U
    return t, rel


def _chernoff(m: GridMeasure, t: float, eps: float) -> float:
    """t·2^scale·e^{−θε} rounded up (t a removed tilted mass of m)."""
    if t == 0:
        return 0.0
    if math.isinf(t):
        return math.inf
    arg = m.scale * math.log(2) + math.log(t) - m.theta * eps
    return math.exp(arg) * (1 + 64 * U * (1 + abs(m.scale) + m.theta * abs(eps))) if arg < 700 else math.inf


def delta_upper(m: GridMeasure, eps: float) -> float:
    """An upper bound on ∫f_ε dm (m an upper measure; ε: a float at or below the true ε)."""
    t, rel = _terms(m, eps)
    s = float(t.sum()) if len(t) else 0.0
    s = s * (1 + rel) * (1 + len(t) * U) * math.exp(4 * rel) + len(t) * 2.0**-1073  # subnormal terms: absolute error
    # each removed part adds the smaller of its Chernoff bound and its untilted mass (f_ε <= min(1, e^{θ(x−ε)}))
    tail = _up(min(_chernoff(m, m.dropped, eps), m.dropped_raw) + min(_chernoff(m, m.tail, eps), m.tail_raw))
    return _up(_up(s + tail) + _err_term(m, eps)) * (1 + 4 * U)


def _err_term(m: GridMeasure, eps: float, start: int | None = None) -> float:
    """The error vector's contribution to ∫f_ε: at most 2^scale·err·‖w‖₂ over the entries above ε (:mod:`.l2_error`),
    or over the span's entries from window index ``start`` on (x_start > ε)."""
    if m.err == 0:
        return 0.0
    # the first span index above ε (one more to the left only adds a term >= 0 to the bound)
    j = max(m.j0, math.floor((eps - m.shift) / m.h)) if start is None else m.j0 + start
    return delta_error(m.err, m.scale, m.theta, m.h, j * m.h + m.shift, m.end - j, eps)


#: from this many entries on, :func:`delta_lower` reads suffix sums (O(1) an evaluation after one O(n) pass)
SUFFIX_MIN = 4096
def _delta_lower_suffix(m: GridMeasure, eps: float, start: int | None = None) -> float:
    """The lower bound of :func:`delta_lower` from suffix sums: Σ_{x_j>ε} m_j(1 − e^{ε−x_j}) = S₁ − e^ε·S₂ with
    S₁ = Σ m_j, S₂ = Σ m_j e^{−x_j} over the same j, S₁ rounded down and e^ε·S₂ up. Bounds: each mass within rel (as
    in :func:`_terms`), e^{−x_j} within 8u(1 + max|x|) (exp 4 ulp, x = (j₀ + k)h + shift rounded once), each suffix sum
    of k non-negative terms within γ_k of its exact sum (any summation order), e^ε within 8u. A j whose computed
    x_j > ε hides a true x_j <= ε: its term m_j(1 − e^{ε−x_j}) <= 0 then, so the sum stays below δ."""
    x, s1, s2, suf, xmax = _suffix_sums(m)
    i = int(np.searchsorted(x, eps, side="right")) if start is None else start
    n = len(x)
    if i >= n:
        return 0.0
    k = n - i
    g = k * U / (1 - k * U)
    rel = 8 * U * float(suf[i]) + 16 * U
    # a mass or a product m_j·e^{−x_j} rounded into (or below) the subnormal range has an absolute error, not a
    # relative one: at most 2^-1074 each (e^{−x_j} itself is 0 for x_j > 745, where the true product is below
    # 2^-1075 as m_j <= 1) — counted on both sums
    under = k * 2.0**-1073
    lo1 = float(s1[i]) * (1 - g) * (1 - rel) * (1 - 2 * U) - under
    up2 = (float(s2[i]) * (1 + g) * (1 + rel) * (1 + 8 * U * (1 + xmax)) + under) * (1 + 2 * U)
    if not (math.isfinite(lo1) and math.isfinite(up2)) or eps > 700:
        return _delta_lower_terms(m, eps, start)
    e_up = math.exp(eps) * (1 + 8 * U)
    res = (lo1 - e_up * up2 * (1 + 2 * U)) * (1 - 4 * U)
    # at large ε, e^ε times the underflow part swamps δ (ε = 684: e^ε·2^-1073 ~ 2^-87 a term; measured: S₂ lost its
    # terms beyond x = 745 and the lower end came out 28 % above the term-by-term sum): sum the terms instead
    if not e_up * under <= 1e-9 * max(res, 0.0):
        return _delta_lower_terms(m, eps, start)
    return max(0.0, (res - _err_term(m, eps, start)) * (1 - 2 * U))


def delta_lower(m: GridMeasure, eps: float) -> float:
    """A lower bound on ∫f_ε dm (m a lower measure; ε: a float at or above the true ε). Large measures: by suffix sums
    (:func:`_delta_lower_suffix`; the bisections of ε(δ) evaluate δ ~10-20 times on each fine-grid term)."""
    one = _delta_lower_suffix if len(m.v) >= SUFFIX_MIN and SUFFIX else _delta_lower_terms
    if m.err == 0:
        return one(m, eps)
    # the ℓ2 term weighs the error by e^{−θx}: far below the tilt's peak it can exceed the mass there. The true
    # entries are >= 0 and so are their terms above ε, so dropping the entries in (ε, x_i) keeps a lower bound, and the
    # error vector then counts from i on: the best of a few cut points between ε and the peak of v
    x = _untilted(m)[0]
    i0 = int(np.searchsorted(x, eps, side="right"))
    peak = int(np.argmax(m.v))
    if peak <= i0:
        return one(m, eps)
    return max(one(m, eps, i0 + (peak - i0) * k // LOWER_CUTS) for k in range(LOWER_CUTS + 1))


#: cut points tried by :func:`delta_lower` between ε and the peak of a measure with an ℓ2 error (measured: σ = 1,
#: q = 1/100, T = 10⁴, δ = 1e-18, h = 2^-13: at ε = 0 the ℓ2 term was 1e6 against δ ≈ 1, and the lower end was 0)
LOWER_CUTS = 8


#: the suffix-sum path of :func:`delta_lower` (False: the term-by-term sum only)
SUFFIX = True


def _delta_lower_terms(m: GridMeasure, eps: float, start: int | None = None) -> float:
    t, rel = _terms(m, eps, start)
    s = float(t.sum()) if len(t) else 0.0
    # a term rounded into the subnormal range: an absolute error of at most 2^-1074 (mass and product), not relative
    s = s * (1 - rel) * (1 - len(t) * U) * math.exp(-4 * rel) * (1 - 4 * U) - len(t) * 2.0**-1073
    return max(0.0, (s - _err_term(m, eps, start)) * (1 - 2 * U))
