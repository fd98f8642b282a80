"""The optimal ε-LDP channel for a loss matrix: a linear program, solved by HiGHS and certified
exactly when e^ε is rational.

Variables ``P[x, y] >= 0`` (N×M). Constraints (brr Definition 2.2, eq. 2, and row sums):

    Σ_y P[x, y] = 1                               for every input x,
    P[x, y] − e^ε P[x', y] <= 0                   for every output y and inputs x ≠ x'.

Objectives (``objective=``):

* ``"prior"`` (default): minimise the expected loss ``Σ_x π_x Σ_y λ(x, y) P[x, y]`` — for the
  uniform prior this is ``Q_g`` of brr eq. 11;
* ``"worst-case"``: minimise ``t`` subject to ``Σ_y λ(x, y) P[x, y] <= t`` for all x, i.e. the
  largest local error ``max_k Q^(k)`` (brr eq. 10), which equals the worst prior's ``Q_g``
  (a prior-free notion of "global" optimality).

Utilities (``kind="utility"``) are maximised (the LP minimises ``−λ``); reported values are in
the matrix's own units.

Solving: HiGHS (highspy) dual simplex in float64 — the float optimum is HiGHS's estimate,
reported with its primal/dual infeasibilities. Certification (``certify=True`` and
e^ε = exp(ε) rational, e.g. ε = log(3/2)): the optimal *basis* reported by HiGHS is re-solved in
exact rational arithmetic (``flint.fmpq_mat``): with B the basic columns and R the rows whose
slack is non-basic, ``A[R, B] p_B = b[R]`` gives the primal vertex and ``A[R, B]^T y_R = c_B``
the duals. The certificate checks, exactly, primal feasibility (``p >= 0``, every row), dual
feasibility (reduced costs ``c − A^T y >= 0`` on bounded columns, ``= 0`` on free ones; ``y <= 0``
on ``<=`` rows) and ``c^T p = b^T y``: by weak duality ``c^T p`` is then the exact optimum.
If a check fails (a wrong basis from floating-point pivoting) the result says
``certified=False`` — nothing is patched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, Sequence

import numpy as np

from ..cost_limits import check_cost
from ..mechanisms.validation import positive_real
from .channel import Channel, _check_prior
from .cost_model import estimate_optimal_ldp_cost
from .generalized_rr import exp_epsilon
from .losses import LossMatrix

__all__ = ["OptimalLDP", "optimal_ldp_channel", "MAX_LP_DOMAIN"]

#: N·N·M privacy rows: keep the LP small enough for an exact certificate.
MAX_LP_DOMAIN = 40

Objective = Literal["prior", "worst-case"]


@dataclass(frozen=True)
class OptimalLDP:
    """Result of the optimal-channel LP.

    Attributes:
        value: optimum in the loss's units (float: HiGHS's primal objective).
        exact_value: the certified exact optimum (Fraction) or ``None``.
        certified: whether the exact certificate passed.
        solution: HiGHS's float64 ``P`` (N×M), an estimate (entries may be off by ~1e-15).
        channel: the certified optimal channel with exact rational entries, or ``None``.
        objective: ``"prior"`` or ``"worst-case"``.
        primal_infeasibility, dual_infeasibility: HiGHS's reported maxima.
        details: certificate diagnostics (basis size, failed check if any).
    """

    value: float
    exact_value: Fraction | None
    certified: bool
    solution: np.ndarray
    channel: Channel | None
    objective: str
    primal_infeasibility: float
    dual_infeasibility: float
    details: dict = field(default_factory=dict, compare=False)


def _build(lam: tuple[tuple[Fraction, ...], ...], a: Any, weights: Sequence[Fraction], objective: str):
    """Rows as dicts col -> coefficient (``a`` is a Fraction or a float), bounds and costs."""
    n, m = len(lam), len(lam[0])
    nv = n * m + (1 if objective == "worst-case" else 0)
    rows: list[dict[int, Any]] = []
    lower: list[float] = []
    upper: list[float] = []
    inf = float("inf")
    for x in range(n):
        rows.append({x * m + y: 1 for y in range(m)})
        lower.append(1.0)
        upper.append(1.0)
    for y in range(m):
        for x in range(n):
            for x2 in range(n):
                if x != x2:
                    rows.append({x * m + y: 1, x2 * m + y: -a})
                    lower.append(-inf)
                    upper.append(0.0)
    if objective == "worst-case":
        t = n * m
        for x in range(n):
            r = {x * m + y: lam[x][y] for y in range(m) if lam[x][y] != 0}
            r[t] = -1
            rows.append(r)
            lower.append(-inf)
            upper.append(0.0)
        cost = [Fraction(0)] * (n * m) + [Fraction(1)]
        col_lower = [0.0] * (n * m) + [-inf]
    else:
        cost = [weights[x] * lam[x][y] for x in range(n) for y in range(m)]
        col_lower = [0.0] * (n * m)
    return nv, rows, lower, upper, cost, col_lower


def optimal_ldp_channel(loss: LossMatrix, epsilon: Any, prior: Sequence[Any] | None = None,
                        objective: Objective = "prior", certify: bool = True,
                        max_seconds: float | None = None, max_memory: Any = "default") -> OptimalLDP:
    """Optimal ε-LDP channel for ``loss`` (see the module docstring).

    Args:
        loss: N×M :class:`LossMatrix` (N <= MAX_LP_DOMAIN).
        epsilon: ε > 0; certification needs e^ε rational (``"log(3)"``, ``"log(5/4)"``).
        prior: prior on the inputs (default uniform); ignored for ``"worst-case"``.
        objective: ``"prior"`` or ``"worst-case"``.
        certify: attempt the exact certificate when e^ε is rational.
        max_seconds, max_memory: budgets checked against :mod:`.cost_model` before the LP is
            built (``None``: no time check; memory default: half the physical RAM).

    Raises:
        ValueError: bad ε, prior, objective, or N above :data:`MAX_LP_DOMAIN`;
            :class:`~dpexact.cost_limits.CostLimitError` when over a budget.
        RuntimeError: HiGHS does not report an optimum.
    """
    import highspy
    import scipy.sparse as sp

    if not isinstance(loss, LossMatrix):
        loss = LossMatrix.from_rows(loss)
    if objective not in ("prior", "worst-case"):
        raise ValueError(f"objective must be 'prior' or 'worst-case', got {objective!r}")
    n, m = loss.shape
    if n > MAX_LP_DOMAIN:
        raise ValueError(f"loss: N = {n} exceeds MAX_LP_DOMAIN = {MAX_LP_DOMAIN} (the LP has N²M rows)")
    check_cost(estimate_optimal_ldp_cost(n, m), max_seconds=max_seconds, max_memory=max_memory)
    eps = positive_real(epsilon, "epsilon")
    a = exp_epsilon(eps)
    w = _check_prior(prior, n) or tuple(Fraction(1, n) for _ in range(n))
    lam = loss.as_loss()
    sign = 1 if loss.kind == "loss" else -1
    nv, rows, lower, upper, cost, col_lower = _build(lam, a.to_float(), w, objective)

    data, ri, ci = [], [], []
    for i, r in enumerate(rows):
        for j, v in r.items():
            ri.append(i)
            ci.append(j)
            data.append(float(v))
    A = sp.csc_matrix((data, (ri, ci)), shape=(len(rows), nv))
    inf = highspy.kHighsInf
    model = highspy.HighsLp()
    model.num_col_ = nv
    model.num_row_ = len(rows)
    model.col_cost_ = np.array([float(c) for c in cost])
    model.col_lower_ = np.array([-inf if v == -np.inf else v for v in col_lower])
    model.col_upper_ = np.full(nv, inf)
    model.row_lower_ = np.array([-inf if v == -np.inf else v for v in lower])
    model.row_upper_ = np.array(upper)
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = A.indptr.astype(np.int32)
    model.a_matrix_.index_ = A.indices.astype(np.int32)
    model.a_matrix_.value_ = A.data
    model.a_matrix_.num_col_ = nv
    model.a_matrix_.num_row_ = len(rows)
    from ..highs import silent_highs

    h = silent_highs()
    h.setOptionValue("solver", "simplex")
    h.passModel(model)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    if status != "Optimal":
        raise RuntimeError(f"HiGHS did not find an optimum: {status}")
    info = h.getInfo()
    sol = np.asarray(h.getSolution().col_value)
    value = sign * float(info.objective_function_value)
    P = sol[: n * m].reshape(n, m)
    details: dict[str, Any] = {"rows": len(rows), "columns": nv}
    exact_value = None
    channel = None
    certified = False
    if certify and a.is_rational:
        basis = h.getBasis()
        if basis.valid:
            col_basic = [s == highspy.HighsBasisStatus.kBasic for s in basis.col_status]
            row_basic = [s == highspy.HighsBasisStatus.kBasic for s in basis.row_status]
            _, rows_q, lower_q, upper_q, cost_q, _ = _build(lam, a.value, w, objective)
            res = _certify(rows_q, lower_q, upper_q, cost_q, col_lower, col_basic, row_basic, nv)
            details.update(res["details"])
            if "dual_value" in details:
                details["dual_value"] = str(sign * Fraction(details["dual_value"]))
            if res["ok"]:
                certified = True
                exact_value = sign * res["value"]
                p = res["p"]
                ch_rows = [[p[x * m + y] for y in range(m)] for x in range(n)]
                channel = Channel.from_rows(ch_rows, loss, prior, name=f"optimal-ldp({objective})")
        else:
            details["failed"] = "HiGHS returned no valid basis"
    elif certify:
        details["failed"] = "e^epsilon is irrational: no exact certificate (float optimum only)"
    return OptimalLDP(value, exact_value, certified, P, channel, objective,
                      float(info.max_primal_infeasibility), float(info.max_dual_infeasibility), details)


def _certify(rows, lower, upper, cost, col_lower, col_basic, row_basic, nv) -> dict[str, Any]:
    from flint import fmpq, fmpq_mat

    def q(v: Any) -> Any:
        v = Fraction(v)
        return fmpq(v.numerator, v.denominator)

    B = [j for j in range(nv) if col_basic[j]]
    R = [i for i in range(len(rows)) if not row_basic[i]]
    det = {"basic_columns": len(B), "tight_rows": len(R)}
    if len(B) != len(R):
        return {"ok": False, "details": {**det, "failed": "basis is not square"}}
    k = len(B)
    pos = {j: t for t, j in enumerate(B)}
    M = fmpq_mat(k, k)
    for r_i, i in enumerate(R):
        for j, v in rows[i].items():
            if j in pos:
                M[r_i, pos[j]] = q(v)
    # non-basic rows sit at a bound: equality rows at 1, "<= 0" rows at 0
    rhs = fmpq_mat(k, 1, [q(1) if lower[i] == upper[i] else q(upper[i]) for i in R])
    try:
        pb = M.solve(rhs)
        yr = M.transpose().solve(fmpq_mat(k, 1, [q(cost[j]) for j in B]))
    except ZeroDivisionError:
        return {"ok": False, "details": {**det, "failed": "singular basis matrix"}}
    p = [fmpq(0)] * nv
    for t, j in enumerate(B):
        p[j] = pb[t, 0]
    for j in range(nv):
        if col_lower[j] == 0 and p[j] < 0:
            return {"ok": False, "details": {**det, "failed": f"primal: p[{j}] = {p[j]} < 0"}}
    for i, r in enumerate(rows):
        s = sum((q(v) * p[j] for j, v in r.items()), fmpq(0))
        if (lower[i] != float("-inf") and s < q(lower[i])) or s > q(upper[i]):
            return {"ok": False, "details": {**det, "failed": f"primal: row {i} violated"}}
    y = [fmpq(0)] * len(rows)
    for t, i in enumerate(R):
        y[i] = yr[t, 0]
        if lower[i] != upper[i] and y[i] > 0:  # "<= 0" row: dual must be <= 0
            return {"ok": False, "details": {**det, "failed": f"dual: y[{i}] = {y[i]} > 0"}}
    red = [q(c) for c in cost]
    for i, r in enumerate(rows):
        if y[i] != 0:
            for j, v in r.items():
                red[j] -= y[i] * q(v)
    for j in range(nv):
        if (col_lower[j] == 0 and red[j] < 0) or (col_lower[j] != 0 and red[j] != 0):
            return {"ok": False, "details": {**det, "failed": f"dual: reduced cost of column {j} is {red[j]}"}}
    primal = sum((q(c) * p[j] for j, c in enumerate(cost)), fmpq(0))
    dual = sum((y[i] * q(lower[i]) for i in range(len(rows)) if lower[i] == upper[i]), fmpq(0))
    if primal != dual:
        return {"ok": False, "details": {**det, "failed": f"objectives differ: {primal} vs {dual}"}}
    det["dual_value"] = str(dual)
    return {"ok": True, "value": Fraction(int(primal.p), int(primal.q)), "p": p, "details": det}
