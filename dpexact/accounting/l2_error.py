"""The FFT error of a grid measure carried in ℓ2 form, and added once, when δ(ε) is evaluated.

Why: a per-entry (ℓ∞) bound b added to every entry of a computed convolution counts the error n times over in
δ(ε) = Σ_j w_j m_j (and in every later convolution, whose mass it inflates by n·b); measured on the DP-SGD rows it
was the main limit of the width at fine grids (ARCHITECTURE.md, "Accountant"). The FFT's rigorous bound is an ℓ2 one
(Higham 2002, *Accuracy and Stability of Numerical Algorithms*, §24.1, Thm 24.2; :func:`.grid_measure.fft_error_bound`),
and δ is a linear functional with weights 0 <= w_j, so an error vector e adds at most ‖w‖₂‖e‖₂ (Cauchy–Schwarz).

**Invariant.** A :class:`~.grid_measure.GridMeasure` with ``err = E`` (units 2^scale, like its entries v) stands
for a measure p >= 0 on its span — grid indices [j0, end), its window of v and possibly beyond on the right — with
‖p − v‖₂ <= E (v read as 0 off its window). For an upper measure the true PLD is ≼ p + (removed parts); for a lower
one p ≼ the true PLD. (E = 0: the measure is v itself, as discretised.)

**Composition** (:func:`convolve_error`). p₁∗p₂ − c̃ = (g₁∗g₂ − c̃) + g₁∗e₂ + e₁∗g₂ + e₁∗e₂ with g = v, e = p − g,
c̃ the computed convolution of g₁, g₂; Young's inequality ‖a∗b‖₂ <= ‖a‖₁‖b‖₂ and ‖e‖₁ <= √n‖e‖₂ (n the span's
length) give

    E₁₂ <= F + ‖g₁‖₁E₂ + ‖g₂‖₁E₁ + √min(n₁, n₂)·E₁E₂,                                                   (R)

F the bound on ‖c̃ − g₁∗g₂‖₂ (FFT or direct sums); p₁∗p₂ >= 0 lives on the sum of the spans. Clipping c̃ at 0 moves
every entry towards p₁∗p₂'s (a projection onto [0, ∞), 1-Lipschitz), so (R) still holds for max(c̃, 0). For a
k-fold power by repeated squaring, (R) with g₁ = g₂ reads E_{2k} <= F_k + 2‖g_k‖₁E_k + √n_k E_k²: relative to the
mass ‖g_k‖₁ the error doubles per squaring plus the new rounding — it grows like k·(relative F), the order of the
per-entry bound's mass, but it is never multiplied by the window's length, and δ counts it once.

**Cuts** (:func:`.grid_measure.normalise`). A cut true entry satisfies 0 <= p_j <= v_j + |e_j|; an upper measure may
be replaced by a larger one (more mass, or mass moved up), so the two non-negative parts are handled apart:

* right cut: v_j goes to the removed part ``tail`` (as before), |e_j| stays in the error vector — the entry
  p′_j = |e_j| has v′_j = 0, so ‖p′ − v′‖₂ <= E unchanged, and the span keeps its end;
* left cut: |e_j| is moved up onto the first kept point (tilted mass <= E·(Σ e^{2θ(x_a − x_j)})^{1/2},
  :func:`fold_error_mass`) or removed into ``dropped`` (tilted mass <= √(#cut)·E, :func:`cut_error_mass`;
  untilted <= 2^s E (Σ e^{−2θx_j})^{1/2}, :func:`raw_error_mass`).

A lower measure drops its cut entries (p restricted to the kept window is ≼ p, and e restricted has a smaller norm).

**Evaluation** (:func:`delta_error`). δ's contribution of e is |Σ_{x_j > ε} 2^s e^{−θx_j} f_ε(x_j) e_j| <= 2^s E·W,

    W² = Σ_{j >= i} e^{−2θx_j} f_ε(x_j)² = e^{−2θε} Σ_{k=0}^{N−1} e^{−2θt_k}(1 − e^{−t_k})²,  t_k = t₀ + kh,

i the first index with x_i > ε, N = n − i; expanding the square gives three finite geometric series
S(a) = e^{−at₀}(1 − e^{−ahN})/(1 − e^{−ah}) (S(0) = N): W² = e^{−2θε}(S(2θ) − 2S(2θ + 1) + S(2θ + 2)), evaluated in
arb balls (the difference cancels when θ is small; the balls say by how much). The upper end adds 2^s E W, the
lower end subtracts it.

**Where it loses.** ‖e‖₂ forgets where the error sits, and W weighs it by e^{−θx}: at an ε far below the measure's
tilted peak the term can exceed the mass there (measured: σ = 1, q = 1/100, T = 10⁴, h = 2^-13, ε = 0: 1e6 against
δ ≈ 1, so the lower end was 0). Two remedies, both sound: the lower end may drop the entries in (ε, x_i) (their true
terms are >= 0) and count the error from i on — :func:`.grid_measure.delta_lower` keeps the best of a few i; and a
measure may turn its ℓ2 error into a per-entry one (|e_j| <= ‖e‖₂: v ± E on every entry,
:func:`.grid_measure.to_entries`) before a product carried per entry, as until v6, which keeps the error where the
factors' mass is (the split's terms k >= 2, :data:`.split_composition.ENTRY_FROM`).
"""

