"""The float PF quadrature of :mod:`.quadrature_float` compiled by numba: the same classes, series
lengths, node rule and a-posteriori bounds, in a few passes over the weights and one call from Python.

Why: at ``n ~ 10^3`` the numpy route makes ~60 numpy calls of bookkeeping whose fixed costs are 5-10×
EM's whole pmf; at ``n ~ 10^6`` it gathers and scatters the medium weights. Here every pass is one loop
(``S`` and ``S_2``; the tiny class's power sums with the compaction of the other weights; the medium
weights' power sums; log F at the nodes, the moments; the pmf / log-pmf of every entry), the
scalar rules are the very functions the numpy route calls (:mod:`.quadrature_rules`, compiled), and the
weights ``p = exp(x)`` come from numpy (its vectorised exp) before the call.

What differs from the numpy route is only the order of floating-point operations, within the
a-priori rounding term both routes state:

* every sum of many positive terms (``S``, ``S_2``, the power sums, the large weights' sums) is
  pairwise in lanes (:mod:`.quadrature_sums`): at most ``log2 n + 15 <= bit_length(n) + 16`` roundings an
  entry, the count the stated bound assumes;
* ``G``'s series by Horner instead of a power table (a positive sum either way: <= 2K roundings,
  inside the ``8(K + K_F)u`` term); ``p^k`` by repeated products as the numpy route's loop does;
* the large weights' log factors as products of 16 before one log (4u per factor, stated in both routes).

The constants and rules of :mod:`.quadrature_rules` (``TINY_R``, ``KMAX``, ``tiny_threshold``, ...) are
compiled in, and numba's cache is keyed on this file only: ``COMPILED_INPUTS`` records the digest of
everything compiled in from other modules (:mod:`.quadrature_kernel_key`); a different digest at
import turns the cache off (compiled afresh, never stale) until the record is updated, which a test
asks for.

Both routes are tested against the ball oracle and against each other (tests/test_pf_kernel.py).
Compiled with numba's cache (``CACHED``): the first call in a fresh install compiles (15-26 CPU s,
benchmarks/README.md), later processes load the cache; numba is imported only when this module is.
"""

from __future__ import annotations

import math
import threading

import numba
import numpy as np

from ...numbers.gauss_legendre import nodes_float
from .quadrature import MAX_NODES, U, QuadratureReport, _truncation
from . import quadrature_rules as rules
from .quadrature_kernel_key import digest
from .quadrature_sums import BLOCK, GROUP, counter_total, fold, levels, power_sums, sum_and_squares
from .quadrature_rules import CUT, GROUP_MIN, KMAX, TINY_J, TINY_K, TINY_R

__all__ = ["pf_pmf_quadrature_kernel", "pf_kernel", "N_REPORT", "COMPILED_INPUTS", "CACHED"]

#: digest (:mod:`.quadrature_kernel_key`) of the rules and constants this file was last checked against
COMPILED_INPUTS = "c2c036b3f0c104d6"
CACHED = digest() == COMPILED_INPUTS  # else numba's cache could hold code compiled from other rules

_jit = numba.njit(cache=CACHED, nogil=True, error_model="numpy")

_trunc = _jit(_truncation)
_log_ratio = _jit(rules.log_ratio)
_threshold = _jit(rules.threshold)
_tiny_threshold = _jit(rules.tiny_threshold)
_series_lengths = _jit(rules.series_lengths)
_node_rule = _jit(rules.node_rule)

N_REPORT = 19  # the report vector's length (see pf_kernel)
LOG_HERE = 128  # medium weights up to this count get their log-pmf in the kernel (pf_kernel)
PROD = 16  # large-weight factors multiplied before one log (pf_kernel)


