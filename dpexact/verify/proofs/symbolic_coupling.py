"""Couplings as theorems: the threshold-shift and noisy-max couplings checked for every n, ε, Δ, c.

**Threshold shift (sparse vector family).** A law stated per query
(:class:`~dpexact.protocols.CouplingUnits`) is, for an output o of n queries,

    f(o | q) = Σ_branches ∫ f_ρ(ρ) Π_i φ_{k_i}(x_i) dρ,      x_i = T + ρ - q_i,

with ``φ_k`` the product of the Laplace factors of answer kind k. For a neighbour ``q' = q + d``
substitute ``ρ -> ρ + s``; ``x_i`` moves by ``t_i = s - d_i`` and, pointwise in ρ (Laplace
densities are ``e^{1/b}``-Lipschitz in log; :mod:`.threshold_coupling` lists the factor bounds),

    f(o|q) <= exp( |s|/b1 + Σ_i cost_{k_i}(s, d_i) ) · f(o|q'),
    cost_k(s, d) = Σ_{(kind, b) ∈ φ_k} { max(0, d - s) (below), max(0, s - d) (above),
                                         |s - d| (window), |d| (fixed) } / b.

*Induction over the queries.* Each query's cost depends on its own kind and offset only. Over the
offsets of a neighbourhood box (ℓ∞ ``[-Δ, Δ]``; monotone ``[0, Δ]`` or ``[-Δ, 0]``; one query moving)
``cost_k`` is convex in ``d``, so its largest value is at an end of the box: a number ``C_k(s)``
independent of n and of the other queries. The count rule of the law (``Σ_k w_k #k <= B``, kinds of
weight 0 in any number) then bounds the sum for **every** n:

    Σ_i cost_{k_i} <= B · max_{k: w_k > 0} C_k(s)/w_k      provided C_k(s) = 0 for every w_k = 0,

(the linear programme over real counts, whose value bounds the integer one). With a threshold
redrawn after each ⊤ (Lyu et al. Algorithm 2) each of the at most B segments has its own shift and
costs ``|s_j|/b + C_⊤(s_j)``. Any shift s gives a valid coupling; it is taken on the grid
``s ∈ Δ·{k/4 : |k| <= 8}``, which holds the kinks of every cost (``s = d`` at the box ends, s = 0).

*Symbolic check.* The scales are the mechanism's own :meth:`scales` evaluated on a copy whose ε,
Δ and cutoff c are sympy symbols (ε, Δ > 0, c a positive integer); every cost is a rational multiple
of ``Δ/b``, so the bound divided by ε is an expression in c that sympy compares with 1 under these
assumptions — a statement for all ε > 0, Δ > 0, c >= 1 and n, not a sampled one. Where the symbolic
comparison is not decided (or the mechanism's arithmetic does not accept symbols) the bound is
evaluated exactly at the mechanism's own c (then ε), and the domain says so. A bound above ε is an
upper end of the ε bracket (svt4: ``(1+6c)/4·ε``, Lyu, Su & Li 2017 §4). The per-query statement is
re-checked against the per-output factors (:meth:`coupling_terms` over every output of n <= 5 queries):
each query's factors are one kind's, and every output meets the count rule.

This is the randomness alignment of LightDP / ShadowDP / CheckDP (Wang et al. PLDI 2019, CCS 2020)
with the alignment fixed (shift the threshold) and the per-query cost inequalities checked
symbolically.

**Noisy max.** :mod:`.noisy_max_coupling`'s bound ``shift·h/b`` (conditioning on the other
candidates' noises, hazard rate h) evaluated on the symbolic copy: ``2Δ·1/(2Δ/ε) = ε`` for every
n, ε and Δ (Dwork & Roth 2014 Claim 3.9; pf Appendix F).
"""

from __future__ import annotations

import copy
import math
from functools import lru_cache
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from ...numbers.real import Real
from ...protocols import AnyMechanism, CouplingUnits, CutoffLaw, ThresholdCouplingLaw
from ..bracket import Proof
from .lazy_sympy import symbols, sympy

