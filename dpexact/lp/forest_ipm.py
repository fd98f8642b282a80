"""Interior point on the reduced LP with its privacy forest eliminated (routes ``"forest-ipm"``, ``"forest-cg"``).

**Tree elimination.** Every variable ``z(v)`` has at most one privacy row ``z(v) >= ρ z(p(v))``
(:mod:`.privacy_forest`). With the row slacks ``x_v = z(v) − ρ z(p(v))`` (``x_v = z(v)`` at a
root) the substitution ``z = T x``, ``z(v) = Σ_{u ancestor-or-self of v} ρ^{d(v)−d(u)} x_u``,
is exact and maps ``x >= 0`` onto the whole feasible cone (``z >= 0`` follows: ``T >= 0``).
The LP becomes the standard form

    minimise ĉ·x   subject to   Â x = 1,  x >= 0,      Â = E T  (classes × variables),  ĉ = Tᵀ cost,

with one row per class and no other row: ``Â[c, u] = Σ_{v ∈ subtree(u), class(v) = c} c_ℓ(v)
ρ^{d(v)−d(u)}`` (built by one walk up the forest per variable, ``Σ_v (depth(v)+1)`` entries),
``ĉ`` by one leaves-to-roots sweep. Its dual ``max Σ_c U_c  s.t.  Âᵀ U <= ĉ`` is the laminar
dual of :mod:`.tree_bounds` (the subtree sums ``R_v >= 0``).

**Interior point.** Mehrotra's predictor-corrector (Wright, *Primal-Dual Interior-Point
Methods*, 1997, ch. 10) on that form, started from a strictly feasible primal (the row slacks
of exponential weights at ε/2, whose rows all hold with ratio ``e^{−ε/2} > ρ``) and a strictly
feasible dual (``U = −α·1``: every entry of ``Â`` is positive). Each iteration solves the
class system ``Â D Âᵀ Δy = r`` (``D = x / s``) twice:

* ``"forest-ipm"``: ``Â D Âᵀ`` formed and Cholesky-factored densely (``C × C``, LAPACK). The
  tree rows never enter a factorisation, but the class system is dense after the elimination
  (every class reaches the root's subtree), so memory is ``8 C²`` bytes per copy (24 C² at the
  peak: sparse product, dense matrix, factor) and work ``C³/3`` flops per iteration: Q(8, 8)
  (6 435 classes) 10 CPU s per iteration, 16–26 iterations to a width <= 1e-8; Q(9, 9) needs
  14 GB and Q(10, 10) 206 GB, and the route refuses there with that estimate.
* ``"forest-cg"``: matrix-free (products with ``Â`` and ``Âᵀ`` only, O(nnz Â) each) by the
  conjugate gradient with the Jacobi preconditioner ``diag(Â D Âᵀ)``, capped per solve;
  runs at every size the LP can be built, within a time budget, to moderate accuracy only.
  Measured (benchmarks/README.md): the class system's conditioning grows like ``1/μ`` and
  neither Jacobi nor a basis (splitting) preconditioner built from the iterate's largest
  ``x/s`` keeps CG short before the last iterations; with CG capped the dual side still
  converges (lower end 5.6e-5 below the optimum at Q(8, 8), ε = 1/4) but the primal drifts
  (upper end 7.3e-3 above), so the interval stalls near 1e-2 … 1e-3 at Q(6, 6) … Q(8, 8);
  at Q(10, 10) a 19-minute budget (135 CPU s) ends at 5e-2 (ε = 1/4) and 1.5e-1 (ε = 1/2).

**Proven result.** Every few iterations the iterate is turned into a proven interval by
:func:`.tree_bounds.optimum_bounds` (``z = T x`` and the class duals ``y``); the best lower
and the best upper end over all iterates are kept (each is a proof on its own). The run stops
when the interval's relative width reaches ``target_width``, at the time or iteration budget,
or when the iterates stop improving; the solution carries the interval (``bounds``) and, as
``z``, the proven-feasible point of its upper end. It is never a vertex.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..cost_limits import CostEstimate, check_cost
from .privacy_forest import PrivacyForest, privacy_forest
from .regular_lp import RegularLP
from .tree_bounds import OptimumBounds, optimum_bounds

__all__ = ["ForestForm", "forest_form", "solve_forest_ipm", "dense_class_system_bytes", "FOREST_ROUTES"]

FOREST_ROUTES = ("forest-ipm", "forest-cg")
#: fraction of the step to the boundary (Wright 1997, ch. 10)
_STEP_FRACTION = 0.995
#: CG: relative residual and iteration cap per solve
_CG_TOL, _CG_MAX = 1e-9, 500


@dataclass(frozen=True)
class ForestForm:
    """The LP after eliminating the privacy forest (module docstring), float64.

    Attributes:
        a: ``Â`` (classes × variables, CSR); ``a_t``: its transpose (CSR); ``a_sq``: entrywise square.
        cost: ``ĉ = Tᵀ cost`` in the units of :meth:`RegularLP.float_arrays` (objective / ``2Δ|Q|``).
        forest: the privacy forest; ``rho``: ``e^{−ε}`` (float).
    """

    a: Any
    a_t: Any
    a_sq: Any
    cost: np.ndarray
    forest: PrivacyForest
    rho: float

    def z_from_slacks(self, x: np.ndarray) -> np.ndarray:
        """``z = T x`` (one roots-to-leaves sweep)."""
        z = np.array(x, dtype=np.float64, copy=True)
        f = self.forest
        for grp in f.levels[1:]:
            z[grp] += self.rho * z[f.parent[grp]]
        return z

    def slacks_from_z(self, z: np.ndarray) -> np.ndarray:
        """``x = T⁻¹ z``: the privacy rows' slacks (``z`` itself at the roots)."""
        f = self.forest
        x = np.array(z, dtype=np.float64, copy=True)
        nr = f.parent >= 0
        x[nr] -= self.rho * z[f.parent[nr]]
        return x


