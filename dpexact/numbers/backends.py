"""The four number backends behind one interface.

=========  ===========================================  =====================================
name       numbers                                      accuracy statement
=========  ===========================================  =====================================
``float``  numpy float64 arrays                         a-priori error bound or estimate
``mp``     ``mpmath.mpf`` at ``dps`` decimal digits     error estimate at that precision
``ball``   python-flint ``arb`` balls at ``prec`` bits  rigorous: the ball contains the truth
``exact``  ``flint.fmpq`` rationals, else sympy exprs   exact (no error)
=========  ===========================================  =====================================

Backends are small frozen descriptions; :func:`get_backend` parses ``"ball"``,
``"ball:256"`` (bits), ``"mp:60"`` (decimal digits) or returns a backend instance unchanged.

Every backend offers the operations a pmf needs, so that one implementation written against
them runs on all four (run it inside :meth:`Backend.context`, or through :meth:`Backend.run`):

* numbers: :meth:`~Backend.num` (an exact number into the backend), :meth:`~Backend.to_float`;
* elementary functions: :meth:`~Backend.exp`, :meth:`~Backend.log`, :meth:`~Backend.log1p`,
  :meth:`~Backend.expm1`, :meth:`~Backend.sqrt`; :meth:`~Backend.sum` (``math.fsum``,
  ``mpmath.fsum``, arb sum, exact sum);
* decisions: :meth:`~Backend.sign` raises ``ArithmeticError`` when undecided,
  :meth:`~Backend.try_sign` returns ``None`` — certified on ball (undecided when the ball
  straddles 0) and exact (exact), on float only through the running bound of
  :class:`~.bounded_float.BoundedFloat`, on mp only as an estimate (``|x|`` beyond ``error``,
  by default a few hundred ulps of the working precision); for branching pmfs
  :meth:`~Backend.compare` / :meth:`~Backend.eq` / :meth:`~Backend.indicator` /
  :meth:`~Backend.max` / :meth:`~Backend.argmax` (ties), which decide overlapping enclosures
  from the inputs' exact values or raise :class:`~.comparisons.Undecidable` (:mod:`.comparisons`);
* :meth:`~Backend.integrate` (:mod:`.integration`): proven bound on float (Gauss–Legendre +
  Bernstein ellipse, given the integrand's analyticity data), an *estimate* on mp, rigorous on
  ball (``acb.integral``), closed form on exact (sympy);
* :meth:`~Backend.certify`: a backend number as a :class:`~.certified.Certified` value.

The float backend's scalar numbers are :class:`~.bounded_float.BoundedFloat` (value plus a
running a-priori error bound); its operations also accept plain floats and numpy arrays, for
vectorised code whose bound is derived by hand. ``is_float`` / ``is_ball`` / ``is_exact`` /
``is_mp`` answer "which kind of arithmetic is this" without comparing names.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Iterator

import numpy as np

from .bounded_float import BoundedFloat
from .certified import Certified, ErrorKind
from .real import Real
from .sympy_conversion import exact_sympy

__all__ = ["Backend", "FloatBackend", "MpBackend", "BallBackend", "ExactBackend", "get_backend", "BACKEND_NAMES",
           "MAX_MP_DPS", "MAX_BALL_PREC", "ball_context", "exact_sympy", "law_backend"]

BACKEND_NAMES = ("float", "mp", "ball", "exact")

#: Precision caps. One ``exp`` + ``log`` of 1/3 on this machine (2 cores, mpmath with gmpy,
#: python-flint): mp 1,000 digits 0.002 s, 10,000 digits 0.16 s, 30,000 digits 1.2 s,
#: 100,000 digits 11 s; ball 10,000 bits 0.002 s, 100,000 bits 0.08 s, 300,000 bits 0.37 s,
#: 1,000,000 bits 1.8 s. A pmf needs from n to a few thousand such operations (quadrature),
#: so the caps keep one operation near 0.1 s: mp <= 10,000 digits (≈ 33,000 bits) and
#: ball <= 100,000 bits.
MAX_MP_DPS = 10_000
MAX_BALL_PREC = 100_000


@dataclass(frozen=True)
class Backend:
    name: ClassVar[str] = "abstract"
    rigorous: ClassVar[bool] = False
    #: the kind of error statement its results carry (as in :class:`~.pmf.Pmf`)
    error_kind: ClassVar[ErrorKind] = "estimate"

    @property
    def is_float(self) -> bool:
        return self.name == "float"

    @property
    def is_mp(self) -> bool:
        return self.name == "mp"

    @property
    def is_ball(self) -> bool:
        return self.name == "ball"

    @property
    def is_exact(self) -> bool:
        return self.name == "exact"

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        """Set the working precision of the underlying library for the duration."""
        yield

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(self, *args, **kwargs)`` inside :meth:`context` (one implementation, any backend)."""
        with self.context():
            return fn(self, *args, **kwargs)

    # numbers ------------------------------------------------------------------------------
    def from_real(self, x: Real) -> Any:
        raise NotImplementedError

    def from_int(self, k: int) -> Any:
        return self.from_real(Real.of(k))

    def num(self, x: Any) -> Any:
        """An exact number (Real, int, Fraction, numeric string, sympy) as a backend number."""
        return self.from_real(Real.of(x))

    def to_float(self, x: Any) -> float:
        raise NotImplementedError

    # operations ---------------------------------------------------------------------------
    def exp(self, x: Any) -> Any:
        raise NotImplementedError

    def log(self, x: Any) -> Any:
        raise NotImplementedError

    def log1p(self, x: Any) -> Any:
        raise NotImplementedError

    def expm1(self, x: Any) -> Any:
        raise NotImplementedError

    def sqrt(self, x: Any) -> Any:
        raise NotImplementedError

    def sum(self, xs: Iterable[Any]) -> Any:
        """Accurate sum of backend numbers."""
        raise NotImplementedError

    def try_sign(self, x: Any) -> int | None:
        """Sign of ``x`` (-1, 0, 1), or ``None`` when this arithmetic cannot decide it."""
        raise NotImplementedError

    def sign(self, x: Any) -> int:
        """Certified sign of ``x``; ``ArithmeticError`` when it cannot be decided (see :meth:`try_sign`)."""
        s = self.try_sign(x)
        if s is None:
            raise ArithmeticError(f"{self}: the sign of {x} cannot be decided in this arithmetic")
        return s

    # decisions for pmfs that branch (contract and fallbacks: :mod:`.comparisons`) ---------------
    def compare(self, a: Any, b: Any) -> int:
        """Certified sign of ``a - b``; overlapping enclosures are decided by the exact values of the
        inputs when known, else :class:`~.comparisons.Undecidable` (an ``ArithmeticError``)."""
        from .comparisons import compare

        return compare(self, a, b)

    def try_compare(self, a: Any, b: Any) -> int | None:
        """:meth:`compare`, or ``None`` when undecidable."""
        from .comparisons import Undecidable, compare

        try:
            return compare(self, a, b)
        except Undecidable:
            return None

    def eq(self, a: Any, b: Any) -> bool:
        """Certified ``a == b`` (as :meth:`compare`)."""
        from .comparisons import eq

        return eq(self, a, b)

    def indicator(self, flag: bool) -> Any:
        """The exact backend number 1 or 0 for a decided boolean (e.g. ``indicator(eq(x, top))``)."""
        from .comparisons import indicator

        return indicator(self, flag)

    def max(self, xs: Iterable[Any]) -> Any:
        """An element of ``xs`` that is a maximum, decided as :meth:`compare`."""
        from .comparisons import maximum

        return maximum(self, list(xs))

    def argmax(self, xs: Iterable[Any]) -> tuple[int, ...]:
        """Every index of a maximum of ``xs``, ties included (decided as :meth:`compare`)."""
        from .comparisons import argmax

        return argmax(self, list(xs))

    def integrate(self, f: Callable[..., Any], a: Any, b: Any, **options: Any) -> Certified:
        """``∫_a^b f`` as a :class:`Certified` value (see :mod:`.integration` for each backend)."""
        raise NotImplementedError

    def certify(self, x: Any) -> Certified:
        """A backend number with its error statement (``error_bound`` bounds ``|x - exact|``)."""
        raise NotImplementedError

    def error_of(self, x: Any) -> float:
        """Bound on ``|x - exact|`` for the backend number ``x`` itself (not its float view)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FloatBackend(Backend):
    """float64. Scalars are :class:`BoundedFloat` (running a-priori bound); arrays go to numpy."""

    name: ClassVar[str] = "float"
    error_kind: ClassVar[ErrorKind] = "a-priori"

    def from_real(self, x: Real) -> float:
        return x.to_float()

    def num(self, x: Any) -> BoundedFloat:
        return BoundedFloat.of(x)

    def to_float(self, x: Any) -> float:
        return float(x)

    @staticmethod
    def _apply(x: Any, method: str, fn: Callable[[Any], Any]) -> Any:
        if isinstance(x, BoundedFloat):
            return getattr(x, method)()
        if isinstance(x, (int, float)):
            return BoundedFloat.of(x).__getattribute__(method)()
        return fn(x)

    def exp(self, x: Any) -> Any:
        return self._apply(x, "exp", np.exp)

    def log(self, x: Any) -> Any:
        return self._apply(x, "log", np.log)

    def log1p(self, x: Any) -> Any:
        return self._apply(x, "log1p", np.log1p)

    def expm1(self, x: Any) -> Any:
        return self._apply(x, "expm1", np.expm1)

    def sqrt(self, x: Any) -> Any:
        return self._apply(x, "sqrt", np.sqrt)

    def sum(self, xs: Iterable[Any]) -> Any:
        items = list(xs)
        if any(isinstance(v, BoundedFloat) for v in items):
            bs = [BoundedFloat.of(v) for v in items]
            v = math.fsum(b.v for b in bs)  # correctly rounded
            e = math.fsum(b.e for b in bs)
            return BoundedFloat(v, (e + 2.0**-53 * abs(v)) * (1 + 2.0**-50) + 5e-324)
        return math.fsum(items)

    def try_sign(self, x: Any, error: float = 0.0) -> int | None:
        """BoundedFloat: decided by its interval; a plain float: decided if ``|x| > error``."""
        if isinstance(x, BoundedFloat):
            return x.sign()
        v = float(x)
        if abs(v) > error:
            return 1 if v > 0 else -1
        return 0 if v == 0 and error == 0 else None

    def integrate(self, f: Callable[..., Any], a: Any, b: Any, **options: Any) -> Certified:
        """Gauss–Legendre with the Bernstein-ellipse bound; needs ``rho=`` and ``log_m=``
        (see :func:`~.integration.integrate_float`). ``f`` receives a float64 array."""
        from .integration import integrate_float

        return integrate_float(f, float(Real.of(a).to_float()), float(Real.of(b).to_float()), **options)

    def error_of(self, x: Any) -> float:
        return x.e if isinstance(x, BoundedFloat) else math.inf

    def certify(self, x: Any) -> Certified:
        if isinstance(x, BoundedFloat):
            return Certified(x, x.v, x.e, "exact" if x.e == 0 else "a-priori", "float")
        v = float(x)
        return Certified(v, v, 0.0, "estimate", "float", {"note": "plain float: no bound was tracked"})


@dataclass(frozen=True)
class MpBackend(Backend):
    """mpmath at ``dps`` decimal digits (default 50)."""

    dps: int = 50
    name: ClassVar[str] = "mp"

    def __post_init__(self) -> None:
        if not isinstance(self.dps, int) or isinstance(self.dps, bool) or not 15 <= self.dps <= MAX_MP_DPS:
            raise ValueError(f"mp backend: dps must be an integer in [15, {MAX_MP_DPS}], got {self.dps!r}")

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        import mpmath

        with mpmath.workdps(self.dps):
            yield

    def from_real(self, x: Real) -> Any:
        return x.to_mpf()

    def exp(self, x: Any) -> Any:
        import mpmath

        return mpmath.exp(x)

    def log(self, x: Any) -> Any:
        import mpmath

        return mpmath.log(x)

    def log1p(self, x: Any) -> Any:
        import mpmath

        return mpmath.log1p(x)

    def expm1(self, x: Any) -> Any:
        import mpmath

        return mpmath.expm1(x)

    def sqrt(self, x: Any) -> Any:
        import mpmath

        return mpmath.sqrt(x)

    def sum(self, xs: Iterable[Any]) -> Any:
        import mpmath

        return mpmath.fsum(xs)

    def try_sign(self, x: Any, error: Any = None) -> int | None:
        """Sign of the computed value when ``|x| > error`` (default ``10^(3 - dps)``): an
        estimate, since an mp value carries no proof of its accuracy."""
        import mpmath

        tol = mpmath.mpf(10) ** (3 - self.dps) if error is None else error
        if abs(x) > tol:
            return 1 if x > 0 else -1
        return None

    def integrate(self, f: Callable[..., Any], a: Any, b: Any, **options: Any) -> Certified:
        """:func:`mpmath.quad` — the bound is mpmath's estimate (``error_kind="estimate"``)."""
        from .integration import integrate_mp

        return integrate_mp(f, a, b, self.dps, options.get("points"))

    def error_of(self, x: Any) -> float:
        """An estimate: ``10^(3 - dps)·|x|`` (a few hundred ulps of working precision)."""
        return 10.0 ** (3 - self.dps) * abs(float(x))

    def certify(self, x: Any) -> Certified:
        v = float(x)
        return Certified(x, v, self.error_of(x), "estimate", str(self))

    def to_float(self, x: Any) -> float:
        return float(x)

    def __str__(self) -> str:
        return f"mp:{self.dps}"


