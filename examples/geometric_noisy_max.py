"""Report-noisy-max with two-sided geometric noise: a mechanism defined outside dpexact.

Copy this file anywhere and use it from every dpexact command::

    python -m dpexact pmf -m /some/dir/geometric_noisy_max.py:GeometricNoisyMax -e 1 -q 2,1,0 -b exact
    python -m dpexact verify -m /some/dir/geometric_noisy_max.py:GeometricNoisyMax -e 1 --n 3
    python -m dpexact optimal --n 4 --k 4 -e 1 --mechanisms pf,/some/dir/geometric_noisy_max.py:GeometricNoisyMax

The mechanism (integer scores q_0..q_{n-1}, sensitivity Δ, privacy ε):

    Y_r = q_r + Z_r,   Z_r i.i.d.,   Pr[Z = z] = (1 − α)/(1 + α) · α^|z|,   α = e^(−ε/(2Δ)),

and the output is an index of max_r Y_r, ties among the noisy maxima broken uniformly at random.
(Z is the difference of two i.i.d. geometric variables on {0, 1, ...} with ratio α; it is
the discrete analogue of the Laplace noise of report-noisy-max, pf Appendix F.)

Exact law. Given Y_r = y, the others are independent; with T the number of others equal to
y, the uniform tie-break wins with probability E[1/(1+T)] = ∫_0^1 E[t^T] dt, so

    Pr[M(q) = r] = Σ_{y ∈ Z} f(y − q_r) ∫_0^1 Π_{s ≠ r} (F(y − 1 − q_s) + t f(y − q_s)) dt,

f and F the pmf and cdf of Z. After shifting the scores so that min q = 0 and D = max q:
each factor has denominator 1 + α; for y < 0 every factor is α^(q_s − y) (α + t(1 − α)), a
geometric series in α^n; for y >= D every factor is 1 + α − α^(y−q_s)(1 − t + tα), a
polynomial in x = α^(y−D) whose powers sum to 1/(1 − α^k); the D values 0 <= y < D are
summed directly. Every term is a polynomial in (α, t) with rational coefficients; t is
integrated exactly. The pmf is therefore N_r(α) / Den(α) with integer-coefficient
polynomials, evaluated once in each backend's arithmetic: exact (sympy, rational when α is),
ball (rigorous), mp; float is the ball value rounded once (so its bound is proven).

This file is an example of the subclass route: a frozen dataclass with the public hooks
``pmf_float``, ``pmf_backend`` and ``sample``, and declared properties. It also states its law as
report-noisy-max with integer noise (``integer_noise()``, ``dpexact.protocols.IntegerNoisyArgmax``):
the lattice proof reads that statement, screens it against ``pmf_backend``, and proves the level
``rate · 2Δ = ε`` for every integer score vector (``verify`` says ``private``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from dpexact.mechanisms import SelectionMechanism
from dpexact.numbers import BallBackend, ExactBackend, Pmf, Real
from dpexact.protocols import IntegerNoise, MechanismProperties

__all__ = ["GeometricNoisyMax"]

#: cost guards: the polynomials have degree O(n·(max q − min q))
MAX_CANDIDATES = 12
MAX_SPREAD = 400

Poly = dict  # {(power of α, power of t): Fraction}


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for (i, j), x in a.items():
        for (k, l), y in b.items():
            key = (i + k, j + l)
            out[key] = out.get(key, 0) + x * y
    return {k: v for k, v in out.items() if v}


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v}


def _alpha_power(m: int) -> Poly:
    return {(m, 0): Fraction(1)}


ONE_PLUS_ALPHA = {(0, 0): Fraction(1), (1, 0): Fraction(1)}
ONE_MINUS_ALPHA = {(0, 0): Fraction(1), (1, 0): Fraction(-1)}


def _integrate_t(p: Poly) -> dict[int, Fraction]:
    """∫_0^1 p(α, t) dt as a polynomial in α: {power: coefficient}."""
    out: dict[int, Fraction] = {}
    for (i, j), v in p.items():
        out[i] = out.get(i, 0) + Fraction(v) / (j + 1)
    return {k: v for k, v in out.items() if v}


def _one_minus_alpha_power(k: int) -> dict[int, Fraction]:
    return {0: Fraction(1), k: Fraction(-1)}


def _pmul(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for i, x in a.items():
        for k, y in b.items():
            out[i + k] = out.get(i + k, 0) + x * y
    return {k: v for k, v in out.items() if v}


def _padd(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v}


def _numerator_factors(z: int) -> tuple[Poly, Poly]:
    """(1 + α)·F(z − 1) and (1 + α)·f(z) as polynomials in α (z = y − q_s)."""
    # F(w) = 1 − α^(w+1)/(1+α) for w >= 0, α^(−w)/(1+α) for w < 0;  f(z) = (1 − α) α^|z| / (1 + α)
    w = z - 1
    cdf = _add(ONE_PLUS_ALPHA, {(w + 1, 0): Fraction(-1)}) if w >= 0 else _alpha_power(-w)
    pmf = _mul(ONE_MINUS_ALPHA, _alpha_power(abs(z)))
    return cdf, pmf


def exact_law(q: list[int]) -> tuple[list[dict[int, Fraction]], dict[int, Fraction]]:
    """Numerators N_r(α) and the common denominator Den(α) of Pr[M(q) = r] (module docstring)."""
    n = len(q)
    lo = min(q)
    q = [v - lo for v in q]
    D = max(q)
    L: dict[int, Fraction] = {0: Fraction(1)}
    for k in range(1, n + 1):
        L = _pmul(L, _one_minus_alpha_power(k))
    den = L
    for _ in range(n):
        den = _pmul(den, {0: Fraction(1), 1: Fraction(1)})
    t_lin = {(1, 0): Fraction(1), (0, 1): Fraction(1), (1, 1): Fraction(-1)}  # α + t(1 − α)
    nums = []
    for r in range(n):
        others = [s for s in range(n) if s != r]
        # middle: 0 <= y < D, summed directly
        middle: dict[int, Fraction] = {}
        for y in range(D):
            prod = _mul(ONE_MINUS_ALPHA, _alpha_power(abs(y - q[r])))
            for s in others:
                cdf, pmf = _numerator_factors(y - q[s])
                prod = _mul(prod, _add(cdf, _mul(pmf, {(0, 1): Fraction(1)})))
            middle = _padd(middle, _integrate_t(prod))
        # below: y <= −1: (1−α) α^(Σq) Π_s (α + t(1−α)) · Σ_{m>=1} α^(n m) = ... · α^n / (1 − α^n)
        prod = _mul(ONE_MINUS_ALPHA, _alpha_power(sum(q)))
        for _ in others:
            prod = _mul(prod, t_lin)
        below = _pmul(_integrate_t(prod), {n: Fraction(1)})
        below = _pmul(below, _divide_out(n, n))
        # above: y >= D: factors (1+α) − x α^(D−q_s)(1 − t + tα), f_r numerator (1−α) x α^(D−q_r)
        # as polynomials in x; Σ_{m>=0} x^k = 1/(1 − α^k) (k >= 1 since f_r carries one x)
        poly_x: dict[int, Poly] = {1: _mul(ONE_MINUS_ALPHA, _alpha_power(D - q[r]))}
        for s in others:
            g = _mul(_alpha_power(D - q[s]), {(0, 0): Fraction(1), (0, 1): Fraction(-1), (1, 1): Fraction(1)})
            g = {k: -v for k, v in g.items()}
            nxt: dict[int, Poly] = {}
            for k, c in poly_x.items():
                nxt[k] = _add(nxt.get(k, {}), _mul(c, ONE_PLUS_ALPHA))
                nxt[k + 1] = _add(nxt.get(k + 1, {}), _mul(c, g))
            poly_x = nxt
        above: dict[int, Fraction] = {}
        for k, c in poly_x.items():
            above = _padd(above, _pmul(_integrate_t(c), _divide_out(n, k)))
        nums.append(_padd(_padd(_pmul(middle, L), above), below))
    return nums, den


def _divide_out(n: int, k: int) -> dict[int, Fraction]:
    """Π_{j=1..n, j≠k} (1 − α^j), i.e. L / (1 − α^k) with L = Π_{j=1..n} (1 − α^j)."""
    out: dict[int, Fraction] = {0: Fraction(1)}
    for j in range(1, n + 1):
        if j != k:
            out = _pmul(out, _one_minus_alpha_power(j))
    return out


def _horner(coeffs: dict[int, Fraction], x: Any, one: Any, conv: Any) -> Any:
    acc = one * 0
    for k in range(max(coeffs, default=0), -1, -1):
        acc = acc * x
        c = coeffs.get(k)
        if c:
            acc = acc + conv(c)
    return acc


@dataclass(frozen=True)
class GeometricNoisyMax(SelectionMechanism):
    """Report-noisy-max with i.i.d. two-sided geometric noise, α = e^(−ε/(2Δ)), uniform ties.

    Args:
        epsilon: ε > 0 (exact).
        sensitivity: Δ > 0 (exact); scores must be integers.
    """

    short_name: ClassVar[str] = "geometric-noisy-max"
    declared_properties: ClassVar[MechanismProperties] = MechanismProperties(
        symmetric=True, shift_invariant=True, monotone=True, integer_scores=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.monotone:
            raise ValueError("monotone: GeometricNoisyMax is defined for general qualities only")

    @staticmethod
    def _integers(q: list[Any]) -> list[int]:
        out = []
        for i, v in enumerate(q):
            r = Real.of(v, f"scores[{i}]")
            if not r.is_rational or r.value.denominator != 1:
                raise ValueError(f"scores[{i}] must be an integer (GeometricNoisyMax has integer noise), got {r}")
            out.append(int(r.value))
        if len(out) > MAX_CANDIDATES:
            raise ValueError(f"scores: {len(out)} entries exceed the limit {MAX_CANDIDATES} of the exact law")
        if max(out) - min(out) > MAX_SPREAD:
            raise ValueError(f"scores: max − min = {max(out) - min(out)} exceeds the limit {MAX_SPREAD} of the exact law")
        return out

    def integer_noise(self) -> IntegerNoise:
        """The law in the terms the lattice proof reads (``dpexact.protocols.IntegerNoisyArgmax``):
        noisy argmax of i.i.d. two-sided geometric noise with α = e^(−ε/(2Δ)), uniform ties."""
        return IntegerNoise(rate=self.epsilon / (self.sensitivity * 2))

    def _alpha(self, backend: Any) -> Any:
        return backend.exp(backend.from_real(-self.epsilon / (self.sensitivity * 2)))

    def pmf_backend(self, q: list[Real], backend: Any, method: str | None) -> Pmf:
        if method not in (None, "exact-law"):
            raise ValueError(f"method must be 'exact-law', got {method!r}")
        ints = self._integers(q)
        if len(ints) == 1:
            one = backend.from_int(1)
            return Pmf((one,), str(backend), "exact-law", 0.0, 0.0, "exact" if backend.name == "exact" else "rigorous")
        nums, den = exact_law(ints)
        a = self._alpha(backend)
        if backend.name == "exact":
            return self._exact(nums, den, a)
        one = backend.from_int(1)
        conv = (lambda c: backend.from_real(Real.of(c)))
        d = _horner(den, a, one, conv)
        vals = [_horner(nr, a, one, conv) / d for nr in nums]
        if backend.name == "ball":
            rads = [float(v.rad()) for v in vals]
            rel = max((r / abs(float(v.mid())) for r, v in zip(rads, vals) if float(v.mid()) != 0), default=0.0)
            return Pmf(tuple(vals), str(backend), "exact-law", rel, max(rads), "rigorous")
        est = 10.0 ** (-backend.dps + 4)
        return Pmf(tuple(vals), str(backend), "exact-law", est, est, "estimate")

    @staticmethod
    def _exact(nums: list[dict[int, Fraction]], den: dict[int, Fraction], a: Any) -> Pmf:
        """N_r(α)/Den(α): rationals (fmpq) when α is rational (ε/(2Δ) a rational multiple of a log), else sympy."""
        import sympy

        if a.is_Rational:
            x = Fraction(int(a.p), int(a.q))
            d = _horner(den, x, Fraction(1), lambda c: c)
            kind, vals = ExactBackend.field([sympy.Rational(v.numerator, v.denominator)
                                             for v in (_horner(nr, x, Fraction(1), lambda c: c) / d for nr in nums)])
        else:
            def expr(p: dict[int, Fraction]) -> Any:
                return sympy.Add(*[sympy.Rational(c.numerator, c.denominator) * a**k for k, c in sorted(p.items())])

            d = expr(den)
            kind, vals = "sympy", [expr(nr) / d for nr in nums]
        return Pmf(tuple(vals), "exact", "exact-law", 0.0, 0.0, "exact", details={"field": kind})

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        exact = [Real.of(float(v)) for v in q]
        for prec in (128, 512):  # cancellation in N_r(α) is absorbed by the ball radius
            be = BallBackend(prec)
            with be.context():
                ball = self.pmf_backend(exact, be, method)
            if max(float(v.rad()) for v in ball.values) <= 2.0**-70 * max(float(v.mid()) for v in ball.values):
                break
        mids = np.array([float(v.mid()) for v in ball.values])
        rads = np.array([float(v.rad()) for v in ball.values])
        rel = max((r / m for r, m in zip(rads, mids) if m > 0), default=0.0) + 2.0**-53
        return Pmf(mids, "float", "exact-law (ball, rounded)", rel_error=rel,
                   abs_error=float(rads.max()) + 2.0**-53 * float(mids.max()), error_kind="rigorous")

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        """The algorithm itself: Z = G1 − G2 (i.i.d. geometric, ratio α), argmax, uniform ties."""
        ints = np.array(self._integers(list(q)), dtype=np.int64)
        alpha = math.exp(-(self.epsilon / (self.sensitivity * 2)).to_float())
        shape = (size, ints.size)
        z = rng.geometric(1 - alpha, shape) - rng.geometric(1 - alpha, shape)
        y = ints + z
        ties = y == y.max(axis=1, keepdims=True)
        keys = rng.random(shape) * ties  # uniform among the maximisers (keys > 0 a.s. on ties only)
        return np.argmax(keys, axis=1).astype(np.int64)
