"""The selection-mechanism interface shared by every mechanism of dpexact.

A mechanism is a small frozen dataclass that *describes* a randomized selection rule
``M : R^n -> {0, ..., n-1}`` (its parameters are exact :class:`~dpexact.numbers.Real`
numbers) and computes, on request, its probability mass function on any number backend.
Verifiers, the LP and the utility metrics only use the public surface written down in
:class:`dpexact.protocols.Mechanism`:

* ``pmf(scores, backend="float", method=None) -> Pmf``
* ``logpmf(scores) -> ndarray`` (float64, accurate where the pmf underflows)
* ``rvs(scores, size=None, random_state=None) -> ndarray`` of output indices
* ``params() -> dict`` (JSON-friendly), ``short_name``, ``epsilon``, ``sensitivity``
* ``size`` (None: any n), ``neighbourhood()``, ``properties``, ``output_kind``, ``outputs(n)``

A subclass implements three public hooks: ``pmf_float(q, method)`` (float64 scores in, a
float :class:`Pmf` with its bound out), ``pmf_backend(q, backend, method)`` (exact
:class:`Real` scores; runs inside the backend's precision context for mp / ball / exact) and
``sample(q, rng, size)`` (the algorithm's own randomness).
It declares its properties in ``declared_properties`` (or overrides ``properties`` when they
depend on the parameters), and overrides ``size`` / ``neighbourhood()`` when it is tied to a
number of candidates or to a candidate-wise relation.

Conventions (all mechanisms): candidates are indexed ``0..n-1``; a *score* (quality) vector
``q`` has sensitivity ``Δ`` per coordinate (``|q_r(D) - q_r(D')| <= Δ`` for neighbours);
``monotone=True`` means the quality function is monotone in the sense of pf Remark 1
(adding an individual can only increase scores), which lets the mechanism use ``ε/Δ``
instead of ``ε/(2Δ)`` in its exponent.
"""

from __future__ import annotations

from collections.abc import Sized
import math
from functools import cached_property
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import Backend, get_backend
from ..numbers.pmf import Pmf
from ..numbers.real import Real
from ..protocols import MechanismProperties, Neighbourhood
from .validation import exact_scores, float_scores, float_scores_rounded, positive_real

__all__ = ["SelectionMechanism", "MechanismCrash", "lipschitz_shift", "widen_for_input_rounding"]

#: a float pmf whose stated absolute error exceeds this is recomputed in ball arithmetic
#: (its midpoints, with the ball radius as a rigorous bound)
FLOAT_USEFUL_ERROR = 1e-9
#: ... and refused (ValueError) when neither route bounds it below this
USELESS_ERROR = 0.5
#: largest |c·(q_r - q*)| on the exact backend when c is irrational (see _exact_exponents)
EXACT_EXPONENT_LIMIT = 1e5


class MechanismCrash(ValueError):
    """A mechanism's own code raised (a define_mechanism pmf function, a loaded mechanism's method):
    a defect of the mechanism, not a backend or input it declines. A ``ValueError`` for the
    one-line CLI error; conformance fails the check that meets it and verifiers name it."""


def _scores_as_array(sample: Any) -> Any:
    """``sample(q, rng, size)`` that also takes a list or tuple of scores and a seed for ``rng``
    (validated as :meth:`SelectionMechanism.rvs` validates them); an array passes through as it is."""
    import functools

    @functools.wraps(sample)
    def wrapped(self: Any, q: Any, rng: Any = None, size: int = 1) -> Any:
        if not isinstance(q, np.ndarray):
            q = float_scores(q)
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        return sample(self, q, rng, size)

    wrapped.__wrapped_sample__ = True
    return wrapped


