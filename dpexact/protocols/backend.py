"""The number-backend contract (:class:`Backend`, :class:`BackendOps`) as the laws use it."""

from __future__ import annotations

from typing import Any, Callable, ContextManager, Protocol, Sequence, runtime_checkable

__all__ = ["Backend", "BackendOps"]


@runtime_checkable

class Backend(Protocol):
    """A number backend as it exists in :mod:`dpexact.numbers.backends` (float, mp, ball, exact).

    Contract:
        ``name``: ``"float" | "mp" | "ball" | "exact"``; ``str(backend)`` adds the precision
            (``"ball:128"``), and is what a :class:`Pmf` records.
        ``rigorous``: results are exact or enclosures of the truth (ball, exact).
        ``context()``: a context manager that sets the working precision of the underlying
            library for its duration and restores it afterwards.
        ``from_real(x)`` / ``from_int(k)``: an exact :class:`~dpexact.numbers.Real` or int
            as a backend number (ball: a rigorous enclosure).
        ``exp(x)``, ``log(x)``: elementary functions in the backend's arithmetic.
        ``to_float(x)``: a float64 value (ball: the midpoint).
    """

    name: str
    rigorous: bool

    def context(self) -> ContextManager[None]: ...

    def from_real(self, x: Any) -> Any: ...

    def from_int(self, k: int) -> Any: ...

    def exp(self, x: Any) -> Any: ...

    def log(self, x: Any) -> Any: ...

    def to_float(self, x: Any) -> float: ...


@runtime_checkable
class BackendOps(Backend, Protocol):
    """The operations a pmf written once for every backend needs (extends :class:`Backend`).

    Each operation is exact on ``exact`` (or raises ``ValueError`` if the result is not
    representable exactly), a rigorous enclosure on ``ball``, correctly rounded or within a
    stated bound on ``float`` and ``mp``:

        ``log1p(x)``, ``expm1(x)``, ``sqrt(x)``: elementary functions, accurate near 0.
        ``sum(xs)``: an accurate sum of a sequence (float: compensated, e.g. ``math.fsum``).
        ``sign(x)``: ``-1 | 0 | 1``, certified; raises ``ArithmeticError`` when a ball
            contains 0 but the value cannot be proved zero.
        ``integrate(f, a, b)``: ``∫_a^b f`` with a proven error bound on float / mp / ball
            (``f`` written in these operations), exact where the integrand allows.

    Decisions for pmfs that branch (:mod:`dpexact.numbers.comparisons` states the contract):
        ``compare(a, b)``: certified sign of ``a - b``; enclosures that overlap are decided by
            the exact values of the inputs when known (a ball made from an exact score carries
            it), else ``comparisons.Undecidable`` (an ``ArithmeticError`` carrying the two
            enclosures: a branch-and-bound over boxes of scores splits on it).
        ``eq(a, b)``: ``compare(a, b) == 0``. ``indicator(flag)``: the backend's exact 1 or 0.
        ``max(xs)``: an element of ``xs`` that is a maximum; ``argmax(xs)``: every index of a
            maximum, ties included.
    """

    def log1p(self, x: Any) -> Any: ...

    def expm1(self, x: Any) -> Any: ...

    def sqrt(self, x: Any) -> Any: ...

    def sum(self, xs: Sequence[Any]) -> Any: ...

    def sign(self, x: Any) -> int: ...

    def compare(self, a: Any, b: Any) -> int: ...

    def eq(self, a: Any, b: Any) -> bool: ...

    def indicator(self, flag: bool) -> Any: ...

    def max(self, xs: Sequence[Any]) -> Any: ...

    def argmax(self, xs: Sequence[Any]) -> tuple[int, ...]: ...

    def integrate(self, f: Callable[[Any], Any], a: Any, b: Any) -> Any: ...
