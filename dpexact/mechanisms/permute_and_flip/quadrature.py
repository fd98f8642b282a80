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
   ``log M <= α S_1 + b² S_2/2 + Σ_big log max(1, sup|1 - p z|)`` on the ellipse.

The float version states ``rel_error`` = (sum of the proven truncation/quadrature bounds) +
(an a-priori rounding estimate); the ball version runs the same steps in arb and adds every
truncation and quadrature bound to the radii, so its balls are rigorous enclosures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...numbers.gauss_legendre import bernstein_error, ellipse_axes, nodes_arb, nodes_float

__all__ = ["pf_pmf_quadrature_float", "pf_pmf_quadrature_ball", "pf_pmf_quadrature_mp", "QuadratureReport"]

U = 2.0**-53  # unit roundoff of float64
DELTA = 1e-3  # float: weights with p·T > DELTA are treated individually
DELTA_SCALAR = 1e-2  # mp/ball: longer series are cheaper than more individual weights
RHOS = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0)


@dataclass(frozen=True)
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


def _log_m_bound(rho: float, T: float, S1: float, S2: float, p_large: np.ndarray, counts: np.ndarray) -> float:
    """Upper bound of log max_{z in ellipse} |g_r(z)| for every r (step 4)."""
    a, b = ellipse_axes(rho, T)
    alpha, beta = a - T / 2, a + T / 2
    out = alpha * S1 + b * b * S2 / 2
    if p_large.size:
        left = (1 + p_large * alpha) ** 2
        right = (p_large * beta - 1) ** 2
        sup2 = np.maximum(left, right) + (p_large * b) ** 2
        out += float(np.sum(counts * np.maximum(0.0, 0.5 * np.log(sup2))))
    return out


def _best_quadrature_bound(n_nodes: int, T: float, S1: float, S2: float, p_large: np.ndarray, counts: np.ndarray) -> float:
    best = math.inf
    for rho in RHOS:
        best = min(best, bernstein_error(_log_m_bound(rho, T, S1, S2, p_large, counts), rho, n_nodes, T))
    return best


