"""The float PF quadrature of :mod:`.quadrature_float` compiled by numba: the same classes, series
lengths, node rule and a-posteriori bounds, in a few passes over the weights and one call from Python.

Why: at ``n ~ 10^3`` the numpy route makes ~60 numpy calls of bookkeeping whose fixed costs are 5-10×
EM's whole pmf; at ``n ~ 10^6`` it gathers and scatters the medium weights. Here every pass is one loop
(the medium weights' power sums, log F at the nodes, the moments and the final pmf / log-pmf), the
scalar rules are the very functions the numpy route calls (:mod:`.quadrature_rules`, compiled), and the
weights ``p = exp(x)`` come from numpy (its vectorised exp) before the call.

What differs from the numpy route is only the order of floating-point operations, within the
a-priori rounding term both routes state:

* every sum of many positive terms (``S``, ``S_2``, the power sums, the large weights' sums) is
  pairwise as numpy's is: blocks of 128 summed by 8 interleaved accumulators (depth <= 15 + 3), the
  block sums combined by a binary counter (depth <= log2(blocks) + 1), so an entry meets at most
  ``log2 n + 12 <= bit_length(n) + 16`` roundings, the count the stated bound assumes;
* ``G``'s series by Horner instead of a power table (a positive sum either way: <= 2K roundings,
  inside the ``8(K + K_F)u`` term); ``p^k`` by repeated products as the numpy route's loop does.

Both routes are tested against the ball oracle and against each other (tests/test_pf_kernel.py).
Compiled with ``cache=True``: the first call in a fresh install compiles (seconds, reported in
benchmarks/README.md), later processes load the cache; numba is imported only when this module is.
"""

from __future__ import annotations

import numba
import numpy as np

from ...numbers.gauss_legendre import nodes_float
from .quadrature import MAX_NODES, U, QuadratureReport, _truncation
from . import quadrature_rules as rules
from .quadrature_rules import KMAX, TARGET

__all__ = ["pf_pmf_quadrature_kernel", "pf_kernel", "N_REPORT"]

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")

_trunc = _jit(_truncation)
_log_ratio = _jit(rules.log_ratio)
_threshold = _jit(rules.threshold)
_series_lengths = _jit(rules.series_lengths)
_node_rule = _jit(rules.node_rule)

BLOCK = 128
LEVELS = 64  # binary-counter levels: 2^64 blocks
GROUP_MIN = 32  # large weights are grouped by value (ties) only above this count (as the numpy route)
N_REPORT = 13  # the report vector's length (see pf_kernel)


_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")


@_inline
def _push_block(src, lo, b, R, pw, stack, occ, blk):
    """Sums of ``src[lo:lo+b]^1 .. ^R`` (b <= 128) pushed onto the binary counter ``stack``/``occ``.
    Per block: 8 interleaved accumulators (a vector register) and a 3-level tree; the counter
    combines equal-size partial sums (pairwise). Inlined: a call per block costs more than its sums."""
    nb8 = b // 8 * 8
    for j in range(b):
        pw[j] = src[lo + j]
    for r in range(R):
        if r > 0:
            for j in range(b):
                pw[j] *= src[lo + j]
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
        for j in range(0, nb8, 8):
            a0 += pw[j]
            a1 += pw[j + 1]
            a2 += pw[j + 2]
            a3 += pw[j + 3]
            a4 += pw[j + 4]
            a5 += pw[j + 5]
            a6 += pw[j + 6]
            a7 += pw[j + 7]
        for j in range(nb8, BLOCK):  # the remainder's k-th entry goes to accumulator k, zeros after it
            pw[j] = pw[j] if j < b else 0.0
        a0 += pw[nb8]
        a1 += pw[nb8 + 1]
        a2 += pw[nb8 + 2]
        a3 += pw[nb8 + 3]
        a4 += pw[nb8 + 4]
        a5 += pw[nb8 + 5]
        a6 += pw[nb8 + 6]
        blk[r] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    lv = 0
    while occ[lv]:
        for r in range(R):
            blk[r] = stack[lv, r] + blk[r]
        occ[lv] = False
        lv += 1
    for r in range(R):
        stack[lv, r] = blk[r]
    occ[lv] = True