__all__ = ["EPS", "DELTA", "CUTOFF", "CouplingTheorem", "threshold_theorem", "ThresholdShiftProof",
           "NoisyMaxProof", "round_up", "symbolic_copy"]



def __getattr__(name: str) -> Any:  # EPS, DELTA, CUTOFF: the free symbols, made when first read (lazy_sympy)
    if name in ("EPS", "DELTA", "CUTOFF"):
        return symbols()[("EPS", "DELTA", "CUTOFF").index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: shifts tried, in units of Δ (module docstring)
_SHIFTS = [Fraction(k, 4) for k in range(-8, 9)]
#: offsets of the neighbourhood boxes, in units of Δ: each box is the end points of one coordinate
_BOXES = {"all-differ": [(-1, 1)], "monotone": [(0, 1), (-1, 0)]}
_RELATIONS = ("all-differ", "monotone", "one-differ")
#: largest n whose outputs re-check the per-query statement against coupling_terms
_RECHECK_N = 5
_NEIGHBOURS = {"all-differ": "every query moves by at most Δ (ALL_DIFFER, ℓ∞ box)",
               "monotone": "every query moves by at most Δ, all in the same direction (monotone)",
               "one-differ": "one query moves by at most Δ (ONE_DIFFER)"}


def round_up(x: Any) -> float:
    """A float >= the exact real ``x`` (a Fraction, sympy number or Real)."""
    r = Real.of(x)
    if r.is_rational:
        f = float(r.value)
        return f if Fraction(f) >= r.value else math.nextafter(f, math.inf)
    return float(r.to_arb(128).upper())


def symbolic_copy(mechanism: AnyMechanism, fields: Mapping[str, Any]) -> Any:
    """A copy of ``mechanism`` whose named fields hold symbols: its own methods (scales, factors)
    replayed on them. Validation is skipped (it wants numbers); only arithmetic runs on the copy."""
    import dataclasses

    if not dataclasses.is_dataclass(mechanism) or isinstance(mechanism, type):
        raise TypeError("a symbolic copy needs a dataclass mechanism (its fields are the parameters)")
    names = {f.name for f in dataclasses.fields(mechanism)}
    if not set(fields) <= names:
        raise TypeError(f"a symbolic copy needs the fields {sorted(fields)}")
    m = copy.copy(mechanism)
    for k, v in fields.items():
        object.__setattr__(m, k, v)
    return m


def _sym(x: Any) -> Any:
    return Real.of(x).to_sympy() if not isinstance(x, sympy.Basic) else x


def _smax(a: Any, b: Any) -> Any:
    if a is None:
        return b
    d = sympy.simplify(a - b)
    if d.is_nonnegative:
        return a
    if d.is_nonpositive:
        return b
    return sympy.Max(a, b)


def _factor_cost(f: tuple, s: Fraction, d: Fraction, delta: Any) -> Any:
    """Cost of one factor for shift ``s·Δ`` and offset ``d·Δ`` (module docstring); None = opaque."""
    kind = f[0]
    if kind == "opaque" or (kind == "released" and s != 0):
        return None
    r = {"below": max(Fraction(0), d - s), "above": max(Fraction(0), s - d), "window": abs(s - d),
         "fixed": abs(d), "released": abs(d)}.get(kind)
    if r is None:
        raise ValueError(f"unknown coupling factor {kind!r}")
    return sympy.Rational(r.numerator, r.denominator) * delta / _sym(f[1])


def _kind_cost(factors: list[tuple], s: Fraction, ends: tuple, delta: Any) -> Any:
    """``max_{d ∈ ends} Σ_f cost_f(s, d)`` (convex in d: the end points suffice); None = opaque."""
    worst = None
    for d in ends:
        tot: Any = sympy.Integer(0)
        for f in factors:
            c = _factor_cost(f, s, Fraction(d), delta)
            if c is None:
                return None
            tot = tot + c
        worst = _smax(worst, tot)
    return worst


def _is_zero(x: Any) -> bool:
    return sympy.simplify(x) == 0


def _queries_bound(u: CouplingUnits, s: Fraction, ends: tuple, delta: Any, base_ends: tuple | None = None) -> Any:
    """``B·max_{w>0} C_k/w_k`` (None: some cost is opaque or a free kind costs > 0).

    ``base_ends``: for ONE_DIFFER the still queries (offset 0) use ``base_ends`` and one query adds
    ``max_k (C_k(ends) - C_k(base))``.
    """
    ends_all = base_ends if base_ends is not None else ends
    costs = {}
    for k, fs in u.kinds.items():
        c = _kind_cost(fs, s, ends_all, delta)
        if c is None:
            return None
        costs[k] = c
    weighted = None
    for k, c in costs.items():
        w = u.weights.get(k, 0)
        if w == 0 or u.budget is None:
            if not _is_zero(c):
                return None
        else:
            weighted = _smax(weighted, c / w)
    total = sympy.Integer(0) if weighted is None else _sym(u.budget) * weighted
    if base_ends is not None:
        extra = None
        for k, fs in u.kinds.items():
            extra = _smax(extra, _kind_cost(fs, s, ends, delta) - costs[k])
        total = total + extra
    return total


def _segment_bound(u: CouplingUnits, scale: Any, s: Fraction, ends: tuple, delta: Any) -> Any:
    """One redraw segment: ``|s|/b + max_{k ∈ redraw_after} C_k(s)``, the other kinds free (cost 0)."""
    tot = sympy.Rational(abs(s).numerator, abs(s).denominator) * delta / _sym(scale)
    top = None
    for k, fs in u.kinds.items():
        c = _kind_cost(fs, s, ends, delta)
        if c is None:
            return None
        if k in u.redraw_after:
            top = _smax(top, c)
        elif not _is_zero(c):
            return None
    return tot + (0 if top is None else top)


def _boxes(relation: str) -> list[tuple[tuple, tuple | None]]:
    if relation == "one-differ":
        return [((-1,), (0,)), ((1,), (0,))]
    return [(ends, None) for ends in _BOXES[relation]]


@dataclass(frozen=True)
class CouplingTheorem:
    """The coupling bound as a function of the symbols (``ratio`` = bound/ε), and at the mechanism's values."""

    ratio: Any  # sympy expression in the free symbols (per box: the best shift at the mechanism's values)
    bound: Any  # sympy number: the bound at the mechanism's ε, Δ, c
    for_every: tuple[str, ...]  # the symbols the statement holds for: ("epsilon", "Delta", "c")
    holds: bool  # ratio <= 1 proved for every value of for_every (and every n)
    theorem: str
    shifts: tuple


def _check_units_against_terms(m: AnyMechanism, u: CouplingUnits) -> bool:
    """Each query's factors in ``coupling_terms`` are one kind's and every output meets the count rule (n <= 5)."""
    kinds = {repr(fs): k for k, fs in u.kinds.items()}
    for n in range(1, _RECHECK_N + 1):
        for o in m.outputs(n):
            seqs = m.coupling_terms(o, n)
            if seqs is None:
                return False
            for seq in seqs:
                segs = seq["segments"] if isinstance(seq, dict) else [(None, seq)]
                if u.budget is not None and len(segs) > max(1, int(u.budget)):
                    return False
                used = 0
                for _, per in segs:
                    redraws = 0
                    for fs in per:
                        k = kinds.get(repr(fs))
                        if k is None:
                            return False
                        used += u.weights.get(k, 0)
                        redraws += k in u.redraw_after
                    if redraws > 1:
                        return False
                if u.budget is not None and used > int(u.budget):
                    return False
    return True


def threshold_theorem(m: ThresholdCouplingLaw, relation: str) -> CouplingTheorem | None:
    """The threshold-shift bound for every n (module docstring), symbolic where the mechanism allows;
    computed once per (mechanism, relation) (a frozen mechanism is its parameters)."""
    try:
        return _threshold_theorem_cached(m, relation)
    except TypeError:  # an unhashable mechanism
        return _threshold_theorem(m, relation)


@lru_cache(maxsize=64)
def _threshold_theorem_cached(m: ThresholdCouplingLaw, relation: str) -> CouplingTheorem | None:
    return _threshold_theorem(m, relation)


def _threshold_theorem(m: ThresholdCouplingLaw, relation: str) -> CouplingTheorem | None:
    EPS, DELTA, CUTOFF = symbols()
    if relation not in _RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(_RELATIONS)}, got {relation!r}")
    concrete = m.coupling_units()
    if concrete is None or not _check_units_against_terms(m, concrete):
        return None
    values = {EPS: _sym(m.epsilon), DELTA: _sym(m.sensitivity)}
    attempts = []
    if concrete.budget is not None:
        values[CUTOFF] = sympy.Integer(int(m.cutoff))
        attempts.append((("epsilon", "Delta", "c"), {"epsilon": Real.of(EPS), "sensitivity": Real.of(DELTA), "cutoff": CUTOFF}))
    attempts.append((("epsilon", "Delta"), {"epsilon": Real.of(EPS), "sensitivity": Real.of(DELTA)}))
    for names, fields in attempts:
        try:
            u = symbolic_copy(m, fields).coupling_units()
            got = _theorem(u, relation, values, EPS)
        except (TypeError, ValueError, AttributeError):
            continue
        if got is None:
            return None
        ratio, bound, holds, shifts = got
        return CouplingTheorem(ratio, bound, names, holds, concrete.theorem, shifts)
    got = _theorem(concrete, relation, {}, values[EPS])
    if got is None:
        return None
    ratio, bound, holds, shifts = got
    return CouplingTheorem(ratio, bound, (), holds, concrete.theorem, shifts)


