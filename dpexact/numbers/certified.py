"""`Certified`: one number with its provenance and an error bound — the scalar twin of `Pmf`.

Every scalar result of dpexact that carries an error statement (an expected error, a variance,
a channel's value, an optimality ratio's numerator, an integral) is a :class:`Certified`:

* ``value``: the number in the backend's own type (float, ``mpf``, ``arb``, ``fmpq`` / sympy);
* ``as_float``: a float64 view (ball: midpoint; exact: correctly rounded);
* ``error_bound``: bound on ``|value - exact|`` (float / mp: the value itself; ball: its
  midpoint, i.e. the radius; 0 for exact values). ``as_float`` adds at most one rounding,
  ``2^-53 |as_float|``, on the mp, ball and exact backends;
* ``error_kind``: ``"exact"``, ``"rigorous"`` (ball radii / proven bounds), ``"a-priori"``
  (proven truncation bounds plus a rounding-error analysis) or ``"estimate"`` (e.g. an
  adaptive quadrature's own error estimate — not a proof);
* ``backend``: the backend string (``"float"``, ``"mp:50"``, ``"ball:128"``, ``"exact"``);
* ``details``: method-specific context (the pmf a value came from, nodes used, ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = ["Certified", "ErrorKind"]

ErrorKind = Literal["exact", "rigorous", "a-priori", "estimate", "rounded-inputs"]
#: "rounded-inputs": the bound holds for the inputs rounded to float64, not for the exact inputs
_KINDS = ("exact", "rigorous", "a-priori", "estimate", "rounded-inputs")
#: weakest first: combining two values keeps the weaker statement
_STRENGTH = {"rounded-inputs": -1, "estimate": 0, "a-priori": 1, "rigorous": 2, "exact": 3}


@dataclass(frozen=True)
class Certified:
    """A value, its float64 view, a bound on ``|value - exact|`` and the kind of that bound."""

    value: Any
    as_float: float
    error_bound: float
    error_kind: ErrorKind
    backend: str
    details: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.error_kind not in _KINDS:
            raise ValueError(f"error_kind must be one of {_KINDS}, got {self.error_kind!r}")
        if not (self.error_bound >= 0):
            raise ValueError(f"error_bound must be >= 0, got {self.error_bound!r}")
        if math.isnan(self.as_float):
            raise ValueError("as_float is NaN")

    @property
    def certified(self) -> bool:
        """True when the bound is a proof (exact, rigorous or a-priori), not an estimate."""
        return self.error_kind not in ("estimate", "rounded-inputs")

    def interval(self) -> tuple[float, float]:
        """Floats enclosing the exact value: ``as_float ± (error_bound + one rounding)``, outward."""
        e = self.error_bound + (0.0 if self.backend == "float" else 2.0**-53 * abs(self.as_float))
        return (math.nextafter(self.as_float - e, -math.inf), math.nextafter(self.as_float + e, math.inf))

    def with_details(self, **kw: Any) -> "Certified":
        return replace(self, details={**self.details, **kw})

    @staticmethod
    def weakest(*kinds: str) -> str:
        """The weakest of several error kinds (what a value computed from all of them may claim)."""
        return min(kinds, key=_STRENGTH.__getitem__)

    def __float__(self) -> float:
        return self.as_float
