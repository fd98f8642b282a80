"""Witness families whose log-ratio grows without bound in n: the sparse-vector variants that are ∞-DP.

Lyu, Su & Li (VLDB 2017, §4) show Algorithms 3, 5 and 6 satisfy no finite ε once the number of
queries is free; CheckDP's ``badgapsparsevector`` and ``badadaptivesparsevector`` (Wang et al. CCS
2020) fail the same way. At a stated n their levels are finite (the threshold-shift coupling closes
the bracket: n·Δ/b2 for svt3 and bad-gap-svt, n·ε/2 for svt6, (3n - 2)/80 for bad-adaptive-svt at
ε = 1/10), and grow linearly in n. This module builds, for each, a family of certified witnesses at
every n whose log-ratio is at least a closed form in n that grows without bound, so "level = ∞ over
every n" is a proved claim, and evaluates members from the mechanism's own law at several n.

With ``x_i = T + ρ - q_i`` and ``F`` the Laplace cdf of scale b (``F(x) = e^{x/b}/2`` for ``x <= 0``):

* **Released answer (svt3, bad-gap-svt; any cutoff)** — pattern ``⊥^{n-1} ⊤``; ⊥ queries at ``T + L``
  moved up by Δ, the ⊤ query at ``T - L`` moved down by Δ, its released value ``v`` in the box
  ``[T - L, T - L + w]`` (``0 < w <= L``). The ⊤ event is ``ρ <= v - T <= -L + w <= 0``, so on the whole
  integration range every ⊥ factor is ``F(ρ - L) = e^{(ρ - L)/b2}/2`` exactly and q' multiplies it by
  ``e^{-Δ/b2}``; the released density ratio is ``e^{Δ/b2}`` on the box. The verifier's certified box
  ratio (the box law's lower end under q over its upper end under q', :meth:`SVT3.part_box_probability`)
  is then, with ``r = 1/b1 + (n-1)/b2`` (the threshold density is ``e^{ρ/b1}/(2 b1)`` for ``ρ <= 0``),

      log-ratio(n) = n·Δ/b2 - w·r = n·(Δ - w)/b2 + w/b2 - w/b1        (an identity, every n)

  svt34-parallel: the same event for its svt3 component times every svt4 output (independent noise:
  the pair's probabilities are the component's).
* **Released noisy answer tied to the threshold (bad-adaptive-svt)** — the same placement with the
  box ``[lo, lo + w]``, ``lo = min(T, 0) - L``: the released value is negative, so only the first branch
  (``q + η3``, released when ``ρ <= v - T - σ``) produces it; on that range each ⊥ factor
  ``Pr[η3 < x + σ]·Pr[η2 < x]`` is exponential in ρ, and the box law's ratio is exactly

      log-ratio(n) = (n - 1)·Δ·(1/b3 + 1/b2) + Δ/b3                    (an identity, every n)

* **Balanced patterns without cutoff (svt6)** — n = 2k, pattern ``⊥^k ⊤^k``, ⊥ queries at ``T + L``
  up by Δ, ⊤ at ``T - L`` down by Δ. Lemma: ``F(ρ - a)·(1 - F(ρ + a)) <= e^{-2a/b}/4`` for every ρ, with
  equality on ``|ρ| <= a`` (in between both factors are exponential; for ``ρ > a`` the product is
  ``e^{-2a/b}/2 · u(1 - u/2)`` with ``u = e^{-(ρ-a)/b} in (0, 1)``, at most ``e^{-2a/b}/4``; ρ < -a by
  symmetry). So ``Pr[o | q] >= (e^{-2L/b2}/4)^k · Pr[|ρ| <= L]`` and ``Pr[o | q'] <= (e^{-2(L+Δ)/b2}/4)^k``:

      log-ratio(n) >= n·Δ/b2 + log(1 - e^{-L/b1})                      (every even n)

  with ``L = 40·b1`` the constant is ``log(1 - e^{-40})``.

Each family is checked at several n from the mechanism's law: the identities by exact equality of
the two :class:`~dpexact.numbers.exp_sum.ExpSum` values (``Pr_q = e^{bound}·Pr_q'``), the inequality
by a 512-bit ball. A family whose check fails at any n is not reported.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Callable

from ...numbers.backends import ball_context
from ...numbers.real import Real
from ...protocols import AnyMechanism
from ..bracket import WitnessFamily

__all__ = ["witness_family", "family_member", "CHECKED_N"]

#: the n at which each family's members are evaluated from the law (balanced: the even ones)
CHECKED_N = (1, 2, 3, 4, 5, 6)
#: released-value box width, in units of Δ
BOX_WIDTH = Fraction(1, 10**6)
#: the balanced family's spread L in threshold-noise scales
BALANCED_SPREAD = 40
_PREC = 512
_LYU = "Lyu, Su & Li, VLDB 2017, §4 (Algorithms 3, 5, 6 are ∞-DP)"

Member = tuple[str, list[Fraction], list[Fraction], Any]  # (pattern, q, q', released-value box or None)


def _affine_text(slope: Fraction, const: Fraction) -> str:
    """``slope*n + const`` as sympy-readable text (``999999/20000000*n``, ``3/80*n - 1/40``)."""
    return f"{slope}*n" + ("" if const == 0 else f" {'+' if const > 0 else '-'} {abs(const)}")


def _rational(*xs: Any) -> list[Fraction] | None:
    rs = [Real.of(x) for x in xs]
    return [r.value for r in rs] if all(r.is_rational for r in rs) else None


class _Family:
    """One family: its members, its closed form, its argument and how a member is evaluated."""

    def __init__(self, m: AnyMechanism, index: str, members: str, bound_text: str, argument: str,
                 member: Callable[[int], Member], bound: Callable[[int], Fraction | None], exact: bool,
                 ns: tuple[int, ...], theorem: str = _LYU, wrap: Callable[[Any], Any] = lambda o: o,
                 log_term: int | None = None) -> None:
        self.m, self.index, self.members, self.bound_text, self.argument = m, index, members, bound_text, argument
        self.member, self.bound, self.exact, self.ns, self.theorem, self.wrap = member, bound, exact, ns, theorem, wrap
        self.log_term = log_term  # the balanced family's e^{-L/b1} inside log(1 - ·)


def _released(m: AnyMechanism) -> _Family | None:
    """svt3 / bad-gap-svt (module docstring, first family)."""
    _, b2, _ = m.noise_scales()
    got = _rational(m.sensitivity, m.threshold, m.noise_scales()[0], b2)
    if got is None:
        return None
    d, t, b1, b2 = got
    w, L = d * BOX_WIDTH, b2

    def member(n: int) -> Member:
        q = [t + L] * (n - 1) + [t - L]
        return "F" * (n - 1) + "T", q, [x + d for x in q[:-1]] + [q[-1] - d], [(t - L, t - L + w)]

    slope, const = (d - w) / b2, w / b2 - w / b1
    return _Family(m, "n = 1, 2, 3, ...", f"pattern ⊥^(n-1) ⊤; ⊥ queries at T + {L} moved up by Δ = {d}, the ⊤ query at "
                   f"T - {L} moved down by Δ; released value in [T - {L}, T - {L} + {w}] (T = {t})",
                   _affine_text(slope, const),
                   "identity: on the ⊤ event ρ <= v - T <= 0 every ⊥ factor is exponential in ρ, so the box law's "
                   "ratio is e^{nΔ/b2 - w(1/b1 + (n-1)/b2)} exactly for every n (module docstring)",
                   member, lambda n: slope * n + const, True, CHECKED_N)


def _adaptive(m: AnyMechanism) -> _Family | None:
    """bad-adaptive-svt (module docstring, second family)."""
    b1, b2, b3 = m.noise_scales()
    got = _rational(m.sensitivity, m.threshold, b2, b3, m.sigma)
    if got is None:
        return None
    d, t, b2, b3, _ = got
    w, L = d * BOX_WIDTH, b3
    lo = min(t, Fraction(0)) - L

    def member(n: int) -> Member:
        q = [t + L] * (n - 1) + [lo]
        return "F" * (n - 1) + "T", q, [x + d for x in q[:-1]] + [lo - d], [(lo, lo + w)]

    slope, const = d * (1 / b3 + 1 / b2), d / b3 - d * (1 / b3 + 1 / b2)
    return _Family(m, "n = 1, 2, 3, ...", f"pattern ⊥^(n-1) ⊤; ⊥ queries at T + {L} moved up by Δ = {d}, the ⊤ query at "
                   f"{lo} moved down by Δ; released value in [{lo}, {lo + w}] (T = {t})",
                   _affine_text(slope, const),
                   "identity: a negative released value comes from the first branch only (q + η3, released when "
                   "ρ <= v - T - σ), where every ⊥ factor Pr[η3 < x + σ]·Pr[η2 < x] is exponential in ρ; the box law's "
                   "ratio is e^{(n-1)Δ(1/b3 + 1/b2) + Δ/b3} exactly for every n (module docstring)",
                   member, lambda n: slope * n + const, True, CHECKED_N,
                   theorem="Wang et al., CCS 2020 (CheckDP's badadaptivesparsevector)")


def _balanced(m: AnyMechanism) -> _Family | None:
    """svt6 without cutoff (module docstring, third family)."""
    b1, b2, _ = m.noise_scales()
    got = _rational(m.sensitivity, m.threshold, b1, b2)
    if got is None:
        return None
    d, t, b1, b2 = got
    L = BALANCED_SPREAD * b1

    def member(n: int) -> Member:
        k = n // 2
        q = [t + L] * k + [t - L] * k
        return "F" * k + "T" * k, q, [t + L + d] * k + [t - L - d] * k, None

    return _Family(m, "n = 2k, k = 1, 2, 3, ...", f"pattern ⊥^k ⊤^k; ⊥ queries at T + {L} moved up by Δ = {d}, ⊤ queries at "
                   f"T - {L} moved down by Δ (T = {t})",
                   f"{d / b2}*n + log(1 - exp(-{BALANCED_SPREAD}))",
                   "inequality: F(ρ - L)(1 - F(ρ + L)) <= e^{-2L/b2}/4 for every ρ with equality on |ρ| <= L, so "
                   "Pr[o|q] >= (e^{-2L/b2}/4)^k Pr[|ρ| <= L] and Pr[o|q'] <= (e^{-2(L+Δ)/b2}/4)^k for every k "
                   "(module docstring)",
                   member, lambda n: d / b2 * n, False, tuple(n for n in CHECKED_N if n % 2 == 0) + (8,),
                   log_term=BALANCED_SPREAD)


def _family_of(m: AnyMechanism) -> _Family | None:
    from ...mechanisms.sparse_vector import SVT6
    from ...mechanisms.sparse_vector.adaptive import BadAdaptiveSVT
    from ...mechanisms.sparse_vector.parallel import SVT34Parallel
    from ...mechanisms.sparse_vector.released import SVT3

    if isinstance(m, SVT34Parallel):
        f = _released(m.components()[0])
        if f is not None:
            f.wrap = lambda o: [{"component": "svt3", "output": o}, {"component": "svt4", "output": "every output"}]
            f.argument += "; the pair's event S × (every svt4 output) has the svt3 component's probabilities"
        return f
    if isinstance(m, BadAdaptiveSVT):
        return _adaptive(m)
    if isinstance(m, SVT3):  # bad-gap-svt is an SVT3 with Algorithm 1's noise
        return _released(m)
    if isinstance(m, SVT6) and m.cutoff is None:
        return _balanced(m)
    return None


def _law(m: AnyMechanism) -> AnyMechanism:
    from ...mechanisms.sparse_vector.parallel import SVT34Parallel

    return m.components()[0] if isinstance(m, SVT34Parallel) else m


def _check(f: _Family, n: int) -> dict[str, Any] | None:
    """The member at n evaluated from the law: its certified log-ratio and the closed form, or None when the
    law does not confirm the closed form (the family is then not reported)."""
    pattern, q, q2, box = f.member(n)
    law = _law(f.m)
    bound = f.bound(n)
    with ball_context(_PREC):
        if box is not None:
            p1 = law.part_box_probability(q, pattern, box, "exact")[0]
            p2 = law.part_box_probability(q2, pattern, box, "exact")[1]
        else:
            p1, p2 = law.exact_pattern_value(q, pattern), law.exact_pattern_value(q2, pattern)
        if not (p1.sign() > 0 and p2.sign() > 0):
            return None
        if f.exact:
            from ...numbers.exp_sum import ExpSum

            if not (p1 - ExpSum.exp(bound) * p2).is_zero():
                return None
            lr = Real.of(bound).to_arb(_PREC)
        else:
            import flint

            lr = p1.to_arb(_PREC).log() - p2.to_arb(_PREC).log()
            closed = flint.arb(bound.numerator) / bound.denominator + (1 - (-flint.arb(f.log_term)).exp()).log()
            if not (lr - closed > 0):
                return None
        lo = float(lr.lower())
    import math

    out: Any = pattern if box is None else {"pattern": pattern, "box": [[str(a), str(b)] for a, b in box]}
    return {"n": n, "scores": [str(x) for x in q], "neighbour_scores": [str(x) for x in q2], "output": f.wrap(out),
            "log_ratio": math.nextafter(lo, -math.inf), **({"log_ratio_exact": str(bound)} if f.exact else {}),
            "bound": str(bound) if f.exact else f"{bound} + log(1 - exp(-{f.log_term}))",
            "arithmetic": "exact" if f.exact else f"ball:{_PREC}"}


def family_member(mechanism: AnyMechanism, n: int) -> tuple[str, list[Fraction], list[Fraction], Any] | None:
    """The family's member at n as ``(pattern, q, q', box of the released values or None)``, for a replay
    by hand (:meth:`part_box_probability` / ``pattern_probability`` of the law); None without a family."""
    f = _family_of(mechanism)
    return None if f is None else f.member(n)


def witness_family(mechanism: AnyMechanism, relation: str | None = None, seconds: float = 20.0) -> WitnessFamily | None:
    """The unbounded witness family of ``mechanism`` under ALL_DIFFER (module docstring), checked at its n
    from the law, or None (no family, a non-rational parameter, a check that fails or runs out of CPU time)."""
    if (relation or "all-differ") != "all-differ":
        return None
    f = _family_of(mechanism)
    if f is None:
        return None
    stop = time.process_time() + seconds
    checked = []
    for n in f.ns:
        if time.process_time() > stop:
            return None
        try:
            c = _check(f, n)
        except (ValueError, ArithmeticError):
            return None
        if c is None:
            return None
        checked.append(c)
    return WitnessFamily(index=f.index, members=f.members, bound=f.bound_text, argument=f.argument,
                         checked=tuple(checked), theorem=f.theorem)
