"""Piecewise-exponential functions of the threshold noise, and their integral against it.

The laws of the sparse-vector family with *several* query-noise scales (the adaptive variants of
Ding et al., VLDB 2020, two Laplace scales per query) and with released gaps are integrals over
the threshold noise ``ρ`` of products of Laplace interval probabilities whose limits move with
``ρ``. In the unit ``u = ρ/U`` (U the threshold scale) each such factor is, between
breakpoints, a finite sum ``Σ_r c_r e^{r u}`` with rational rates ``r`` (multiples of ``U/b``),
and so is every product. :class:`Piecewise` stores one breakpoint list and one ``{rate: coeff}``
dict per piece; :meth:`Piecewise.integrate` sums the closed forms

    ∫_a^b c e^{r u} du = c (e^{r b} - e^{r a}) / r      (c (b - a) when r = 0),

so an integral is exact in ``Q[exp(Q)]`` (:class:`~dpexact.numbers.exp_sum.ExpSum`) when every
breakpoint is rational, and a rigorous ball otherwise — the number system is the
:class:`~.threshold_integral.Ops` it is built with. This generalises the single-scale
:func:`~.threshold_integral.laurent_segment` (one Laplace scale, degree ≤ 1 factors).

The primitive factor is :func:`noise_between`: ``Pr[η/U ∈ [max(A, u + a), min(C, u + c))]`` for
``η ~ Lap(β·U)``, any of the four limits absent — a cdf (⊥ answers), a survival function (⊤
answers), a window moving with ``u`` (a released gap) or a window clamped by fixed limits (a
released noisy answer).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from .threshold_integral import Ops

__all__ = ["Piecewise", "noise_between", "laplace_cdf_value", "integrate_product"]


class Piecewise:
    """``f(u) = Σ_r c_r e^{r u}`` on each piece between sorted exact breakpoints ``pts``.

    ``pieces[p]`` is the dict of piece p: p = 0 is ``(-∞, pts[0])``, p = len(pts) is
    ``[pts[-1], ∞)``. Values at breakpoints do not matter (integrals only).
    """

    __slots__ = ("ops", "pts", "pieces")

    def __init__(self, ops: Ops, pts: Sequence[Any], pieces: Sequence[dict]) -> None:
        if len(pieces) != len(pts) + 1:
            raise ValueError("pieces must be one more than breakpoints")
        self.ops, self.pts, self.pieces = ops, list(pts), [dict(p) for p in pieces]

    # -- constructors --------------------------------------------------------------------
    @classmethod
    def const(cls, ops: Ops, c: Any) -> "Piecewise":
        return cls(ops, [], [{Fraction(0): c}])

    @classmethod
    def indicator(cls, ops: Ops, a: Any = None, b: Any = None) -> "Piecewise":
        """1 on ``[a, b)`` (``None``: unbounded on that side); the zero function when ``a >= b``."""
        one = {Fraction(0): ops.const(1)}
        if a is not None and b is not None:
            if not a < b:
                return cls(ops, [], [{}])
            return cls(ops, [a, b], [{}, one, {}])
        if a is not None:
            return cls(ops, [a], [{}, one])
        if b is not None:
            return cls(ops, [b], [one, {}])
        return cls(ops, [], [one])

    @classmethod
    def laplace_cdf(cls, ops: Ops, beta: Fraction, d: Any) -> "Piecewise":
        """``F_β(u - d)``: the cdf of ``Lap(β)`` at ``u - d`` (½e^{(u-d)/β} left of d, 1 - ½e^{-(u-d)/β} right)."""
        r = 1 / beta
        half = ops.const(Fraction(1, 2))
        return cls(ops, [d], [{r: half * ops.exp(-d * r)}, {Fraction(0): ops.const(1), -r: -(half * ops.exp(d * r))}])

    @classmethod
    def laplace_density(cls, ops: Ops, beta: Fraction, d: Any = Fraction(0)) -> "Piecewise":
        """``e^{-|u-d|/β}/(2β)``: the density of ``Lap(β)`` at ``u - d``."""
        r = 1 / beta
        c = ops.const(1 / (2 * beta))
        return cls(ops, [d], [{r: c * ops.exp(-d * r)}, {-r: c * ops.exp(d * r)}])

    # -- arithmetic ------------------------------------------------------------------------
    def _on(self, pts: list) -> list[dict]:
        """Pieces of ``self`` on the finer partition ``pts`` (a superset of ``self.pts``)."""
        out, j = [], 0
        for p in range(len(pts) + 1):
            # piece p of the fine partition starts at pts[p-1]; the coarse piece holding it
            while j < len(self.pts) and p > 0 and not pts[p - 1] < self.pts[j]:
                j += 1
            out.append(self.pieces[j])
        return out

    def _merged(self, other: "Piecewise") -> tuple[list, list[dict], list[dict]]:
        pts = sorted(set(self.pts) | set(other.pts))
        return pts, self._on(pts), other._on(pts)

    def __add__(self, other: "Piecewise") -> "Piecewise":
        pts, a, b = self._merged(other)
        out = []
        for x, y in zip(a, b):
            d = dict(x)
            for r, c in y.items():
                d[r] = d[r] + c if r in d else c
            out.append(d)
        return Piecewise(self.ops, pts, out)

    def __neg__(self) -> "Piecewise":
        return Piecewise(self.ops, self.pts, [{r: -c for r, c in p.items()} for p in self.pieces])

    def __sub__(self, other: "Piecewise") -> "Piecewise":
        return self + (-other)

    def __mul__(self, other: "Piecewise") -> "Piecewise":
        pts, a, b = self._merged(other)
        out = []
        for x, y in zip(a, b):
            d: dict = {}
            for r, c in x.items():
                for s, e in y.items():
                    v = c * e
                    d[r + s] = d[r + s] + v if (r + s) in d else v
            out.append(d)
        return Piecewise(self.ops, pts, out)

    def scale(self, c: Any) -> "Piecewise":
        return Piecewise(self.ops, self.pts, [{r: v * c for r, v in p.items()} for p in self.pieces])

    # -- the integral ----------------------------------------------------------------------
    def integrate(self) -> Any:
        """``∫_ℝ f(u) du`` in closed form; ``ArithmeticError`` if a tail term does not decay."""
        ops = self.ops
        total = ops.const(0)
        exps: dict = {}

        def e(r: Fraction, x: Any) -> Any:
            key = (r, x)
            if key not in exps:
                exps[key] = ops.exp(r * x)
            return exps[key]

        for p, piece in enumerate(self.pieces):
            a = self.pts[p - 1] if p > 0 else None
            b = self.pts[p] if p < len(self.pts) else None
            for r, c in piece.items():
                if r == 0:
                    if a is None or b is None:
                        raise ArithmeticError("integrand does not decay: constant term on an unbounded piece")
                    total = total + c * ops.const(b - a)
                    continue
                if (a is None and r < 0) or (b is None and r > 0):
                    raise ArithmeticError("integrand does not decay in a tail")
                hi = e(r, b) if b is not None else ops.const(0)
                lo = e(r, a) if a is not None else ops.const(0)
                total = total + c * (hi - lo) * ops.const(1 / r)
        return total


def laplace_cdf_value(ops: Ops, x: Any, beta: Fraction) -> Any:
    """``F_β(x)`` as a number of ``ops`` (x exact)."""
    half = ops.const(Fraction(1, 2))
    if x < 0:
        return half * ops.exp(x / beta)
    return ops.const(1) - half * ops.exp(-x / beta)


def _cdf_at_max(ops: Ops, beta: Fraction, A: Any, a: Any) -> Piecewise:
    """``F_β(max(A, u + a))`` (A may be None: ``F_β(u + a)``)."""
    moving = Piecewise.laplace_cdf(ops, beta, -a)
    if A is None:
        return moving
    return Piecewise.indicator(ops, None, A - a) * Piecewise.const(ops, laplace_cdf_value(ops, A, beta)) + \
        Piecewise.indicator(ops, A - a, None) * moving


def _cdf_at_min(ops: Ops, beta: Fraction, C: Any, c: Any) -> Piecewise:
    """``F_β(min(C, u + c))`` (C may be None: ``F_β(u + c)``)."""
    moving = Piecewise.laplace_cdf(ops, beta, -c)
    if C is None:
        return moving
    return Piecewise.indicator(ops, None, C - c) * moving + \
        Piecewise.indicator(ops, C - c, None) * Piecewise.const(ops, laplace_cdf_value(ops, C, beta))


def noise_between(ops: Ops, beta: Fraction, lo: Any = None, lo_shift: Any = None, hi: Any = None,
                  hi_shift: Any = None) -> Piecewise:
    """``Pr[η ∈ [max(lo, u + lo_shift), min(hi, u + hi_shift))]`` for ``η ~ Lap(β)``, as a function of u.

    Every limit is exact or ``None`` (absent). The event is empty where its lower limit reaches
    its upper one; with the limits non-decreasing in u that is outside one interval of u.
    """
    if lo is None and lo_shift is None:
        upper = Piecewise.const(ops, ops.const(1)) if hi is None and hi_shift is None else None
        low = Piecewise.const(ops, ops.const(0))
    else:
        upper = None
        low = Piecewise.const(ops, laplace_cdf_value(ops, lo, beta)) if lo_shift is None else _cdf_at_max(ops, beta, lo, lo_shift)
    if upper is None:
        if hi is None and hi_shift is None:
            upper = Piecewise.const(ops, ops.const(1))
        elif hi_shift is None:
            upper = Piecewise.const(ops, laplace_cdf_value(ops, hi, beta))
        else:
            upper = _cdf_at_min(ops, beta, hi, hi_shift)
    # where is max(lo, u + lo_shift) < min(hi, u + hi_shift)?
    if lo is not None and hi is not None and not lo < hi:
        return Piecewise.const(ops, ops.const(0))
    if lo_shift is not None and hi_shift is not None and not lo_shift < hi_shift:
        return Piecewise.const(ops, ops.const(0))
    left = None if lo is None or hi_shift is None else lo - hi_shift  # u + hi_shift > lo
    right = None if hi is None or lo_shift is None else hi - lo_shift  # u + lo_shift < hi
    diff = upper - low
    if left is None and right is None:
        return diff
    return diff * Piecewise.indicator(ops, left, right)


def integrate_product(ops: Ops, factors: Sequence[Piecewise], threshold_beta: Fraction = Fraction(1)) -> Any:
    """``∫ f_ρ(u) Π factors(u) du`` with ``f_ρ`` the ``Lap(threshold_beta)`` density in u."""
    acc = Piecewise.laplace_density(ops, threshold_beta)
    for f in factors:
        acc = acc * f
    return acc.integrate()
