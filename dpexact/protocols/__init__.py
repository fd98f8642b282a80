"""The contracts of dpexact in one place: mechanism, neighbourhood, backend.

Every verifier, utility metric and the LP talks to a mechanism only through
:class:`Mechanism`; they never probe attribute names. Anything that satisfies these
protocols — a subclass of :class:`dpexact.mechanisms.SelectionMechanism`, an object built by
:func:`dpexact.define_mechanism`, or a class in a file of your own loaded with
``-m PATH.py:OBJECT`` — is accepted by every command.

This package sits just above :mod:`dpexact.numbers` and imports nothing else from dpexact, so
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
                ``part_box_probability(q, output, box, backend)`` gives certified ``(lower, upper)``
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

The contracts live in four modules, re-exported here (``from dpexact.protocols import X``):
:mod:`.mechanism` (output kinds, :class:`Mechanism`, :class:`ContinuousMechanism`,
:class:`Neighbourhood`, :func:`check_mechanism`), :mod:`.capabilities` (the optional capabilities and
their neutral defaults), :mod:`.proof_laws` (laws stated for the whole-space proofs) and
:mod:`.backend` (the number backends).
"""

from __future__ import annotations

from .backend import Backend, BackendOps
from .capabilities import (IntervalLaw, BatchFloatPmf, ValidatedFloatPmf, PatternLaw, CouplingLaw, BoxLaw, PartBoxLaw,
    BoxCoordinates, NoiseScale, NoiseScales, ValueLoss, ExactPatternValue, ExactDifferenceSign, ScreenLogpmf,
    PrivacyLevel, PrivacyMap, Thresholded, MonotoneQuality, CutoffLaw, ValueCount, ClaimedEpsilon, value_count,
    claimed_epsilon, noise_unit, box_law)
from .mechanism import (OutputKind, FINITE_KINDS, REAL_KINDS, KIND_METHODS, SELECTION_KINDS, PART_KINDS, INTERVAL_KINDS,
                        DENSITY_KINDS, COMPOSED_KINDS, RecordedRelation, MechanismProperties, Neighbourhood,
    FiniteDomain, Mechanism, ContinuousMechanism, AnyMechanism, SameLaw, Named, DeclaresKind, IntervalProbability,
    Pdf, LogPdf, Components, is_mechanism, check_mechanism, mechanism_size, mechanism_properties)
from .proof_laws import (CouplingUnits, LaplaceDensity, LaplacePieces, ThresholdCouplingLaw, IntegerNoise,
                         IntegerNoisyArgmax, INTEGER_NOISE_FAMILIES)

__all__ = ["OutputKind", "FINITE_KINDS", "REAL_KINDS", "KIND_METHODS", "SELECTION_KINDS", "PART_KINDS", "INTERVAL_KINDS",
           "DENSITY_KINDS", "COMPOSED_KINDS", "MechanismProperties", "Neighbourhood", "RecordedRelation",
           "FiniteDomain", "Mechanism", "ContinuousMechanism", "AnyMechanism", "SameLaw", "Named", "DeclaresKind",
           "IntervalProbability", "Pdf", "LogPdf", "Components", "is_mechanism", "check_mechanism",
           "mechanism_size", "mechanism_properties", "IntervalLaw", "BatchFloatPmf", "ValidatedFloatPmf", "PatternLaw", "CouplingLaw",
           "BoxLaw", "PartBoxLaw", "BoxCoordinates", "NoiseScale", "NoiseScales", "ValueLoss", "ExactPatternValue",
           "ExactDifferenceSign", "ScreenLogpmf", "PrivacyLevel", "PrivacyMap", "Thresholded", "MonotoneQuality",
           "CutoffLaw", "ValueCount", "ClaimedEpsilon", "value_count", "claimed_epsilon", "noise_unit", "box_law",
           "CouplingUnits", "ThresholdCouplingLaw", "LaplacePieces", "LaplaceDensity", "IntegerNoise",
           "IntegerNoisyArgmax", "INTEGER_NOISE_FAMILIES", "Backend", "BackendOps"]
