"""Exact privacy-loss checks on lattice inputs, as rational functions of ``t = e^{-ε/L}``.

On rational score vectors the pmfs of EM (pf Def. 4) and PF (pf Lemma 2) are rational
functions of the weights ``exp(c(q_r - q*))``, ``c = ε/(2Δ)`` (or ε/Δ): every exponential is
``exp(k ε)`` with a rational k. With ``L`` the least common denominator of the k's (and of the
1 in ``e^ε``), ``t = e^{-ε/L}`` turns ``exp(kε)`` into ``t^{-kL}`` and

    e^ε Pr[M(q')=r] - Pr[M(q)=r] = N(t) / D(t),      N, D ∈ Q[t]

(pf §3.1 works on the 2Δ-lattice, where L = 1 and t = e^{-ε}). The inequality
``Pr[M(q)=r] <= e^ε Pr[M(q')=r]`` holds for every ε in ``[ε_lo, ε_hi]`` iff ``N·D >= 0`` on
``[e^{-ε_hi/L}, e^{-ε_lo/L}]``: we isolate the real roots of ``N·D`` there (sympy's exact
real-root isolation) and test the sign between them at rational points.

The same substitution with a *numerical* rational ε (``u = e^{1/L}``) gives an exact zero test
(:func:`~dpexact.numbers.exp_lattice.is_identically_zero`): ``e^{1/L}`` is transcendental (Lindemann), so a rational
function of it vanishes iff its numerator polynomial is the zero polynomial.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from ...numbers.exp_lattice import eps_symbol, to_lattice_rational

__all__ = ["RatioIntervalResult", "ratio_on_interval"]

@dataclass(frozen=True)
class RatioIntervalResult:
    """Outcome of :func:`ratio_on_interval`.

    Attributes:
        holds: ``True`` if ``Pr[M(q)=r] <= e^ε Pr[M(q')=r]`` for every ε in the interval,
            ``False`` if a witness was found, ``None`` if undecided.
        L: the lattice denominator (``t = e^{-ε/L}``).
        numerator: ``N(t)`` as a string; ``degree`` its degree; ``roots_in_interval`` the number
            of real roots of ``N·D`` isolated in the (outer) t-interval.
        witness_epsilon: an exact ε inside the interval where the inequality fails
            (``"L*log(1/t0)"``), or ``None``.
        tight: ``N`` is the zero polynomial (equality for every ε).
    """

    holds: bool | None
    L: int
    numerator: str
    degree: int
    roots_in_interval: int
    witness_epsilon: str | None
    tight: bool


def _arb_point_fraction(x: Any) -> tuple[int, int]:
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return (m * 2**e, 1) if e >= 0 else (m, 2 ** (-e))


def _simple_point(x: Any, G: Any, lo: Any, hi: Any) -> Any:
    """A rational with a small denominator near ``x`` where ``G < 0`` inside ``[lo, hi]`` (else ``x``)."""
    import sympy

    f = Fraction(int(x.p), int(x.q))
    for d in (10, 100, 1000, 10**4, 10**6):
        c = f.limit_denominator(d)
        y = sympy.Rational(c.numerator, c.denominator)
        if lo <= y <= hi and G.eval(y) < 0:
            return y
    return x


def ratio_on_interval(
    mechanism_name: str,
    q: Sequence[Any],
    q2: Sequence[Any],
    r: int,
    eps_lo: Any,
    eps_hi: Any,
    params: Mapping[str, Any] | None = None,
) -> RatioIntervalResult:
    """Decide ``Pr[M(q)=r] <= e^ε Pr[M(q2)=r]`` for all ε in ``[eps_lo, eps_hi]`` exactly.

    The mechanism is built from the registry with a *symbolic* ε (positive sympy symbol) and
    must support the exact backend with symbolic parameters (EM, PF do). ``eps_lo``/``eps_hi``
    are exact reals with ``0 < eps_lo <= eps_hi``; ``params``: the mechanism's other parameters.
    """
    import sympy

    from ...numbers.backends import ball_context

    from ...mechanisms.registry import mechanism_from_params
    from ...mechanisms.validation import positive_real
    from ...numbers.backends import exact_sympy
    from ..neighbourhoods import as_vector

    lo_r, hi_r = positive_real(eps_lo, "eps_lo"), positive_real(eps_hi, "eps_hi")
    if (hi_r - lo_r).sign() < 0:
        raise ValueError(f"eps_lo must be <= eps_hi, got [{lo_r}, {hi_r}]")
    a, b = as_vector(q), as_vector(q2, "q2")
    if len(a) != len(b):
        raise ValueError("q and q2 must have the same length")
    if not 0 <= r < len(a):
        raise ValueError(f"r must be an index in 0..{len(a) - 1}, got {r}")
    eps = eps_symbol()
    mech = mechanism_from_params(mechanism_name, {**(params or {}), "epsilon": eps})
    p1 = exact_sympy(mech.pmf(list(a), backend="exact").values[r])
    p2 = exact_sympy(mech.pmf(list(b), backend="exact").values[r])
    F = sympy.exp(eps) * p2 - p1
    res = to_lattice_rational(F, eps, extra=(Fraction(1),))
    if res is None:
        raise ValueError(f"{mechanism_name}: the pmf is not a rational function of exp(k·ε) on these scores")
    num, den, L = res
    t = sympy.Symbol("t", positive=True)
    if num == 0:
        return RatioIntervalResult(True, L, "0", -1, 0, None, True)
    G = sympy.Poly(sympy.expand(num * den), t)
    # outer rational enclosure of the t-interval [e^{-hi/L}, e^{-lo/L}]
    with ball_context(256):
        t_lo_b = (-hi_r.to_arb(256) / L).exp()
        t_hi_b = (-lo_r.to_arb(256) / L).exp()
        tl = Fraction(*_arb_point_fraction(t_lo_b.lower()))
        th = Fraction(*_arb_point_fraction(t_hi_b.upper()))
        # inner enclosure: witnesses are taken from here so that their ε lies in the interval
        il = Fraction(*_arb_point_fraction(t_lo_b.upper()))
        ih = Fraction(*_arb_point_fraction(t_hi_b.lower()))
    S = sympy.Rational(tl.numerator, tl.denominator)
    T = sympy.Rational(th.numerator, th.denominator)
    Dpoly = sympy.Poly(den, t)
    if Dpoly.count_roots(S, T) > 0:
        return RatioIntervalResult(None, L, str(num), sympy.Poly(num, t).degree(), -1, None, False)
    roots = G.intervals(inf=S, sup=T)
    cuts = sorted({S, T} | {sympy.Rational(x) for (iv, _) in roots for x in iv})
    cuts = [c for c in cuts if S <= c <= T]
    tests = [(cuts[i] + cuts[i + 1]) / 2 for i in range(len(cuts) - 1)] + cuts
    bad = [x for x in tests if G.eval(x) < 0]
    holds: bool | None = not bad
    witness = None
    if bad:
        inner = [x for x in bad if sympy.Rational(il.numerator, il.denominator) <= x <= sympy.Rational(ih.numerator, ih.denominator)]
        if inner:
            t0 = _simple_point(inner[0], G, sympy.Rational(il.numerator, il.denominator), sympy.Rational(ih.numerator, ih.denominator))
            witness = f"{L}*log({1 / t0})"
        else:
            holds = None  # a sign change only in the rounding sliver outside the true interval
    return RatioIntervalResult(holds, L, str(num), sympy.Poly(num, t).degree(), len(roots), witness, False)
