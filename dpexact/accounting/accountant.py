"""``dpexact.Accountant``: certified (ε, δ) accounting of a sequence of events (:mod:`.events`) —
heterogeneous, each repeated, optionally subsampled — with δ(ε) and ε(δ) as proved intervals.

Composition: the events' privacy-loss distributions (PLDs) are convolved, per neighbouring
direction (remove: H(M(x) ‖ M(x′)); add: H(M(x′) ‖ M(x))), and δ is the max over the directions
asked. For adaptively chosen sequences this is the adaptive composition theorem for dominating
pairs (Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic
function", Thm 10; the PLD composition of Sommer, Meiser & Mohammadi 2019 and Koskela, Jälkö &
Honkela 2020): each event's (P, Q) dominates its step whatever the earlier outputs were.

Routes, the first that applies:

1. **exact** — every law and rate rational (randomized response with rational e^ε, rational pmf pairs
   and mechanisms): exact tables (:mod:`.exact_composition`); δ(ε) exact (a closed-form string),
   ε(δ) = log of a rational.
2. **Gaussian closed form** — only Gaussian events, no subsampling: the composition is the
   Gaussian mechanism with μ² = Σ count·(Δ/σ)² (Dong, Roth & Su 2019), certified by
   :mod:`.delta_epsilon` (Balle & Wang 2018, Thm 8, in arb). One Laplace event alone: closed form.
3. **MGF** — one Poisson-subsampled Gaussian event composed T >= 16 times (DP-SGD): the composition exactly as
   m(z)^T, δ(ε) by a trapezoidal Bromwich inversion whose aliasing, truncation and node errors are bounded
   (:mod:`.mgf_route`, :mod:`.mgf_inversion`); when it cannot meet the tolerance, the grid route answers.
4. **grid** — a discretised PLD with proved ends (:mod:`.discretise`, :mod:`.grid_measure`): upper
   (connect-the-dots) and lower (merged cells, shifted grid) measures, tilted by θ chosen at the
   saddle point of the composed log-MGF (Chernoff), composed by FFT with its error bound, k-fold by
   repeated squaring; the step h is halved until the interval's relative width is below the
   tolerance or the time budget is spent (the interval stays certified either way; ``tolerance_met``
   says which).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..numbers.real import Real
from .delta_epsilon import Enclosure
from .events import Event, event_from_dict

__all__ = ["Accountant", "DIRECTIONS", "DEFAULT_TOLERANCE"]

DIRECTIONS = ("both", "remove", "add")
#: relative width (upper − lower)/upper at which the grid refinement stops
DEFAULT_TOLERANCE = 1e-4
#: default CPU-second budget of one query
DEFAULT_MAX_SECONDS = 60.0
#: one Poisson-subsampled Gaussian event composed >= mgf_route.MIN_COUNT times goes first through the MGF route
#: (exact composition, certified inversion); the grid route answers where it cannot meet the tolerance
MGF_FIRST = True
#: total repetitions accepted (the grid route costs log₂ of it per event)
MAX_TOTAL_COUNT = 10**8


@dataclass
class Accountant:
    """A sequence of events composed in order (adaptively chosen sequences included, module docstring).

    Args:
        events: initial events (:class:`Event` or spec tables).
        direction: ``"both"`` (δ = max over remove and add, the default), ``"remove"`` or ``"add"``.
        max_seconds: CPU budget of one query (the grid route refines within it; refused when even the
            first pass is estimated above it).

    Example:
        >>> acc = Accountant([{"kind": "gaussian", "sigma": "1", "count": 10}])
        >>> acc.delta_for_epsilon("1").upper >= acc.delta_for_epsilon("1").lower
        True
    """

    events: list = field(default_factory=list)
    direction: str = "both"
    max_seconds: float = DEFAULT_MAX_SECONDS

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {self.direction!r}")
        evs = list(self.events)
        self.events = []
        for e in evs:
            self.compose(e)

    # -- building -------------------------------------------------------------------------------
    def supports(self, event: Any) -> bool:
        """Whether ``event`` can be accounted (see :meth:`why_not`)."""
        return self.why_not(event) is None

    def why_not(self, event: Any) -> str | None:
        """``None`` when ``event`` is supported, else the reason (a sentence)."""
        if isinstance(event, dict):
            try:
                event = event_from_dict(event)
            except ValueError as exc:
                return str(exc)
        if not isinstance(event, Event):
            return f"not an accounting event: {type(event).__name__}"
        if event.without_replacement is not None and event.kind in ("pmf-pair", "mechanism"):
            return "sampling without replacement needs a dominating pair for replace-one neighbours; " \
                   "laws at one pair of inputs are not one"
        return None

    def compose(self, event: Any, count: int = 1) -> "Accountant":
        """Append ``event`` (an :class:`Event` or a spec table) ``count`` more times; returns self."""
        if isinstance(event, dict):
            event = event_from_dict(event)
        reason = self.why_not(event)
        if reason is not None:
            raise ValueError(reason)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be an integer >= 1, got {count!r}")
        if count != 1:
            event = Event(event.kind, event.params, event.count * count, event.poisson, event.without_replacement)
        total = sum(e.count for e in self.events) + event.count
        if total > MAX_TOTAL_COUNT:
            raise ValueError(f"count: {total} compositions in all, at most {MAX_TOTAL_COUNT}")
        self.events.append(event)
        return self

    def _directions(self) -> tuple[str, ...]:
        return ("remove", "add") if self.direction == "both" else (self.direction,)

    # -- queries --------------------------------------------------------------------------------
    def delta_for_epsilon(self, epsilon: Any, tolerance: float = DEFAULT_TOLERANCE) -> Enclosure:
        """Certified δ(ε) of the composition: ``lower <= δ(ε) <= upper`` (and ``exact`` when known)."""
        eps = Real.of(epsilon, "epsilon")
        if eps.is_symbolic or eps.sign() < 0:
            raise ValueError(f"epsilon must be a number >= 0, got {eps}")
        _tol(tolerance)
        self._nonempty()
        route = self._route()
        if route == "exact":
            return _exact_delta(self.events, self._directions(), eps)
        if route == "gaussian":
            from .delta_epsilon import delta_for_epsilon

            return _closed(delta_for_epsilon(_gauss_total(self.events), eps, 1, 256), self.events)
        if route == "laplace":
            from .delta_epsilon import delta_for_epsilon

            return delta_for_epsilon(_laplace_single(self.events[0]), eps, 1, 256)
        from .grid_accounting import grid_delta
        from .mgf_route import mgf_delta

        return self._mgf_then_grid(mgf_delta, grid_delta, eps, tolerance)

    def epsilon_for_delta(self, delta: Any, tolerance: float = DEFAULT_TOLERANCE) -> Enclosure:
        """Certified ε(δ) = inf{ε >= 0 : δ(ε) <= δ}: ``lower <= ε(δ) <= upper`` (``upper`` = ∞ when
        no finite ε reaches δ)."""
        t = Real.of(delta, "delta")
        if t.is_symbolic or t.sign() <= 0 or (t - 1).sign() > 0:
            raise ValueError(f"delta must be in (0, 1], got {t}")
        _tol(tolerance)
        self._nonempty()
        route = self._route()
        if route == "exact":
            return _exact_epsilon(self.events, self._directions(), t)
        if route == "gaussian":
            from .delta_epsilon import epsilon_for_delta

            return _closed(epsilon_for_delta(_gauss_total(self.events), t, 1, 256), self.events)
        if route == "laplace":
            from .delta_epsilon import epsilon_for_delta

            return epsilon_for_delta(_laplace_single(self.events[0]), t, 1, 256)
        from .grid_accounting import grid_epsilon
        from .mgf_route import mgf_epsilon

        return self._mgf_then_grid(mgf_epsilon, grid_epsilon, t, tolerance)

    def _mgf_then_grid(self, mgf: Any, grid: Any, x: Real, tolerance: float) -> Enclosure:
        """The MGF route where it applies and meets ``tolerance``; else the grid route with the budget left, its
        ``detail["mgf_refused"]`` saying why the MGF route did not answer."""
        from .mgf_route import mgf_laws

        t0 = time.process_time()
        laws = mgf_laws(self.events, self._directions()) if MGF_FIRST else None
        refused = None
        if laws is not None:
            got = mgf(laws, x, tolerance)
            if not isinstance(got, str):
                return got
            refused = got
        enc = grid(self.events, self._directions(), x, tolerance, _left(self.max_seconds, t0))
        if refused is not None:
            enc.detail["mgf_refused"] = refused
        return enc

    def _nonempty(self) -> None:
        if not self.events:
            raise ValueError("the accountant holds no events (compose at least one)")

    def _route(self) -> str:
        from .event_laws import exact_pairs

        if all(e.kind in ("randomized-response", "pmf-pair", "mechanism") for e in self.events):
            if all(exact_pairs(e) is not None for e in self.events):
                return "exact"
        if all(e.kind == "gaussian" and e.rate is None for e in self.events):
            return "gaussian"
        if len(self.events) == 1 and self.events[0].kind == "laplace" and self.events[0].rate is None \
                and self.events[0].count == 1:
            return "laplace"
        return "grid"


def _left(budget: float, t0: float) -> float:
    """The grid route's budget: what the MGF route's attempt left of the query's."""
    return max(budget - (time.process_time() - t0), 0.05 * budget)


