"""The one integral behind every sparse-vector law: threshold noise against Laplace tails.

With threshold noise ``ρ ~ Lap(b1)`` and query noise ``ν_i ~ Lap(b2)``, query i answers ⊤
iff ``q_i + ν_i >= T + ρ``. Given ρ the answers are independent, so a ⊤/⊥ pattern (or one
segment of it, for the resampling variant) has probability

    P = ∫ f_ρ(ρ) · Π_{i ∈ ⊤} S(ρ - d_i) · Π_{i ∈ ⊥} (1 - S(ρ - d_i)) dρ,
    d_i = q_i - T,   S(x) = Pr[ν >= x] = ½e^{-x/b2} (x >= 0),  1 - ½e^{x/b2} (x < 0)

(Lyu, Su & Li 2017, proof of Theorem 2). In the unit ``u = ρ/b2`` (``δ_i = d_i/b2``,
``k = b2/b1``) the density is ``(k/2)·e^{-k|u|}`` and every factor is a Laurent polynomial
of degree ≤ 1 in ``e^u`` on each side of its breakpoint ``δ_i``. Between consecutive
breakpoints (the ``δ_i`` and 0) the integrand is therefore ``Σ_j p_j e^{(j ± k)u}``, and
each term integrates in closed form: ``∫_a^b e^{κu} du = (e^{κb} - e^{κa})/κ`` (``b - a`` if
κ = 0). The integral is exact — a finite sum of ``c·e^{r}`` — as soon as ``k`` and the δ_i
are rational (:class:`~dpexact.numbers.exp_sum.ExpSum`), and a rigorous ball otherwise
(every operation is an arb operation).

``upper`` truncates the integral at ``u <= upper`` — the event ``min_{⊤} v_i >= T + ρ`` of
the variant that releases the noisy answers (Lyu et al. Algorithm 3).

The noiseless variant (``ν = 0``, Lyu et al. Algorithm 5) needs no integral:
``P = F_ρ(min_⊤ d_i) - F_ρ(max_⊥ d_i)`` when positive, else 0 (:func:`noiseless_segment`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from ...numbers.real import Real

__all__ = ["Ops", "ball_ops", "exact_ops", "laurent_segment", "noiseless_segment"]


@dataclass(frozen=True)
class Ops:
    """The three operations the integral needs, in one number system.

    ``const(x)`` and ``exp(x)`` take an exact :class:`Real` (or Fraction) and return a number
    of the system (arb ball, or ExpSum); ``+``, ``-``, ``*`` are the numbers' own operators.
    """

    name: str
    const: Callable[[Any], Any]
    exp: Callable[[Any], Any]


def ball_ops(prec: int) -> Ops:
    """Rigorous arb arithmetic at ``prec`` bits (call inside a flint precision context)."""
    from flint import arb

    def const(x: Any) -> Any:
        if isinstance(x, Fraction):
            return arb(x.numerator) / x.denominator
        r = Real.of(x)
        if r.is_rational:
            f = r.value
            return arb(f.numerator) / f.denominator
        return r.to_arb(prec)

    def exp(x: Any) -> Any:
        return const(x).exp()

    return Ops(f"ball:{prec}", const, exp)


def exact_ops() -> Ops:
    """Exact arithmetic in ``Q[exp(Q)]``: every argument must be rational."""
    from ...numbers.exp_sum import ExpSum

    def rat(x: Any) -> Fraction:
        r = Real.of(x)
        if not r.is_rational:
            raise ValueError(f"exact backend: the sparse-vector law needs rational epsilon, threshold, sensitivity and queries, got {r}")
        return r.value

    return Ops("exact", lambda x: ExpSum.const(rat(x)), lambda x: ExpSum.exp(rat(x)))


def _mul_linear(poly: dict[int, Any], lin: dict[int, Any]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for j, c in poly.items():
        for d, e in lin.items():
            v = c * e
            out[j + d] = out[j + d] + v if (j + d) in out else v
    return out


def laurent_segment(
    ops: Ops,
    k: Fraction,
    factors: Sequence[tuple[Real, bool]],
    upper: Real | None = None,
) -> Any:
    """``∫_{u <= upper} (k/2) e^{-k|u|} Π_i g_i(u) du`` with ``g_i`` the ⊤ (True) or ⊥ tail.

    Args:
        ops: the number system (:func:`ball_ops` or :func:`exact_ops`).
        k: ``b2/b1`` (a positive rational).
        factors: ``(δ_i, is_top)`` with ``δ_i = (q_i - T)/b2`` exact.
        upper: truncation point in u (``None``: the whole line).
    """
    if not isinstance(k, Fraction) or k <= 0:
        raise ValueError(f"k must be a positive Fraction, got {k!r}")
    deltas = [_plain(d) for d, _ in factors]
    up = None if upper is None else _plain(upper)
    pts: list = sorted({x for x in deltas + [Fraction(0)] if up is None or x < up})
    if up is not None:
        pts.append(up)
    # factor i is "right" (u >= δ_i) on piece p iff p > position of δ_i (integer comparisons)
    pos = {x: i for i, x in enumerate(pts)}
    where = [pos.get(d, len(pts)) for d in deltas]  # δ_i >= upper: left on every piece
    # pieces p = 0..P-1 between pts[p-1] and pts[p] (p = 0: -inf; p = len(pts): +inf if no upper)
    n_pieces = len(pts) + (1 if up is None else 0)
    zero_at = pos.get(Fraction(0), None)
    e_pos = [ops.exp(d) for d in deltas]
    e_neg = [ops.exp(-d) for d in deltas]
    half = ops.const(Fraction(1, 2))
    one = ops.const(1)
    top_right = [half * e for e in e_pos]
    top_left1 = [-(half * e) for e in e_neg]
    bot_right1 = [-(half * e) for e in e_pos]
    bot_left = [half * e for e in e_neg]
    total = None
    exp_cache: dict = {}
    inv_cache: dict = {}

    def e_at(j: int, s: int, p: int, kappa: Fraction) -> Any:
        key = (j, s, p)
        v = exp_cache.get(key)
        if v is None:
            v = exp_cache[key] = ops.exp(kappa * pts[p])
        return v

    def inv(j: int, s: int, kappa: Fraction) -> Any:
        key = (j, s)
        v = inv_cache.get(key)
        if v is None:
            v = inv_cache[key] = ops.const(1 / kappa)
        return v

    for p in range(n_pieces):
        a_idx = p - 1 if p > 0 else None  # index in pts of the left end
        b_idx = p if p < len(pts) else None
        poly: dict[int, Any] = {0: one}
        for i, (_, top) in enumerate(factors):
            right = a_idx is not None and a_idx >= where[i]
            if top:
                lin = {-1: top_right[i]} if right else {0: one, 1: top_left1[i]}
            else:
                lin = {0: one, -1: bot_right1[i]} if right else {1: bot_left[i]}
            poly = _mul_linear(poly, lin)
        # e^{+ku} left of 0, e^{-ku} right of 0 (0 is a breakpoint unless cut off by upper)
        s = 1 if (b_idx is not None and (zero_at is None or b_idx <= zero_at)) else -1
        for j, c in poly.items():
            kappa = j + s * k
            if kappa == 0:
                if a_idx is None or b_idx is None:
                    raise ArithmeticError("divergent piece: the integrand is not integrable (internal error)")
                term = c * ops.const(pts[b_idx] - pts[a_idx])
            elif a_idx is None:
                if kappa < 0:
                    raise ArithmeticError("divergent left tail (internal error)")
                term = c * e_at(j, s, b_idx, kappa) * inv(j, s, kappa)
            elif b_idx is None:
                if kappa > 0:
                    raise ArithmeticError("divergent right tail (internal error)")
                term = -(c * e_at(j, s, a_idx, kappa) * inv(j, s, kappa))
            else:
                term = c * (e_at(j, s, b_idx, kappa) - e_at(j, s, a_idx, kappa)) * inv(j, s, kappa)
            total = term if total is None else total + term
    if total is None:
        return ops.const(0)
    return total * ops.const(k / 2)


def _plain(x: Any) -> Any:
    """A Fraction when the exact value is rational (fast arithmetic), else the Real itself."""
    r = Real.of(x)
    return r.value if r.is_rational else r


def laplace_cdf(ops: Ops, x: Real, b: Real) -> Any:
    """``Pr[Lap(b) <= x]`` exactly/rigorously: ``½e^{x/b}`` for x < 0, ``1 - ½e^{-x/b}`` otherwise."""
    if x < 0:
        return ops.const(Fraction(1, 2)) * ops.exp(x / b)
    return ops.const(1) - ops.const(Fraction(1, 2)) * ops.exp(-x / b)


def noiseless_segment(ops: Ops, b1: Real, factors: Sequence[tuple[Real, bool]]) -> Any:
    """Pattern probability without query noise: ``Pr[max_⊥ d_i < ρ <= min_⊤ d_i]``, ``ρ ~ Lap(b1)``.

    ``factors`` are ``(d_i, is_top)`` with ``d_i = q_i - T`` (query i answers ⊤ iff ``ρ <= d_i``).
    """
    tops = [Real.of(d) for d, t in factors if t]
    bots = [Real.of(d) for d, t in factors if not t]
    hi = min(tops) if tops else None
    lo = max(bots) if bots else None
    if hi is not None and lo is not None and not lo < hi:
        return ops.const(0)
    F_hi = ops.const(1) if hi is None else laplace_cdf(ops, hi, b1)
    F_lo = ops.const(0) if lo is None else laplace_cdf(ops, lo, b1)
    return F_hi - F_lo


def laurent_patterns(ops: Ops, k: Fraction, deltas: Sequence[Any], patterns: Sequence[str]) -> list[Any]:
    """:func:`laurent_segment` for many ⊤/⊥ patterns over the same ``δ_i`` at once.

    Pattern ``a`` uses the factors ``(δ_i, a_i == "T")`` for ``i < len(a)``. The pieces are cut at
    every ``δ_i`` and 0 (extra cuts do not change an integral), and on each piece the Laurent
    products are built along the trie of the patterns, so a shared prefix is multiplied once.
    """
    if not isinstance(k, Fraction) or k <= 0:
        raise ValueError(f"k must be a positive Fraction, got {k!r}")
    ds = [_plain(d) for d in deltas]
    pts: list = sorted(set(ds) | {Fraction(0)})
    pos = {x: i for i, x in enumerate(pts)}
    where = [pos[d] for d in ds]
    zero_at = pos[Fraction(0)]
    half = ops.const(Fraction(1, 2))
    one = ops.const(1)
    e_pos = [ops.exp(d) for d in ds]
    e_neg = [ops.exp(-d) for d in ds]
    top_right = [{-1: half * e} for e in e_pos]
    top_left = [{0: one, 1: -(half * e)} for e in e_neg]
    bot_right = [{0: one, -1: -(half * e)} for e in e_pos]
    bot_left = [{1: half * e} for e in e_neg]
    totals: list[Any] = [None] * len(patterns)
    exp_cache: dict = {}
    inv_cache: dict = {}

    def e_at(j: int, s: int, p: int, kappa: Fraction) -> Any:
        v = exp_cache.get((j, s, p))
        if v is None:
            v = exp_cache[(j, s, p)] = ops.exp(kappa * pts[p])
        return v

    def inv(j: int, s: int, kappa: Fraction) -> Any:
        v = inv_cache.get((j, s))
        if v is None:
            v = inv_cache[(j, s)] = ops.const(1 / kappa)
        return v

    for p in range(len(pts) + 1):
        a_idx = p - 1 if p > 0 else None
        b_idx = p if p < len(pts) else None
        s = 1 if (b_idx is not None and b_idx <= zero_at) else -1
        term_cache: dict = {}

        def integral(j: int) -> Any:  # ∫_piece e^{(j + s k) u} du
            v = term_cache.get(j)
            if v is None:
                kappa = j + s * k
                if kappa == 0:
                    if a_idx is None or b_idx is None:
                        raise ArithmeticError("divergent piece (internal error)")
                    v = ops.const(pts[b_idx] - pts[a_idx])
                elif a_idx is None:
                    v = e_at(j, s, b_idx, kappa) * inv(j, s, kappa)
                elif b_idx is None:
                    v = -(e_at(j, s, a_idx, kappa) * inv(j, s, kappa))
                else:
                    v = (e_at(j, s, b_idx, kappa) - e_at(j, s, a_idx, kappa)) * inv(j, s, kappa)
                term_cache[j] = v
            return v

        def walk(i: int, poly: dict, group: list[int]) -> None:
            tops, bots = [], []
            for g in group:
                a = patterns[g]
                if len(a) == i:
                    val = None
                    for j, c in poly.items():
                        t = c * integral(j)
                        val = t if val is None else val + t
                    totals[g] = val if totals[g] is None else totals[g] + val
                elif a[i] == "T":
                    tops.append(g)
                else:
                    bots.append(g)
            right = a_idx is not None and a_idx >= where[i] if (tops or bots) else False
            if tops:
                walk(i + 1, _mul_linear(poly, top_right[i] if right else top_left[i]), tops)
            if bots:
                walk(i + 1, _mul_linear(poly, bot_right[i] if right else bot_left[i]), bots)

        walk(0, {0: one}, list(range(len(patterns))))
    scale = ops.const(k / 2)
    return [t * scale for t in totals]
