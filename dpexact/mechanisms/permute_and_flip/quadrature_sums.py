"""Sums of many positive float64 terms for the compiled PF kernel (:mod:`.quadrature_kernel`), pairwise
and vectorised, with a stated count of roundings per entry.

Every sum of many positive terms (``S``, ``S_2``, the power sums, the large weights' sums) is
pairwise, in lanes: entry j of a group of ``GROUP = 1024`` entries is added into lane ``j mod 128``
(a running sum from 0 of at most 8 entries: <= 7 roundings), the 128 lanes are halved 7 times
(7 roundings), and the group sums are combined by a binary counter (<= log2(groups) + 1), so an
entry meets at most ``log2 n + 15 <= bit_length(n) + 16`` roundings, the count the stated bound
assumes. Lanes are elementwise additions, which LLVM vectorises without reassociating anything
(a reduction in one accumulator stays scalar: numba runs no SLP pass, and fastmath would reorder
the sums beyond this count); 2-3× faster than 8 scalar accumulators at n = 10^4-10^5 (measured).
Up to ``FEW`` entries the power sums use 8 scalar accumulators instead (:func:`power_sums_few`).

Its functions are compiled into the kernel, so :mod:`.quadrature_kernel_key` digests their source.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["BLOCK", "GROUP", "FEW", "levels", "counter_total", "fold", "power_sums", "power_sums_few", "sum_and_squares"]

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

BLOCK = 128  # lanes of the pairwise sums (module docstring)
GROUP = 8 * BLOCK  # entries per lane group: a lane adds at most 8 of them before the lanes are folded
FEW = 4 * BLOCK  # power sums of at most this many entries: scalar accumulators (power_sums_few)


@_inline
def levels(n):
    """Binary-counter levels for n entries: the counter of ``ceil(n/GROUP)`` group sums never carries
    beyond level ``bit_length(groups)`` (a zeroed 64-level stack cost ~0.3 µs a sum at n = 10^3)."""
    groups = (n + GROUP - 1) // GROUP
    lv = 1
    while groups:
        groups >>= 1
        lv += 1
    return lv


@_inline
def counter_total(stack, occ, R):
    """The counter's partial sums added from the lowest level up (an entry meets <= levels + 1 more)."""
    out = np.zeros(R)
    first = True
    for lv in range(occ.size):
        if occ[lv]:
            for r in range(R):
                out[r] = stack[lv, r] if first else out[r] + stack[lv, r]
            first = False
    return out


@_inline
def fold(acc, R, stack, occ):
    """The lanes of each row of ``acc`` (R x BLOCK) halved into one sum (7 levels of elementwise adds:
    vectorised), the R group sums pushed onto the binary counter, the lanes zeroed for the next group."""
    blk = np.empty(R)
    for r in range(R):
        a = acc[r]
        h = BLOCK // 2
        while h:
            for j in range(h):
                a[j] += a[j + h]
            h //= 2
        blk[r] = a[0]
        for j in range(BLOCK):
            a[j] = 0.0
    lv = 0
    while occ[lv]:
        for r in range(R):
            blk[r] = stack[lv, r] + blk[r]
        occ[lv] = False
        lv += 1
    for r in range(R):
        stack[lv, r] = blk[r]
    occ[lv] = True


@_jit
def power_sums_few(v, m, R):
    """:func:`power_sums` for ``m <= FEW`` entries: per block of 128 the powers summed by 8 interleaved
    scalar accumulators (<= 15 roundings) and a 3-level tree, the <= 4 block sums added in order
    (<= 3): <= 21 roundings an entry, within ``bit_length(m) + 16`` (module docstring). The lanes'
    fixed cost (zeroing and folding R rows of 128) is 2-3x this whole sum at m ~ 10^2 (measured)."""
    out = np.zeros(R)
    pw = np.zeros(BLOCK + 8)
    for lo in range(0, m, BLOCK):
        b = min(BLOCK, m - lo)
        b8 = -(-b // 8) * 8
        src = v[lo:lo + b]
        for j in range(b):
            pw[j] = src[j]
        for j in range(b, b8):  # a short last group padded with zeros (they add nothing)
            pw[j] = 0.0
        for r in range(R):
            if r:
                for j in range(b):
                    pw[j] *= src[j]
            a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
            for j in range(0, b8, 8):
                a0 += pw[j]
                a1 += pw[j + 1]
                a2 += pw[j + 2]
                a3 += pw[j + 3]
                a4 += pw[j + 4]
                a5 += pw[j + 5]
                a6 += pw[j + 6]
                a7 += pw[j + 7]
            blk = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
            out[r] = blk if lo == 0 else out[r] + blk
    return out


@_jit
def power_sums(v, m, R):
    """``[Σ v^1, ..., Σ v^R]`` over ``v[:m]``, in lanes (module docstring): per block of 128 entries
    the powers in a block buffer, each power added elementwise into its row of 128 lanes (one
    vectorised loop per r), the lanes folded every GROUP entries; up to FEW entries
    :func:`power_sums_few`."""
    if m <= FEW:
        return power_sums_few(v, m, R)
    stack = np.zeros((levels(m), R))
    occ = np.zeros(stack.shape[0], dtype=np.bool_)
    acc = np.zeros((R, BLOCK))
    vb = np.zeros(BLOCK)
    pw = np.empty(BLOCK)
    for g in range(0, m, GROUP):
        for lo in range(g, min(m, g + GROUP), BLOCK):
            b = min(BLOCK, m - lo)
            src = v[lo:lo + b]
            for j in range(b):
                vb[j] = src[j]
            for j in range(b, BLOCK):  # a short last block padded with zeros (they add nothing)
                vb[j] = 0.0
            for j in range(BLOCK):
                pw[j] = vb[j]
            for r in range(R):
                a = acc[r]
                if r:
                    for j in range(BLOCK):
                        pw[j] *= vb[j]
                for j in range(BLOCK):
                    a[j] += pw[j]
        fold(acc, R, stack, occ)
    return counter_total(stack, occ, R)


@_jit
def sum_and_squares(p):
    """``(Σ p, Σ p²)`` in lanes (module docstring), read once: each block of 128 added elementwise
    into two rows of 128 lanes (one vectorised loop), folded every GROUP entries."""
    n = p.size
    stack = np.zeros((levels(n), 2))
    occ = np.zeros(stack.shape[0], dtype=np.bool_)
    acc = np.zeros((2, BLOCK))
    a1 = acc[0]
    a2 = acc[1]
    for g in range(0, n, GROUP):
        for lo in range(g, min(n, g + GROUP), BLOCK):
            b = min(BLOCK, n - lo)
            src = p[lo:lo + b]
            if b == BLOCK:  # a constant trip count: the vectorised loop without a remainder
                for j in range(BLOCK):
                    v = src[j]
                    a1[j] += v
                    a2[j] += v * v
            else:
                for j in range(b):
                    v = src[j]
                    a1[j] += v
                    a2[j] += v * v
        fold(acc, 2, stack, occ)
    return counter_total(stack, occ, 2)
