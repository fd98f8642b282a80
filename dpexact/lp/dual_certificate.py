"""pf Appendix D's dual certificate for the optimality of PF, and Lemma 7.

The *relaxed LP* (pf App. D) keeps, for each ``q ∈ Q(n, k)``, the privacy rows with
``q_r < 0`` unrolled to ``q − q_r e_r`` and the merged sum-to-one/symmetry rows
``n_* x_r(q) + Σ_{s: q_s<0} x_s(q) = 1`` (``q_r = 0``). PF satisfies all of them with
equality (pf eq. 5/6) and all its probabilities are positive, so complementary slackness
forces every dual constraint to be tight, which gives pf's recurrence for the dual ``y``
(indexing as the primal; we work in units of 2Δ, ``ℓ = −q_r/2Δ``, ``ρ = e^{−ε}``):

    y_r(q) = 0                                          q_r = 0, n_* = 1
    y_r(q) = −(1/n_*) Σ_{t=1}^{k} ρ^t y_r(q − 2Δ t e_r)   q_r = 0
    y_r(q) = ℓ_r + Σ_{s: q_s = 0} y_s(q)                 q_r < 0

Dual feasibility is ``y_r(q) >= 0`` for ``q_r < 0``; weak duality then proves PF optimal
on Q(n, k) (pf Theorem 3). By symmetry ``y`` depends only on the class ``c`` and the level,
so ``y(c, 0) = −(1/c_0) Σ_t ρ^t [t + (c_0 − 1) y(c − e_0 + e_t, 0)]`` and
``y(c, ℓ) = ℓ + c_0 y(c, 0)``.

Note on pf's displayed dual LP: its first constraint reads
``n_* y_r(q) − Σ_t y_r(q − 2Δt e_r) e^{−tε} >= q_r``; the column of ``x_r(q)`` (``q_r = 0``)
has coefficient ``+e^{−tε}`` in the relaxed privacy rows ``−x_r(p) + e^{−tε} x_r(q) <= 0``,
so the constraint is ``n_* y_r(q) + Σ_t … >= 0``. pf's recurrence (with its minus sign) is
the tight form of the ``+`` version; we implement the recurrence and check the ``+`` version.

Lemma 7 (pf App. D): ``Σ_{t>=1} t e^{−tε} = e^{−ε}/(1 − e^{−ε})² <= 1`` iff
``ε >= log((3 + √5)/2)``. The proof of Theorem 3 only uses the finite sum up to ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..mechanisms.validation import positive_real
from ..numbers.backends import Backend, ball_context, get_backend
from ..numbers.real import Real
from .lattice import check_nk, count_classes, lattice_classes
from .regular_lp import exp_minus_epsilon

__all__ = [
    "LEMMA7_THRESHOLD",
    "DualCertificate",
    "dual_recurrence",
    "dual_certificate",
    "dual_feasibility_threshold",
    "lemma7_sum",
]

#: ε threshold of pf Theorem 3 / Lemma 7: log((3+√5)/2) = 2 log φ ≈ 0.9624
LEMMA7_THRESHOLD = Real.of("log((3+sqrt(5))/2)")


def lemma7_sum(rho: Any, k: int | None = None) -> Any:
    """``Σ_{t=1}^{k} t ρ^t`` (closed form ``ρ/(1−ρ)²`` for ``k=None``), in ρ's number type."""
    if k is None:
        return rho / (1 - rho) ** 2
    total = rho * 0
    p = rho * 0 + 1
    for t in range(1, k + 1):
        p = p * rho
        total = total + t * p
    return total


