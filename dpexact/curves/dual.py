"""First-order forward-mode automatic differentiation over arb balls, for mean-value forms.

A :class:`Dual` ``(v, d)`` carries a value enclosure ``v`` and a derivative enclosure ``d`` with
respect to one real parameter θ. Evaluated at the ball ``X`` of a whole box with ``d = 1`` it
encloses ``g(X)`` and ``g'(X)``; the mean-value form (Moore, *Interval Analysis*, 1966, §6;
Neumaier, *Interval Methods for Systems of Equations*, 1990, §2.3)

    g(X) ⊆ g(c) + g'(X)·(X − c)

overestimates by O(width²) where g' is small — near a maximum — where the naive enclosure
``g(X)`` overestimates by O(width). ``max(0, ·)`` is Lipschitz: where its argument straddles 0
its derivative is the hull of 0 and the argument's derivative (Clarke's generalised gradient),
and the mean-value inclusion still holds.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Dual", "const", "exp", "expm1", "log", "log1p", "pos"]


class Dual:
    """``v + d·dθ`` with arb entries (immutable by convention)."""

    __slots__ = ("v", "d")

    def __init__(self, v: Any, d: Any) -> None:
        self.v = v
        self.d = d

    def __add__(self, o: Any) -> "Dual":
        if isinstance(o, Dual):
            return Dual(self.v + o.v, self.d + o.d)
        return Dual(self.v + o, self.d)

    __radd__ = __add__

    def __neg__(self) -> "Dual":
        return Dual(-self.v, -self.d)

    def __sub__(self, o: Any) -> "Dual":
        if isinstance(o, Dual):
            return Dual(self.v - o.v, self.d - o.d)
        return Dual(self.v - o, self.d)

    def __rsub__(self, o: Any) -> "Dual":
        return Dual(o - self.v, -self.d)

    def __mul__(self, o: Any) -> "Dual":
        if isinstance(o, Dual):
            return Dual(self.v * o.v, self.d * o.v + self.v * o.d)
        return Dual(self.v * o, self.d * o)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> "Dual":
        if isinstance(o, Dual):
            return Dual(self.v / o.v, (self.d * o.v - self.v * o.d) / (o.v * o.v))
        return Dual(self.v / o, self.d / o)

    def __rtruediv__(self, o: Any) -> "Dual":
        return Dual(o / self.v, -o * self.d / (self.v * self.v))


def const(x: Any) -> Dual:
    """A constant (derivative 0)."""
    from flint import arb

    return Dual(x, arb(0))


def exp(x: Any) -> Any:
    if isinstance(x, Dual):
        e = x.v.exp()
        return Dual(e, e * x.d)
    return x.exp()


def expm1(x: Any) -> Any:
    if isinstance(x, Dual):
        return Dual(x.v.expm1(), x.v.exp() * x.d)
    return x.expm1()


def log1p(x: Any) -> Any:
    if isinstance(x, Dual):
        return Dual(x.v.log1p(), x.d / (1 + x.v))
    return x.log1p()


def log(x: Any) -> Any:
    if isinstance(x, Dual):
        return Dual(x.v.log(), x.d / x.v)
    return x.log()


def pos(x: Any) -> Any:
    """``max(0, x)`` with the Clarke hull where the sign of ``x`` is undecided."""
    from flint import arb

    v = x.v if isinstance(x, Dual) else x
    if v > 0:
        return x
    if v <= 0:
        return Dual(arb(0), arb(0)) if isinstance(x, Dual) else arb(0)
    hv = arb(0).union(v.upper())
    if isinstance(x, Dual):
        return Dual(hv, arb(0).union(x.d))
    return hv
