"""The optimal regular mechanism on Q(n, k) as a mechanism object, and optimality ratios.

``optimal_mechanism(n, k, epsilon)`` solves the reduced LP (pf App. D, :mod:`.regular_lp`)
and wraps the optimal ``z(c, ℓ)`` as a :class:`~dpexact.mechanisms.SelectionMechanism`:
``pmf(q)`` is defined for score vectors on the bounded lattice, i.e. ``q* − q_r ∈ 2Δ·{0..k}``
for every r (a shift of Q(n, k)); elsewhere it raises ``ValueError``. The LP optimum need
not be unique; the object is the vertex the solver returned (exactly certified when
``certify=True`` and e^{−ε} is rational).

Optimality ratio (pf §5, Figure 2; the paper's displayed fraction has ``M_*`` in both
places, a typo): ``Σ_{q∈Q} E[err(M, q)] / Σ_{q∈Q} E[err(M*, q)]``. Convention: ``>= 1`` for
every regular ε-DP mechanism (the LP is a relaxation of that class), ``1`` means optimal on
Q(n, k). A mechanism that declares symmetry (``properties.symmetric``, pf eq. 1; checked by
:mod:`dpexact.conformance.checks`) is evaluated once per class and weighted by its multiplicity;
any other mechanism is evaluated on every vector of Q(n, k) (at most :data:`MAX_VECTORS`).
Requires n >= 2 and k >= 1 (otherwise every error is 0).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..mechanisms.base import SelectionMechanism
from ..numbers.backends import Backend, get_backend
from ..numbers.certified import Certified
from ..numbers.pmf import Pmf
from ..numbers.real import Real
from ..protocols import BatchFloatPmf, Mechanism, MechanismProperties, check_mechanism, mechanism_properties, mechanism_size
from .exact_certificate import ExactCertificate, certify_exact
from .lattice import LatticeClass, check_float_sums, check_nk, count_classes, count_vectors, lattice_classes, lattice_vectors
from .regular_lp import Boundary, build_regular_lp
from .solver import LPSolution, solve_regular_lp

__all__ = ["OptimalRegularMechanism", "optimal_mechanism", "total_expected_error", "optimality_ratio", "MAX_VECTORS"]

#: largest |Q(n, k)| summed vector by vector for a mechanism that does not declare symmetry
MAX_VECTORS = 200_000
#: the optimality-ratio pilot samples among this many first members of the sum
PILOT_SPREAD = 50_000
#: members per call of ``pmf_float_batch`` (memory ~ BATCH_ROWS·n²/2 floats for PF)
BATCH_ROWS = 4096


@dataclass(frozen=True)
class OptimalRegularMechanism(SelectionMechanism):
    """LP-optimal regular mechanism on Q(n, k) (pf App. D); build with :func:`optimal_mechanism`."""

    solution: Any = field(default=None, compare=False, repr=False)
    certificate: Any = field(default=None, compare=False, repr=False)

    short_name: ClassVar[str] = "lp-opt"
    #: the reduced LP has one variable per (class, level): symmetric and shift-invariant by construction
    declared_properties: ClassVar[MechanismProperties] = MechanismProperties(symmetric=True, shift_invariant=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.solution, LPSolution):
            raise TypeError("solution must be an LPSolution (use optimal_mechanism())")
        if self.monotone:
            raise ValueError("monotone: the LP is for general qualities (ε/(2Δ)); monotone=True is not supported")

    @property
    def size(self) -> int:
        return self.solution.lp.n

    @property
    def n(self) -> int:
        return self.solution.lp.n

    @property
    def k(self) -> int:
        return self.solution.lp.k

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "sensitivity": str(self.sensitivity), "n": self.n, "k": self.k,
                "boundary": self.solution.lp.boundary}

    def _levels(self, q: list[Fraction]) -> tuple[LatticeClass, list[int]]:
        if len(q) != self.n:
            raise ValueError(f"scores: the mechanism is defined for n = {self.n} scores, got {len(q)}")
        d = self.sensitivity
        if not d.is_rational:
            raise ValueError("sensitivity must be rational to place scores on the lattice exactly")
        step = 2 * d.to_fraction()
        top = max(q)
        levels = []
        for v in q:
            l = (top - v) / step
            if l.denominator != 1 or l > self.k:
                raise ValueError(f"scores: {v} is not on the 2Δ-lattice within {self.k} steps of the maximum")
            levels.append(int(l))
        counts = [0] * (self.k + 1)
        for l in levels:
            counts[l] += 1
        return LatticeClass(tuple(counts)), levels

    def _var(self, cls: LatticeClass, level: int) -> int:
        return self.solution.lp.variable_index(cls, level)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        cls, levels = self._levels([Fraction(float(v)) for v in q])
        z = self.solution.z
        vals = np.array([z[self._var(cls, l)] for l in levels])
        if self.certificate is not None and self.certificate.certified:
            ex = [self.certificate.z[self._var(cls, l)] for l in levels]
            vals = np.array([int(e.p) / int(e.q) for e in ex])
            return Pmf(vals, "float", "lp-exact", rel_error=2.0**-52, abs_error=2.0**-53, error_kind="a-priori")
        tol = self.solution.primal_infeasibility
        return Pmf(vals, "float", f"lp-{self.solution.method}", rel_error=None, abs_error=max(tol, 1e-9),
                   error_kind="estimate", details={"note": "HiGHS vertex; abs_error = max(solver feasibility tolerance, primal violation)"})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        if not all(v.is_rational for v in q):
            raise ValueError("scores must be rational to lie on the lattice")
        if self.certificate is None or not self.certificate.certified:
            raise ValueError(f"backend {backend}: needs an exactly certified solution (optimal_mechanism(..., certify=True) with e^-ε rational)")
        cls, levels = self._levels([v.to_fraction() for v in q])
        ex = tuple(self.certificate.z[self._var(cls, l)] for l in levels)
        if backend.is_exact:
            return Pmf(ex, "exact", "lp-exact", rel_error=0.0, abs_error=0.0, error_kind="exact")
        from flint import arb

        vals = tuple(arb(e) for e in ex)
        return Pmf(vals, str(backend), "lp-exact", rel_error=0.0, abs_error=0.0, error_kind="rigorous")

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        p = np.maximum(self.pmf_float(q, None).values, 0.0)
        return rng.choice(p.size, size=size, p=p / p.sum())


def optimal_mechanism(
    n: int,
    k: int,
    epsilon: Any,
    *,
    sensitivity: Any = 1,
    boundary: Boundary = "clip",
    certify: bool = False,
    method: str = "auto",
) -> OptimalRegularMechanism:
    """Solve the LP on Q(n, k) and return the optimal mechanism (see the module docstring).

    ``certify=True`` certifies the solution exactly (needs e^{−ε} rational) and then the
    mechanism answers on the exact and ball backends too.
    """
    lp = build_regular_lp(n, k, epsilon, sensitivity=sensitivity, boundary=boundary)
    sol = solve_regular_lp(lp, method=method)  # type: ignore[arg-type]
    cert = None
    if certify:
        cert = certify_exact(sol)
        if not cert.certified:
            raise ArithmeticError(f"exact certification failed: {cert.failure}")
    return OptimalRegularMechanism(epsilon=lp.epsilon, sensitivity=lp.sensitivity, solution=sol, certificate=cert)


def total_expected_error(mechanism: Mechanism, n: int, k: int, backend: "str | Backend" = "float") -> Certified:
    """Sum of ``E[err(M, q)]`` over Q(n, k): one pmf per class when the mechanism declares
    symmetry, else one pmf per vector (``ValueError`` beyond :data:`MAX_VECTORS` vectors).

    Scores are ``q_r = −2Δℓ_r`` with Δ the mechanism's sensitivity. Float: the per-class
    bounds of :func:`dpexact.utility.expected_error`, weighted, plus the summation's rounding
    (``γ_m Σ``); exact: fmpq / sympy; ball: rigorous. A :class:`~dpexact.numbers.Certified` value.
    """
    check_nk(n, k)
    be = get_backend(backend)
    if be.is_float:
        check_float_sums(n, k)
    members, _ = _members(mechanism, n, k)
    if be.is_float and isinstance(mechanism, BatchFloatPmf):
        return _float_total_batched(mechanism, members, n, k)
    total: Any = None
    bound = 0.0
    count = 0
    fsum = 0.0
    kinds: list[str] = []
    for levels, m in members:
        ee = _class_error(mechanism, levels, be)
        count += 1
        kinds.append(ee.error_kind)
        if be.is_float:
            fsum += m * ee.as_float
            bound += m * ee.error_bound
        else:
            with be.context():  # the sum at the backend's precision (flint's default is 53 bits)
                total = ee.value * m if total is None else total + ee.value * m
    if be.is_float:
        return _float_total(fsum, bound, count, kinds)
    if be.is_ball or be.is_exact:
        return be.certify(total)
    f = float(total)
    return Certified(total, f, bound, "estimate", str(be))


def _float_total(fsum: float, bound: float, count: int, kinds: list[str]) -> Certified:
    """The float sum ``Σ m·E`` of ``count`` members with its bound: theirs weighted, plus the summation's ``γ_m Σ``."""
    gamma = (count * 2**-53) / (1 - count * 2**-53)
    return Certified(fsum, fsum, bound * (1 + gamma) + gamma * fsum, Certified.weakest(*kinds), "float")