@dataclass(frozen=True)
class SelectionMechanism:
    """Base class: ε-DP selection from a score vector with per-coordinate sensitivity Δ.

    Args:
        epsilon: privacy parameter ε > 0 (exact: int, Fraction, str such as ``"2*log(3)"``,
            sympy expression, or a float taken at its exact binary value).
        sensitivity: Δ > 0, the sensitivity of every score.
        monotone: use the monotone-quality exponent ε/Δ (pf Remark 1) instead of ε/(2Δ).
    """

    epsilon: Any
    sensitivity: Any = 1
    monotone: bool = False

    short_name: ClassVar[str] = "abstract"
    #: largest n accepted by the exact backend when the weights are rational (flint ``fmpq``)
    exact_limit: ClassVar[int] = 400
    #: what every instance of the class declares (checked by dpexact.conformance.checks)
    declared_properties: ClassVar[MechanismProperties] = MechanismProperties()
    output_kind: ClassVar[str] = "selection"
    #: largest n when they are irrational (sympy expressions: far slower)
    exact_symbolic_limit: ClassVar[int] = 400
    #: measured exact-backend cost, seconds ≈ a·n^k, as (a, k) for rational / irrational weights
    #: (distinct integer scores, this project's 2-core machine, ``benchmarks/exact_cost.py``);
    #: the limits above keep the estimate near 10 s and refusals quote it
    exact_cost: ClassVar[tuple[float, float] | None] = None
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = None
    #: largest n on the mp and ball backends (measured to take about 10 s; see benchmarks/README.md)
    mp_limit: ClassVar[int] = 10_000_000
    ball_limit: ClassVar[int] = 10_000_000

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "sample" in cls.__dict__:  # every subclass's sampler takes what pmf / rvs take (a list too)
            cls.sample = _scores_as_array(cls.__dict__["sample"])

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise TypeError(f"monotone must be a bool, got {type(self.monotone).__name__}")
        object.__setattr__(self, "monotone", bool(self.monotone))

    # -- derived parameters ----------------------------------------------------------------
    @cached_property  # parameters are frozen; the float paths ask for it on every call
    def exponent_scale(self) -> Real:
        """The factor c in exp(c·q): ε/(2Δ), or ε/Δ for monotone qualities."""
        return self.epsilon / (self.sensitivity if self.monotone else self.sensitivity * 2)

    @cached_property
    def _exponent_scale_float(self) -> float:
        """``exponent_scale`` rounded to float64 (``inf`` beyond its range)."""
        try:
            return self.exponent_scale.to_float()
        except OverflowError:
            return math.inf

    @property
    def size(self) -> int | None:
        """Number of candidates the mechanism is tied to; ``None``: any n."""
        return None

    @property
    def properties(self) -> MechanismProperties:
        """Declared symmetry / shift invariance / monotonicity (pf Definition 3)."""
        return self.declared_properties

    def outputs(self, n: int) -> range:
        """The output space for ``n`` scores: candidate indices ``0..n-1``."""
        return range(n)

    def neighbourhood(self) -> Neighbourhood:
        """The relation the ε-DP claim refers to: the monotone box (pf Remark 1) when
        ``monotone``, else the ℓ∞ box ``|q'_r - q_r| <= Δ`` (pf §2.2)."""
        from .neighbourhoods import LInfBox, MonotoneBox

        delta = self.sensitivity.to_fraction() if self.sensitivity.is_rational else self.sensitivity
        return MonotoneBox(delta) if self.monotone else LInfBox(delta)

    def params(self) -> dict[str, Any]:
        """JSON-friendly parameters (exact values as strings)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Real):
                out[f.name] = str(v)
            elif isinstance(v, tuple):
                out[f.name] = [str(x) for x in v]
            else:
                out[f.name] = v
        return out

    # -- public API --------------------------------------------------------------------------
    def pmf(self, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Pmf:
        """Probability of each candidate: ``Pr[M(q) = r]`` for ``r = 0..n-1``.

        Args:
            scores: the score vector ``q`` (1-D, finite, non-empty).
            backend: ``"float"``, ``"mp[:digits]"``, ``"ball[:bits]"``, ``"exact"`` or a Backend.
            method: algorithm name, mechanism-specific (``None`` = the default).
        """
        be = get_backend(backend)
        if be.is_float:
            q, rounding = float_scores_rounded(scores)
            p = self.pmf_float(q, method)
            if rounding > 0:
                p = self._account_input_rounding(scores, q, rounding, p, method)
            # the default method must give a useful bound; a method asked for by name (e.g. an unstable
            # recurrence kept for comparison) is returned as it is, with its own honest bound
            if method is None and not (p.abs_error <= FLOAT_USEFUL_ERROR):  # also catches inf / nan bounds
                return self._float_from_ball(scores, method, p)
            return p
        if be.is_exact and not isinstance(scores, (str, bytes)) and isinstance(scores, Sized):
            self._check_exact_size(len(scores), symbolic=False)  # before any entry is parsed
        limit = (self.exact_limit if be.is_exact else self.mp_limit if be.is_mp
                 else self.ball_limit if be.is_ball else 10_000_000)
        if (be.is_mp or be.is_ball) and not isinstance(scores, (str, bytes)) and isinstance(scores, Sized) \
                and len(scores) > limit:
            raise ValueError(f"scores: {len(scores)} entries exceed the limit of {limit} for {self.short_name} on the "
                             f"{be.name} backend (about 10 s on a 2-core machine, measured); use backend='float'")
        q = exact_scores(scores, limit=limit)
        with be.context():
            p = self.pmf_backend(q, be, method)
            if be.is_mp:
                _check_mp_total(p, len(q), self.short_name)
            return p

    def pmf_float_validated(self, q: np.ndarray, method: str | None = None) -> Pmf:
        """``pmf(q, "float", method)`` for scores validated once by the caller
        (:class:`~dpexact.protocols.ValidatedFloatPmf`).

        Args:
            q: a 1-D float64 array from :func:`~.validation.float_scores` (finite, non-empty);
                read, never copied or written. Its type, dtype and shape are checked (O(1)); its
                entries are not re-checked (a NaN gives a NaN bound, which sends the call to the
                ball route, which refuses it).
            method: as for :meth:`pmf`.

        Returns:
            The :class:`Pmf` ``pmf`` returns: same values, same stated bound, same fallback to
            balls when the float bound is useless. A subclass that replaces ``pmf`` gets its own.
        """
        if not (isinstance(q, np.ndarray) and q.dtype == np.float64 and q.ndim == 1 and q.size):
            raise TypeError("q must be a non-empty 1-D float64 array from validation.float_scores "
                            f"(got {type(q).__name__}); use pmf(scores) for anything else")
        if type(self).pmf is not SelectionMechanism.pmf:
            return self.pmf(q, "float", method)
        p = self.pmf_float(q, method)
        if method is None and not (p.abs_error <= FLOAT_USEFUL_ERROR):  # also catches inf / nan bounds
            return self._float_from_ball(q, method, p)
        return p

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float | None:
        """A bound on ``max_r |log Pr[M(scores) = r] - log Pr[M(q) = r]|``, where ``q`` is
        ``scores`` rounded to float64 and ``rounding >= max_r |scores_r - q_r|``; ``None`` when no
        bound is known (the float pmf is then taken from balls on the exact scores).

        The float paths compute the law of ``q``; this is what moves it to the law of the exact
        scores. Mechanisms whose law is Lipschitz in the scores return :func:`lipschitz_shift`
        (exponential weights ``e^{c q_r}``: rate ``c``; noisy max with noise scales ``b_r``:
        rate ``1/min b_r``); mechanisms whose law also depends on ties or order (argmax sets)
        return a shift only when the exact and the rounded scores have the same such structure.
        """
        return None

    def _account_input_rounding(self, scores: Any, q: np.ndarray, rounding: float, p: Pmf,
                                method: str | None) -> Pmf:
        """The float pmf ``p`` of the rounded scores ``q``, with its bound made to hold for the exact
        ``scores``: widened by :meth:`input_rounding_shift`, else recomputed in balls on the exact
        scores, else (no ball route) labelled ``error_kind="rounded-inputs"``."""
        shift = self.input_rounding_shift(scores, q, rounding)
        if shift is not None and shift < 1.0:
            return widen_for_input_rounding(p, shift, rounding)
        unbounded = Pmf(p.values, p.backend, p.method, None, math.inf, p.error_kind, logvalues=p.logvalues,
                        details=p.details)
        try:
            return self._float_from_ball(scores, method, unbounded)
        except ValueError:
            return Pmf(p.values, p.backend, p.method, p.rel_error, p.abs_error, "rounded-inputs", logvalues=p.logvalues,
                       details={**p.details, "input_rounding": {"max_score_rounding": rounding, "note":
                                "the bound holds for the scores rounded to float64, not for the exact scores"}})

    def _float_from_ball(self, scores: Any, method: str | None, loose: Pmf) -> Pmf:
        """A float pmf whose stated bound is useless (extreme ε, huge exponents) recomputed in ball
        arithmetic: the ball midpoints rounded to float64, the radius (+ the rounding) as a rigorous
        bound. The float result is kept when the ball route is refused or is no tighter."""
        try:
            b = self.pmf(scores, "ball", method)
        except (ValueError, TypeError, ArithmeticError, NotImplementedError):
            b = None
        ae = math.inf if b is None else max(float(v.rad()) for v in b.values) + 2.0**-53
        if not ae < loose.abs_error:
            if not loose.abs_error < USELESS_ERROR:  # a bound of 1/2 or more says nothing about a probability
                raise ValueError(f"backend: the float pmf of {self.short_name} can only be bounded by "
                                 f"{loose.abs_error:.3g} here and the ball is no tighter; use backend='mp:50'")
            return loose
        mids = np.array([float(v.mid()) for v in b.values])
        with np.errstate(divide="ignore"):
            logs = np.array([float(v.log().mid()) if v > 0 else -np.inf if v == 0 else np.log(max(float(v.mid()), 0.0))
                             for v in b.values])
        return Pmf(mids, "float", f"{b.method} (ball)", None, ae, "rigorous", logvalues=logs,
                   details={**b.details, "float_bound_too_loose": loose.abs_error, "float_method": loose.method})

    def logpmf(self, scores: Any) -> np.ndarray:
        """Float64 natural log of the pmf (``-inf`` only for true zeros)."""
        p = self.pmf(scores)
        if p.logvalues is not None:
            return p.logvalues
        with np.errstate(divide="ignore"):
            return np.log(p.values)

    def rvs(self, scores: Any, size: int | tuple[int, ...] | None = None, random_state: Any = None) -> Any:
        """Draw outputs by running the mechanism's own sampling algorithm.

        Args:
            scores: score vector.
            size: number (or shape) of independent draws; ``None`` for one draw (an int).
            random_state: ``numpy.random.Generator``, seed, or ``None``.
        """
        q = float_scores(scores)
        rng = np.random.default_rng(random_state)
        if size is None:
            return int(self.sample(q, rng, 1)[0])
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        if any(int(s) < 0 for s in shape):
            raise ValueError(f"size must be non-negative, got {size}")
        total = int(np.prod(shape))
        return self.sample(q, rng, total).reshape(shape)

    # -- to implement (public hooks) ------------------------------------------------------------
    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        """Float64 pmf of the validated scores ``q`` with its error bound."""
        raise NotImplementedError(f"{type(self).__name__}: implement pmf_float(q, method)")

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        """The pmf on mp / ball / exact from exact scores, inside ``backend.context()``."""
        raise ValueError(f"backend {backend}: {type(self).__name__} implements no pmf_backend(q, backend, method)")

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` independent draws (int64 output indices) by the mechanism's own algorithm."""
        raise NotImplementedError(f"{type(self).__name__}: implement sample(q, rng, size)")

    # -- helpers for subclasses ------------------------------------------------------------------
    def _check_exact_size(self, n: int, symbolic: bool) -> None:
        """Refuse an exact-backend problem beyond the measured limit, quoting the cost estimate."""
        limit = self.exact_symbolic_limit if symbolic else self.exact_limit
        if n <= limit:
            return
        model = self.exact_symbolic_cost if symbolic else self.exact_cost
        what = "irrational weights (sympy)" if symbolic else "rational weights (fmpq)"
        if self.exact_limit == self.exact_symbolic_limit:
            what = "exact arithmetic"
        est = ""
        if model is not None:
            a, k = model
            est = f": estimated {a * float(n) ** k:.2g} s (measured cost ≈ {a:.2g}·n^{k:.2f} s)"
        raise ValueError(f"scores: {n} entries exceed the limit of {limit} for {self.short_name} on the exact backend "
                         f"with {what}{est}; use backend='ball' (rigorous) instead")

    def _exact_weights_symbolic(self, q: list[Real]) -> bool:
        """Whether the weights ``exp(c(q_r - q*))`` are irrational (the slow sympy field)."""
        import sympy

        from ..numbers.backends import ExactBackend

        return ExactBackend.field([sympy.exp(x.to_sympy()) for x in self._exact_exponents(q)])[0] == "sympy"

    def _float_exponents(self, q: np.ndarray) -> np.ndarray:
        """``c·(q_r - q*) <= 0`` in float64, with ``c`` the exponent scale.

        Relative error <= 2u per entry (one rounding of the difference, one of the product;
        ``c`` itself correctly rounded). ``c`` outside float64's normal range (ε = e^1000,
        ε = 1e-320) or a difference that overflows (scores ±1.7e308) is handled by scaling
        both factors into [1/2, 1) first, so the product is formed without overflow: an entry
        is ``-inf`` only when its true value is below -1.8e308 (then ``exp`` is 0 exactly).
        """
        return float_exponents(self.exponent_scale, q, self._exponent_scale_float)

    def _backend_exponents(self, q: list[Real], backend: Backend) -> list[Any]:
        """``c·(q_r - q*)`` as backend numbers; the maximum is exactly 0.

        Fast path: when ε/Δ and every score are rational the exponents are formed exactly in
        ``flint.fmpq`` and rounded once into the backend (arb: rigorous enclosure).
        """
        c = self.exponent_scale
        if c.is_rational and all(v.is_rational for v in q):
            from flint import arb, fmpq

            qs = [fmpq(v.value.numerator, v.value.denominator) for v in q]
            top = max(qs)
            cf = fmpq(c.value.numerator, c.value.denominator)
            xs = [cf * (v - top) for v in qs]
            if backend.is_ball:
                return [arb(x) for x in xs]
            return [backend.from_real(Real(Fraction(int(x.p), int(x.q)))) for x in xs]
        return [backend.from_real(x) for x in self._exact_exponents(q, bounded=False)]

    def _exact_exponents(self, q: list[Real], bounded: bool = True) -> list[Real]:
        """Exact ``c·(q_r - q*)`` as Reals (rational when ε/Δ and the scores are); ``bounded``
        (for exact weights e^x) refuses huge exponents with an irrational c."""
        top = max(q)
        c = self.exponent_scale
        if bounded and not c.is_rational and not c.is_symbolic and not any(x.is_symbolic for x in q):
            # c = k·log(a) turns e^{c d} into the rational a^{k d}: sympy would build an integer of
            # ~|c d|·1.4 bits (a hang at d ~ 1e308), so such exponents are bounded first
            cf = abs(c.to_float())
            worst = max(abs((x - top).to_float()) for x in q) * cf
            if worst > EXACT_EXPONENT_LIMIT:
                raise ValueError(f"scores: exponents c·(q_r - q*) up to {worst:.3g} exceed {EXACT_EXPONENT_LIMIT:.0e} on the "
                                 "exact backend (the weights could need that many digits); use backend='ball'")
        return [c * (x - top) for x in q]