def _tol(tolerance: float) -> None:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance!r}")


def _closed(enc: Enclosure, events: list[Event]) -> Enclosure:
    return Enclosure(enc.lower, enc.upper, enc.exact, enc.method, {**enc.detail, "route": "gaussian closed form"})


def _gauss_total(events: list[Event]) -> Any:
    import sympy

    from .delta_epsilon import GaussianMechanism

    mu2 = sum((e.count * (e.get("sensitivity").to_sympy() / e.get("sigma").to_sympy()) ** 2 for e in events), sympy.Integer(0))
    return GaussianMechanism(1, Real.of(sympy.sqrt(mu2), "sensitivity"))


def _laplace_single(e: Event) -> Any:
    from .delta_epsilon import LaplaceMechanism

    return LaplaceMechanism(e.get("scale"), e.get("sensitivity"))


def _exact_tables(events: list[Event], directions: tuple[str, ...]) -> dict[str, tuple[dict, Any]]:
    from flint import fmpq

    from .event_laws import exact_pairs
    from .exact_composition import compose_tables, exact_atoms, power_table, table_of

    out = {}
    for d in directions:
        total = None
        for e in events:
            r = fmpq(e.rate.value.numerator, e.rate.value.denominator) if e.rate is not None else fmpq(1)
            t = power_table(table_of(exact_atoms(exact_pairs(e), r, d)), e.count)
            total = t if total is None else compose_tables(total, t)
        out[d] = total
    return out


