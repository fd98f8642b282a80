"""Hockey-stick divergence and privacy profiles of discrete mechanisms (adp §2, Definition 1).

    δ(ε') = H_{e^{ε'}}(P || Q) = Σ_y max(0, P(y) - e^{ε'} Q(y)),

the smallest δ for which ``Pr[M(q) ∈ S] <= e^{ε'} Pr[M(q') ∈ S] + δ`` for every set S of
outputs (the worst S is ``{y : P(y) > e^{ε'} Q(y)}``). A mechanism is (ε', δ)-DP on a set of
neighbour pairs iff the maximum of δ(ε') over ordered pairs is <= δ (its *privacy profile*).

Arithmetic: ``exact`` (fmpq when every number is rational, e.g. ``e^{ε'} = 2`` for
``ε' = log 2``; otherwise sympy with each ``max`` decided by an exact sign), ``ball`` (arb;
each term ``max(0, ·)`` of a ball straddling 0 is the ball ``[0, upper]``, so the sum is a
rigorous enclosure) or ``float`` (terms rounded, error ``<= (n+2)·u·Σ P`` with u = 2^-53).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..protocols import Mechanism
from ..numbers.backends import ball_context, get_backend
from ..numbers.pmf import Pmf
from ..numbers.real import Real
from ..numbers.backends import exact_sympy
from ..numbers.exp_lattice import exact_sign

__all__ = ["hockey_stick", "ProfilePoint", "privacy_profile"]

U = 2.0**-53


def _check_pair(P: Sequence[Any], Q: Sequence[Any]) -> None:
    if len(P) == 0:
        raise ValueError("P must not be empty")
    if len(P) != len(Q):
        raise ValueError(f"P and Q must have the same length, got {len(P)} and {len(Q)}")


def hockey_stick(P: Any, Q: Any, eps_prime: Any, backend: str = "exact", prec: int = 128) -> Any:
    """``Σ_y max(0, P(y) - e^{ε'} Q(y))`` in ``exact``, ``ball`` or ``float`` arithmetic.

    Args:
        P, Q: probability vectors over the same outputs (``Pmf`` objects or sequences of
            fmpq / Fraction / sympy / arb / float, matching the backend).
        eps_prime: ε' (exact real; may be 0 or negative: δ(ε') is then still well defined).
        backend: ``"exact"``, ``"ball"`` or ``"float"``.

    Returns:
        exact: an fmpq or sympy value; ball: an arb; float: ``(value, abs_error_bound)``.
    """
    P = list(P.values if isinstance(P, Pmf) else P)
    Q = list(Q.values if isinstance(Q, Pmf) else Q)
    _check_pair(P, Q)
    e = Real.of(eps_prime, "eps_prime")
    be = get_backend(backend)
    if be.is_float:
        p = np.asarray(P, dtype=float)
        q = np.asarray(Q, dtype=float)
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q))) or np.any(p < 0) or np.any(q < 0):
            raise ValueError("P and Q must be finite and non-negative")
        w = math.exp(e.to_float())
        val = float(np.sum(np.maximum(0.0, p - w * q)))
        return val, (len(p) + 3) * U * float(np.sum(p) + w * np.sum(q))
    if be.is_ball:
        from flint import arb

        with ball_context(prec):
            E = e.to_arb(prec).exp()
            total = arb(0)
            for a, b in zip(P, Q):
                a = a if type(a).__name__ == "arb" else Real.of(_frac(a)).to_arb(prec)
                b = b if type(b).__name__ == "arb" else Real.of(_frac(b)).to_arb(prec)
                d = a - E * b
                if d > 0:
                    total += d
                elif not (d <= 0):  # straddles 0: the term lies in [0, upper]
                    total += arb(0).union(d.upper())
            return total
    if not be.is_exact:
        raise ValueError(f"backend must be 'exact', 'ball' or 'float', got {backend!r}")
    import sympy

    E = sympy.exp(e.to_sympy())
    if E.is_Rational and all(type(v).__name__ in ("fmpq", "Fraction", "int") or (isinstance(v, sympy.Basic) and v.is_Rational)
                             for v in P + Q):
        from flint import fmpq

        Ef = fmpq(int(E.p), int(E.q))
        total = fmpq(0)
        for a, b in zip(P, Q):
            d = _fmpq(a) - Ef * _fmpq(b)
            if d > 0:
                total += d
        return total
    total = sympy.Integer(0)
    for a, b in zip(P, Q):
        d = exact_sympy(_fmpq(a) if type(a).__name__ in ("Fraction", "int") else a) - E * exact_sympy(
            _fmpq(b) if type(b).__name__ in ("Fraction", "int") else b)
        s = exact_sign(d)
        if s is None:
            raise ValueError(f"cannot decide the sign of the term {d}")
        if s > 0:
            total += d
    return total


def _fmpq(v: Any) -> Any:
    from fractions import Fraction

    from flint import fmpq

    if type(v).__name__ == "fmpq":
        return v
    if isinstance(v, (int, Fraction)):
        f = Fraction(v)
        return fmpq(f.numerator, f.denominator)
    return fmpq(int(v.p), int(v.q))


def _frac(v: Any) -> Any:
    if type(v).__name__ == "fmpq":
        from fractions import Fraction

        return Fraction(int(v.p), int(v.q))
    return v


@dataclass(frozen=True)
class ProfilePoint:
    """δ(ε') = max over ordered neighbour pairs of the hockey-stick divergence, with its argmax."""

    eps_prime: str
    delta: Any
    delta_float: float
    pair: tuple


def privacy_profile(mechanism: Mechanism, pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]], eps_primes: Sequence[Any],
                    backend: str = "exact") -> list[ProfilePoint]:
    """Privacy profile ε' -> max_{(q, q')} δ_{q,q'}(ε') over both orders of the given pairs (exact or ball)."""
    if backend not in ("exact", "ball"):
        raise ValueError(f"backend must be 'exact' or 'ball', got {backend!r}")
    if not pairs:
        raise ValueError("pairs must not be empty")
    cache: dict = {}

    def pmf(q: Sequence[Any]) -> list:
        key = tuple(str(x) for x in q)
        if key not in cache:
            cache[key] = list(mechanism.pmf(list(q), backend=backend).values)
        return cache[key]

    out = []
    for ep in eps_primes:
        best, best_f, arg = None, -math.inf, None
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                d = hockey_stick(pmf(x), pmf(y), ep, backend)
                f = float(d.upper()) if get_backend(backend).is_ball else Real.of(exact_sympy(d)).to_float()
                if f > best_f:
                    best, best_f, arg = d, f, (tuple(map(str, x)), tuple(map(str, y)))
        out.append(ProfilePoint(str(Real.of(ep, "eps_prime")), best, best_f, arg))
    return out
