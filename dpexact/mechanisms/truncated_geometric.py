"""Truncated geometric counting mechanism "GeoSample" (Balcer & Vadhan 2018, Alg. 4.8), as DP-Sniper codes it.

Input: a count ``c ∈ {0, …, n}``; output ``z ∈ {0, …, n}`` drawn by inverting the integer cdf

    F(z) = 2^{k(c-z)} (2^k+1)^{n-(c-z)}                 for z < c,
    F(z) = d - 2^{k(z-c+1)} (2^k+1)^{n-1-(z-c)}         for c <= z < n,      F(n) = d,
    d = (2^{k+1}+1)(2^k+1)^{n-1},     Pr[z] = (F(z) - F(z-1)) / d   (F(-1) = 0),

so every probability is an exact rational. DP-Sniper (``dpsniper/mechanisms/geometric.py``)
takes ``k = ⌈ln(2/ε)⌉`` (natural logarithm) and states the level ``ln(1 + 2^{-k})`` (Balcer &
Vadhan Thm. 4.7); ``log_base=2`` gives ``k = ⌈log₂(2/ε)⌉``. At ε = 0.1 the natural-log reading
gives k = 3 and the level ``ln(9/8) ≈ 0.1178 > ε``; ``log_base=2`` gives k = 5, ``ln(33/32)``.

Neighbours: counts differing by one. The whole input domain is finite, so
:meth:`TruncatedGeometric.privacy_map` computes the exact level over *every* pair of neighbouring counts and every
output (rational probabilities), which the closed-form verdict compares with ε exactly.
"""

from __future__ import annotations

from collections.abc import Sized
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..numbers.pmf import Pmf
from ..numbers.real import Real
from ..protocols import Backend, MechanismProperties, Neighbourhood, PrivacyLevel
from .validation import positive_real

__all__ = ["TruncatedGeometric"]