def lipschitz_shift(rate: Any, rounding: float) -> float:
    """``2·rate·rounding``, rounded up: how far ``log Pr[M(q) = r]`` can move when every score
    moves by at most ``rounding``, for a law with ``|log Pr[M(q) = r] - log Pr[M(q') = r]| <=
    2·rate·‖q - q'‖∞``. That is the ε-DP statement of the mechanism read at every Δ: exponential
    weights ``e^{c q_r}`` (EM, pf Def. 4; PF, pf Theorem 1) have rate ``c``; report noisy max has
    rate ``1/b_r`` for candidate ``r`` (conditioning on the other noises, the winning threshold
    moves by <= 2·rounding and every survival function used here — exponential, Gumbel, Laplace —
    is log-Lipschitz with constant ``1/b``: pf Appendix F's argument), so ``1/min_r b_r`` overall."""
    r = Real.of(rate) if not isinstance(rate, (float, int)) else Real.of(float(rate))
    return float(r.to_arb(64).abs_upper().upper()) * 2 * rounding * (1 + 2.0**-48) + 2.0**-1074


def noisy_max_shift(scales: Any, rounding: float) -> float:
    """:func:`lipschitz_shift` of a noisy-max law with noise scales ``scales`` (one per candidate, or
    per group): rate ``1/min_r b_r``."""
    low = scales[0]
    for b in scales[1:]:
        if b < low:
            low = b
    return lipschitz_shift(1 / low, rounding)


