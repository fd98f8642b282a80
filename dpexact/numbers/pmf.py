"""`Pmf`: a probability vector that carries its provenance and its error bound."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

import numpy as np

__all__ = ["Pmf", "ErrorKind"]

ErrorKind = Literal["exact", "rigorous", "a-priori", "estimate"]


@dataclass(frozen=True)
class Pmf:
    """Output probabilities of a mechanism on one score vector.

    Attributes:
        values: the probabilities in the backend's own number type: a float64 ``ndarray``
            (float), a tuple of ``mpf`` (mp), of ``arb`` balls (ball), of ``fmpq`` or sympy
            expressions (exact).
        backend: the backend that produced them (``"float"``, ``"mp:50"``, ``"ball:128"``, ``"exact"``).
        method: the algorithm used (e.g. ``"quadrature"``, ``"recurrence"``, ``"polynomial"``).
        rel_error: bound on ``|computed - exact| / exact`` for every entry (``None`` if no
            relative statement is made); on the float backend, for every entry whose exact
            value is at least 2^-1022 (smaller ones may underflow: ``abs_error`` still holds
            and ``logvalues`` carries them).
        abs_error: bound on ``max_r |computed_r - exact_r|``.
        error_kind: ``"exact"`` (no error), ``"rigorous"`` (ball radii / proven bounds),
            ``"a-priori"`` (proven truncation bounds plus a rounding-error analysis) or
            ``"estimate"`` (e.g. an adaptive quadrature's own error estimate).
        logvalues: float64 natural logs of the probabilities, accurate where ``values``
            underflow (float backend); ``None`` otherwise.
        details: method-specific diagnostics (nodes used, truncation point, ...).
    """

    values: Any
    backend: str
    method: str
    rel_error: float | None
    abs_error: float
    error_kind: ErrorKind
    logvalues: np.ndarray | None = None
    details: dict = field(default_factory=dict, compare=False)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i: int) -> Any:
        return self.values[i]

    def __iter__(self):
        return iter(self.values)

    def to_float(self) -> np.ndarray:
        """Float64 array of the probabilities (ball: midpoints; exact: correctly rounded)."""
        if isinstance(self.values, np.ndarray):
            return self.values.astype(np.float64, copy=True)
        from .real import Real

        out = np.empty(len(self.values))
        for i, v in enumerate(self.values):
            name = type(v).__name__
            if name == "arb":
                out[i] = float(v.mid())
            elif name == "fmpq":
                out[i] = Real.of(v).to_float()
            elif name == "mpf":
                out[i] = float(v)
            else:
                out[i] = Real.of(v).to_float()
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.to_float()
        return a if dtype is None else a.astype(dtype)

    def exact_strings(self) -> list[str] | None:
        """Exact values as strings (``"11/48"``) for the exact backend, else ``None``."""
        if self.backend != "exact":
            return None
        return [str(v) for v in self.values]

    def radii(self) -> np.ndarray | None:
        """Ball radii (upper bounds, as floats) for the ball backend, else ``None``."""
        if not self.values or type(self.values[0]).__name__ != "arb":
            return None
        return np.array([float(v.rad()) for v in self.values])

    def contains(self, exact: Sequence[Any]) -> bool:
        """Ball backend: whether every ball contains the corresponding exact rational."""
        from flint import arb

        from .real import Real

        if self.radii() is None:
            raise TypeError("contains() needs a ball-backend Pmf")
        from flint import ctx

        prec = int(self.backend.partition(":")[2] or 128) + 128
        old, ctx.prec = ctx.prec, prec
        try:
            for b, e in zip(self.values, exact, strict=True):
                # rationals and closed forms get a (prec+128)-bit enclosure; containment of
                # that enclosure implies containment of the exact value
                e_ball = arb(e) if type(e).__name__ == "fmpq" else Real.of(e).to_arb(prec)
                if not b.contains(e_ball):
                    return False
        finally:
            ctx.prec = old
        return True

    def total(self) -> Any:
        """Sum of the probabilities in the backend's number type."""
        if isinstance(self.values, np.ndarray):
            return float(np.sum(self.values))
        s = self.values[0] * 0
        for v in self.values:
            s = s + v
        return s
