"""`Channel`: an ε-LDP randomiser as an N×M matrix ``Pr[y | x]`` with its loss and prior (brr §2–§3).

Rows are inputs ``x`` (the true value), columns outputs ``y`` (the reported value); every row
is a probability vector. A channel carries the loss (or utility) matrix ``λ(x, y)`` and an
optional prior ``π`` on the inputs, and computes

* the local expected error at input k (brr eq. 10):  ``Q^(k) = Σ_y λ(k, y) Pr[y | k]``;
* the global expected error (brr eq. 11 for the uniform prior ``π_k = 1/N``):
  ``Q_g = Σ_k π_k Q^(k)``;
* the quality loss (brr eq. 12, "diameter normalisation"): ``QLoss = Q_g / (N − 1)`` with
  the uniform ``Q_g`` — taken literally from eq. 12 for every loss matrix;
* the LDP level (brr Definition 2.2, eq. 2): the largest column ratio
  ``R = max_y max_{x,x'} Pr[y|x] / Pr[y|x']`` so that the channel is ``log R``-LDP and no
  better. ``R = ∞`` when a column holds both a zero and a positive entry.

Entries live in one number type, chosen by the backend that built the channel:

* ``exact`` — ``flint.fmpq`` when every entry is rational, sympy expressions otherwise
  (e.g. ``e/(e + N − 1)`` for ε = 1); all results exact;
* ``ball`` — python-flint ``arb`` balls; results are rigorous enclosures;
* ``float`` — a read-only float64 ndarray with an a-priori bound ``entry_abs_error`` on every
  entry; results carry a derived a-priori bound.
"""

from __future__ import annotations

from collections.abc import Sized
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..numbers.backends import Backend, BallBackend, get_backend
from ..numbers.certified import Certified
from ..numbers.real import Real
from ..numbers.sympy_conversion import exact_sympy
from .losses import LossMatrix, check_domain

__all__ = ["Channel", "ColumnRatio", "normalise_rows", "U"]

U = 2.0**-53


def _gamma(n: int) -> float:
    """Higham's γ_n = n·u / (1 − n·u) for n roundings."""
    return n * U / (1 - n * U)


@dataclass(frozen=True)
class ColumnRatio:
    """``R = max_y max_x Pr[y|x] / min_x Pr[y|x]`` and the LDP level ``ε = log R`` it certifies.

    ``ratio`` / ``epsilon`` are in the channel's number type (``math.inf`` if a column mixes
    zero and positive entries); ``column`` and ``rows = (x_max, x_min)`` locate the worst pair.
    """

    ratio: Any
    epsilon: Any
    column: int
    rows: tuple[int, int]
    backend: str

    @property
    def as_float(self) -> float:
        return _float_of(self.epsilon)


def _float_of(v: Any) -> float:
    if isinstance(v, (float, int, np.floating)):
        return float(v)
    name = type(v).__name__
    if name == "arb":
        return float(v.mid())
    if name == "fmpq":
        return Real.of(v).to_float()
    return Real.of(v).to_float()


def _kind_of(x: Any) -> str:
    name = type(x).__name__
    if name == "arb":
        return "ball"
    if isinstance(x, (float, np.floating)):
        return "float"
    return "exact"


def _exact_entry(v: Any) -> Any:
    """Exact value as fmpq (rational) or sympy expression."""
    from flint import fmpq

    if type(v).__name__ == "fmpq":
        return v
    r = Real.of(v, "channel entry")
    if r.is_rational:
        return fmpq(r.value.numerator, r.value.denominator)
    return r.value


def _exact_sign(v: Any) -> int:
    if type(v).__name__ == "fmpq":
        return (v > 0) - (v < 0)
    return Real.of(v).sign()


def _exact_cmp(a: Any, b: Any) -> int:
    """Exact sign of a − b for fmpq / sympy values."""
    if type(a).__name__ == "fmpq" and type(b).__name__ == "fmpq":
        return (a > b) - (a < b)
    return _exact_sign(exact_sympy(a) - exact_sympy(b))




