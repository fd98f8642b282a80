"""Exact pmf of report noisy max with exponential noise, by exact integration of its definition.

Definition (hetsel eq. (3); pf Appendix F's integral): ``Y_s = q_s + Z_s`` with independent
``Z_s ~ Exp(λ_s)`` (rate ``λ_s = 1/b_s``, mean ``b_s``; ``b = 2Δ/ε``, or ``Δ/ε`` when monotone,
or the per-candidate ``scales``), and ``M(q) = argmax_s Y_s``. With ``f_r``, ``F_s`` the
density and cdf of ``Y_r``, ``Y_s``:

    Pr[M(q) = r] = ∫ f_r(y) ∏_{s≠r} F_s(y) dy,
    f_r(y) = λ_r e^{-λ_r (y - q_r)} [y >= q_r],   F_s(y) = (1 - e^{-λ_s (y - q_s)}) [y >= q_s].

Every factor vanishes below its own score, so the integrand is zero for ``y < q* = max_s q_s``
and, on the single piece ``[q*, ∞)``, is an exponential polynomial in ``y``: with
``d_s = q* - q_s >= 0`` and ``A_s = e^{-λ_s d_s}``,

    ∏_{s≠r} (1 - A_s e^{-λ_s (y - q*)}) = Σ_{S ⊆ [n]∖{r}} (-1)^{|S|} e^{-Σ_S λ_s d_s} e^{-κ_S (y - q*)},

``κ_S = Σ_{s∈S} λ_s``, and each term integrates exactly against ``f_r``:

    ∫_{q*}^∞ λ_r e^{-λ_r (y - q_r)} e^{-κ (y - q*)} dy = λ_r e^{-λ_r d_r} / (λ_r + κ).

The 2^(n-1) subsets are never enumerated: the product is expanded factor by factor into a
polynomial whose terms are keyed by ``(κ, E)`` (``E = Σ_S λ_s d_s``), with integer
coefficients. For a common rate ``λ`` this is the polynomial in ``t = e^{-λ(y - q*)}`` whose
coefficient of ``t^k`` collects the subsets of size ``k`` by their weight ``e^{-λ Σ_S d_s}``:
on scores in a lattice of step ``h`` there are at most ``n · (Σ_s d_s/h + 1)`` keys, so the
cost is polynomial in ``n`` and the score range. The number of keys is bounded by
:data:`MAX_TERMS` (``ValueError`` beyond).

Result: ``Pr[M(q) = r] = Σ_{(κ, E)} c_{κ,E} · λ_r/(λ_r + κ) · e^{-(λ_r d_r + E)}`` — a sum of
rational multiples of exponentials of rationals whenever ε, Δ (or the scales) and the
scores are rational, returned as a sympy expression with terms grouped by exponent.
(Permute-and-flip has the same law for a common rate; that identity is used only as a test.)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..numbers.real import Real
from ..numbers.backends import ball_context, exact_sympy

__all__ = ["rnm_exponential_exact", "rnm_exponential_ball", "MAX_TERMS", "BALL_TERMS"]

#: largest number of (κ, E) terms of the expanded product kept for one candidate
MAX_TERMS = 200_000
#: the ball closed form is used up to this many terms per candidate (beyond: the quadrature is faster)
BALL_TERMS = 4096


def _values(xs: list[Real]) -> tuple[list[Any], bool]:
    """Raw exact values: Fractions when every x is rational, else sympy expressions."""
    if all(x.is_rational for x in xs):
        return [x.value for x in xs], True
    return [x.to_sympy() for x in xs], False


def _expansion(q: list[Real], scales: list[Real], max_terms: int | None = None) -> tuple[list[dict], dict, bool]:
    """Per candidate r, ``{E: c}`` with ``Pr[M(q) = r] = Σ c·e^{-E}`` (exact raw values), diagnostics, rationality."""
    import sympy

    if max_terms is None:
        max_terms = MAX_TERMS
    n = len(q)
    if len(scales) != n:
        raise ValueError(f"scales has {len(scales)} entries but scores has {n}")
    rat = _rational_inputs(q, scales)
    if rat is not None:
        d, lam, rational = rat[0], rat[1], True
    else:
        top = max(q)
        raw, rational = _values([top - x for x in q] + [Real.of(1) / b for b in scales])
        d, lam = raw[:n], raw[n:]
    if rational:
        sums, largest = _expansion_rational(tuple(d), tuple(lam), max_terms)
        return list(sums), {"terms": largest}, True
    zero = sympy.Integer(0)
    out: list[dict] = []
    largest = 1
    for r in range(n):
        # expand ∏_{s≠r} (1 - A_s e^{-λ_s (y - q*)}) as {(κ, E): integer coefficient}
        poly: dict[tuple[Any, Any], int] = {(zero, zero): 1}
        for s in range(n):
            if s == r:
                continue
            shifted = {}
            ls, es = lam[s], lam[s] * d[s]
            for (k, e), c in poly.items():
                key = (k + ls, e + es)
                shifted[key] = shifted.get(key, 0) - c
            for key, c in shifted.items():
                v = poly.get(key, 0) + c
                if v:
                    poly[key] = v
                else:
                    poly.pop(key, None)
            if len(poly) > max_terms:
                raise ValueError(f"scores: the exact RNM expansion exceeds {max_terms} terms "
                                 "(scores far from a common lattice); use backend='ball'")
        largest = max(largest, len(poly))
        # integrate term by term against f_r; group by the total exponent λ_r d_r + E
        by_exp: dict[Any, Any] = {}
        lr, base = lam[r], lam[r] * d[r]
        for (k, e), c in poly.items():
            coef = c * lr / (lr + k)
            key = base + e
            by_exp[key] = by_exp.get(key, 0) + coef
        out.append({e: c for e, c in by_exp.items() if c != 0})
    return out, {"terms": largest}, rational


def _rational_inputs(q: list[Real], scales: list[Real]) -> tuple[tuple, tuple] | None:
    """The gaps ``q* - q_s`` and rates ``1/b_s`` as Fractions when every input is rational, else None."""
    if not (all(x.is_rational for x in q) and all(b.is_rational for b in scales)):
        return None
    top = max(x.value for x in q)
    return tuple(top - x.value for x in q), tuple(1 / b.value for b in scales)


#: rational expansions kept for reuse (a verify asks for the same shifted vectors many times)
_CACHE: dict[tuple, tuple[tuple[dict, ...], int]] = {}
_CACHE_ENTRIES = 4096
_CACHE_TERMS = 20_000  # larger expansions are not kept
#: ball values of a cached expansion, by its terms and the precision asked for
_BALL_CACHE: dict[tuple, tuple[tuple, dict]] = {}


def _expansion_rational(d: tuple[Fraction, ...], lam: tuple[Fraction, ...], max_terms: int) -> tuple[tuple[dict, ...], int]:
    """:func:`_expansion` for rational gaps ``d`` and rates ``λ`` in integer arithmetic.

    With ``D_κ`` and ``D_E`` the common denominators of the rates and of the products ``λ_s d_s``,
    a term ``(κ, E)`` is the integer pair ``(κ D_κ, E D_E)`` packed into one integer
    ``κ D_κ · M + E D_E`` (``M`` above every reachable ``E D_E``), so the expansion hashes and adds
    machine-size integers only; ``λ_r/(λ_r + κ) = λ_r D_κ / (λ_r D_κ + κ D_κ)`` and the terms of
    one exponent are summed per denominator before a single Fraction is formed. Results depend
    only on the gaps (a shift of the scores reuses them) and are cached.
    """
    key = (d, lam, max_terms)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    n = len(d)
    e_raw = [l * g for l, g in zip(lam, d)]
    Dk = math.lcm(*(l.denominator for l in lam))
    De = math.lcm(*(e.denominator for e in e_raw))
    kap = [l.numerator * (Dk // l.denominator) for l in lam]
    ei = [e.numerator * (De // e.denominator) for e in e_raw]
    M = sum(ei) + 1
    shift = [k * M + e for k, e in zip(kap, ei)]
    out: list[dict] = []
    largest = 1
    for r in range(n):
        poly: dict[int, int] = {0: 1}
        for s in range(n):
            if s == r:
                continue
            sh = shift[s]
            new = dict(poly)
            get = new.get
            for key2, c in poly.items():
                k2 = key2 + sh
                v = get(k2, 0) - c
                if v:
                    new[k2] = v
                else:
                    del new[k2]
            poly = new
            if len(poly) > max_terms:
                raise ValueError(f"scores: the exact RNM expansion exceeds {max_terms} terms "
                                 "(scores far from a common lattice); use backend='ball'")
        largest = max(largest, len(poly))
        lr, base = kap[r], ei[r]
        acc: dict[int, dict[int, int]] = {}
        for key2, c in poly.items():
            k, e = divmod(key2, M)
            per = acc.setdefault(base + e, {})
            per[lr + k] = per.get(lr + k, 0) + c * lr
        by_exp: dict[Fraction, Fraction] = {}
        for e, per in acc.items():
            v = sum((Fraction(num, den) for den, num in per.items() if num), Fraction(0))
            if v:
                by_exp[Fraction(e, De)] = v
        out.append(by_exp)
    res = (tuple(out), largest)
    if sum(len(o) for o in out) <= _CACHE_TERMS:
        if len(_CACHE) >= _CACHE_ENTRIES:
            _CACHE.pop(next(iter(_CACHE)))  # the oldest entry
        _CACHE[key] = res
    return res


def rnm_exponential_exact(q: list[Real], scales: list[Real]) -> tuple[list[Any], dict]:
    """Exact ``Pr[argmax_s (q_s + Z_s) = r]``, ``Z_s ~ Exp(1/b_s)``, for every r (sympy values).

    Args:
        q: exact scores.
        scales: exact noise scales ``b_s > 0`` (means of the exponential noise).

    Returns:
        the probabilities (sympy expressions; rationals times ``exp`` of rationals when all
        inputs are rational) and diagnostics (``terms``: the largest expansion size).
    """
    import sympy

    if len(q) == 1:
        return [sympy.Integer(1)], {"terms": 1}
    sums, info, _ = _expansion(q, scales)
    out = []
    for by_exp in sums:
        terms = []
        for expo, coef in by_exp.items():
            c_s = sympy.Rational(coef.numerator, coef.denominator) if isinstance(coef, Fraction) else exact_sympy(coef)
            e_s = sympy.Rational(expo.numerator, expo.denominator) if isinstance(expo, Fraction) else exact_sympy(expo)
            terms.append(c_s * sympy.exp(-e_s))
        out.append(sympy.Add(*terms))
    return out, info


def rnm_exponential_ball(q: list[Real], scales: list[Real], prec: int, max_terms: int = BALL_TERMS,
                         target_bits: int = 60, max_prec: int = 4096) -> tuple[list[Any], dict]:
    """The exact closed form evaluated in ball arithmetic (rational scores and scales only).

    The sum has terms of both signs, so the precision is doubled until every value's relative
    radius is below ``2^-target_bits`` (or ``max_prec`` is reached; the ball is rigorous either way).
    ``ValueError`` for irrational inputs or more than ``max_terms`` terms (use the quadrature).
    """
    from flint import arb

    if len(q) == 1:
        return [arb(1)], {"terms": 1}
    key = (_rational_inputs(q, scales), max_terms, prec, target_bits, max_prec)
    hit = _BALL_CACHE.get(key) if key[0] is not None else None
    if hit is not None:
        return list(hit[0]), dict(hit[1])
    sums, info, rational = _expansion(q, scales, max_terms)
    if not rational:
        raise ValueError("scores: the ball closed form needs rational scores and scales")
    from flint import fmpq

    p = prec
    while True:
        with ball_context(p):
            # every exponent once (the candidates share most of them)
            powers = {e: (-arb(fmpq(e.numerator, e.denominator))).exp() for e in set().union(*sums)}
            vals = []
            for by_exp in sums:
                acc = arb(0)
                for e, c in by_exp.items():
                    acc += arb(fmpq(c.numerator, c.denominator)) * powers[e]
                vals.append(acc)
        if p >= max_prec or all(v.rad() <= abs(v.mid()) * 2.0**-target_bits for v in vals):
            out = (tuple(vals), {**info, "prec": p})
            if len(_BALL_CACHE) >= _CACHE_ENTRIES:
                _BALL_CACHE.pop(next(iter(_BALL_CACHE)))
            if sum(len(s) for s in sums) <= _CACHE_TERMS:
                _BALL_CACHE[key] = out
            return list(out[0]), dict(out[1])
        p *= 2