def _float_total_batched(mechanism: Mechanism, members: Any, n: int, k: int) -> Certified:
    """:func:`total_expected_error` on the float backend through ``pmf_float_batch``
    (:class:`~dpexact.protocols.BatchFloatPmf`): the same scores (``-2Δℓ`` correctly rounded), the
    same per-member expected error and bound (:func:`dpexact.utility.expected_error.float_error_bound`),
    :data:`BATCH_ROWS` members at a time; a row the batch leaves out (NaN bound) goes through ``pmf``."""
    from ..utility.expected_error import float_error_bound

    two_delta = mechanism.sensitivity * 2
    table = np.array([(-(two_delta * l)).to_float() if l else 0.0 for l in range(k + 1)])
    fsum, bound, count = 0.0, 0.0, 0
    kinds = ["a-priori"]
    it = iter(members)
    while True:
        chunk = list(itertools.islice(it, BATCH_ROWS))
        if not chunk:
            break
        levels = np.array([lv for lv, _ in chunk], dtype=np.int64).reshape(len(chunk), n)
        mult = np.array([m for _, m in chunk], dtype=np.float64)
        Q = table[levels]
        P, rel = mechanism.pmf_float_batch(Q)
        gaps = Q.max(axis=1, keepdims=True) - Q
        E = np.einsum("bi,bi->b", gaps, P)
        B = float_error_bound(E, rel, n, gaps.sum(axis=1))
        for b in np.flatnonzero(~np.isfinite(rel)):
            ee = _class_error(mechanism, [int(v) for v in levels[b]], get_backend("float"))
            E[b], B[b] = ee.as_float, ee.error_bound
            kinds.append(ee.error_kind)
        fsum += float(np.sum(mult * E))
        bound += float(np.sum(mult * B))
        count += len(chunk)
    return _float_total(fsum, bound, count, kinds)