def widen_for_input_rounding(p: Pmf, shift: float, rounding: float) -> Pmf:
    """``p`` (a float pmf of the rounded scores, ``|p_r - P_r(q)| <= abs``, relative ``rel``) with the
    bounds that hold for the exact scores when ``|log P_r(exact) - log P_r(q)| <= shift``:
    ``rel' = (1 + rel)·e^shift - 1`` and ``abs' = abs + (e^shift - 1)(max p + abs)``."""
    g = math.expm1(shift) * (1 + 2.0**-50) + 2.0**-1074
    rel = None if p.rel_error is None else (p.rel_error + g + p.rel_error * g) * (1 + 2.0**-50)
    top = float(np.max(np.abs(np.asarray(p.values, dtype=np.float64))))
    ae = (p.abs_error + g * (top + p.abs_error)) * (1 + 2.0**-50)
    return Pmf(p.values, p.backend, p.method, rel, ae, p.error_kind, logvalues=p.logvalues,
               details={**p.details, "input_rounding": {"max_score_rounding": rounding, "log_shift": shift}})


def _check_mp_total(p: Pmf, n: int, name: str) -> None:
    """mp results carry only an error *estimate*: a total that misses 1 by more than the estimate
    allows (n entries) shows the estimate is wrong there, so the result is refused, not returned."""
    import mpmath

    total = mpmath.fsum(p.values)
    slack = n * (p.abs_error or 0.0) + mpmath.mpf(10) ** (-mpmath.mp.dps + 3) * n
    if abs(total - 1) > slack:
        raise ValueError(f"backend: the mp pmf of {name} sums to {mpmath.nstr(total, 8)}, beyond its error estimate; "
                         "use backend='ball' (rigorous) for these parameters")