@dataclass(frozen=True)
class BallBackend(Backend):
    """python-flint ``arb`` at ``prec`` bits (default 128). Every result is a rigorous enclosure."""

    prec: int = 128
    name: ClassVar[str] = "ball"
    rigorous: ClassVar[bool] = True
    error_kind: ClassVar[ErrorKind] = "rigorous"

    def __post_init__(self) -> None:
        if not isinstance(self.prec, int) or isinstance(self.prec, bool) or not 53 <= self.prec <= MAX_BALL_PREC:
            raise ValueError(f"ball backend: prec must be an integer in [53, {MAX_BALL_PREC}] bits, got {self.prec!r}")

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        from flint import ctx

        old = ctx.prec
        ctx.prec = self.prec
        try:
            yield
        finally:
            ctx.prec = old

    def from_real(self, x: Real) -> Any:
        return x.to_arb(self.prec)

    def from_int(self, k: int) -> Any:
        """An integer as an exact ball, made directly below 2^53 in magnitude (exact at every precision;
        pmfs in backend operations ask for 0 and 1 in their inner loops, where parsing a Real costs most)."""
        if type(k) is int and -_EXACT_INT <= k <= _EXACT_INT:
            return _arb_type()(k)
        return self.from_real(Real.of(k))

    def exp(self, x: Any) -> Any:
        return x.exp()

    def log(self, x: Any) -> Any:
        return x.log()

    def log1p(self, x: Any) -> Any:
        return x.log1p()

    def expm1(self, x: Any) -> Any:
        return x.expm1()

    def sqrt(self, x: Any) -> Any:
        return x.sqrt()

    def sum(self, xs: Iterable[Any]) -> Any:
        out = _arb_type()(0)
        for v in xs:
            out = out + v
        return out

    def try_sign(self, x: Any) -> int | None:
        """Certified: ±1 when the ball excludes 0, 0 for the exact ball 0, ``None`` otherwise."""
        if x > 0:
            return 1
        if x < 0:
            return -1
        if x.is_zero():
            return 0
        return None

    def integrate(self, f: Callable[..., Any], a: Any, b: Any, **options: Any) -> Certified:
        """Rigorous ``acb.integral``; ``f(z, analytic)`` receives ``acb`` values."""
        from .integration import integrate_ball

        return integrate_ball(f, a, b, self.prec)

    def error_of(self, x: Any) -> float:
        r = x.rad()
        f = float(r)
        return f if f >= r else math.nextafter(f, math.inf)

    def certify(self, x: Any) -> Certified:
        return Certified(x, float(x.mid()), self.error_of(x), "rigorous", str(self))

    def to_float(self, x: Any) -> float:
        return float(x.mid())

    def __str__(self) -> str:
        return f"ball:{self.prec}"


