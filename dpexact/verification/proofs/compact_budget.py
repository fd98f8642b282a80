"""The cost bounds of the compact branch-and-bound: one CPU budget per claim, bounded expressions.

Every loop of the route (the law's symbolic runs, boxes, pairs of paths, faces, monotonicity tests)
calls :func:`check_deadline`; an operation on the exact rational functions beyond their bounds
(:mod:`.compact_fractions`: terms, degree) raises :class:`TooLarge`. Either ends the run: the unit then
proves nothing (the next unit of :data:`dpexact.verification.proofs.PROOFS` is tried) and reports why. No step
of the route calls sympy's ``simplify``, ``factor``, ``cancel`` or ``limit`` (whose cost has no useful
bound): cancellation is a gcd of flint polynomials.
"""

from __future__ import annotations

import time

__all__ = ["TooLarge", "OutOfBudget", "check_deadline"]


class TooLarge(Exception):
    """An exact step would run on an expression beyond the route's size bounds (the run gives up)."""


class OutOfBudget(Exception):
    """The claim's CPU budget (this process's time) is spent (the run gives up)."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`OutOfBudget` once this process's CPU time passes ``deadline``."""
    if deadline is not None and time.process_time() > deadline:
        raise OutOfBudget("CPU budget spent")
