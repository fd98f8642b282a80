"""RNM with random stopping and heterogeneous sensitivities (hetsel Algorithm 1, Appendix C).

Definition (hetsel §IV-B, Algorithm 1, executed literally by ``rvs``): for ``j = 1, 2, ...``
draw a candidate ``a`` uniformly from the n candidates (with replacement), record
``q̃ = q_a + Lap(b_a)`` with ``b_a = k Δ_a / ε``, and with probability γ halt and output the
recorded candidate with the highest noisy score. The number of draws K is therefore
Geometric(γ) on {1, 2, ...} (:class:`RandomStoppingGeometric`, registry ``rs-gamma``, k = 3 as
in Algorithm 1, ``γ ∈ (0, 1]``).

hetsel Appendix C / Papernot & Steinke (2022) replace the geometric law by the truncated
negative binomial ``D_{η,γ}`` (:class:`RandomStoppingTNB`, ``rs-gamma-tnb``, ``γ ∈ (0, 1)``,
``η ∈ (-1, ∞)``, default η = 0 as in "improved RS_γ")::

    P[K = k] = (1-γ)^k / (γ^{-η} - 1) · ∏_{l<k} (l+η)/(l+1)     (η ≠ 0)
    P[K = k] = (1-γ)^k / (k log(1/γ))                             (η = 0).

The paper states the result is (2+η)ε₀-DP for an ε₀-DP base mechanism but does not print the
noise scale it used; ``noise_factor`` (k) is therefore an option: default ``2 + η`` (the
calibration that makes the whole mechanism ε-DP; for η = 1 it equals Algorithm 1's 3), or any
exact value (``noise_factor=3`` keeps Algorithm 1's Lap(3Δ_a/ε)).

pmf (the infinite mixture over K summed in closed form). The K recorded pairs are i.i.d.; one
pair has value ``y`` and candidate ``r`` with density ``f_r(y)/n`` (``f_r`` the Laplace
density of ``q_r + Lap(b_r)``) and value below ``y`` with probability
``G(y) = (1/n) Σ_a F_a(y)``. Hence ``Pr[r | K=k] = k/n ∫ f_r G^{k-1} dy`` and, with the
probability generating function ``P(x) = E[x^K]``,

    Pr[r] = (1/n) ∫ f_r(y) P'(G(y)) dy,
    P'(x) = γ / (1 - (1-γ)x)²                                      (geometric)
          = (1-γ) / (log(1/γ) (1 - (1-γ)x))                          (TNB, η = 0)
          = η(1-γ) (1 - (1-γ)x)^{-η-1} / (γ^{-η} - 1)                (TNB, η ≠ 0).

``1 - (1-γ)G`` is evaluated as ``γ + (1-γ)Ḡ`` with ``Ḡ = 1 - G`` summed from positive terms.

Integration: candidate ``r``'s density is negligible outside its window
``[q_r - W b_r, q_r + W b_r]``; overlapping windows are merged into *clusters* (decided
exactly on mp/ball, with a safety margin in float) and every cluster is integrated in a local
coordinate ``t = y - c`` (``c`` one of its scores), so that noise scales far below the
resolution of the scores (ε = 1e20 on scores of size 1) and spreads far above them
(scores 0 and -1e7 with b = 3) are both resolved. Each cluster is cut at its distinct scores
(on each piece every ``F_a`` and ``f_r`` is a single exponential, so the integrand is analytic
there); candidate ``r`` is integrated over its own cluster only, so the neglected mass is at
most ``P'(1)/n · e^{-W}`` (P' is increasing), a bound added to every result.

* ball — ``acb.integral`` on every piece (rigorous; the branch of ``w^{-η-1}`` is checked
  through the ``analytic`` flag) plus the tail bound in the radius;
* mp — ``mpmath.quad`` (Gauss–Legendre) per piece, error estimate;
* float — ``scipy.integrate.quad_vec`` (all candidates at once, Gauss–Kronrod 21) per piece;
  its error estimate plus the tail bound (``error_kind="estimate"``, absolute).
No exact backend: the pmf is an integral with no closed form in general.
Citations: hetsel §IV-B Algorithm 1, Appendix C Definition 1; Liu & Talwar (2019);
Papernot & Steinke (2022) Corollary 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, ClassVar

import numpy as np

from ...numbers.backends import Backend
from ...numbers.pmf import Pmf, pmf_from_numbers
from ...numbers.real import Real
from ..base import _check_method, noisy_max_shift
from ..validation import check_size, positive_real
from ..windows import ExactReach, FloatReach, clusters as _clusters
from .sensitivities import HeterogeneousSelection

__all__ = ["RandomStoppingGeometric", "RandomStoppingTNB"]

FLOAT_TAIL = 45.0  # float: tails beyond 45 Laplace scales (e^-45 ≈ 2.9e-20), times P'(1)
#: extra cut points k·b right of a cluster's top score: there P'(G) peaks where 1 - G ~ γ, about
#: log(1/(2nγ)) scales out (690 at γ = 1e-300), which a quadrature over one long piece can miss
TAIL_CUTS = (2, 8, 32, 128, 512)


def _tail_cuts(gamma: float, n: int, reach: float, ladder: bool = True) -> list[float]:
    """Multiples k of the top score's scale to cut at: a geometric ladder (``ladder``) and the peak
    of P'(G) near ``log(1/(2nγ))`` scales (both below the window's reach)."""
    ks = set(TAIL_CUTS) if ladder else set()
    peak = math.log(1 / (2 * n * gamma)) if 0 < gamma < 1 / (2 * n) else 0.0
    if peak > 2:
        ks |= {peak + d for d in (-8, -3, -1, 0, 1, 3, 8) if peak + d > 0}
    return sorted(k for k in ks if k < reach)
# size limits from measured cost (this project's 2-core machine): seconds ≈ a·n^k, limit near 10 s
FLOAT_LIMIT, FLOAT_COST = 1500, (1.0e-4, 1.4)  # n = 2000: 16 s
BALL_LIMIT, BALL_COST = 40, (6.8e-3, 1.94)  # n = 32: 5.6 s (n² integrals of O(n) integrands)
MP_LIMIT, MP_COST = 9, (7.1e-2, 2.22)  # n = 8: 7.2 s (mpmath.quad at 50 digits)


@dataclass(frozen=True)
class _RandomStopping(HeterogeneousSelection):
    gamma: Any = "0.05"
    noise_factor: Any = None

    exact_limit: ClassVar[int] = 1_000_000  # no exact backend: the pmf raises a clear error

    # -- parameters ---------------------------------------------------------------------------
    def _default_noise_factor(self) -> Real:
        raise NotImplementedError

    @property
    def noise(self) -> Real:
        """k in the Laplace scale ``b_a = k Δ_a / ε``."""
        return self._default_noise_factor() if self.noise_factor is None else self.noise_factor

    def _scales(self, n: int) -> list[Real]:
        k = self.noise
        return [k * d / self.epsilon for d in self.candidate_sensitivities(n)]

    # P'(x) as a function of w = 1 - (1-γ)x; kind is "float" | "mp" | "ball" --------------------
    def _dpgf(self, w: Any, kind: str, analytic: bool = False) -> Any:
        raise NotImplementedError

    @staticmethod
    def _const(x: Real, kind: str) -> Any:
        return x.to_float() if kind == "float" else x.to_mpf() if kind == "mp" else x.to_arb()

    # -- pmf -------------------------------------------------------------------------------------
    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """Rate ``1/min_a b_a``: conditioning on the draws and the other candidates' noises, the
        output is ``r`` when the largest of r's Laplace copies passes a threshold that the scores
        move by <= 2·rounding; the survival function of a maximum of i.i.d. Laplace copies,
        ``(1 - F)(1 + F + ... + F^{m-1})``, is log-Lipschitz with ``1/b_r`` like ``1 - F`` itself."""
        return noisy_max_shift(self._scales(q.size), rounding)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        from scipy.integrate import quad_vec

        _check_method(method, ("quadrature",), "quadrature")
        n = q.size
        check_size(n, FLOAT_LIMIT, _cost_note("float", n, FLOAT_COST))
        b = np.array([x.to_float() for x in self._scales(n)])
        g = self.gamma.to_float()
        dp = lambda w: self._dpgf(w, "float")  # noqa: E731
        try:
            dp1 = float(dp(g))
        except OverflowError:  # w^(-η-1) at tiny γ
            dp1 = math.inf
        if not math.isfinite(dp1):
            raise ValueError(f"{self.short_name}: P'(1) overflows float64 at gamma={self.gamma.to_float():.6g}; use backend='ball'")
        W = FLOAT_TAIL + max(0.0, math.log(dp1))
        if not np.all((b >= 1e-305) & (b <= 1e306 / W)):  # W·b and 1/b must stay normal floats
            raise ValueError(f"{self.short_name}: the Laplace scales k·Δ_a/ε = {b.min():.3g}..{b.max():.3g} are outside "
                             "float64's range; use backend='ball'")
        clusters = _clusters(np.argsort(q, kind="stable").tolist(), FloatReach(q, b, -W, W))
        total = np.zeros(n)
        err = 0.0
        shift = 0.0
        pieces = 0
        converged = True
        for members in clusters:
            mem = np.array(members)
            c = q[mem[0]]
            with np.errstate(over="ignore"):
                o = q - c  # local kinks (±inf for scores beyond float range of c: F_a is then 0 or 1)
            om, bm = o[mem], b[mem]
            lo, hi = float(np.min(om - W * bm)), float(np.max(om + W * bm))
            cuts = set(om.tolist())
            # right of the top score P'(G) peaks where 1 - G ~ γ (far out in the tail when γ is tiny)
            top = int(np.argmax(om))
            cuts |= {float(om[top] + k * bm[top]) for k in _tail_cuts(g, n, W)}
            if bm.max() > 4 * bm.min():  # narrow densities inside wide windows: a ladder of their scale, out
                for k in (1.0, 3.0, 8.0, 20.0, W):  # to the window edge, so no part of them falls between nodes
                    cuts |= set((om - k * bm).tolist()) | set((om + k * bm).tolist())
            # integrate in units of 2^k ≈ the smallest member scale (exact rescaling), so that the
            # integrand is O(1/scale) ~ O(1) whatever the magnitude of the scales
            k = -math.frexp(float(bm.min()))[1]
            with np.errstate(over="ignore"):
                os_, bs_ = np.ldexp(o, k), np.ldexp(b, k)
            if not np.all(np.isfinite(bs_)):
                raise ValueError(f"{self.short_name}: the noise scales differ by more than float64's range; use backend='ball'")
            edges = [math.ldexp(x, k) for x in [lo, *sorted(x for x in cuts if lo < x < hi), hi]]

            def integrand(t: float, mem: np.ndarray = mem, o: np.ndarray = os_, bs: np.ndarray = bs_) -> np.ndarray:
                with np.errstate(invalid="ignore", over="ignore"):
                    d = (t - o) / bs
                e = 0.5 * np.exp(-np.abs(d))
                gbar = float(np.sum(np.where(d < 0, 1 - e, e))) / n
                return e[mem] / bs[mem] * (dp(g + (1 - g) * gbar) / n)

            for a, z in zip(edges[:-1], edges[1:]):
                if z <= a:
                    continue
                val, e, info = quad_vec(integrand, a, z, epsabs=1e-300, epsrel=1e-12, norm="max", limit=2000,
                                        full_output=True)
                total[mem] += val
                err += float(e)
                converged &= bool(info.success)
                pieces += 1
            # rounding of the local kinks o_a (<= u|o_a|) moves each by <= u|o_a|/b_a scales: it changes a
            # probability by about that times b·sup(f_r P'(G))/n per kink; f_r P'(G) is largest where
            # 1 - G ~ γ, far in f_r's tail, so b·sup ~ min(P'(1), n/(1-γ)) rather than P'(1) (estimate)
            sup = min(dp1, n / max(1.0 - g, 2.0**-53))
            shift = max(shift, float(np.max(np.abs(om) / bm)) * 2.0**-53 * sup * mem.size / n)
        tail = dp1 / n * math.exp(-W)
        abs_err = err + tail + shift + 64 * 2.0**-53 * float(total.max())
        if not converged:
            abs_err = math.inf
        return Pmf(total, "float", "quadrature", rel_error=None, abs_error=abs_err, error_kind="estimate",
                   details={"pieces": pieces, "clusters": len(clusters), "quadrature_error_estimate": err,
                            "tail_bound": tail, "converged": converged})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("quadrature",), "quadrature")
        if backend.is_exact:
            raise ValueError(f"{self.short_name}: no exact backend (the pmf is a non-elementary integral); "
                             "use ball for rigorous enclosures")
        n = len(q)
        limit, cost = (BALL_LIMIT, BALL_COST) if backend.is_ball else (MP_LIMIT, MP_COST)
        check_size(n, limit, _cost_note(backend.name, n, cost))
        scales = self._scales(n)
        order = _exact_order(q)
        rank = [0] * n  # dense rank of each score in increasing exact order
        for k in range(1, n):
            a, z = order[k - 1], order[k]
            rank[z] = rank[a] + ((q[z] - q[a]).sign() != 0)
        if backend.is_ball:
            vals, info = self._ball(q, scales, order, rank, backend.prec)
            return pmf_from_numbers(vals, backend, "quadrature", info)
        vals, info = self._mp(q, scales, order, backend.dps)
        est = info["error_estimate"]
        return Pmf(tuple(vals), str(backend), "quadrature", None, est, "estimate", details=info)

    @staticmethod
    def _cluster_frame(q: list[Real], scales: list[Real], mem: list[int], W: Real, prec: int) -> tuple[list[Real], Fraction, Fraction]:
        """Local offsets ``q_a - c`` (exact, every a) and dyadic ends of the cluster's union of windows."""
        from flint import arb

        c = q[mem[0]]
        off = [x - c for x in q]
        wa = W.to_arb(prec)
        lo = arb(0)
        hi = arb(0)
        for k, a in enumerate(mem):
            oa, ba = off[a].to_arb(prec), scales[a].to_arb(prec)
            left, right = oa - wa * ba, oa + wa * ba
            lo = left if k == 0 else lo.min(left)
            hi = right if k == 0 else hi.max(right)
        return off, _dyadic_fraction(lo.lower()), _dyadic_fraction(hi.upper())

    # -- ball (rigorous) ---------------------------------------------------------------------
    def _ball(self, q: list[Real], scales: list[Real], order: list[int], rank: list[int],
              prec: int) -> tuple[list[Any], dict]:
        from flint import acb, arb

        n = len(q)
        b = [s.to_arb(prec) for s in scales]
        g = self.gamma.to_arb(prec)
        omg = 1 - g

        def dp_acb(w: Any, analytic: bool) -> Any:
            return self._dpgf(w, "ball", analytic)

        dp1 = self._dpgf(g, "ball")
        if not dp1.is_finite():
            raise ValueError(f"{self.short_name}: P'(1) is not finite at this precision; raise the ball precision")
        # window half-width S scales: the mass of f_r outside it is e^-S, times P'(1)/n
        S = Real(Fraction(math.ceil((prec + 20) * math.log(2) + max(0.0, math.log(float(dp1.upper()))))))
        clusters = _clusters(order, ExactReach(q, scales, -S, S))
        vals: list[Any] = [None] * n
        pieces = 0
        for mem in clusters:
            off, lo, hi = self._cluster_frame(q, scales, mem, S, prec)
            mu = [x.to_arb(prec) for x in off]
            kinks = [mem[0]] + [z for a, z in zip(mem, mem[1:]) if rank[z] != rank[a]]
            top = kinks[-1]
            tail_cuts = [(off[top] + scales[top] * Real(Fraction(k))).to_arb(prec)
                         for k in _tail_cuts(self.gamma.to_float(), n, float(S.value))]
            edges = [Real(lo).to_arb(prec)] + [mu[a] for a in kinks] + tail_cuts + [Real(hi).to_arb(prec)]
            # branch of every factor on piece j (which ends at kink j, at a tail cut or at hi): the
            # left one (y <= q_a) for every score at or above the piece's upper end; no score lies
            # between the cluster's top score and hi (clusters are disjoint)
            last_left = [(Real(hi) - x).sign() <= 0 for x in off]
            lefts = [[rank[a] >= rank[k] for a in range(n)] for k in kinks] + [last_left] * (len(tail_cuts) + 1)
            for r in mem:
                total = acb(0)
                for j in range(len(edges) - 1):
                    f = _ball_integrand(r, mu, b, lefts[j], g, omg, n, dp_acb)
                    total += acb.integral(f, edges[j], edges[j + 1])
                v = total.real
                vals[r] = v
            pieces += len(edges) - 1
        tail_bound = float((dp1 / n * (-S.to_arb(prec)).exp()).upper())
        out = []
        for v in vals:
            v = v + arb(0, tail_bound)
            if not v.is_finite():
                raise ArithmeticError("ball quadrature failed to converge; raise the precision")
            out.append(v)
        return out, {"pieces": pieces, "clusters": len(clusters), "tail_bound": tail_bound}

    # -- mp (estimate) --------------------------------------------------------------------------
    def _mp(self, q: list[Real], scales: list[Real], order: list[int], dps: int) -> tuple[list[Any], dict]:
        import mpmath

        n = len(q)
        b = [s.to_mpf() for s in scales]
        g = self.gamma.to_mpf()
        dp = lambda w: self._dpgf(w, "mp")  # noqa: E731
        S = Real(Fraction(math.ceil((dps + 5) * math.log(10) + max(0.0, math.log(float(dp(g)))))))
        clusters = _clusters(order, ExactReach(q, scales, -S, S))
        vals: list[Any] = [None] * n
        err = mpmath.mpf(0)
        for mem in clusters:
            off, lo, hi = self._cluster_frame(q, scales, mem, S, int(dps * 3.33) + 20)
            mu = [x.to_mpf() for x in off]
            kinks = sorted({mu[a] for a in mem})
            top = mem[-1]
            # mp: the peak cuts only (every extra piece costs a full tanh-sinh rule at 50 digits)
            tail_cuts = [kinks[-1] + k * b[top] for k in _tail_cuts(self.gamma.to_float(), n, float(S.value), False)]
            edges = [mpmath.mpf(lo.numerator) / lo.denominator, *kinks, *tail_cuts,
                     mpmath.mpf(hi.numerator) / hi.denominator]

            def gbar(y: Any) -> Any:
                s = mpmath.mpf(0)
                for m, s_ in zip(mu, b):
                    d = (y - m) / s_
                    s += 1 - mpmath.exp(d) / 2 if d < 0 else mpmath.exp(-d) / 2
                return s / n

            for r in mem:
                def f(y: Any, r: int = r) -> Any:
                    d = abs(y - mu[r]) / b[r]
                    return mpmath.exp(-d) / (2 * b[r]) * dp(g + (1 - g) * gbar(y)) / n

                v, e = mpmath.quad(f, edges, error=True)
                vals[r] = v
                err = max(err, e)
        tail = float(dp(g)) / n * math.exp(-float(S.value))
        return vals, {"clusters": len(clusters), "error_estimate": float(err) + tail + 10.0 ** (-dps + 3)}

    # -- sampler: Algorithm 1 literally (K draws with replacement, Laplace noise, best one) ----
    def _draw_k(self, rng: np.random.Generator, size: int) -> np.ndarray:
        raise NotImplementedError

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        n = q.size
        b = np.array([x.to_float() for x in self._scales(n)])
        out = np.empty(size, dtype=np.int64)
        done = 0
        while done < size:
            m = min(size - done, 100_000)
            K = self._draw_k(rng, m)
            total = int(K.sum())
            cand = rng.integers(0, n, total)
            noisy = q[cand] + rng.laplace(0.0, b[cand])
            seg = np.repeat(np.arange(m), K)
            # index of the max within each segment: sort by (segment, value) and take the last
            key = np.lexsort((noisy, seg))
            last = np.cumsum(K) - 1
            out[done : done + m] = cand[key[last]]
            done += m
        return out