@dataclass(frozen=True)
class ExactBackend(Backend):
    """Exact arithmetic: ``flint.fmpq`` when every number is rational, sympy expressions otherwise.

    Use :meth:`field` to bring a list of exact values to a common representation: rationals
    become ``fmpq`` (fast), anything else (``exp(1/3)``, symbols) stays a sympy expression.
    """

    name: ClassVar[str] = "exact"
    rigorous: ClassVar[bool] = True
    error_kind: ClassVar[ErrorKind] = "exact"

    def from_real(self, x: Real) -> Any:
        return x.to_sympy()

    def exp(self, x: Any) -> Any:
        import sympy

        return sympy.exp(x)

    def log(self, x: Any) -> Any:
        import sympy

        return sympy.log(x)

    def log1p(self, x: Any) -> Any:
        import sympy

        return sympy.log(1 + exact_sympy(x))

    def expm1(self, x: Any) -> Any:
        import sympy

        return sympy.exp(x) - 1

    def sqrt(self, x: Any) -> Any:
        import sympy

        return sympy.sqrt(x)

    def sum(self, xs: Iterable[Any]) -> Any:
        import sympy

        items = list(xs)
        if items and all(type(v).__name__ == "fmpq" for v in items):
            out = items[0]
            for v in items[1:]:
                out = out + v
            return out
        return sympy.Add(*[exact_sympy(v) for v in items])

    def try_sign(self, x: Any, zero_test: Callable[[Any], "bool | None"] | None = None) -> int | None:
        """Exact sign (:func:`.closed_form_sign.closed_form_sign`: rationals, sums of exponentials, arb at
        rising precision, then ``zero_test`` and ``sympy.simplify``); ``None`` only when an exact tie
        cannot be decided."""
        from .closed_form_sign import closed_form_sign

        return closed_form_sign(x, zero_test)

    def integrate(self, f: Callable[..., Any], a: Any, b: Any, **options: Any) -> Certified:
        """Closed form by :func:`sympy.integrate` (``ValueError`` when there is none)."""
        from .integration import integrate_exact

        return integrate_exact(f, a, b)

    def error_of(self, x: Any) -> float:
        return 0.0

    def certify(self, x: Any) -> Certified:
        return Certified(x, self.to_float(x), 0.0, "exact", "exact")

    def to_float(self, x: Any) -> float:
        if type(x).__name__ == "fmpq":
            return int(x.p) / int(x.q) if abs(int(x.p)) < 2**1000 else float(Real.of(x).to_float())
        return Real.of(x).to_float()

    @staticmethod
    def field(values: list[Any]) -> tuple[str, list[Any]]:
        """Return ``("fmpq", [...])`` if every value is rational, else ``("sympy", [...])``."""
        from flint import fmpq

        out = []
        for v in values:
            v = exact_sympy(v)
            if not v.is_Rational:
                return "sympy", [exact_sympy(w) for w in values]
            out.append(fmpq(int(v.p), int(v.q)))
        return "fmpq", out


