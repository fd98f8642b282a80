"""Float64 pmf of permute-and-flip for ``n > SMALL_N``: the quadrature of :mod:`.quadrature` with
series as long as the moments of ``F`` say, and few passes over the array (the default float route).

Formula and steps as in :mod:`.quadrature`: with ``p_s = exp(x_s)``, ``F(t) = ∏_s (1 - p_s t)``,
``Pr[r] = p_r G(p_r)``, ``G(p) = ∫_0^T F(t)/(1 - p t) dt`` (truncated at ``T``, relative tail
``<= e^{-L}``), an N-point Gauss–Legendre rule on ``[0, T]`` (Bernstein bound with
``log M <= α S + b² S_2/2`` over all weights, :func:`.quadrature_rules.node_rule`: no per-weight logarithm), ``log F``
through power sums ``S_k = Σ p^k`` and ``G(p) = Σ_k M_k p^k`` with the moments
``M_k = ∫_0^T F(t) t^k dt``.

What is new here is the length of the series. Moments fall much faster than ``T^k``:
``F(t) <= e^{-St}`` gives ``M_k <= k!/S^{k+1}``, and ``M_0 >= 1/(2P)`` (step 1 of
:mod:`.quadrature`), so ``M_k/M_0 <= min(T^k, 2P k!/S^{k+1})``. At ``n = 10^4`` uniform scores
(``S ≈ 200``, ``T ≈ 0.2``) twelve terms cover every weight up to ``p = 1`` where ``(pT)^k`` asked for
27, and no weight needs its own log factor. Weights are split into three classes by this
a-priori estimate (target ``TARGET`` per term):

* *tiny* ``p <= p_tiny`` (:func:`.quadrature_rules.tiny_threshold`): ``log F`` sees them through the
  power sums ``S_1 .. S_R`` (``R = TINY_R``; those below ``CUT = 2^-100`` through ``S_1``, ``S_2`` only:
  no subnormal powers), ``G`` through ``M_0 + ... + M_K p^K`` (``K = TINY_K``), the log-pmf through
  ``TINY_J`` terms of ``log1p``'s series; all in passes over every entry, without compaction. These
  lengths make the class hold ~94 % of the weights at ``n = 10^4`` uniform scores, where a two-term
  class (``R = 2``, ``K = 1``) would hold 64 %, because the rest (compacted, K_F ≈ 13 power sums
  each) cost ~20 ns a weight against ~4 ns for a tiny one;
* *large* ``p > p_L`` (only where the series would need more than ``KMAX`` terms, e.g. ``S ≈ 20``):
  one exact log factor per distinct value and a direct node sum for ``G`` (ties grouped);
* *medium*: ``K_F`` power sums for ``log F``, ``K`` terms of ``G``'s series.

Every bound that is stated is a posteriori, from the computed quantities (all sums of positive
terms; ``F̃ >= F`` because the dropped log terms are negative):

* series of ``G`` after ``K`` terms: ``Q[F (pt)^{K+1}/(1-pt)] <= p^{K+1} M̃_{K+1}/(1 - pT)``,
  relative to ``G >= M_0 >= max(1/(2P), M̃_0 - (quadrature bound) - E_0)`` (``E_0`` below);
* series of ``log F``: ``0 <= log F̃ - log F <= R̄(t) = CUT² S_1 t³/(3(1 - CUT t)) +
  p_tiny S^tiny_R t^{R+1}/((R+1)(1 - p_tiny t)) + S^med_{K_F+1} t^{K_F+1}/((K_F+1)(1 - p_M t))``
  (``S^tiny_{R+1} <= p_tiny S^tiny_R``), so ``G`` is off by at most
  ``Q[F̃ R̄/(1 - pt)]``: ``E_0/(1 - p_M T)`` for the series classes (``E_0 = Σ w F̃ R̄``, and
  ``1 <= 1/(1 - pt) <= 1/(1 - p_M T)``), the node sum itself for each large value;
* the tiny ``G`` after ``TINY_K`` terms: ``p_tiny^{K+1} M̃_{K+1}/(1 - p_tiny T)`` as above; below ``CUT``
  ``G = M_0``: ``CUT M̃_1/(1 - CUT T)``;
* the tiny log-pmf ``x + log M_0 + log1p(y)``, ``y = Σ_{j=1..K} (M_j/M_0) p^j <= y_max``, log1p by
  ``TINY_J`` terms of its alternating series: ``<= y_max^{J+1}/(J+1)``.

Costs: the medium weights go through a power table and one matrix product below ``TABLE_MAX``
entries (a few numpy calls whatever ``K``), through in-place loops above it; the tiny power sums are
formed on the whole array (this is the fallback route: the kernel does them in blocks); the tiny update is
done in place in the exponent and weight buffers, in cache-sized pieces, so that a call at
``n = 10^6`` allocates no array of size n beyond its two outputs (a fresh 8 MB array costs
~1.7 ms of page faults, measured). Measured PF/EM ratios: ``dpexact bench``.

Two routes, one algorithm: this numpy code, and from ``KERNEL_MIN_N`` weights on, when numba is
installed (extra ``fast``), the same steps compiled (:mod:`.quadrature_kernel`: ~60 numpy calls of
bookkeeping become one call). The scalar rules (series lengths, node rule, thresholds) are one source,
:mod:`.quadrature_rules`, run as Python here and compiled there; the routes differ only in the order of
roundings, inside the stated rounding term (tests/test_pf_kernel.py checks them against each other
and against balls). ``DPEXACT_NUMBA=0`` keeps the numpy route.
"""

