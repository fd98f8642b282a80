"""A solved reduced LP (:class:`LPSolution`) and the two measures every route takes of its point:
the largest violation of the full LP's rows and bounds, and the total expected error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .regular_lp import RegularLP
from .tree_bounds import OptimumBounds

__all__ = ["LPSolution"]


@dataclass(frozen=True)
class LPSolution:
    """A solved reduced LP.

    Attributes:
        lp: the LP.
        z: float64 probabilities ``z(c, ℓ)`` (unscaled), one per LP variable.
        optimal_total_error: ``Σ_{q∈Q} E[err(M*, q)]`` in score units (float, primal value).
        dual_total_error: the dual objective value in the same units (equal up to tolerance).
        seconds: wall-clock time spent in HiGHS (all rounds).
        status: HiGHS model status string.
        method: the route used.
        primal_infeasibility: max violation of the full LP's rows and bounds by ``z``
            (relative to row scale 1, measured after the solve, not HiGHS's own number).
        dual_infeasibility: HiGHS's max dual infeasibility (last round).
        col_basic, row_basic: a basis of the z-form LP (rows: sum-to-one, then privacy).
        rounds: generation rounds (1 for the direct routes).
        active_columns, active_rows: size of the final restricted LP (generation).
        bounds: proven float64 interval around the optimum (:mod:`.tree_bounds`); when the
            solution is not a vertex (``col_basic is None``), ``z`` is its feasible point.
    """

    lp: RegularLP
    z: np.ndarray
    optimal_total_error: float
    dual_total_error: float
    seconds: float
    status: str
    method: str
    primal_infeasibility: float
    dual_infeasibility: float
    col_basic: np.ndarray | None
    row_basic: np.ndarray | None
    rounds: int = 1
    iterations: int = 0
    active_columns: int = 0
    active_rows: int = 0
    basis: Any = field(default=None, repr=False, compare=False)
    bounds: "OptimumBounds | None" = field(default=None, repr=False, compare=False)

    @property
    def is_vertex(self) -> bool:
        return self.col_basic is not None


def _primal_violation(lp: RegularLP, z: np.ndarray) -> float:
    rho = lp.rho_float()
    rows = z[lp.row_var] - rho * z[lp.row_other]
    sums = np.bincount(lp.var_class, weights=lp.var_count * z, minlength=len(lp.classes))
    return float(max(0.0, -rows.min(initial=0.0), -z.min(initial=0.0), np.abs(sums - 1).max()))


def _total_error(lp: RegularLP, z: np.ndarray) -> float:
    mult = np.array([float(m) for m in lp.var_mult])
    return float(np.sum(mult * lp.var_count * lp.var_level * z)) * 2 * lp.sensitivity.to_float()
