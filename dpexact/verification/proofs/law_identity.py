"""A law written by hand, proved to *be* a registered mechanism's law at the stated n — then that mechanism's theorem.

Permute-and-flip, the exponential mechanism and GRR have theorems for every n (:mod:`.selection_theorems`), but a
``define_mechanism`` law is code, not the registered class, so no theorem names it; the compact
branch-and-bound (:mod:`.compact_bnb`) bounds its ratio directly, at a cost that grows fast with n (PF at
n = 5: undecided after 60 CPU-s). Here the law is instead shown to be the registered law, exactly, at
every score vector of the stated n:

* Score space ℝⁿ is covered by the charts ``m = 0..n-1`` (``q_m`` a largest score; :mod:`.compact_paths`).
  On each chart the law is run symbolically (every consistent branch path, as closed forms in
  ``W_a = e^{G_a}``, ``G_a = q_a - q_m <= 0``, and ``Λ = e^{q_m}``).
* The reference law on the chart, with weights ``p_a = exp(c (q_a - max q)) = W_a^c`` (``p_m = 1``):
  PF: ``P_r = p_r ∫_0^1 Π_{s≠r} (1 - p_s t) dt`` (pf Lemma 2, computed by the registered class's own exact
  method, :func:`~dpexact.mechanisms.permute_and_flip.polynomial.pf_pmf_polynomial_sympy`); EM:
  ``P_r = p_r / Σ_a p_a`` (pf Definition 4); GRR with ties shared (brr eq. 6):
  ``(e^ε + k - 1) / (k (e^ε + n - 1))`` on the k maximisers, ``1 / (e^ε + n - 1)`` elsewhere — its top set
  read from the path (each gap tied by the path's equalities, or kept from 0 by one of its outcomes; a path
  whose region mixes both is no identity).
* Every path must give the reference's probabilities as exact rational functions after the path's
  equalities (ties) are substituted (:func:`.compact_symmetry.paths_agree`: flint fractions reduced by
  their gcd; a path no point of the chart takes is skipped only when interval arithmetic shows it empty).

Then ``P_user(q) = P_ref(q)`` for every ``q ∈ ℝⁿ`` and every output, so every pair of neighbours has the
registered law's log-ratio: the theorem's level (PF: ``2cΔ'`` on a box of radius ``Δ'``, ``cΔ'`` on a
monotone box, pf Theorem 1 / Remark 1; EM: ``c (Δ_(1) + Δ_(2))``, McSherry & Talwar 2007 Thm 6; GRR: ε,
brr §2.4) is the user law's level at n, and the theorems are tight (the maximiser's witness approaches it).
The parameter is read from the law, not guessed: for PF / EM each positive coefficient of a score gap met
in the law's exponentials is tried; for GRR each rational ``x`` of a constant ``e^x`` in its probabilities
and the claim's ε.

Nothing the law *declares* is used (no symmetry, no shift invariance: ``Λ`` must cancel). The domain is
the stated n only (the law is code: at another n it may be another law). Any step the route cannot take
(an unsupported operation, more than ``MAX_PATHS`` paths, an expression beyond the fractions' bounds, the
CPU budget) proves nothing and the next unit is tried.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...numbers.real import Real
from ...protocols import AnyMechanism, Neighbourhood, mechanism_properties
from ..bracket import Proof
from ..neighbourhoods import LInfBox, MonotoneBox
from .compact_budget import OutOfBudget, TooLarge, check_deadline
from .compact_paths import Path, Unsupported, affine, run_permuted
from .compact_symmetry import paths_agree, region_empty, solve_equalities

__all__ = ["REFERENCES", "Chart", "LawIdentity", "Reference", "identified_law"]


@dataclass(frozen=True)
class Chart:
    """What a reference's values on one path may read: n, the chart ``m``, its variables and the path."""

    n: int
    m: int
    logvars: dict
    algvars: dict
    path: Path


@dataclass(frozen=True)
class Reference:
    """A registered law the user's law may be: ``values(param, chart)`` its probabilities on the chart's path
    (None: the path's region does not fix the reference's branch, so no identity there), ``mechanism(param)``
    the registered mechanism (whose theorem then applies), ``params(...)`` the parameters read from the law,
    ``per_path``: whether the values depend on the path (else they are formed once per chart)."""

    name: str
    citation: str
    values: Callable[[Fraction, Chart], list[Any] | None]
    mechanism: Callable[[Any], AnyMechanism]
    params: Callable[[dict, list[Path], AnyMechanism], list[Fraction]]
    per_path: bool = False
    #: how the parameter is named in the proof ("exponent scale c", "ε")
    parameter: str = "exponent scale c"


def _weights(c: Fraction, chart: Chart) -> list[Any]:
    """``p_a = exp(c (q_a - max q)) = W_a^c`` on chart m (``p_m = 1``)."""
    import sympy

    cc = sympy.Rational(c.numerator, c.denominator)
    return [sympy.Integer(1) if a == chart.m else chart.algvars[f"G{a}"] ** cc for a in range(chart.n)]


