"""Loss and utility matrices λ(x, y) of local-DP release on a finite domain (brr §3, §5.2).

A :class:`LossMatrix` holds exact rational entries ``λ(x, y)`` for inputs ``x`` (rows) and
outputs ``y`` (columns), and says whether smaller is better (``kind="loss"``, e.g. the
distance ``|x − y|`` of brr §3) or larger is better (``kind="utility"``, e.g. the generalized
Jaccard similarity of brr eq. 13). Algorithms that minimise a loss use :meth:`LossMatrix.as_loss`,
which is ``λ`` for a loss and ``−λ`` for a utility; an increasing affine change of the loss
changes neither the ranking of the outputs nor the sign of ``∂Q/∂s_i`` (brr eq. 9), so this is
exactly the "necessary adjustment on the ranking of λ_i and the sign condition" of brr §4.2.

Domain convention: the equidistant domain of brr §3 is ``X = Y = {1, ..., N}``; row/column
``i`` of a matrix is the point ``i + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Sequence

import numpy as np

from ..numbers.real import Real

__all__ = [
    "LossMatrix",
    "MAX_DOMAIN",
    "check_domain",
    "absolute_loss",
    "distance_loss",
    "jaccard_similarity",
    "loss_by_name",
    "loss_sensitivity",
]

#: Largest domain accepted (an N×N exact matrix holds N² Python rationals).
MAX_DOMAIN = 3000

Kind = Literal["loss", "utility"]


def check_domain(n: Any, name: str = "domain") -> int:
    """``n`` as an int with ``2 <= n <= MAX_DOMAIN``, else ValueError/TypeError naming ``name``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(n).__name__}")
    n = int(n)
    if n < 2:
        raise ValueError(f"{name} must be >= 2 (a domain of at least two points), got {n}")
    if n > MAX_DOMAIN:
        raise ValueError(f"{name}: {n} exceeds the limit of {MAX_DOMAIN} points (memory guard for N×N matrices)")
    return n


@dataclass(frozen=True)
class LossMatrix:
    """An exact N×M matrix ``λ(x, y)`` (rows: inputs x, columns: outputs y).

    Attributes:
        values: rows of exact :class:`~fractions.Fraction` entries.
        kind: ``"loss"`` (smaller is better) or ``"utility"`` (larger is better).
        name: a short description (``"abs"``, ``"jaccard"``, ``"custom"``).
    """

    values: tuple[tuple[Fraction, ...], ...]
    kind: Kind = "loss"
    name: str = "custom"

    @classmethod
    def from_rows(cls, rows: Any, kind: Kind = "loss", name: str = "custom") -> "LossMatrix":
        """Validate and store ``rows`` exactly (floats at their exact binary value, strings parsed).

        Raises:
            ValueError: fewer than 2 rows, ragged or empty rows, non-finite or irrational entries,
                unknown ``kind``.
            TypeError: entries that are not real numbers.
        """
        if kind not in ("loss", "utility"):
            raise ValueError(f"kind must be 'loss' or 'utility', got {kind!r}")
        if isinstance(rows, (str, bytes)):
            raise TypeError("loss must be a 2-D array of numbers, got a string")
        if isinstance(rows, np.ndarray):
            if rows.ndim != 2:
                raise ValueError(f"loss must be two-dimensional, got shape {rows.shape}")
            rows = rows.tolist()
        try:
            rows = [list(r) for r in rows]
        except TypeError as exc:
            raise ValueError("loss must be a 2-D array (a sequence of rows)") from exc
        if len(rows) < 2:
            raise ValueError(f"loss must have at least 2 rows (inputs), got {len(rows)}")
        check_domain(len(rows), "loss rows")
        m = len(rows[0])
        if m < 1:
            raise ValueError("loss rows must not be empty")
        out = []
        for i, r in enumerate(rows):
            if len(r) != m:
                raise ValueError(f"loss must be rectangular: row 0 has {m} entries, row {i} has {len(r)}")
            row = []
            for v in r:
                if isinstance(v, (list, tuple, np.ndarray)):
                    raise ValueError("loss must be two-dimensional")
                x = Real.of(v, "loss")
                if not x.is_rational:
                    raise ValueError(f"loss entries must be rational (got {x}); round them explicitly")
                row.append(x.value)
            out.append(tuple(row))
        return cls(tuple(out), kind, name)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.values), len(self.values[0])

    def as_loss(self) -> tuple[tuple[Fraction, ...], ...]:
        """The matrix to *minimise*: ``λ`` for a loss, ``−λ`` for a utility."""
        if self.kind == "loss":
            return self.values
        return tuple(tuple(-v for v in row) for row in self.values)

    def to_float(self) -> np.ndarray:
        """Float64 copy (each entry correctly rounded)."""
        return np.array([[float(v) for v in row] for row in self.values], dtype=np.float64)


def absolute_loss(n: int) -> LossMatrix:
    """``λ(x, y) = |x − y|`` on the equidistant domain ``{1, ..., N}`` (brr §3, "Euclidean distance")."""
    n = check_domain(n)
    return LossMatrix(tuple(tuple(Fraction(abs(x - y)) for y in range(n)) for x in range(n)), "loss", "abs")


def distance_loss(points: Sequence[Any], name: str = "distance") -> LossMatrix:
    """``λ(x_i, y_j) = |p_i − p_j|`` for exact points ``p`` (e.g. a discretisation grid, brr §4.1)."""
    if isinstance(points, (str, bytes)):
        raise TypeError("points must be a sequence of numbers")
    pts = [Real.of(p, "points") for p in points]
    check_domain(len(pts), "points")
    if not all(p.is_rational for p in pts):
        raise ValueError("points must be rational")
    v = [p.value for p in pts]
    return LossMatrix(tuple(tuple(abs(a - b) for b in v) for a in v), "loss", name)


def jaccard_similarity(n: int) -> LossMatrix:
    """Generalized Jaccard (Tanimoto) similarity on ``{1, ..., N}`` (brr §5.2, eq. 13), a *utility*:

        λ(x, y) = x·y / (x² + y² − x·y),   x, y ∈ {1, ..., N}.

    λ(x, x) = 1 and 0 < λ < 1 otherwise (x² + y² − xy > 0 for positive x, y). Note the ties
    λ(x, y) = λ(x, x²/y) (the coefficient depends only on y/x through t/(1 − t + t²)).
    """
    n = check_domain(n)
    return LossMatrix(
        tuple(tuple(Fraction(x * y, x * x + y * y - x * y) for y in range(1, n + 1)) for x in range(1, n + 1)),
        "utility",
        "jaccard",
    )


def loss_by_name(name: str, n: int) -> LossMatrix:
    """``"abs"`` -> :func:`absolute_loss`, ``"jaccard"`` -> :func:`jaccard_similarity`."""
    if name == "abs":
        return absolute_loss(n)
    if name == "jaccard":
        return jaccard_similarity(n)
    raise ValueError(f"loss must be 'abs' or 'jaccard', got {name!r}")


def loss_sensitivity(loss: LossMatrix) -> Fraction:
    """Δ_λ = max_y (max_x λ(x, y) − min_x λ(x, y)): how much the score of one output can change
    between two inputs. In LDP every two inputs are neighbours, so this is the sensitivity
    (brr Definition 2.3) of the quality ``q(x, y) = −λ(x, y)`` used by the exponential mechanism.
    For ``|x − y|`` on ``{1..N}`` it equals N − 1.
    """
    n, m = loss.shape
    cols = [[loss.values[x][y] for x in range(n)] for y in range(m)]
    return max(max(c) - min(c) for c in cols)
