"""Forward-mode derivatives over arb balls: a value and its gradient, both enclosures over a box.

``Dual(v, d)`` carries a ball ``v`` and the balls ``d_i ⊇ {∂v/∂x_i(x) : x in the box}``. Every
operation the ball backend offers a pmf (``+ - * /``, integer powers, ``exp``, ``log``, ``log1p``,
``expm1``, ``sqrt``) propagates both by the chain rule in interval arithmetic, so a law written
in backend operations (a ``define_mechanism`` pmf) yields, run on duals, an enclosure of its
gradient over the box. Comparisons (Python's operators too) are the certified ones of
:mod:`dpexact.numbers.comparisons` on the value: decided when the enclosures separate, else by an
installed branch oracle, else ``Undecidable`` — never the arb answer ``False`` for overlapping
balls, which would silently pick one branch for a whole box; a law that uses anything else
raises ``AttributeError`` / ``TypeError`` and the caller falls back to plain balls.

The selection branch-and-bound (:mod:`dpexact.verification.proofs.selection_bnb`) uses the gradient twice: a coordinate whose
derivative has one sign over a box is fixed at the face where the log-ratio is largest
(monotonicity test), and the mean-value form ``f(c) + Σ_i |∂_i f(B)| h_i`` bounds f on the box
with an over-estimation quadratic in the box width instead of linear (Moore, Kearfott & Cloud,
*Introduction to Interval Analysis*, 2009, §6.4).
"""

from __future__ import annotations

from typing import Any

from flint import arb as _arb_type

from .comparisons import EQUAL, GREATER, GREATER_EQUAL, Enclosed, ball_decide

__all__ = ["Dual", "variables"]


def _arb(x: Any) -> Any:
    return x if isinstance(x, _arb_type) else _arb_type(x)


class Dual(Enclosed):
    """A ball and its gradient (balls) with respect to k variables."""

    __slots__ = ("v", "d")

    def __init__(self, v: Any, d: tuple) -> None:
        self.v = v
        self.d = d

    # -- arithmetic -------------------------------------------------------------------------------
    def _lift(self, o: Any) -> "Dual":
        if isinstance(o, Dual):
            return o
        if isinstance(o, float):
            raise TypeError("a Python float in an interval derivative (use exact constants)")
        zero = _arb(0)
        return Dual(_arb(o), tuple(zero for _ in self.d))

    def __add__(self, o: Any) -> "Dual":
        o = self._lift(o)
        return Dual(self.v + o.v, tuple(a + b for a, b in zip(self.d, o.d)))

    __radd__ = __add__

    def __sub__(self, o: Any) -> "Dual":
        if o is self:  # x - x = 0 for every point of the box (interval arithmetic alone gives [-w, w])
            return self._lift(0)
        o = self._lift(o)
        return Dual(self.v - o.v, tuple(a - b for a, b in zip(self.d, o.d)))

    def __rsub__(self, o: Any) -> "Dual":
        return self._lift(o) - self

    def __neg__(self) -> "Dual":
        return Dual(-self.v, tuple(-a for a in self.d))

    def __mul__(self, o: Any) -> "Dual":
        o = self._lift(o)
        return Dual(self.v * o.v, tuple(self.v * b + o.v * a for a, b in zip(self.d, o.d)))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> "Dual":
        if o is self and not self.v.contains(0):
            return self._lift(1)
        o = self._lift(o)
        q = self.v / o.v
        return Dual(q, tuple((a - q * b) / o.v for a, b in zip(self.d, o.d)))

    def __rtruediv__(self, o: Any) -> "Dual":
        return self._lift(o) / self

    def __pow__(self, k: Any) -> "Dual":
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError("interval derivatives: only integer powers")
        if k == 0:
            return self._lift(1)
        p = self.v ** (k - 1)
        return Dual(p * self.v, tuple(k * p * a for a in self.d))

    # -- functions (the ball backend calls x.exp(), x.log(), ...) ---------------------------------
    def exp(self) -> "Dual":
        e = self.v.exp()
        return Dual(e, tuple(e * a for a in self.d))

    def log(self) -> "Dual":
        return Dual(self.v.log(), tuple(a / self.v for a in self.d))

    def log1p(self) -> "Dual":
        return Dual(self.v.log1p(), tuple(a / (1 + self.v) for a in self.d))

    def expm1(self) -> "Dual":
        return Dual(self.v.expm1(), tuple(self.v.exp() * a for a in self.d))

    def sqrt(self) -> "Dual":
        s = self.v.sqrt()
        return Dual(s, tuple(a / (2 * s) for a in self.d))

    # -- comparisons: certified, as the ball backend's (dpexact.numbers.comparisons) ----------------
    def _decide(self, o: Any, classes: Any) -> int:
        return ball_decide(self, o, classes)

    def __gt__(self, o: Any) -> bool:
        return self._decide(o, GREATER) > 0

    def __lt__(self, o: Any) -> bool:
        return self._decide(o, GREATER_EQUAL) < 0

    def __ge__(self, o: Any) -> bool:
        return self._decide(o, GREATER_EQUAL) >= 0

    def __le__(self, o: Any) -> bool:
        return self._decide(o, GREATER) <= 0

    def __eq__(self, o: Any) -> bool:  # type: ignore[override]
        return self._decide(o, EQUAL) == 0

    def __ne__(self, o: Any) -> bool:  # type: ignore[override]
        return not self == o

    __hash__ = None  # type: ignore[assignment]  # equality is by value: not a dict key

    @property
    def enclosure(self) -> Any:
        """The value's ball (what :mod:`dpexact.numbers.comparisons` compares)."""
        return self.v

    def is_zero(self) -> bool:
        return self.v.is_zero()

    def lower(self) -> Any:
        return self.v.lower()

    def upper(self) -> Any:
        return self.v.upper()


def variables(balls: list, seeds: list[tuple[int, ...]], k: int) -> list[Dual]:
    """Duals for ``balls``: ball i depends on the variables ``seeds[i]`` with derivative 1 each."""
    zero, one = _arb(0), _arb(1)
    return [Dual(b, tuple(one if j in s else zero for j in range(k))) for b, s in zip(balls, seeds)]