def _theorem(u: CouplingUnits, relation: str, values: dict, eps: Any) -> tuple | None:
    """(bound/ε, bound at ``values``, bound/ε <= 1 for every value of the symbols, shifts), or None
    when the coupling proves nothing (an opaque factor, or a kind in any number with a positive cost)."""
    EPS, DELTA, _ = symbols()
    ratios, bounds, shifts, holds = [], [], [], True
    for ends, base in _boxes(relation):
        if u.redraw_after:
            if base is not None or u.budget is None:
                return None
            parts = []
            for scale in (u.threshold_scale, u.redraw_scale):
                cands = [(s, _segment_bound(u, scale, s, ends, DELTA)) for s in _SHIFTS]
                cands = [(s, b) for s, b in cands if b is not None]
                if not cands:
                    return None
                parts.append(cands)
            combos = [((s1, s2), b1 + (_sym(u.budget) - 1) * b2) for s1, b1 in parts[0] for s2, b2 in parts[1]]
        else:
            combos = []
            for s in _SHIFTS:
                q = _queries_bound(u, s, ends, DELTA, base)
                if q is not None:
                    combos.append((s, sympy.Rational(abs(s).numerator, abs(s).denominator) * DELTA / _sym(u.threshold_scale) + q))
        if not combos:
            return None
        scored = []
        for s, b in combos:
            r = sympy.simplify(b / eps)
            scored.append((sympy.simplify(r.subs(values)), s, r))
        val, s, r = min(scored, key=lambda t: float(t[0]) if t[0].is_number else math.inf)
        box_holds = any(sympy.simplify(rr - 1).is_nonpositive for _, _, rr in scored)
        holds = holds and box_holds
        ratios.append(r)
        bounds.append(val)
        shifts.append(s)
    worst = max(range(len(bounds)), key=lambda i: float(bounds[i]))
    bound = sympy.simplify(bounds[worst] * values.get(EPS, eps))
    return ratios[worst], bound, holds, tuple(shifts)


