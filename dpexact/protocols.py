"""The contracts of dpexact in one place: mechanism, neighbourhood, backend.

Every verifier, utility metric and the LP talks to a mechanism only through
:class:`Mechanism`; they never probe attribute names. Anything that satisfies these
protocols — a subclass of :class:`dpexact.mechanisms.SelectionMechanism`, an object built by
:func:`dpexact.define_mechanism`, or a class in a file of your own loaded with
``-m PATH.py:OBJECT`` — is accepted by every command.

This module sits just above :mod:`dpexact.numbers` and imports nothing else from dpexact, so
any layer may depend on it.

Layout of a result. ``mechanism.pmf(q)`` returns a :class:`~dpexact.numbers.Pmf` whose
``values[i]`` is ``Pr[M(q) = mechanism.outputs(len(q))[i]]``. For a *selection* mechanism
(``output_kind == "selection"``) the outputs are the candidate indices ``0..n-1``; for a
mechanism with another *finite* output set (``output_kind == "finite"``: a sparse-vector
⊤/⊥ pattern, a discretised noisy value, a histogram) ``outputs(n)`` enumerates that set in a
fixed order (labels, not necessarily ints: ``"TF"``, ``"0110"``); ``rvs`` returns those labels
(a bit array stands for its bit string), or positions into ``outputs(n)`` when no label is an int.

Output kinds whose law is not a pmf over a finite set satisfy :class:`ContinuousMechanism`
(no ``pmf``/``outputs``) and give their law by the methods of their kind:

==============  ===========================================================================

kind            the law is given by
==============  ==================================================================================
``mixed``       a finite part and real values (sparse vector releasing the noisy value of each ⊤,
                noisy max releasing its index and value): ``pmf(q)`` over ``outputs(n)`` is the
                law of the finite part (it satisfies :class:`Mechanism`);
                ``box_probability(q, output, box, backend)`` gives certified ``(lower, upper)``
                bounds of ``Pr[output, values ∈ box]`` (``box`` one ``(lo, hi)`` per released
                value: :func:`value_count`); ``rvs`` draws the finite part,
                ``rvs_values(q, size)`` draws ``(output, values)`` pairs
``interval``    one real number: ``interval_probability(q, lo, hi, backend)`` =
                ``Pr[M(q) ∈ [lo, hi]]`` (``backend`` ``"ball"`` or ``"exact"``); ``rvs`` gives floats
``continuous``  a real vector: ``pdf(q, y)`` / ``logpdf(q, y)`` (a density), and where the law has
                a closed form ``box_probability(q, box, backend)`` = ``Pr[T(M(q)) ∈ Π [lo_i, hi_i]]``
                with ``T = box_coordinates`` if the mechanism defines it as a callable (a fixed
                invertible map into coordinates where the law is a product: the noisy values
                behind prefix sums), else (absent or ``None``) the identity — ``{y : T(y) ∈ B}`` is an output set either way; ``rvs``
                gives float arrays
``composed``    independent components run on the same scores: ``components()`` returns the
                component mechanisms (each of its own kind); the law is their product and ``rvs``
                returns a tuple of component draws
==============  ==================================================================================

Conventions shared by all: scores ``q`` are 1-D, finite, non-empty; ``epsilon`` is the
*claimed* privacy parameter (an exact :class:`~dpexact.numbers.Real`); ``sensitivity`` Δ is
the scale on which verifiers build their score families; neighbours are given by
``neighbourhood()``, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, ContextManager, Hashable, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from .numbers.pmf import Pmf

__all__ = [
    "OutputKind",
    "FINITE_KINDS",
    "REAL_KINDS",
    "KIND_METHODS",
    "MechanismProperties",
    "Neighbourhood",
    "FiniteDomain",
    "Mechanism",
    "ContinuousMechanism",
    "AnyMechanism",
    "SameLaw",
    "IntervalLaw",
    "Backend",
    "BackendOps",
    "BatchFloatPmf",
    "PatternLaw",
    "CouplingLaw",
    "BoxLaw",
    "BoxCoordinates",
    "NoiseScale",
    "NoiseScales",
    "ValueLoss",
    "ExactPatternValue",
    "ExactDifferenceSign",
    "ScreenLogpmf",
    "PrivacyLevel",
    "PrivacyMap",
    "Thresholded",
    "MonotoneQuality",
    "mechanism_size",
    "value_count",
    "claimed_epsilon",
    "mechanism_properties",
    "is_mechanism",
    "check_mechanism",
    "CouplingUnits",
    "ThresholdCouplingLaw",
    "LaplacePieces",
    "LaplaceDensity",
]

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

    def pmf(self, scores: Any, backend: Any = "float", method: str | None = None) -> Pmf: ...

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


@runtime_checkable
class IntervalLaw(Protocol):
    """A selection mechanism whose law can be evaluated on *boxes* of scores.

    ``pmf_on_balls(scores, prec)`` takes one arb ball per score and returns balls that enclose
    ``Pr[M(q) = r]`` for **every** q in the box ``∏ scores`` (interval arithmetic, every operation
    rigorous). A law that branches on the scores must decide each branch with the backend's
    certified comparisons and raise ``ArithmeticError`` when a branch cannot be decided on the box
    (the caller splits the box). Scores may also be :class:`dpexact.numbers.interval_gradient.Dual`
    (a ball and its gradient): the results are then duals too, enclosing the gradient over the box.
    Branch-and-bound proofs over the score space rely on it.
    """

    def pmf_on_balls(self, scores: Sequence[Any], prec: int) -> Sequence[Any]: ...


@runtime_checkable
class Backend(Protocol):
    """A number backend as it exists in :mod:`dpexact.numbers.backends` (float, mp, ball, exact).

    Contract:
        ``name``: ``"float" | "mp" | "ball" | "exact"``; ``str(backend)`` adds the precision
            (``"ball:128"``), and is what a :class:`Pmf` records.
        ``rigorous``: results are exact or enclosures of the truth (ball, exact).
        ``context()``: a context manager that sets the working precision of the underlying
            library for its duration and restores it afterwards.
        ``from_real(x)`` / ``from_int(k)``: an exact :class:`~dpexact.numbers.Real` or int
            as a backend number (ball: a rigorous enclosure).
        ``exp(x)``, ``log(x)``: elementary functions in the backend's arithmetic.
        ``to_float(x)``: a float64 value (ball: the midpoint).
    """

    name: str
    rigorous: bool

    def context(self) -> ContextManager[None]: ...

    def from_real(self, x: Any) -> Any: ...

    def from_int(self, k: int) -> Any: ...

    def exp(self, x: Any) -> Any: ...

    def log(self, x: Any) -> Any: ...

    def to_float(self, x: Any) -> float: ...


@runtime_checkable
class BackendOps(Backend, Protocol):
    """The operations a pmf written once for every backend needs (extends :class:`Backend`).

    Each operation is exact on ``exact`` (or raises ``ValueError`` if the result is not
    representable exactly), a rigorous enclosure on ``ball``, correctly rounded or within a
    stated bound on ``float`` and ``mp``:

        ``log1p(x)``, ``expm1(x)``, ``sqrt(x)``: elementary functions, accurate near 0.
        ``sum(xs)``: an accurate sum of a sequence (float: compensated, e.g. ``math.fsum``).
        ``sign(x)``: ``-1 | 0 | 1``, certified; raises ``ArithmeticError`` when a ball
            contains 0 but the value cannot be proved zero.
        ``integrate(f, a, b)``: ``∫_a^b f`` with a proven error bound on float / mp / ball
            (``f`` written in these operations), exact where the integrand allows.

    Decisions for pmfs that branch (:mod:`dpexact.numbers.comparisons` states the contract):
        ``compare(a, b)``: certified sign of ``a - b``; enclosures that overlap are decided by
            the exact values of the inputs when known (a ball made from an exact score carries
            it), else ``comparisons.Undecidable`` (an ``ArithmeticError`` carrying the two
            enclosures: a branch-and-bound over boxes of scores splits on it).
        ``eq(a, b)``: ``compare(a, b) == 0``. ``indicator(flag)``: the backend's exact 1 or 0.
        ``max(xs)``: an element of ``xs`` that is a maximum; ``argmax(xs)``: every index of a
            maximum, ties included.
    """

    def log1p(self, x: Any) -> Any: ...

    def expm1(self, x: Any) -> Any: ...

    def sqrt(self, x: Any) -> Any: ...

    def sum(self, xs: Sequence[Any]) -> Any: ...

    def sign(self, x: Any) -> int: ...

    def compare(self, a: Any, b: Any) -> int: ...

    def eq(self, a: Any, b: Any) -> bool: ...

    def indicator(self, flag: bool) -> Any: ...

    def max(self, xs: Sequence[Any]) -> Any: ...

    def argmax(self, xs: Sequence[Any]) -> tuple[int, ...]: ...

    def integrate(self, f: Callable[[Any], Any], a: Any, b: Any) -> Any: ...


# -- proof capabilities --------------------------------------------------------------------------


@dataclass(frozen=True)
class CouplingUnits:
    """A threshold-noise law stated per query, for the threshold-shift coupling proofs.

    Given the threshold noise ``ρ ~ Lap(threshold_scale)``, the answers are independent and query
    i of answer kind ``k`` contributes the Laplace factors ``kinds[k]`` (each ``(kind, scale)``,
    ``x_i = T + ρ - q_i``): ``("below", b)`` = ``Pr[η < x_i + const]``, ``("above", b)`` =
    ``Pr[η >= x_i + const]``, ``("window", b)`` = ``Pr[η ∈ x_i + I]`` (a released gap),
    ``("fixed", b)`` = a fresh Laplace density of a released ``q_i + η``, ``("opaque",)`` = a factor
    that moves with ρ other than through ``x_i`` (nothing can be proved).

    Count rule of one output, for every number of queries: ``Σ_k weights[k]·#k <= budget``
    (weight 0: any count; ``budget`` None: no bound — every kind any count). ``redraw_after``:
    the kinds after which the threshold is redrawn from ``Lap(redraw_scale)`` (each segment then has
    a threshold noise, and a shift, of its own; every segment holds at most one such kind, so there
    are at most ``budget`` segments). ``theorem`` cites the result the coupling re-proves.
    Scales are :class:`~dpexact.numbers.Real` (symbolic when the mechanism's parameters are).
    """

    kinds: dict[str, list[tuple]]
    weights: dict[str, int]
    budget: Any
    threshold_scale: Any
    theorem: str
    redraw_scale: Any = None
    redraw_after: tuple[str, ...] = ()


@runtime_checkable
class ThresholdCouplingLaw(Protocol):
    """A mechanism whose law is stated in threshold-shift coupling factors (sparse-vector family).

    ``coupling_units()`` is the per-query statement (:class:`CouplingUnits`, None when the law is
    not of that form, e.g. no query noise); ``coupling_terms(output, n)`` lists, per branch
    sequence reaching ``output``, each query's factors — the same factors, per output.
    """

    def coupling_units(self) -> CouplingUnits | None: ...

    def coupling_terms(self, pattern: str, n: int) -> Any: ...


@dataclass(frozen=True)
class LaplacePieces:
    """A real-valued law that is a product of Laplace laws in its box coordinates.

    With ``x = box_coordinates(y)`` (the identity when the mechanism has none; a map with Jacobian 1),
    the coordinates of ``x`` are independent and ``x_j ~ Σ_i centres[j][i]·q_i + Lap(scales[j])``:

        log p(y | q) = Σ_j -|x_j - c_j(q)| / b_j + const,      c_j(q) = Σ_i centres[j][i] q_i,

    with a constant that does not depend on q. ``centres`` are exact rationals, ``scales`` exact reals
    (symbolic when the mechanism's parameters are). ``column_bound`` (optional): a bound, valid for
    **every** number of queries, on each query's column ``Σ_j |centres[j][i]| / scales[j]`` (how much
    one query moves the law); it lets a one-query-moves proof cover every n.
    """

    centres: tuple[tuple[Any, ...], ...]
    scales: tuple[Any, ...]
    column_bound: Any = None


@runtime_checkable
class LaplaceDensity(Protocol):
    """A continuous mechanism stating its density as Laplace pieces (for density-ratio proofs).

    ``density_pieces(n)`` describes the law on n queries (:class:`LaplacePieces`; None when the law has
    no density, e.g. a noiseless coordinate); ``logpdf(q, y)`` is the same density in floats and
    ``box_probability(q, box, backend)`` the same law on boxes of the box coordinates.
    """

    def density_pieces(self, n: int) -> LaplacePieces | None: ...

    def logpdf(self, queries: Any, y: Any) -> float: ...

    def box_probability(self, queries: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any: ...

@runtime_checkable
class BatchFloatPmf(Protocol):
    """Optional capability of a selection mechanism: float pmfs of many score vectors of one length.

    ``pmf_float_batch(Q) -> (values, rel_error)``: ``Q`` a finite float64 array of shape ``(B, n)``
    (one score vector per row); ``values`` of shape ``(B, n)`` are the rows' pmfs; ``rel_error`` of
    shape ``(B,)`` bounds the relative error of every entry of its row exactly as ``pmf(Q[b])``'s
    ``rel_error`` would (same method, same kind of bound), or is NaN where the batch route has no
    useful bound: the caller then asks ``pmf(Q[b])``. Used by sums over many small vectors (the
    optimality ratio, :func:`dpexact.lp.optimal_mechanism.total_expected_error`).
    """

    def pmf_float_batch(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


#: a mechanism of any output kind: finite (:class:`Mechanism`) or real-valued / composed
#: (:class:`ContinuousMechanism`)
AnyMechanism = Mechanism | ContinuousMechanism

# -- optional capabilities (each read by a verifier, a conformance check or a metric) ----------
# Tested with isinstance; each name has one meaning and one signature across dpexact. A capability is
# offered when each of its methods is *callable* on the object: an attribute of the same name set to None
# (``box_coordinates = None``: the identity) is not the capability.


class _CapabilityMeta(type(Protocol)):  # type: ignore[misc]
    def __instancecheck__(cls, obj: Any) -> bool:
        if not super().__instancecheck__(obj):
            return False
        methods = [k for k, v in vars(cls).items() if callable(v) and not k.startswith("_")]
        return all(callable(getattr(obj, k, None)) for k in methods)




@runtime_checkable
class PatternLaw(Protocol, metaclass=_CapabilityMeta):
    """A ``finite`` mechanism whose law is given output by output (sparse-vector patterns, …).

    ``pattern_probability(q, output, backend)``: ``Pr[M(q) = output]`` on ``backend`` (``"ball:p"``:
    an arb ball; ``"exact"``: an exact value). The pattern search (:mod:`dpexact.verify.search.patterns`)
    decides every output of every pair from it.
    """

    def pattern_probability(self, q: Sequence[Any], output: Any, backend: Any = "ball") -> Any: ...


@runtime_checkable
class CouplingLaw(Protocol, metaclass=_CapabilityMeta):
    """A sparse-vector law that states its factors: ``coupling_terms(...)`` gives, per query, the
    Laplace factors of ``Pr[pattern]`` that the threshold-shift coupling
    (:mod:`dpexact.verify.proofs.threshold_coupling`) checks for every pair of neighbours."""

    def coupling_terms(self, *args: Any, **kwargs: Any) -> Any: ...


@runtime_checkable
class BoxLaw(Protocol, metaclass=_CapabilityMeta):
    """A mechanism releasing real values whose law is given on boxes: ``box_probability(q, box,
    backend)`` for ``continuous`` outputs, ``box_probability(q, part, box, backend)`` for ``mixed``
    ones (the finite part first); the output kind says which (:mod:`dpexact.verify.kinds`)."""

    def box_probability(self, *args: Any, **kwargs: Any) -> Any: ...


@runtime_checkable
class BoxCoordinates(Protocol, metaclass=_CapabilityMeta):
    """Boxes are stated in ``box_coordinates(y)`` of the released values ``y`` (e.g. the increments
    of a running sum) instead of ``y`` itself; absent or None: the identity."""

    def box_coordinates(self, y: Sequence[Any]) -> Sequence[Any]: ...


@runtime_checkable
class NoiseScale(Protocol, metaclass=_CapabilityMeta):
    """The scale ``b`` of a mechanism's additive noise, one for every candidate or coordinate
    (``noise_scale() -> Real``): report noisy max's common scale, the Laplace scale of released values.
    It sets the window of real outputs; :func:`noise_unit` gives 2Δ/ε for a mechanism without it."""

    def noise_scale(self) -> Any: ...


@runtime_checkable
class NoiseScales(Protocol, metaclass=_CapabilityMeta):
    """The Laplace scales of a threshold law (sparse vector), ``noise_scales() -> (b_threshold, b_query,
    b_third)`` (the third: the redrawn threshold's or the released answers'; None for a noise it does not
    draw); the largest sets the levels of the pattern search's query pairs."""

    def noise_scales(self) -> tuple: ...


@runtime_checkable
class ValueLoss(Protocol, metaclass=_CapabilityMeta):
    """A pattern law that also releases values: ``value_loss(q, q', output) -> Real`` is the supremum
    of the values' privacy loss for that output, charged against ε before the pattern ratio."""

    def value_loss(self, q: Sequence[Any], q2: Sequence[Any], output: Any) -> Any: ...


@runtime_checkable
class ExactPatternValue(Protocol, metaclass=_CapabilityMeta):
    """``exact_pattern_value(q, output) -> ExpSum``: the pattern's probability in Q[exp(Q)], which
    decides a tie a ball straddles (rational ε)."""

    def exact_pattern_value(self, q: Sequence[Any], output: Any) -> Any: ...


@runtime_checkable
class ExactDifferenceSign(Protocol, metaclass=_CapabilityMeta):
    """``exact_difference_sign(q, q', output, eps) -> int | None``: the exact sign of
    ``Pr[M(q) = o] − e^ε Pr[M(q') = o]`` (None when it cannot be decided exactly)."""

    def exact_difference_sign(self, q: Sequence[Any], q2: Sequence[Any], output: Any, eps: Any) -> int | None: ...


@runtime_checkable
class ScreenLogpmf(Protocol, metaclass=_CapabilityMeta):
    """``screen_logpmf(q)``: a cheaper float log-law used only to order the pattern search's outputs
    (never to decide one); without it ``logpmf`` is used."""

    def screen_logpmf(self, q: Sequence[Any]) -> Any: ...



@dataclass(frozen=True)
class PrivacyLevel:
    """What a mechanism's privacy map states for n queries: its exact level and a witness attaining it.

    ``level`` = ``sup_{q~q'} sup_S log(Pr[M(q) ∈ S] / Pr[M(q') ∈ S])`` over the relation described by
    ``neighbourhood``, an exact :class:`~dpexact.numbers.Real` (``math.inf``: an event of probability 1
    against 0). ``scores`` / ``neighbour_scores`` are a neighbouring pair and ``event`` (JSON-friendly:
    ``{"output": label}`` or ``{"output": "box", "box": [[lo, hi], ...]}``) an output set attaining it;
    ``log_ratio`` is that event's log-ratio computed from the *law* (not from the formula), an arb ball
    when ``arithmetic`` is ``"ball:p"``, an exact Real (or ``math.inf``) when ``"exact"``, so that a
    verdict re-checks the formula against the law. ``families`` / ``pairs`` / ``triples`` count what the
    map covered, ``exact_triples`` how many of them were decided exactly; ``notes`` state the theorem
    and its domain in one line each.
    """

    level: Any
    scores: tuple
    neighbour_scores: tuple
    event: dict
    log_ratio: Any
    arithmetic: str
    neighbourhood: str
    families: dict
    notes: tuple[str, ...] = ()
    pairs: int = 0
    triples: int = 0
    exact_triples: int = 0


@runtime_checkable
class PrivacyMap(Protocol, metaclass=_CapabilityMeta):
    """A mechanism whose exact privacy level is a formula of its parameters (OpenDP's privacy map).

    ``privacy_map(n, relation, neighbourhood) -> PrivacyLevel``: the level on ``n`` queries (None: the
    mechanism's own default) for its claim's ``relation`` (None: its own) and, where the map takes one,
    a ``neighbourhood`` object; an argument the map cannot take raises ``ValueError`` naming it.
    ``privacy_map_options`` lists which of ``n``, ``relation``, ``neighbourhood`` it takes (the verify
    options the closed-form route honours). Read by :mod:`dpexact.verify.proofs.closed_forms`.
    """

    privacy_map_options: frozenset

    def privacy_map(self, n: int | None = None, relation: str | None = None,
                    neighbourhood: "Neighbourhood | None" = None) -> PrivacyLevel: ...


@runtime_checkable
class Thresholded(Protocol):
    """A law around a public threshold ``threshold`` (sparse vector): the pattern search's query pairs
    are placed around it (otherwise around 0)."""

    threshold: Any


@runtime_checkable
class MonotoneQuality(Protocol):
    """A selection mechanism with pf Remark 1's ``monotone`` flag (exponent ε/Δ instead of ε/(2Δ)), which
    halves the noise scale 2Δ/ε the query-pair family is measured in."""

    monotone: bool

# -- asking the protocol ------------------------------------------------------------------------

_REQUIRED = ("pmf", "rvs", "params", "neighbourhood", "outputs")


def is_mechanism(obj: Any) -> bool:
    """Whether ``obj`` is a mechanism *instance* satisfying the protocol of its output kind."""
    try:
        check_mechanism(obj, continuous=True)
    except TypeError:
        return False
    return True


def check_mechanism(obj: Any, name: str = "mechanism", continuous: bool = False) -> Any:
    """Return ``obj`` if it satisfies :class:`Mechanism` (or, with ``continuous=True``,
    :class:`ContinuousMechanism`), else raise a one-line ``TypeError`` naming what is missing."""
    if isinstance(obj, type):
        raise TypeError(f"{name}: {obj.__name__} is a class, not a mechanism instance (call it with its parameters)")
    kind = getattr(obj, "output_kind", None)
    if kind in FINITE_KINDS and isinstance(obj, Mechanism):
        return obj
    if kind in KIND_METHODS and isinstance(obj, ContinuousMechanism):
        lacking = [a for a in KIND_METHODS[kind] if not callable(getattr(obj, a, None))]
        if lacking:
            raise TypeError(f"{name}: {type(obj).__name__} declares output_kind {kind!r} but lacks {', '.join(lacking)}; "
                            "see dpexact.protocols")
        if continuous:
            return obj
        raise TypeError(f"{name}: {type(obj).__name__} has a continuous output (output_kind {kind!r}); "
                        "this needs a finite output space")
    if kind is not None and kind not in FINITE_KINDS and kind not in KIND_METHODS:
        raise TypeError(f"{name}: {type(obj).__name__} has an unknown output_kind {kind!r} "
                        f"(one of {', '.join(FINITE_KINDS + tuple(KIND_METHODS))})")
    required = _REQUIRED if kind in FINITE_KINDS or kind is None else ("rvs", "params", "neighbourhood")
    missing = [a for a in ("short_name", "epsilon", "sensitivity", "size", "properties", "output_kind") + required
               if not hasattr(obj, a)]
    raise TypeError(f"{name}: {type(obj).__name__} does not satisfy the dpexact Mechanism protocol "
                    f"(missing: {', '.join(missing) or 'logpmf'}); see dpexact.protocols")


def mechanism_size(mechanism: Any) -> int | None:
    """The number of candidates ``mechanism`` is tied to (``None``: any n), asked through the protocol."""
    v = check_mechanism(mechanism, continuous=True).size
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1):
        raise TypeError(f"mechanism: size must be a positive int or None, got {v!r}")
    return None if v is None else int(v)


def value_count(mechanism: Any, output: Any) -> int:
    """How many real values a ``mixed`` mechanism releases with ``output``: its ``value_count(output)``,
    else one per ⊤ of a sparse-vector pattern."""
    f = getattr(mechanism, "value_count", None)
    if callable(f):
        return int(f(output))
    return str(output).count("T")


def claimed_epsilon(mechanism: Any) -> Any:
    """The ε the mechanism's privacy claim states: its ``claimed_epsilon`` where the claim is a
    multiple of the noise parameter (CheckDP's SmartSum: ``CHECK: 2 * epsilon``), else ``epsilon``."""
    c = getattr(mechanism, "claimed_epsilon", None)
    return mechanism.epsilon if c is None or callable(c) else c


def mechanism_properties(mechanism: Any) -> MechanismProperties:
    """The properties ``mechanism`` declares (a :class:`MechanismProperties`)."""
    p = check_mechanism(mechanism, continuous=True).properties
    if not isinstance(p, MechanismProperties):
        raise TypeError(f"mechanism: properties must be a MechanismProperties, got {type(p).__name__}")
    return p
