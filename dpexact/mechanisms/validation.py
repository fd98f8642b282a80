"""Input validation shared by all mechanisms: every bad input raises an error naming the argument."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..numbers.real import Real

__all__ = [
    "MAX_FLOAT_SCORES",
    "positive_real",
    "probability",
    "float_scores",
    "exact_scores",
    "check_size",
]

#: Largest score vector accepted by float paths (8 bytes each; ~10 arrays live at once).
MAX_FLOAT_SCORES = 50_000_000


def positive_real(value: Any, name: str) -> Real:
    """Parse ``value`` exactly and require it to be > 0 (e.g. ε, Δ)."""
    r = Real.of(value, name)
    if r.is_symbolic:
        if r.value.is_positive is not True:
            raise ValueError(f"{name} is symbolic and not known to be positive: declare the symbol positive=True")
        return r
    if r.sign() <= 0:
        raise ValueError(f"{name} must be > 0, got {r}")
    return r


def probability(value: Any, name: str) -> Real:
    """Parse ``value`` exactly and require ``0 <= value <= 1``."""
    r = Real.of(value, name)
    if r.sign() < 0 or (r - 1).sign() > 0:
        raise ValueError(f"{name} must lie in [0, 1], got {r}")
    return r


def check_size(n: int, limit: int, what: str, name: str = "scores") -> None:
    if n > limit:
        raise ValueError(f"{name}: {n} entries exceed the limit of {limit} for {what} (memory/time guard)")


def float_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """A finite, non-empty 1-D float64 array (a copy), or a clear error."""
    if isinstance(scores, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got a string")
    try:
        if isinstance(scores, np.ndarray):
            arr = scores
        else:
            arr = np.asarray([_float_of_text(s, f"{name}[{i}]") if isinstance(s, str) else s for i, s in enumerate(scores)])
    except TypeError as exc:
        raise TypeError(f"{name} must be a sequence of real numbers") from exc
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    check_size(arr.size, MAX_FLOAT_SCORES, "float pmfs", name)
    arr = np.array(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; entry {bad} is {arr[bad]}")
    return arr


def _float_of_text(text: str, name: str) -> float:
    """A score given as text: parsed exactly (safe grammar), then rounded to float64."""
    try:
        return float(Real.of(text, name))
    except OverflowError:
        raise ValueError(f"{name} is outside the float64 range (|x| < 1.8e308); use an exact backend") from None


def exact_scores(scores: Any, name: str = "scores", limit: int = 1_000_000) -> list[Real]:
    """Scores as exact :class:`Real` values (floats are taken at their exact binary value)."""
    if isinstance(scores, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got a string")
    if isinstance(scores, np.ndarray):
        if scores.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {scores.shape}")
        if scores.dtype.kind in "fiu" and scores.size:
            check_size(scores.size, limit, "this backend", name)
            if not np.all(np.isfinite(scores)):
                raise ValueError(f"{name} must be finite")
            from fractions import Fraction

            return [Real(Fraction(v)) for v in scores.tolist()]  # exact binary values
        seq: Sequence[Any] = scores.tolist()
    else:
        try:
            seq = list(scores)
        except TypeError as exc:
            raise TypeError(f"{name} must be a sequence of real numbers") from exc
    if not seq:
        raise ValueError(f"{name} must not be empty")
    check_size(len(seq), limit, "this backend", name)
    out = []
    for i, s in enumerate(seq):
        if isinstance(s, (list, tuple, np.ndarray)):
            raise ValueError(f"{name} must be one-dimensional")
        out.append(Real.of(s, f"{name}[{i}]"))
    return out
