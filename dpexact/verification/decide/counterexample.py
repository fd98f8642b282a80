"""A refutation of ε-DP: neighbours (q, q'), an output r and the ratio, re-checkable on demand.

``Counterexample.recheck("exact" | "ball")`` recomputes both pmfs from scratch and proves

    Pr[M(q) = r] > e^ε Pr[M(q') = r]                      (pf Definition 1 violated)

* ``exact``: ``P(q)_r - e^ε P(q')_r`` is formed exactly (fmpq or sympy) and its sign decided
  by :func:`~dpexact.verification.decide.certified_ratio.exact_sign`;
* ``ball``: ``(P(q)_r - e^ε P(q')_r).lower() > 0`` in arb at the requested precision, i.e. the
  lower end of the ratio ball exceeds the upper end of the ``e^ε`` ball.

It also re-checks, exactly, that ``q'`` is a neighbour of ``q`` in the stated relation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...numbers.backends import ball_context, get_backend
from ...numbers.real import Real
from ...numbers.backends import exact_sympy
from ...numbers.exp_lattice import exact_sign
from ...protocols import Mechanism
from ...schemas.numbers import list_with_exact

__all__ = ["Counterexample", "Recheck"]


@dataclass(frozen=True)
class Recheck:
    """Result of re-checking a counterexample.

    ``proved`` is True only if the violation and the neighbourhood were both proved;
    ``log_ratio_lo``/``hi`` enclose ``log(P(q)_r/P(q')_r)`` (from a ball; exact rechecks
    also report a ball enclosure); ``bound`` is ε.
    """

    proved: bool
    arithmetic: str
    log_ratio_lo: float
    log_ratio_hi: float
    bound: float
    neighbours: bool
    note: str = ""


@dataclass(frozen=True)
class Counterexample:
    """Neighbours ``scores ~ neighbour_scores`` and an output whose probability ratio exceeds e^ε."""

    mechanism: Mechanism
    neighbourhood: Any
    scores: tuple[Fraction, ...]
    neighbour_scores: tuple[Fraction, ...]
    output: int
    log_ratio_lo: float
    log_ratio_hi: float

    @property
    def epsilon(self) -> Real:
        return Real.of(self.mechanism.epsilon)

    def as_dict(self) -> dict[str, Any]:
        lo, hi = self.log_ratio_lo, self.log_ratio_hi
        return {
            "scores": [str(x) for x in self.scores],
            "neighbour_scores": [str(x) for x in self.neighbour_scores],
            "output": self.output,
            "ratio": _exp_str(lo, hi),
            **list_with_exact("log_ratio", [lo, hi]),  # null + log_ratio_exact "inf": an impossible output under q'
            "epsilon": str(self.epsilon),
        }

    def recheck(self, backend: str = "ball", prec: int = 256) -> Recheck:
        """Prove the violation in ``"exact"`` or ``"ball"`` arithmetic (``prec`` bits for ball)."""
        if backend not in ("exact", "ball"):
            raise ValueError(f"backend must be 'exact' or 'ball', got {backend!r}")
        nb = bool(self.neighbourhood.contains(self.scores, self.neighbour_scores))
        eps = self.epsilon
        with ball_context(prec):
            p1 = self.mechanism.pmf(list(self.scores), backend=f"ball:{prec}").values[self.output]
            p2 = self.mechanism.pmf(list(self.neighbour_scores), backend=f"ball:{prec}").values[self.output]
            E = eps.to_arb(prec).exp()
            D = p1 - E * p2
            if p1 > 0 and p2 > 0:
                lr = p1.log() - p2.log()
                lo, hi = float(lr.lower()), float(lr.upper())
            else:
                lo, hi = (float(D.lower()) > 0 and math.inf or -math.inf), math.inf
            ball_proved = bool(D.lower() > 0)
        if get_backend(backend).is_ball:
            return Recheck(ball_proved and nb, f"ball:{prec}", lo, hi, float(eps), nb,
                           "" if ball_proved else "ball cannot separate the ratio from e^ε")
        import sympy

        try:
            a = self.mechanism.pmf(list(self.scores), backend="exact").values[self.output]
            b = self.mechanism.pmf(list(self.neighbour_scores), backend="exact").values[self.output]
        except (ValueError, NotImplementedError) as exc:
            return Recheck(False, "exact", lo, hi, float(eps), nb, f"no exact backend: {exc}")
        s = exact_sign(exact_sympy(a) - sympy.exp(eps.to_sympy()) * exact_sympy(b))
        return Recheck(s == 1 and nb, "exact", lo, hi, float(eps), nb, "" if s is not None else "sign undecided")


def _exp_str(lo: float, hi: float) -> str:
    def e(x: float) -> str:
        if x == math.inf:
            return "inf"
        if x > 700:
            return f"e^{x:.6g}"
        return f"{math.exp(x):.10g}"

    return e(lo) if lo == hi else f"[{e(lo)}, {e(hi)}]"
