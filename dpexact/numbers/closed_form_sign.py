"""The sign of an exact number: a rational, or a closed form such as ``exp(1/3) - 7/5``.

The exact backend's decision (:meth:`~.backends.ExactBackend.try_sign`), in increasing cost:

1. rationals (``flint.fmpq``, sympy Rationals) directly;
2. ``Σ c_k·exp(k)`` with rational ``c_k``, ``k``: :func:`exp_sum_sign` (zero iff
   every ``c_k`` is zero, by Lindemann–Weierstrass; else arb);
3. any closed form :func:`~.real.sympy_to_arb` encloses: arb at 128, 512 and 2048 bits, decided
   when the ball excludes 0;
4. a tie (the ball still contains 0): the caller's ``zero_test`` (True: zero, False: not zero,
   None: unknown), then ``sympy.simplify(e) == 0``.

``None`` only when an exact tie cannot be decided; never a guess.
"""

from __future__ import annotations

from typing import Any, Callable

from .sympy_conversion import exact_sympy

__all__ = ["closed_form_sign", "exp_sum_sign", "exp_rational_terms"]

#: arb precisions (bits) tried on a closed form before the zero test
ARB_PRECISIONS = (128, 512, 2048)


def closed_form_sign(x: Any, zero_test: Callable[[Any], "bool | None"] | None = None) -> int | None:
    """``-1 | 0 | 1``, the sign of the exact number ``x`` (module docstring), or ``None`` when a
    tie cannot be decided."""
    if type(x).__name__ == "fmpq":
        return (x > 0) - (x < 0)
    import sympy
    from flint import ctx

    from .real import sympy_to_arb

    e = exact_sympy(x)
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    terms = exp_rational_terms(e)
    if terms is not None:
        return exp_sum_sign(terms)
    old = ctx.prec
    try:
        for prec in ARB_PRECISIONS:
            ctx.prec = prec  # restored below, also on error
            try:
                b = sympy_to_arb(e)
            except TypeError:
                break
            if b > 0:
                return 1
            if b < 0:
                return -1
    finally:
        ctx.prec = old
    z = zero_test(e) if zero_test is not None else None
    if z is True:
        return 0
    if z is None and sympy.simplify(e) == 0:
        return 0
    return None


#: bound on the working precision of the exponential-sum sign test
_EXP_SUM_MAX_PREC = 1 << 16


def exp_rational_terms(e: Any) -> "dict[Any, Any] | None":
    """``e`` as ``{k: c}`` with ``e = Σ c·exp(k)``, all ``c`` and ``k`` rational (sympy
    Rationals, zero coefficients dropped), or ``None`` when ``e`` is not of that form."""
    import sympy

    out: dict[Any, Any] = {}
    for t in sympy.Add.make_args(sympy.expand(e)):
        c, rest = t.as_coeff_Mul()
        if not c.is_Rational:
            return None
        if rest == 1:
            k = sympy.Integer(0)
        elif rest is sympy.E:
            k = sympy.Integer(1)
        elif isinstance(rest, sympy.exp) and rest.args[0].is_Rational:
            k = rest.args[0]
        else:
            return None
        out[k] = out.get(k, 0) + c
    return {k: c for k, c in out.items() if c != 0}


def exp_sum_sign(terms: "dict[Any, Any]") -> int | None:
    """Sign of ``Σ c_k exp(k)`` over distinct rationals ``k``: 0 iff every ``c_k`` is 0
    (Lindemann–Weierstrass: exponentials of distinct algebraic numbers are linearly
    independent over the algebraic numbers); otherwise arb at doubling precision (bounded by
    :data:`_EXP_SUM_MAX_PREC`, ``None`` beyond)."""
    from flint import arb, ctx, fmpq

    if not terms:
        return 0
    prec, old = 128, ctx.prec
    while prec <= _EXP_SUM_MAX_PREC:
        ctx.prec = prec  # restored below, also on error
        try:
            total = arb(0)
            for k, c in terms.items():
                total += arb(fmpq(int(c.p), int(c.q))) * arb(fmpq(int(k.p), int(k.q))).exp()
            if total > 0:
                return 1
            if total < 0:
                return -1
        finally:
            ctx.prec = old
        prec *= 4
    return None
