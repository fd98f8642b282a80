"""The mechanism contract: output kinds, declared properties, neighbourhoods, :class:`Mechanism` /
:class:`ContinuousMechanism`, and the one check that an object satisfies them (package docstring:
:mod:`dpexact.protocols`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Hashable, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from ..numbers.pmf import Pmf
from .backend import Backend

__all__ = ["OutputKind", "FINITE_KINDS", "REAL_KINDS", "KIND_METHODS", "SELECTION_KINDS", "PART_KINDS", "INTERVAL_KINDS",
           "DENSITY_KINDS", "COMPOSED_KINDS", "MechanismProperties", "Neighbourhood", "RecordedRelation",
           "FiniteDomain", "Mechanism", "ContinuousMechanism", "AnyMechanism", "SameLaw", "Named", "DeclaresKind",
           "IntervalProbability", "Pdf", "LogPdf", "Components", "is_mechanism", "check_mechanism", "mechanism_size",
           "mechanism_properties"]

#: what a mechanism outputs (module docstring): a candidate index 0..n-1, an element of a finite set
#: enumerated by ``outputs(n)``, a finite part with real values, one real (interval law), a real
#: vector (density), or a tuple of independent components
OutputKind = Literal["selection", "finite", "mixed", "interval", "continuous", "composed"]
#: the kinds with a pmf over ``outputs(n)`` (for ``mixed``: the law of the finite part)
FINITE_KINDS = ("selection", "finite", "mixed")
#: the kinds whose output is real values only (decided on boxes of the values)
REAL_KINDS = ("interval", "continuous")
#: what each kind outside :class:`Mechanism` must offer besides :class:`ContinuousMechanism`
KIND_METHODS = {"interval": ("interval_probability",), "continuous": ("pdf", "logpdf"), "composed": ("components",)}
#: the kinds whose outputs are the candidates 0..n-1 (the score-family searches apply)
SELECTION_KINDS = ("selection",)
#: the kinds whose output is a finite part with real values (a pattern × a box of the values)
PART_KINDS = ("mixed",)
#: the real kinds given by a one-interval law, by a density, and the kinds made of components (KIND_METHODS)
INTERVAL_KINDS = tuple(k for k, ms in KIND_METHODS.items() if "interval_probability" in ms)
DENSITY_KINDS = tuple(k for k, ms in KIND_METHODS.items() if "pdf" in ms)
COMPOSED_KINDS = tuple(k for k, ms in KIND_METHODS.items() if "components" in ms)


@dataclass(frozen=True)
class MechanismProperties:
    """Properties a mechanism *declares*; code may rely on them only because conformance checks them.

    Attributes:
        symmetric: pf eq. 1 — ``Pr[M(Πq) = π(r)] = Pr[M(q) = r]`` for every permutation π.
            Enables one pmf per lattice class (the optimality ratio, class-based sums);
            without it those sums run over every vector.
        shift_invariant: pf eq. 2 — ``Pr[M(q + c·1) = r] = Pr[M(q) = r]`` for every real c.
        monotone: pf eq. 3 — raising ``q_r`` and lowering the others never lowers
            ``Pr[M(q) = r]``. (Not the ``monotone=`` *parameter* of the built-in mechanisms,
            which declares a monotone *quality function*, pf Remark 1.)
        certified: the pmf is the mechanism's exact law, computed with a stated error
            bound (exact / rigorous ball / a-priori float). ``False`` for a sampler-only black
            box: anything built from it is a statistical screen and never "certified".
        integer_scores: the mechanism is defined on integer scores only (a non-integer
            score raises ``ValueError``); conformance and the verifiers then use integer
            score families.

    The three regularity properties are pf Definition 3; they are checked with certified
    counterexamples by :func:`dpexact.verify.decide.regularity.check_regularity` and by
    :func:`dpexact.conformance.checks.conform`.
    """

    symmetric: bool = False
    shift_invariant: bool = False
    monotone: bool = False
    certified: bool = True
    integer_scores: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, (bool, np.bool_)):
                raise TypeError(f"MechanismProperties.{f.name} must be a bool, got {type(v).__name__}")
            object.__setattr__(self, f.name, bool(v))

    @property
    def regular(self) -> bool:
        """pf Definition 3: symmetric, shift-invariant and monotone."""
        return self.symmetric and self.shift_invariant and self.monotone

    def as_dict(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@runtime_checkable
class Neighbourhood(Protocol):
    """A neighbouring relation ``q ~ q'`` on score vectors (pf §2.1–2.2).

    Implementations: :mod:`dpexact.mechanisms.neighbourhoods` (ℓ∞ box, candidate-wise box,
    monotone box, histogram add/remove and replace, any-pair).

    Contract:
        ``name``: a short identifier (``"linf-box"``).
        ``contains(q, q2)``: whether ``q2`` is a neighbour of ``q``, decided *exactly*
            (rationals; floats at their binary value). Symmetric in its arguments.
        ``candidates(q, steps=1)``: a finite list of neighbours of ``q`` (exact Fraction
            tuples, ``q`` itself excluded) that the searches try; ``steps`` refines a
            continuous relation's lattice. Raises ``ValueError`` if the list would exceed a
            stated limit.
        ``bounds(q)``: the box ``(lower, upper)`` of neighbours for continuous local
            optimisation, or ``None`` when the relation is not a box.
        ``describe()``: one line for reports.
    """

    name: str

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool: ...

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list: ...

    def bounds(self, q: Sequence[Any]) -> Any: ...

    def describe(self) -> str: ...


@runtime_checkable
class RecordedRelation(Protocol):
    """A neighbouring relation that writes its own record (a replay record's ``neighbourhood``):
    ``to_record() -> {"relation": NAME, ...}``, read back by the class's ``from_record`` (the table
    :data:`dpexact.mechanisms.neighbourhoods.RECORD_FORMS`). A relation without it cannot be replayed."""

    def to_record(self) -> dict[str, Any]: ...




@runtime_checkable
class FiniteDomain(Protocol):
    """A neighbourhood over a finite input domain (LDP inputs, counts 0..n): ``inputs`` lists every input,
    so a verifier can check every pair of it."""

    inputs: Sequence[Any]

@runtime_checkable
class Mechanism(Protocol):
    """A randomized algorithm ``M`` on score vectors, described by its parameters.

    Contract:
        ``short_name``: registry name (``"pf"``) or the class name for your own mechanism.
        ``epsilon``: the claimed ε (an exact Real); verifiers check ε-DP against it.
        ``sensitivity``: Δ, the score scale on which verifiers build their families.
        ``size``: the number of candidates/queries the mechanism is tied to (e.g. by
            candidate-wise sensitivities), or ``None`` if it accepts any ``n``.
        ``neighbourhood()``: the relation its privacy claim refers to (a :class:`Neighbourhood`).
        ``properties``: the :class:`MechanismProperties` it declares.
        ``output_kind`` and ``outputs(n)``: the output space (module docstring); a selection
            mechanism returns ``range(n)``.
        ``pmf(scores, backend="float", method=None)``: a :class:`~dpexact.numbers.Pmf` over
            ``outputs(len(scores))`` on backend ``float | mp[:digits] | ball[:bits] | exact``:
            exact values on ``exact``, rigorous balls on ``ball``, float64 with a stated
            ``rel_error``/``abs_error`` on ``float``. A backend the mechanism cannot serve
            raises ``ValueError`` naming it; bad scores raise ``ValueError``/``TypeError``
            naming ``scores``.
        ``logpmf(scores)``: float64 natural logs (``-inf`` only for true zeros), accurate
            where the pmf underflows.
        ``rvs(scores, size=None, random_state=None)``: draws from the mechanism's *own*
            sampling algorithm (labels of ``outputs``, or positions as in ``pmf``; module
            docstring); one draw when ``size`` is None.
        ``params()``: JSON-friendly parameters (exact numbers as strings).
    """

    short_name: str

    @property
    def epsilon(self) -> Any: ...

    @property
    def sensitivity(self) -> Any: ...

    @property
    def size(self) -> int | None: ...

    @property
    def properties(self) -> MechanismProperties: ...

    @property
    def output_kind(self) -> str: ...

    def outputs(self, n: int) -> Sequence[Hashable]: ...

    def neighbourhood(self) -> Neighbourhood: ...

    def pmf(self, scores: Any, backend: "str | Backend" = "float", method: str | None = None) -> Pmf: ...

    def logpmf(self, scores: Any) -> np.ndarray: ...

    def rvs(self, scores: Any, size: Any = None, random_state: Any = None) -> Any: ...

    def params(self) -> dict[str, Any]: ...


@runtime_checkable
class ContinuousMechanism(Protocol):
    """A mechanism without a pmf over a finite output set (``output_kind`` ``interval``,
    ``continuous`` or ``composed``).

    Same contract as :class:`Mechanism` for ``short_name``, ``epsilon``, ``sensitivity``,
    ``size``, ``properties``, ``neighbourhood()``, ``rvs`` and ``params()``; the law is given by
    the methods of its kind (module docstring table; :data:`KIND_METHODS`), which
    :func:`check_mechanism` requires. Verifiers that need a finite output space refuse such
    mechanisms with a ``TypeError`` rather than discretising silently.
    """

    short_name: str

    @property
    def epsilon(self) -> Any: ...

    @property
    def size(self) -> int | None: ...

    @property
    def properties(self) -> MechanismProperties: ...

    @property
    def output_kind(self) -> str: ...

    @property
    def sensitivity(self) -> Any: ...

    def neighbourhood(self) -> Neighbourhood: ...

    def rvs(self, scores: Any, size: Any = None, random_state: Any = None) -> Any: ...

    def params(self) -> dict[str, Any]: ...


@runtime_checkable
class SameLaw(Protocol):
    """A mechanism that runs ``law_mechanism``'s law unchanged and only states another claim (a
    misclaimed ε, a relabelling). A proof about the *law's* level (a theorem on the registered
    class) then applies to it: the verdict still compares that level with this object's ε."""

    @property
    def law_mechanism(self) -> Any: ...


