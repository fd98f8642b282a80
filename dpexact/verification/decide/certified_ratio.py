"""Deciding ``Pr[M(q)=r] <= e^ε Pr[M(q')=r]`` rigorously, with cached pmfs on three backends.

The privacy-loss ratio of one (q, q', r) triple is decided in this order:

1. **ball** (python-flint ``arb``, rigorous): with ``D = P(q)_r - e^ε P(q')_r`` as a ball,
   ``D.upper() <= 0`` proves the inequality and ``D.lower() > 0`` proves a violation;
2. **exact** (only when the ball cannot decide, i.e. the ratio equals e^ε up to the ball
   radius, and the mechanism has an exact backend): the sign of ``D`` is decided by
   :func:`exact_sign` — fmpq arithmetic when everything is rational (e.g. ε = 2·log 3),
   otherwise arb at growing precision and, for an exact tie, the exp-lattice identity test
   of :mod:`.symbolic_lattice` (which proves ``D = 0``);
3. otherwise the triple stays **undecided** (never counted as private).

Float pmfs are used only for screening (ordering candidates); their ``Pmf.rel_error`` is
carried into the screening report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from ...numbers.backends import ball_context, exact_sympy
from ...numbers.exp_lattice import exact_sign
from ...numbers.real import Real
from ...protocols import Mechanism
from ...mechanisms.base import MechanismCrash

__all__ = ["PmfCache", "PairDecision", "decide_pair", "Status"]

Status = Literal["le", "gt", "undecided"]
Vector = tuple[Fraction, ...]


@dataclass
class PmfCache:
    """Memoised pmfs of one mechanism (keyed by the exact score vector)."""

    mechanism: Mechanism
    prec: int = 128
    _float: dict = field(default_factory=dict)
    _ball: dict = field(default_factory=dict)
    _exact: dict = field(default_factory=dict)
    exact_available: bool | None = None
    #: why the exact backend stopped being used, when it crashed (reported in the verdict)
    exact_failure: str = ""
    evaluations: dict = field(default_factory=lambda: {"float": 0, "ball": 0, "exact": 0})

    def logpmf(self, q: Vector) -> tuple[np.ndarray, float]:
        """Float64 log-pmf and its stated relative error (inf when the mechanism states none)."""
        if q not in self._float:
            p = self.mechanism.pmf(np.array([float(x) for x in q]), backend="float")
            if p.logvalues is not None:
                lv = np.asarray(p.logvalues, dtype=float)
            else:
                with np.errstate(divide="ignore"):
                    lv = np.log(np.asarray(p.values, dtype=float))
            rel = p.rel_error if p.rel_error is not None else math.inf
            self._float[q] = (lv, float(rel))
            self.evaluations["float"] += 1
        return self._float[q]

    def ball(self, q: Vector) -> tuple:
        return self.balls_and_logs(q)[0]

    def ball_logs(self, q: Vector) -> tuple:
        """``log`` of each ball of :meth:`ball` (None where the ball is not positive), memoised."""
        return self.balls_and_logs(q)[1]

    def balls_and_logs(self, q: Vector) -> tuple[tuple, tuple]:
        """The ball pmf of ``q`` and the log of each entry (None where not positive), memoised
        together: one dict lookup per vector (hashing Fraction tuples dominates large scopes)."""
        v = self._ball.get(q)
        if v is None:
            balls = tuple(self.mechanism.pmf(list(q), backend=f"ball:{self.prec}").values)
            with ball_context(self.prec):
                logs = tuple(b.log() if b > 0 else None for b in balls)
            v = self._ball[q] = (balls, logs)
            self.evaluations["ball"] += 1
        return v

    def exact(self, q: Vector) -> tuple | None:
        """Exact pmf, or ``None`` when the mechanism has no exact backend or refuses this input.

        A refusal (``ValueError``: a size or cost limit on this vector, or no closed form) is
        remembered for this vector only, so that one large input does not switch off exact
        decisions for the others; ``NotImplementedError`` means no exact backend. Any other
        exception is a crash of the mechanism's exact pmf: exact decisions stop and
        :attr:`exact_failure` names it (the verdict's reason), never a silent fallback.
        """
        if self.exact_available is False:
            return None
        if q not in self._exact:
            try:
                self._exact[q] = tuple(self.mechanism.pmf(list(q), backend="exact").values)
                self.exact_available = True
            except NotImplementedError:
                self.exact_available = False
                return None
            except MechanismCrash as exc:
                self.exact_available = False
                self.exact_failure = f"the exact pmf failed on scores {[str(x) for x in q]}: {str(exc)[:200]}"
                return None
            except ValueError:
                self._exact[q] = None
                return None
            except Exception as exc:  # noqa: BLE001 - a crash: recorded and reported, not a verdict
                self.exact_available = False
                self.exact_failure = (f"the exact pmf raised {type(exc).__name__} on scores "
                                      f"{[str(x) for x in q]}: {str(exc)[:200]}")
                return None
            self.evaluations["exact"] += 1
        return self._exact[q]


@dataclass(frozen=True)
class PairDecision:
    """Outcome for one triple: ``status`` and a rigorous enclosure of the log-ratio.

    ``log_ratio_lo``/``log_ratio_hi`` enclose ``log(P(q)_r / P(q')_r)`` (floats rounded
    outward from the ball; ``inf`` for a zero denominator); ``arithmetic`` says which
    backend decided (``"ball:128"``, ``"exact"``) or ``"none"``.
    """

    status: Status
    log_ratio_lo: float
    log_ratio_hi: float
    arithmetic: str


def _log_enclosure(p1: Any, p2: Any) -> tuple[float, float]:
    """Outward-rounded float enclosure of log(p1/p2) from two arb balls (±inf when a ball touches 0)."""
    if not (p1 > 0) or not (p2 > 0):
        hi = math.inf if not (p2 > 0) else float((p1.upper() / p2.lower()).log().upper()) if p1.upper() > 0 else -math.inf
        lo = -math.inf if not (p1 > 0) else float((p1.lower() / p2.upper()).log().lower()) if p2.upper() > 0 else math.inf
        return lo, hi
    lr = p1.log() - p2.log()
    return _down(lr.lower()), _up(lr.upper())


def _down(x: Any) -> float:
    """A float <= the arb point x."""
    f = float(x)
    return f if f <= x else math.nextafter(f, -math.inf)


def _up(x: Any) -> float:
    """A float >= the arb point x."""
    f = float(x)
    return f if f >= x else math.nextafter(f, math.inf)


def _exp_eps(mechanism: Mechanism) -> Any:
    import sympy

    return sympy.exp(Real.of(mechanism.epsilon).to_sympy())


def decide_pair(cache: PmfCache, q: Vector, q2: Vector, r: int, eps_ball: Any | None = None) -> PairDecision:
    """Decide ``P(q)_r <= e^ε P(q2)_r`` for the cached mechanism (ε = its *claimed* epsilon)."""
    with ball_context(cache.prec):
        E = eps_ball if eps_ball is not None else Real.of(cache.mechanism.epsilon).to_arb(cache.prec).exp()
        (b1, logs1), (b2, logs2) = cache.balls_and_logs(q), cache.balls_and_logs(q2)
        p1, p2 = b1[r], b2[r]
        D = p1 - E * p2
        l1, l2 = logs1[r], logs2[r]
        if l1 is not None and l2 is not None:  # logs memoised per vector (one arb log per output)
            lr = l1 - l2
            lo, hi = _down(lr.lower()), _up(lr.upper())
        else:
            lo, hi = _log_enclosure(p1, p2)
        arith = f"ball:{cache.prec}"
        if D.upper() <= 0:
            return PairDecision("le", lo, hi, arith)
        if D.lower() > 0:
            return PairDecision("gt", lo, hi, arith)
    ex1 = cache.exact(q)
    ex2 = cache.exact(q2) if ex1 is not None else None
    if ex1 is None or ex2 is None:
        return PairDecision("undecided", lo, hi, "none")

    E_exact = _exp_eps(cache.mechanism)
    a, b = ex1[r], ex2[r]
    if type(a).__name__ == "fmpq" and type(b).__name__ == "fmpq" and E_exact.is_Rational:
        from flint import fmpq

        s = exact_sign(a - fmpq(int(E_exact.p), int(E_exact.q)) * b)
    else:
        s = exact_sign(exact_sympy(a) - E_exact * exact_sympy(b))
    if s is None:
        return PairDecision("undecided", lo, hi, "none")
    return PairDecision("le" if s <= 0 else "gt", lo, hi, "exact")
