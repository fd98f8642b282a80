"""Optional capabilities: what a verifier, a conformance check or a metric may ask of a mechanism
beyond :class:`~.mechanism.Mechanism`, each a Protocol with one meaning and one signature, tested with
``isinstance`` (never by probing attribute names), and the helpers with a declared neutral default
(:func:`value_count`, :func:`claimed_epsilon`, :func:`noise_unit`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

import numpy as np

from .mechanism import _CapabilityMeta

if TYPE_CHECKING:
    from .backend import Backend
    from .mechanism import AnyMechanism
    from .mechanism import AnyMechanism, Neighbourhood

__all__ = ["IntervalLaw", "BatchFloatPmf", "ValidatedFloatPmf", "PatternLaw", "CouplingLaw", "BoxLaw", "PartBoxLaw", "BoxCoordinates", "NoiseScale",
           "NoiseScales", "ValueLoss", "ExactPatternValue", "ExactDifferenceSign", "ScreenLogpmf", "PrivacyLevel",
           "PrivacyMap", "Thresholded", "MonotoneQuality", "CutoffLaw", "ValueCount", "ClaimedEpsilon",
           "value_count", "claimed_epsilon", "noise_unit", "box_law"]


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


@runtime_checkable
class ValidatedFloatPmf(Protocol):
    """Optional capability of a selection mechanism: the float pmf of scores the caller validated once.

    ``pmf_float_validated(q, method=None) -> Pmf``: ``q`` a 1-D float64 array returned by
    :func:`dpexact.mechanisms.validation.float_scores` (finite, non-empty; read, never copied or
    written); the result is what ``pmf(q, "float", method)`` returns — the same values, the same
    stated bound, the same fallback to balls when the float bound is useless — without
    re-validating ``q`` (an O(n) pass and a copy per call). For loops that evaluate one mechanism
    on many validated vectors: metrics over a sweep, the bracket's inner loops. The public ``pmf``
    keeps its validation.
    """

    def pmf_float_validated(self, q: np.ndarray, method: str | None = None) -> Any: ...


# -- optional capabilities (each read by a verifier, a conformance check or a metric) ----------
# Tested with isinstance; each name has one meaning and one signature across dpexact. A capability is
# offered when each of its methods is *callable* on the object: an attribute of the same name set to None
# (``box_coordinates = None``: the identity) is not the capability.


@runtime_checkable
class PatternLaw(Protocol, metaclass=_CapabilityMeta):
    """A ``finite`` mechanism whose law is given output by output (sparse-vector patterns, …).

    ``pattern_probability(q, output, backend)``: ``Pr[M(q) = output]`` on ``backend`` (``"ball:p"``:
    an arb ball; ``"exact"``: an exact value). The pattern search (:mod:`dpexact.verification.search.patterns`)
    decides every output of every pair from it.
    """

    def pattern_probability(self, q: Sequence[Any], output: Any, backend: "str | Backend" = "ball") -> Any: ...


@runtime_checkable
class CouplingLaw(Protocol, metaclass=_CapabilityMeta):
    """A sparse-vector law that states its factors: ``coupling_terms(...)`` gives, per query, the
    Laplace factors of ``Pr[pattern]`` that the threshold-shift coupling
    (:mod:`dpexact.verification.proofs.threshold_coupling`) checks for every pair of neighbours."""

    def coupling_terms(self, pattern: str, n: int) -> Any: ...


@runtime_checkable
class BoxLaw(Protocol, metaclass=_CapabilityMeta):
    """A ``continuous`` mechanism whose law is given on boxes: ``box_probability(q, box, backend, prec)``
    = ``Pr[T(M(q)) ∈ Π [lo_i, hi_i]]`` (``T`` its :class:`BoxCoordinates`, else the identity), an arb
    ball (``"ball"``) or an exact value (``"exact"``)."""

    def box_probability(self, queries: Any, box: Sequence[Any], backend: str = "ball", prec: int = 128) -> Any: ...


@runtime_checkable
class PartBoxLaw(Protocol, metaclass=_CapabilityMeta):
    """A ``mixed`` mechanism's joint law of its finite part and its released values:
    ``part_box_probability(q, part, box, backend, prec) -> (lower, upper)`` certified bounds of
    ``Pr[part, values ∈ box]`` (``box`` one ``(lo, hi)`` per released value: :func:`value_count`)."""

    def part_box_probability(self, queries: Any, part: Any, box: Sequence[Any], backend: str = "ball",
                             prec: int = 128) -> tuple[Any, Any]: ...


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
    options the closed-form route honours). Read by :mod:`dpexact.verification.proofs.closed_forms`.
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


@runtime_checkable
class CutoffLaw(Protocol):
    """A sparse-vector law with a cutoff ``cutoff`` (at most c ⊤ per output; None: no bound), which a
    proof's domain states."""

    cutoff: Any