@_jit
def _tiny_sums_and_classify(p, cut, p0, p_top, R, pm, med):
    """One pass over the weights: the tiny class's power sums ``[Σ v^3, ..., Σ v^R]`` (``v = p`` where
    ``cut < p <= p0``, 0 elsewhere; ``R = TINY_R``, compiled in) and the compaction of the others.
    Returns ``(sums, pm[:m], med[:m], large)``: the medium weights ``p0 < p <= p_top`` (values and
    indices, in order, in the scratch buffers ``pm``/``med`` of size >= n) and the indices of the
    large ones ``p > p_top``.

    Per block of 128, one vectorised loop selects the tiny weights (others count as 0, an exact no-op
    in a lane), counts the entries above ``p0`` and adds the powers into 128 lanes per power (the loop
    over the compiled-in R is unrolled; :mod:`.quadrature_sums`: within the stated
    ``(bit_length(n) + 16)u``; 7 % less at n = 10^4 uniform than a select loop then a power loop
    skipped in blocks without tiny weights, 3 % more at 10^5 spread, measured); then the indices of
    the entries above ``p0`` are appended: by a branch where
    they are fewer than 1 in 8 (rarely mispredicted: 4.7 µs against 6.6 µs branch-free at n = 10^4
    uniform, 6.5 % medium), else branch-free (every index stored at the next free slot, the slot
    taken only where ``p > p0``: a coin-flip test costs no misprediction); the few large ones are
    moved out of the list afterwards. CUT keeps every power normal (subnormal products cost ~100× on
    x86). One pass where a separate sum pass and a compaction (with its own count pass) cost ~25 %
    more at n = 10^4 (measured). Blocks are read through slices: an index ``lo + j`` would be
    checked for wraparound and turn the loads into gathers (2-3× slower, measured)."""
    if R != TINY_R:  # the power loop's count is compiled in (unrolled): refuse any other
        raise ValueError("R must be TINY_R")
    n = p.size
    R1 = TINY_R - 2
    stack = np.zeros((levels(n), R1))
    occ = np.zeros(stack.shape[0], dtype=np.bool_)
    acc = np.zeros((R1, BLOCK))
    k = np.uint64(0)
    for g in range(0, n, GROUP):
        for lo in range(g, min(n, g + GROUP), BLOCK):
            b = min(BLOCK, n - lo)
            src = p[lo:lo + b]
            c_over = 0
            if b == BLOCK:
                for j in range(BLOCK):  # select, count and accumulate the powers in one vectorised loop
                    v = src[j]
                    c_over += v > p0
                    ve = v if (v > cut) & (v <= p0) else 0.0
                    w = ve * ve * ve
                    for r in range(R1):
                        acc[r, j] += w
                        w *= ve
            else:
                for j in range(b):
                    v = src[j]
                    c_over += v > p0
                    ve = v if (v > cut) & (v <= p0) else 0.0
                    w = ve * ve * ve
                    for r in range(R1):
                        acc[r, j] += w
                        w *= ve
            if 8 * c_over > b:  # dense: branch-free (the test is a coin flip)
                for j in range(b):
                    med[k] = lo + j
                    k += np.uint64(src[j] > p0)
            elif c_over:  # sparse (the common case with the tiny class): a branch, rarely mispredicted
                for j in range(b):
                    if src[j] > p0:
                        med[k] = lo + j
                        k += np.uint64(1)
        fold(acc, R1, stack, occ)
    nb = np.int64(k)
    nl = 0
    for j in range(nb):
        nl += p[med[j]] > p_top
    large = np.empty(nl, dtype=np.int64)
    m = 0
    jl = 0
    for j in range(nb):  # in place: m <= j
        i = med[j]
        if p[i] > p_top:
            large[jl] = i
            jl += 1
        else:
            med[m] = i
            m += 1
    for j in range(m):
        pm[j] = p[med[j]]
    return counter_total(stack, occ, R1), pm[:m], med[:m], large