def _check_rows_shape(rows: Any) -> tuple[int, int]:
    if isinstance(rows, (str, bytes)):
        raise TypeError("rows must be a 2-D array of probabilities, got a string")
    if isinstance(rows, np.ndarray):
        if rows.ndim != 2:
            raise ValueError(f"rows must be two-dimensional, got shape {rows.shape}")
        n, m = rows.shape
    else:
        n = len(rows)
        if n == 0:
            raise ValueError("rows must not be empty")
        m = len(rows[0])
        for i, r in enumerate(rows):
            if isinstance(r, (str, bytes)) or not isinstance(r, Sized):
                raise ValueError("rows must be two-dimensional (a sequence of rows)")
            if len(r) != m:
                raise ValueError(f"rows must be rectangular: row 0 has {m} entries, row {i} has {len(r)}")
    check_domain(n, "rows (number of inputs N)")
    if m < 1:
        raise ValueError("rows must have at least one output column")
    return n, m


@dataclass(frozen=True)
class Channel:
    """An immutable LDP channel ``Pr[y | x]`` (rows x, columns y) with loss and prior.

    Build it with :meth:`from_rows` (validates everything) or from a mechanism
    (``GeneralizedRR(...).channel()``, ``BipartiteRR(...).channel()``, ...).

    Attributes:
        rows: exact/ball: tuple of row tuples; float: read-only ndarray (N, M).
        backend: ``"exact"``, ``"ball:<bits>"`` or ``"float"``.
        loss: the loss/utility matrix (shape N×M) or ``None``.
        prior: exact prior on the inputs (Fractions summing to 1) or ``None`` (uniform).
        name: description (``"grr"``, ``"brr(m=3)"``, ...).
        entry_abs_error: float backend: a-priori bound on ``|computed − exact|`` of every entry.
    """

    rows: Any
    backend: str
    loss: LossMatrix | None = None
    prior: tuple[Fraction, ...] | None = None
    name: str = "channel"
    entry_abs_error: float = 0.0
    details: dict = field(default_factory=dict, compare=False)

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_rows(
        cls,
        rows: Any,
        loss: "LossMatrix | Any | None" = None,
        prior: Sequence[Any] | None = None,
        name: str = "channel",
        entry_abs_error: float = 0.0,
        details: dict | None = None,
        backend: str | None = None,
    ) -> "Channel":
        """Validate ``rows`` (exact numbers, arb balls or a float ndarray) and build a channel.

        Raises:
            ValueError: fewer than 2 rows, ragged rows, negative entries, a row not summing to 1
                (exactly; ball: the sum's ball must contain 1; float: within the a-priori
                tolerance ``M·entry_abs_error + 2·M·u``), loss of the wrong shape, prior of the
                wrong length, negative or not summing to 1.
            TypeError: entries that are not numbers.
        """
        n, m = _check_rows_shape(rows)
        if isinstance(rows, np.ndarray) and rows.dtype.kind in "fiu":
            arr = np.array(rows, dtype=np.float64)
            if not np.all(np.isfinite(arr)):
                raise ValueError("rows must be finite")
            arr.setflags(write=False)
            store: Any = arr
            backend = "float"
        else:
            ball_name = backend
            flat = [v for r in rows for v in r]
            kinds = {_kind_of(v) for v in flat}
            if len(kinds) != 1:
                raise TypeError(f"rows mix number types {sorted(kinds)}; use one of exact, arb, float")
            kind = kinds.pop()
            if kind == "float":
                arr = np.array([[float(v) for v in r] for r in rows], dtype=np.float64)
                return cls.from_rows(arr, loss, prior, name, entry_abs_error, details)
            if kind == "ball":
                store = tuple(tuple(r) for r in rows)
                backend = ball_name if ball_name is not None and ball_name.startswith("ball") else f"ball:{_ball_prec(flat)}"
            else:
                store = tuple(tuple(_exact_entry(v) for v in r) for r in rows)
                backend = "exact"
        lm = _check_loss(loss, n, m)
        pr = _check_prior(prior, n)
        ch = cls(store, backend, lm, pr, name, float(entry_abs_error), dict(details or {}))
        ch._validate_stochastic()
        return ch

    def _validate_stochastic(self) -> None:
        n, m = self.shape
        if self.number_backend.is_float:
            a = self.rows
            if np.any(a < 0):
                i, j = map(int, np.argwhere(a < 0)[0])
                raise ValueError(f"rows: negative probability {a[i, j]} at (x={i}, y={j})")
            tol = m * self.entry_abs_error + 2 * m * U
            s = a.sum(axis=1)
            bad = np.flatnonzero(np.abs(s - 1) > tol)
            if bad.size:
                raise ValueError(f"rows: row {int(bad[0])} sums to {s[bad[0]]!r}, not 1 (tolerance {tol:.3g})")
            return
        if self.number_backend.is_ball:
            from flint import arb

            for i, r in enumerate(self.rows):
                for j, v in enumerate(r):
                    if v < 0:
                        raise ValueError(f"rows: negative probability {v} at (x={i}, y={j})")
                s = sum(r[1:], r[0])
                if not s.contains(arb(1)):
                    raise ValueError(f"rows: row {i} sums to {s}, which excludes 1")
            return
        for i, r in enumerate(self.rows):
            for j, v in enumerate(r):
                if _exact_sign(v) < 0:
                    raise ValueError(f"rows: negative probability {v} at (x={i}, y={j})")
            if all(type(v).__name__ == "fmpq" for v in r):
                s = sum(r[1:], r[0])
                if s != 1:
                    raise ValueError(f"rows: row {i} sums to {s}, not 1")
            else:
                import sympy

                s = sympy.Add(*[exact_sympy(v) for v in r])
                if sympy.simplify(s - 1) != 0:
                    raise ValueError(f"rows: row {i} sums to {s}, not 1")

    # -- basic properties ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        if isinstance(self.rows, np.ndarray):
            return int(self.rows.shape[0]), int(self.rows.shape[1])
        return len(self.rows), len(self.rows[0])

    @property
    def error_kind(self) -> str:
        if self.number_backend.is_float:
            return "a-priori"
        return self.number_backend.error_kind

    def to_float(self) -> np.ndarray:
        """Float64 matrix (exact: correctly rounded entries; ball: midpoints)."""
        if isinstance(self.rows, np.ndarray):
            return self.rows.copy()
        return np.array([[_float_of(v) for v in r] for r in self.rows], dtype=np.float64)

    def prob(self, x: int, y: int) -> Any:
        """``Pr[y | x]`` in the channel's number type."""
        return self.rows[x][y] if not isinstance(self.rows, np.ndarray) else float(self.rows[x, y])

    def with_loss(self, loss: "LossMatrix | Any", prior: Sequence[Any] | None = None) -> "Channel":
        """The same channel with another loss (and prior)."""
        n, m = self.shape
        return Channel(self.rows, self.backend, _check_loss(loss, n, m), _check_prior(prior, n), self.name,
                       self.entry_abs_error, dict(self.details))

    # -- utility ---------------------------------------------------------------------------------
    def _require_loss(self) -> LossMatrix:
        if self.loss is None:
            raise ValueError("this channel has no loss matrix; pass loss= when building it")
        return self.loss

    def _weights(self, prior: Sequence[Any] | None) -> tuple[Fraction, ...]:
        n = self.shape[0]
        if prior is not None:
            return _check_prior(prior, n)  # type: ignore[return-value]
        if self.prior is not None:
            return self.prior
        return tuple(Fraction(1, n) for _ in range(n))

    def local_errors(self) -> list[Any]:
        """``Q^(k) = Σ_y λ(k, y) Pr[y | k]`` for every input k (brr eq. 10), in the channel's type.

        For a utility matrix (``kind="utility"``) this is the expected utility.
        """
        lm = self._require_loss()
        if self.number_backend.is_float:
            return list(np.sum(lm.to_float() * self.rows, axis=1))
        out = []
        with self._context():
            for r, lr in zip(self.rows, lm.values):
                coef = [self._num(v) for v in lr]
                tot = r[0] * 0
                for p, c in zip(r, coef):
                    tot = tot + p * c
                out.append(tot)
        return out

    def global_error(self, prior: Sequence[Any] | None = None) -> Certified:
        """``Q_g = Σ_k π_k Q^(k)``; uniform ``π`` (the default without a stored prior) is brr eq. 11.

        Float accuracy (a-priori): with every entry within ``η`` of the truth and ``n = N·M + N``
        roundings, ``|Q̃_g − Q_g| <= η·Σ_k π_k Σ_y |λ_ky| + γ_{n+2}·Σ_k π_k Σ_y |λ_ky| p̃_ky·(1 + γ)``.
        """
        w = self._weights(prior)
        lm = self._require_loss()
        n, m = self.shape
        if self.number_backend.is_float:
            lam = lm.to_float()
            wf = np.array([float(x) for x in w])
            terms = lam * self.rows
            val = float(wf @ terms.sum(axis=1))
            absl = np.abs(lam)
            g = _gamma(n * m + n + 2)
            bound = self.entry_abs_error * float(wf @ absl.sum(axis=1)) + g * (1 + g) * float(wf @ (absl * self.rows).sum(axis=1))
            return Certified(val, val, bound * (1 + 4 * U), "a-priori", "float")
        loc = self.local_errors()
        with self._context():
            tot = loc[0] * 0
            for q, pk in zip(loc, w):
                tot = tot + q * self._num(pk)
        return self._value(tot)

    def qloss(self) -> Certified:
        """``QLoss = Q_g / (N − 1)`` with the uniform prior (brr eq. 12)."""
        n = self.shape[0]
        q = self.global_error(prior=[Fraction(1, n)] * n)
        if self.number_backend.is_float:
            v = q.value / (n - 1)
            return Certified(v, v, q.error_bound / (n - 1) + abs(v) * U, "a-priori", "float")
        with self._context():
            return self._value(q.value / self._num(Fraction(n - 1)))

    # -- privacy ---------------------------------------------------------------------------------
    def max_column_ratio(self) -> ColumnRatio:
        """``R = max_y max_{x,x'} Pr[y|x]/Pr[y|x']`` and ``ε = log R`` (brr Definition 2.2).

        Exact channels: R is exact (fmpq or sympy; maxima and minima found by exact
        comparisons). Ball: a rigorous enclosure of R, the ball spanning
        ``[max_j (max_x lower)/(min_x upper), max_j (max_x upper)/(min_x lower)]``.
        Float: a float estimate.
        """
        n, m = self.shape
        if self.number_backend.is_float:
            a = self.rows
            mx, mn = a.max(axis=0), a.min(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(mx == 0, 1.0, mx / mn)
            j = int(np.argmax(r))
            ratio = float(r[j])
            return ColumnRatio(ratio, math.log(ratio), j, (int(np.argmax(a[:, j])), int(np.argmin(a[:, j]))), "float")
        best = None
        for j in range(m):
            col = [self.rows[i][j] for i in range(n)]
            if self.number_backend.is_exact:
                imax = imin = 0
                for i in range(1, n):
                    if _exact_cmp(col[i], col[imax]) > 0:
                        imax = i
                    if _exact_cmp(col[i], col[imin]) < 0:
                        imin = i
                if _exact_sign(col[imax]) == 0:
                    continue
                if _exact_sign(col[imin]) == 0:
                    return ColumnRatio(math.inf, math.inf, j, (imax, imin), "exact")
                ratio = _simplify_ratio(col[imax], col[imin])
                if best is None or _exact_cmp(ratio, best.ratio) > 0:
                    best = ColumnRatio(ratio, None, j, (imax, imin), "exact")
            else:
                with self._context():
                    from flint import arb

                    ups = [arb(v.upper()) for v in col]
                    lows = [arb(v.lower()) for v in col]
                    hi = max(range(n), key=lambda i: float(col[i].mid()))
                    lo = min(range(n), key=lambda i: float(col[i].mid()))
                    top_up = max(ups, key=float)
                    if not top_up > 0:
                        continue
                    bot_low = min(lows, key=float)
                    if not bot_low > 0:
                        return ColumnRatio(math.inf, math.inf, j, (hi, lo), self.backend)
                    # truth R_j lies in [max lower / min upper, max upper / min lower]
                    r_lo = max(lows, key=float) / min(ups, key=float)
                    r_hi = top_up / bot_low
                    ratio = r_lo.union(r_hi)
                    if best is None:
                        best = ColumnRatio(ratio, None, j, (hi, lo), self.backend)
                    else:
                        # enclosure of max_j R_j: [max_j lower R_j, max_j upper R_j]
                        low = max(arb(best.ratio.lower()), arb(ratio.lower()), key=float)
                        up = max(arb(best.ratio.upper()), arb(ratio.upper()), key=float)
                        where = (j, (hi, lo)) if float(ratio.mid()) > float(best.ratio.mid()) else (best.column, best.rows)
                        best = ColumnRatio(low.union(up), None, where[0], where[1], self.backend)
        if best is None:
            raise ValueError("channel has an all-zero matrix")
        if self.number_backend.is_exact:
            import sympy

            eps = sympy.log(exact_sympy(best.ratio))
        else:
            with self._context():
                eps = best.ratio.log()
        return ColumnRatio(best.ratio, eps, best.column, best.rows, best.backend)

    def satisfies_ldp(self, epsilon: Any) -> bool:
        """Whether ``Pr[y|x] <= e^ε Pr[y|x']`` for all x, x', y (brr eq. 2), decided exactly.

        Exact channels only (a float or ball channel cannot decide a boundary case).
        """
        from ..mechanisms.validation import positive_real

        eps = positive_real(epsilon, "epsilon")
        if not self.number_backend.is_exact:
            raise TypeError("satisfies_ldp needs an exact channel (build it with backend='exact')")
        r = self.max_column_ratio()
        if r.ratio == math.inf:
            return False
        import sympy

        return (Real.of(sympy.exp(eps.to_sympy())) - Real.of(exact_sympy(r.ratio))).sign() >= 0

    # -- sampling ----------------------------------------------------------------------------------
    def rvs(self, x: int, size: int | None = None, random_state: Any = None) -> Any:
        """Draw outputs for input index ``x`` by inverse-cdf sampling of row x (float64 row)."""
        n, m = self.shape
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= int(x) < n:
            raise ValueError(f"x must be an input index in [0, {n - 1}], got {x!r}")
        rng = np.random.default_rng(random_state)
        row = self.to_float()[int(x)]
        cw = np.cumsum(row)
        k = 1 if size is None else int(size)
        if k < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        out = np.minimum(np.searchsorted(cw, rng.random(k) * cw[-1], side="right"), m - 1)
        return int(out[0]) if size is None else out

    # -- helpers ------------------------------------------------------------------------------------
    @property
    def number_backend(self) -> Backend:
        """The backend of the entries (parsed from :attr:`backend`)."""
        return get_backend(self.backend)

    def _context(self) -> Any:
        return self.number_backend.context()

    def _num(self, v: Fraction) -> Any:
        """A rational coefficient in the channel's number type."""
        from flint import arb, fmpq

        q = fmpq(v.numerator, v.denominator)
        return arb(q) if self.number_backend.is_ball else q

    def _value(self, v: Any) -> Certified:
        if self.number_backend.is_ball:
            return self.number_backend.certify(v)
        if type(v).__name__ != "fmpq":
            import sympy

            v = sympy.simplify(exact_sympy(v)) if not isinstance(v, sympy.Basic) else v
        return Certified(v, _float_of(v), 0.0, "exact", "exact")


def _simplify_ratio(a: Any, b: Any) -> Any:
    if type(a).__name__ == "fmpq" and type(b).__name__ == "fmpq":
        return a / b
    import sympy

    return sympy.simplify(exact_sympy(a) / exact_sympy(b))


def _ball_prec(flat: list[Any]) -> int:
    """Working precision for balls built outside a backend: the current flint precision."""
    from flint import ctx

    return max(int(ctx.prec), 53)


def _check_loss(loss: Any, n: int, m: int) -> LossMatrix | None:
    if loss is None:
        return None
    lm = loss if isinstance(loss, LossMatrix) else LossMatrix.from_rows(loss)
    if lm.shape != (n, m):
        raise ValueError(f"loss has shape {lm.shape}, but the channel is {n}×{m}")
    return lm


def _check_prior(prior: Sequence[Any] | None, n: int) -> tuple[Fraction, ...] | None:
    if prior is None:
        return None
    if isinstance(prior, (str, bytes)):
        raise TypeError("prior must be a sequence of probabilities")
    vals = list(prior.tolist() if isinstance(prior, np.ndarray) else prior)
    if len(vals) != n:
        raise ValueError(f"prior has {len(vals)} entries, but the channel has {n} inputs")
    has_float = any(isinstance(v, (float, np.floating)) for v in vals)
    out = []
    for v in vals:
        r = Real.of(v, "prior")
        if not r.is_rational:
            raise ValueError(f"prior entries must be rational, got {r}")
        if r.value < 0:
            raise ValueError(f"prior entries must be >= 0, got {r}")
        out.append(r.value)
    s = sum(out, Fraction(0))
    tol = Fraction(2 * n) * Fraction(U) if has_float else Fraction(0)
    if abs(s - 1) > tol:
        raise ValueError(f"prior must sum to 1, sums to {float(s)!r}")
    return tuple(out)


def normalise_rows(weights: list[list[Real]], backend: "str | Backend", weight_rel_error: float = 0.0) -> tuple[Any, str, float]:
    """Rows ``w_xy / Σ_y w_xy`` of positive exact weights in a backend's number type.

    Returns ``(rows, backend_name, entry_abs_error)``. Float: each weight is rounded (relative
    error ``weight_rel_error``, plus u for the rounding); the normalised entry then has relative
    error at most ``2ρ + (M + 2)u`` to first order (ρ the weight error), reported as an
    absolute bound (with a 1 % margin for second-order terms).
    """
    be = get_backend(backend)
    cache: dict[Real, Any] = {}

    def conv(w: Real, f: Any) -> Any:
        v = cache.get(w)
        if v is None:
            v = cache[w] = f(w)
        return v

    if be.is_float:
        a = np.array([[conv(w, Real.to_float) for w in r] for r in weights], dtype=np.float64)
        p = a / a.sum(axis=1, keepdims=True)
        m = a.shape[1]
        rho = weight_rel_error + U
        err = 1.01 * (2 * rho + (m + 2) * U) * float(p.max())
        return p, "float", err
    if be.is_ball:
        with be.context():
            rows = []
            for r in weights:
                b = [conv(w, lambda x: x.to_arb(be.prec)) for w in r]
                s = sum(b[1:], b[0])
                rows.append(tuple(v / s for v in b))
        return tuple(rows), str(be), 0.0
    if be.is_exact:
        from flint import fmpq

        rows = []
        for r in weights:
            if all(w.is_rational for w in r):
                f = [fmpq(w.value.numerator, w.value.denominator) for w in r]
                s = sum(f[1:], f[0])
                rows.append(tuple(v / s for v in f))
            else:
                import sympy

                f = [w.to_sympy() for w in r]
                s = sympy.Add(*f)
                rows.append(tuple(_norm_sym(v, s) for v in f))
        return tuple(rows), "exact", 0.0
    raise ValueError(f"backend must be float, ball[:bits] or exact for channels, got {be}")


def _norm_sym(v: Any, s: Any) -> Any:
    import sympy

    e = sympy.together(v / s)
    return _exact_entry(e) if e.is_Rational else e