def _domain(relation: str, names: tuple, m: AnyMechanism, holds: bool) -> dict:
    every = set(names) if holds else set()
    c = m.cutoff if isinstance(m, CutoffLaw) else None
    return {"n": "every",
            "epsilon": "(0, inf)" if "epsilon" in every else str(m.epsilon),
            "sensitivity": "(0, inf)" if "Delta" in every else str(m.sensitivity),
            **({} if c is None else {"cutoff": "every c >= 1" if "c" in every else str(c)}),
            "neighbourhood": _NEIGHBOURS[relation], "scores": "R^n", "outputs": "every output set"}


class ThresholdShiftProof:
    """Proof unit: the threshold-shift coupling for every n (module docstring)."""

    name = "threshold-shift coupling (symbolic, every n)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        return isinstance(mechanism, ThresholdCouplingLaw) and (relation or "all-differ") in _RELATIONS

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        EPS = symbols()[0]
        rel = relation or "all-differ"
        th = threshold_theorem(mechanism, rel)
        if th is None:
            return None
        general = sympy.simplify(th.ratio * EPS)
        stmt = (f"log-ratio <= {general} for every n" + (f", every {', '.join(th.for_every)}" if th.holds and th.for_every else "")
                + (" (<= ε: proved symbolically)" if th.holds else ""))
        return Proof(upper_float=round_up(th.bound), method="coupling", upper=str(th.bound), theorem=th.theorem,
                     domain=_domain(rel, th.for_every, mechanism, th.holds),
                     details={"statement": stmt, "bound_over_epsilon": str(th.ratio), "shifts_in_units_of_delta":
                              [str(s) for s in th.shifts], "symbolic_in": list(th.for_every),
                              "holds_for_every_value": th.holds})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Any:
        """The coupling-aligned tail witness at n (:func:`.coupling_witness.coupling_witness`)."""
        from .coupling_witness import coupling_witness

        return coupling_witness(mechanism, n, relation)


