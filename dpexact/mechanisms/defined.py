"""Mechanisms defined by functions: :func:`define_mechanism` (a pmf in backend operations)
and its sampler-only variant (a black box for statistical screening only).

Three ways to bring a mechanism to dpexact (all satisfy :class:`dpexact.protocols.Mechanism`):

1. **Subclass** :class:`~dpexact.mechanisms.SelectionMechanism` (a frozen dataclass) and
   implement the public hooks ``pmf_float`` / ``pmf_backend`` / ``sample``; see
   ``examples/geometric_noisy_max.py``.
2. **A pmf function**, written once in backend operations::

       def pmf(q, p, ops):                  # q: scores as backend numbers, p.epsilon, p.sensitivity, ...
           w = [ops.exp(p.epsilon * x / (2 * p.sensitivity)) for x in q]
           s = ops.sum(w)
           return [v / s for v in w]

       em = dpexact.define_mechanism("my-em", pmf, epsilon=1, properties=dict(symmetric=True))

   It runs on ``exact`` (sympy / rationals), ``ball`` (rigorous because every operation is)
   and ``mp``; the ``float`` result is the ball result at 128 bits (512 if wide) rounded
   once, so its stated bound is proven. Returning Python floats on ``exact`` or ``ball``
   raises ``ValueError`` (it would fake exactness).
3. **A sampler only**: ``define_mechanism("bb", sampler=fn, epsilon=1)`` where
   ``fn(q, p, rng, size)`` returns ``size`` output indices. Its ``pmf`` exists on the float
   backend only, as empirical frequencies of a seeded run with a Hoeffding bound
   (``error_kind="estimate"``), and ``properties.certified`` is ``False``: verifiers run a
   statistical screen and never report a certified verdict.

``ops`` offers ``exp``, ``log``, ``log1p``, ``expm1``, ``sqrt``, ``sum``, ``from_int``,
``num`` (an exact number such as ``"1/3"`` into the backend), ``name``, and the certified
decisions of :mod:`dpexact.numbers.comparisons`: ``compare``, ``eq``, ``indicator``, ``max`` and
``argmax`` (every maximiser: ties included). Scores and parameters reach the function as backend
numbers that remember their exact values, so ties between equal scores are decided exactly on
every backend (``x == max(q)`` too; a ball alone cannot tell 1/3 from 1/3). An exception raised
by the function is a :class:`~.base.MechanismCrash` naming it: a defect, never a declined backend.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, ClassVar

import numpy as np

from ..numbers.backends import Backend, BallBackend, ExactBackend, get_backend
from ..numbers.pmf import Pmf
from ..numbers.real import Real
from ..protocols import MechanismProperties, Neighbourhood
from .base import MechanismCrash, SelectionMechanism
from ..numbers.backends import exact_sympy
from ..numbers.comparisons import Undecidable, exact_input

__all__ = ["FunctionMechanism", "define_mechanism", "BackendOperations"]

#: per mechanism (equal parameters: equal entries), its parameters as exact balls by precision
_BALL_PARAMETERS: "weakref.WeakKeyDictionary[Any, dict[int, dict[str, Any]]]" = weakref.WeakKeyDictionary()

#: draws behind a sampler-only mechanism's empirical pmf
SAMPLER_PMF_DRAWS = 200_000
#: confidence of the Hoeffding bound reported with that empirical pmf
SAMPLER_PMF_DELTA = 1e-9


class BackendOperations:
    """The operations a function-defined pmf may use on one scalar backend (mp, ball, exact)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.name = backend.name

    def num(self, x: Any) -> Any:
        """An exact number (int, Fraction, ``"1/3"``, ``"log(2)"``) as a backend number."""
        return exact_input(self.backend, Real.of(x, "number"))  # remembers its value: ops.eq(x, ops.num("37/100"))

    def from_int(self, k: int) -> Any:
        return self.backend.from_int(k)

    def exp(self, x: Any) -> Any:
        return self.backend.exp(self._lift(x))

    def log(self, x: Any) -> Any:
        return self.backend.log(self._lift(x))

    def log1p(self, x: Any) -> Any:
        return self.backend.log1p(self._lift(x))

    def expm1(self, x: Any) -> Any:
        return self.backend.expm1(self._lift(x))

    def sqrt(self, x: Any) -> Any:
        return self.backend.sqrt(self._lift(x))

    def sum(self, xs: Any) -> Any:
        items = [self._lift(x) for x in xs]
        return self.backend.sum(items) if items else self.from_int(0)

    # decisions (dpexact.numbers.comparisons): ties between equal scores are decided exactly,
    # also on balls (the scores and parameters given to the pmf carry their exact values)
    def compare(self, a: Any, b: Any) -> int:
        """Certified sign of ``a - b``."""
        return self.backend.compare(self._lift(a), self._lift(b))

    def eq(self, a: Any, b: Any) -> bool:
        """Certified ``a == b``."""
        return self.backend.eq(self._lift(a), self._lift(b))

    def indicator(self, flag: bool) -> Any:
        """1 or 0 as a backend number (``ops.indicator(ops.eq(x, top))``)."""
        return self.backend.indicator(flag)

    def max(self, xs: Any) -> Any:
        """A maximum of ``xs`` (one of its elements)."""
        return self.backend.max([self._lift(x) for x in xs])

    def argmax(self, xs: Any) -> tuple[int, ...]:
        """Every index of a maximum of ``xs``, ties included."""
        return self.backend.argmax([self._lift(x) for x in xs])

    def _lift(self, x: Any) -> Any:
        if isinstance(x, float):
            raise ValueError(f"pmf: a Python float reached the {self.name} backend; build constants with ops.num(...)")
        if isinstance(x, int):
            return self.from_int(x)
        return x


