"""err: helpers: mechanisms and exact pmfs."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from typing import Any

from .._common import EPS_RATIONAL_COINS


EPS = EPS_RATIONAL_COINS  # e^ε = 4, w_r = 2^(q_r − q*) with Δ = 1

P_TEXT = ("1/4", "1/2", "3/4")

READINGS = ("chain", "interval")


def _mech(name: str, epsilon: Any = EPS, p: Any = None, **kw: Any) -> Any:
    import dpexact

    if p is not None:
        kw["p"] = p
    return dpexact.mechanism(name, epsilon=epsilon, **kw)


def _fr(v: Any) -> Fraction:
    """fmpq / sympy Rational / int -> Fraction."""
    if hasattr(v, "p") and hasattr(v, "q") and not callable(v.p):
        return Fraction(int(v.p), int(v.q))
    import sympy

    r = sympy.nsimplify(v) if not isinstance(v, sympy.Basic) else v
    if not r.is_Rational:
        raise ValueError(f"not rational: {v}")
    return Fraction(int(r.p), int(r.q))


def _s(q: tuple) -> list[str]:
    return [str(x) for x in q]


@functools.lru_cache(maxsize=200_000)
def _xpmf(name: str, q: tuple, p: str | None = None, epsilon: str = EPS, kw: tuple = ()) -> tuple[Fraction, ...]:
    """Exact pmf of a registry mechanism on rational scores (coins must be rational)."""
    vals = _mech(name, epsilon, p, **dict(kw)).pmf(_s(q), backend="exact").values
    return tuple(_fr(v) for v in vals)


def _xerr(P: tuple, q: tuple) -> Fraction:
    top = max(q)
    return sum((pr * (top - Fraction(x)) for pr, x in zip(P, q)), Fraction(0))


# independent model of the paper's formulas (no library code): EM weights and the set T


def _em(q: tuple, k: int = 1) -> list[Fraction]:
    """EM pmf with w_r = 2^(k (q_r − q*)) (ε = 2k log 2, Δ = 1); k(q_r − q*) must be an integer."""
    top = max(q)
    w = [Fraction(1, 2 ** int(k * (top - Fraction(x)))) for x in q]
    s = sum(w)
    return [x / s for x in w]


def _chain(q: tuple, delta: Fraction = Fraction(1)) -> frozenset:
    """err Algorithm 3 lines 1-4: sort decreasingly, add r+1 while q_r − q_{r+1} ≤ Δ."""
    order = sorted(range(len(q)), key=lambda i: -Fraction(q[i]))
    out = [order[0]]
    for a, b in zip(order, order[1:]):
        if Fraction(q[a]) - Fraction(q[b]) > delta:
            break
        out.append(b)
    return frozenset(out)


def _valid_cs(q: tuple, delta: Fraction = Fraction(1)) -> dict[int, frozenset]:
    """err Lemma 1: every c ∈ N+ (up to the spread + 1) with T_c = T_{c+1}, and its T_c."""
    top = max(Fraction(x) for x in q)
    d = [(top - Fraction(x)) / delta for x in q]
    cmax = int(math.ceil(max(d))) + 1

    def T(c: int) -> frozenset:
        return frozenset(i for i, x in enumerate(d) if x <= c)

    return {c: T(c) for c in range(1, cmax + 1) if T(c) == T(c + 1)}


def _interval(q: tuple, delta: Fraction = Fraction(1)) -> frozenset:
    cs = _valid_cs(q, delta)
    return cs[min(cs)]


def _lemma1(q: tuple, p: Fraction, T: frozenset, k: int = 1) -> list[Fraction]:
    em = _em(q, k)
    return [(p / len(T) if r in T else 0) + (1 - p) * em[r] for r in range(len(q))]


def _lattice(n: int, k: int) -> list[tuple[int, ...]]:
    """Sorted integer vectors with max 0 and entries in {0, …, −k} (one per permutation class)."""
    return [(0,) + tuple(-v for v in rest) for rest in itertools.combinations_with_replacement(range(k + 1), n - 1)]


def _orders(vecs: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    out: set = set()
    for v in vecs:
        out.update(itertools.permutations(v))
    return sorted(out)


def _hist_neighbours(q: tuple) -> list[tuple]:
    """Add/remove one record: q ± e_a (ℓ1 distance Δ = 1, err Definition 2)."""
    out = []
    for a in range(len(q)):
        for s in (-1, 1):
            out.append(q[:a] + (q[a] + s,) + q[a + 1 :])
    return out


def _ball(prec: int = 128) -> Any:
    """Arb precision ``prec`` for a block (the library's ball context)."""
    from dpexact.numbers.backends import ball_context

    return ball_context(prec)


def _arb(x: Any, prec: int = 128) -> Any:
    from dpexact.numbers import Real

    return Real.of(x).to_arb(prec)


def _bee(name: str, q: Any, epsilon: Any, p: Any = None, prec: int = 128, **kw: Any) -> Any:
    """Expected error in an arb ball."""
    from dpexact.utility import expected_error

    return expected_error(_mech(name, epsilon, p, **kw), q, backend=f"ball:{prec}").value


def _mid(x: Any) -> float:
    return float(x.mid())