#: a mechanism of any output kind: finite (:class:`Mechanism`) or real-valued / composed
#: (:class:`ContinuousMechanism`)
AnyMechanism = Mechanism | ContinuousMechanism

class _CapabilityMeta(type(Protocol)):  # type: ignore[misc]
    """isinstance for a capability: every *method* the protocol declares is callable on the object (an
    attribute of the same name set to None, e.g. ``box_coordinates = None`` for the identity, is not it)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        if not super().__instancecheck__(obj):
            return False
        methods = [k for k, v in vars(cls).items() if callable(v) and not k.startswith("_")]
        return all(callable(getattr(obj, k, None)) for k in methods)  # the protocol's own members, by declaration


@runtime_checkable
class Named(Protocol):
    """Anything with a ``short_name``: reports name an object by it, even one that fails the protocol."""

    short_name: str


@runtime_checkable
class DeclaresKind(Protocol):
    """An object that declares its ``output_kind`` (every mechanism does: :class:`Mechanism`)."""

    output_kind: str


@runtime_checkable
class IntervalProbability(Protocol, metaclass=_CapabilityMeta):
    """The law of an ``interval`` mechanism: ``interval_probability(q, lo, hi, backend) = Pr[M(q) ∈ [lo, hi]]``."""

    def interval_probability(self, queries: Any, lo: Any, hi: Any, backend: str = "ball") -> Any: ...


@runtime_checkable
class Pdf(Protocol, metaclass=_CapabilityMeta):
    """A ``continuous`` mechanism's density ``pdf(q, y)``."""

    def pdf(self, queries: Any, y: Any, backend: str = "float") -> Any: ...