def _members(mechanism: Mechanism, n: int, k: int) -> tuple[Any, int]:
    """``((levels, multiplicity), …)`` summed by :func:`total_expected_error` and their count: the
    classes of Q(n, k) for a mechanism declaring symmetry, else every vector (refused beyond
    :data:`MAX_VECTORS`)."""
    check_mechanism(mechanism)
    size = mechanism_size(mechanism)
    if size is not None and size != n:
        raise ValueError(f"mechanism: it is tied to {size} candidates, but Q(n, k) has n = {n}")
    if mechanism_properties(mechanism).symmetric:
        _spot_check_symmetry(mechanism, n, k)
        return ((cls.levels(), cls.multiplicity) for cls in lattice_classes(n, k)), count_classes(n, k)
    if count_vectors(n, k) > MAX_VECTORS:
        raise ValueError(f"n, k: the mechanism does not declare symmetry, so every vector of Q({n}, {k}) is summed; "
                         f"{count_vectors(n, k)} vectors exceed the limit {MAX_VECTORS}")
    return ((v, 1) for v in lattice_vectors(n, k)), count_vectors(n, k)


def _class_error(mechanism: Mechanism, levels: Any, be: Backend) -> Certified:
    """``E[err(M, q)]`` at the scores ``q_r = −2Δℓ_r`` of ``levels``, on backend ``be``."""
    from ..utility.expected_error import expected_error

    two_delta = mechanism.sensitivity * 2
    scores = [-(two_delta * l) if l else Real.of(0) for l in levels]
    return expected_error(mechanism, [s.value if s.is_rational else s.to_sympy() for s in scores] if not be.is_float
                          else [s.to_float() for s in scores], backend=be)


