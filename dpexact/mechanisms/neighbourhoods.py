"""Neighbouring relations on score vectors: explicit, exact and pluggable.

A DP statement about a selection mechanism is a statement about a *neighbouring relation*
``q ~ q'`` between score vectors (pf §2.1–2.2: ``|q_r(D) - q_r(D')| <= Δ`` for every r).
Each relation here knows

* ``contains(q, q2)`` — whether ``q2`` is a neighbour of ``q``, decided exactly (scores are
  :class:`~fractions.Fraction`; floats are taken at their binary value);
* ``candidates(q, steps)`` — a *finite* set of neighbours of ``q`` used by the searches
  (for the infinite ℓ∞ box: the lattice ``z_a ∈ {kΔ_a/steps : |k| <= steps}``, whose
  ``steps = 1`` layer contains the ``3^n`` vertices/face centres);
* ``bounds(q)`` — the box of neighbours for continuous local optimisation, or ``None``;
* ``describe()`` — one line for reports.

The contract is :class:`dpexact.protocols.Neighbourhood`; mechanisms return one of these from
``neighbourhood()``, so they live in the mechanisms layer (``dpexact.verify.neighbourhoods``
re-exports them and adds the parser).

=====================  ==========================================================  =================
relation               neighbours of q                                             source
=====================  ==========================================================  =================
``LInfBox``            ``q + z``, ``|z_a| <= Δ_a`` (Δ_a = Δ, or candidate-wise)    pf §2.2; hetsel eq. 1
``MonotoneBox``        ``q + z`` with ``z ∈ [0, Δ]^n`` or ``z ∈ [-Δ, 0]^n``         pf Remark 1
``HistogramAddRemove`` ``q ± e_a`` (one bin count changes by one)                  counting/mode quality
``HistogramReplace``   ``q + e_a - e_b``, ``a ≠ b`` (one individual changes bin)   replace-one
``AnyPair``            every other vector of a given finite input set              LDP (brr §2)
=====================  ==========================================================  =================
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..numbers.real import Real
from ..protocols import Neighbourhood
from .validation import positive_real

__all__ = [
    "Neighbourhood",
    "LInfBox",
    "MonotoneBox",
    "HistogramAddRemove",
    "HistogramReplace",
    "AnyPair",
    "AdjacentCounts",
    "as_vector",
    "MAX_CANDIDATES",
]

Vector = tuple[Fraction, ...]

#: guard against enumerations that would exhaust memory/time
MAX_CANDIDATES = 200_000


def as_vector(q: Any, name: str = "scores") -> Vector:
    """A score vector as a tuple of exact Fractions (rational entries only; floats at their binary value)."""
    if isinstance(q, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got a string")
    try:
        items = list(q)
    except TypeError as exc:
        raise TypeError(f"{name} must be a sequence of numbers") from exc
    if not items:
        raise ValueError(f"{name} must not be empty")
    out = []
    for i, v in enumerate(items):
        if isinstance(v, (list, tuple)):
            raise ValueError(f"{name} must be one-dimensional")
        r = Real.of(v.item() if isinstance(v, np.generic) else v, f"{name}[{i}]")
        if not r.is_rational:
            raise ValueError(f"{name}[{i}] must be rational for exact neighbourhood checks, got {r}")
        out.append(r.value)
    return tuple(out)


def _fraction(x: Any, name: str) -> Fraction:
    r = positive_real(x, name)
    if not r.is_rational:
        raise ValueError(f"{name} must be rational, got {r}")
    return r.value


def _check_steps(steps: int) -> int:
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    return steps


@dataclass(frozen=True)
class LInfBox:
    """``q' = q + z`` with ``|z_a| <= Δ_a`` for every candidate a (pf §2.2; hetsel eq. 1).

    Args:
        sensitivity: the common Δ > 0 (rational).
        sensitivities: optional candidate-wise ``(Δ_a)`` (each >= 0; 0 pins the score).
    """

    sensitivity: Any = 1
    sensitivities: Any = None
    name: str = "linf-box"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", _fraction(self.sensitivity, "sensitivity"))
        if self.sensitivities is not None:
            vals = []
            for i, v in enumerate(self.sensitivities):
                r = Real.of(v, f"sensitivities[{i}]")
                if not r.is_rational or r.value < 0:
                    raise ValueError(f"sensitivities[{i}] must be a rational >= 0, got {r}")
                vals.append(r.value)
            if not vals:
                raise ValueError("sensitivities must not be empty")
            object.__setattr__(self, "sensitivities", tuple(vals))

    def deltas(self, n: int) -> tuple[Fraction, ...]:
        if self.sensitivities is None:
            return (self.sensitivity,) * n
        if len(self.sensitivities) != n:
            raise ValueError(f"sensitivities has {len(self.sensitivities)} entries but scores has {n}")
        return self.sensitivities

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        if len(a) != len(b):
            return False
        return all(abs(x - y) <= d for x, y, d in zip(a, b, self.deltas(len(a))))

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        steps = _check_steps(steps)
        if (2 * steps + 1) ** len(a) > MAX_CANDIDATES:
            raise ValueError(f"steps: (2·{steps}+1)^{len(a)} neighbours exceed the limit {MAX_CANDIDATES}")
        axes = [sorted({x + Fraction(k, steps) * d for k in range(-steps, steps + 1)}) for x, d in zip(a, self.deltas(len(a)))]
        return [v for v in itertools.product(*axes) if v != a]

    def bounds(self, q: Sequence[Any]) -> tuple[list[Fraction], list[Fraction]]:
        a = as_vector(q)
        d = self.deltas(len(a))
        return [x - e for x, e in zip(a, d)], [x + e for x, e in zip(a, d)]

    def to_record(self) -> dict[str, Any]:
        per = None if self.sensitivities is None else [str(x) for x in self.sensitivities]
        return {"relation": "box", "sensitivity": str(self.sensitivity), "sensitivities": per}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> LInfBox:
        per = rec.get("sensitivities")
        return cls(rec.get("sensitivity", "1"), None if per is None else tuple(per))

    def describe(self) -> str:
        if self.sensitivities is None:
            return f"ℓ∞ box |q'_a - q_a| <= {self.sensitivity}"
        return "ℓ∞ box |q'_a - q_a| <= Δ_a, Δ = (" + ", ".join(map(str, self.sensitivities)) + ")"


@dataclass(frozen=True)
class MonotoneBox:
    """Monotone qualities (pf Remark 1): ``q' - q ∈ [0, Δ]^n`` or ``q' - q ∈ [-Δ, 0]^n``.

    Adding an individual can only increase every score (by at most Δ), removing one can only
    decrease them; the relation is symmetric.
    """

    sensitivity: Any = 1
    name: str = "monotone-box"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", _fraction(self.sensitivity, "sensitivity"))

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        if len(a) != len(b):
            return False
        z = [y - x for x, y in zip(a, b)]
        d = self.sensitivity
        return all(0 <= v <= d for v in z) or all(-d <= v <= 0 for v in z)

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        steps = _check_steps(steps)
        if 2 * (steps + 1) ** len(a) > MAX_CANDIDATES:
            raise ValueError(f"steps: 2·({steps}+1)^{len(a)} neighbours exceed the limit {MAX_CANDIDATES}")
        grid = [Fraction(k, steps) * self.sensitivity for k in range(steps + 1)]
        out: set[Vector] = set()
        for z in itertools.product(grid, repeat=len(a)):
            out.add(tuple(x + v for x, v in zip(a, z)))
            out.add(tuple(x - v for x, v in zip(a, z)))
        out.discard(a)
        return sorted(out)

    def bounds(self, q: Sequence[Any]) -> None:
        return None  # a union of two boxes: the searches optimise over each candidate direction

    def to_record(self) -> dict[str, Any]:
        return {"relation": "monotone", "sensitivity": str(self.sensitivity)}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> MonotoneBox:
        return cls(rec.get("sensitivity", "1"))

    def describe(self) -> str:
        return f"monotone: q' - q in [0, {self.sensitivity}]^n or [-{self.sensitivity}, 0]^n"


@dataclass(frozen=True)
class HistogramAddRemove:
    """Counting qualities (mode): one bin count changes by ±1, ``q' = q ± e_a``."""

    name: str = "histogram-add-remove"

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        if len(a) != len(b):
            return False
        diff = [y - x for x, y in zip(a, b) if y != x]
        return len(diff) == 1 and abs(diff[0]) == 1

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        out = []
        for i in range(len(a)):
            for s in (-1, 1):
                out.append(a[:i] + (a[i] + s,) + a[i + 1 :])
        return out

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def to_record(self) -> dict[str, Any]:
        return {"relation": "add-remove"}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> HistogramAddRemove:
        return cls()

    def describe(self) -> str:
        return "histogram add/remove one: q' = q ± e_a"