def scaled_float(x: Real) -> tuple[float, int]:
    """``x = m · 2^e`` with ``m`` in [1/2, 1) correctly rounded (x > 0; any magnitude)."""
    if x.is_rational:
        num, den = x.value.numerator, x.value.denominator
        s = 64 - (num.bit_length() - den.bit_length())  # quotient of ~64 bits: no gcd of huge integers
        qt, rem = divmod(num << s, den) if s >= 0 else divmod(num, den << -s)
        mm, ee = math.frexp(float((qt << 1) | (rem != 0)))  # sticky bit: one correct rounding
        return mm, ee - s - 1
    else:
        man, exp = x.to_arb(128).mid().man_exp()
        man, exp = int(man), int(exp)
        k = man.bit_length() + exp
        m = float(Fraction(man, 2 ** man.bit_length()))
    mm, ee = math.frexp(m)
    return mm, k + ee


def float_exponents(c: Real, q: np.ndarray, cf: float | None = None) -> np.ndarray:
    """``c·(q_r - q*)`` in float64 without spurious overflow or NaN (see ``_float_exponents``);
    ``cf`` is ``c`` rounded to float64 when the caller has it already.

    The common case (every difference and product in range, known from the extremes alone) is
    one subtraction and one in-place product, without the cost of ``np.errstate``.
    """
    if cf is not None and 2.0**-1000 < cf < 2.0**1000:
        top = float(np.maximum.reduce(q))
        span = top - float(np.minimum.reduce(q))  # >= every |q_r - top| after rounding (monotone)
        if span * cf < 1e308:  # no difference and no product overflows (inf/nan fail the test)
            try:
                d = q - top
                d *= cf
                return d
            except FloatingPointError:  # np.seterr(under="raise") set by the caller: the route below
                pass
    top = q.max()
    with np.errstate(over="ignore"):
        d = q - top
    if cf is None:
        try:
            cf = c.to_float()
        except OverflowError:
            cf = math.inf
    if 2.0**-1000 < cf < 2.0**1000 and np.isfinite(d.sum()):  # d <= 0: a finite sum means every entry is finite
        with np.errstate(over="ignore", under="ignore"):
            return cf * d
    cm, ce = scaled_float(c)
    dm, de = np.frexp(d)
    big = ~np.isfinite(d)
    if big.any():
        hm, he = np.frexp(q[big] / 2 - top / 2)  # halves of huge (normal) numbers are exact
        dm[big], de[big] = hm, he + 1
    e = np.clip(de.astype(np.int64) + ce, -100_000, 100_000).astype(np.int32)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(cm * dm, e)


def overrides_float_route(obj: Any, owner: type) -> bool:
    """Whether ``obj``'s class replaces the float pmf route it inherits from ``owner`` (``pmf``,
    ``pmf_float``): a batch route written for ``owner`` would then no longer compute
    what ``obj.pmf`` computes, so it must not be used."""
    cls = type(obj)
    return any(getattr(cls, name) is not getattr(owner, name) for name in ("pmf", "pmf_float"))


def float_exponents_rows(cf: float, Q: np.ndarray) -> np.ndarray | None:
    """``c·(q - q*)`` of every row of ``Q``, bit for bit what :func:`float_exponents` gives for the
    row, or ``None`` when some row needs its scaled route (``c`` or a difference out of range)."""
    if not 2.0**-1000 < cf < 2.0**1000:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        D = Q - Q.max(axis=1, keepdims=True)
    if not np.isfinite(D).all():
        return None
    with np.errstate(under="ignore"):
        return cf * D


def _check_method(method: str | None, allowed: tuple[str, ...], default: str) -> str:
    m = default if method is None else method
    if m not in allowed:
        raise ValueError(f"method must be one of {allowed}, got {method!r}")
    return m


def fraction_of(x: Real) -> Fraction:
    return x.to_fraction()