def ball_context(prec: int) -> "contextlib.AbstractContextManager[None]":
    """Run a block at ``prec`` bits of arb precision (restored afterwards, even on error)."""
    return BallBackend(int(prec)).context()


def law_backend(backend: "str | Backend", prec: int = 128) -> tuple[bool, int]:
    """``(exact?, bits)`` for the closed-form laws of output sets (box / interval probabilities),
    which are served on ``exact`` and ``ball`` only: plain ``"ball"`` runs at ``prec`` bits,
    ``"ball:bits"`` (or a ball Backend) at its own; float and mp are refused (one line naming the argument)."""
    if isinstance(backend, str) and backend.strip() == "ball":
        return False, prec
    be = get_backend(backend)
    if be.is_exact:
        return True, prec
    if be.is_ball:
        return False, be.prec
    raise ValueError(f"backend: the laws of output sets are served on 'ball[:bits]' and 'exact', got {backend!r}")


_FLOAT = FloatBackend()
#: integers up to this magnitude are exact arb balls at any precision
_EXACT_INT = 2**53


@functools.cache
def _arb_type() -> Any:
    """``flint.arb``, imported on first use (a ``from flint import arb`` per call costs more than the ball)."""
    from flint import arb

    return arb


def get_backend(spec: "str | Backend") -> Backend:
    """Parse a backend name: ``float``, ``mp``, ``mp:<digits>``, ``ball``, ``ball:<bits>``, ``exact``.

    Precisions are plain decimal integers within ``MAX_MP_DPS`` digits / ``MAX_BALL_PREC`` bits
    (see their comment for the measured cost); anything else is a one-line ``ValueError``.
    """
    if isinstance(spec, Backend):
        return spec
    if spec == "float":  # the default of every pmf call: no parsing (backends are immutable values)
        return _FLOAT
    if not isinstance(spec, str):
        raise TypeError(f"backend must be a name or a Backend, got {type(spec).__name__}")
    name, sep, arg = spec.strip().lower().partition(":")
    arg = arg.strip()
    if name in ("mp", "ball") and sep:
        if not arg.isascii() or not arg.isdigit() or len(arg) > 9:
            raise ValueError(f"backend {spec[:40]!r}: the precision must be a decimal integer "
                             f"(mp: digits <= {MAX_MP_DPS}, ball: bits <= {MAX_BALL_PREC})")
        try:
            return MpBackend(int(arg)) if name == "mp" else BallBackend(int(arg))
        except ValueError as exc:
            raise ValueError(f"backend {spec[:40]!r}: {exc}") from None
    if name == "mp" and not arg:
        return MpBackend()
    if name == "ball" and not arg:
        return BallBackend()
    if name == "float" and not arg:
        return FloatBackend()
    if name == "exact" and not arg:
        return ExactBackend()
    raise ValueError(f"unknown backend {spec[:40]!r}; choose one of float, mp[:digits], ball[:bits], exact")