def dual_recurrence(n: int, k: int, rho: Any) -> dict[tuple[int, ...], Any]:
    """``y(c, 0)`` for every class (units of 2Δ), in the number type of ``rho``.

    ``rho`` = e^{−ε} as a float, fmpq, arb, mpf, or an ``fmpq_poly`` (the polynomial in ρ).
    """
    check_nk(n, k)
    one = rho * 0 + 1
    zero = rho * 0
    powers = [one]
    for _ in range(k):
        powers.append(powers[-1] * rho)
    y0: dict[tuple[int, ...], Any] = {}
    by_nstar = sorted(lattice_classes(n, k), key=lambda c: c.counts[0])
    for c in by_nstar:
        m = c.counts[0]
        if m == 1:
            y0[c.counts] = zero
            continue
        acc = zero
        for t in range(1, k + 1):
            nb = list(c.counts)
            nb[0] -= 1
            nb[t] += 1
            acc = acc + powers[t] * (t + (m - 1) * y0[tuple(nb)])
        y0[c.counts] = acc * (-1) / m if not _is_flint_poly(acc) else acc * _frac(-1, m)
    return y0


def _is_flint_poly(x: Any) -> bool:
    return type(x).__name__ == "fmpq_poly"


def _frac(p: int, q: int) -> Any:
    from flint import fmpq

    return fmpq(p, q)


@dataclass(frozen=True)
class DualCertificate:
    """pf's dual solution on Q(n, k) at one ε and what it proves.

    Attributes:
        feasible: ``y_r(q) >= 0`` for every ``q_r < 0`` (decided exactly / rigorously for the
            exact / ball backends; in float64 otherwise).
        min_y_negative_level: ``min y_r(q)`` over ``q_r < 0`` (units of 2Δ).
        worst_class: a class attaining it.
        bounds_10_11: pf eqs. (10)–(11) hold: ``−1/n_* <= y(c,0) <= 0`` and ``0 <= y(c,ℓ) <= ℓ``.
        dual_objective: ``Σ_q Σ_{r: q_r=0} y_r(q)`` in score units (= −Σ_q E[err(PF, q)] by
            complementary slackness).
        lemma7_sum: ``Σ_{t=1}^{k} t e^{−tε}`` (pf's proof needs it <= 1).
        backend: arithmetic used.
    """

    n: int
    k: int
    epsilon: Real
    feasible: bool
    min_y_negative_level: Any
    worst_class: tuple[int, ...] | None
    bounds_10_11: bool
    dual_objective: Any
    lemma7_sum: Any
    backend: str


def dual_certificate(n: int, k: int, epsilon: Any, sensitivity: Any = 1, backend: "str | Backend" = "exact") -> DualCertificate:
    """Build pf's dual solution at ε and check its feasibility (see the module docstring).

    ``backend="exact"`` needs e^{−ε} rational (ε = log of a rational); ``"ball"`` is rigorous
    for any ε; ``"float"`` is float64 (no guarantee near the feasibility boundary).
    """
    check_nk(n, k)
    eps = positive_real(epsilon, "epsilon")
    delta = positive_real(sensitivity, "sensitivity")
    be = get_backend(backend)
    if be.is_exact:
        rho_r = exp_minus_epsilon(eps)
        if not rho_r.is_rational:
            raise ValueError(f"epsilon: e^(-epsilon) = {rho_r} is not rational; use backend='ball'")
        from flint import fmpq

        f = rho_r.to_fraction()
        rho: Any = fmpq(f.numerator, f.denominator)
    elif be.is_ball:
        rho = None
    elif be.is_float:
        import math

        rho = math.exp(-eps.to_float())
    else:
        raise ValueError(f"backend must be exact, ball or float, got {be}")
    with be.context():
        if be.is_ball:
            rho = (-eps.to_arb(be.prec + 20)).exp()
        y0 = dual_recurrence(n, k, rho)
        zero = rho * 0
        worst = None
        wc = None
        ok10 = True
        obj = zero
        for c in lattice_classes(n, k):
            y = y0[c.counts]
            m = c.counts[0]
            obj = obj + c.multiplicity * m * y
            if not (_ge(y * m, -1) and _ge(-y, 0)):
                ok10 = False
            for level in c.levels_present:
                if level == 0:
                    continue
                yl = level + m * y
                if not (_ge(yl, 0) and _ge(level - yl, 0)):
                    ok10 = False
                if worst is None or _lt(yl, worst):
                    worst, wc = yl, c.counts
        feasible = worst is None or _ge(worst, 0)
        l7 = lemma7_sum(rho, k)
        scale = delta * 2
        if be.is_exact:
            from flint import fmpq

            sf = scale.to_fraction() if scale.is_rational else None
            obj_out: Any = obj * fmpq(sf.numerator, sf.denominator) if sf is not None else obj
        elif be.is_ball:
            obj_out = obj * scale.to_arb(be.prec)
        else:
            obj_out = obj * scale.to_float()
    return DualCertificate(n, k, eps, bool(feasible), worst, wc, ok10, obj_out, l7, str(be))


