"""Certified decisions for pmfs that branch: comparison, equality, indicator, max and argmax with ties.

A pmf such as GRR's (the true item is ``argmax q``, ties shared) or ERR's (``[r ∈ T]``) branches
on comparisons of scores. On the exact backend they are exact; on balls two enclosures of equal
scores overlap (1/3 and 1/3 at any precision), so the ball alone cannot decide the tie. The rule
here: **decide by the enclosures when they are disjoint, else by the exact values they enclose
when those are known, else raise** :class:`Undecidable`. Never a silent guess.

Contract of every operation (:class:`~.backends.Backend` delegates to these functions):

``compare(be, a, b) -> -1 | 0 | 1``
    the certified sign of ``a - b``.

    * exact: exact (rationals directly; closed forms as in :meth:`~.backends.ExactBackend.try_sign`).
    * ball: ±1 when the balls are disjoint; otherwise the exact values of the operands, when both
      are known (an :class:`ExactBall` — a ball made from an exact input by :func:`exact_input` —
      carries its exact value; a ball of radius 0 is its own exact value); otherwise
      :class:`Undecidable`.
    * float: a :class:`~.bounded_float.BoundedFloat` by its interval, a plain float exactly
      (it is an exact binary number); overlapping intervals as on ball.
    * mp: the computed values compared as they are (mp carries an estimate, never a proof).
``eq(be, a, b) -> bool``: ``compare(be, a, b) == 0`` (same decisions, same exception).
``indicator(be, flag) -> number``: the backend's exact 1 or 0 for a decided boolean (``bool`` times a
    sympy number raises; this does not).
``maximum(be, xs)``: one element of ``xs`` that is a maximum (the element itself, so an
    :class:`ExactBall` keeps its exact value); on balls that cannot be ordered (two computed values
    that tie), the ball enclosing their maximum (no oracle installed: a value needs no branch). ``argmax(be, xs) -> tuple[int, ...]``: every index
    attaining the maximum, in increasing order (ties included, decided as above).

For a branch-and-bound that evaluates a pmf on a *box* of scores (wide balls with no exact
value), :class:`Undecidable` is the signal to split: it carries the two enclosures
(``operands``), and is raised before any branch is taken, so a caught exception leaves no
partial result behind. Python's own operators on plain arb balls answer ``False`` when the
balls overlap; on :class:`ExactBall` operands (and on interval duals) they follow the rule above.

**Branch oracles.** A caller that enumerates a law's branches on a box installs a
:class:`BranchOracle` with :func:`deciding_with`: a comparison the enclosures and exact values
leave open is then handed to it with the outcomes still possible on the box, grouped into the
classes the asking operation distinguishes (``compare``: <, =, >; ``eq`` and ``==``: =, ≠;
``>``: >, ≤; …), and its answer is taken. An oracle that answers each open comparison in turn
with each possible class, re-running the law, visits every branch the law takes at some point of
the box (each point takes one of them), which is how a law that jumps is bounded on a box without
smoothing the jump (:mod:`dpexact.verify.proofs.selection_bnb`). A comparison with only one
possible class is decided without the oracle (e.g. ``x > y`` when ``x - y ∈ [-1, 0]``).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from fractions import Fraction
from typing import Any, Iterator, Protocol, Sequence

from .real import Real



class Backend(Protocol):
    """What these decisions read of a backend (:class:`~.backends.Backend` has it; named here so that
    the backends, which delegate to this module, are not imported back)."""

    is_ball: bool
    is_exact: bool
    is_mp: bool

    def from_int(self, k: int) -> Any: ...

    def from_real(self, x: Any) -> Any: ...

    def try_sign(self, x: Any) -> int | None: ...

__all__ = ["Undecidable", "ExactBall", "exact_input", "exact_value", "compare", "eq", "indicator", "maximum",
           "argmax", "BranchOracle", "deciding_with", "SIGN", "EQUAL",
           "GREATER", "GREATER_EQUAL", "ball_decide", "Enclosed"]

#: outcome classes of the asking operation (each a tuple of signs of ``a - b`` it does not tell apart)
SIGN: tuple[tuple[int, ...], ...] = ((-1,), (0,), (1,))
EQUAL: tuple[tuple[int, ...], ...] = ((0,), (-1, 1))
GREATER: tuple[tuple[int, ...], ...] = ((1,), (-1, 0))
GREATER_EQUAL: tuple[tuple[int, ...], ...] = ((0, 1), (-1,))


class Enclosed:
    """Base of numbers that carry a ball enclosing their value over a box (``enclosure``): the
    interval duals of :mod:`.interval_gradient`, compared by that ball."""

    __slots__ = ()

    @property
    def enclosure(self) -> Any:
        raise NotImplementedError


class BranchOracle(Protocol):
    """Decides comparisons a box leaves open (module docstring).

    ``decide(a, b, classes)``: ``classes`` are the outcome classes (tuples of signs of ``a - b``)
    still possible on the box — one when the comparison is decided, whose sign is then the
    answer unless the oracle replays another branch on purpose; the answer is one sign of one of
    them. It may raise instead (the exception propagates out of the law)."""

    def decide(self, a: Any, b: Any, classes: tuple[tuple[int, ...], ...]) -> int: ...


_ORACLE: contextvars.ContextVar["BranchOracle | None"] = contextvars.ContextVar("dpexact_branch_oracle", default=None)


@contextlib.contextmanager
def deciding_with(oracle: BranchOracle) -> Iterator[None]:
    """Hand the ball comparisons left open to ``oracle`` for the duration of the block."""
    token = _ORACLE.set(oracle)
    try:
        yield
    finally:
        _ORACLE.reset(token)


class Undecidable(ArithmeticError):
    """Two enclosures overlap and no exact value decides between them (``operands``: the two).

    A branch-and-bound over boxes of scores catches it and splits the box; anywhere else it is a
    one-line error (it is an ``ArithmeticError``, the exception the backends' ``sign`` raises)."""

    def __init__(self, a: Any, b: Any) -> None:
        super().__init__(f"the comparison of {a} and {b} cannot be decided on these enclosures (they overlap and "
                         "their exact values are unknown); split the box or use the exact backend")
        self.operands = (a, b)


def _arb_type() -> type:
    from flint import arb

    return arb


class ExactBall(_arb_type()):  # type: ignore[misc]
    """An arb ball made from an exact number, carrying it (``exact``: a :class:`Real`).

    Arithmetic on it gives plain arb balls (the exact value is not propagated); comparisons with
    another ball decide overlapping cases from the exact values (module docstring), so that
    ``x == max(q)`` in a pmf function is right on ball scores such as 1/3."""

    exact: Real

    @classmethod
    def of(cls, x: Real, prec: int) -> "ExactBall":
        out = cls(x.to_arb(prec))
        out.exact = x
        return out

    def _cmp(self, other: Any) -> int:
        return _ball_compare(self, other)

    def __eq__(self, other: Any) -> bool:  # type: ignore[override]
        return self._cmp(other) == 0

    def __ne__(self, other: Any) -> bool:  # type: ignore[override]
        return self._cmp(other) != 0

    def __lt__(self, other: Any) -> bool:
        return self._cmp(other) < 0

    def __le__(self, other: Any) -> bool:
        return self._cmp(other) <= 0

    def __gt__(self, other: Any) -> bool:
        return self._cmp(other) > 0

    def __ge__(self, other: Any) -> bool:
        return self._cmp(other) >= 0

    def __hash__(self) -> int:  # equal exact values hash equal (sets and dict keys of scores keep working)
        return hash(self.exact.value)


def exact_input(be: "Backend", x: Any) -> Any:
    """An exact number as a backend number that remembers it: an :class:`ExactBall` on ball (at the
    working precision), ``be.from_real(x)`` elsewhere (exact, mp and float numbers are compared as
    they are)."""
    r = Real.of(x)
    if be.is_ball:
        from flint import ctx

        return ExactBall.of(r, ctx.prec)
    return be.from_real(r)


def exact_value(x: Any) -> Real | None:
    """The exact value a backend number is known to have (None: only an enclosure is known)."""
    from .bounded_float import BoundedFloat

    if isinstance(x, ExactBall):
        return x.exact
    if isinstance(x, Enclosed):  # an interval dual's value (exact when its ball is)
        return exact_value(x.enclosure)
    if isinstance(x, bool):
        return Real.of(int(x))
    if isinstance(x, (int, Fraction, Real)):
        return Real.of(x)
    if isinstance(x, float):
        return Real(Fraction(x)) if math.isfinite(x) else None
    if isinstance(x, BoundedFloat):
        return Real(Fraction(x.v)) if x.e == 0 else None
    name = type(x).__name__
    if name == "arb":
        if x.is_exact() and x.is_finite():
            man, exp = x.mid().man_exp()
            man, exp = int(man), int(exp)
            return Real(Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp))
        return None
    if name == "fmpq":
        return Real(Fraction(int(x.p), int(x.q)))
    return None


