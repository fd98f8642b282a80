"""Rigorous intervals for the compact branch-and-bound's enclosures (exact dyadic ends, arb arithmetic).

Every generator of the compact variables is non-negative (``W, Λ, M ∈ [0, 1]``, ``Y = e^{g·Z} > 0``,
``T = e^{1/L} > 0``), so on a box each monomial ``c·Π x_i^{e_i}`` ranges exactly over the products of
the ends: a polynomial's enclosure is a sum of monomial ranges (term by term, :func:`enclose`). Each
end is computed as an arb ball at the current precision (``flint.ctx.prec``, set by the caller) and
rounded outward to an exact dyadic number (``arb.lower()`` / ``arb.upper()``). Precision matters: at a
tight level the bound of a box beside the face is within a few ulps of ``e^ε``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

__all__ = ["Iv", "exp_interval", "enclose", "enclose_tight", "divide", "log_upper", "finite", "of_ball"]


class Iv(NamedTuple):
    """A closed interval ``[a, b]`` with exact (zero-radius) arb ends."""

    a: Any
    b: Any


def exp_interval(x: Fraction) -> Iv:
    """``e^x`` for a rational ``x``, enclosed."""
    import flint

    b = flint.arb(flint.fmpq(x.numerator, x.denominator)).exp()
    return Iv(b.lower(), b.upper())


def of_ball(b: Any) -> Iv:
    """The arb ball ``b`` as an interval with exact ends."""
    return Iv(b.lower(), b.upper())


def enclose(p: Any, env: list[Iv]) -> Iv:
    """The polynomial ``p`` (flint ``fmpq_mpoly``, ``T`` its last generator) when generator ``i`` ranges
    over ``env[i]`` (all >= 0). Terms are grouped by their monomial in the compact variables, each
    group's coefficient a polynomial in ``T`` evaluated as one ball: ``2T² - 2T²·W`` at ``W = 1`` is
    enclosed around 0 at the ball's radius, not at the width of ``T``'s interval times ``T²``."""
    import flint

    t = len(env) - 1
    tb = env[t].a.union(env[t].b) if not isinstance(env[t].a, float) else flint.arb(env[t].a)
    groups: dict[tuple, Any] = {}
    for exps, c in p.to_dict().items():
        key = tuple(exps[:t])
        term = flint.arb(c) * tb ** int(exps[t]) if exps[t] else flint.arb(c)
        groups[key] = groups[key] + term if key in groups else term
    lo = flint.arb(0)
    hi = flint.arb(0)
    for exps, c in groups.items():
        mlo = flint.arb(1)
        mhi = flint.arb(1)
        for i, e in enumerate(exps):
            if e:
                x = env[i]
                mlo *= x.a ** int(e)
                mhi *= x.b ** int(e)
        cl, ch = flint.arb(c.lower()), flint.arb(c.upper())
        lo += min(cl * mlo, cl * mhi, key=_low)
        hi += max(ch * mlo, ch * mhi, key=_high)
    return Iv(lo.lower(), hi.upper())


def enclose_tight(p: Any, env: list[Iv]) -> Iv:
    """:func:`enclose` sharpened by monotonicity (Moore, Kearfott & Cloud 2009 §6): for the lower end,
    a generator in whose direction ``∂p/∂x`` is enclosed >= 0 is set to its lower end (<= 0: its
    upper end), and so on on that face while a sign is decided; the upper end likewise. Each such
    face holds the extremum of ``p`` over the box, so the end stays a bound; the result is intersected
    with the plain enclosure."""
    plain = enclose(p, env)
    t = len(env) - 1
    ends = []
    for side in (-1, 1):
        face = list(env)
        todo = [i for i, d in enumerate(p.degrees()[:t]) if d and face[i].a != face[i].b]
        moved = True
        while moved and todo:
            moved = False
            for i in todo:
                d = enclose(p.derivative(i), face)
                up = 1 if d.a >= 0 else -1 if d.b <= 0 else 0
                if up:
                    x = face[i].b if up * side > 0 else face[i].a
                    face[i] = Iv(x, x)
                    todo.remove(i)
                    moved = True
                    break
        e = enclose(p, face)
        ends.append(e.a if side < 0 else e.b)
    return Iv(max(plain.a, ends[0]), min(plain.b, ends[1]))


def _low(x: Any) -> Any:
    return x.lower()


def _high(x: Any) -> Any:
    return x.upper()


def divide(n: Iv, d: Iv) -> Iv | None:
    """``n / d`` for ``d`` not containing 0 (None otherwise)."""
    if not (finite(n) and finite(d)) or (d.a <= 0 and d.b >= 0):
        return None
    qs = [n.a / d.a, n.a / d.b, n.b / d.a, n.b / d.b]
    return Iv(min(q.lower() for q in qs), max(q.upper() for q in qs))


def log_upper(x: Any) -> float:
    """A float upper bound of ``log x`` for ``x > 0``."""
    import math

    return math.nextafter(float(x.log().upper()), math.inf)


def finite(x: Iv) -> bool:
    """Whether both ends are finite numbers."""
    return bool(x.a.is_finite() and x.b.is_finite())