@dataclass(frozen=True)
class TruncatedGeometric:
    """GeoSample (Balcer & Vadhan 2018 Alg. 4.8) on counts 0..n, exact rational pmf. DP-Sniper ``TruncatedGeometricMechanism``."""

    epsilon: Any
    n: int = 5
    log_base: Any = "e"

    short_name: ClassVar[str] = "truncated-geometric"
    output_kind: ClassVar[str] = "finite"
    sensitivity: ClassVar[int] = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        n = int(self.n) if isinstance(self.n, str) and self.n.isdigit() else self.n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 200:
            raise ValueError(f"n must be an integer in 1..200, got {self.n!r}")
        object.__setattr__(self, "n", int(n))
        if str(self.log_base) not in ("e", "2"):
            raise ValueError(f"log_base must be 'e' or '2', got {self.log_base!r}")
        object.__setattr__(self, "log_base", str(self.log_base))
        object.__setattr__(self, "_k", self._compute_k())

    @property
    def k(self) -> int:
        """``⌈log(2/ε)⌉`` in the chosen base."""
        return self._k  # type: ignore[attr-defined]

    def _compute_k(self) -> int:
        ratio = Real.of(2) / self.epsilon
        if self.log_base == "2" and ratio.is_rational:  # exact: the least k with 2^k >= 2/ε (powers of two are common)
            r = ratio.value
            k = r.numerator.bit_length() - r.denominator.bit_length() - 1
            while Fraction(2) ** k < r:
                k += 1
            return self._nonnegative(k)
        x = ratio.to_arb(256)
        v = x.log() if self.log_base == "e" else x.log() / Real.of(2).to_arb(256).log()
        lo, hi = math.ceil(float(v.lower())), math.ceil(float(v.upper()))
        if lo != hi:
            raise ValueError(f"epsilon: cannot decide ⌈log(2/ε)⌉ at 256 bits for ε = {self.epsilon}")
        return self._nonnegative(lo)

    def _nonnegative(self, k: int) -> int:
        if k < 0:  # the integer cdf (powers 2^k, the draw u ∈ {1..d}) is defined for k >= 0 only
            raise ValueError(f"epsilon: GeoSample needs k = ⌈log(2/ε)⌉ >= 0, i.e. ε < {'2e' if self.log_base == 'e' else '4'}; "
                             f"got k = {k} for ε = {self.epsilon}")
        return k

    def stated_level(self) -> Real:
        """The level Balcer & Vadhan Thm. 4.7 states: ``ln(1 + 2^{-k})``."""
        import sympy

        return Real.of(sympy.log(1 + sympy.Rational(1, 2**self.k)))

    #: the privacy map takes no option: its domain is every count in 0..n (:class:`~dpexact.protocols.PrivacyMap`)
    privacy_map_options: ClassVar[frozenset] = frozenset()

    def privacy_map(self, n: int | None = None, relation: str | None = None,
                    neighbourhood: Neighbourhood | None = None) -> PrivacyLevel:
        """The exact level ``max log(Pr[z | c] / Pr[z | c'])`` over every pair of neighbouring counts in
        0..n and every output z (rational pmf: exhaustive, exact), and the triple attaining it."""
        import sympy

        if n is not None or relation is not None or neighbourhood is not None:
            raise ValueError("truncated-geometric: the privacy map covers every count in 0..n; it takes no n, relation "
                             "or neighbourhood")
        best, arg, triples = Fraction(-1), None, 0
        for c in range(self.n + 1):
            p = self.exact_pmf([c])
            for c2 in (c - 1, c + 1):
                if not 0 <= c2 <= self.n:
                    continue
                p2 = self.exact_pmf([c2])
                for z in range(self.n + 1):
                    triples += 1
                    if p[z] == 0:
                        continue
                    r = math.inf if p2[z] == 0 else p[z] / p2[z]
                    if r > best:
                        best, arg = r, (c, c2, z)
        c, c2, z = arg
        level = math.inf if best == math.inf else Real.of(sympy.log(sympy.Rational(best.numerator, best.denominator)))
        return PrivacyLevel(level=level, scores=(Fraction(c),), neighbour_scores=(Fraction(c2),), event={"output": z},
                            log_ratio=level, arithmetic="exact", neighbourhood="counts differing by one",
                            families={"all counts": self.n + 1}, pairs=2 * self.n, triples=triples, exact_triples=triples,
                            notes=(f"exhaustive: every pair of neighbouring counts in 0..{self.n} and every output (exact); "
                                   f"closed-form level ln(1+2^-k) = {math.log1p(2.0 ** -self.k):.6g}",))

    @property
    def size(self) -> int | None:
        return 1

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True, integer_scores=True)

    def neighbourhood(self) -> Any:
        """Counts in 0..n differing by one (the relation of Balcer & Vadhan's guarantee)."""
        from .neighbourhoods import AdjacentCounts

        return AdjacentCounts(0, self.n)

    def outputs(self, n: int = 1) -> list[int]:
        return list(range(self.n + 1))

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "n": self.n, "log_base": self.log_base, "k": self.k}

    def _count(self, queries: Any) -> int:
        if isinstance(queries, (str, bytes)) or not (isinstance(queries, (int, np.integer)) or isinstance(queries, Sized)):
            raise TypeError(f"queries must be a count or a one-entry sequence, got {type(queries).__name__}")
        vals = list(queries) if not isinstance(queries, (int, np.integer)) else [queries]
        if len(vals) != 1:
            raise ValueError(f"queries: one count expected, got {len(vals)} values")
        c = Real.of(vals[0], "queries")
        if not c.is_rational or c.value.denominator != 1 or not 0 <= c.value <= self.n:
            raise ValueError(f"queries: the count must be an integer in 0..{self.n}, got {c}")
        return int(c.value)

    def exact_pmf(self, queries: Any) -> list[Fraction]:
        c, n, k = self._count(queries), self.n, self.k
        d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
        F = []
        for z in range(n + 1):
            if z < c:
                F.append(2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)))
            elif z < n:
                F.append(d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)))
            else:
                F.append(d)
        return [Fraction(F[z] - (F[z - 1] if z else 0), d) for z in range(n + 1)]

    def pmf(self, queries: Any, backend: str | Backend = "float", method: str | None = None) -> Pmf:
        from flint import arb, fmpq

        from ..numbers.backends import get_backend

        be = get_backend(backend)
        p = self.exact_pmf(queries)
        if be.is_exact:
            return Pmf(tuple(fmpq(x.numerator, x.denominator) for x in p), "exact", "integer-cdf", 0.0, 0.0, "exact")
        if be.is_ball:
            with be.context():
                return Pmf(tuple(arb(fmpq(x.numerator, x.denominator)) for x in p), str(be), "integer-cdf", None, 0.0, "rigorous")
        return Pmf(np.array([float(x) for x in p]), "float", "integer-cdf", 2.0**-53, 2.0**-53, "rigorous")

    def logpmf(self, queries: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.pmf(queries).values)

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> Any:
        """DP-Sniper's sampler: u uniform on {1..d}, z = min{z : F(z) >= u}."""
        p = self.exact_pmf(queries)
        d = math.lcm(*[x.denominator for x in p])
        F = np.cumsum([int(x * d) for x in p])
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        u = rng.integers(1, d + 1, size=k)
        z = np.searchsorted(F, u, side="left")
        return int(z[0]) if size is None else z
