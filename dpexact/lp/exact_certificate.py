"""Certify the LP optimum: exactly (e^{−ε} rational) or by a rigorous ball enclosure.

**Exact** (:func:`certify_exact`, pf App. D's LP with ``ρ = e^{−ε} ∈ Q``, e.g. ε = log 2).
Take the basis reported by the solver for the z-form LP

    min c·z   s.t.  A_eq z = 1 (one row per class),  A_p z >= 0 (privacy rows),  z >= 0,

``c_i = mult(c)·c_ℓ·ℓ`` (units of 2Δ). The nonbasic columns are 0 and the nonbasic rows are
active, which leaves a square system ``B z_B = b`` (nonbasic rows × basic columns); it is
solved in exact rational arithmetic (``flint.fmpq_mat``), and so is ``Bᵀ y = c_B`` for the
row duals. Then, all in ``fmpq``:

* primal feasibility: ``z >= 0``, every sum-to-one row ``= 1``, every privacy row ``>= 0``;
* dual feasibility: ``y_p >= 0`` on privacy rows, reduced costs ``c − Aᵀ y >= 0``;
* equal objectives ``c·z = Σ_classes y_eq``.

Together these prove that ``c·z`` is the exact optimum and ``z`` an optimal mechanism.

**Enclosure** (:func:`enclose_optimum`, any ε). Lower bound (Neumaier–Shcherbina): for any
row duals ``y`` (``y_p`` clipped to >= 0) and the a-priori bounds ``0 <= z(c, ℓ) <= 1/c_ℓ``
(from sum-to-one), ``c·z >= Σ y_eq + Σ_i min(0, d_i)/c_ℓ(i)`` with ``d = c − Aᵀ y``,
evaluated in ``arb``. Upper bound: the objective of a point proven feasible: the solver's
``z`` rounded to rationals, clipped at 0, renormalised per class exactly, then mixed with
the uniform mechanism (strictly feasible with slack ``(1 − ρ)/n``) just enough that every
privacy row is proven ``>= 0`` in ball arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..numbers.backends import ball_context
from ..numbers.real import Real
from .regular_lp import RegularLP
from .solver import LPSolution

__all__ = ["ExactCertificate", "OptimumEnclosure", "certify_exact", "enclose_optimum", "MAX_EXACT_VARS"]

#: dense exact solves are O(m^3) rational operations
MAX_EXACT_VARS = 4000


@dataclass(frozen=True)
class ExactCertificate:
    """Outcome of :func:`certify_exact`.

    Attributes:
        certified: all checks passed; ``optimum`` is then the exact optimal value.
        optimum: ``Σ_q E[err(M*, q)]`` in score units (``fmpq`` when Δ is rational).
        z: exact optimal probabilities ``z(c, ℓ)`` (``fmpq``), in LP variable order.
        y: exact row duals (sum-to-one rows, then privacy rows).
        checks: each check's outcome by name.
        failure: why certification failed (empty if certified).
    """

    certified: bool
    optimum: Any
    z: list[Any]
    y: list[Any]
    checks: dict[str, bool]
    failure: str = ""


def _basis_system(lp: RegularLP, sol: LPSolution) -> tuple[np.ndarray, np.ndarray]:
    if sol.col_basic is None or sol.row_basic is None:
        raise ValueError("solution: no basis available (use method='generation' or 'simplex', or ipm with crossover)")
    basic_cols = np.flatnonzero(sol.col_basic)
    nonbasic_rows = np.flatnonzero(~sol.row_basic)
    if basic_cols.size != nonbasic_rows.size:
        raise ValueError(f"solution: basis has {basic_cols.size} basic columns but {nonbasic_rows.size} active rows")
    return basic_cols, nonbasic_rows


def _row_entries(lp: RegularLP, r: int, rho: Any) -> list[tuple[int, Any]]:
    nc = len(lp.classes)
    if r < nc:
        s, e = int(lp.class_start[r]), int(lp.class_start[r + 1])
        return [(i, int(lp.var_count[i])) for i in range(s, e)]
    p = r - nc
    return [(int(lp.row_var[p]), 1), (int(lp.row_other[p]), -rho)]


def certify_exact(sol: LPSolution, max_vars: int = MAX_EXACT_VARS) -> ExactCertificate:
    """Exact rational certification of ``sol`` (needs e^{−ε} rational); see the module docstring."""
    from flint import fmpq, fmpq_mat

    lp = sol.lp
    rho_r = lp.rho
    if not rho_r.is_rational:
        raise ValueError(f"epsilon: e^(-epsilon) = {rho_r} is not rational; use enclose_optimum")
    if lp.num_vars > max_vars:
        raise ValueError(f"solution: {lp.num_vars} variables exceed max_vars={max_vars} for the dense exact solve")
    f = rho_r.to_fraction()
    rho = fmpq(f.numerator, f.denominator)
    nc = len(lp.classes)
    nrows = nc + lp.num_privacy_rows
    basic_cols, nonbasic_rows = _basis_system(lp, sol)
    m = basic_cols.size
    colpos = {int(c): j for j, c in enumerate(basic_cols)}
    B = fmpq_mat(m, m)
    rhs = fmpq_mat(m, 1)
    for a, r in enumerate(nonbasic_rows):
        for i, v in _row_entries(lp, int(r), rho):
            j = colpos.get(i)
            if j is not None:
                B[a, j] = B[a, j] + v
        rhs[a, 0] = 1 if r < nc else 0
    cost = [fmpq(int(lp.var_mult[i]) * int(lp.var_count[i]) * int(lp.var_level[i])) for i in range(lp.num_vars)]
    try:
        zb = B.solve(rhs)
        cb = fmpq_mat(m, 1, [cost[int(c)] for c in basic_cols])
        yb = B.transpose().solve(cb)
    except ZeroDivisionError:
        return ExactCertificate(False, None, [], [], {"basis_nonsingular": False}, "the basis matrix is singular")
    z = [fmpq(0)] * lp.num_vars
    for j, c in enumerate(basic_cols):
        z[int(c)] = zb[j, 0]
    y = [fmpq(0)] * nrows
    for a, r in enumerate(nonbasic_rows):
        y[int(r)] = yb[a, 0]
    checks: dict[str, bool] = {"basis_nonsingular": True}
    checks["z_nonnegative"] = all(v >= 0 for v in z)
    # row activities and reduced costs
    act = []
    red = list(cost)
    for r in range(nrows):
        s = fmpq(0)
        for i, v in _row_entries(lp, r, rho):
            s += v * z[i]
            red[i] -= v * y[r]
        act.append(s)
    checks["sum_to_one"] = all(a == 1 for a in act[:nc])
    checks["privacy_rows"] = all(a >= 0 for a in act[nc:])
    checks["privacy_duals_nonnegative"] = all(v >= 0 for v in y[nc:])
    checks["reduced_costs_nonnegative"] = all(v >= 0 for v in red)
    primal = sum((cost[i] * z[i] for i in range(lp.num_vars)), fmpq(0))
    dual = sum(y[:nc], fmpq(0))
    checks["equal_objectives"] = primal == dual
    ok = all(checks.values())
    scale = lp.sensitivity * 2
    if scale.is_rational:
        sf = scale.to_fraction()
        opt: Any = primal * fmpq(sf.numerator, sf.denominator)
    else:
        opt = Real(Fraction(int(primal.p), int(primal.q))) * scale
    failed = [k for k, v in checks.items() if not v]
    return ExactCertificate(ok, opt, z, y, checks, "" if ok else "failed: " + ", ".join(failed))


@dataclass(frozen=True)
class OptimumEnclosure:
    """A rigorous enclosure ``lower <= Σ_q E[err(M*, q)] <= upper`` (score units, arb balls' ends).

    ``lower``/``upper`` are arb balls; the enclosure is ``[lower.lower(), upper.upper()]``.
    ``mixing``: the weight λ of the uniform mechanism in the feasible point.
    """

    lower: Any
    upper: Any
    mixing: Fraction
    prec: int

    @property
    def width(self) -> float:
        return float((self.upper - self.lower).upper())


def _float_duals(lp: RegularLP, sol: LPSolution) -> np.ndarray:
    """Row duals of the z-form from the basis (float, sparse LU): ``Bᵀ y_N = c_B``."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    basic_cols, nonbasic_rows = _basis_system(lp, sol)
    rho = lp.rho_float()
    nc = len(lp.classes)
    colpos = -np.ones(lp.num_vars, dtype=np.int64)
    colpos[basic_cols] = np.arange(basic_cols.size)
    ri, ci, vals = [], [], []
    for a, r in enumerate(nonbasic_rows):
        for i, v in _row_entries(lp, int(r), rho):
            if colpos[i] >= 0:
                ri.append(a)
                ci.append(colpos[i])
                vals.append(float(v))
    m = basic_cols.size
    B = sp.csc_matrix((vals, (ri, ci)), shape=(m, m))
    cost = np.array([float(int(lp.var_mult[i]) * int(lp.var_count[i]) * int(lp.var_level[i])) for i in basic_cols])
    yN = spla.spsolve(B.T.tocsc(), cost) if m else np.zeros(0)
    y = np.zeros(nc + lp.num_privacy_rows)
    y[nonbasic_rows] = yN
    return y


def enclose_optimum(sol: LPSolution, prec: int = 128) -> OptimumEnclosure:
    """Rigorous ball enclosure of the LP optimum for any ε (see the module docstring)."""
    from flint import arb, fmpq

    lp = sol.lp
    if not isinstance(prec, int) or prec < 53:
        raise ValueError(f"prec must be an integer >= 53, got {prec!r}")
    with ball_context(prec):
        rho = lp.rho.to_arb(prec)
        nc = len(lp.classes)
        nv = lp.num_vars
        # ---- lower bound from duals -------------------------------------------------------
        y = _float_duals(lp, sol)
        y[nc:] = np.maximum(y[nc:], 0.0)
        yq = [arb(fmpq(*Fraction(float(v)).as_integer_ratio())) for v in y]
        red = [arb(int(lp.var_mult[i]) * int(lp.var_count[i]) * int(lp.var_level[i])) for i in range(nv)]
        for i in range(nv):
            red[i] -= int(lp.var_count[i]) * yq[int(lp.var_class[i])]
        for p in range(lp.num_privacy_rows):
            yp = yq[nc + p]
            red[int(lp.row_var[p])] -= yp
            red[int(lp.row_other[p])] += rho * yp
        lower = sum(yq[:nc], arb(0))
        for i in range(nv):
            d = red[i]
            if not d >= 0:  # min(0, d) over the ball, times the bound 1/c_ℓ
                lower += arb(d.lower()).min(arb(0)) / int(lp.var_count[i])
        # ---- upper bound from a proven-feasible rational point -----------------------------------
        zf = np.maximum(sol.z, 0.0)
        zq = [fmpq(*Fraction(float(v)).as_integer_ratio()) for v in zf]
        for j in range(nc):
            s, e = int(lp.class_start[j]), int(lp.class_start[j + 1])
            tot = sum((int(lp.var_count[i]) * zq[i] for i in range(s, e)), fmpq(0))
            for i in range(s, e):
                zq[i] = zq[i] / tot
        worst = arb(0)
        for p in range(lp.num_privacy_rows):
            sl = arb(zq[int(lp.row_var[p])]) - rho * arb(zq[int(lp.row_other[p])])
            v = -sl
            if not v <= 0:
                worst = worst.max(arb(v.upper()))
        n = lp.n
        margin = (1 - rho) / n  # slack of the uniform mechanism in every privacy row
        if worst == 0:
            lam = Fraction(0)
        else:
            # a row that is exactly tight gives a ball straddling 0 whose radius (~2^-prec) is all
            # of `worst`; mixing just enough to cover it leaves a slack of the same size as the
            # radii of the final check, which then cannot decide. Floor λ·margin at 2^(32-prec).
            lam_ball = (worst / (worst + margin.lower())).max(arb(2) ** (32 - prec) / margin.lower())
            lam = Fraction(str(float(lam_ball.upper()))) * 2  # a rational above it
            lam = min(lam, Fraction(1))
        lq = fmpq(lam.numerator, lam.denominator)
        zmix = [(1 - lq) * v + lq * fmpq(1, n) for v in zq]
        for p in range(lp.num_privacy_rows):
            sl = arb(zmix[int(lp.row_var[p])]) - rho * arb(zmix[int(lp.row_other[p])])
            if not sl >= 0:
                raise ArithmeticError("could not prove the repaired point feasible; raise prec")
        upper_q = sum((int(lp.var_mult[i]) * int(lp.var_count[i]) * int(lp.var_level[i]) * zmix[i] for i in range(nv)), fmpq(0))
        scale = (lp.sensitivity * 2).to_arb(prec)
        return OptimumEnclosure(lower * scale, arb(upper_q) * scale, lam, prec)
