"""⊤/⊥ answer patterns of the sparse vector technique: enumeration and validation.

A pattern is a string over ``"T"`` (⊤, above the noisy threshold) and ``"F"`` (⊥). With a
cutoff c the algorithm aborts right after the c-th ⊤, so a valid pattern for n queries is
either of length n with fewer than c ⊤, or ends with its c-th ⊤ (length ≤ n); the queries
after an abort are not answered (DP-Sniper marks them ``-1``, StatDP stops its list). Without
a cutoff every pattern has length n.
"""

from __future__ import annotations

from math import comb

__all__ = ["count_patterns", "enumerate_patterns", "check_pattern", "MAX_PATTERNS"]

#: largest output space enumerated (cost guard: one 1-D integral per pattern)
MAX_PATTERNS = 5000


def count_patterns(n: int, cutoff: int | None) -> int:
    """Number of valid patterns for n queries."""
    if cutoff is None:
        return 2**n
    below = sum(comb(n, t) for t in range(min(cutoff, n + 1)))
    stopped = sum(comb(length - 1, cutoff - 1) for length in range(cutoff, n + 1))
    return below + stopped


def enumerate_patterns(n: int, cutoff: int | None) -> list[str]:
    """Every valid pattern, in depth-first order (``F`` before ``T``); raises above :data:`MAX_PATTERNS`."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    total = count_patterns(n, cutoff)
    if total > MAX_PATTERNS:
        raise ValueError(f"n: {total} output patterns for n = {n}, cutoff = {cutoff} exceed the limit {MAX_PATTERNS}")
    out: list[str] = []

    def walk(prefix: str, tops: int) -> None:
        if cutoff is not None and tops == cutoff:
            out.append(prefix)
            return
        if len(prefix) == n:
            out.append(prefix)
            return
        walk(prefix + "F", tops)
        walk(prefix + "T", tops + 1)

    walk("", 0)
    return out


def check_pattern(pattern: object, n: int, cutoff: int | None) -> str:
    """Return ``pattern`` if it is a valid answer pattern for n queries, else a ValueError naming it."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string over 'T'/'F', got {type(pattern).__name__}")
    if not pattern or set(pattern) - {"T", "F"}:
        raise ValueError(f"pattern must be a non-empty string over 'T' (above) and 'F' (below), got {pattern!r}")
    tops = pattern.count("T")
    if len(pattern) > n:
        raise ValueError(f"pattern {pattern!r} has length {len(pattern)} > {n} queries")
    if cutoff is None:
        if len(pattern) != n:
            raise ValueError(f"pattern {pattern!r} has length {len(pattern)}, expected {n} (no cutoff)")
        return pattern
    if tops > cutoff or (tops == cutoff and pattern[-1] != "T"):
        raise ValueError(f"pattern {pattern!r}: the algorithm aborts right after the {cutoff}-th 'T'")
    if tops < cutoff and len(pattern) != n:
        raise ValueError(f"pattern {pattern!r} has length {len(pattern)} with {tops} < cutoff {cutoff} 'T': expected {n}")
    return pattern