@dataclass(frozen=True)
class FunctionMechanism(SelectionMechanism):
    """A selection mechanism given by a pmf function and/or a sampler (see the module docstring)."""

    label: str = "custom"
    pmf_function: Any = field(default=None, compare=False, repr=False)
    sampler: Any = field(default=None, compare=False, repr=False)
    relation: Any = None
    declared: Any = None
    fixed_size: Any = None
    extra: Any = None

    exact_limit: ClassVar[int] = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.label, str) or not self.label:
            raise TypeError("name must be a non-empty string")
        if self.pmf_function is None and self.sampler is None:
            raise ValueError("define_mechanism: give pmf= (a pmf in backend operations) or sampler= (black box)")
        for what in ("pmf_function", "sampler"):
            v = getattr(self, what)
            if v is not None and not callable(v):
                raise TypeError(f"{'pmf' if what == 'pmf_function' else what} must be callable, got {type(v).__name__}")
        if self.pmf_function is not None:
            _check_signature(self.pmf_function, "pmf", "pmf(q, p, ops)")
        if self.sampler is not None:
            _check_signature(self.sampler, "sampler", "sampler(q, p, rng, size)")
        if self.relation is not None and not isinstance(self.relation, Neighbourhood):
            raise TypeError(f"neighbourhood must be a Neighbourhood (dpexact.mechanisms.neighbourhoods), got {type(self.relation).__name__}")
        props = self.declared
        if props is None:
            props = MechanismProperties()
        elif isinstance(props, dict):
            try:
                props = MechanismProperties(**props)
            except TypeError as exc:
                raise TypeError(f"properties: {exc}") from exc
        elif not isinstance(props, MechanismProperties):
            raise TypeError(f"properties must be a dict or MechanismProperties, got {type(props).__name__}")
        if self.pmf_function is None and props.certified:
            props = MechanismProperties(**{**props.as_dict(), "certified": False})  # a black box is never certified
        object.__setattr__(self, "declared", props)
        if self.fixed_size is not None and (isinstance(self.fixed_size, bool) or not isinstance(self.fixed_size, int)
                                            or self.fixed_size < 1):
            raise ValueError(f"size must be a positive int or None, got {self.fixed_size!r}")
        extra = dict(self.extra or {})
        for k in extra:
            if not isinstance(k, str) or not k.isidentifier() or k in ("epsilon", "sensitivity"):
                raise ValueError(f"params: {k!r} is not a usable parameter name")
        object.__setattr__(self, "extra", tuple(sorted((k, Real.of(v, k)) for k, v in extra.items())))

    # -- protocol ---------------------------------------------------------------------------------
    @property
    def short_name(self) -> str:  # type: ignore[override]
        return self.label

    @property
    def size(self) -> int | None:
        return self.fixed_size

    @property
    def properties(self) -> MechanismProperties:
        return self.declared

    def neighbourhood(self) -> Neighbourhood:
        return self.relation if self.relation is not None else super().neighbourhood()

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"epsilon": str(self.epsilon), "sensitivity": str(self.sensitivity)}
        if self.monotone:
            out["monotone"] = True
        out.update({k: str(v) for k, v in self.extra})
        return out

    # -- hooks ------------------------------------------------------------------------------------
    def _check_n(self, n: int) -> None:
        if self.fixed_size is not None and n != self.fixed_size:
            raise ValueError(f"scores: {self.label} is defined for {self.fixed_size} scores, got {n}")

    def _namespace(self, convert: Callable[[Real], Any]) -> SimpleNamespace:
        return SimpleNamespace(epsilon=convert(self.epsilon), sensitivity=convert(self.sensitivity),
                               monotone=self.monotone, **{k: convert(v) for k, v in self.extra})

    def _ball_parameters(self, prec: int) -> dict[str, Any]:
        """The parameters as balls that remember their exact values at ``prec`` bits, formed once per
        precision: a branch-and-bound evaluates the law on tens of thousands of boxes, and forming
        them was a tenth of each evaluation. Each call gets a fresh namespace of these immutable
        numbers, so a pmf function that rebinds ``p.epsilon`` changes nothing for the next call."""
        cache = _BALL_PARAMETERS.get(self)
        if cache is None:  # kept beside the mechanism, not in it: it stays picklable (arb balls are not)
            cache = _BALL_PARAMETERS[self] = {}
        got = cache.get(prec)
        if got is None:
            got = cache[prec] = vars(self._namespace(lambda v: exact_input(BallBackend(prec), v)))
        return got

    def pmf(self, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Pmf:
        if self.pmf_function is None:
            be = get_backend(backend)
            if not be.is_float:
                raise ValueError(f"backend {be}: {self.label} is a sampler-only mechanism (statistical screening only); "
                                 "its pmf is an empirical estimate on the float backend")
        return super().pmf(scores, backend, method)

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        self._check_n(q.size)
        if self.pmf_function is None:
            return self._empirical(q)
        exact = [Real.of(float(v)) for v in q]  # a float score means its exact binary value
        for prec in (128, 512):
            be = BallBackend(prec)
            with be.context():
                ball = self.pmf_backend(exact, be, method)
            rad = ball.radii()
            if rad is not None and float(rad.max()) <= 2.0**-70:
                break
        mids = np.array([float(v.mid()) for v in ball.values])
        with np.errstate(divide="ignore"):
            logv = np.array([float(v.log().mid()) if v > 0 else (-np.inf if v.is_zero() else math.log(m) if m > 0 else -np.inf)
                             for v, m in zip(ball.values, mids)])
        rads = ball.radii()
        abs_err = float(rads.max()) + 2.0**-53 * float(np.abs(mids).max()) + 2.0**-1074
        rel = max((float(r) / abs(m) for r, m in zip(rads, mids) if m != 0), default=0.0) + 2.0**-53
        return Pmf(mids, "float", f"{ball.method} (ball:{prec}, rounded)", rel_error=rel, abs_error=abs_err,
                   error_kind="rigorous", logvalues=logv)

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        self._check_n(len(q))
        if method not in (None, "function"):
            raise ValueError(f"method must be 'function' (or None), got {method!r}")
        ops = BackendOperations(backend)
        given = lambda v: exact_input(backend, v)  # noqa: E731 - balls that remember their exact value
        xs = [given(v) for v in q]
        try:
            vals = self.pmf_function(xs, self._namespace(given), ops)
        except Undecidable:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's function failed: say so, never a verdict
            raise MechanismCrash(f"{self.label}: pmf raised {type(exc).__name__} on the {backend.name} backend: "
                                 f"{exc}") from exc
        try:
            vals = list(vals)
        except TypeError as exc:
            raise TypeError(f"pmf of {self.label} must return a sequence of probabilities") from exc
        if len(vals) != len(q):
            raise ValueError(f"pmf of {self.label} returned {len(vals)} probabilities for {len(q)} scores")
        if backend.is_exact:
            import sympy

            vals = [exact_sympy(v) if not type(v).__name__ == "fmpq" else v for v in vals]
            if any(isinstance(v, float) or (isinstance(v, sympy.Basic) and v.has(sympy.Float)) for v in vals):
                raise ValueError(f"pmf of {self.label}: a floating-point number reached the exact backend; use ops.num(...)")
            kind, vals = ExactBackend.field(vals)
            return Pmf(tuple(vals), "exact", "function", 0.0, 0.0, "exact", details={"field": kind})
        if backend.is_ball:
            from flint import arb

            bad = [type(v).__name__ for v in vals if not isinstance(v, (arb, int))]
            if bad:
                raise ValueError(f"pmf of {self.label}: returned {bad[0]} on the ball backend; compute with ops")
            vals = [arb(int(v)) if isinstance(v, int) else arb(v) for v in vals]  # plain balls (no ExactBall)
            rads = [float(v.rad()) for v in vals]
            rel = max((r / abs(float(v.mid())) for r, v in zip(rads, vals) if float(v.mid()) != 0), default=0.0)
            return Pmf(tuple(vals), str(backend), "function", rel, max(rads), "rigorous")
        import mpmath

        vals = [mpmath.mpf(v) for v in vals]
        est = 10.0 ** (-backend.dps + 3) * (len(q) + 1)  # type: ignore[attr-defined]
        return Pmf(tuple(vals), str(backend), "function", est, est, "estimate")

    def pmf_on_balls(self, scores: Any, prec: int) -> list:
        """The pmf function run on arb balls of scores (:class:`dpexact.protocols.IntervalLaw`):
        every backend operation is interval arithmetic, so each result encloses the pmf of every
        vector in the box; a comparison the ball cannot decide raises ``ArithmeticError``. Scores
        given as :class:`~dpexact.numbers.interval_gradient.Dual` give the gradient's enclosure too."""
        from flint import arb

        if self.pmf_function is None:
            raise ValueError(f"{self.label} is a sampler-only mechanism: no law to evaluate on boxes")
        self._check_n(len(scores))
        be = BallBackend(prec)
        with be.context():
            vals = list(self.pmf_function(list(scores), SimpleNamespace(**self._ball_parameters(prec)),
                                          BackendOperations(be)))
        from ..numbers.interval_gradient import Dual

        if len(vals) != len(scores) or not all(isinstance(v, (arb, int, Dual)) for v in vals):
            raise ValueError(f"pmf of {self.label} must return {len(scores)} ball probabilities on the ball backend")
        return [arb(v) if isinstance(v, int) else v for v in vals]

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        self._check_n(q.size)
        if self.sampler is not None:
            out = np.asarray(self.sampler(q, self._namespace(lambda r: r.to_float()), rng, size))
            if out.shape != (size,) or out.dtype.kind not in "iu":
                raise ValueError(f"sampler of {self.label} must return {size} integer outputs, got shape {out.shape} dtype {out.dtype}")
            if size and (out.min() < 0 or out.max() >= q.size):
                raise ValueError(f"sampler of {self.label} returned an output outside 0..{q.size - 1}")
            return out.astype(np.int64)
        p = np.maximum(self.pmf_float(q, None).values, 0.0)  # no sampler: draw from the pmf itself
        return rng.choice(q.size, size=size, p=p / p.sum())

    def _empirical(self, q: np.ndarray) -> Pmf:
        rng = np.random.default_rng(0)
        draws = self.sample(q, rng, SAMPLER_PMF_DRAWS)
        freq = np.bincount(draws, minlength=q.size) / SAMPLER_PMF_DRAWS
        # Hoeffding with a union bound over the n outputs: |freq_r - p_r| <= t for all r w.p. >= 1 - δ
        t = math.sqrt(math.log(2 * q.size / SAMPLER_PMF_DELTA) / (2 * SAMPLER_PMF_DRAWS))
        return Pmf(freq, "float", "empirical", rel_error=None, abs_error=t, error_kind="estimate",
                   details={"draws": SAMPLER_PMF_DRAWS, "seed": 0, "confidence": 1 - SAMPLER_PMF_DELTA})


def _check_signature(fn: Callable[..., Any], what: str, expected: str) -> None:
    """Refuse at definition a function that cannot be called as ``expected`` (not at its first
    call, deep inside a verifier), naming the signature it needs."""
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C function without a signature: found out at its call
        return
    count = expected.count(",") + 1
    try:
        sig.bind(*range(count))
    except TypeError:
        example = (" e.g. sampler=lambda q, p, rng, size: rng.integers(0, len(q), size)" if what == "sampler"
                   else " e.g. pmf=lambda q, p, ops: [ops.exp(p.epsilon * x / 2) for x in q] (normalised)")
        raise TypeError(f"define_mechanism: {what} must be callable as {expected} ({count} arguments), "
                        f"got {getattr(fn, '__name__', what)}{sig};{example}") from None


def define_mechanism(
    name: str,
    pmf: Callable[..., Any] | None = None,
    *,
    epsilon: Any,
    sampler: Callable[..., Any] | None = None,
    sensitivity: Any = 1,
    monotone: bool = False,
    neighbourhood: Neighbourhood | None = None,
    properties: "MechanismProperties | dict | None" = None,
    size: int | None = None,
    params: dict[str, Any] | None = None,
) -> FunctionMechanism:
    """A mechanism from a pmf function in backend operations and/or a sampler (module docstring).

    Args:
        name: the short name used in reports.
        pmf: ``pmf(q, p, ops) -> probabilities``: ``q`` the scores as backend numbers, ``p``
            the parameters (``p.epsilon``, ``p.sensitivity``, and ``params``) as backend
            numbers, ``ops`` a :class:`BackendOperations`. ``None`` for a sampler-only black box.
        epsilon: ε, as for the built-in mechanisms (exact).
        sensitivity: Δ (exact).
        monotone: monotone quality (the ε/Δ exponent, pf Remark 1).
        sampler: ``sampler(q, p, rng, size) -> int array`` (float scores and parameters); if
            omitted, ``rvs`` draws from the pmf.
        neighbourhood: the relation of the privacy claim (default: ℓ∞ box with Δ, monotone box
            when ``monotone``).
        properties: declared :class:`MechanismProperties` (or a dict of them); conformance checks them.
        size: the number of candidates it is tied to (``None``: any).
        params: further exact parameters, passed in ``p``.

    Returns:
        A :class:`FunctionMechanism`.

    Raises:
        TypeError: a ``pmf`` or ``sampler`` that cannot be called with its signature, bad properties.
        ValueError: neither ``pmf`` nor ``sampler``, bad ε or Δ.
    """
    from .validation import warn_inexact_floats

    warn_inexact_floats({"epsilon": epsilon, "sensitivity": sensitivity})
    return FunctionMechanism(epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, label=name, pmf_function=pmf,
                             sampler=sampler, relation=neighbourhood, declared=properties, fixed_size=size, extra=params)