def _ball_integrand(r: int, mu: list[Any], b: list[Any], left: list[bool], g: Any, omg: Any, n: int,
                    dp_acb: Callable[[Any, bool], Any]) -> Callable[[Any, bool], Any]:
    def f(z: Any, analytic: bool) -> Any:
        s = 0
        for m, s_, lf in zip(mu, b, left):
            d = (z - m) / s_
            s = s + ((1 - d.exp() / 2) if lf else (-d).exp() / 2)
        w = g + omg * s / n
        d = (z - mu[r]) / b[r]
        fr = (d.exp() if left[r] else (-d).exp()) / (2 * b[r])
        return fr * dp_acb(w, analytic) / n

    return f


def _mp_log(x: Any) -> Any:
    import mpmath

    return mpmath.log(x)


def _cost_note(backend: str, n: int, cost: tuple[float, float]) -> str:
    a, k = cost
    return f"the {backend} random-stopping quadrature (estimated {a * float(n) ** k:.2g} s at n = {n})"


def _exact_order(q: list[Real]) -> list[int]:
    """Indices sorting ``q`` increasingly in exact arithmetic (float order, refined exactly)."""
    import functools

    qf = [x.to_float() for x in q]
    order = sorted(range(len(q)), key=lambda i: qf[i])
    if all((q[z] - q[a]).sign() >= 0 for a, z in zip(order, order[1:])):
        return order
    return sorted(range(len(q)), key=functools.cmp_to_key(lambda i, j: (q[i] - q[j]).sign()))


