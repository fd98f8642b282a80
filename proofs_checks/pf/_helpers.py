"""pf: helpers."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any

from .._common import EPS_RATIONAL_COINS, mech


def _lattice_vectors(n: int, k: int) -> list[tuple[int, ...]]:
    """Sorted integer vectors with max 0 and entries in {0, -1, ..., -k} (one per permutation class)."""
    return [(0,) + tuple(-v for v in rest) for rest in itertools.combinations_with_replacement(range(k + 1), n - 1)]


def _all_orders(vecs: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    out = set()
    for v in vecs:
        out.update(itertools.permutations(v))
    return sorted(out)


def _exact_pmf(name: str, q: Any, epsilon: str = EPS_RATIONAL_COINS, monotone: bool = False) -> list[Fraction]:
    """Exact pmf on integer scores; ``epsilon`` must make the coins rational (``2*log(a)``, a rational)."""
    return list(_exact_pmf_cached(name, tuple(int(x) for x in q), epsilon, monotone))


@functools.lru_cache(maxsize=None)
def _mech_cached(name: str, epsilon: str, monotone: bool = False) -> Any:
    """Mechanism objects are immutable; building one parses ε symbolically, so reuse them."""
    return mech(name, epsilon, monotone=monotone)


@functools.lru_cache(maxsize=100_000)
def _exact_pmf_cached(name: str, q: tuple[int, ...], epsilon: str, monotone: bool) -> tuple[Fraction, ...]:
    p = _mech_cached(name, epsilon, monotone).pmf(list(q), backend="exact")
    return tuple(Fraction(int(v.p), int(v.q)) for v in p.values)


def _coins(q: tuple[int, ...]) -> list[Fraction]:
    """p_r = exp(ε/(2Δ)(q_r - q*)) = 2^(q_r - q*) at ε = 2 log 2, Δ = 1."""
    m = max(q)
    return [Fraction(1, 2 ** (m - x)) for x in q]


def eq7(n: int, p: Any, scale: Any = 1) -> Any:
    """pf eq. (7): EM error on (c,…,c,0) with p = e^{εc/(2Δ)}, in units of 2Δ/ε (times ``scale``)."""
    import mpmath

    return scale * mpmath.log(1 / p) * (1 - 1 / (1 + (n - 1) * p))


def eq8(n: int, p: Any, scale: Any = 1) -> Any:
    """pf eq. (8): PF error on (c,…,c,0) in units of 2Δ/ε."""
    import mpmath

    return scale * mpmath.log(1 / p) * (1 + mpmath.expm1(n * mpmath.log1p(-p)) / (n * p))


def _eq7_arb(n: int, p: Any) -> Any:
    return (1 / p).log() * (1 - 1 / (1 + (n - 1) * p))


def _eq8_arb(n: int, p: Any) -> Any:
    return (1 / p).log() * (1 - (1 - (1 - p) ** n) / (n * p))


def _ratio_arb(n: int, p: Any) -> Any:
    """EM/PF ratio of eqs. (7)/(8) (the log factor cancels)."""
    return (1 - 1 / (1 + (n - 1) * p)) / (1 - (1 - (1 - p) ** n) / (n * p))