def forest_form(lp: RegularLP) -> ForestForm:
    """Build ``Â`` and ``ĉ`` of ``lp`` (cached on the LP)."""
    if "forest_form" in lp._cache:
        return lp._cache["forest_form"]
    import scipy.sparse as sp

    f = privacy_forest(lp)
    rho = lp.rho_float()
    nv, nc = lp.num_vars, len(lp.classes)
    cls = lp.var_class
    cnt = lp.var_count.astype(np.float64)
    mult = np.array([float(m) for m in lp.var_mult]) / float(lp.num_vectors)
    rows, cols, vals = [], [], []
    cur, w = np.arange(nv), cnt.copy()
    alive = np.ones(nv, dtype=bool)
    while alive.any():  # entry (class(v), u, c_ℓ(v) ρ^{d(v)−d(u)}) for every ancestor-or-self u of v
        idx = np.flatnonzero(alive)
        rows.append(cls[idx])
        cols.append(cur[idx])
        vals.append(w[idx])
        nxt = f.parent[cur[idx]]
        alive[idx] = nxt >= 0
        cur[idx] = nxt
        w = w * rho
    a = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(nc, nv))
    a.sum_duplicates()
    cost = f.subtree_sums(mult * cnt * lp.var_level, rho)
    form = ForestForm(a, a.T.tocsr(), a.multiply(a).tocsr(), cost, f, rho)
    lp._cache["forest_form"] = form
    return form


def dense_class_system_bytes(classes: int) -> float:
    """Peak bytes of the dense class system of ``"forest-ipm"`` (product, dense copy, factor)."""
    return 24.0 * classes * classes


def _cg(matvec: Callable[[np.ndarray], np.ndarray], r: np.ndarray, inv_diag: np.ndarray, tol: float,
        maxit: int, deadline: float = np.inf) -> tuple[np.ndarray, int]:
    """Jacobi-preconditioned conjugate gradient for ``M x = r`` (M symmetric positive definite),
    stopped early at the ``time.perf_counter()`` value ``deadline``."""
    x = np.zeros_like(r)
    res = r.copy()
    z = inv_diag * res
    p = z.copy()
    rz = res @ z
    stop = tol * np.linalg.norm(r)
    for it in range(1, maxit + 1):
        q = matvec(p)
        alpha = rz / (p @ q)
        x += alpha * p
        res -= alpha * q
        if np.linalg.norm(res) <= stop or (it % 16 == 0 and time.perf_counter() > deadline):
            return x, it
        z = inv_diag * res
        rz_new = res @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, maxit