def _pf_values(c: Fraction, chart: Chart) -> list[Any]:
    from ...mechanisms.permute_and_flip.polynomial import pf_pmf_polynomial_sympy

    return pf_pmf_polynomial_sympy(_weights(c, chart))


def _em_values(c: Fraction, chart: Chart) -> list[Any]:
    import sympy

    p = _weights(c, chart)
    total = sympy.Add(*p)
    return [w / total for w in p]


def _grr_values(eps: Fraction, chart: Chart) -> list[Any] | None:
    """GRR with ties shared (brr eq. 6; the registered class's ``tie_break="uniform"``): the top set must be
    the same at every point of the path — each gap either tied (``G_a = 0`` by the path's equalities) or
    excluded from 0 by one of its outcomes."""
    import sympy

    ties = _top_set(chart)
    if ties is None:
        return None
    e, k, n = sympy.exp(sympy.Rational(eps.numerator, eps.denominator)), len(ties), chart.n
    return [(e + k - 1) / (k * (e + n - 1)) if r in ties else 1 / (e + n - 1) for r in range(n)]


def _top_set(chart: Chart) -> set[int] | None:
    import sympy

    solved = solve_equalities(chart.path.constraints, chart.logvars)
    if solved is None or solved.get("empty"):
        return None
    names = list(chart.logvars.values())
    top = {chart.m}
    for a in range(chart.n):
        if a == chart.m:
            continue
        g = sympy.expand(chart.logvars[f"G{a}"].xreplace(solved))
        if g == 0:
            top.add(a)
        elif not any(0 not in allowed and _proportional(sympy.expand(sympy.sympify(d).xreplace(solved)), g, names)
                     for d, allowed in chart.path.constraints):
            return None  # the gap may be 0 at some points of the path and not at others
    return top


def _proportional(e: Any, g: Any, names: list[Any]) -> bool:
    """Whether the affine ``e`` is ``k·g`` for a rational ``k != 0`` (so ``e`` and ``g`` vanish together)."""
    ae, ag = affine(e, names), affine(g, names)
    if ae is None or ag is None:
        return False
    ve, vg = [ae[0], *ae[1]], [ag[0], *ag[1]]
    i = next((j for j, x in enumerate(vg) if x != 0), None)
    if i is None or ve[i] == 0:
        return False
    k = ve[i] / vg[i]
    return all(x == k * y for x, y in zip(ve, vg))


def _gap_scales(coefficients: dict, paths: list[Path], mechanism: AnyMechanism) -> list[Fraction]:
    """The exponent scales the law's exponentials use: each positive coefficient of a score gap."""
    return sorted({c for v, cs in coefficients.items() if str(v).startswith("G") for c in cs if c > 0})


def _grr_epsilons(coefficients: dict, paths: list[Path], mechanism: AnyMechanism) -> list[Fraction]:
    """ε of a GRR law: the rational exponents of the constants ``e^x`` its probabilities use, and the claim's ε
    when rational (each is checked, none is assumed); none when the law's exponentials involve a score."""
    import sympy

    if coefficients:
        return []
    out = set()
    for path in paths[:4]:
        for v in path.values:
            v = sympy.sympify(v, strict=True)
            if v.has(sympy.E):
                out.add(Fraction(1))
            out |= {Fraction(int(x.args[0].p), int(x.args[0].q)) for x in v.atoms(sympy.exp) if x.args[0].is_Rational}
    eps = Real.of(mechanism.epsilon)
    if eps.is_rational:
        out.add(Fraction(eps.value))
    return sorted(x for x in out if x > 0)


def _pf(c: Any) -> AnyMechanism:
    from ...mechanisms.permute_and_flip import PermuteAndFlip

    return PermuteAndFlip(epsilon=c * 2, sensitivity=1)  # exponent scale ε/2Δ = c


def _em(c: Any) -> AnyMechanism:
    from ...mechanisms.exponential import ExponentialMechanism

    return ExponentialMechanism(epsilon=c * 2, sensitivity=1)


def _grr(eps: Any) -> AnyMechanism:
    from ...mechanisms.randomized_response import GeneralizedRandomizedResponse

    return GeneralizedRandomizedResponse(epsilon=eps, tie_break="uniform")


#: the registered laws tried, in order (a law is at most one of them: they differ at every n >= 2)
REFERENCES: tuple[Reference, ...] = (
    Reference("permute-and-flip", "pf Algorithm 1, Lemma 2", _pf_values, _pf, _gap_scales),
    Reference("exponential mechanism", "pf Definition 4", _em_values, _em, _gap_scales),
    Reference("generalized randomized response", "brr eq. (6), ties shared", _grr_values, _grr, _grr_epsilons,
              per_path=True, parameter="ε"),
)


