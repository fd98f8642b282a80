"""Input validation shared by all mechanisms: every bad input raises an error naming the argument."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..numbers.real import Real

__all__ = [
    "MAX_FLOAT_SCORES",
    "positive_real",
    "probability",
    "float_scores",
    "float_scores_rounded",
    "exact_scores",
    "check_size",
    "warn_inexact_floats",
]

#: Largest score vector accepted by float paths (8 bytes each; ~10 arrays live at once).
MAX_FLOAT_SCORES = 50_000_000


def warn_inexact_floats(params: dict[str, Any], stacklevel: int = 3) -> None:
    """Warn (``UserWarning``) for each Python float parameter that is not the decimal it prints as.

    dpexact takes a float at its exact binary value: ``epsilon=0.1`` is
    3602879701896397/36028797018963968, while the CLI's and a string's ``"0.1"`` is 1/10. The
    warning names the exact value and the string to pass instead. Floats that are exact
    decimals (0.5, 2.0) and non-float values are silent.
    """
    for name, value in params.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if not isinstance(v, float) or not math.isfinite(v):
                continue
            shown = repr(float(v))  # numpy floats (a float subclass) repr as "np.float64(...)"
            if Fraction(v) != Fraction(shown):
                warnings.warn(f"{name}={shown} is a Python float: dpexact takes it at its exact binary value {Fraction(v)}, "
                              f"not {Fraction(shown)}; pass the string \"{shown}\" for the exact decimal",
                              UserWarning, stacklevel=stacklevel)


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
    """A finite, non-empty 1-D float64 array (a copy), or a clear error.

    Entries may be floats, ints, numpy numbers, or exact numbers (``Fraction``, ``flint.fmpq``,
    sympy numbers, :class:`~dpexact.numbers.Real`, numeric strings such as ``"1/3"``): exact
    numbers are converted with :meth:`Real.to_float` — correctly rounded for rationals (ints of
    any size included), within one ulp for closed forms such as ``sqrt(2)``. An entry whose
    magnitude exceeds float64's range (about 1.8e308) is a ``ValueError`` naming it: use an
    exact or ball backend for such scores.
    """
    return float_scores_rounded(scores, name)[0]


def float_scores_rounded(scores: Any, name: str = "scores") -> tuple[np.ndarray, float]:
    """:func:`float_scores` and ``ρ >= max_r |q_r - fl(q_r)|``: how far rounding the exact
    scores to float64 moved them (0.0 when every entry was a float64 value already).

    A float pmf is computed from ``fl(q)``; its bound holds for the exact ``q`` only once the
    effect of ``ρ`` on the law is added (:meth:`~.base.SelectionMechanism.input_rounding_shift`).
    """
    if isinstance(scores, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got a string")
    arr = None
    rounding = 0.0
    if isinstance(scores, np.ndarray) and scores.dtype.kind in "biuf":
        arr = scores
        if scores.dtype.kind in "iu":
            rounding = _int_rounding(scores)
    else:
        try:
            seq = scores.tolist() if isinstance(scores, np.ndarray) else list(scores)
        except TypeError as exc:
            raise TypeError(f"{name} must be a sequence of real numbers, got {type(scores).__name__}") from exc
        try:  # the common case (floats, machine ints, numpy numbers), vectorised
            fast = np.asarray(seq)
        except (ValueError, TypeError, OverflowError):  # ragged or odd entries: per entry below
            fast = None
        if fast is not None and fast.dtype.kind in "iuf" and fast.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {fast.shape}")
        if fast is not None and fast.dtype.kind in "iuf":
            arr = fast
            rounding = _int_rounding(fast, seq)  # ints beyond 2^53 (alone or among floats) are rounded
        else:
            pairs = [_float_entry(s, name, i) for i, s in enumerate(seq)]
            arr = np.array([f for f, _ in pairs], dtype=np.float64)
            rounding = max((r for _, r in pairs), default=0.0)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    check_size(arr.size, MAX_FLOAT_SCORES, "float pmfs", name)
    arr = np.array(arr, dtype=np.float64)
    # two reductions instead of an elementwise test and its boolean temporary: max and min
    # propagate nan, so both are finite exactly when every entry is (no warning either way)
    if not (math.isfinite(float(np.maximum.reduce(arr))) and math.isfinite(float(np.minimum.reduce(arr)))):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; entry {bad} is {arr[bad]}")
    return arr, rounding


def _up(x: Fraction) -> float:
    """A float64 >= the non-negative rational ``x``."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _int_rounding(values: np.ndarray, seq: Sequence[Any] | None = None) -> float:
    """Largest rounding to float64 of the integers among ``seq`` (default: ``values``), the entries
    ``values`` (their numpy form) shows beyond 2^53 in magnitude — only those can round."""
    with np.errstate(invalid="ignore", over="ignore"):
        big = np.flatnonzero(~(np.abs(values.astype(np.float64)) <= 2.0**53))
    if big.size == 0:
        return 0.0
    items = values.tolist() if seq is None else seq
    worst = 0.0
    for s in (items[int(i)] for i in big):
        if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) and abs(int(s)) > 2**53:
            k = int(s)
            try:
                worst = max(worst, float(abs(k - int(float(k)))))  # an integer below 2^1024: exact in float
            except OverflowError:
                worst = math.inf  # beyond float64: float_scores names the entry
    return worst


def _float_entry(s: Any, name: str, i: int) -> tuple[float, float]:
    """One score as a float64 and a bound on its rounding (see :func:`float_scores_rounded`)."""
    if isinstance(s, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be one-dimensional (entry {i} is a sequence)")
    if isinstance(s, (bool, np.bool_)):
        raise TypeError(f"{name}[{i}] must be a real number, got a bool")
    if isinstance(s, (float, np.floating)):
        return float(s), 0.0
    r = Real.of(s, f"{name}[{i}]")
    if r.is_symbolic:
        raise ValueError(f"{name}[{i}] is symbolic ({r}); the float backend needs numbers")
    try:
        f = r.to_float()
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise ValueError(f"{name}[{i}] = {_short(r)} overflows float64 (|x| > 1.8e308); use backend='exact' or 'ball'")
    if r.is_rational:
        return f, _up(abs(r.value - Fraction(f)))
    from ..numbers.backends import ball_context

    with ball_context(128):  # a closed form: its 128-bit enclosure's distance from f, rounded up
        return f, float((r.to_arb(128) - f).abs_upper().upper()) * (1 + 2.0**-50) + 2.0**-1074


def _short(r: Real) -> str:
    if r.is_rational and max(abs(r.value.numerator), r.value.denominator).bit_length() > 1000:
        # no decimal conversion of a huge integer (quadratic, and capped by Python at 4300 digits)
        return f"a rational of about 10^{int(math.log10(2) * (abs(r.value.numerator).bit_length() - r.value.denominator.bit_length()))}"
    text = str(r)
    return text if len(text) <= 40 else text[:37] + "..."


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