@dataclass(frozen=True)
class HistogramReplace:
    """Replace one individual: ``q' = q + e_a - e_b`` with ``a ≠ b`` (counts move between bins)."""

    name: str = "histogram-replace"

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        if len(a) != len(b):
            return False
        diff = sorted(y - x for x, y in zip(a, b) if y != x)
        return diff == [-1, 1]

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = list(as_vector(q))
        out = []
        for i, j in itertools.permutations(range(len(a)), 2):
            v = list(a)
            v[i] += 1
            v[j] -= 1
            out.append(tuple(v))
        return out

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def to_record(self) -> dict[str, Any]:
        return {"relation": "replace"}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> HistogramReplace:
        return cls()

    def describe(self) -> str:
        return "histogram replace one: q' = q + e_a - e_b"


@dataclass(frozen=True)
class AnyPair:
    """Local DP: every two inputs of the finite set ``inputs`` are neighbours (brr §2)."""

    inputs: tuple = ()
    name: str = "any-pair"

    def __post_init__(self) -> None:
        vecs = tuple(as_vector(v, f"inputs[{i}]") for i, v in enumerate(self.inputs))
        if len(vecs) < 2:
            raise ValueError("inputs must hold at least two score vectors")
        object.__setattr__(self, "inputs", vecs)

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        return a in self.inputs and b in self.inputs and a != b

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        return [v for v in self.inputs if v != a and len(v) == len(a)]

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def describe(self) -> str:
        return f"any pair of {len(self.inputs)} inputs (LDP)"


@dataclass(frozen=True)
class AdjacentCounts:
    """Counting queries: one count in ``lo..hi``, neighbours differ by exactly one (adding or
    removing one person); a finite relation, so its pairs can be enumerated (``inputs``)."""

    lo: int = 0
    hi: int = 1
    name: str = "adjacent-counts"

    def __post_init__(self) -> None:
        if not (isinstance(self.lo, int) and isinstance(self.hi, int)) or self.hi <= self.lo:
            raise ValueError(f"lo, hi must be integers with lo < hi, got {self.lo!r}, {self.hi!r}")

    @property
    def inputs(self) -> tuple:
        return tuple((Fraction(c),) for c in range(self.lo, self.hi + 1))

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        return a in self.inputs and b in self.inputs and abs(a[0] - b[0]) == 1

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        return [v for v in self.inputs if len(a) == 1 and abs(v[0] - a[0]) == 1]

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def describe(self) -> str:
        return f"counts in {self.lo}..{self.hi} differing by one"