@runtime_checkable
class LogPdf(Protocol, metaclass=_CapabilityMeta):
    """A ``continuous`` mechanism's log-density ``logpdf(q, y)`` (float64)."""

    def logpdf(self, queries: Any, y: Any) -> float: ...


@runtime_checkable
class Components(Protocol, metaclass=_CapabilityMeta):
    """A ``composed`` mechanism's ``components()``: the component mechanisms run on the same scores, each
    with its own independent randomness (the joint law is the product of theirs)."""

    def components(self) -> tuple: ...


#: the law each kind outside :class:`Mechanism` offers, one capability per method of :data:`KIND_METHODS`
_KIND_LAWS = {"interval": (IntervalProbability,), "continuous": (Pdf, LogPdf), "composed": (Components,)}
assert {k: tuple(m for p in v for m in vars(p) if not m.startswith("_") and callable(vars(p)[m]))
        for k, v in _KIND_LAWS.items()} == KIND_METHODS


def _members(proto: type) -> list[str]:
    """The members a protocol declares (its annotations, then its methods and properties), in order."""
    names = list(vars(proto).get("__annotations__", {}))
    return names + [k for k, v in vars(proto).items()
                    if not k.startswith("_") and k not in names and (callable(v) or isinstance(v, property))]


# -- asking the protocol ------------------------------------------------------------------------