def _lift_ball(x: Any) -> Any:
    from flint import arb, fmpq

    if isinstance(x, (int, bool)):
        return arb(int(x))
    if isinstance(x, float):
        return arb(x)
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, Real):
        return x.to_arb()
    return x


def compare(be: "Backend", a: Any, b: Any) -> int:
    """Certified sign of ``a - b`` (module docstring); :class:`Undecidable` when it cannot be decided."""
    if be.is_exact:
        from .sympy_conversion import exact_sympy

        s = be.try_sign(exact_sympy(_exact_operand(a)) - exact_sympy(_exact_operand(b)))
        if s is None:
            raise Undecidable(a, b)
        return s
    if be.is_mp:
        return (a > b) - (a < b)
    if be.is_ball:
        return _ball_compare(a, b)
    s = be.try_sign(a - b)
    if s is not None:
        return s
    return _exact_compare(a, b)


def _ball_compare(a: Any, b: Any) -> int:
    """Sign of ``a - b`` for ball operands: the balls when they separate, else the exact values."""
    return ball_decide(a, b, SIGN)


def ball_decide(a: Any, b: Any, classes: tuple[tuple[int, ...], ...]) -> int:
    """A sign of ``a - b`` in the right one of ``classes`` (balls or interval duals): the balls when
    only one class is possible, else the exact values, else the installed :class:`BranchOracle`,
    else :class:`Undecidable`. An installed oracle sees every decision (a decided one as a single
    class), so that it can record a branch and replay it elsewhere."""
    x, y = _lift_ball(a), _lift_ball(b)
    d = x - y
    if isinstance(d, Enclosed):
        d = d.enclosure
    decided: int | None = None
    if a is b:  # x = x, however wide its enclosure (x - x is a ball around 0, not 0)
        decided = 0
    elif d > 0:
        decided = 1
    elif d < 0:
        decided = -1
    elif d.is_zero():
        decided = 0
    else:
        possible = {s for s, ok in ((-1, d.lower() < 0), (0, d.lower() <= 0 <= d.upper()), (1, d.upper() > 0)) if ok}
        open_classes = tuple(tuple(s for s in c if s in possible) for c in classes if possible.intersection(c))
        if len(open_classes) == 1:
            decided = min(open_classes[0])
        else:
            try:
                decided = _exact_compare(a, b)
            except Undecidable:
                oracle = _ORACLE.get()
                if oracle is None:
                    raise
                return oracle.decide(a, b, open_classes)
    oracle = _ORACLE.get()
    if oracle is not None:
        cls = next((c for c in classes if decided in c), (decided,))
        return oracle.decide(a, b, (tuple(s for s in cls if s == decided),))
    return decided


