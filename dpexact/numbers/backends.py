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
The scalar backends (mp, ball, exact) share elementary operations (:meth:`exp`, :meth:`log`,
...) so that one scalar implementation of an algorithm runs on all of them; the float
backend is served by separate vectorised numpy code in each mechanism.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator

from .real import Real

__all__ = ["Backend", "FloatBackend", "MpBackend", "BallBackend", "ExactBackend", "get_backend", "BACKEND_NAMES",
           "MAX_MP_DPS", "MAX_BALL_PREC"]

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

    @contextlib.contextmanager
    def context(self) -> Iterator[None]:
        """Set the working precision of the underlying library for the duration."""
        yield

    # scalar interface (mp, ball, exact) --------------------------------------------------
    def from_real(self, x: Real) -> Any:
        raise NotImplementedError

    def from_int(self, k: int) -> Any:
        return self.from_real(Real.of(k))

    def exp(self, x: Any) -> Any:
        raise NotImplementedError

    def log(self, x: Any) -> Any:
        raise NotImplementedError

    def to_float(self, x: Any) -> float:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FloatBackend(Backend):
    name: ClassVar[str] = "float"

    def from_real(self, x: Real) -> float:
        return x.to_float()

    def to_float(self, x: Any) -> float:
        return float(x)


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

    def exp(self, x: Any) -> Any:
        return x.exp()

    def log(self, x: Any) -> Any:
        return x.log()

    def log1p(self, x: Any) -> Any:
        return x.log1p()

    def expm1(self, x: Any) -> Any:
        return x.expm1()

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

    def from_real(self, x: Real) -> Any:
        return x.to_sympy()

    def exp(self, x: Any) -> Any:
        import sympy

        return sympy.exp(x)

    def log(self, x: Any) -> Any:
        import sympy

        return sympy.log(x)

    def to_float(self, x: Any) -> float:
        if type(x).__name__ == "fmpq":
            return int(x.p) / int(x.q) if abs(int(x.p)) < 2**1000 else float(Real.of(x).to_float())
        return Real.of(x).to_float()

    @staticmethod
    def field(values: list[Any]) -> tuple[str, list[Any]]:
        """Return ``("fmpq", [...])`` if every value is rational, else ``("sympy", [...])``."""
        import sympy
        from flint import fmpq

        out = []
        for v in values:
            v = _exact_sympy(v)
            if not v.is_Rational:
                return "sympy", [_exact_sympy(w) for w in values]
            out.append(fmpq(int(v.p), int(v.q)))
        return "fmpq", out


def _exact_sympy(v: Any) -> Any:
    """An exact backend value (sympy, fmpq, Fraction, int) as sympy; never parses text."""
    import sympy

    if isinstance(v, (str, bytes)):
        raise TypeError("exact backend values must be numbers, not strings (parse them with Real.of)")
    if type(v).__name__ == "fmpq":
        return sympy.Rational(int(v.p), int(v.q))
    return sympy.sympify(v, strict=True)


def get_backend(spec: "str | Backend") -> Backend:
    """Parse a backend name: ``float``, ``mp``, ``mp:<digits>``, ``ball``, ``ball:<bits>``, ``exact``.

    Precisions are plain decimal integers within ``MAX_MP_DPS`` digits / ``MAX_BALL_PREC`` bits
    (see their comment for the measured cost); anything else is a one-line ``ValueError``.
    """
    if isinstance(spec, Backend):
        return spec
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
