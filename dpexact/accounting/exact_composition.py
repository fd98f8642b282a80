"""Exact composition of events whose laws are rational (randomized response with rational e^ε, rational
pmf pairs and mechanisms, rational subsampling rates): the privacy-loss distribution as an exact table
``{likelihood ratio: (P-mass, Q-mass)}`` in flint ``fmpq``, composed by products of ratios (the
PLD of Sommer, Meiser & Mohammadi 2019 without discretisation), and δ(ε), ε(δ) from it exactly
(:func:`.delta_epsilon._hockey_from_pld`, :func:`.delta_epsilon._epsilon_one_way`).

Randomized response k-fold is a binomial sum: the table of k copies of binary RR (p, 1−p) holds the
ratios (p/(1−p))^{2i−k} with P-masses C(k, i) p^i (1−p)^{k−i} — what the convolution produces.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..cost_limits import CostEstimate, CostLimitError

__all__ = ["exact_atoms", "table_of", "compose_tables", "power_table", "MAX_TABLE"]

#: distinct ratios a composed table may hold
MAX_TABLE = 200_000
#: fmpq products a composition may do (≈ 2 µs each, more for long operands)
MAX_PRODUCTS = 3 * 10**7


def exact_atoms(pairs: Sequence[tuple[Any, Any]], r: Any, direction: str) -> list[tuple[Any, Any]]:
    """(P′, Q′) atoms of one direction at rate r (fmpq; r = 1: no subsampling)."""
    out = []
    for p, q in pairs:
        mix = r * p + (1 - r) * q
        out.append((mix, q) if direction == "remove" else (q, mix))
    return out


def table_of(atoms: Sequence[tuple[Any, Any]]) -> tuple[dict, Any]:
    """``({ratio: [P, Q]}, P-mass where Q = 0)`` of a list of (P, Q) atoms (P = 0 left out)."""
    from flint import fmpq

    table: dict = {}
    inf = fmpq(0)
    for p, q in atoms:
        if p == 0:
            continue
        if q == 0:
            inf += p
            continue
        e = table.setdefault(p / q, [fmpq(0), fmpq(0)])
        e[0] += p
        e[1] += q
    return {k: (v[0], v[1]) for k, v in table.items()}, inf


def _guard(n1: int, n2: int) -> None:
    if n1 * n2 > MAX_PRODUCTS:
        est = CostEstimate("exact privacy-loss composition", 200.0 * n1 * n2, 2e-6 * n1 * n2, "fmpq products")
        raise CostLimitError(f"exact composition: {n1} × {n2} ratio products, above {MAX_PRODUCTS}", est)


def compose_tables(a: tuple[dict, Any], b: tuple[dict, Any]) -> tuple[dict, Any]:
    """The table of the composition (ratios multiply, masses multiply; ∞-mass 1 − (1 − a∞)(1 − b∞))."""
    from flint import fmpq

    ta, ia = a
    tb, ib = b
    _guard(len(ta), len(tb))
    new: dict = {}
    for r1, (p1, q1) in ta.items():
        for r2, (p2, q2) in tb.items():
            e = new.setdefault(r1 * r2, [fmpq(0), fmpq(0)])
            e[0] += p1 * p2
            e[1] += q1 * q2
    if len(new) > MAX_TABLE:
        est = CostEstimate("exact privacy-loss composition", 300.0 * len(new), 2e-6 * len(new) * len(tb), "table size")
        raise CostLimitError(f"exact composition: {len(new)} distinct ratios, above {MAX_TABLE}", est)
    fin_a = sum((p for p, _ in ta.values()), fmpq(0))
    fin_b = sum((p for p, _ in tb.values()), fmpq(0))
    inf = ia * (fin_b + ib) + fin_a * ib
    return {k: (v[0], v[1]) for k, v in new.items()}, inf


def power_table(t: tuple[dict, Any], k: int) -> tuple[dict, Any]:
    """The k-fold composition by repeated squaring."""
    result = None
    base = t
    while True:
        if k & 1:
            result = base if result is None else compose_tables(result, base)
        k >>= 1
        if not k:
            break
        base = compose_tables(base, base)
    return result  # type: ignore[return-value]
