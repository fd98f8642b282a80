"""Stable pmf of permute-and-flip by quadrature of a positive integrand (the default method).

Formula. With ``p_s = exp(x_s)``, ``x_s = c (q_s - q*) <= 0``, pf Lemma 2 sums to

    Pr[r] = p_r ∫_0^1 g_r(t) dt,     g_r(t) = ∏_{s≠r} (1 - p_s t) = F(t) / (1 - p_r t),

with ``F(t) = ∏_s (1 - p_s t)``. The integrand is positive and decreasing, so no cancellation.

Algorithm (every step comes with a proven bound):

1. *Truncation.* ``g_r(t) <= exp(-t (P - 1))`` with ``P = Σ p_s`` (Weierstrass), and
   ``∫_0^1 g_r >= 1/(2P)`` (because ``g_r(t) >= 1 - tP``). Integrating over ``[0, T]`` with
   ``T = min(1, (L + log(2P/(P-1))) / (P-1))`` leaves a relative tail ``<= e^{-L}``.
2. *Tied and large weights* (``p_s T > δ``; at most ``≈ (L+5)/δ`` of them) are grouped by
   value and their factors ``log(1 - p t) = log((1-p) + p(1-t))`` are evaluated directly
   (both terms positive; ``1-p = -expm1(x)``).
3. *Small weights* (``p_s T <= δ``) enter ``log F`` through power sums:
   ``Σ_s log(1 - p_s t) = -Σ_k S_k t^k / k``, ``S_k = Σ p_s^k``, truncated when the remainder
   ``<= S_k T^k δ / ((k+1)(1-δ))`` is negligible; their probabilities through the series
   ``∫ F(t)/(1 - p t) dt ≈ Σ_k M_k p^k``, ``M_k = Σ_i w_i F(t_i) t_i^k`` (relative remainder
   ``<= μ^{K+1}/(1-μ)``, ``μ = max p T``). Cost: O(n·K) with K ≈ 5, independent of ties.
4. *Quadrature.* An N-point Gauss–Legendre rule on ``[0, T]``; its error is bounded by the
   Bernstein-ellipse theorem (:mod:`dpexact.numbers.gauss_legendre`) with
   ``log M <= α S_1 + b² S_2/2 + Σ_big log max(1, sup|1 - p z|)`` on the ellipse. The float
   version takes the fewest nodes whose bound is below 1e-19 (the bound is affine in N).

Ball / mp: every small weight gets the power sums and series terms *it* needs (its own
``u = p·T`` instead of the largest one's), its omitted tails added to the bounds, so that at
``n = 65 536`` a weight far below the maximum costs a few arb operations instead of ~40.

Float: ``n <= 64`` uses the exact Gauss rule of :mod:`.gauss_exact` (no truncation); larger n
:mod:`.quadrature_float`, the same steps with series lengths taken from the moments of F (much
shorter than ``(pT)^k`` asks for) and bounds stated a posteriori. It states ``rel_error`` = (sum of
the proven truncation/quadrature/series bounds) + (an a-priori rounding estimate); the ball
version here runs the steps in arb and adds every truncation and quadrature bound to the radii,
so its balls are rigorous enclosures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...numbers.gauss_legendre import nodes_arb, nodes_float
from .gauss_exact import pf_pmf_gauss_exact

__all__ = ["pf_pmf_quadrature_ball", "pf_pmf_quadrature_mp", "QuadratureReport"]

U = 2.0**-53  # unit roundoff of float64
MAX_NODES = 128  # float: Gauss–Legendre nodes at most (the bound is reported as it is beyond)
DELTA_SCALAR = 1e-1  # mp/ball: series (per-weight length) are cheaper than individual weights
RHOS = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0)


@dataclass  # not frozen: one is built on every float pmf call, and frozen's __init__ costs 2.3 µs vs 0.6 (measured)
class QuadratureReport:
    """What the quadrature did and the bounds it proved (relative, per entry)."""

    nodes: int
    T: float
    total_weight: float
    n_large: int
    n_large_distinct: int
    log_terms: int
    series_terms: int
    tail_rel: float
    quadrature_rel: float
    series_rel: float
    rounding_rel: float
    #: the largest pmf entry (PF's pmf increases with the score, so it is among the weights near the top)
    max_pmf: float = math.nan
    #: the smallest exponent x_r = c(q_r - q*) of the input (its own rounding: the caller's 2.5u|x| term)
    x_min: float = math.nan

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _truncation(P: float, Pm1: float, L: float) -> tuple[float, float]:
    """Truncation point T and the proven relative tail bound (step 1)."""
    if Pm1 <= 0:
        return 1.0, 0.0
    T = (L + math.log(2 * P / Pm1)) / Pm1
    if T >= 1:
        return 1.0, 0.0
    return T, 2 * P * math.exp(-T * Pm1) / Pm1


#: per ρ in RHOS: the ellipse's semi-axes on [0, 1] (they scale with T) and the ρ-terms of the bound
_A = np.array([(rho + 1 / rho) / 4 for rho in RHOS])
_B = np.array([(rho - 1 / rho) / 4 for rho in RHOS])
_LOG_RHO2 = np.array([2 * math.log(rho) for rho in RHOS])
_LOG_RHO2M1 = np.array([math.log(rho * rho - 1) for rho in RHOS])


def _log_m_bounds(T: float, S1: float, S2: float, p_large: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Upper bounds of log max_{z in ellipse} |g_r(z)| for every r (step 4), one per ρ in RHOS.

    On the ellipse with centre T/2 and semi-axes a, b (α = a - T/2 >= 0, β = a + T/2):
    ``|1 - p z|² <= max((1 + pα)², (pβ - 1)²) + (pb)²``, and ``(1 + pα)² - (pβ - 1)² =
    (2 - pT)·p(α + β) >= 0`` for ``pT <= 2`` (here p <= 1 up to rounding and T <= 1), so the
    first square is the maximum and the other is never formed.
    """
    a, b = _A * T, _B * T
    alpha = a - T / 2
    out = alpha * S1 + b * b * S2 / 2
    if p_large.size:
        pa = np.multiply.outer(alpha, p_large)
        pa += 1
        pa *= pa
        pb = np.multiply.outer(b, p_large)
        pb *= pb
        pa += pb
        np.log(pa, out=pa)
        np.maximum(pa, 0.0, out=pa)  # log max(1, sup|1 - p z|) = max(0, ½ log sup²)
        pa *= counts  # no BLAS product here: OpenBLAS threads it from ~10^4 entries, at a high CPU cost
        out += 0.5 * pa.sum(axis=1)
    return out


