"""Search drivers over families of score vectors, and the ``verify`` entry point.

Families (all vectors exact rationals, multiples of Δ/2 unless stated):

* ``grid``       — every vector of ``values^n`` (exhaustive small grids, n <= 6);
* ``structured`` — staircases ``(0, -sΔ, -2sΔ, ...)``, ``(c, ..., c, 0)`` for c in a range,
                   all-ties ``(0, ..., 0)`` and two-level ties;
* ``random``     — uniform random vectors on a Δ/8-grid (seeded);
* ``local``      — adversarial local search: L-BFGS-B on ``(q, z)`` maximising the float
                   log-ratio ``log P(q)_r - log P(q + z)_r`` inside the box, started from the
                   top triples of the other families; the optimum is rounded to rationals,
                   clipped into the box exactly, and certified like every other pair.

:func:`verify` screens every family in float, certifies candidates (ball/exact), and returns a
:class:`~.verdict.Verdict` whose scope lists what was covered.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from ...numbers.real import Real
from ...protocols import Mechanism, check_mechanism, mechanism_properties, mechanism_size
from ..decide.certified_ratio import PmfCache
from ..neighbourhoods import LInfBox, MonotoneBox, Neighbourhood, as_vector, default_neighbourhood
from ..decide.pure_dp import ScopeResult, check_pairs, neighbour_pairs
from ..verdict import Scope, Verdict, build_verdict
from ..options import honours

__all__ = ["grid_family", "structured_family", "random_family", "local_search", "verify", "SEARCHES", "fixed_size"]

Vector = tuple[Fraction, ...]
SEARCHES = ("grid", "structured", "random", "local")
MAX_GRID = 50_000
CHUNK = 8
#: pairs per progress step of the full certification (the result accumulates over the steps)
CERTIFY_CHUNK = 2000


def grid_family(n: int, values: Sequence[Any]) -> list[Vector]:
    """All ``len(values)^n`` vectors (n <= 6)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 6:
        raise ValueError(f"n must be an integer in 1..6 for exhaustive grids, got {n!r}")
    vals = sorted(set(as_vector(values, "values")))
    if len(vals) ** n > MAX_GRID:
        raise ValueError(f"values: {len(vals)}^{n} vectors exceed the grid limit {MAX_GRID}")
    return [tuple(v) for v in itertools.product(vals, repeat=n)]