#: entries (members × n) the pilot may walk through: estimating stays cheap for any n
PILOT_WALK_ENTRIES = 2_000_000


def ratio_seconds_estimate(mechanism: Mechanism, n: int, k: int, backend: "str | Backend" = "float", samples: int = 64,
                           budget: float = 0.5) -> float:
    """Estimated CPU seconds of :func:`total_expected_error` (the numerator of an optimality ratio),
    timed on a pilot: up to ``samples`` members spread over the first :data:`PILOT_SPREAD` of the sum
    (classes, or vectors for a mechanism without symmetry), at least 2 and no more than ``budget`` seconds of pilot, scaled
    to the member count. Raises what the sum would raise (a vector count over the limit, a false
    symmetry declaration) before any LP work."""
    import time

    check_nk(n, k)
    be = get_backend(backend)
    if be.is_float:
        check_float_sums(n, k)
    members, count = _members(mechanism, n, k)
    if be.is_float and isinstance(mechanism, BatchFloatPmf):
        pilot = list(itertools.islice(members, min(count, BATCH_ROWS, max(2, PILOT_WALK_ENTRIES // n))))
        _float_total_batched(mechanism, pilot[:2], n, k)  # untimed: first-call costs (nodes, imports)
        t = time.process_time()
        _float_total_batched(mechanism, pilot, n, k)
        return (time.process_time() - t) / max(len(pilot), 1) * count
    # members beyond the spread cost as much to walk to; walking one costs O(n), so the walk is bounded in entries too
    spread = min(count, PILOT_SPREAD, max(samples, PILOT_WALK_ENTRIES // n))
    step = max(1, spread // max(1, samples))
    spent, done = 0.0, 0
    _class_error(mechanism, [0] * n, be)  # untimed: first-call costs (imports, caches) would be scaled by the count
    for levels, _ in itertools.islice(members, step // 2, None, step):
        t = time.process_time()
        _class_error(mechanism, levels, be)
        spent += time.process_time() - t
        done += 1
        if done >= samples or (done >= 2 and spent > budget):
            break
    return spent / max(done, 1) * count


def _spot_check_symmetry(mechanism: Mechanism, n: int, k: int, classes: int = 3) -> None:
    """Refuse a false symmetry declaration before relying on it: on a few classes, the pmf of the
    reversed vector must be the reversed pmf within both float bounds (conformance checks more)."""
    two_delta = (mechanism.sensitivity * 2).to_float()
    done = 0
    for cls in lattice_classes(n, k):
        lv = cls.levels()
        if len(set(lv)) < 2 or lv == lv[::-1]:
            continue
        a = mechanism.pmf([-two_delta * l for l in lv])
        b = mechanism.pmf([-two_delta * l for l in lv[::-1]])
        pa, pb = np.asarray(a.values, dtype=float), np.asarray(b.values, dtype=float)[::-1]
        tol = a.abs_error + b.abs_error
        if np.any(np.abs(pa - pb) > tol):
            r = int(np.argmax(np.abs(pa - pb) - tol))
            raise ValueError(f"mechanism: it declares symmetry (pf eq. 1) but Pr[M(q) = {r}] = {pa[r]:.17g} and the mirrored "
                             f"probability {pb[r]:.17g} differ beyond their bounds at levels {lv}; fix its properties")
        done += 1
        if done >= classes:
            return


#: An optimality ratio is a :class:`~dpexact.numbers.Certified` value
#: ``Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]`` on Q(n, k) (>= 1; 1 = optimal): ``value`` float (or
#: exact ``fmpq`` when both sums are exact); ``error_bound`` bounds ``|value − true ratio|`` from
#: the numerator's bound and the optimum's: 0 when certified exactly, else the solution's proven
#: interval (:mod:`.tree_bounds`), else (a solution built by hand without bounds) the estimate
#: |primal − dual| + violation × Σ. ``details``: ``numerator`` (Certified), ``optimum`` (float).


def optimality_ratio(mechanism: Mechanism, solution: LPSolution, backend: "str | Backend" = "float",
                     certificate: ExactCertificate | None = None) -> Certified:
    """Optimality ratio of ``mechanism`` against the LP optimum in ``solution``.

    With ``backend="exact"`` and an exact ``certificate`` the ratio is an exact rational.
    """
    lp = solution.lp
    if lp.n < 2 or lp.k < 1:
        raise ValueError("n, k: the optimality ratio needs n >= 2 and k >= 1 (otherwise every error is 0)")
    if Real.of(mechanism.epsilon) - lp.epsilon != Real.of(0) or (mechanism.sensitivity - lp.sensitivity).sign() != 0:
        raise ValueError("mechanism: its epsilon and sensitivity must match the LP's")
    num = total_expected_error(mechanism, lp.n, lp.k, backend)
    if certificate is not None and certificate.certified:
        from flint import fmpq

        rational = isinstance(certificate.optimum, fmpq)
        opt_f = int(certificate.optimum.p) / int(certificate.optimum.q) if rational else float(Real.of(certificate.optimum).to_float())
        if num.error_kind == "exact" and isinstance(num.value, fmpq) and rational:
            val = num.value / certificate.optimum
            return Certified(val, int(val.p) / int(val.q), 0.0, "exact", "exact", {"numerator": num, "optimum": opt_f})
        lp_err = 0.0
    elif solution.bounds is not None:  # proven interval [L, U] around the optimum
        opt_f = solution.optimal_total_error
        lo, hi = solution.bounds.lower, solution.bounds.upper
        if lo <= 0:
            raise ArithmeticError("solution: the proven lower bound on the optimum is not positive")
        r = num.as_float / opt_f
        r_lo = (num.as_float - num.error_bound) / hi
        r_hi = (num.as_float + num.error_bound) / lo
        bound = max(r - r_lo, r_hi - r, 0.0) * (1 + 2**-50) + abs(r) * 2**-50
        return Certified(r, r, bound, Certified.weakest(num.error_kind, "a-priori"), "float",
                         {"numerator": num, "optimum": opt_f})
    else:
        opt_f = solution.optimal_total_error
        lp_err = abs(solution.optimal_total_error - solution.dual_total_error) + \
            solution.primal_infeasibility * opt_f + 1e-9 * opt_f
    r = num.as_float / opt_f
    bound = (num.error_bound + r * lp_err) / max(opt_f - lp_err, 1e-300) + abs(r) * 2**-52
    kind = Certified.weakest(num.error_kind, "a-priori") if lp_err == 0.0 else "estimate"
    return Certified(r, r, bound, kind, "float", {"numerator": num, "optimum": opt_f})