def _cholesky(g: np.ndarray) -> Any:
    """Cholesky factor of the class system, shifted by ``δ·max diag`` (δ = 0, 1e-14, …, 1e-8) when
    it is numerically semidefinite (late iterations: ``D`` spans 1e±10); ``None`` if all fail."""
    import scipy.linalg as sla

    diag = g.diagonal().copy()
    for shift in (0.0, 1e-14, 1e-12, 1e-10, 1e-8):
        if shift:
            np.fill_diagonal(g, diag + shift * diag.max())
        try:
            return sla.cho_factor(g, lower=True, overwrite_a=False, check_finite=False)
        except np.linalg.LinAlgError:
            continue
    return None


def _max_step(v: np.ndarray, dv: np.ndarray) -> float:
    neg = dv < 0
    return float(min(1.0, np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0


@dataclass
class _Best:
    lower: float = -np.inf
    upper: float = np.inf
    upper_bounds: OptimumBounds | None = None
    repair: float = 0.0

    def update(self, b: OptimumBounds) -> None:
        if b.lower > self.lower:
            self.lower, self.repair = b.lower, b.dual_repair
        if b.upper < self.upper:
            self.upper, self.upper_bounds = b.upper, b

    @property
    def relative_width(self) -> float:
        return (self.upper - self.lower) / self.upper if self.upper > 0 and np.isfinite(self.upper) else np.inf


def solve_forest_ipm(
    lp: RegularLP,
    *,
    linear_solver: str = "dense",
    target_width: float = 1e-8,
    time_limit: float | None = None,
    max_iterations: int = 200,
    max_memory: Any = "default",
    progress: Callable[[str, str], None] | None = None,
) -> Any:
    """Solve ``lp`` by the tree-eliminated interior point (module docstring); returns an ``LPSolution``.

    Args:
        lp: the reduced LP.
        linear_solver: ``"dense"`` (route ``"forest-ipm"``) or ``"cg"`` (route ``"forest-cg"``).
        target_width: stop once the proven interval's relative width is at most this.
        time_limit: wall-clock seconds; at the limit the best proven interval so far is returned
            (``status`` says so).
        max_iterations: interior-point iteration cap.
        max_memory: bytes (default half the physical RAM): ``"dense"`` refuses, before any
            allocation, when its class system does not fit.
        progress: called as ``progress("note", text)`` after each iteration that computes bounds.

    Raises:
        CostLimitError: (``"dense"``) the dense class system exceeds ``max_memory``; the message
            gives the estimate.
        RuntimeError: no iterate gave a finite proven interval.
    """
    from .solution import LPSolution, _primal_violation, _total_error

    if linear_solver not in ("dense", "cg"):
        raise ValueError(f"linear_solver must be 'dense' or 'cg', got {linear_solver!r}")
    if not (isinstance(target_width, float) and 0 < target_width < 1):
        raise ValueError(f"target_width must be a float in (0, 1), got {target_width!r}")
    if not (isinstance(max_iterations, int) and max_iterations >= 1):
        raise ValueError(f"max_iterations must be a positive int, got {max_iterations!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    nc = len(lp.classes)
    route = "forest-ipm" if linear_solver == "dense" else "forest-cg"
    if linear_solver == "dense":
        need = dense_class_system_bytes(nc)
        check_cost(CostEstimate(f"{route}: dense class system of {nc} classes", need, 0.0,
                                "24 bytes per entry of the C × C class system", {}), max_memory=max_memory)
    import scipy.linalg as sla

    report = progress or (lambda kind, text: None)
    t_start = time.perf_counter()
    deadline = t_start + time_limit if time_limit is not None else np.inf
    form = forest_form(lp)
    a, a_t, c = form.a, form.a_t, form.cost
    nv = lp.num_vars
    b = np.ones(nc)
    # strictly feasible start: exponential weights at ε/2 (primal), U = −α·1 (dual)
    cnt = lp.var_count.astype(np.float64)
    pw = np.sqrt(form.rho) ** lp.var_level
    z0 = pw / np.bincount(lp.var_class, weights=cnt * pw, minlength=nc)[lp.var_class]
    x = form.slacks_from_z(z0)
    if x.min() <= 0:
        raise ArithmeticError("epsilon: the ε/2 start is not strictly inside the privacy cone in float64")
    col_mass = a_t @ b
    alpha = 1e-3 * max(float(c.max()), 1e-300) / float(col_mass.max())
    y = -alpha * b
    s = c - a_t @ y
    if s.min() <= 0:
        raise ArithmeticError("the dual start is not strictly feasible in float64")
    best = _Best()
    status, cg_total, it = "Iteration limit reached", 0, 0
    stall, last_width = 0, np.inf
    for it in range(1, max_iterations + 1):
        d = x / s
        rp = b - a @ x
        rd = c - a_t @ y - s
        mu = float(x @ s) / nv
        if linear_solver == "dense":
            m = a.multiply(np.sqrt(d)).tocsr()
            g = (m @ m.T).toarray()
            del m
            factor = _cholesky(g)
            if factor is None:
                status = "Numerical trouble"
                break

            def solve(r: np.ndarray) -> np.ndarray:
                return sla.cho_solve(factor, r, check_finite=False)
        else:
            inv_diag = 1.0 / (form.a_sq @ d)

            def solve(r: np.ndarray) -> np.ndarray:
                nonlocal cg_total
                out, used = _cg(lambda v: a @ (d * (a_t @ v)), r, inv_diag, _CG_TOL, _CG_MAX, deadline)
                cg_total += used
                return out

        def direction(rc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            # S Δx + X Δs = rc, Â Δx = rp, Âᵀ Δy + Δs = rd  (normal equations in Δy)
            dy = solve(rp - a @ (rc / s - d * rd))
            ds = rd - a_t @ dy
            return rc / s - d * ds, dy, ds

        dx, dy, ds = direction(-x * s)
        ap, ad = _max_step(x, dx), _max_step(s, ds)
        mu_aff = float((x + ap * dx) @ (s + ad * ds)) / nv
        sigma = (mu_aff / mu) ** 3
        dx, dy, ds = direction(-x * s + sigma * mu - dx * ds)
        ap, ad = _STEP_FRACTION * _max_step(x, dx), _STEP_FRACTION * _max_step(s, ds)
        x += ap * dx
        y += ad * dy
        s += ad * ds
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            status = "Numerical trouble"
            break
        out_of_time = time.perf_counter() > deadline
        if linear_solver == "dense" or it % 3 == 0 or it == max_iterations or out_of_time:
            try:
                best.update(optimum_bounds(lp, form.z_from_slacks(x), y))
            except ArithmeticError:
                pass
            width = best.relative_width
            elapsed = time.perf_counter() - t_start
            report("note", f"{route} iteration {it}: μ = {mu:.2e}, proven relative width {width:.2e}"
                           + (f", {cg_total} CG steps" if linear_solver == "cg" else "") + f", {elapsed:.1f} s")
            if width <= target_width:
                status = "Target width reached"
                break
            stall = stall + 1 if width > 0.5 * last_width else 0
            last_width = min(last_width, width)
            if stall >= 6:
                status = "Stalled"
                break
        if out_of_time:
            status = "Time limit reached"
            break
    if best.upper_bounds is None or not np.isfinite(best.lower):
        raise RuntimeError(f"{route}: no proven interval after {it} iterations ({status})")
    bounds = replace(best.upper_bounds, lower=best.lower, dual_repair=best.repair)
    z = bounds.z
    return LPSolution(
        lp=lp,
        z=z,
        optimal_total_error=_total_error(lp, z),
        dual_total_error=bounds.lower,
        seconds=time.perf_counter() - t_start,
        status=status,
        method=route,
        primal_infeasibility=_primal_violation(lp, z),
        dual_infeasibility=float(max(0.0, -(c - a_t @ y).min())),
        col_basic=None,
        row_basic=None,
        iterations=it,
        active_columns=nv,
        active_rows=nc,
        bounds=bounds,
    )

