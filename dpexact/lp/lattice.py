"""The bounded 2Δ-lattice Q(n, k) of pf Theorem 3 and its symmetry classes.

    Q(n, k) = {q ∈ (2ΔZ)^n : max_r q_r = 0,  q* − q_r <= 2Δk for every r}      (pf §5, Thm 3)

A vector is described by its *levels* ``ℓ_r = −q_r/(2Δ) ∈ {0, …, k}`` (at least one 0).
Regular mechanisms are symmetric (pf Def. 3), so their behaviour on ``q`` depends only on
the sorted vector, i.e. on the *counts per level* ``c = (c_0, …, c_k)`` with ``c_0 >= 1`` and
``Σ c_ℓ = n``. A class has ``n!/∏ c_ℓ!`` members (its multiplicity); there are
``C(n−1+k, k)`` classes and ``(k+1)^n − k^n`` vectors.

Enumeration is by generators: classes are produced one at a time (compositions of ``n − 1``
into ``k + 1`` parts, plus the forced zero) and a class's members by a multiset-permutation
generator; nothing materialises the n! permutations.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Iterator

__all__ = [
    "MAX_CLASSES",
    "LatticeClass",
    "check_nk",
    "check_float_sums",
    "count_classes",
    "count_vectors",
    "lattice_classes",
    "lattice_vectors",
    "class_of_levels",
    "class_members",
]

_FLOAT64_MAX = int(sys.float_info.max)

#: memory/time guard for anything that materialises the list of classes
MAX_CLASSES = 2_000_000


def check_nk(n: int, k: int) -> None:
    """``n >= 1`` candidates and ``k >= 0`` lattice steps, both Python ints."""
    for name, v, lo in (("n", n, 1), ("k", k, 0)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        if v < lo:
            raise ValueError(f"{name} must be >= {lo}, got {v}")


def check_float_sums(n: int, k: int) -> None:
    """Refuse Q(n, k) when float64 cannot hold its sums: ``2k·|Q(n, k)|``, with ``|Q(n, k)| = (k + 1)^n − k^n``,
    must stay below float64's largest value (~1.8e308).

    The LP's objective weights ``mult(c)/|Q|`` (multiplicities ``n!/∏ c_ℓ! <= |Q|``), the optimum
    ``Σ_q E[err] <= 2Δk·|Q|`` and the float optimality-ratio sums ``Σ mult(c)·E[err]`` are formed in
    float64; beyond that range they would overflow (``|Q(1024, 1)| = 2^1024 − 1``).
    """
    check_nk(n, k)
    if (n - 1) * math.log2(k + 1) > 1100:  # |Q| >= (k + 1)^(n − 1) > 2^1100: refused without forming it
        size, digits = None, n * math.log10(k + 1)
    else:
        size = count_vectors(n, k)
        digits = size.bit_length() * math.log10(2)
    if size is None or 2 * max(k, 1) * size > _FLOAT64_MAX:
        raise ValueError(f"n, k: Q({n}, {k}) has about 10^{digits:.0f} vectors, beyond float64's range (1.8e308): "
                         f"its sums (the objective, Σ_q E[err], the ratios) cannot be formed; use smaller n or k")


def count_classes(n: int, k: int) -> int:
    """Number of symmetry classes of Q(n, k): ``C(n − 1 + k, k)``."""
    check_nk(n, k)
    return math.comb(n - 1 + k, k)


def count_vectors(n: int, k: int) -> int:
    """``|Q(n, k)| = (k + 1)^n − k^n`` (vectors with levels in 0..k, at least one 0)."""
    check_nk(n, k)
    return (k + 1) ** n - k**n


@dataclass(frozen=True)
class LatticeClass:
    """One symmetry class of Q(n, k): ``counts[ℓ]`` scores at level ℓ (score ``−2Δℓ``)."""

    counts: tuple[int, ...]

    @property
    def n(self) -> int:
        return sum(self.counts)

    @property
    def k(self) -> int:
        return len(self.counts) - 1

    @property
    def n_star(self) -> int:
        """Number of maximal scores (level 0)."""
        return self.counts[0]

    @property
    def levels_present(self) -> tuple[int, ...]:
        return tuple(l for l, c in enumerate(self.counts) if c)

    @property
    def multiplicity(self) -> int:
        """``n! / ∏_ℓ c_ℓ!``: the number of vectors of Q(n, k) in the class."""
        m = math.factorial(self.n)
        for c in self.counts:
            m //= math.factorial(c)
        return m

    def levels(self) -> tuple[int, ...]:
        """The sorted representative: levels in increasing order (scores decreasing)."""
        return tuple(l for l, c in enumerate(self.counts) for _ in range(c))


def lattice_classes(n: int, k: int) -> Iterator[LatticeClass]:
    """All classes of Q(n, k), as a generator (c_0 >= 1; order: lexicographic in counts)."""
    check_nk(n, k)

    def rec(prefix: list[int], remaining: int, slots: int) -> Iterator[tuple[int, ...]]:
        if slots == 1:
            yield tuple(prefix + [remaining])
            return
        for c in range(remaining, -1, -1):
            yield from rec(prefix + [c], remaining - c, slots - 1)

    for counts in rec([], n - 1, k + 1):
        yield LatticeClass((counts[0] + 1,) + counts[1:])


def class_of_levels(levels: "tuple[int, ...] | list[int]", k: int) -> LatticeClass:
    """The class of a level vector (levels in 0..k, min level 0)."""
    counts = [0] * (k + 1)
    for l in levels:
        if isinstance(l, bool) or not isinstance(l, int) or not 0 <= l <= k:
            raise ValueError(f"levels must be integers in 0..{k}, got {l!r}")
        counts[l] += 1
    if not levels or counts[0] == 0:
        raise ValueError("levels: the maximum score must be 0 (some level must be 0)")
    return LatticeClass(tuple(counts))


def class_members(cls: LatticeClass) -> Iterator[tuple[int, ...]]:
    """Distinct level vectors of a class (multiset permutations, generated lazily)."""
    counts = list(cls.counts)
    n = cls.n
    out = [0] * n

    def rec(pos: int) -> Iterator[tuple[int, ...]]:
        if pos == n:
            yield tuple(out)
            return
        for l, c in enumerate(counts):
            if c:
                counts[l] -= 1
                out[pos] = l
                yield from rec(pos + 1)
                counts[l] += 1

    yield from rec(0)


def lattice_vectors(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """All level vectors of Q(n, k), class by class (a generator)."""
    for cls in lattice_classes(n, k):
        yield from class_members(cls)