from __future__ import annotations

import math

import numpy as np

from ..numbers.dot import dot_unthreaded

__all__ = ["convolve_error", "delta_error", "cut_error_mass", "raw_error_mass", "fold_error_mass", "direct_error"]

U = 2.0**-53


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def convolve_error(F: float, g1: float, e1: float, n1: int, g2: float, e2: float, n2: int) -> float:
    """(R) of the module docstring, rounded up: ``g1``, ``g2`` upper bounds on ‖g₁‖₁, ‖g₂‖₁; ``e1``, ``e2`` the
    factors' ℓ2 errors, ``n1``, ``n2`` their windows' lengths; ``F`` the new rounding's ℓ2 bound."""
    if e1 == 0 and e2 == 0:
        return F
    cross = g1 * e2 + g2 * e1 + math.sqrt(min(n1, n2)) * (1 + U) * e1 * e2
    return _up(_up(F + cross * (1 + 4 * U)) * (1 + 2 * U))


def direct_error(c: np.ndarray, terms: int) -> float:
    """ℓ2 bound of the direct convolution's rounding: each entry a sum of <= ``terms`` non-negative products,
    relative error <= γ_{terms+1} (Higham Thm 3.1 / §3.1), doubled; plus a subnormal unit per entry."""
    norm = math.sqrt(dot_unthreaded(c, c) * (1 + len(c) * U)) * (1 + U)
    return _up(2 * (terms + 2) * U * norm * (1 + 4 * U) + math.sqrt(len(c)) * 2.0**-1074 * 2)


def cut_error_mass(E: float, count: int) -> float:
    """An upper bound on Σ|e_j| over ``count`` cut entries (Cauchy–Schwarz: <= √count·‖e‖₂)."""
    if E == 0 or count == 0:
        return 0.0
    return _up(math.sqrt(count) * E * (1 + 4 * U))


def raw_error_mass(E: float, x_first: float, count: int, h: float, theta: float, scale: int) -> float:
    """An upper bound on Σ_j |e_j|·2^scale·e^{−θx_j} over the ``count`` grid points x_first, x_first + h, ...
    (Cauchy–Schwarz: <= 2^scale·E·(Σ_j e^{−2θx_j})^{1/2}, the sum a finite geometric series, in arb balls)."""
    if E == 0 or count <= 0:
        return 0.0
    from flint import arb

    from ..numbers.backends import ball_context

    with ball_context(128):
        th2, H, N = 2 * arb(theta), arb(h), arb(count)
        if theta == 0:
            S = N
        else:
            # x_first = j·h + shift rounded once: moved down by its rounding's bound (a larger sum)
            S = (-th2 * (arb(x_first) - abs(x_first) * U)).exp() * (-(-th2 * H * N).expm1()) / (-(-th2 * H).expm1())
        lg = arb(scale) * arb(2).log() + arb(E).log() + S.log() / 2
        if not lg < 700:
            return math.inf
        return _up(float(lg.exp().upper()))


def fold_error_mass(E: float, gain: np.ndarray) -> float:
    """An upper bound on Σ_j |e_j| e^{gain_j} (the tilted mass of error entries moved up by gain_j/θ)."""
    if E == 0 or len(gain) == 0:
        return 0.0
    top = 2 * float(gain.max())
    if top > 1400:
        return math.inf
    s = float(np.exp(2 * gain - top).sum())
    lg = math.log(E) + 0.5 * (top + math.log(s))
    if lg > 700:
        return math.inf
    return _up(math.exp(lg) * (1 + (32 * (top + 1) + 8 * len(gain) + 64 + 8 * abs(lg)) * U))


def delta_error(E: float, scale: int, theta: float, h: float, x_first: float, count: int, eps: float) -> float:
    """2^scale·E·W (module docstring): an upper bound on the error vector's contribution to δ(ε) from the ``count``
    entries at x_first, x_first + h, ... (all > ε). 0 when E or count is 0."""
    if E == 0 or count <= 0:
        return 0.0
    from flint import arb

    from ..numbers.backends import ball_context

    with ball_context(192):
        t0 = arb(x_first) - abs(x_first) * U - arb(eps)  # x_first rounded once: moved down (a larger bound)
        H, N, th = arb(h), arb(count), arb(theta)

        def S(a: arb) -> arb:
            if a == 0:
                return N
            return (-a * t0).exp() * (-(-a * H * N).expm1()) / (-(-a * H).expm1())

        w2 = S(2 * th) - 2 * S(2 * th + 1) + S(2 * th + 2)
        if not w2 > 0:  # the ball straddles 0 only through its radius: its upper end is still a bound
            if not w2.upper() > 0:
                return 0.0
            w2 = arb(w2.upper())
        lg = arb(scale) * arb(2).log() + arb(E).log() - th * arb(eps) + w2.log() / 2
        if lg > 700:
            return math.inf
        return _up(float(lg.exp().upper()))