@_jit
def _large_groups(xl):
    """Distinct values of ``xl``, each entry's value index and the multiplicities (``_groups``)."""
    k = xl.size
    if k > GROUP_MIN:
        srt = np.sort(xl)
        ties = False
        for j in range(1, k):
            if srt[j] == srt[j - 1]:
                ties = True
                break
        if ties:
            nu = 1
            for j in range(1, k):
                if srt[j] != srt[j - 1]:
                    nu += 1
            xv = np.empty(nu)
            counts = np.zeros(nu)
            u = 0
            xv[0] = srt[0]
            for j in range(k):
                if srt[j] != xv[u]:
                    u += 1
                    xv[u] = srt[j]
                counts[u] += 1.0
            return xv, np.searchsorted(xv, xl), counts, True
    return xl.copy(), np.arange(k), np.ones(k), False


@_jit
def pf_kernel(x, p, L, target, nbits, XI, OM, have, pm_buf, med_buf):
    """PF pmf and log-pmf in place (``p`` holds ``exp(x)`` and becomes the pmf, ``x`` the log-pmf),
    as :func:`.quadrature_float.pf_pmf_quadrature_float` computes them; ``XI``/``OM`` hold the
    Gauss–Legendre rule of ``4j + 8`` nodes in row j where ``have[j]``; ``pm_buf``/``med_buf``
    (float64 / int64, size >= n) are scratch for the medium weights.

    Returns the report ``[nodes, T, P, n_large, n_large_distinct, K_F, K + 1, tail_rel, quad_rel,
    series_rel, rounding_rel, max_pmf, need, m, p_0, S^tiny_{R+1} (a bound), y_max, min x, logs_left]``;
    with ``logs_left`` the m medium weights' pmf values ``G`` are left in ``pm_buf[:m]``, their indices in
    ``med_buf[:m]``, and ``x[med] = log(G)`` to the caller (numpy's log is vectorised, a compiled loop
    calls libm once per entry: 4x slower, measured; returning arrays from the kernel costs more than
    slicing the buffers); up to LOG_HERE of them the kernel takes the logs itself. ``need > 0``:
    nothing was written, the rule of ``need`` nodes is missing (fill its row, call again).

    The classes, bounds and lengths are those of the numpy route (:mod:`.quadrature_float`'s module
    docstring); the tiny class (every weight ``<= p_0``) is one branch-free pass for its power sums and
    one for every entry's pmf and log-pmf, the medium weights (``p_0 < p <= p_L``) are compacted once."""
    n = x.size
    rep = np.zeros(N_REPORT)
    s12 = sum_and_squares(p)
    S, S2 = s12[0], s12[1]
    s_err = (nbits + 16) * U * S  # pairwise summation
    P, S_lo = S + s_err, S - s_err
    T, tail_rel = _trunc(P, S_lo - 1.0, L)
    lT, l2P, lS = np.log(T), np.log(2 * P), np.log(S_lo)
    p_L = _threshold(KMAX, target, T, lT, l2P, lS)
    p0 = min(_tiny_threshold(TINY_R, TINY_K, target, S, T, lT, l2P, lS), p_L)
    split = p_L < 1.0

    # -- classes and power sums ---------------------------------------------------------------------
    p_top = p_L if split else np.inf
    # S^tiny_3 .. S^tiny_R, the medium weights and the large ones
    St, pm, med, large = _tiny_sums_and_classify(p, CUT, p0, p_top, TINY_R, pm_buf, med_buf)
    m, nl = pm.size, large.size
    xl = np.empty(nl)
    pl = np.empty(nl)
    for j in range(nl):
        xl[j], pl[j] = x[large[j]], p[large[j]]
    xv, inv, counts, grouped = _large_groups(xl)
    nv = xv.size
    pv = np.exp(xv) if grouped else pl  # ungrouped: the weights themselves, exp(x) already
    omv = -np.expm1(xv)  # 1 - p, accurate
    p_M = p0  # the largest series weight (tiny or medium)
    for j in range(m):
        p_M = max(p_M, pm[j])

    S1, S2_L = S, 0.0
    if nl:
        l12 = power_sums(pl, nl, 2)
        S1 = S - l12[0]
        S2_L = l12[1]
        S2 -= S2_L
    S2c = max(S2, 0.0)
    K_F, K_pre = 2, 1
    S1_med = 0.0
    if m:
        S1_med = power_sums(pm, m, 1)[0]
        K_F, K_pre = _series_lengths(p_M, S1_med, target, T, lT, l2P, lS)
    rows = max(K_F + 1, K_pre)
    Sk = np.zeros(K_F + 2)
    if m:
        Sk[1:] = power_sums(pm, m, K_F + 1)
    KL = max(K_F, TINY_R)  # log F's series: the tiny sums up to R, the medium ones up to K_F
    S_terms = np.zeros(KL)
    S_terms[0], S_terms[1] = S1, S2
    for k in range(3, KL + 1):  # one more rounding than a single sum: inside the (nbits + 16) u term
        S_terms[k - 1] = (St[k - 3] if k <= TINY_R else 0.0) + (Sk[k] if k <= K_F else 0.0)
    # S^tiny_{R+1} <= p_0 S^tiny_R (every tiny p <= p_0; 1e-12: the rounding of S_R): for the tiny log remainder,
    # the a-priori bound p_0^R S of the threshold still holds for it (S^tiny_R <= p_0^{R-1} S), one power sum fewer
    S_next_t = p0 * St[TINY_R - 3] * (1 + 1e-12)
    S_next = Sk[K_F + 1]  # S^med_{K_F+1}

    # -- nodes and log F ------------------------------------------------------------------------
    n_nodes, quad_abs = _node_rule(T, P, S2c + S2_L, 1e-19 / (2 * P))
    row = (n_nodes - 8) // 4
    if not have[row]:
        rep[12] = n_nodes
        return rep
    n_mom = KMAX + 2
    ncol = max(KL + 1, n_mom) + 1
    t = np.empty(n_nodes)
    w = np.empty(n_nodes)
    tpow = np.empty((n_nodes, ncol))
    logF = np.empty(n_nodes)
    coef = np.empty(KL)
    for k in range(KL):
        coef[k] = S_terms[k] / (k + 1)
    for i in range(n_nodes):
        t[i] = T * (1 + XI[row, i]) / 2
        w[i] = T * OM[row, i] / 2
        tpow[i, 0] = 1.0
        tpow[i, 1] = t[i]
        for k in range(2, ncol):
            tpow[i, k] = tpow[i, k - 1] * t[i]
        acc = 0.0
        for k in range(KL):
            acc += tpow[i, k + 1] * coef[k]
        logF[i] = -acc
    fac = np.empty((n_nodes, nv))
    for i in range(n_nodes):
        acc = 0.0
        pr = 1.0
        for v in range(nv):
            # 1 - p t = (1-p) + p(1-t): both terms positive, no cancellation (the numpy route's comment)
            f = (1 - t[i]) * pv[v] + omv[v]
            fac[i, v] = f
            if grouped:
                acc += np.log(f) * counts[v]
            else:
                # one log per PROD factors (a log costs ~4x a product, measured: 5.5 vs 1.5 µs for 38 x 24):
                # each factor >= 1 - t_N >= 8e-5, so a product of 16 stays normal; each product adds u
                pr *= f
                if v % PROD == PROD - 1:
                    acc += np.log(pr)
                    pr = 1.0
        if not grouped:
            acc += np.log(pr)
        logF[i] += acc
    wF = np.empty(n_nodes)
    Rbar = np.empty(n_nodes)
    r_cut = CUT * CUT * S1 / 3  # weights below CUT: their k >= 3 log terms
    logF_min = 0.0
    E0 = 0.0
    for i in range(n_nodes):
        wF[i] = w[i] * np.exp(logF[i])
        Rbar[i] = r_cut * tpow[i, 3] / (1 - CUT * t[i]) + \
            (S_next_t / (TINY_R + 1)) * tpow[i, TINY_R + 1] / (1 - p0 * t[i])
        if m:
            Rbar[i] += (S_next / (K_F + 1)) * tpow[i, K_F + 1] / (1 - p_M * t[i])
        E0 += wF[i] * Rbar[i]
        logF_min = min(logF_min, logF[i])
    Mk = np.zeros(n_mom)
    for j in range(n_mom):
        acc = 0.0
        for i in range(n_nodes):
            acc += wF[i] * tpow[i, j]
        Mk[j] = acc
    M0_lo = max(1 / (2 * P), Mk[0] * (1 - 1e-12) - quad_abs - E0)  # true M_0 >= this

    # -- G's series lengths, a posteriori ------------------------------------------------------------
    K = 1
    if m:
        while K < min(rows, KMAX) and \
                p_M ** (K + 1) * Mk[K + 1] * (1 + 1e-12) / ((1 - p_M * T) * M0_lo) > target:
            K += 1
    ser = p0 ** (TINY_K + 1) * Mk[TINY_K + 1] * (1 + 1e-12) / ((1 - p0 * T) * M0_lo)
    ser = max(ser, CUT * Mk[1] * (1 + 1e-12) / ((1 - CUT * T) * M0_lo))  # below CUT: G = M_0
    if m:
        ser = max(ser, p_M ** (K + 1) * Mk[K + 1] * (1 + 1e-12) / ((1 - p_M * T) * M0_lo))
    log_rel = E0 / ((1 - min(p_M, 1 / (2 * T)) * T) * M0_lo)

    # -- probabilities: one pass over every weight as a tiny one, then the others -------------------
    m0 = Mk[0]
    c0 = np.log(m0)
    a = np.empty(TINY_K + 1)  # a_j = M_j / M_0: y = G/M_0 - 1 = Σ_{j>=1} a_j p^j
    y_max = 0.0
    for j in range(TINY_K, 0, -1):
        a[j] = Mk[j] / m0
        y_max = (y_max + a[j]) * p0
    y_max *= 1 + 1e-12
    # log1p(y) by its alternating series, TINY_J terms: remainder <= y^{J+1}/(J+1) (0 <= y < 1)
    ser = max(ser, y_max ** (TINY_J + 1) / (TINY_J + 1))
    inv_j = np.empty(TINY_J + 1)
    for j in range(1, TINY_J + 1):
        inv_j[j] = 1.0 / j if j % 2 else -1.0 / j
    xu = x.view(np.uint64)
    xbits = np.uint64(0)
    for i in range(n):  # every entry as a tiny one (a loop the compiler vectorises); the others below
        # the smallest exponent, for the caller's 2.5u|x| term, without a pass of its own: x <= 0, and
        # the bit patterns of non-positive doubles, read as unsigned, grow with |x| (-0.0 above +0.0)
        xbits = max(xbits, xu[i])
        v = p[i]
        ve = v if v > CUT else 0.0
        y = a[TINY_K]
        for j in range(TINY_K - 1, 0, -1):
            y = y * ve + a[j]
        y *= ve
        lg = inv_j[TINY_J]
        for j in range(TINY_J - 1, 0, -1):
            lg = lg * y + inv_j[j]
        x[i] = (x[i] + lg * y) + c0
        p[i] = (v * (y + 1.0)) * m0
    pmax = 0.0
    g8 = np.empty(8)
    v8 = np.empty(8)
    for lo in range(0, m, 8):  # Horner on eight weights at once (independent chains: one vector register)
        hi = min(m, lo + 8)
        for k in range(8):
            v8[k] = pm[lo + k] if lo + k < hi else 0.0
            g8[k] = Mk[K]
        for j in range(K - 1, -1, -1):
            mj = Mk[j]
            for k in range(8):
                g8[k] = g8[k] * v8[k] + mj
        for k in range(hi - lo):
            g = g8[k] * v8[k]
            p[med[lo + k]] = g
            pm[lo + k] = g  # their logarithms: below, or numpy's vectorised log by the caller
            pmax = max(pmax, g)
    if nv:
        # Σ_i w F̃/(1 - p t_i) and Σ_i w F̃ R̄/(1 - p t_i) per value, node by node (the same order of
        # additions per value as value by value, and the divisions vectorised across the values)
        Gv = np.zeros(nv)
        Rv = np.zeros(nv)
        for i in range(n_nodes):
            wi, wr = wF[i], wF[i] * Rbar[i]
            for v in range(nv):
                rc = 1.0 / fac[i, v]
                Gv[v] += wi * rc
                Rv[v] += wr * rc
        worst = 0.0
        for v in range(nv):
            worst = max(worst, Rv[v] / max(Gv[v] - quad_abs, 1 / (2 * P)))
            Gv[v] *= pv[v]
            pmax = max(pmax, Gv[v])
        log_rel = max(log_rel, worst)
        for j in range(nl):
            g = Gv[inv[j]]
            p[large[j]] = g
            x[large[j]] = np.log(g)
    if pmax == 0.0:  # no medium or large weight (not reached: p = 1 at the maximum is never tiny)
        pmax = p.max()

    rep[0], rep[1], rep[2], rep[3], rep[4] = n_nodes, T, P, nl, nv
    rep[5], rep[6], rep[7], rep[8] = K_F, K + 1, tail_rel, quad_abs * 2 * P
    rep[9] = ser + log_rel
    rep[10] = U * (-8 * logF_min + 2 * (nbits + 16) * (S * T + 1) + 4 * n_nodes + 8 * (K + KL + TINY_K + TINY_J)
                   + 4 * nl + 50)
    rep[11] = pmax
    rep[13] = m
    if m <= LOG_HERE:  # a few: libm here costs less than two more numpy calls in the caller
        for j in range(m):
            x[med[j]] = np.log(pm[j])
    else:
        rep[18] = 1.0  # the caller takes them
    rep[14], rep[15], rep[16] = p0, S_next_t, y_max
    rep[17] = np.array([xbits]).view(np.float64)[0] if xbits > np.uint64(1) << np.uint64(63) else 0.0
    return rep


