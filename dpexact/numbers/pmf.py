"""`Pmf`: a probability vector that carries its provenance and its error bound."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .certified import ErrorKind

if TYPE_CHECKING:  # backends imports this module at run time
    from .backends import Backend

__all__ = ["Pmf", "ErrorKind", "pmf_from_numbers"]


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
            ``"a-priori"`` (proven truncation bounds plus a rounding-error analysis),
            ``"estimate"`` (e.g. an adaptive quadrature's own error estimate) or
            ``"rounded-inputs"`` (float: the bound holds for the scores rounded to float64 only,
            when no bound of that rounding's effect on the law is known and no ball route exists).
            Every other float bound holds against the exact inputs (their rounding included).
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

    @property
    def number_backend(self) -> Any:
        """The :class:`~.backends.Backend` named by :attr:`backend`."""
        from .backends import get_backend

        return get_backend(self.backend)

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
        if not self.number_backend.is_exact:
            return None
        return [str(v) for v in self.values]

    def radii(self) -> np.ndarray | None:
        """Ball radii (upper bounds, as floats) for the ball backend, else ``None``."""
        if not self.values or type(self.values[0]).__name__ != "arb":
            return None
        return np.array([float(v.rad()) for v in self.values])

    def contains(self, exact: Sequence[Any]) -> bool:
        """Ball backend: whether every ball contains the corresponding exact value.

        Decided, not approximated: an enclosure of the exact value is computed at increasing
        precision until it lies inside the ball (contained) or misses it (not contained); a value
        still straddling an endpoint is compared with the ball's endpoints, which are dyadic
        rationals, exactly (:func:`.exp_lattice.exact_sign`). At tiny ε a ball of radius 10^-101
        around 1/2 + 2.5·10^-101 is decided this way, where one fixed-precision enclosure is wider
        than the ball.

        Raises:
            TypeError: not a ball-backend Pmf.
            ValueError: a containment that neither balls nor exact arithmetic decides.
        """
        if self.radii() is None:
            raise TypeError("contains() needs a ball-backend Pmf")
        from .backends import get_backend

        prec = get_backend(self.backend).prec
        return all(_ball_contains(b, e, prec) for b, e in zip(self.values, exact, strict=True))

    def total(self) -> Any:
        """Sum of the probabilities in the backend's number type."""
        if isinstance(self.values, np.ndarray):
            return float(np.sum(self.values))
        s = self.values[0] * 0
        for v in self.values:
            s = s + v
        return s


def pmf_from_numbers(values: Sequence[Any], backend: Backend, method: str, details: dict | None = None) -> Pmf:
    """A :class:`Pmf` from backend numbers, with the error statement the backend's operations carry.

    ``values`` come from a pmf written against the backend operations (:mod:`.backends`):
    ``BoundedFloat`` (float: the running a-priori bound), ``mpf`` (mp: estimate at its
    precision), ``arb`` (ball: radii) or exact numbers. The bound of every entry comes from
    :meth:`Backend.error_of`; ``abs_error`` is their maximum, ``rel_error`` the largest ratio
    bound/value (``inf`` when an entry's bound reaches its value).
    """
    from .backends import get_backend

    be = get_backend(backend)
    items = list(values)
    if be.is_exact:
        return Pmf(tuple(items), "exact", method, rel_error=0.0, abs_error=0.0, error_kind="exact",
                   details=dict(details or {}))
    errs = [be.error_of(v) for v in items]
    mids = [be.to_float(v) for v in items]
    abs_err = max(errs, default=0.0)
    kind = "exact" if be.is_float and abs_err == 0 else be.error_kind
    rels: list[float] | None = []
    for m, e in zip(mids, errs):
        if e == 0:
            rels.append(0.0)
        elif abs(m) * (1 - 2.0**-52) > e:
            rels.append(e / (abs(m) * (1 - 2.0**-52) - e))
        else:
            rels = None
            break
    rel = max(rels, default=0.0) if rels is not None else math.inf
    vals: Any = np.array(mids, dtype=np.float64) if be.is_float else tuple(items)
    return Pmf(vals, str(be), method, rel_error=rel, abs_error=abs_err, error_kind=kind, details=dict(details or {}))



def _ball_contains(ball: Any, exact: Any, prec: int) -> bool:
    """Whether the arb ``ball`` contains the exact number ``exact`` (:meth:`Pmf.contains`)."""
    from flint import arb

    from .backends import get_backend
    from .real import Real

    if not ball.is_finite():
        return False
    rational = type(exact).__name__ == "fmpq"
    for p in (prec + 128, 2 * prec + 256, 8 * prec + 1024):
        with get_backend(f"ball:{p}").context():
            # a rational or closed form's p-bit enclosure: inside the ball -> the value is; disjoint -> it is not
            e_ball = arb(exact) if rational else Real.of(exact).to_arb(p)
        if ball.contains(e_ball):
            return True
        if not ball.overlaps(e_ball):
            return False
    import sympy

    from .exp_lattice import exact_sign

    def dyadic(x: Any) -> sympy.Rational:
        m, e = x.man_exp()
        return sympy.Integer(int(m)) * sympy.Integer(2) ** int(e)

    mid, rad = dyadic(ball.mid()), dyadic(arb(ball.rad()))
    value = sympy.Rational(int(exact.p), int(exact.q)) if rational else sympy.sympify(Real.of(exact).to_sympy())
    above, below = exact_sign(value - (mid - rad)), exact_sign(mid + rad - value)
    if above is None or below is None:
        raise ValueError("contains(): cannot decide whether the ball contains the exact value")
    return above >= 0 and below >= 0