@_inline
def _counter_total(stack, occ, R):
    """The counter's partial sums added from the lowest level up (an entry meets <= levels + 1 more)."""
    out = np.zeros(R)
    first = True
    for lv in range(LEVELS):
        if occ[lv]:
            for r in range(R):
                out[r] = stack[lv, r] if first else out[r] + stack[lv, r]
            first = False
    return out


@_jit
def _power_sums(v, m, R):
    """``[Σ v^1, ..., Σ v^R]`` over ``v[:m]``, pairwise (module docstring)."""
    stack = np.zeros((LEVELS, R))
    occ = np.zeros(LEVELS, dtype=np.bool_)
    pw = np.zeros(BLOCK + 8)
    blk = np.empty(R)
    for lo in range(0, m, BLOCK):
        _push_block(v, lo, min(BLOCK, m - lo), R, pw, stack, occ, blk)
    return _counter_total(stack, occ, R)


@_jit
def _medium_sums(p, p_tiny, p_top, R):
    """Pairwise power sums 1..R of the medium weights ``p_tiny < p <= p_top`` (streamed through a
    block buffer: no array of their size), their count and maximum."""
    stack = np.zeros((LEVELS, R))
    occ = np.zeros(LEVELS, dtype=np.bool_)
    pw = np.zeros(BLOCK + 8)
    blk = np.empty(R)
    buf = np.empty(BLOCK + 1)
    nb = 0
    m = 0
    p_M = p_tiny
    for i in range(p.size):  # branch-free: the medium test is a coin flip on spread-out weights
        v = p[i]
        buf[nb] = v
        med = (v > p_tiny) & (v <= p_top)
        nb += med
        p_M = max(p_M, v if med else p_M)
        if nb == BLOCK:
            _push_block(buf, 0, BLOCK, R, pw, stack, occ, blk)
            m += BLOCK
            nb = 0
    if nb:
        _push_block(buf, 0, nb, R, pw, stack, occ, blk)
        m += nb
    return _counter_total(stack, occ, R), m, p_M


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
def pf_kernel(x, p, L, nbits, XI, OM, have):
    """PF pmf and log-pmf in place (``p`` holds ``exp(x)`` and becomes the pmf, ``x`` the log-pmf),
    as :func:`.quadrature_float.pf_pmf_quadrature_float` computes them; ``XI``/``OM`` hold the
    Gauss–Legendre rule of ``4j + 8`` nodes in row j where ``have[j]``.

    Returns the report ``[nodes, T, P, n_large, n_large_distinct, K_F, K + 1, tail_rel, quad_rel,
    series_rel, rounding_rel, max_pmf, need]``; ``need > 0``: nothing was written, the rule of
    ``need`` nodes is missing (fill its row, call again)."""
    n = x.size
    rep = np.zeros(N_REPORT)
    s12 = _power_sums(p, n, 2)
    S, S2 = s12[0], s12[1]
    s_err = (nbits + 16) * U * S  # pairwise summation
    P, S_lo = S + s_err, S - s_err
    T, tail_rel = _trunc(P, S_lo - 1.0, L)
    lT, l2P, lS = np.log(T), np.log(2 * P), np.log(S_lo)
    p_L = _threshold(KMAX, TARGET, T, lT, l2P, lS)
    p_tiny = min(_threshold(1, TARGET, T, lT, l2P, lS),
                 np.sqrt(3 * TARGET / (2 * S * np.exp(_log_ratio(3, lT, l2P, lS)))), p_L)
    split = p_L < 1.0

    # -- classes: medium weights streamed (pass 1: count, max, Σ; pass 2: the power sums) ---------
    p_top = p_L if split else np.inf
    nl = 0
    if split:
        for i in range(n):
            nl += p[i] > p_top
    large = np.empty(nl, dtype=np.int64)
    xl = np.empty(nl)
    pl = np.empty(nl)
    if nl:
        j = 0
        for i in range(n):
            if p[i] > p_top:
                large[j], xl[j], pl[j] = i, x[i], p[i]
                j += 1
    xv, inv, counts, grouped = _large_groups(xl)
    nv = xv.size
    pv = np.exp(xv)
    omv = -np.expm1(xv)  # 1 - p, accurate

    S1, S2_L = S, 0.0
    if nl:
        l12 = _power_sums(pl, nl, 2)
        S1 = S - l12[0]
        S2_L = l12[1]
        S2 -= S2_L
    S1c, S2c = max(S1, 0.0), max(S2, 0.0)
    K_F, K_pre = 2, 1
    s1, m, p_M = _medium_sums(p, p_tiny, p_top, 1)
    S1_med = s1[0]
    if m:
        K_F, K_pre = _series_lengths(p_M, S1_med, T, lT, l2P, lS)
    rows = max(K_F + 1, K_pre)
    Sk = np.zeros(rows + 1)
    if m:
        Sk[0] = m
        Sk[1:] = _medium_sums(p, p_tiny, p_top, rows)[0]
    S_terms = np.empty(K_F)
    S_terms[0], S_terms[1] = S1, S2
    for k in range(3, K_F + 1):
        S_terms[k - 1] = Sk[k]
    S_next = Sk[K_F + 1] if m else 0.0

    # -- nodes and log F ------------------------------------------------------------------------
    n_nodes, quad_abs = _node_rule(T, P, S2c + S2_L, 1e-19 / (2 * P))
    row = (n_nodes - 8) // 4
    if not have[row]:
        rep[N_REPORT - 1] = n_nodes
        return rep
    n_mom = KMAX + 2
    ncol = max(K_F + 1, n_mom) + 1
    t = np.empty(n_nodes)
    w = np.empty(n_nodes)
    tpow = np.empty((n_nodes, ncol))
    logF = np.empty(n_nodes)
    coef = np.empty(K_F)
    for k in range(K_F):
        coef[k] = S_terms[k] / (k + 1)
    for i in range(n_nodes):
        t[i] = T * (1 + XI[row, i]) / 2
        w[i] = T * OM[row, i] / 2
        tpow[i, 0] = 1.0
        tpow[i, 1] = t[i]
        for k in range(2, ncol):
            tpow[i, k] = tpow[i, k - 1] * t[i]
        acc = 0.0
        for k in range(K_F):
            acc += tpow[i, k + 1] * coef[k]
        logF[i] = -acc
    fac = np.empty((n_nodes, nv))
    for i in range(n_nodes):
        acc = 0.0
        for v in range(nv):
            # 1 - p t = (1-p) + p(1-t): both terms positive, no cancellation (the numpy route's comment)
            fac[i, v] = (1 - t[i]) * pv[v] + omv[v]
            acc += np.log(fac[i, v]) * counts[v] if grouped else np.log(fac[i, v])
        logF[i] += acc
    wF = np.empty(n_nodes)
    Rbar = np.empty(n_nodes)
    S1_tiny = max(S1 - S1_med, 0.0)
    r_tiny = p_tiny * p_tiny * S1_tiny / 3
    logF_min = 0.0
    E0 = 0.0
    for i in range(n_nodes):
        wF[i] = w[i] * np.exp(logF[i])
        Rbar[i] = r_tiny * tpow[i, 3] / (1 - p_tiny * t[i])
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

    # -- G's series length, a posteriori --------------------------------------------------------
    K = 1
    if m:
        while K < min(rows, KMAX) and \
                p_M ** (K + 1) * Mk[K + 1] * (1 + 1e-12) / ((1 - p_M * T) * M0_lo) > TARGET:
            K += 1
    ser = p_tiny ** 2 * Mk[2] * (1 + 1e-12) / ((1 - p_tiny * T) * M0_lo)
    if m:
        ser = max(ser, p_M ** (K + 1) * Mk[K + 1] * (1 + 1e-12) / ((1 - p_M * T) * M0_lo))
    log_rel = E0 / ((1 - min(p_M, 1 / (2 * T)) * T) * M0_lo)

    # -- probabilities: one pass over every weight, then the large ones ----------------------------
    m0 = Mk[0]
    a, c0 = Mk[1] / m0, np.log(m0)
    ser = max(ser, (a * p_tiny) ** 2 / 2)  # the tiny log-pmf's log1p(y) ≈ y
    pmax = 0.0
    G = np.empty(BLOCK + 1)
    idx = np.empty(BLOCK + 1, dtype=np.int64)
    nb = 0
    for i in range(n + 1):  # one pass: the tiny formula everywhere, medium weights Horner'd per block
        if i < n:
            v = p[i]
            G[nb] = v
            idx[nb] = i
            nb += (v > p_tiny) & (v <= p_top)
            s = v * a
            x[i] = (x[i] + s) + c0
            p[i] = (v * (s + 1.0)) * m0
        if nb == BLOCK or (i == n and nb):
            # Horner on a block: independent chains (G holds the weights, then G(p) p)
            for b in range(nb):
                pw_b = G[b]
                g = Mk[K]
                for j in range(K - 1, -1, -1):
                    g = g * pw_b + Mk[j]
                G[b] = g * pw_b
            for b in range(nb):
                g = G[b]
                p[idx[b]] = g
                x[idx[b]] = np.log(g)
                pmax = max(pmax, g)
            nb = 0
    if nv:
        Gv = np.zeros(nv)
        worst = 0.0
        for v in range(nv):
            g = 0.0
            r = 0.0
            for i in range(n_nodes):
                rc = 1.0 / fac[i, v]
                g += wF[i] * rc
                r += wF[i] * Rbar[i] * rc
            worst = max(worst, r / max(g - quad_abs, 1 / (2 * P)))
            Gv[v] = g * pv[v]
            pmax = max(pmax, Gv[v])
        log_rel = max(log_rel, worst)
        for j in range(nl):
            g = Gv[inv[j]]
            p[large[j]] = g
            x[large[j]] = np.log(g)
    if pmax == 0.0:  # not reached (p = 1 at the maximum is never tiny); kept for safety
        pmax = p.max()

    rep[0], rep[1], rep[2], rep[3], rep[4] = n_nodes, T, P, nl, nv
    rep[5], rep[6], rep[7], rep[8] = K_F, K + 1, tail_rel, quad_abs * 2 * P
    rep[9] = ser + log_rel
    rep[10] = U * (-8 * logF_min + 2 * (nbits + 16) * (S * T + 1) + 4 * n_nodes + 8 * (K + K_F) + 50)
    rep[11] = pmax
    return rep