def _exact_delta(events: list[Event], directions: tuple[str, ...], eps: Real) -> Enclosure:
    from .delta_epsilon import _ball_of, _clip01, _exp_real, _expr, _hockey_from_pld, _outward

    tables = _exact_tables(events, directions)
    vals = {}
    for d, (table, inf) in tables.items():
        a, b = _hockey_from_pld(table, inf, eps)
        lo, hi = _clip01(*_outward(_ball_of(a, b, eps, 512)))
        vals[d] = (a, b, lo, hi, len(table))
    best = None
    for d, (a, b, lo, hi, n) in vals.items():
        if best is None:
            best = d
            continue
        a0, b0 = vals[best][0], vals[best][1]
        if (Real.of(a - a0) - Real.of(b - b0) * _exp_real(eps)).sign() > 0:
            best = d
    a, b, lo, hi, _ = vals[best]
    detail = {"route": "exact", "argmax_direction": best,
              "directions": {d: {"lower": v[2], "upper": v[3], "exact": _expr(v[0], v[1], eps), "pld_size": v[4]}
                             for d, v in vals.items()}}
    return Enclosure(lo, hi, _expr(a, b, eps), "exact PLD composition (rational laws)", detail)


def _exact_epsilon(events: list[Event], directions: tuple[str, ...], t: Real) -> Enclosure:
    from fractions import Fraction

    from .delta_epsilon import _epsilon_one_way, _log_bounds, _log_str

    if not t.is_rational:
        raise ValueError(f"delta must be rational for exact accounting, got {t}")
    tables = _exact_tables(events, directions)
    xs: dict[str, Fraction | None] = {}
    for d, (table, inf) in tables.items():
        xs[d] = _epsilon_one_way(table, inf, t.value)
    detail = {"route": "exact", "directions": {d: {"exact": "inf" if x is None else _log_str(x)} for d, x in xs.items()}}
    if any(x is None for x in xs.values()):
        return Enclosure(math.inf, math.inf, "inf", "exact PLD: δ below the mass at +∞", detail)
    x = max(xs.values())  # type: ignore[type-var]
    lo, hi = _log_bounds(x, 512)
    return Enclosure(lo, hi, _log_str(x), "exact PLD composition (rational laws)", detail)
