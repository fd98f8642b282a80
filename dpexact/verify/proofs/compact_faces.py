"""Ratios, monotonicity tests and exact faces of the compact branch-and-bound.

A *root* is one output ``r``, one chart ``m`` (``q_m`` a largest score, :mod:`.compact_paths`), one half
of the line for ``L = q_m`` and one offset family; its coordinates are σ ∈ [0, 1] per unbounded
log-variable and the offsets ``Z``. On a box of these:

* the ratio ``R = P_i(q)_r / P_j(q')_r`` of a pair of paths is cancelled once (sympy ``cancel`` on a
  guarded expression: :func:`.compact_exact.guard`), so common factors that vanish at a gap at
  infinity are gone and R is continuous on the closed box;
* a coordinate whose partial derivative ``∂R/∂v`` has one sign on the box (Moore, Kearfott & Cloud
  2009 §6, the monotonicity test) is moved to the face where R is largest and substituted exactly
  (``W = 0`` for a gap at infinity, ``Y = e^{±g·Δ}`` for an offset); R is then re-cancelled. A face
  where the reduced fraction has a zero denominator is not used (the coordinate stays free).

Every map σ ↦ algebraic variable is increasing (``W = e^{g·G}``, ``G = K(1 - 1/σ)``; ``Λ = e^{g·L}``;
``M = e^{-g·L}`` on the high half), so a derivative's sign in the algebraic variable is its sign in σ.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .compact_enclosure import arb_eval, finite, iv_q
from .compact_exact import check_deadline, guard
from .compact_paths import ChartLaw, ext_interval, possible_signs

__all__ = ["Root", "m_symbol", "ratio", "faces", "alg_env", "log_interval", "possible", "log_value"]


@dataclass
class Root:
    """One output, chart, half-line and offset family of the compact domain (module docstring)."""

    r: int
    m: int
    half: str  # "low": L <= 0 (Λ ∈ [0, 1]); "high": L >= 0 (M = 1/Λ ∈ [0, 1])
    chart: ChartLaw
    coords: list[tuple[str, str]]  # (log-variable name, kind: "L-low" | "L-high" | "G" | "Z")
    ratios: dict = field(default_factory=dict)
    derivs: dict = field(default_factory=dict)

    def symbol(self, c: int) -> Any:
        name, kind = self.coords[c]
        return m_symbol() if kind == "L-high" else self.chart.algvars[name]


@functools.cache
def m_symbol() -> Any:
    """The symbol of ``M = 1/Λ`` (made on first use: sympy stays unimported until the route runs)."""
    import sympy

    return sympy.Symbol("M", nonnegative=True)


def ratio(root: Root, i: int, j: int) -> Any:
    """``cancel(P_i(q)_r / P_j(q')_r)`` in the root's algebraic variables (Λ = 1/M on the high half);
    None when ``P_i(q)_r = 0``; ``oo`` when only ``P_j(q')_r`` is 0."""
    import sympy

    chart = root.chart
    p = chart.paths_q[i].values[root.r]
    p2 = chart.paths_q2[j].values[root.r]
    if p == 0:
        return None
    if p2 == 0:
        return sympy.oo
    R = p / p2
    if root.half == "high":
        R = R.subs(chart.algvars["L"], 1 / m_symbol())
    guard(R, "ratio")
    return sympy.cancel(R)


def substitute(cur: Any, v: Any, value: Any) -> Any:
    """``cur`` at ``v = value``, cancelled; None when the reduced fraction is not finite there (a
    zero denominator: the ratio is unbounded near that face, which is then not used)."""
    import sympy

    bad = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
    nxt = cur.subs(v, value)
    guard(nxt, "substitution")
    out = sympy.cancel(nxt)
    return None if out.has(*bad) else out


def log_value(kind: str, s: Fraction, scale: Fraction) -> Fraction:
    """The log-variable at σ = s (s > 0 for the unbounded kinds): ``K(1 - 1/σ)`` for G and the low
    half of L, ``K(1/σ - 1)`` for the high half, σ itself for an offset."""
    if kind == "Z":
        return s
    return scale * (1 - 1 / s) if kind in ("G", "L-low") else scale * (1 / s - 1)


def alg_exact(root: Root, c: int, s: Fraction, scale: Fraction) -> Any:
    """The exact algebraic value at σ = s (``e^{g·G}``, ``e^{g·L}``, ``e^{-g·L}`` or ``e^{g·Z}``)."""
    import sympy

    name, kind = root.coords[c]
    g = root.chart.scales.get(name, Fraction(1))
    if s == 0 and kind != "Z":
        return sympy.Integer(0)
    x = g * log_value(kind, s, scale) * (-1 if kind == "L-high" else 1)
    return sympy.exp(sympy.Rational(x.numerator, x.denominator))


def alg_env(root: Root, box: tuple, scale: Fraction, fixed: dict) -> dict:
    """``iv`` intervals of the algebraic variables on ``box`` (increasing maps: the ends' images)."""
    from mpmath import iv

    env = {}
    for c, ((name, kind), (lo, hi)) in enumerate(zip(root.coords, box)):
        g = root.chart.scales.get(name, Fraction(1))

        def val(s: Fraction) -> Any:
            if s == 0 and kind != "Z":
                return iv.mpf(0)
            return iv.exp(iv_q(g * log_value(kind, s, scale) * (-1 if kind == "L-high" else 1)))
        a, b = val(lo), val(hi)
        env[root.symbol(c)] = iv.mpf([a.a, b.b])
    return env


def log_interval(kind: str, lo: Fraction, hi: Fraction, scale: Fraction) -> Any:
    """The log-variable's extended-real interval on a σ-interval (module docstring's maps)."""
    inf = float("inf")
    if kind == "Z":
        return ext_interval(lo, hi)
    if kind == "L-high":  # L = K(1/σ - 1), decreasing in σ
        return ext_interval(scale * (1 / hi - 1) if hi else inf, scale * (1 / lo - 1) if lo else inf)
    return ext_interval(scale * (1 - 1 / lo) if lo else -inf, scale * (1 - 1 / hi) if hi else -inf)


def possible(path: Any, names: list, logs: dict) -> bool:
    """Whether every constraint of ``path`` can hold somewhere on the box (``logs``: log-variable intervals)."""
    return all(allowed & possible_signs(d, names, logs) for d, allowed in path.constraints)


def faces(root: Root, R: Any, box: tuple, scale: Fraction, deadline: float | None) -> tuple[Any, dict, list[int]]:
    """R with every coordinate it does not depend on dropped, every monotone one moved to its largest
    face and substituted exactly (module docstring); ``(R', fixed σ per coordinate, free coordinates)``."""
    cur = R
    fixed: dict[int, Fraction] = {}
    syms = [root.symbol(c) for c in range(len(box))]
    for c, (lo, hi) in enumerate(box):
        if lo == hi and syms[c] in cur.free_symbols:
            nxt = substitute(cur, syms[c], alg_exact(root, c, lo, scale))
            if nxt is not None:
                fixed[c], cur = lo, nxt
    while True:
        check_deadline(deadline)
        free = [c for c in range(len(box)) if c not in fixed and syms[c] in cur.free_symbols]
        if not free:
            return cur, fixed, []
        env = alg_env(root, box, scale, fixed)
        moved = False
        for c in free:
            sign = derivative_sign(cur, syms[c], env, root.derivs)
            if sign:
                end = box[c][1] if sign > 0 else box[c][0]
                nxt = substitute(cur, syms[c], alg_exact(root, c, end, scale))
                if nxt is None:
                    continue
                fixed[c], cur = end, nxt
                moved = True
                break
        if not moved:
            return cur, fixed, free


def derivative_sign(cur: Any, v: Any, env: dict, cache: dict) -> int:
    """+1 / -1 when ``∂cur/∂v`` is >= 0 / <= 0 on the box (weakly: the supremum is then on that
    face), 0 when its sign is not decided. The derivative is cancelled once (guarded), its content taken out,
    and its numerator and denominator enclosed separately (fewer dependencies than the quotient)."""
    import sympy

    key = (cur, v)
    if key not in cache:
        d = sympy.diff(cur, v)
        guard(d, "derivative")
        d = sympy.cancel(d)
        guard(d, "derivative")
        # no full factorisation: sympy's multivariate factor (Wang's algorithm) has no useful cost
        # bound even on small inputs; the content (factor_terms) is what the enclosure needs
        num, den = d.as_numer_denom()
        cache[key] = (sympy.factor_terms(num), sympy.factor_terms(den))
    num, den = cache[key]
    if num == 0:
        return 1
    try:
        a, b = arb_eval(num, env), arb_eval(den, env)
    except (TypeError, ValueError, ZeroDivisionError):
        return 0
    # a denominator that vanishes only on the box's boundary (a factor W at W = 0) leaves the sign
    # in the interior, and the function is continuous on the closed box
    if not (finite(a) and finite(b)) or not ((b.a >= 0 and b.b > 0) or (b.b <= 0 and b.a < 0)):
        return 0
    sa = 1 if a.a >= 0 else -1 if a.b <= 0 else 0
    return sa * (1 if b.b > 0 else -1)