def _log_bernstein(n_nodes: int, T: float, log_m: np.ndarray) -> np.ndarray:
    """``log`` of :func:`~dpexact.numbers.gauss_legendre.bernstein_error` for every ρ in RHOS."""
    return math.log(T / 2 * 64 / 15) + log_m - n_nodes * _LOG_RHO2 - _LOG_RHO2M1


def _best_quadrature_bound(n_nodes: int, T: float, S1: float, S2: float, p_large: np.ndarray, counts: np.ndarray,
                           log_m: np.ndarray | None = None) -> float:
    """The smallest Bernstein bound over ρ in RHOS for ``n_nodes`` nodes (``log_m``: the
    :func:`_log_m_bounds`, when the caller has them)."""
    if log_m is None:
        log_m = _log_m_bounds(T, S1, S2, p_large, counts)
    best = float(np.min(_log_bernstein(n_nodes, T, log_m)))
    return math.exp(best) * (1 + 2.0**-40) if best < 700 else math.inf


def _nodes_for(T: float, log_m: np.ndarray, target_abs: float) -> int:
    """Fewest nodes (a multiple of 4, in [8, MAX_NODES]) whose Bernstein bound is <= ``target_abs``.

    For each ρ the bound's logarithm is affine in N (:func:`bernstein_error`), so the smallest N
    for that ρ is solved for directly; the best ρ wins."""
    c = math.log(T / 2 * 64 / 15) - math.log(target_abs) + log_m - _LOG_RHO2M1
    best = float(np.min(np.ceil(np.maximum(c, 0.0) / _LOG_RHO2)))
    best = MAX_NODES if not best < MAX_NODES else int(best)
    return min(MAX_NODES, max(8, -(-best // 4) * 4))


def _small(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, QuadratureReport]:
    """``n <= SMALL_N``: the exact Gauss rule of :mod:`.gauss_exact` on one row."""
    pmf, logpmf, rel = pf_pmf_gauss_exact(x[None, :])
    n_nodes = max(1, (x.size + 1) // 2)
    report = QuadratureReport(nodes=n_nodes, T=1.0, total_weight=float(np.exp(x).sum()), n_large=int(x.size),
                              n_large_distinct=int(x.size), log_terms=0, series_terms=0, tail_rel=0.0,
                              quadrature_rel=0.0, series_rel=0.0, rounding_rel=float(rel[0]),
                              max_pmf=float(pmf.max()), x_min=float(np.minimum.reduce(x)))
    return pmf[0], logpmf[0], report


# ---------------------------------------------------------------------------------------------
# Scalar version: the same algorithm in arb (rigorous) or mpmath (estimate).
# ---------------------------------------------------------------------------------------------


class _ArbOps:
    rigorous = True

    def __init__(self, prec: int):
        from flint import arb

        self.arb = arb
        self.prec = prec

    def num(self, v: float) -> Any:
        return self.arb(v)

    def upper(self, v: Any) -> float:
        return float(v.upper())

    def lower(self, v: Any) -> float:
        return float(v.lower())

    def mid(self, v: Any) -> float:
        return float(v.mid())

    def exp(self, v: Any) -> Any:
        return v.exp()

    def log(self, v: Any) -> Any:
        return v.log()

    def expm1(self, v: Any) -> Any:
        return v.expm1()

    def pm(self, v: Any, err: float) -> Any:
        """v ± err."""
        return v + self.arb(0, err)

    def plus_interval(self, v: Any, lo: float, hi: float) -> Any:
        """v + [lo, hi] (the radius rounded up so that the ball covers the interval)."""
        return v + self.arb((lo + hi) / 2, (hi - lo) / 2 * (1 + 2.0**-50) + 1e-300)

    def nodes(self, n: int) -> tuple[tuple, tuple]:
        return nodes_arb(n, self.prec)


class _MpOps:
    rigorous = False

    def __init__(self, prec: int):
        import mpmath

        self.mp = mpmath
        self.prec = prec

    def num(self, v: float) -> Any:
        return self.mp.mpf(v)

    def upper(self, v: Any) -> float:
        return float(v)

    lower = upper
    mid = upper

    def exp(self, v: Any) -> Any:
        return self.mp.exp(v)

    def log(self, v: Any) -> Any:
        return self.mp.log(v)

    def expm1(self, v: Any) -> Any:
        return self.mp.expm1(v)

    def pm(self, v: Any, err: float) -> Any:
        return v

    def plus_interval(self, v: Any, lo: float, hi: float) -> Any:
        return v

    def nodes(self, n: int) -> tuple[list, list]:
        xs, ws = nodes_arb(n, self.prec + 20)
        conv = lambda b: self.mp.mpf(b.mid().str(int(self.prec / 3.3) + 5, radius=False))  # noqa: E731
        return [conv(b) for b in xs], [conv(b) for b in ws]


def _pf_scalar(xs: list[Any], ops: Any, bits: int) -> tuple[list[Any], dict]:
    """Shared scalar implementation; ``xs`` are exponents (arb or mpf), max exactly 0."""
    n = len(xs)
    ln2 = math.log(2)
    L = bits * ln2 + 8
    target = 2.0 ** (-bits - 4)
    p = [ops.exp(v) for v in xs]
    i0 = max(range(n), key=lambda i: ops.mid(xs[i]))
    Pm1 = ops.num(0)
    for i, v in enumerate(p):
        if i != i0:
            Pm1 += v
    P = Pm1 + 1
    P_up = ops.upper(P)
    T, tail_rel_unused = _truncation(P_up, ops.lower(Pm1), L)
    tail_abs = 0.0 if T >= 1 else math.exp(-T * ops.lower(Pm1)) / ops.lower(Pm1)
    thr = DELTA_SCALAR / T
    pmid = [ops.mid(v) for v in p]
    large = [i for i in range(n) if pmid[i] > thr]
    small = [i for i in range(n) if pmid[i] <= thr]
    # group large weights by value of the exponent (exact ties share the same ball/mpf)
    groups: dict[tuple, list[int]] = {}
    for i in large:
        key = (ops.mid(xs[i]), ops.upper(xs[i]))
        groups.setdefault(key, []).append(i)
    gkeys = list(groups)
    g_rep = [groups[k][0] for k in gkeys]
    g_cnt = [len(groups[k]) for k in gkeys]
    g_p = [p[i] for i in g_rep]
    g_om = [-ops.expm1(xs[i]) for i in g_rep]

    mu = max((ops.upper(p[i]) for i in small), default=0.0) * T  # <= DELTA_SCALAR up to rounding
    # power sums of small weights, each weight for as many powers as it needs: weight i with
    # u_i >= p_i T keeps powers 1..need_i (at least 2, so that S_2 is complete for the quadrature
    # bound); what it leaves out is <= u_i^(need_i+1) / ((need_i+1)(1-μ)), summed into log_rem
    S: list[Any] = []
    log_rem = 0.0
    u = np.array([ops.upper(p[i]) for i in small]) * T if small else np.zeros(0)
    lu = np.log(np.clip(u, 1e-300, 0.5))
    if small:
        eta = target / (8 * len(small))
        need = np.clip(np.ceil(math.log(eta * (1 - mu)) / lu), 2, 400).astype(np.int64)
        order = np.argsort(-need, kind="stable")
        need_desc = -need[order]  # ascending
        base = [p[small[j]] for j in order.tolist()]
        pw = list(base)
        for k in range(1, int(-need_desc[0]) + 1):
            m = int(np.searchsorted(need_desc, -k, side="right"))  # weights with need >= k: a prefix
            if k > 1:
                pw = [a * b for a, b in zip(pw[:m], base[:m])]
            Sk = ops.num(0)
            for v in pw:
                Sk += v
            S.append(Sk)
        with np.errstate(under="ignore"):
            log_rem = float(np.sum(u ** (need + 1) / ((need + 1) * (1 - mu)))) * 1.01
    S1 = ops.upper(S[0]) if S else 0.0
    S2 = ops.upper(S[1]) if len(S) > 1 else S1 * mu / max(T, 1e-300)
    p_large_up = np.array([ops.upper(v) for v in g_p])
    counts = np.array(g_cnt, dtype=float)
    # choose the number of nodes so that the quadrature bound is below target / (2P)
    log_m = _log_m_bounds(T, S1, S2, p_large_up, counts)
    n_nodes = 16
    while n_nodes < 1024 and _best_quadrature_bound(n_nodes, T, S1, S2, p_large_up, counts, log_m) * 2 * P_up > target:
        n_nodes = int(n_nodes * 1.25) + 1
    quad_abs = _best_quadrature_bound(n_nodes, T, S1, S2, p_large_up, counts, log_m)
    xi, om = ops.nodes(n_nodes)
    Tn = ops.num(T)
    t = [Tn * (1 + v) / 2 for v in xi]
    w = [Tn * v / 2 for v in om]
    omt = [1 - v for v in t]
    F = []
    for i in range(n_nodes):
        lf = ops.num(0)
        ti_pow = t[i]
        for j, Sk in enumerate(S, start=1):
            lf -= Sk * ti_pow / j
            ti_pow = ti_pow * t[i]
        for gp, gom, c in zip(g_p, g_om, g_cnt):
            lf += c * ops.log(gom + gp * omt[i])
        Fi = ops.exp(lf)
        if log_rem > 0:
            # true log F is smaller than computed by at most log_rem: F_true in F·[e^{-rem}, 1]
            Fi = Fi + Fi * ops.plus_interval(ops.num(0), -log_rem, 0.0)
        F.append(Fi)
    wF = [a * b for a, b in zip(w, F)]
    # series terms per small weight: K_i + 1 terms leave a relative remainder <= u_i^(K_i+1)/(1-μ)
    Ki = np.clip(np.ceil(math.log(target * (1 - mu)) / lu) - 1, 0, 400).astype(np.int64) if small else np.zeros(0, np.int64)
    K = int(Ki.max()) if small else 0
    Mk = []
    tp = [ops.num(1)] * n_nodes
    for j in range(K + 1):
        m = ops.num(0)
        for a, b in zip(wF, tp):
            m += a * b
        Mk.append(m)
        tp = [a * b for a, b in zip(tp, t)]
    with np.errstate(under="ignore"):
        series_rel = float(np.max(u ** (Ki + 1) / (1 - mu))) * 1.01 if small else 0.0
    M0_up = ops.upper(Mk[0])
    out: list[Any] = [None] * n
    small_hi = quad_abs + tail_abs + M0_up * series_rel  # quadrature ±, tail and series one-sided
    for i, Kr in zip(small, Ki.tolist()):
        g = Mk[Kr]
        pi = p[i]
        for j in range(Kr - 1, -1, -1):
            g = g * pi + Mk[j]
        out[i] = ops.plus_interval(g, -quad_abs, small_hi)
    for key, gp, gom in zip(gkeys, g_p, g_om):
        g = ops.num(0)
        for a, b in zip(wF, omt):
            g += a / (gom + gp * b)
        g = ops.plus_interval(g, -quad_abs, quad_abs + tail_abs)
        for i in groups[key]:
            out[i] = g
    res = [pi * g for pi, g in zip(p, out)]
    info = dict(
        nodes=n_nodes,
        T=T,
        total_weight=ops.mid(P),
        n_large=len(large),
        n_large_distinct=len(gkeys),
        log_terms=len(S),
        series_terms=K + 1,
        tail_abs=tail_abs,
        quadrature_abs=quad_abs,
        series_rel=series_rel + log_rem,
    )
    return res, info


def pf_pmf_quadrature_ball(xs: list[Any], prec: int) -> tuple[list[Any], dict]:
    """Rigorous arb enclosures of the PF pmf from arb exponents ``xs`` (one of them exactly 0)."""
    return _pf_scalar(xs, _ArbOps(prec), prec)


def pf_pmf_quadrature_mp(xs: list[Any], dps: int) -> tuple[list[Any], dict]:
    """mpmath PF pmf (same algorithm; bounds are reported, not propagated)."""
    bits = int(dps * 3.33) + 4
    return _pf_scalar(xs, _MpOps(bits), bits)