def is_mechanism(obj: Any) -> bool:
    """Whether ``obj`` is a mechanism *instance* satisfying the protocol of its output kind.

    Args:
        obj: any object.

    Returns:
        True for an instance satisfying :class:`Mechanism` or :class:`ContinuousMechanism`.
    """
    try:
        check_mechanism(obj, continuous=True)
    except TypeError:
        return False
    return True


def check_mechanism(obj: Any, name: str = "mechanism", continuous: bool = False) -> AnyMechanism:
    """Return ``obj`` if it satisfies :class:`Mechanism` (or, with ``continuous=True``,
    :class:`ContinuousMechanism`), else raise a one-line ``TypeError`` naming what is missing.

    The one check: it also validates the declared ``size`` (a positive int or None) and ``properties``
    (a :class:`MechanismProperties`), so code below the entry point that checked a mechanism reads
    ``mechanism.size`` / ``mechanism.properties`` as given and never checks again.

    Args:
        obj: the object to check.
        name: the argument's name in error messages.
        continuous: check :class:`ContinuousMechanism` instead of :class:`Mechanism`.

    Returns:
        ``obj`` itself.

    Raises:
        TypeError: what is missing, on one line.
    """
    if isinstance(obj, type):
        raise TypeError(f"{name}: {obj.__name__} is a class, not a mechanism instance (call it with its parameters)")
    kind = obj.output_kind if isinstance(obj, DeclaresKind) else None
    if kind in FINITE_KINDS and isinstance(obj, Mechanism):
        return _declarations(obj, name)
    if kind in _KIND_LAWS and isinstance(obj, ContinuousMechanism):
        lacking = [m for m, law in zip(KIND_METHODS[kind], _KIND_LAWS[kind]) if not isinstance(obj, law)]
        if lacking:
            raise TypeError(f"{name}: {type(obj).__name__} declares output_kind {kind!r} but lacks {', '.join(lacking)}; "
                            "see dpexact.protocols")
        if continuous:
            return _declarations(obj, name)
        raise TypeError(f"{name}: {type(obj).__name__} has a continuous output (output_kind {kind!r}); "
                        "this needs a finite output space")
    if kind is not None and kind not in FINITE_KINDS and kind not in KIND_METHODS:
        raise TypeError(f"{name}: {type(obj).__name__} has an unknown output_kind {kind!r} "
                        f"(one of {', '.join(FINITE_KINDS + tuple(KIND_METHODS))})")
    proto = Mechanism if kind in FINITE_KINDS or kind is None else ContinuousMechanism
    # what is absent, named from the protocol's own declaration (a diagnostic, not a capability probe)
    missing = [a for a in _members(proto) if not hasattr(obj, a)]
    raise TypeError(f"{name}: {type(obj).__name__} does not satisfy the dpexact Mechanism protocol "
                    f"(missing: {', '.join(missing) or 'logpmf'}); see dpexact.protocols")


def _declarations(obj: AnyMechanism, name: str) -> AnyMechanism:
    """``obj`` once its declared ``size`` and ``properties`` have the declared types (one-line ``TypeError``)."""
    v = obj.size
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1):
        raise TypeError(f"{name}: size must be a positive int or None, got {v!r}")
    p = obj.properties
    if not isinstance(p, MechanismProperties):
        raise TypeError(f"{name}: properties must be a MechanismProperties, got {type(p).__name__}")
    return obj


def mechanism_size(mechanism: AnyMechanism) -> int | None:
    """The number of candidates a *checked* mechanism (:func:`check_mechanism`) is tied to (``None``:
    any n), as a Python int; reads the declaration, checks nothing again.

    Args:
        mechanism: a checked mechanism.

    Returns:
        Its declared size, or None.
    """
    v = mechanism.size
    return None if v is None else int(v)


def mechanism_properties(mechanism: AnyMechanism) -> MechanismProperties:
    """The properties a *checked* mechanism (:func:`check_mechanism`) declares; reads the declaration,
    checks nothing again.

    Args:
        mechanism: a checked mechanism.

    Returns:
        Its declared :class:`MechanismProperties`.
    """
    return mechanism.properties
