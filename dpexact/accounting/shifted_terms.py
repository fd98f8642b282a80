"""A term B^{∗n} ∗ A of the split composition (:mod:`.split_composition`) bounded by *shifted evaluation*:

    ∫f_ε d(B^{∗n} ∗ A) = Σ_y A({y})·δ_n(ε − y),   δ_n(t) = ∫f_t dB^{∗n},                                (1)

(f_ε(x + y) = f_{ε−y}(x), Fubini), instead of one FFT product on a common grid and tilt.

Why: the two factors live on different scales — B^{∗n} (the bulk, composed n times) is narrow, A (one or a few steps in
the heavy tail) is wide — and a product tilted at one θ must cover both. At a small θ the losses near ε sit far right of
the product's tilted peak, where the bulk's FFT noise (cut into a removed part, bounded by its untilted mass) is
weighted by all of A's mass; at a large θ A's tilted range exceeds the float range and its bulk is cut (measured:
σ = 2, q = 1/1000, T = 100, δ = 1e-18, h = 2^-17, the term k = 1 in [8.8e-21, 1.6e-19] by the product at θ = 100;
by (1) [9.2398e-21, 9.2408e-21]). In (1) each t = ε − y is evaluated on B^{∗n} at whichever of a few tilts
(a ladder, :func:`tilt_ladder`) bounds it best: every tilted copy is a proved measure of its own, so the least upper
and the largest lower bound at each t are both sound.

Soundness. g(y) = δ_n(ε − y) is non-decreasing in y and >= 0, so for A′ ≽ A (upper, :mod:`.grid_measure`)
Σ_y A′({y})·U(ε − y) >= ∫g dA whenever U(t) >= δ_n(t) at those t, and for a lower A″ ≼ A with 0 <= L(t) <= δ_n(t),
Σ_y A″({y})·L(ε − y) <= ∫g dA. U and L at many t at once (:class:`Profile`): the suffix sums S₁ = Σ_{x_j>t} m_j,
S₂ = Σ_{x_j>t} m_j e^{−x_j} of one measure, δ = S₁ − e^t·S₂ with each sum rounded outward (γ_k for k terms, the
masses' own error as in :func:`.grid_measure._terms`), the removed parts' min(Chernoff, untilted) for U, and the ℓ2
error's term err·‖w_t‖₂ (:mod:`.l2_error`) bounded in closed form (:meth:`Profile._err`). t = ε − y is rounded down for U and up for L (δ_n is non-increasing). A's removed parts add their
untilted mass times sup U (f <= 1); A's masses are its untilted entries rounded up (down for A″).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..numbers.dot import dot_unthreaded
from .grid_measure import U as _U
from .grid_measure import GridMeasure, _suffix_sums, raw_total, raw_total_untilted

__all__ = ["Profile", "ShiftedTerm", "retilt", "tilt_ladder"]

#: tilts of the bulk's copies (:func:`tilt_ladder`): the product's, and LADDER + 1 geometrically spaced up to the top
#: one, spanning at most LADDER_RATIO^LADDER. 2 tilts above the product's (not 5) halve the bulk's power chains and
#: profiles, most of the split route's CPU; measured on the DP-SGD table: 108 of 108 rows still met, total CPU 343 →
#: 280 s, σ = 2, q = 1/1000, T = 1000, δ = 1e-5 7.1 → 3.9 s with the same interval, the largest relative width change ×1.014
LADDER = 1
LADDER_RATIO = 81.0
#: the evaluation window of a shifted term leaves out y whose bound (upper end) is below this fraction of the term
WINDOW_REL = 1e-12
#: a shifted term's window is chosen from about this many of its y (:meth:`_End._sampled`) rather than from all (the
#: first evaluation of a pass read both profiles at every y: measured σ = 2, q = 1/100, T = 100, δ = 1e-18 at 2^-16,
#: 0.24 s against 0.023 s for a windowed one); 0: from all
FULL_SAMPLE = 4096


def retilt(m: GridMeasure, theta: float, removed: bool = False) -> GridMeasure | None:
    """The same measure tilted at ``theta`` instead of m.theta: v_i·e^{(θ′−θ)x_i}, each product rounded outward (exp
    within 4 ulp, the argument's rounding 4u of its magnitude, the product 1u), renormalised by
    :func:`.grid_measure.normalise`. ``None`` when m has an ℓ2 error, or removed parts and not ``removed``: their tilted
    masses cannot be re-tilted without their locations. With ``removed`` an upper measure's removed parts keep their
    untilted bounds only (tilted mass ∞: each then adds min(Chernoff = ∞, untilted) = its untilted mass)."""
    from .grid_measure import normalise

    if m.err or ((m.dropped or m.tail) and not (removed and m.upper)):
        return None
    x = m.locations()
    arg = (theta - m.theta) * x
    f = 8 * _U * (np.abs(arg) + 2)
    pos = m.v > 0
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        lv = np.where(pos, np.log(np.where(pos, m.v, 1.0)) + arg, -np.inf)
    top = float(lv.max())
    e = math.ceil(top / math.log(2))
    with np.errstate(under="ignore"):
        v = np.exp(lv - e * math.log(2))
    # log and exp 4 ulp each, the shift by e·ln2 rounded: a relative error within f + 8u(|lv| + |e| + 2)
    g = f + 8 * _U * (np.abs(np.where(pos, lv, 0.0)) + abs(e) + 2)
    v = v * (1 + g) * (1 + 2 * _U) if m.upper else v * (1 - g) * (1 - 2 * _U)
    drop = math.inf if m.dropped else 0.0
    tail = math.inf if m.tail else 0.0
    out = GridMeasure(m.h, theta, m.j0, m.shift, np.where(pos, v, 0.0), m.scale + e, m.upper, drop,
                      m.dropped_raw if m.upper else 0.0, tail, m.tail_raw if m.upper else 0.0)
    return normalise(out)


def tilt_ladder(low: float, top: float) -> list[float]:
    """LADDER + 1 tilts from ``low`` (the product's tilt: losses near ε reached by one tail step, t = ε − y ≈ 0) to
    ``top`` (the bulk alone reaching the largest t), geometrically spaced, dyadic-rounded; [low] when top <= low. A
    float choice of accuracy only: every copy is a proved measure."""
    def dy(t: float) -> float:
        return 0.0 if t < 1e-6 else math.ldexp(math.floor(math.ldexp(t, 16)), -16)

    if top <= low * (1 + 1e-9):
        return [dy(low)]
    a = max(low, top / LADDER_RATIO**LADDER, 1e-3)
    out = [dy(low)]
    for i in range(LADDER + 1):
        t = dy(a * (top / a) ** (i / LADDER))
        if t not in out:
            out.append(t)
    return out


class Profile:
    """Bounds on δ_m(t) = ∫f_t dm at many t at once, for one upper or lower grid measure m (module docstring)."""

    def __init__(self, m: GridMeasure) -> None:
        self.m = m
        x, s1, s2, suf, xmax = _suffix_sums(m)
        self.x, self.s1, self.s2, self.suf, self.xmax = x, s1, s2, suf, xmax
        self.n = len(x)
        # the total untilted mass, an upper bound on δ_m(t) at every t (f_t <= 1) — upper measures only
        self.mass = raw_total_untilted(m) if m.upper else 0.0
        self._err_k: tuple[float, float] | None = None

    def _index(self, t: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.x, t, side="right")

    def _parts(self, t: np.ndarray, outward_up: bool) -> np.ndarray:
        """S₁ − e^t S₂ over x_j > t, rounded up (outward_up) or down; 0 where no entry lies above t."""
        i = self._index(t)
        n = self.n
        k = (n - np.minimum(i, n)).astype(np.float64)
        g = k * _U / (1 - k * _U)
        ii = np.minimum(i, n - 1)
        rel = 8 * _U * self.suf[ii] + 16 * _U
        ex = 8 * _U * (1 + self.xmax)
        # masses and products m_j·e^{−x_j} rounded into (or below) the subnormal range: an absolute error of at most
        # 2^-1074 each, on both sums (as in grid_measure._delta_lower_suffix)
        under = k * 2.0**-1073
        with np.errstate(over="ignore", invalid="ignore"):
            if outward_up:
                a = self.s1[ii] * (1 + g) * (1 + rel) * (1 + 2 * _U) + under
                b = np.maximum(self.s2[ii] * (1 - g) * (1 - rel) * (1 - ex) - under, 0.0) * (1 - 2 * _U)
                e = np.exp(t) * (1 - 8 * _U)
                d = (a - e * b * (1 - 2 * _U)) * (1 + 4 * _U)
            else:
                a = self.s1[ii] * (1 - g) * (1 - rel) * (1 - 2 * _U) - under
                b = (self.s2[ii] * (1 + g) * (1 + rel) * (1 + ex) + under) * (1 + 2 * _U)
                e = np.exp(t) * (1 + 8 * _U)
                d = (a - e * b * (1 + 2 * _U)) * (1 - 4 * _U)
        d = np.where(i >= n, 0.0, d)
        if outward_up:  # an overflowed term makes the bound useless, never wrong: +∞
            return np.where(np.isfinite(d), np.maximum(d, 0.0), np.inf)
        return np.where(np.isfinite(d), np.maximum(d, 0.0), 0.0)

    def _err(self, t: np.ndarray) -> np.ndarray:
        """An upper bound on the ℓ2 error's term at each t: 2^s·err·‖w_t‖₂ (:mod:`.l2_error`), w_t(x_j) =
        e^{−θx_j}(1 − e^{t−x_j}) over the span's x_j > t. With x_f the first of them (x_f >= max(t, x_{j0})) and
        x_f + jh the others, ‖w_t‖₂² <= e^{−2θx_f}·Σ_{j>=0} r^j·c_j², r = e^{−2θh}, c_j >= 1 − e^{t−x_f−jh}:
        c_j = 1 always, and c_j = (j + 1)h when x_f − t <= h (every t >= x_{j0} − h). So the term is at most
        K·e^{−θ·max(t, x_{j0})} with K = 2^s·err·√C, C = min(h²(1 + r)/(1 − r)³, 1/(1 − r), n) near the span and
        min(1/(1 − r), n) below it (n the span's length); both constants in arb once."""
        m = self.m
        if m.err == 0 or len(t) == 0:
            return np.zeros(len(t))
        if self._err_k is None:
            from flint import arb

            from ..numbers.backends import ball_context

            with ball_context(128):
                n = arb(m.end - m.j0)
                far = near = n
                if m.theta > 0:
                    r = (-2 * arb(m.theta) * arb(m.h)).exp()
                    if r < 1:
                        far = min(n, 1 / (1 - r))
                        near = min(far, arb(m.h) ** 2 * (1 + r) / (1 - r) ** 3)
                else:
                    near = min(n, arb(m.h) ** 2 * n * (n + 1) * (2 * n + 1) / 6)
                base = arb(2) ** m.scale * arb(m.err)
                self._err_k = tuple(math.nextafter(float((base * c.sqrt()).upper()), math.inf) for c in (near, far))
        x0 = m.j0 * m.h + m.shift
        arg = -m.theta * np.maximum(t, x0)
        k = np.where(t >= x0 - m.h, self._err_k[0], self._err_k[1])
        with np.errstate(over="ignore"):
            e = k * np.exp(arg) * (1 + 8 * _U * (2 + np.abs(arg)))
        return np.where(t >= m.end * m.h + m.shift, 0.0, e)

    def upper(self, t: np.ndarray) -> np.ndarray:
        """U(t) >= δ_m(t) (m an upper measure; t already rounded down)."""
        m = self.m
        d = self._parts(t, True)
        for tilted, raw in ((m.dropped, m.dropped_raw), (m.tail, m.tail_raw)):
            if tilted > 0:  # a removed part adds min(Chernoff, untilted); with no tilted mass, nothing
                d = d + np.minimum(_chernoff_vec(m, tilted, t), raw)
        d = (d + self._err(t)) * (1 + 4 * _U)
        # the true measure is a part of one direction's P-law, composed: its mass, hence δ_m, is at most 1
        return np.minimum(d, min(self.mass, 1.0) if self.mass > 0 else 1.0)

    def lower(self, t: np.ndarray) -> np.ndarray:
        """0 <= L(t) <= δ_m(t) (m a lower measure; t already rounded up)."""
        d = self._parts(t, False) - self._err(t) * (1 + 4 * _U)
        return np.maximum(d * (1 - 2 * _U), 0.0)


def _chernoff_vec(m: GridMeasure, tilted: float, t: np.ndarray) -> np.ndarray:
    """:func:`.grid_measure._chernoff` at many t: tilted·2^scale·e^{−θt}, rounded up."""
    if math.isinf(tilted):
        return np.full(len(t), np.inf)
    arg = m.scale * math.log(2) + math.log(tilted) - m.theta * t
    with np.errstate(over="ignore"):
        out = np.exp(arg) * (1 + 64 * _U * (1 + abs(m.scale) + m.theta * np.abs(t)))
    return np.where(arg < 700, out, np.inf)


@dataclass(frozen=True)
class _Tail:
    """A tail factor A as (1) reads it: the span's locations y (its window first), the untilted weights 2^s·e^{−θy}
    on the span (rounded outward), the window's entries v >= 0, its ℓ2 error bound and its removed parts' untilted
    mass (upper ends only)."""

    y: np.ndarray
    base: np.ndarray
    v: np.ndarray
    err: float
    rest: float


def _tail(a: GridMeasure, upper: bool) -> _Tail:
    """The true factor is some p >= 0 on the span with ‖p − v‖₂ <= err (:mod:`.l2_error`), so for weights W >= 0
    Σ p_j W_j lies within err·‖W‖₂ of Σ v_j W_j (Cauchy–Schwarz)."""
    end = max(a.end, a.j0 + len(a.v))
    y = (a.j0 + np.arange(end - a.j0, dtype=np.float64)) * a.h + a.shift
    arg = a.scale * math.log(2) - a.theta * y
    big = np.abs(a.scale * math.log(2)) + a.theta * np.abs(y)
    with np.errstate(over="ignore", under="ignore"):
        base = np.exp(arg)
    # scale·ln2 and θy rounded (4u of their magnitudes), exp within 4 ulp (as in grid_measure._raw_mass)
    f = 8 * _U * (big + 2)
    base = base * (1 + f) * (1 + 2 * _U) if upper else base * (1 - f) * (1 - 2 * _U)
    rest = 0.0
    if upper and (a.dropped > 0 or a.tail > 0 or a.dropped_raw > 0 or a.tail_raw > 0):
        rest = math.nextafter(a.dropped_raw + a.tail_raw, math.inf) * (1 + 4 * _U)
    return _Tail(y, base, np.maximum(a.v, 0.0), a.err, rest)


def _pair(tail: _Tail, U: np.ndarray, upper: bool) -> float:
    """Σ_j p_j·base_j·U_j over the span, rounded outward (module docstring of :class:`_Tail`)."""
    n = len(tail.v)
    W = tail.base * U
    if not np.all(np.isfinite(W)):
        return math.inf if upper else 0.0
    s = dot_unthreaded(tail.v, W[:n])
    e = 0.0
    if tail.err > 0:
        e = tail.err * math.sqrt(dot_unthreaded(W, W) * (1 + (len(W) + 4) * _U)) * (1 + 4 * _U)
    if upper:
        return math.nextafter((s * (1 + (n + 4) * _U) + e) * (1 + 2 * _U), math.inf)
    return max(0.0, (s * (1 - (n + 4) * _U) - e) * (1 - 2 * _U))


class _End:
    """One end of a shifted term, evaluated on a window of the tail's span: the y where the sum lives. Outside it the
    upper end adds bounds that need no bulk evaluation — left of the window (smaller y, larger t = ε − y) each term is
    at most its mass times U at the window's first point (δ_n is non-increasing in t), right of it its mass times
    sup δ_n <= ``top`` — and the lower end drops those terms (each >= 0). The window (in t) and each t's profile are
    chosen from a sample of the y (:meth:`_sampled`; a full evaluation when the sample's window fails), again when ε
    moves by more than a quarter of the window. A float choice of cost and accuracy only."""

    def __init__(self, tail: _Tail, profiles: list[Profile], upper: bool, top: float) -> None:
        self.tail, self.profiles, self.upper, self.top = tail, profiles, upper, top
        n = len(tail.v)
        a = tail.v * tail.base[:n]
        b2 = tail.base * tail.base
        # prefix sums for the left of the window, suffix sums (summed from the right) for its right: each within γ_k
        # of its own exact value, not of the whole sum's
        self.pa = np.concatenate(([0.0], np.cumsum(a)))
        self.sa = np.concatenate((np.cumsum(a[::-1])[::-1], [0.0]))
        self.pb2 = np.concatenate(([0.0], np.cumsum(b2)))
        self.sb2 = np.concatenate((np.cumsum(b2[::-1])[::-1], [0.0]))
        self.grow = 1 + (len(tail.base) + 8) * _U  # a prefix sum of k >= 0 terms within γ_k
        self.state: tuple[float, float, float, np.ndarray, np.ndarray, float] | None = None

    def _full(self, eps: float, t: np.ndarray) -> float:
        vals = np.array([p.upper(t) if self.upper else p.lower(t) for p in self.profiles])
        pick = np.argmin(vals, axis=0) if self.upper else np.argmax(vals, axis=0)
        best = vals[pick, np.arange(len(t))]
        total = _pair(self.tail, best, self.upper)
        order = np.argsort(t, kind="stable")
        n, N = len(self.tail.v), len(t)
        if not (math.isfinite(total) and total > 0):
            self.state = None
            return total
        # the window: the least y-range outside which the upper end's bounds stay below WINDOW_REL of the term
        idx = np.arange(N)
        left = best * self.pa[np.minimum(idx, n)]
        right = self.top * self.sa[np.minimum(idx + 1, n)]
        ok_l = np.nonzero(left <= WINDOW_REL * total)[0]
        ok_r = np.nonzero(right <= WINDOW_REL * total)[0]
        i0 = int(ok_l[-1]) if len(ok_l) else 0
        i1 = int(ok_r[0]) if len(ok_r) else N - 1
        if i1 < i0:
            i0, i1 = 0, N - 1
        t_hi, t_lo = float(t[i0]), float(t[i1])  # t decreases along y
        # a window that starts at the span's first y (ends at its last) keeps every y on that side as ε moves: else a
        # move up by one ulp of ε left y₀ out, its share (6e-5 of the term) sent every call back here (measured σ = 0.8,
        # q = 1/1000, T = 1000, δ = 1e-5, 2^-16: 45 of 120 calls re-windowed)
        self.state = (eps, -math.inf if i1 == N - 1 else t_lo, math.inf if i0 == 0 else t_hi, t[order], pick[order],
                      t_hi - t_lo)
        return total

    def _sampled(self, eps: float, t: np.ndarray) -> bool:
        """The window and the profiles' picks chosen as in :meth:`_full` from every (N/FULL_SAMPLE)-th t only (the term
        estimated from them, each piece of A's mass at the value at its piece's first y): a float choice; the value is
        then bounded on that window, which falls back to :meth:`_full` when its outside bounds are not negligible."""
        N, n = len(t), len(self.tail.v)
        idx = np.unique(np.concatenate((np.arange(0, N, N // FULL_SAMPLE), [N - 1])))
        ts = t[idx]
        vals = np.array([p.upper(ts) if self.upper else p.lower(ts) for p in self.profiles])
        pick = np.argmin(vals, axis=0) if self.upper else np.argmax(vals, axis=0)
        best = vals[pick, np.arange(len(ts))]
        cut = self.pa[np.minimum(np.concatenate((idx, [N])), n)]
        total = float(np.dot(np.diff(cut), best))
        if not (math.isfinite(total) and total > 0 and np.all(np.isfinite(best))):
            return False
        left = best * cut[:-1]
        right = self.top * self.sa[np.minimum(idx + 1, n)]
        ok_l = np.nonzero(left <= WINDOW_REL * total)[0]
        ok_r = np.nonzero(right <= WINDOW_REL * total)[0]
        i0 = int(idx[ok_l[-1]]) if len(ok_l) else 0
        i1 = int(idx[ok_r[0]]) if len(ok_r) else N - 1
        if i1 < i0:
            i0, i1 = 0, N - 1
        t_hi, t_lo = float(t[i0]), float(t[i1])
        order = np.argsort(ts, kind="stable")
        self.state = (eps, -math.inf if i1 == N - 1 else t_lo, math.inf if i0 == 0 else t_hi, ts[order], pick[order],
                      t_hi - t_lo)
        return True

    def __call__(self, eps: float, t_all: np.ndarray) -> float:
        st = self.state
        if st is not None and abs(eps - st[0]) <= st[5] / 4 + 1e-300:
            v = self._window(eps, t_all)
            if v is not None:
                return v
        if FULL_SAMPLE and len(t_all) > 4 * FULL_SAMPLE and self._sampled(eps, t_all):
            v = self._window(eps, t_all)
            if v is not None:
                return v
        return self._full(eps, t_all)

    def _window(self, eps: float, t_all: np.ndarray) -> float | None:
        """The term bounded on the window of :attr:`state` (upper end: plus the bounds outside it); None when the window
        no longer holds the term at this ε."""
        assert self.state is not None
        _, t_lo, t_hi, ts, ps, _ = self.state
        y = self.tail.y
        N, n = len(y), len(self.tail.v)
        i0 = int(np.searchsorted(t_all[::-1], t_hi, side="right"))  # t_all decreases: count of t > t_hi from the end
        i0 = N - i0
        i1 = N - int(np.searchsorted(t_all[::-1], t_lo, side="left"))
        i0, i1 = max(0, min(i0, N)), max(0, min(i1, N))
        if i1 <= i0:
            return None
        t = t_all[i0:i1]
        pick = ps[np.clip(np.searchsorted(ts, t), 0, len(ts) - 1)]
        U = np.empty(len(t))
        for i, p in enumerate(self.profiles):
            sel = pick == i
            if np.any(sel):
                U[sel] = p.upper(t[sel]) if self.upper else p.lower(t[sel])
        W = self.tail.base[i0:i1] * U
        if not np.all(np.isfinite(W)):
            return math.inf if self.upper else 0.0
        m0, m1 = min(i0, n), min(i1, n)
        s = dot_unthreaded(self.tail.v[m0:m1], W[: m1 - m0]) if m1 > m0 else 0.0
        w2 = dot_unthreaded(W, W)
        k = len(W) + 4
        u0 = float(U[0])
        # what lies outside the window: bounded (upper end) or dropped (lower end, where U[0] and top = 1 only
        # estimate it); more than WINDOW_REL of the sum says the window no longer holds the term at this ε
        left = u0 * self.pa[m0] * self.grow
        right = self.top * self.sa[m1] * self.grow
        if left + right > WINDOW_REL * 1e3 * s:
            return None
        if not self.upper:
            e = self.tail.err * math.sqrt(w2 * (1 + k * _U)) * (1 + 4 * _U) if self.tail.err > 0 else 0.0
            return max(0.0, (s * (1 - k * _U) - e) * (1 - 2 * _U))
        e = 0.0
        if self.tail.err > 0:
            out2 = (u0 * u0 * self.pb2[i0] + self.top**2 * self.sb2[i1]) * self.grow
            e = self.tail.err * math.sqrt((w2 * (1 + k * _U) + out2) * (1 + 4 * _U)) * (1 + 4 * _U)
        return math.nextafter((s * (1 + k * _U) + left + right + e) * (1 + 4 * _U), math.inf)


@dataclass
class ShiftedTerm:
    """One term Σ_y A({y})·δ_n(ε − y) of the split composition, both ends (module docstring). ``bulk_up`` / ``bulk_lo``:
    the bulk's n-fold powers at the tilts of the ladder (upper / lower measures; either list may be empty when that
    end is not asked for); ``tail_up`` / ``tail_lo``: A's (or A^{∗k}'s) ends, their ℓ2 error by Cauchy–Schwarz."""

    bulk_up: list[GridMeasure]
    bulk_lo: list[GridMeasure]
    tail_up: GridMeasure | None
    tail_lo: GridMeasure | None

    def __post_init__(self) -> None:
        pu = [Profile(b) for b in self.bulk_up]
        pl = [Profile(b) for b in self.bulk_lo]
        # sup_t δ_n(t) <= the true power's mass <= 1 (a part of a probability law, composed)
        self._top = min([1.0] + [p.mass for p in pu if p.mass > 0])
        self._au = _tail(self.tail_up, True) if self.tail_up is not None and pu else None
        self._al = _tail(self.tail_lo, False) if self.tail_lo is not None and pl else None
        self._eu = _End(self._au, pu, True, self._top) if self._au is not None else None
        self._el = _End(self._al, pl, False, 1.0) if self._al is not None else None
        self._crude: float | None = None

    def crude(self) -> float:
        """An upper bound on the term without evaluating the bulk: A's untilted mass (f <= 1, δ_n <= 1)."""
        if self.tail_up is None:
            return math.inf
        if self._crude is None:
            self._crude = raw_total(self.tail_up)
        return self._crude

    def up(self, eps: float) -> float:
        if self._eu is None:
            return math.inf
        t = np.nextafter(eps - self._au.y, -np.inf)  # rounded down: δ_n is non-increasing
        s = self._eu(eps, t)
        return math.nextafter(s + self._au.rest * self._top * (1 + 2 * _U), math.inf)

    def lo(self, eps: float) -> float:
        if self._el is None:
            return 0.0
        return self._el(eps, np.nextafter(eps - self._al.y, np.inf))  # t rounded up
