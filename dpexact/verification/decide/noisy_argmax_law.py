"""The law a mechanism states as report-noisy-max on integer scores, computed here independently and
screened against its own ``pmf``.

A mechanism satisfying :class:`~dpexact.protocols.IntegerNoisyArgmax` says: output an index of
``max_r (q_r + Z_r)``, ``Z_r`` i.i.d. as ``integer_noise()``, ties broken uniformly at random. With
``f``/``F`` the noise's pmf and cdf, given ``Y_r = y`` the others are independent and the uniform
tie-break picks r with probability ``E[1/(1+T)] = ∫_0^1 E[t^T] dt`` (T: the others equal to y), so

    Pr[M(q) = r] = Σ_{y ∈ Z} f(y - q_r) ∫_0^1 Π_{s≠r} (F(y - 1 - q_s) + t f(y - q_s)) dt.

:func:`reference_pmf` sums this over ``y ∈ [min q - Y, max q + Y]`` in arb arithmetic (the product is
a polynomial in t, integrated term by term) and adds the omitted mass ``Pr[|Z_r| > Y]`` as a radius,
so its balls enclose the stated law. It shares no code with a mechanism's own ``pmf``.

:func:`screen_stated_law` compares the two on a fixed set of integer score vectors (ties, staircases,
one low / one high candidate, spreads up to 40, negative scores): a ball of the mechanism's pmf that
does not overlap the reference refutes the statement. It is a screen of the statement at these
vectors, not a proof that the pmf equals it everywhere; a proof that reads the statement
(:mod:`dpexact.verification.proofs.lattice_noisy_max`) says so in its domain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from ...numbers.real import Real
from ...protocols import INTEGER_NOISE_FAMILIES, IntegerNoise, IntegerNoisyArgmax

__all__ = ["reference_pmf", "screen_stated_law", "LawScreen", "screen_vectors"]

#: arb precision of the screen, and the omitted tail mass asked of the truncation (2^-TAIL_BITS)
PREC = 160
TAIL_BITS = 100
#: the ball radius (relative) above which the mechanism's own pmf is too wide to screen
MAX_RELATIVE_RADIUS = 1e-20


def _noise(statement: IntegerNoise) -> Any:
    """α = e^{-rate} as an arb ball; ValueError when the statement is not one this module reads."""
    if statement.family not in INTEGER_NOISE_FAMILIES:
        raise ValueError(f"integer_noise: family {statement.family!r} is not one of {INTEGER_NOISE_FAMILIES}")
    rate = Real.of(statement.rate, "integer_noise().rate")
    if rate.sign() <= 0:
        raise ValueError(f"integer_noise: rate must be > 0, got {rate}")
    return (-rate.to_arb(PREC)).exp(), rate


def _truncation(rate: Real) -> int:
    """Y with Pr[|Z| > Y] = 2α^{Y+1}/(1+α) < 2^-TAIL_BITS."""
    return max(4, math.ceil((TAIL_BITS + 1) * math.log(2) / rate.to_float()) + 1)


def reference_pmf(statement: IntegerNoise, q: Sequence[int]) -> list[Any]:
    """Arb balls enclosing Pr[M(q) = r] of the stated law at the integer vector q (module docstring)."""
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = PREC
    try:
        a, rate = _noise(statement)
        one = arb(1)
        c = (one - a) / (one + a)

        def f(z: int) -> Any:
            return c * a ** abs(z)

        def F(w: int) -> Any:  # Pr[Z <= w]
            return one - a ** (w + 1) / (one + a) if w >= 0 else a ** (-w) / (one + a)

        Y = _truncation(rate)
        tail = 2 * a ** (Y + 1) / (one + a)
        n = len(q)
        out = []
        for r in range(n):
            total = arb(0)
            for y in range(min(q) - Y, max(q) + Y + 1):
                poly = [one]  # Π_s (F + t f) as coefficients of t^0, t^1, ...
                for s in range(n):
                    if s == r:
                        continue
                    lo, hi = F(y - 1 - q[s]), f(y - q[s])
                    nxt = [arb(0)] * (len(poly) + 1)
                    for j, v in enumerate(poly):
                        nxt[j] += v * lo
                        nxt[j + 1] += v * hi
                    poly = nxt
                total += f(y - q[r]) * sum((v / (j + 1) for j, v in enumerate(poly)), arb(0))
            # every omitted y has |y - q_r| > Y for q_r's own noise, and the integrand is <= f(y - q_r)
            out.append(total + arb(0, tail.upper()))
        return out
    finally:
        ctx.prec = old


def screen_vectors(n: int) -> list[tuple[int, ...]]:
    """The integer score vectors of the screen (module docstring)."""
    shapes = [
        (0,) * n,
        tuple(range(n)),
        tuple(-3 * k for k in range(n)),
        (0,) + (1,) * (n - 1),
        (1,) + (0,) * (n - 1),
        (0,) + (40,) * (n - 1),
        (-7,) + tuple(2 * k - 5 for k in range(1, n)),
        tuple((k * k) % 5 - 11 for k in range(n)),
        tuple(13 * k for k in range(n)),
    ]
    seen, out = set(), []
    for v in shapes:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


@dataclass(frozen=True)
class LawScreen:
    """Whether the mechanism's pmf agrees with its stated law at every screened vector (``agrees``),
    how many vectors were compared, and the first disagreement (``refuted``: text) if any."""

    agrees: bool
    vectors: int
    refuted: str | None = None


def screen_stated_law(mechanism: IntegerNoisyArgmax, n: int) -> LawScreen:
    """Compare the mechanism's pmf (ball, 256 bits) with :func:`reference_pmf` on :func:`screen_vectors`."""
    statement = mechanism.integer_noise()
    count = 0
    for q in screen_vectors(n):
        ref = reference_pmf(statement, q)
        try:
            own = mechanism.pmf(list(q), backend="ball:256").values
        except (ValueError, ArithmeticError) as e:
            return LawScreen(False, count, f"pmf({list(q)}) raised {type(e).__name__}: {e}")
        count += 1
        for r, (x, y) in enumerate(zip(own, ref)):
            wide = float(x.rad()) > MAX_RELATIVE_RADIUS * max(abs(float(x.mid())), 1e-300)
            if wide or not x.overlaps(y):
                return LawScreen(False, count, f"Pr[M({list(q)}) = {r}]: the pmf gives {x.str(12)}, the stated "
                                               f"law ({statement.family}, rate {statement.rate}) {y.str(12)}"
                                               + (" (the pmf's ball is too wide to compare)" if wide else ""))
    return LawScreen(True, count)