def _dyadic_fraction(x: Any) -> Fraction:
    """The exact value of an exact arb (e.g. ``ball.upper()``) as a Fraction."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


@dataclass(frozen=True)
class RandomStoppingGeometric(_RandomStopping):
    """RS_γ: hetsel Algorithm 1 (geometric stopping, Laplace noise 3Δ_a/ε); γ ∈ (0, 1]."""

    short_name: ClassVar[str] = "rs-gamma"

    def __post_init__(self) -> None:
        super().__post_init__()
        g = Real.of(self.gamma, "gamma")
        if g.sign() <= 0 or (g - 1).sign() > 0:
            raise ValueError(f"gamma must lie in (0, 1], got {g}")
        object.__setattr__(self, "gamma", g)
        if self.noise_factor is not None:
            object.__setattr__(self, "noise_factor", positive_real(self.noise_factor, "noise_factor"))

    def _default_noise_factor(self) -> Real:
        return Real.of(3)

    def _dpgf(self, w: Any, kind: str, analytic: bool = False) -> Any:
        return self._const(self.gamma, kind) / w / w  # γ/w <= 1 first: no overflow of 1/w² at γ = 1e-300

    def _draw_k(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.geometric(self.gamma.to_float(), size)


@dataclass(frozen=True)
class RandomStoppingTNB(_RandomStopping):
    """Improved RS_γ: truncated-negative-binomial stopping (hetsel Appendix C); γ ∈ (0, 1), η > -1."""

    eta: Any = 0

    short_name: ClassVar[str] = "rs-gamma-tnb"

    def __post_init__(self) -> None:
        super().__post_init__()
        g = Real.of(self.gamma, "gamma")
        if g.sign() <= 0 or (g - 1).sign() >= 0:
            raise ValueError(f"gamma must lie in (0, 1) for the truncated negative binomial, got {g}")
        object.__setattr__(self, "gamma", g)
        e = Real.of(self.eta, "eta")
        if (e + 1).sign() <= 0:
            raise ValueError(f"eta must be > -1, got {e}")
        object.__setattr__(self, "eta", e)
        if self.noise_factor is not None:
            object.__setattr__(self, "noise_factor", positive_real(self.noise_factor, "noise_factor"))

    def _default_noise_factor(self) -> Real:
        return self.eta + 2

    def _dpgf(self, w: Any, kind: str, analytic: bool = False) -> Any:
        g = self._const(self.gamma, kind)
        if self.eta.sign() == 0:
            log_g = math.log(g) if kind == "float" else g.log() if kind == "ball" else _mp_log(g)
            return (1 - g) / (-log_g * w)
        eta = self._const(self.eta, kind)
        coef = eta * (1 - g) / (g ** (-eta) - 1)
        if kind == "ball" and type(w).__name__ == "acb":
            return coef * w.pow(-eta - 1, analytic=analytic)
        return coef * w ** (-eta - 1)

    def _draw_k(self, rng: np.random.Generator, size: int) -> np.ndarray:
        g, eta = self.gamma.to_float(), self.eta.to_float()
        if self.eta.sign() == 0:
            return rng.logseries(1 - g, size).astype(np.int64)
        if eta > 0:
            out = np.empty(size, dtype=np.int64)
            filled = 0
            while filled < size:  # NB(η, γ) conditioned on K >= 1
                k = rng.negative_binomial(eta, g, size - filled)
                k = k[k >= 1]
                out[filled : filled + k.size] = k
                filled += k.size
            return out
        # -1 < η < 0: inverse cdf from the pmf recurrence P[k+1]/P[k] = (1-γ)(k+η)/(k+1)
        # (the ratio is < 1-γ, so the tail after k is <= P[k](1-γ)/γ; stop when that is < 1e-18)
        pk = [(1 - g) * eta / (g**-eta - 1)]
        while pk[-1] * (1 - g) / g >= 1e-18 and len(pk) < 10_000_000:
            k = len(pk)
            pk.append(pk[-1] * (1 - g) * (k + eta) / (k + 1))
        cdf = np.cumsum(pk)
        return 1 + np.searchsorted(cdf / cdf[-1], rng.random(size), side="right")