def _ge(x: Any, y: Any) -> bool:
    """``x >= y``; for arb balls only when proven (a ball straddling y counts as False)."""
    return bool(x >= y)


def _lt(x: Any, y: Any) -> bool:
    if type(x).__name__ == "arb":
        return bool(x.mid() < y.mid())
    return bool(x < y)


@dataclass(frozen=True)
class FeasibilityThreshold:
    """Where pf's dual solution stops being feasible on Q(n, k).

    ``epsilon_star``: an arb ball containing ε* = −log ρ*, where ρ* ∈ (0, 1) is the smallest
    root at which some ``y(c, ℓ)(ρ)`` (ℓ >= 1) changes sign to negative; the dual is feasible
    for every ε > ε* (all polynomials positive on (0, ρ*)) and infeasible just below ε*.
    ``None`` if the dual is feasible for every ε > 0. ``binding_class``: the class whose
    polynomial has that root. ``polynomials``: number of distinct constraint polynomials.
    """

    n: int
    k: int
    epsilon_star: Any
    rho_star: Any
    binding_class: tuple[int, ...] | None
    binding_level: int | None
    polynomials: int


def dual_feasibility_threshold(n: int, k: int, max_classes: int = 20_000) -> FeasibilityThreshold:
    """Exact location of the first dual infeasibility (module docstring), by root isolation.

    Each ``y(c, ℓ)`` is a polynomial in ρ with rational coefficients (``flint.fmpq_poly``);
    its real roots in (0, 1) are isolated rigorously (``fmpz_poly.complex_roots``).
    """
    check_nk(n, k)
    if count_classes(n, k) > max_classes:
        raise ValueError(f"n, k: {count_classes(n, k)} classes exceed max_classes={max_classes}")
    from flint import fmpq_poly, fmpz_poly

    rho = fmpq_poly([0, 1])
    y0 = dual_recurrence(n, k, rho)
    polys: dict[str, tuple[Any, tuple[int, ...], int]] = {}
    for c in lattice_classes(n, k):
        m = c.counts[0]
        for level in c.levels_present:
            if level:
                p = level + m * y0[c.counts]
                polys.setdefault(str(p), (p, c.counts, level))
    best = None
    with ball_context(200):
        for p, counts, level in polys.values():
            num = p.numer()
            # exact roots at ρ = 0 or ρ = 1 lie outside (0, 1) but cannot be separated from the
            # ends by balls: divide them out exactly first (e.g. n >= 5, k = 1 has a root at 1)
            while num.degree() > 0 and num(1) == 0:
                num = num // fmpz_poly([-1, 1])
            while num.degree() > 0 and num(0) == 0:
                num = num // fmpz_poly([0, 1])
            if num.degree() <= 0:
                continue
            for root, mult in num.complex_roots():
                if root.imag != 0 or mult % 2 == 0:
                    continue
                r = root.real
                if r > 0 and r < 1:
                    if best is None or r.mid() < best[0].mid():
                        best = (r, counts, level)
                elif not (r <= 0 or r >= 1):
                    raise ArithmeticError(f"root {r} of a dual polynomial is not separated from 0 or 1")
        if best is None:
            return FeasibilityThreshold(n, k, None, None, None, None, len(polys))
        r, counts, level = best
        return FeasibilityThreshold(n, k, -r.log(), r, counts, level, len(polys))