@runtime_checkable
class ValueCount(Protocol, metaclass=_CapabilityMeta):
    """A ``mixed`` mechanism stating how many real values it releases with a finite ``output``
    (``value_count(output) -> int``); without it: one per ⊤ of a sparse-vector pattern (:func:`value_count`)."""

    def value_count(self, output: Any) -> int: ...


@runtime_checkable
class ClaimedEpsilon(Protocol):
    """A mechanism whose privacy claim is a multiple of its noise parameter (CheckDP's SmartSum:
    ``CHECK: 2 * epsilon``) states the claimed ε as ``claimed_epsilon`` (a Real, not a method)."""

    @property
    def claimed_epsilon(self) -> Any: ...


def value_count(mechanism: AnyMechanism, output: Any) -> int:
    """How many real values a ``mixed`` mechanism releases with ``output``: its ``value_count(output)``
    (:class:`ValueCount`), else one per ⊤ of a sparse-vector pattern.

    Args:
        mechanism: a ``mixed`` mechanism.
        output: one of its outputs.

    Returns:
        The number of real values released with ``output``.
    """
    if isinstance(mechanism, ValueCount):
        return int(mechanism.value_count(output))
    return str(output).count("T")


def claimed_epsilon(mechanism: AnyMechanism) -> Any:
    """The ε the mechanism's privacy claim states: its ``claimed_epsilon`` (:class:`ClaimedEpsilon`),
    else ``epsilon``.

    Args:
        mechanism: any mechanism.

    Returns:
        The claimed ε (exact).
    """
    return mechanism.claimed_epsilon if isinstance(mechanism, ClaimedEpsilon) else mechanism.epsilon


def noise_unit(mechanism: AnyMechanism) -> Any:
    """The one noise-scale rule: the scale in which searches place query pairs and boxes of real outputs.

    The mechanism's own ``noise_scale()`` (:class:`NoiseScale`), else the exponential mechanism's
    ``2Δ/ε`` (``Δ/ε`` for a monotone quality, pf Remark 1: :class:`MonotoneQuality`), ε the claim's
    (:func:`claimed_epsilon`) — a fair unit for a mechanism that states none. An exact Real.

    Args:
        mechanism: any mechanism.

    Returns:
        The noise scale, an exact :class:`Real`.
    """
    from ..numbers.real import Real

    if isinstance(mechanism, NoiseScale):
        return Real.of(mechanism.noise_scale())
    d = Real.of(mechanism.sensitivity)
    halved = isinstance(mechanism, MonotoneQuality) and mechanism.monotone
    return (d if halved else d * 2) / Real.of(claimed_epsilon(mechanism))


def box_law(mechanism: AnyMechanism) -> Any:
    """The law of a real-valued mechanism on boxes: the one adapter of "an interval law as a one-box law".

    Args:
        mechanism: a checked mechanism (an ``interval`` one, or one with a :class:`BoxLaw`).

    Returns:
        ``(queries, box, backend="ball", prec=None) -> Pr[M(q) ∈ box]``: an ``interval`` mechanism's
        ``interval_probability`` on its one interval (a box of another length is a ``ValueError``), else
        its ``box_probability``; None when it has neither (a density only). ``prec`` None: the law's own
        default precision.
    """
    from .mechanism import INTERVAL_KINDS, IntervalProbability

    if mechanism.output_kind in INTERVAL_KINDS and isinstance(mechanism, IntervalProbability):
        def one_interval(queries: Any, box: Sequence[Any], backend: str = "ball", prec: int | None = None) -> Any:
            if len(box) != 1:
                raise ValueError(f"box: one interval expected, got {len(box)}")
            if prec is None:
                return mechanism.interval_probability(queries, box[0][0], box[0][1], backend=backend)
            return mechanism.interval_probability(queries, box[0][0], box[0][1], backend=backend, prec=prec)

        return one_interval
    if isinstance(mechanism, BoxLaw):
        return mechanism.box_probability
    return None