class _Scratch(threading.local):
    """Per-thread scratch for the medium weights, kept between calls and grown as needed: a fresh
    n-sized buffer is paged in on first touch, and those page faults cost more than the pass that
    fills it (measured: ~2 µs a page on this virtual machine; at n = 10^5 uniform, 0.3 ms of a
    1.5 ms kernel). Memory held: 16 bytes × the largest n seen, per thread."""

    def __init__(self) -> None:
        self.pm = np.empty(0)
        self.med = np.empty(0, dtype=np.int64)

    def get(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.pm.size < n:
            self.pm, self.med = np.empty(n), np.empty(n, dtype=np.int64)
        return self.pm, self.med


_SCRATCH = _Scratch()
_RULES = MAX_NODES // 4 - 1  # rules of 8, 12, ..., MAX_NODES nodes
_XI = np.zeros((_RULES, MAX_NODES))
_OM = np.zeros((_RULES, MAX_NODES))
_HAVE = np.zeros(_RULES, dtype=np.bool_)


def pf_pmf_quadrature_kernel(x: np.ndarray, L: float, target: float) -> tuple[np.ndarray, np.ndarray, QuadratureReport]:
    """:func:`.quadrature_float.pf_pmf_quadrature_float` for ``n > SMALL_N`` through :func:`pf_kernel`
    (same contract: ``x`` becomes the log-pmf; same report and bound; ``target`` the truncation target)."""
    p = np.exp(x)
    pm_buf, med_buf = _SCRATCH.get(x.size)
    while True:
        rep = pf_kernel(x, p, L, target, x.size.bit_length(), _XI, _OM, _HAVE, pm_buf, med_buf).tolist()
        need = int(rep[12])
        if not need:
            m = int(rep[13])
            if rep[18]:
                G = pm_buf[:m]
                x[med_buf[:m]] = np.log(G, out=G)
            break
        xi, om = nodes_float(need)  # first use of this rule in the process (then kept in the table)
        row = (need - 8) // 4
        _XI[row, :need], _OM[row, :need] = xi, om
        _HAVE[row] = True
    report = QuadratureReport(int(rep[0]), rep[1], rep[2], int(rep[3]), int(rep[4]), int(rep[5]), int(rep[6]),
                              rep[7], rep[8], rep[9], rep[10], rep[11], rep[17])
    return p, x, report
