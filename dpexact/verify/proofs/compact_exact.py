"""Bounded exact work for the compact branch-and-bound: signs of closed-form constants and guarded
symbolic steps.

**Exact signs of face constants.** At a face of the compact domain the log-ratio of a law such as
EM, PF or GRR is a constant built from rationals and ``e^{p/q}`` with ``+ × ÷`` and integer powers
(EM's face is ``e^{ε}``, GRR's ``e^ε`` over 1). Ball arithmetic at rising precision separates two
different constants; two *equal* ones (the claimed ε of a tight law) are never separated by balls.
Equality is then decided exactly: with ``L`` the least common denominator of the exponents, put
``t = e^{1/L}``; the difference is a rational function of ``t`` with rational coefficients, computed in
flint's ``fmpq_poly`` (no symbolic simplification). ``t`` is transcendental (Lindemann 1882), so the
difference is 0 exactly when that rational function's numerator is the zero polynomial; otherwise the
sign stays undecided (``None``) and the caller gives up honestly. Every step is bounded: the degree in
``t`` is capped (:data:`MAX_DEGREE`), and no call of ``sympy.simplify`` is ever made.

**Guarded symbolic steps.** ``cancel`` and ``diff`` of sympy run on expressions whose size
and degree are bounded first (:func:`guard`): a step on a larger expression raises
:class:`TooLarge`, which ends the run as undecided instead of running without bound. A CPU deadline
(:class:`OutOfBudget`, :func:`check_deadline`) is checked in every loop of the route.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

__all__ = ["TooLarge", "OutOfBudget", "check_deadline", "guard", "exact_sign", "text", "up", "MAX_NODES", "MAX_DEGREE"]

#: nodes of its tree an expression may have before a symbolic step on it is refused
MAX_NODES = 1500
#: largest degree (in a compact variable, or in ``t = e^{1/L}`` for constants) a step may meet
MAX_DEGREE = 64


class TooLarge(Exception):
    """A symbolic step would run on an expression beyond the route's size bounds (the run gives up)."""


class OutOfBudget(Exception):
    """The claim's CPU budget (this process's time) is spent (the run gives up)."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`OutOfBudget` once this process's CPU time passes ``deadline``."""
    if deadline is not None and time.process_time() > deadline:
        raise OutOfBudget("CPU budget spent")


def guard(expr: Any, what: str) -> None:
    """Refuse (:class:`TooLarge`) a symbolic step on an expression with more than :data:`MAX_NODES`
    nodes or a power of degree above :data:`MAX_DEGREE` (the cost of ``cancel`` grows with both)."""
    import sympy

    # one walk over the tree, stopped at the bound (sympy.count_ops itself is slow on large trees)
    for k, node in enumerate(sympy.preorder_traversal(expr)):
        if k > MAX_NODES:
            raise TooLarge(f"{what}: expression above {MAX_NODES} nodes")
        if node.is_Pow:
            ex = node.exp
            if ex.is_Rational and abs(ex) * (1 if ex.is_Integer else int(ex.q)) > MAX_DEGREE:
                raise TooLarge(f"{what}: a power of degree above {MAX_DEGREE}")


def _arb_sign(x: Any) -> int | None:
    """The sign of a closed-form constant from its arb ball at rising precision (None: not separated)."""
    import flint

    from ...numbers.real import sympy_to_arb

    saved = flint.ctx.prec
    try:
        for prec in (96, 384, 1536):
            flint.ctx.prec = prec
            try:
                b = sympy_to_arb(x)
            except (TypeError, ValueError, ZeroDivisionError):
                return None
            if b > 0:
                return 1
            if b < 0:
                return -1
    finally:
        flint.ctx.prec = saved
    return None


def _exponents(x: Any, out: list[Fraction]) -> bool:
    """Collect the exponents ``r`` of every ``e^r`` in ``x``; False when ``x`` has another kind of node."""
    import sympy

    if x.is_Rational:
        return True
    if x is sympy.E:
        out.append(Fraction(1))
        return True
    if isinstance(x, sympy.exp):
        r = x.args[0]
        if not r.is_Rational:
            return False
        out.append(Fraction(int(r.p), int(r.q)))
        return True
    if x.is_Pow:
        return x.exp.is_Integer and _exponents(x.base, out)
    if x.is_Add or x.is_Mul:
        return all(_exponents(a, out) for a in x.args)
    return False


def _as_fraction_in_t(x: Any, lcd: int) -> tuple[Any, Any]:
    """``x`` as ``(N, D)`` fmpq_polys in ``t = e^{1/lcd}`` (``x = N(t)/D(t)``)."""
    import sympy
    from flint import fmpq, fmpq_poly

    def mono(k: int) -> tuple[Any, Any]:
        if abs(k) > MAX_DEGREE * 8:
            raise TooLarge("a constant of degree above the bound in e^(1/L)")
        t = fmpq_poly([0, 1])
        return (t ** k, fmpq_poly([1])) if k >= 0 else (fmpq_poly([1]), t ** (-k))

    if x.is_Rational:
        return fmpq_poly([fmpq(int(x.p), int(x.q))]), fmpq_poly([1])
    if x is sympy.E:
        return mono(lcd)
    if isinstance(x, sympy.exp):
        r = x.args[0]
        return mono(int(r.p) * lcd // int(r.q))
    if x.is_Pow:
        n, d = _as_fraction_in_t(x.base, lcd)
        k = int(x.exp)
        if abs(k) > MAX_DEGREE:
            raise TooLarge("an integer power above the degree bound")
        return (n ** k, d ** k) if k >= 0 else (d ** (-k), n ** (-k))
    parts = [_as_fraction_in_t(a, lcd) for a in x.args]
    n, d = parts[0]
    for n2, d2 in parts[1:]:
        n, d = (n * d2 + n2 * d, d * d2) if x.is_Add else (n * n2, d * d2)
        if max(n.degree(), d.degree()) > MAX_DEGREE * 16:
            raise TooLarge("a constant of degree above the bound in e^(1/L)")
    return n, d


def exact_sign(x: Any) -> int | None:
    """The sign of the closed-form constant ``x`` (sympy), decided exactly (module docstring), or None
    when neither balls nor the polynomial identity in ``t = e^{1/L}`` decide it within the bounds."""
    import sympy

    x = sympy.sympify(x)
    if x.is_Rational:
        return int(x.p > 0) - int(x.p < 0)
    s = _arb_sign(x)
    if s is not None:
        return s
    exps: list[Fraction] = []
    if not _exponents(x, exps):
        return None
    lcd = math.lcm(*[e.denominator for e in exps]) if exps else 1
    try:
        n, d = _as_fraction_in_t(x, lcd)
    except TooLarge:
        return None
    if d == 0:
        return None
    return 0 if n == 0 else None


def compare(a: Any, b: Any) -> int | None:
    """``sign(a - b)`` for closed-form constants (:func:`exact_sign`)."""
    import sympy

    return exact_sign(sympy.sympify(a) - sympy.sympify(b))


def text(x: Any) -> str:
    """An exact constant as the text :func:`dpexact.numbers.real.Real.of` reads back."""
    return str(x)


def up(x: Any) -> float:
    """A float at or above the closed-form constant ``x`` (its arb ball's upper end, one ulp up)."""
    import flint

    from ...numbers.real import sympy_to_arb

    saved = flint.ctx.prec
    flint.ctx.prec = 128
    try:
        b = sympy_to_arb(x)
    finally:
        flint.ctx.prec = saved
    return math.nextafter(float(b.upper()), math.inf)