_RULES = MAX_NODES // 4 - 1  # rules of 8, 12, ..., MAX_NODES nodes
_XI = np.zeros((_RULES, MAX_NODES))
_OM = np.zeros((_RULES, MAX_NODES))
_HAVE = np.zeros(_RULES, dtype=np.bool_)


def pf_pmf_quadrature_kernel(x: np.ndarray, L: float = 40.0) -> tuple[np.ndarray, np.ndarray, QuadratureReport]:
    """:func:`.quadrature_float.pf_pmf_quadrature_float` for ``n > SMALL_N`` through :func:`pf_kernel`
    (same contract: ``x`` becomes the log-pmf; same report and bound)."""
    p = np.exp(x)
    while True:
        rep = pf_kernel(x, p, L, x.size.bit_length(), _XI, _OM, _HAVE)
        need = int(rep[N_REPORT - 1])
        if not need:
            break
        xi, om = nodes_float(need)  # first use of this rule in the process (then kept in the table)
        row = (need - 8) // 4
        _XI[row, :need], _OM[row, :need] = xi, om
        _HAVE[row] = True
    report = QuadratureReport(nodes=int(rep[0]), T=float(rep[1]), total_weight=float(rep[2]), n_large=int(rep[3]),
                              n_large_distinct=int(rep[4]), log_terms=int(rep[5]), series_terms=int(rep[6]),
                              tail_rel=float(rep[7]), quadrature_rel=float(rep[8]), series_rel=float(rep[9]),
                              rounding_rel=float(rep[10]), max_pmf=float(rep[11]))
    return p, x, report
