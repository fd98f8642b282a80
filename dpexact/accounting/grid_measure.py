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

Representation (:class:`GridMeasure`): atoms at x_j = j·h + shift (h a power of two, shift a
dyadic: exact floats), stored **exponentially tilted**: v[i]·2^scale = m_j·e^{θ x_j} for
j = j0 + i, with θ >= 0 fixed for a whole computation. Tilting commutes with convolution
(e^{θ(x+y)} = e^{θx}e^{θy}); it keeps the region that decides δ(ε) (losses near ε) at the top of
the float range, so the FFT's absolute error — relative to the largest tilted entries — is small
there (saddle-point / exponential tilting, as in Esscher's transform). An upper measure also
carries ``dropped`` (units 2^scale): the tilted mass ∫e^{θx}dν of parts removed from the grid; since
f_ε(x) <= e^{θ(x − ε)} for θ >= 0, the removed part adds at most dropped·2^scale·e^{−θε} to (1)
(Chernoff's bound).

FFT error (numpy's pocketfft; Higham 2002, *Accuracy and Stability of Numerical Algorithms*,
Thm 24.2: ‖fl(Fx) − Fx‖₂ <= (log₂N)η/(1 − (log₂N)η)·‖Fx‖₂, η = μ + γ₄(√2 + μ)): with
ρ = that factor (we take η = 16u, above γ₄√2 + μ for twiddles accurate to 2u), the computed
c̃ = IFFT(FFT a · FFT b) of non-negative a, b satisfies

    ‖c̃ − a∗b‖_∞ <= ‖c̃ − a∗b‖₂ <= (1 + ρ)(ρ(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂) + ρ²√N‖a‖₂‖b‖₂ + 4u‖a‖₂‖b‖₁) + ρ‖a‖₂‖b‖₁

(‖Fa‖_∞ <= ‖a‖₁, ‖F⁻¹v‖₂ = ‖v‖₂/√N); :func:`fft_error_bound` doubles it. Upper entries get
+bound, lower entries −bound (clipped at 0).

Evaluation of (1) uses numpy's exp/expm1/log, assumed accurate to 4 ulp (numpy's SIMD and
glibc's implementations are documented within that), each term's argument error bounded, and
the sum's rounding bounded by n·u; the end result is widened by the total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

__all__ = ["GridMeasure", "convolve", "power", "fft_error_bound", "delta_upper", "delta_lower", "U"]

U = 2.0**-53
#: entries with tilted mass below max·2^-CUT_BITS are removed (upper: into ``dropped``)
CUT_BITS = 60


@dataclass(frozen=True)
class GridMeasure:
    """A measure on the grid {j·h + shift}, tilted by e^{θx}, with tilted mass v[i]·2^scale at j0 + i.

    Attributes:
        h: grid step (a power of two).
        theta: tilt θ >= 0.
        j0: grid index of v[0].
        shift: the common offset of all atoms (a dyadic float).
        v: non-negative float64 entries (max 1 after normalising).
        scale: binary exponent of the entries.
        upper: True for a pessimistic (upper) measure, False for an optimistic (lower) one.
        dropped: (upper only) tilted mass removed from the grid, in units 2^scale.
    """

    h: float
    theta: float
    j0: int
    shift: float
    v: np.ndarray
    scale: int
    upper: bool
    dropped: float = 0.0

    @property
    def size(self) -> int:
        return len(self.v)

    def locations(self) -> np.ndarray:
        return (self.j0 + np.arange(len(self.v), dtype=np.float64)) * self.h + self.shift


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def normalise(m: GridMeasure, floor: float = 0.0) -> GridMeasure:
    """Cut entries below max(max·2^-CUT_BITS, 4·floor) at both ends (upper: into ``dropped``) and rescale
    so max v = 1 (exact). ``floor`` is the FFT error bound just added: entries at that level carry no
    information, and keeping them would let the support grow linearly with the number of compositions."""
    v = m.v
    if len(v) == 0 or not np.any(v > 0):
        return replace(m, v=np.zeros(1), j0=m.j0, dropped=m.dropped)
    top = float(v.max())
    keep = np.nonzero(v >= max(top * 2.0**-CUT_BITS, 4 * floor))[0]
    a, b = int(keep[0]), int(keep[-1]) + 1
    dropped = m.dropped
    if m.upper and (a > 0 or b < len(v)):
        out = float(v[:a].sum()) + float(v[b:].sum())
        dropped = _up(_up(dropped + out * (1 + len(v) * U)))
    v = v[a:b]
    e = math.frexp(top)[1]
    if dropped > 0:
        try:
            dropped = _up(math.ldexp(dropped, -e) * (1 + 2 * U))
        except OverflowError:  # the removed part dwarfs the kept one: the bound is then ∞ (still true)
            dropped = math.inf
    return replace(m, v=np.ldexp(v, -e), j0=m.j0 + a, scale=m.scale + e, dropped=dropped)


def fft_error_bound(a: np.ndarray, b: np.ndarray, n_fft: int) -> float:
    """A bound on max_k |c̃_k − (a∗b)_k| for the numpy FFT convolution (module docstring), doubled."""
    lg = max(1.0, math.log2(n_fft))
    eta = 16 * U
    rho = lg * eta / (1 - lg * eta)
    a1, b1 = float(a.sum()) * (1 + len(a) * U), float(b.sum()) * (1 + len(b) * U)
    a2, b2 = math.sqrt(float(np.dot(a, a)) * (1 + len(a) * U)) * (1 + U), math.sqrt(float(np.dot(b, b)) * (1 + len(b) * U)) * (1 + U)
    e = (1 + rho) * (rho * (a2 * b1 + a1 * b2) + rho * rho * math.sqrt(n_fft) * a2 * b2 + 4 * U * a2 * b1) + rho * a2 * b1
    return 2 * e


def convolve(x: GridMeasure, y: GridMeasure) -> GridMeasure:
    """The composition x ∗ y (same h, θ, side): FFT convolution with its error bound added outward."""
    if x.h != y.h or x.theta != y.theta or x.upper != y.upper:
        raise ValueError("convolve: measures on different grids, tilts or sides")
    n = len(x.v) + len(y.v) - 1
    if len(x.v) * len(y.v) <= 4096:
        c = np.convolve(x.v, y.v)
        # direct sums of m non-negative products: relative error <= γ_{m+1} per entry
        err = 2 * (min(len(x.v), len(y.v)) + 2) * U * c + 2.0**-1074
    else:
        nf = 1 << (n - 1).bit_length()
        c = np.fft.irfft(np.fft.rfft(x.v, nf) * np.fft.rfft(y.v, nf), nf)[:n]
        err = fft_error_bound(x.v, y.v, nf)
    if x.upper:
        c = np.maximum(c, 0.0) + err * (1 + 4 * U)
        c = c * (1 + 2 * U)
        sx, sy = float(x.v.sum()) * (1 + len(x.v) * U), float(y.v.sum()) * (1 + len(y.v) * U)
        dropped = (x.dropped * (sy + y.dropped) + sx * y.dropped) * (1 + 4 * U)
    else:
        c = np.maximum(c - err * (1 + 4 * U), 0.0)
        dropped = 0.0
    out = GridMeasure(x.h, x.theta, x.j0 + y.j0, x.shift + y.shift, c, x.scale + y.scale, x.upper, dropped)
    return normalise(out, float(np.max(err)) if x.upper else 0.0)


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


def _terms(m: GridMeasure, eps: float) -> tuple[np.ndarray, float]:
    """Terms m_j·f_ε(x_j) for x_j > ε, and a relative error bound for each (max over terms)."""
    x = m.locations()
    sel = x > eps
    if not np.any(sel):
        return np.zeros(0), 0.0
    xs, vs = x[sel], m.v[sel]
    pos = vs > 0
    xs, vs = xs[pos], vs[pos]
    if len(vs) == 0:
        return np.zeros(0), 0.0
    arg = np.log(vs) + m.scale * math.log(2) - m.theta * xs  # log of the untilted mass
    t = np.exp(arg) * (-np.expm1(eps - xs))
    # errors: log(v) 4 ulp (abs 4u|log v|), scale·ln2 and θx products/sums (4u·|terms|), exp 4 ulp,
    # expm1 4 ulp plus its argument's rounding (u|ε − x| relative to |ε − x| <= 2u relative), product 1u
    big = np.abs(np.log(vs)) + abs(m.scale * math.log(2)) + m.theta * np.abs(xs)
    rel = float(np.max(8 * U * big)) + 16 * U
    return t, rel


def delta_upper(m: GridMeasure, eps: float) -> float:
    """An upper bound on ∫f_ε dm (m an upper measure; ε: a float at or below the true ε)."""
    t, rel = _terms(m, eps)
    s = float(t.sum()) if len(t) else 0.0
    s = s * (1 + rel) * (1 + len(t) * U) * math.exp(4 * rel)
    tail = 0.0
    if math.isinf(m.dropped):
        tail = math.inf
    elif m.dropped > 0:
        tail = math.exp(m.scale * math.log(2) + math.log(m.dropped) - m.theta * eps) * (1 + 64 * U * (1 + abs(m.scale) + m.theta * abs(eps)))
    return _up(s + tail) * (1 + 4 * U)


def delta_lower(m: GridMeasure, eps: float) -> float:
    """A lower bound on ∫f_ε dm (m a lower measure; ε: a float at or above the true ε)."""
    t, rel = _terms(m, eps)
    s = float(t.sum()) if len(t) else 0.0
    return max(0.0, s * (1 - rel) * (1 - len(t) * U) * math.exp(-4 * rel) * (1 - 4 * U))