def identified_law(mechanism: AnyMechanism, n: int, deadline: float | None = None
                   ) -> tuple[Reference, Fraction, int] | None:
    """``(reference, parameter, paths checked)`` when the law equals a registered law with that parameter (PF,
    EM: the exponent scale c; GRR: ε) at every score vector of length ``n`` (module docstring); None when no
    identity is shown."""
    try:
        alive: list[tuple[Reference, Fraction]] | None = None
        paths_checked = 0
        # chart by chart, keeping the (reference, parameter) candidates every path so far agrees with: a law
        # that is none of them costs the first chart's run only
        for m in range(n):
            coefficients: dict = {}
            paths, logvars, algvars = run_permuted(mechanism, n, m, list(range(n)), deadline, coefficients)
            if alive is None:
                alive = [(ref, c) for ref in REFERENCES for c in ref.params(coefficients, paths, mechanism)]
            alive = [(ref, c) for ref, c in alive if _chart_agrees(ref, c, n, m, paths, logvars, algvars, deadline)]
            paths_checked += len(paths)
            if not alive:
                return None
        return (*alive[0], paths_checked) if alive else None
    except (Unsupported, OutOfBudget, TooLarge, ZeroDivisionError, ValueError):
        return None


def _chart_agrees(ref: Reference, c: Fraction, n: int, m: int, paths: list[Path], logvars: dict, algvars: dict,
                  deadline: float | None) -> bool:
    """Whether every path of chart ``m`` gives the reference's probabilities where it is taken."""
    shared = None
    for path in paths:
        check_deadline(deadline)
        chart = Chart(n, m, logvars, algvars, path)
        if ref.per_path or shared is None:
            values = ref.values(c, chart)
            if values is None:
                solved = solve_equalities(path.constraints, logvars)
                if solved is not None and (solved.get("empty") or region_empty(path.constraints, solved, logvars)):
                    continue  # no point takes this path
                return False
            shared = Path((), tuple(values))
        if not paths_agree(path, shared, list(range(n)), logvars, algvars, n):
            return False
    return True


@dataclass(frozen=True)
class LawIdentity:
    """Proof unit: a ``define_mechanism`` law identified with a registered law, then its theorem (module
    docstring).

    Args:
        seconds: CPU budget of one claim (the symbolic runs and the identities). Measured on the hand-written
            laws (examples/hand_written_selection.py): PF 0.06 / 0.2 / 0.8 / 4.8 / 35 CPU-s at n = 3 / 4 / 5 / 6 / 7
            (8 … 256 paths; n = 8 not done in 120), EM <= 0.25 CPU-s up to n = 8 — so PF is identified up to
            n = 6 within the default budget, EM up to ``max_n``.
        max_n: largest n attempted.
    """

    seconds: float = 20.0
    max_n: int = 8
    name: str = "law identity"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: object) -> bool:
        from ...mechanisms.defined import FunctionMechanism
        from ...mechanisms.loader import GuardedMechanism

        inner = mechanism.inner if isinstance(mechanism, GuardedMechanism) else mechanism
        return (isinstance(inner, FunctionMechanism) and inner.pmf_function is not None
                and mechanism_properties(mechanism).certified and isinstance(relation, (LInfBox, MonotoneBox))
                and isinstance(n, int) and 2 <= n <= self.max_n and inner.size in (None, n))

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> None:
        """None: the level is a supremum at infinity; the router's level search certifies finite witnesses."""
        return

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Proof | None:
        from .selection_theorems import theorem_proof

        if not self.supports(mechanism, n, relation):
            return None
        assert isinstance(n, int) and isinstance(relation, (LInfBox, MonotoneBox))  # what supports() checked
        found, seconds = _identified(mechanism, n, self.seconds)
        if found is None:
            return None
        ref, c, paths = found
        law = ref.mechanism(Real.of(c))
        proof = theorem_proof(law, n, relation)
        if proof is None:
            return None
        return Proof(upper_float=proof.upper_float, method="law identity + theorem", upper=proof.upper,
                     theorem=(f"the law equals {ref.name}'s ({ref.citation}) with {ref.parameter} = {c} at every "
                              f"score vector of length {n} (exact rational identity on each of {paths} branch paths "
                              f"of the {n} charts); then {proof.theorem}"),
                     domain={"n": n, "epsilon": str(Real.of(mechanism.epsilon)), "neighbourhood": relation.describe(),
                             "scores": "R^n", "law": f"{ref.name}, {ref.parameter} = {c} (proved identical at n = {n})"},
                     details={"unit": self.name, "tight": proof.details.get("tight"), "reference": ref.name,
                              "parameter": f"{ref.parameter} = {c}", "paths": paths,
                              "cpu_seconds": round(seconds, 3)})


#: the last identities: (id(mechanism), n) -> (mechanism, result, CPU seconds it took); a claim asks before its
#: scope search and again for its bracket
_CACHE: dict = {}


def _identified(mechanism: AnyMechanism, n: int, seconds: float) -> tuple[tuple[Reference, Fraction, int] | None, float]:
    """:func:`identified_law` within ``seconds`` of CPU, once per mechanism and n: ``(result, CPU seconds spent)``."""
    key = (id(mechanism), n)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is mechanism:
        return hit[1], hit[2]
    t0 = time.process_time()
    out = identified_law(mechanism, n, t0 + seconds)
    spent = time.process_time() - t0
    if len(_CACHE) > 32:
        _CACHE.clear()
    _CACHE[key] = (mechanism, out, spent)
    return out, spent