def structured_family(n: int, delta: Any = 1, depth: int = 4) -> list[Vector]:
    """Staircases, ``(c, ..., c, 0)``, ties: the shapes where selection mechanisms are extremal."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 64:
        raise ValueError(f"n must be an integer in 1..64, got {n!r}")
    d = as_vector([delta], "delta")[0]
    if d <= 0:
        raise ValueError(f"delta must be > 0, got {d}")
    out: set[Vector] = set()
    for s in (Fraction(1, 2), Fraction(1), Fraction(2)):
        out.add(tuple(-k * s * d for k in range(n)))
    for k in range(-2 * depth, 2 * depth + 1):
        c = Fraction(k, 2) * d
        out.add((c,) * (n - 1) + (Fraction(0),))
    out.add((Fraction(0),) * n)
    for m in range(1, n):
        for gap in (Fraction(1), Fraction(2), Fraction(3)):
            out.add((Fraction(0),) * m + (-gap * d,) * (n - m))
    return sorted(out)


#: most exact entries a random family holds (Fractions: ~1 µs and ~100 B each)
MAX_RANDOM_ENTRIES = 1_000_000


def random_family(n: int, count: int, low: Any, high: Any, seed: int = 0) -> list[Vector]:
    """``count`` random vectors with entries on the 1/8-grid of ``[low, high]`` (seeded)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1 or count > 100_000:
        raise ValueError(f"count must be an integer in 1..100000, got {count!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1 or n * count > MAX_RANDOM_ENTRIES:
        raise ValueError(f"n: {count} random vectors of n = {n} scores exceed the limit of {MAX_RANDOM_ENTRIES} "
                         "exact entries")
    lo, hi = as_vector([low, high], "range")
    if not lo < hi:
        raise ValueError(f"low must be < high, got [{lo}, {hi}]")
    rng = np.random.default_rng(seed)
    steps = int((hi - lo) * 8)
    return [tuple(lo + Fraction(int(k), 8) for k in rng.integers(0, steps + 1, size=n)) for _ in range(count)]


def fixed_size(mechanism: Mechanism) -> int | None:
    """Number of candidates a mechanism is tied to (its protocol ``size``), else None."""
    return mechanism_size(mechanism)


def _is_integer(v: Vector) -> bool:
    return all(x.denominator == 1 for x in v)


@dataclass(frozen=True)
class _IntegerPoints:
    """The integer score vectors of a relation (for mechanisms declaring ``integer_scores``)."""

    inner: Neighbourhood
    name: str = "integer-points"

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        return self.inner.contains(q, q2)

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        return [v for v in self.inner.candidates(q, steps) if _is_integer(v)]

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def describe(self) -> str:
        return f"{self.inner.describe()}, integer score vectors"


def _box_for_pair(nb: Neighbourhood, q: Vector, q2: Vector) -> tuple[list[Fraction], list[Fraction]] | None:
    """Bounds for the offset z = q' - q in local optimisation."""
    if isinstance(nb, LInfBox):
        d = nb.deltas(len(q))
        return [-x for x in d], list(d)
    if isinstance(nb, MonotoneBox):
        d = nb.sensitivity
        up = all(b >= a for a, b in zip(q, q2))
        return ([Fraction(0)] * len(q), [d] * len(q)) if up else ([-d] * len(q), [Fraction(0)] * len(q))
    return None


def local_search(
    mechanism: Mechanism,
    neighbourhood: Neighbourhood,
    starts: Sequence[tuple[Vector, Vector, int]],
    q_range: tuple[Any, Any],
    maxiter: int = 40,
    denominator: int = 64,
) -> list[tuple[Vector, Vector]]:
    """Climb the float log-ratio from each start (q, q', r); return the rounded optima as pairs.

    Optimises ``log P(q)_r - log P(q+z)_r`` over ``q ∈ [lo, hi]^n`` and ``z`` in the
    neighbourhood's box (L-BFGS-B, finite-difference gradients). Results are rounded to
    multiples of ``1/denominator`` and clipped into the box *exactly*; they are only
    candidates — certification happens in :func:`check_pairs`.
    """
    from scipy.optimize import minimize

    lo, hi = (float(x) for x in as_vector(q_range, "q_range"))
    out: list[tuple[Vector, Vector]] = []
    for q, q2, r in starts:
        box = _box_for_pair(neighbourhood, q, q2)
        if box is None:
            continue
        n = len(q)
        zl, zh = box

        def f(x: np.ndarray) -> float:
            a, z = x[:n], x[n:]
            la = mechanism.logpmf(a)[r]
            lb = mechanism.logpmf(a + z)[r]
            v = la - lb
            return -v if np.isfinite(v) else (-1e6 if v > 0 else 1e6)

        x0 = np.array([float(v) for v in q] + [float(b - a) for a, b in zip(q, q2)])
        bounds = [(lo, hi)] * n + [(float(a), float(b)) for a, b in zip(zl, zh)]
        try:
            opt = minimize(f, x0, method="L-BFGS-B", bounds=bounds, options={"maxiter": maxiter})
        except (ValueError, FloatingPointError):
            continue
        x = opt.x
        qa = tuple(Fraction(float(v)).limit_denominator(denominator) for v in x[:n])
        z = [min(max(Fraction(float(v)).limit_denominator(denominator), a), b) for v, a, b in zip(x[n:], zl, zh)]
        qb = tuple(a + dz for a, dz in zip(qa, z))
        if qa != qb and neighbourhood.contains(qa, qb):
            out.append((qa, qb) if qa <= qb else (qb, qa))
    return out


def _default_plan(mechanism: Mechanism, delta: Fraction) -> list[tuple[str, list[Vector]]]:
    n_fixed = mechanism_size(mechanism)
    vals2 = [k * delta for k in range(4)]
    vals3 = [k * delta for k in range(3)]
    if n_fixed is not None:
        vals = [k * delta / 2 for k in range(5)] if n_fixed <= 3 else [k * delta for k in range(2)]
        return [("grid", grid_family(n_fixed, vals)), ("structured", structured_family(n_fixed, delta))]
    return [
        ("grid", grid_family(2, vals2) + grid_family(3, vals3)),
        ("structured", structured_family(3, delta, depth=2)),
    ]


def integer_scope(mechanism: Mechanism, nb: Neighbourhood, plan: list[tuple[str, list[Vector]]]
                  ) -> tuple[Neighbourhood, list[tuple[str, list[Vector]]]]:
    """The relation and families restricted to integer score vectors when the mechanism declares
    ``integer_scores`` (its law is defined there only); unchanged otherwise."""
    if not mechanism_properties(mechanism).integer_scores:
        return nb, plan
    return _IntegerPoints(nb), [(fam, [v for v in vecs if _is_integer(v)]) for fam, vecs in plan]


def scope_plan(mechanism: Mechanism, searches: Sequence[str], n: int | None = None, values: Sequence[Any] | None = None,
               random_count: int = 50, seed: int = 0) -> list[tuple[str, list[Vector]]]:
    """The score-vector families ``[(name, vectors), ...]`` of a scope (module docstring): the
    default plan, or grid / structured families on n candidates, plus the random family."""
    delta = Real.of(mechanism.sensitivity).to_fraction()
    n_fixed = mechanism_size(mechanism)
    if n is not None and n_fixed is not None and n != n_fixed:
        raise ValueError(f"n: the mechanism is tied to {n_fixed} candidates, got n = {n}")
    n_use = n if n is not None else n_fixed
    plan: list[tuple[str, list[Vector]]] = []
    if n is None and values is None:
        plan = [p for p in _default_plan(mechanism, delta) if p[0] in searches]
    else:
        nn = n_use if n_use is not None else 3
        if "grid" in searches:
            plan.append(("grid", grid_family(nn, values if values is not None else [k * delta for k in range(3)])))
        if "structured" in searches:
            plan.append(("structured", structured_family(nn, delta)))
    if "random" in searches:
        nn = n_use if n_use is not None else 3
        plan.append(("random", random_family(nn, random_count, 0, 3 * delta, seed)))
    return plan


@honours("neighbourhood", "searches", "n", "values", "steps")
def verify(
    mechanism: Mechanism,
    neighbourhood: Neighbourhood | None = None,
    searches: Sequence[str] = ("grid", "structured", "local"),
    *,
    n: int | None = None,
    values: Sequence[Any] | None = None,
    random_count: int = 50,
    seed: int = 0,
    steps: int = 1,
    local_starts: int = 5,
    prec: int = 128,
    name: str | None = None,
    progress: Callable[[str, str], None] | None = None,
    checked: bool = False,
) -> Verdict:
    """Verify pure ε-DP (ε = the mechanism's *claimed* epsilon) over a finite scope.

    Args:
        mechanism: any :class:`dpexact.protocols.Mechanism`; its ``size`` fixes n, its
            ``neighbourhood()`` is the default relation, and a mechanism that does not declare
            ``properties.certified`` (a sampler-only black box) gets an uncertified verdict.
        neighbourhood: the relation (default ``mechanism.neighbourhood()``).
        searches: any of ``grid``, ``structured``, ``random``, ``local``.
        n, values: grid size and score values (default: n=2 on {0..3}Δ and n=3 on {0..2}Δ).
        random_count, seed: size and seed of the random family.
        steps: lattice resolution of the box neighbours (1 = vertices and face centres).
        local_starts: number of top triples used to start the local search.
        prec: ball precision (bits).
        name: registry name for the report.
        progress: called as ``progress("step", text)`` when a phase starts (screening a family,
            local search, certifying the scope).
        checked: the caller (the router) has already passed ``mechanism`` through
            :func:`dpexact.protocols.check_mechanism`; it is not validated a second time.
    """
    t0 = time.perf_counter()
    report = progress or (lambda kind, text: None)
    bad = [s for s in searches if s not in SEARCHES]
    if bad or not searches:
        raise ValueError(f"searches must be a non-empty subset of {SEARCHES}, got {list(searches)}")
    if not checked:
        check_mechanism(mechanism)
    nb = neighbourhood if neighbourhood is not None else default_neighbourhood(mechanism)
    delta = Real.of(mechanism.sensitivity).to_fraction()
    scope = Scope(neighbourhood=nb.describe())
    plan = scope_plan(mechanism, searches, n, values, random_count, seed)
    props = mechanism_properties(mechanism)
    if props.integer_scores:  # the mechanism is defined on integer scores only
        nb, plan = integer_scope(mechanism, nb, plan)
        searches = tuple(s for s in searches if s != "local")
        scope.neighbourhood = nb.describe()
    if not props.certified:  # a sampler-only black box: statistical screen, never certified
        from .statistical_screen import statistical_screen

        vecs = sorted({v for _, vs in plan for v in vs})
        return statistical_screen(mechanism, nb, vecs, steps=steps, seed=seed, name=name)
    cache = PmfCache(mechanism, prec)
    res = ScopeResult()
    all_vecs: list[Vector] = []
    local_found: list[tuple[Vector, Vector]] = []
    for fam, vecs in plan:
        scope.families[fam] = len(vecs)
        all_vecs.extend(vecs)
        pairs = neighbour_pairs(vecs, nb, steps)
        for i in range(0, len(pairs), CHUNK):  # screen in chunks: stop at the first proved violation
            report("step", f"screening the {fam} family: pairs {i + 1}-{min(i + CHUNK, len(pairs))} of {len(pairs)}")
            check_pairs(mechanism, pairs[i : i + CHUNK], nb, certify_all=False, prec=prec, cache=cache, result=res)
            if res.counterexample is not None:
                break
        if res.counterexample is not None:
            break
    if res.counterexample is None and "local" in searches and res.worst_float_triple is not None:
        lo = min(min(v) for v in all_vecs) - 2 * delta if all_vecs else -3 * delta
        hi = max(max(v) for v in all_vecs) + 2 * delta if all_vecs else 3 * delta
        report("step", "local search from the worst triples")
        starts = _top_triples(cache, all_vecs, nb, steps, local_starts)
        scope.local_search_starts = len(starts)
        found = local_search(mechanism, nb, starts, (lo, hi))
        local_found = found
        scope.families["local"] = len(found)
        if found:
            check_pairs(mechanism, found, nb, certify_all=False, prec=prec, cache=cache, result=res)
    if res.counterexample is None:
        # full certification of the whole scope
        full = ScopeResult()
        pairs = neighbour_pairs(all_vecs, nb, steps)
        pairs = pairs + [p for p in local_found if p not in set(pairs)]
        for i in range(0, len(pairs), CERTIFY_CHUNK):  # chunked only to report progress: one result accumulates
            report("step", f"certifying every triple: pairs {i + 1}-{min(i + CERTIFY_CHUNK, len(pairs))} of {len(pairs)}")
            check_pairs(mechanism, pairs[i : i + CERTIFY_CHUNK], nb, certify_all=True, prec=prec, cache=cache, result=full)
            if full.counterexample is not None:
                break
        full.worst_float = max(full.worst_float, res.worst_float)
        if res.worst_float_triple is not None and res.worst_float >= full.worst_float:
            full.worst_float_triple = res.worst_float_triple
        res = full
    scope.vectors = len(cache._float)
    scope.pairs, scope.triples = res.pairs, res.triples
    scope.decided_ball, scope.decided_exact, scope.undecided = res.decided_ball, res.decided_exact, res.undecided
    if res.undecided_triples:
        scope.notes.append(f"undecided triples (q, q', r, log-ratio enclosure), first {len(res.undecided_triples)}: {res.undecided_triples[:3]}")
    if cache.exact_failure:
        scope.notes.append(cache.exact_failure)
    reason = ""
    if res.counterexample is not None:
        kind = "violated"
        worst = res.recheck.log_ratio_lo if res.recheck else res.counterexample.log_ratio_lo
        wp = res.counterexample.as_dict()
    elif res.certified_all:
        kind = "private-within-scope"
        worst = res.worst_certified_hi
        wp = _triple_dict(res.worst_certified_triple)
    else:
        kind = "inconclusive"
        worst = max(res.worst_certified_hi, max((u[4] for u in res.undecided_triples), default=-math.inf))
        wp = _triple_dict(res.worst_float_triple)
        reason = (f"{res.undecided} triples undecided in balls"
                  + (f" and the exact backend could not decide them: {cache.exact_failure}" if cache.exact_failure else ""))
    return build_verdict(mechanism, name=name, epsilon=Real.of(mechanism.epsilon), verdict=kind, scope=scope,
                         worst_log_ratio=float(worst), worst_float_log_ratio=float(res.worst_float), worst_pair=wp,
                         counterexample=res.counterexample, recheck=res.recheck, seconds=time.perf_counter() - t0,
                         reason=reason)


def _top_triples(cache: PmfCache, vecs: list[Vector], nb: Neighbourhood, steps: int, k: int) -> list[tuple[Vector, Vector, int]]:
    scored = []
    for q in vecs:
        la, _ = cache.logpmf(q)
        for q2 in nb.candidates(q, steps):
            lb, _ = cache.logpmf(q2)
            with np.errstate(invalid="ignore"):  # -inf - -inf: set below, not a warning in a notebook
                d = la - lb
            # P(q)_r = 0 in float (zero, or below float's range): no float loss to rank a start by
            d[np.isneginf(la)] = -np.inf
            if np.isnan(d).all():
                continue  # a float log-pmf of nan: nothing to rank (the scope's screen reports it)
            r = int(np.nanargmax(d))
            scored.append((float(d[r]), q, q2, r))
    scored.sort(key=lambda t: -t[0])
    return [(q, q2, r) for _, q, q2, r in scored[:k]]


def _triple_dict(t: tuple | None) -> dict | None:
    if t is None:
        return None
    q, q2, r = t
    return {"scores": [str(x) for x in q], "neighbour_scores": [str(x) for x in q2], "output": r}
