"""Rigorous interval enclosures of closed forms in the compact variables (mpmath ``iv``).

The compact branch-and-bound (:mod:`.compact_bnb`) bounds a law's ratio, cancelled into a closed form
of the algebraic variables (``W = e^{g·G} ∈ [0, 1]`` and the like), on a box of those variables.
Endpoint arithmetic with outward rounding (mpmath ``iv``), not midpoint-radius balls: a wide range
such as ``W ∈ [0, 1]`` keeps its sign, and ``0`` is an end like any other. Closed-form constants go
through their arb ball (:func:`dpexact.numbers.real.sympy_to_arb`). The cost is one pass over the
expression tree (its size is bounded by :func:`.compact_exact.guard` before it gets here).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["arb_eval", "iv_const", "iv_of_arb", "iv_q", "finite"]


def iv_const(expr: Any) -> Any:
    """A closed-form sympy constant as an outward-rounded ``iv`` interval (via its arb ball)."""
    from mpmath import iv

    from ...numbers.real import sympy_to_arb

    if expr.is_Rational:
        return iv.mpf(int(expr.p)) / iv.mpf(int(expr.q))
    return iv_of_arb(sympy_to_arb(expr))


def iv_of_arb(b: Any) -> Any:
    """The arb ball ``b`` (mid ± rad, both exact dyadics) as an ``iv`` interval."""
    from mpmath import iv

    if not b.is_finite():
        return iv.mpf([float("-inf"), float("inf")])
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    mid = iv.mpf(int(m)) * iv.mpf(2) ** int(e)
    rad = iv.mpf(int(r)) * iv.mpf(2) ** int(f)
    return iv.mpf([(mid - rad).a, (mid + rad).b])


def iv_q(x: Fraction) -> Any:
    from mpmath import iv

    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def arb_eval(expr: Any, env: dict[Any, Any], cache: dict | None = None) -> Any:
    """A rigorous interval (mpmath ``iv``: endpoint arithmetic, outward rounding) of the sympy
    ``expr`` when each symbol ranges over its interval in ``env`` (rationals, +, ×, powers — a
    non-integer power of a non-negative base by its monotone ends —, exp, log and closed-form
    constants). Endpoint arithmetic, not midpoint-radius balls: wide ranges such as W ∈ [0, 1] keep
    their signs."""
    import sympy
    from mpmath import iv

    if not expr.free_symbols:
        if cache is not None and expr in cache:
            return cache[expr]
        v = iv_const(expr)
        if cache is not None:
            cache[expr] = v
        return v
    if expr.is_Symbol:
        return env[expr]
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + arb_eval(a, env, cache)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * arb_eval(a, env, cache)
        return out
    if expr.is_Pow:
        base, ex = expr.args
        b = arb_eval(base, env, cache)
        if ex.is_Integer:
            k = int(ex)
            if k < 0:
                return 1 / (b ** (-k))
            return b ** k
        if ex.free_symbols:
            raise TypeError("a power with a variable exponent")
        e = iv_const(ex)
        if not (e.a > 0 or e.b < 0):
            raise TypeError("a power whose exponent's sign is unknown")
        lo, hi = max(b.a, 0), b.b
        if hi < 0:
            raise ValueError("a non-integer power of a negative base")

        def pw(x: Any) -> Any:
            if x == 0:
                return iv.mpf(0) if e.a > 0 else iv.mpf([float("inf"), float("inf")])
            return iv.exp(e * iv.log(iv.mpf(x)))
        a, c = pw(lo), pw(hi)
        return iv.mpf([min(a.a, c.a), max(a.b, c.b)])
    if isinstance(expr, sympy.exp):
        return iv.exp(arb_eval(expr.args[0], env, cache))
    if isinstance(expr, sympy.log):
        return iv.log(arb_eval(expr.args[0], env, cache))
    raise TypeError(f"cannot enclose {type(expr).__name__}")


def finite(x: Any) -> bool:
    """Whether the ``iv`` interval ``x`` has two finite ends (no nan)."""
    return x.a == x.a and x.b == x.b and abs(x.a) != float("inf") and abs(x.b) != float("inf")