class NoisyMaxProof:
    """Proof unit: report noisy max's coupling on the other candidates' noises, symbolic in ε and Δ."""

    name = "noisy-max coupling (symbolic, every n)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...mechanisms.report_noisy_max import ReportNoisyMax

        return isinstance(mechanism, ReportNoisyMax) and mechanism.scales is None and (relation or "all-differ") in _RELATIONS

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        EPS, DELTA, _ = symbols()
        from .noisy_max_coupling import noisy_max_bound

        rel = relation or ("monotone" if mechanism.monotone else "all-differ")
        sym = noisy_max_bound(symbolic_copy(mechanism, {"epsilon": Real.of(EPS), "sensitivity": Real.of(DELTA)}), rel)
        if sym is None:
            return None
        ratio = sympy.simplify(sym.to_sympy() / EPS)
        holds = ratio.free_symbols == set() and bool(ratio <= 1)
        bound = sympy.simplify(sym.to_sympy().subs({EPS: _sym(mechanism.epsilon), DELTA: _sym(mechanism.sensitivity)}))
        return Proof(upper_float=round_up(bound), method="coupling", upper=str(bound),
                     theorem="Dwork & Roth 2014, Claim 3.9 (Laplace); pf Appendix F: the other candidates' noises "
                             "fixed, log Pr[win] is (hazard rate)/b-Lipschitz",
                     domain={"n": "every", "epsilon": "(0, inf)" if holds else str(mechanism.epsilon),
                             "sensitivity": "(0, inf)" if holds else str(mechanism.sensitivity),
                             "neighbourhood": _NEIGHBOURS[rel], "scores": "R^n", "outputs": "every index"},
                     details={"statement": f"log-ratio <= {ratio}·ε for every n", "bound_over_epsilon": str(ratio),
                              "holds_for_every_value": holds})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Any:
        """The tail witness at n (default 3; :func:`..search.tail_witness.noisy_max_witness`)."""
        from ..search.tail_witness import noisy_max_witness

        rel = relation or ("monotone" if mechanism.monotone else "all-differ")
        return noisy_max_witness(mechanism, n if n is not None else 3, rel)
