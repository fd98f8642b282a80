"""Exact rational functions of the compact variables, in flint (no symbolic simplification).

After the law's exponents are made integers (:mod:`.compact_paths`: each algebraic variable is
``e^{g·v}``), every probability of every branch path is a rational function with rational
coefficients of the compact variables (``Λ`` or ``M = 1/Λ``, ``W_a``, ``Y_a``) and of one more
generator ``T = e^{1/L}``, where ``L`` is the least common denominator of the constants ``e^{p/q}`` the
law uses (``E = T^L``, ``e^{1/2} = T^{L/2}``, and ``e^ε`` when ε is rational). A :class:`Frac` is such a
function as a pair of flint ``fmpq_mpoly`` (numerator, denominator) reduced by their gcd: ratios,
substitutions and derivatives are polynomial arithmetic in C, with a bound on terms and degree
(:class:`~.compact_budget.TooLarge` beyond it), so every step has a bounded cost.

A :class:`Frac` in ``T`` alone is an exact constant. ``T`` is transcendental (Lindemann 1882), so a
constant is 0 exactly when its numerator is the zero polynomial; otherwise its sign is that of the
numerator times the denominator at ``T = e^{1/L}``, decided in arb at rising precision
(:func:`const_sign`). This decides ``ratio = e^ε`` *exactly* at a face of a tight law.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .compact_budget import TooLarge

__all__ = ["Space", "Frac", "from_sympy", "div", "sub", "subs", "derivative", "free", "const_sign",
           "const_text", "const_ball", "MAX_TERMS", "MAX_DEGREE"]

#: terms a polynomial may have before an operation is refused
MAX_TERMS = 4000
#: degree in one compact variable a polynomial may have before an operation is refused
MAX_DEGREE = 200
#: degree in T = e^{1/L} (sparse: only the number of terms costs)
MAX_T_DEGREE = 10**6


@dataclass(frozen=True)
class Space:
    """The generators: the compact variables' names, then ``T = e^{1/lcd}``."""

    names: tuple[str, ...]
    lcd: int

    @property
    def ctx(self) -> Any:
        import flint

        return flint.fmpq_mpoly_ctx.get(self.names + ("T",), "lex")

    @property
    def t(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        return self.names.index(name)


@dataclass(frozen=True)
class Frac:
    """``num / den`` (fmpq_mpoly of one :class:`Space`), reduced, ``den`` not zero."""

    num: Any
    den: Any

    def is_zero(self) -> bool:
        return bool(self.num.is_zero())


def _check(p: Any) -> Any:
    """``p`` within the bounds: terms, degree in each compact variable (``T``'s degree is free: the
    polynomials are sparse, and e^{1001/1000} is T^1001 for L = 1000)."""
    if len(p) > MAX_TERMS:
        raise TooLarge(f"a polynomial above {MAX_TERMS} terms")
    if len(p) and max(p.degrees()[:-1], default=0) > MAX_DEGREE:
        raise TooLarge(f"a polynomial above degree {MAX_DEGREE} in a compact variable")
    if len(p) and p.degrees()[-1] > MAX_T_DEGREE:  # flint's gcd aborts the process near T^(2·10^10)
        raise TooLarge(f"a polynomial above degree {MAX_T_DEGREE} in T")
    return p


def _reduce(n: Any, d: Any) -> Frac:
    if d.is_zero():
        raise ZeroDivisionError("a zero denominator")
    _check(n), _check(d)
    if n.is_zero():
        return Frac(n, d.context().constant(1))
    g = n.gcd(d)
    if not g.is_one():
        n, d = n / g, d / g
    lc = d.leading_coefficient()
    if lc != 1:
        n, d = n / lc, d / lc
    return Frac(n, d)


def add(a: Frac, b: Frac) -> Frac:
    if a.den == b.den:
        return _reduce(a.num + b.num, a.den)
    return _reduce(a.num * b.den + b.num * a.den, a.den * b.den)


def sub(a: Frac, b: Frac) -> Frac:
    return add(a, Frac(-b.num, b.den))


def mul(a: Frac, b: Frac) -> Frac:
    return _reduce(a.num * b.num, a.den * b.den)


def div(a: Frac, b: Frac) -> Frac:
    if b.num.is_zero():
        raise ZeroDivisionError("division by zero")
    return _reduce(a.num * b.den, a.den * b.num)


def _power(a: Frac, k: int) -> Frac:
    if abs(k) > MAX_DEGREE:
        raise TooLarge(f"a power above degree {MAX_DEGREE}")
    if k >= 0:
        return _reduce(a.num ** k, a.den ** k)
    if a.num.is_zero():
        raise ZeroDivisionError("a negative power of zero")
    return _reduce(a.den ** (-k), a.num ** (-k))


def _monomial(space: Space, exps: dict[int, int], coeff: Any = 1) -> Frac:
    """``coeff · Π x_i^{e_i}`` with integer exponents of any sign (negative ones go below)."""
    from flint import fmpq

    ctx = space.ctx
    k = space.t + 1
    up, down = [0] * k, [0] * k
    for i, e in exps.items():
        if abs(e) > (MAX_DEGREE if i != space.t else MAX_T_DEGREE):
            raise TooLarge(f"a monomial above degree {MAX_DEGREE}")
        (up if e >= 0 else down)[i] += abs(e)
    c = fmpq(coeff) if not isinstance(coeff, Fraction) else fmpq(coeff.numerator, coeff.denominator)
    return Frac(ctx.from_dict({tuple(up): c}), ctx.from_dict({tuple(down): 1}))


def _integer(x: Fraction, what: str) -> int:
    if x.denominator != 1:
        raise TooLarge(f"{what}: a non-integer exponent {x}")
    return int(x)


def from_sympy(expr: Any, space: Space, symbols: dict[Any, tuple[int, Fraction, int]],
               cache: dict | None = None) -> Frac:
    """The sympy closed form ``expr`` (rationals, ``E``, ``exp`` of rationals, the algebraic variables
    in ``symbols`` — symbol -> (generator, unit g, sign): ``A^c = X^{sign·c/g}`` —, + × and powers)
    as a :class:`Frac`; :class:`TooLarge` for anything else or beyond the bounds."""
    import sympy

    if cache is not None and expr in cache:
        return cache[expr]
    e = expr
    if e.is_Rational:
        out = _monomial(space, {}, Fraction(int(e.p), int(e.q)))
    elif e is sympy.E:
        out = _monomial(space, {space.t: space.lcd})
    elif isinstance(e, sympy.exp):
        r = e.args[0]
        if not r.is_Rational:
            raise TooLarge(f"exp of {r}: not a rational constant")
        out = _monomial(space, {space.t: _integer(Fraction(int(r.p), int(r.q)) * space.lcd, "a constant")})
    elif e.is_Symbol and e in symbols:
        i, g, s = symbols[e]
        out = _monomial(space, {i: _integer(Fraction(s) / g, str(e))})
    elif e.is_Pow and e.base.is_Symbol and e.base in symbols and e.exp.is_Rational:
        i, g, s = symbols[e.base]
        out = _monomial(space, {i: _integer(Fraction(int(e.exp.p), int(e.exp.q)) * s / g, str(e))})
    elif e.is_Pow and e.exp.is_Integer:
        out = _power(from_sympy(e.base, space, symbols, cache), int(e.exp))
    elif e.is_Add or e.is_Mul:
        parts = [from_sympy(a, space, symbols, cache) for a in e.args]
        out = parts[0]
        for p in parts[1:]:
            out = add(out, p) if e.is_Add else mul(out, p)
    else:
        raise TooLarge(f"cannot write {type(e).__name__} as a rational function of the compact variables")
    if cache is not None:
        cache[expr] = out
    return out


def _subs_poly(p: Any, space: Space, i: int, k: int | None) -> tuple[Any, int]:
    """``p`` at ``x_i = T^k`` (``k`` None: ``x_i = 0``) as ``(poly, shift)``: the value is ``poly · T^shift``."""
    terms = {}
    lo = 0
    for exps, c in p.to_dict().items():
        if k is None:
            if exps[i]:
                continue
            terms[exps] = c
            continue
        e = list(exps)
        e[space.t] += k * e[i]
        e[i] = 0
        terms[tuple(e)] = terms.get(tuple(e), 0) + c
        lo = min(lo, e[space.t])
    if lo < 0:
        terms = {tuple(x if j != space.t else x - lo for j, x in enumerate(e)): c for e, c in terms.items()}
    return space.ctx.from_dict({e: c for e, c in terms.items() if c != 0}), lo


def subs(a: Frac, space: Space, i: int, k: int | None) -> Frac | None:
    """``a`` at ``x_i = T^k`` (``k`` None: ``x_i = 0``), reduced; None when the denominator vanishes there."""
    n, sn = _subs_poly(a.num, space, i, k)
    d, sd = _subs_poly(a.den, space, i, k)
    if d.is_zero():
        return None
    shift = sn - sd
    t = _monomial(space, {space.t: shift})
    return mul(_reduce(n, d), t)


def derivative(a: Frac, space: Space, i: int) -> Frac:
    """``∂a/∂x_i`` (quotient rule, reduced)."""
    name = (space.names + ("T",))[i]
    n1, d1 = a.num.derivative(name), a.den.derivative(name)
    return _reduce(_check(n1 * a.den - a.num * d1), _check(a.den * a.den))


def free(a: Frac, space: Space) -> set[int]:
    """The generators (not ``T``) that ``a`` depends on."""
    out = set()
    for p in (a.num, a.den):
        if not p.is_zero():
            out |= {i for i, d in enumerate(p.degrees()) if d and i != space.t}
    return out


def _poly_at_t(p: Any, space: Space, prec: int) -> Any:
    """``p`` at ``T = e^{1/lcd}`` (every other generator absent) as an arb ball."""
    import flint

    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        t = (flint.arb(1) / space.lcd).exp()
        out = flint.arb(0)
        for exps, c in p.to_dict().items():
            out += flint.arb(c) * t ** int(exps[space.t])
        return out
    finally:
        flint.ctx.prec = saved


def const_sign(a: Frac, space: Space) -> int | None:
    """The sign of a constant (``T`` only): 0 exactly when the numerator is the zero polynomial, else
    the sign of ``num · den`` at ``T = e^{1/lcd}`` in arb (None when 4096 bits do not separate it)."""
    if a.num.is_zero():
        return 0
    for prec in (128, 512, 4096):
        v = _poly_at_t(a.num, space, prec) * _poly_at_t(a.den, space, prec)
        if v > 0:
            return 1
        if v < 0:
            return -1
    return None


def const_ball(a: Frac, space: Space, prec: int = 128) -> Any:
    """An arb ball of a constant."""
    return _poly_at_t(a.num, space, prec) / _poly_at_t(a.den, space, prec)


def const_text(a: Frac, space: Space) -> str:
    """``log`` of a positive constant as sympy text (``T`` written ``exp(1/lcd)``; sympy's automatic
    rules only, no simplification), for :func:`dpexact.numbers.real.Real.of`."""
    import sympy

    def poly(p: Any) -> Any:
        return sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * sympy.exp(sympy.Rational(int(e[space.t]), space.lcd))
                           for e, c in p.to_dict().items()])
    return str(sympy.log(poly(a.num) / poly(a.den)))


def lcm_of(values: list[int]) -> int:
    return math.lcm(*values) if values else 1
