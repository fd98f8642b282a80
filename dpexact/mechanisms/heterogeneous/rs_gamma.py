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

Integration: the real line is cut at the distinct ``q_a`` (on each piece every ``F_a`` and
``f_r`` is a single exponential, so the integrand is analytic there) and truncated to
``[L, R]``; the two tails contribute at most ``P'(1)/n · (F_r(L) + 1 - F_r(R))`` (P' is
increasing), a bound added to every result.

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
from typing import Any, Callable, ClassVar

import numpy as np

from ...numbers.backends import Backend
from ...numbers.pmf import Pmf
from ...numbers.real import Real
from ..base import _check_method
from ..validation import check_size, positive_real
from .sensitivities import HeterogeneousSelection

__all__ = ["RandomStoppingGeometric", "RandomStoppingTNB"]

FLOAT_TAIL = 45.0  # float: tails beyond 45 Laplace scales (e^-45 ≈ 2.9e-20)
SCALAR_LIMIT = 200  # mp / ball: O(n²) one-dimensional integrals


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
    def _pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        from scipy.integrate import quad_vec

        _check_method(method, ("quadrature",), "quadrature")
        n = q.size
        check_size(n, 20_000, "the O(n²) random-stopping quadrature")
        b = np.array([x.to_float() for x in self._scales(n)])
        g = self.gamma.to_float()
        dp = lambda w: self._dpgf(w, "float")  # noqa: E731
        try:  # w >= γ on the whole range and P' decreases, so P'(γ) is the largest value needed
            dp1 = dp(g)
            if not math.isfinite(dp1):
                raise OverflowError
        except (ZeroDivisionError, OverflowError):
            raise ValueError(f"gamma = {g:.3g} is too small for the float backend: P'(w) at w = gamma "
                             "is not representable in float64; use backend ball or mp") from None
        bp = np.unique(q)
        L = float(np.min(q - FLOAT_TAIL * b))
        R = float(np.max(q + FLOAT_TAIL * b))
        edges = [L, *bp.tolist(), R]

        def integrand(y: float) -> np.ndarray:
            d = (y - q) / b
            e = 0.5 * np.exp(-np.abs(d))
            gbar = float(np.sum(np.where(d < 0, 1 - e, e))) / n
            return e / b * (dp(g + (1 - g) * gbar) / n)

        total = np.zeros(n)
        err = 0.0
        pieces = 0
        converged = True
        for lo, hi in zip(edges[:-1], edges[1:]):
            if hi <= lo:
                continue
            val, e, info = quad_vec(integrand, lo, hi, epsabs=1e-300, epsrel=1e-12, norm="max", limit=2000,
                                    full_output=True)
            total += val
            err += float(e)
            converged &= bool(info.success)
            pieces += 1
        tail = float(dp1) / n * math.exp(-FLOAT_TAIL)
        abs_err = err + tail + 64 * 2.0**-53 * float(total.max())
        return Pmf(total, "float", "quadrature", rel_error=None, abs_error=abs_err, error_kind="estimate",
                   details={"pieces": pieces, "quadrature_error_estimate": err, "tail_bound": tail,
                            "converged": converged})

    def _pmf_scalar(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("quadrature",), "quadrature")
        if backend.name == "exact":
            raise ValueError(f"{self.short_name}: no exact backend (the pmf is a non-elementary integral); "
                             "use ball for rigorous enclosures")
        n = len(q)
        check_size(n, SCALAR_LIMIT, "the mp/ball random-stopping quadrature")
        scales = self._scales(n)
        # distinct score values in increasing exact order
        qf = [x.to_float() for x in q]
        order = sorted(range(n), key=lambda i: qf[i])
        bps: list[Real] = []
        for i in order:
            if not bps or (q[i] - bps[-1]).sign() != 0:
                if bps and q[i] < bps[-1]:  # float order was wrong: fall back to exact sort
                    bps = _exact_sorted_distinct(q)
                    break
                bps.append(q[i])
        if backend.name == "ball":
            vals, info = self._ball(q, scales, bps, backend.prec)
            rads = [float(v.rad()) for v in vals]
            mids = [abs(float(v.mid())) for v in vals]
            rel = max((r / m for r, m in zip(rads, mids) if m > 0), default=math.inf)
            return Pmf(tuple(vals), str(backend), "quadrature", rel, max(rads), "rigorous", details=info)
        vals, info = self._mp(q, scales, bps, backend.dps)
        est = info["error_estimate"]
        return Pmf(tuple(vals), str(backend), "quadrature", None, est, "estimate", details=info)

    # -- ball (rigorous) ---------------------------------------------------------------------
    def _ball(self, q: list[Real], scales: list[Real], bps: list[Real], prec: int) -> tuple[list[Any], dict]:
        from flint import acb, arb

        n = len(q)
        mu = [x.to_arb(prec) for x in q]
        b = [s.to_arb(prec) for s in scales]
        g = self.gamma.to_arb(prec)
        omg = 1 - g

        def dp_acb(w: Any, analytic: bool) -> Any:
            return self._dpgf(w, "ball", analytic)

        dp1 = self._dpgf(g, "ball")
        # truncation: (L - q_r)/b_r <= -S and (R - q_r)/b_r >= S for every r
        S = arb((prec + 20) * math.log(2) + max(0.0, math.log(float(dp1.upper()))))
        L = min((m - S * s for m, s in zip(mu, b)), key=lambda x: float(x.mid()))
        R = max((m + S * s for m, s in zip(mu, b)), key=lambda x: float(x.mid()))
        L = arb(math.floor(float(L.lower())))
        R = arb(math.ceil(float(R.upper())))
        edges = [L, *[x.to_arb(prec) for x in bps], R]
        exact_edges: list[Real | None] = [None, *bps, None]
        vals = []
        for r in range(n):
            total = acb(0)
            for j in range(len(edges) - 1):
                lo, hi = edges[j], edges[j + 1]
                # side of every q_a on this piece: piece lies left (<= q_a) or right (>= q_a)
                hi_exact = exact_edges[j + 1]
                left = [hi_exact is not None and (hi_exact - qa).sign() <= 0 for qa in q]
                f = _ball_integrand(r, mu, b, left, g, omg, n, dp_acb)
                total += acb.integral(f, lo, hi)
            tail = dp1 / n  # times (F_r(L) + 1 - F_r(R)) <= e^-S
            tail_bound = float((tail * (-S).exp()).upper())
            v = total.real + arb(0, tail_bound)
            if not v.is_finite():
                raise ArithmeticError("ball quadrature failed to converge; raise the precision")
            vals.append(v)
        return vals, {"pieces": len(edges) - 1, "tail_bound": tail_bound}

    # -- mp (estimate) --------------------------------------------------------------------------
    def _mp(self, q: list[Real], scales: list[Real], bps: list[Real], dps: int) -> tuple[list[Any], dict]:
        import mpmath

        n = len(q)
        mu = [x.to_mpf() for x in q]
        b = [s.to_mpf() for s in scales]
        g = self.gamma.to_mpf()
        dp = lambda w: self._dpgf(w, "mp")  # noqa: E731
        S = (dps + 5) * math.log(10) + max(0.0, math.log(float(dp(g))))
        L = min(m - S * s for m, s in zip(mu, b))
        R = max(m + S * s for m, s in zip(mu, b))
        edges = [L, *[x.to_mpf() for x in bps], R]

        def gbar(y: Any) -> Any:
            s = mpmath.mpf(0)
            for m, s_ in zip(mu, b):
                d = (y - m) / s_
                s += 1 - mpmath.exp(d) / 2 if d < 0 else mpmath.exp(-d) / 2
            return s / n

        vals, err = [], mpmath.mpf(0)
        for r in range(n):
            def f(y: Any, r: int = r) -> Any:
                d = abs(y - mu[r]) / b[r]
                return mpmath.exp(-d) / (2 * b[r]) * dp(g + (1 - g) * gbar(y)) / n

            v, e = mpmath.quad(f, edges, error=True)
            vals.append(v)
            err = max(err, e)
        tail = float(dp(g)) / n * math.exp(-S)
        return vals, {"pieces": len(edges) - 1, "error_estimate": float(err) + tail + 10.0 ** (-dps + 3)}

    # -- sampler: Algorithm 1 literally (K draws with replacement, Laplace noise, best one) ----
    def _draw_k(self, rng: np.random.Generator, size: int) -> np.ndarray:
        raise NotImplementedError

    def _sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
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


def _exact_sorted_distinct(q: list[Real]) -> list[Real]:
    import functools

    def cmp(a: Real, b: Real) -> int:
        return (a - b).sign()

    out: list[Real] = []
    for x in sorted(q, key=functools.cmp_to_key(cmp)):
        if not out or (x - out[-1]).sign() != 0:
            out.append(x)
    return out


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
        return self._const(self.gamma, kind) / (w * w)

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