def _exact_compare(a: Any, b: Any) -> int:
    ea, eb = exact_value(a), exact_value(b)
    if ea is None or eb is None:
        raise Undecidable(a, b)
    return (ea - eb).sign()


def _exact_operand(x: Any) -> Any:
    if isinstance(x, (Real, Fraction, int)) and not isinstance(x, bool):
        return Real.of(x).to_sympy()
    return x


def eq(be: "Backend", a: Any, b: Any) -> bool:
    """Certified ``a == b`` (:func:`compare`; on balls only equal / not equal is asked of an oracle)."""
    if be.is_ball:
        return ball_decide(a, b, EQUAL) == 0
    return compare(be, a, b) == 0


def indicator(be: "Backend", flag: Any) -> Any:
    """``1`` or ``0`` as an exact backend number, for a decided boolean (not a ball or a sympy relation)."""
    if not isinstance(flag, bool):
        import numpy as np

        if not isinstance(flag, np.bool_):
            raise TypeError(f"indicator: needs a decided bool (from compare / eq), got {type(flag).__name__}")
    return be.from_int(1 if flag else 0)


def maximum(be: "Backend", xs: Sequence[Any]) -> Any:
    """An element of ``xs`` that is a maximum (ties: the first); ``ValueError`` when ``xs`` is empty."""
    items = list(xs)
    if not items:
        raise ValueError("max: empty sequence")
    top = items[0]
    for v in items[1:]:
        try:
            bigger = (ball_decide(v, top, GREATER) if be.is_ball else compare(be, v, top)) > 0
        except Undecidable:
            if not (be.is_ball and type(v).__name__ in ("arb", "ExactBall") and type(top).__name__ in ("arb", "ExactBall")):
                raise
            # two computed balls that overlap (a tie, or values too close to order): the value of the
            # maximum is still enclosed by the ball of max(a, b) — no branch is needed for a value
            top = _arb_type().max(_lift_ball(top), _lift_ball(v))
            continue
        if bigger:
            top = v
    return top


def argmax(be: "Backend", xs: Sequence[Any]) -> tuple[int, ...]:
    """Every index of a maximum of ``xs`` (ties included, decided by :func:`compare`)."""
    items = list(xs)
    top = maximum(be, items)
    return tuple(i for i, v in enumerate(items) if v is top or eq(be, v, top))


# -- exact signs of exponential sums ------------------------------------------------------------------
