"""Exact zero and sign tests for expressions in ``exp(rational)`` and rationals (the exp lattice).

An expression whose exponentials are all ``exp(k)`` (or ``exp(k·ε)``) with rational ``k`` becomes a
rational function of ``t = e^{1/L}`` (``t = e^{-ε/L}``), L the least common denominator of the k's.
``e^{1/L}`` is transcendental (Lindemann), so such a function vanishes iff its numerator polynomial is
the zero polynomial: :func:`is_identically_zero` is an exact zero test, and :func:`exact_sign` the sign
of an exact backend value (balls at rising precision, then that zero test, then ``sympy.simplify``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

from .backends import ExactBackend

__all__ = ["MAX_LATTICE_DEGREE", "eps_symbol", "is_identically_zero", "to_lattice_rational", "exact_sign"]

#: largest power of ``t`` handled: the sparse polynomial arithmetic takes ~0.05 s at 10^6 and
#: ~10 s at 10^8, and python-flint aborts the process (SIGFPE) near 10^12
MAX_LATTICE_DEGREE = 10**6


def eps_symbol() -> Any:
    """The positive sympy symbol used for a symbolic ε."""
    import sympy

    return sympy.Symbol("epsilon", positive=True)


def _exp_coefficients(expr: Any, var: Any | None) -> dict[Any, Fraction] | None:
    """Map each exp atom of ``expr`` to the rational k with atom = exp(k·var) (var=None: exp(k))."""
    import sympy

    out: dict[Any, Fraction] = {}
    atoms = set(expr.atoms(sympy.exp))
    if expr.has(sympy.E):
        atoms.add(sympy.E)
    for a in atoms:
        arg = sympy.Integer(1) if a is sympy.E else a.args[0]
        k = arg if var is None else sympy.simplify(arg / var)
        if not (k.is_Rational):
            return None
        out[a] = Fraction(int(k.p), int(k.q))
    return out


def to_lattice_rational(expr: Any, var: Any | None = None, extra: Sequence[Fraction] = ()) -> tuple[Any, Any, int] | None:
    """Rewrite ``expr`` as a rational function of ``t``: ``exp(k·var) -> t^{-kL}``.

    With ``var=None`` (a numerical expression) ``exp(k) -> t^{kL}``, i.e. ``t = e^{1/L}``.
    Returns ``(numerator, denominator, L)`` as sympy polynomials in the symbol ``t`` (from
    ``sympy.cancel``), or ``None`` when some exponential is not of that form or other
    irrational constants remain. ``extra`` are further k's that must be integral after scaling.
    """
    import sympy

    t = sympy.Symbol("t", positive=True)
    coeffs = _exp_coefficients(expr, var)
    if coeffs is None:
        return None
    L = 1
    for k in list(coeffs.values()) + [Fraction(x) for x in extra]:
        L = L * k.denominator // math.gcd(L, k.denominator)
    sign = -1 if var is not None else 1
    powers = {a: int(sign * k * L) for a, k in coeffs.items()}
    degree = max((abs(d) for d in powers.values()), default=0)
    if degree > MAX_LATTICE_DEGREE:
        raise ValueError(f"score values too large or too finely spaced for the exact lattice test: a power of t "
                         f"with {len(str(degree))} digits exceeds the limit t^{MAX_LATTICE_DEGREE} (choose smaller "
                         "score values, e.g. with --values)")
    rep = {a: t ** d for a, d in powers.items()}
    e = expr.xreplace(rep)
    if var is not None and e.has(var):
        return None
    if not all(s == t for s in e.free_symbols):
        return None
    if e.atoms(sympy.Function) or any(not a.is_Rational for a in e.atoms(sympy.Number)):
        return None
    if any(not p.exp.is_Integer for p in e.atoms(sympy.Pow)):
        return None  # radicals such as sqrt(2) are outside Q(t)
    num, den = sympy.fraction(sympy.cancel(sympy.together(e)))
    return sympy.expand(num), sympy.expand(den), L


def is_identically_zero(expr: Any) -> bool | None:
    """Exact test ``expr == 0`` for expressions in ``exp(rational)`` and rationals.

    Returns ``True``/``False``, or ``None`` when ``expr`` is not of that form.
    """
    res = to_lattice_rational(expr, None)
    if res is None:
        return None
    return bool(res[0] == 0)


def exact_sign(expr: Any) -> int | None:
    """Sign of an exact value (fmpq or sympy), or ``None`` when it cannot be decided.

    Tries arb at 128, 512 and 2048 bits; a ball containing 0 at 2048 bits is then checked for an
    exact zero with :func:`is_identically_zero` (exp-lattice substitution, exact polynomial
    arithmetic) and finally ``sympy.simplify``.
    """
    return ExactBackend().try_sign(expr, zero_test=is_identically_zero)