def pf_pmf_quadrature_float(x: np.ndarray, n_nodes: int = 48, L: float = 40.0) -> tuple[np.ndarray, np.ndarray, QuadratureReport]:
    """Float64 pmf and log-pmf of PF from exponents ``x = c(q - q*)`` (max x must be 0).

    Returns ``(pmf, logpmf, report)``; ``report`` carries the proven bounds and the rounding
    estimate, whose sum bounds the relative error of every entry (plus ``2.5u|x_r|`` from
    the rounding of the exponents themselves, added by the caller).
    """
    n = x.size
    p = np.exp(x)
    i0 = int(np.argmax(x))
    p[i0] = 0.0
    Pm1 = float(np.sum(p))  # Σ_{s≠i0} p_s (the remaining maxima count fully)
    p[i0] = 1.0
    P = Pm1 + 1.0
    T, tail_rel = _truncation(P, Pm1 * (1 - 1e-12), L)
    thr = DELTA / T

    # -- large weights, grouped by value -------------------------------------------------
    large = np.flatnonzero(p > thr)
    xv, inv, counts = np.unique(x[large], return_inverse=True, return_counts=True)
    pv = np.exp(xv)
    omv = -np.expm1(xv)  # 1 - p, accurate

    # -- small weights: power sums ----------------------------------------------------------
    ps = p.copy() if large.size else p
    if large.size:
        ps[large] = 0.0
    mu = min(float(ps.max()) * T, DELTA)
    S = []
    pw = ps
    k = 0
    log_rem = 0.0
    while True:
        k += 1
        if k > 1:
            pw = pw * ps
        Sk = float(np.sum(pw))
        S.append(Sk)
        rem = Sk * T**k * mu / ((k + 1) * (1 - mu)) if mu > 0 else 0.0
        if rem <= 1e-19 or k >= 40:
            log_rem = rem
            break
    S1 = S[0]
    S2 = S[1] if len(S) > 1 else float(np.sum(ps * ps))

    # -- nodes and log F ----------------------------------------------------------------------
    xi, om = nodes_float(n_nodes)
    t = T * (1 + xi) / 2
    w = T * om / 2
    one_minus_t = 1 - t
    logF = np.zeros(n_nodes)
    for j, Sk in enumerate(S, start=1):
        logF -= Sk * t**j / j
    if xv.size:
        # (1 - p t) for each large value (rows: nodes, columns: values). Where p t <= 1/2 the
        # log is taken as log1p(-p t) (relative accuracy), elsewhere as
        # log((1-p) + p(1-t)) (both terms positive, no cancellation).
        pt = t[:, None] * pv[None, :]
        fac = omv[None, :] + pv[None, :] * one_minus_t[:, None]
        logfac = np.where(pt <= 0.5, np.log1p(-pt), np.log(fac))
        logF += np.sum(logfac * counts[None, :], axis=1)  # contiguous axis: pairwise summation
    F = np.exp(logF)
    wF = w * F

    # -- small-weight probabilities: series in p -------------------------------------------------
    K = 0
    while mu > 0 and mu ** (K + 1) / (1 - mu) > 1e-19 and K < 60:
        K += 1
    series_rel = mu ** (K + 1) / (1 - mu) if mu > 0 else 0.0
    Mk = [float(np.sum(wF * t**j)) for j in range(K + 1)]
    G = np.full(n, Mk[K])
    for j in range(K - 1, -1, -1):
        G *= p
        G += Mk[j]
    if xv.size:
        Gv = (wF[:, None] / fac).sum(axis=0)
        G[large] = Gv[inv]
    pmf = p * G
    logpmf = x + np.log(G)

    quad_abs = _best_quadrature_bound(n_nodes, T, S1, S2, pv, counts)
    quad_rel = quad_abs * 2 * P
    rounding = U * (8 * float(np.max(np.abs(logF))) + 4 * math.log2(max(n, 2)) + 4 * n_nodes + 8 * (K + len(S)) + 50)
    report = QuadratureReport(
        nodes=n_nodes,
        T=T,
        total_weight=P,
        n_large=int(large.size),
        n_large_distinct=int(xv.size),
        log_terms=len(S),
        series_terms=K + 1,
        tail_rel=tail_rel,
        quadrature_rel=quad_rel,
        series_rel=series_rel + log_rem,
        rounding_rel=rounding,
    )
    return pmf, logpmf, report


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
        """v + [lo, hi]."""
        return v + self.arb((lo + hi) / 2, (hi - lo) / 2)

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

    mu = max((ops.upper(p[i]) for i in small), default=0.0) * T  # <= DELTA up to rounding
    # power sums of small weights
    S: list[Any] = []
    pw = [p[i] for i in small]
    base = list(pw)
    k = 0
    log_rem = 0.0
    while small:
        k += 1
        if k > 1:
            pw = [a * b for a, b in zip(pw, base)]
        Sk = ops.num(0)
        for v in pw:
            Sk += v
        S.append(Sk)
        rem = ops.upper(Sk) * T**k * mu / ((k + 1) * (1 - mu)) if mu > 0 else 0.0
        if rem <= target or k >= 200:
            log_rem = rem
            break
    S1 = ops.upper(S[0]) if S else 0.0
    S2 = ops.upper(S[1]) if len(S) > 1 else S1 * mu / max(T, 1e-300)
    p_large_up = np.array([ops.upper(v) for v in g_p])
    counts = np.array(g_cnt, dtype=float)
    # choose the number of nodes so that the quadrature bound is below target / (2P)
    n_nodes = 16
    while n_nodes < 1024 and _best_quadrature_bound(n_nodes, T, S1, S2, p_large_up, counts) * 2 * P_up > target:
        n_nodes = int(n_nodes * 1.25) + 1
    quad_abs = _best_quadrature_bound(n_nodes, T, S1, S2, p_large_up, counts)
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
    K = 0
    while mu > 0 and mu ** (K + 1) / (1 - mu) > target and K < 400:
        K += 1
    Mk = []
    tp = [ops.num(1)] * n_nodes
    for j in range(K + 1):
        m = ops.num(0)
        for a, b in zip(wF, tp):
            m += a * b
        Mk.append(m)
        tp = [a * b for a, b in zip(tp, t)]
    series_rel = mu ** (K + 1) / (1 - mu) if mu > 0 else 0.0
    M0_up = ops.upper(Mk[0])
    out: list[Any] = [None] * n
    for i in small:
        g = Mk[K]
        pi = p[i]
        for j in range(K - 1, -1, -1):
            g = g * pi + Mk[j]
        g = ops.plus_interval(g, 0.0, M0_up * series_rel)
        out[i] = g
    for key, gp, gom in zip(gkeys, g_p, g_om):
        g = ops.num(0)
        for a, b in zip(wF, omt):
            g += a / (gom + gp * b)
        for i in groups[key]:
            out[i] = g
    res = []
    for i in range(n):
        g = ops.pm(out[i], quad_abs)
        g = ops.plus_interval(g, 0.0, tail_abs)
        res.append(p[i] * g)
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