from __future__ import annotations

import importlib.util
import math
import os
from typing import Any

import numpy as np

from ...numbers.gauss_legendre import nodes_float
from .gauss_exact import SMALL_N
from .quadrature import U, QuadratureReport, _small, _truncation
from .quadrature_rules import CUT, GROUP_MIN, KMAX, TINY_J, TINY_K, TINY_R, node_rule, series_lengths, threshold, \
    tiny_threshold

__all__ = ["pf_pmf_quadrature_float", "kernel_route", "TARGET", "KMAX", "KERNEL_MIN_N"]

#: from this n on the compiled kernel (:mod:`.quadrature_kernel`) runs when numba is installed; below it
#: one numpy call costs less than a tenth of a millisecond more, against ~0.5 s to import numba once
KERNEL_MIN_N = 512
_KERNEL: Any = None  # the kernel's entry once looked up; False: no numba (or DPEXACT_NUMBA=0)

TARGET = 1e-19  # each truncation (series, log series) is made this small, relative (both routes read it here)
TABLE_MAX = 1 << 14  # medium weights up to this count: power table + matrix product
PIECE = 1 << 14  # the tiny update runs over pieces of this many entries (128 KB)


def _groups(xl: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The distinct values of ``xl``, the index of each entry's value (``None``: ``xl`` itself,
    every value distinct, the common case for real-valued scores) and their multiplicities. Up to
    ``GROUP_MIN`` values are taken as they are: a repeated column costs less than looking for it."""
    if xl.size > GROUP_MIN:
        srt = np.sort(xl)
        if not (srt[1:] != srt[:-1]).all():
            return np.unique(xl, return_inverse=True, return_counts=True)
    return xl, None, np.ones(xl.size)


def kernel_route() -> Any:
    """The compiled route's entry (:func:`.quadrature_kernel.pf_pmf_quadrature_kernel`), or ``False``
    when numba is not installed or ``DPEXACT_NUMBA=0``; looked up (numba imported) on first need only."""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = False
        if os.environ.get("DPEXACT_NUMBA", "1") != "0" and importlib.util.find_spec("numba") is not None:
            try:
                from .quadrature_kernel import pf_pmf_quadrature_kernel
            except ImportError:  # a numba that refuses this numpy: the numpy route (same values, slower)
                return _KERNEL
            _KERNEL = pf_pmf_quadrature_kernel
    return _KERNEL


def pf_pmf_quadrature_float(x: np.ndarray, L: float = 40.0,
                            kernel: bool | None = None) -> tuple[np.ndarray, np.ndarray, QuadratureReport]:
    """Float64 pmf and log-pmf of PF from exponents ``x = c(q - q*)`` (the maximum exactly 0).

    ``x`` is owned by the call: it becomes the log-pmf (no copy). Returns ``(pmf, logpmf,
    report)``; the report's truncation, quadrature, series and rounding terms sum to a bound of
    the relative error of every entry (the caller adds ``2.5u|x_r|`` for the exponents' own
    rounding). ``n <= SMALL_N`` goes to the exact Gauss rule (:mod:`.gauss_exact`). ``kernel``:
    ``True`` the compiled kernel (numba), ``False`` the numpy route below, ``None`` the kernel from
    ``KERNEL_MIN_N`` weights on when numba is installed; both routes compute the same quantities
    with the same bounds (:mod:`.quadrature_kernel` says what differs: the order of roundings).
    """
    n = x.size
    if n <= SMALL_N:
        return _small(x)
    if kernel is None:
        kernel = n >= KERNEL_MIN_N and bool(kernel_route())
    if kernel:
        route = kernel_route()
        if not route:
            raise RuntimeError("the compiled PF kernel needs numba (pip install 'dpexact[fast]')")
        return route(x, L, TARGET)
    x_min = float(np.minimum.reduce(x))
    p = np.exp(x)
    S = float(np.add.reduce(p))
    s_err = (n.bit_length() + 16) * U * S  # pairwise summation
    P, S_lo = S + s_err, S - s_err
    # one maximum has p = 1 exactly (x = 0 there); the other weights sum to S - 1
    T, tail_rel = _truncation(P, S_lo - 1.0, L)

    # -- classes, from the a-priori moment bound ------------------------------------------------
    lT, l2P, lS = math.log(T), math.log(2 * P), math.log(S_lo)
    p_L = threshold(KMAX, TARGET, T, lT, l2P, lS)
    # tiny: G's TINY_K + 1 terms and log F's TINY_R power sums, both remainders <= TARGET a priori
    p_tiny = min(tiny_threshold(TINY_R, TINY_K, TARGET, S, T, lT, l2P, lS), p_L)
    # S^tiny_3 .. S^tiny_R over the weights CUT < p <= p_tiny (below CUT: no subnormal powers)
    v = np.where((p > CUT) & (p <= p_tiny), p, 0.0)
    pw = v * v * v
    St = np.empty(TINY_R - 2)
    for k in range(TINY_R - 2):
        if k:
            pw *= v
        St[k] = float(np.add.reduce(pw))
    del v, pw
    nt = np.flatnonzero(p > p_tiny)  # medium and large weights (the few near the maximum)
    pn = p[nt]
    if p_L < 1.0:
        is_large = pn > p_L
        lpos = np.flatnonzero(is_large)
        large, pl = nt[lpos], pn[lpos]
        mpos = np.flatnonzero(~is_large)
        med, pm = nt[mpos], pn[mpos]
    else:
        large, pl, med, pm = nt[:0], pn[:0], nt, pn
    xv, inv, counts = _groups(x[large])
    pv = np.exp(xv)
    omv = -np.expm1(xv)  # 1 - p, accurate
    p_M = float(np.maximum.reduce(pm)) if pm.size else p_tiny  # largest series weight

    # -- power sums: S_1, S_2 of every series weight, S_3.. of the medium ones --------------------
    S2 = float(np.einsum("i,i->", p, p))
    if pl.size:
        S1 = S - float(np.add.reduce(pl))
        S2_L = float(np.einsum("i,i->", pl, pl))
        S2 -= S2_L
    else:
        S1, S2_L = S, 0.0
    S1c, S2c = max(S1, 0.0), max(S2, 0.0)
    S1_med = float(np.add.reduce(pm)) if pm.size else 0.0
    K_F, K_pre = 2, 1
    if pm.size:
        K_F, K_pre = series_lengths(p_M, S1_med, TARGET, T, lT, l2P, lS)
    rows = max(K_F + 1, K_pre)  # powers p^1 .. p^rows of the medium weights
    table = pm.size <= TABLE_MAX
    if pm.size == 0:
        Sk = np.zeros(rows + 1)
    elif table:
        V = np.empty((rows + 1, pm.size))
        V[0] = 1.0
        V[1] = pm
        h = 1  # doubling: rows h+1..2h are rows 1..h times p^h (log2 calls; multiply.accumulate is 5x slower)
        while h < rows:
            top = min(2 * h, rows)
            np.multiply(V[1:top - h + 1], V[h], out=V[h + 1:top + 1])
            h = top
        Sk = np.add.reduce(V, axis=1)  # contiguous rows: pairwise sums
    else:
        Sk = np.empty(rows + 1)
        Sk[0], Sk[1] = pm.size, S1_med
        pw = pm * pm
        for k in range(2, rows + 1):
            if k > 2:
                pw *= pm
            Sk[k] = float(np.add.reduce(pw))
    KL = max(K_F, TINY_R)  # log F's series: the tiny sums up to R, the medium ones up to K_F
    S_terms = np.zeros(KL)
    S_terms[0], S_terms[1] = S1, S2
    S_terms[2:TINY_R] += St[:TINY_R - 2]
    if pm.size:
        S_terms[2:K_F] += Sk[3:K_F + 1]
    S_next_t = p_tiny * float(St[TINY_R - 3]) * (1 + 1e-12)  # S^tiny_{R+1} <= p_tiny S^tiny_R: the tiny log remainder
    S_next = float(Sk[K_F + 1]) if pm.size else 0.0  # S^med_{K_F+1}, for the log remainder

    # -- nodes and log F ------------------------------------------------------------------------
    n_nodes, quad_abs = node_rule(T, P, S2c + S2_L, 1e-19 / (2 * P))
    xi, om = nodes_float(n_nodes)
    t = T * (1 + xi) / 2
    w = T * om / 2
    n_mom = KMAX + 2
    tpow = np.empty((n_nodes, max(KL + 1, n_mom) + 1))
    tpow[:, 0] = 1.0
    tpow[:, 1:] = t[:, None]
    np.multiply.accumulate(tpow[:, 1:], axis=1, out=tpow[:, 1:])
    logF = -(tpow[:, 1:KL + 1] @ (S_terms / np.arange(1, KL + 1)))  # -Σ_k S_k t^k / k at every node
    fac = None
    if xv.size:
        # 1 - p t = (1-p) + p(1-t) for each large value (rows: nodes, columns: values): both terms
        # positive, so no cancellation, and the log of a number with relative error <= 3u
        fac = np.multiply.outer(1 - t, pv)
        fac += omv
        logfac = np.log(fac)
        if inv is not None:
            logfac *= counts
        logF += logfac.sum(axis=1)
    F = np.exp(logF)
    wF = w * F
    # the dropped log terms at every node (module docstring): below CUT k >= 3, tiny k > R, medium k > K_F
    Rbar = (CUT * CUT * S1 / 3) * tpow[:, 3] / (1 - CUT * t)
    Rbar += (S_next_t / (TINY_R + 1)) * tpow[:, TINY_R + 1] / (1 - p_tiny * t)
    if pm.size:
        Rbar += (S_next / (K_F + 1)) * tpow[:, K_F + 1] / (1 - p_M * t)
    Mk = wF @ tpow[:, :n_mom]  # M̃_j = Σ_i w_i F̃(t_i) t_i^j, j = 0..KMAX+1
    E0 = float(wF @ Rbar)
    M0_lo = max(1 / (2 * P), float(Mk[0]) * (1 - 1e-12) - quad_abs - E0)  # true M_0 >= this

    # -- G's series length, a posteriori --------------------------------------------------------
    mk = Mk.tolist()

    def series_rel(pmax: float, K: int) -> float:
        return pmax ** (K + 1) * mk[K + 1] * (1 + 1e-12) / ((1 - pmax * T) * M0_lo)

    K = 1
    if pm.size:
        while K < min(rows, KMAX) and series_rel(p_M, K) > TARGET:
            K += 1
    ser = max(series_rel(p_M, K) if pm.size else 0.0, series_rel(p_tiny, TINY_K),
              CUT * mk[1] * (1 + 1e-12) / ((1 - CUT * T) * M0_lo))  # below CUT: G = M_0
    log_rel = E0 / ((1 - min(p_M, 1 / (2 * T)) * T) * M0_lo)

    # -- probabilities ----------------------------------------------------------------------------
    m0 = mk[0]
    c0 = math.log(m0)
    a = [mk[j] / m0 for j in range(TINY_K + 1)]  # y = G/M_0 - 1 = Σ_{j>=1} a_j p^j
    y_max = 0.0
    for j in range(TINY_K, 0, -1):
        y_max = (y_max + a[j]) * p_tiny
    y_max *= 1 + 1e-12
    ser = max(ser, y_max ** (TINY_J + 1) / (TINY_J + 1))  # log1p(y)'s alternating series after TINY_J terms
    logpmf, pmf = x, p
    scratch = np.empty((3, min(n, PIECE)))
    for lo in range(0, n, PIECE):
        hi = min(n, lo + PIECE)
        _tiny_update(pmf[lo:hi], logpmf[lo:hi], a, c0, m0, scratch[:, :hi - lo])
    pmax = 0.0
    if pm.size:
        if table:
            # Σ_{j<=K} M_j p^j, smallest terms first; einsum, not BLAS (OpenBLAS threads gemv from ~10^4 entries)
            G = np.einsum("j,jm->m", Mk[K::-1], V[K::-1])
        else:
            G = np.multiply(pm, Mk[K], out=pw)
            G += Mk[K - 1]
            for j in range(K - 2, -1, -1):
                G *= pm
                G += Mk[j]
        G *= pm
        pmf[med] = G
        pmax = float(np.maximum.reduce(G))
        logpmf[med] = np.log(G, out=G)
    if xv.size:
        both = np.stack((wF, wF * Rbar)) @ np.reciprocal(fac, out=fac)  # Σ_i w F̃/(1-pt), Σ_i w F̃ R̄/(1-pt)
        Gv = both[0]
        log_rel = max(log_rel, float(np.maximum.reduce(both[1] / np.maximum(Gv - quad_abs, 1 / (2 * P)))))
        Gv *= pv
        pmax = max(pmax, float(np.maximum.reduce(Gv)))
        pmf[large] = Gv if inv is None else Gv[inv]
        logpmf[large] = np.log(Gv) if inv is None else np.log(Gv)[inv]
    if pmax == 0.0:  # not reached (p = 1 at the maximum is never tiny); kept for safety
        pmax = float(pmf.max())

    quad_rel = quad_abs * 2 * P
    # a-priori rounding: the sums S, S_1 = S - Σ_large, S_2 (pairwise: (log2 n + 16)u of S·T in log F),
    # log F's terms, the node and moment sums, the power table / Horner, the final products
    # the pairwise sums' rounding reaches log F through S·T: (bit_length(n) + 16)u each for S and S_2;
    # the tiny Horner and log1p series 8(TINY_K + TINY_J)u; each large factor 1 - pt (3u) and its log
    # or product (u): 4u per large weight
    rounding = U * (-8 * float(np.minimum.reduce(logF))  # log F <= 0
                    + 2 * (n.bit_length() + 16) * (S * T + 1) + 4 * n_nodes + 8 * (K + KL + TINY_K + TINY_J)
                    + 4 * int(large.size) + 50)
    report = QuadratureReport(
        nodes=n_nodes,
        T=T,
        total_weight=P,
        n_large=int(large.size),
        n_large_distinct=int(xv.size),
        log_terms=K_F,
        series_terms=K + 1,
        tail_rel=tail_rel,
        quadrature_rel=quad_rel,
        series_rel=ser + log_rel,
        rounding_rel=rounding,
        max_pmf=pmax,
        x_min=x_min,
    )
    return pmf, logpmf, report


def _tiny_update(pmf: np.ndarray, logpmf: np.ndarray, a: list, c0: float, m0: float, s: np.ndarray) -> None:
    """In place, every entry as a tiny one: ``pmf = M_0 p (1 + y)``, ``logpmf = x + log M_0 + log1p(y)``
    with ``y = Σ_{j=1..TINY_K} a_j p'^j`` (``a_j = M_j/M_0``; ``p' = p``, or 0 below CUT) and log1p by
    TINY_J terms of its series (``pmf`` holds ``p``, ``logpmf`` holds ``x``; ``s``: 3 rows of scratch)."""
    ve, y, lg = s
    np.multiply(pmf, pmf > CUT, out=ve)
    y.fill(a[TINY_K])
    for j in range(TINY_K - 1, 0, -1):
        y *= ve
        y += a[j]
    y *= ve
    lg.fill((-1.0) ** (TINY_J + 1) / TINY_J)
    for j in range(TINY_J - 1, 0, -1):
        lg *= y
        lg += (-1.0) ** (j + 1) / j
    lg *= y
    logpmf += lg
    logpmf += c0
    y += 1.0
    pmf *= y
    pmf *= m0
