"""Declared regularity premises (symmetry, shift invariance, monotonicity) screened before a proof uses them.

A proof that shrinks its domain with a declared property — shift invariance fixes ``q_r = 0``,
symmetry leaves one output and sorted scores — is only as good as the declaration. A law written
by hand can break a property at scales a small corpus never reaches (a spread of 18Δ computed as
``max + min`` is invariant under every shift that keeps ``max + min`` below 18). This screen
checks pf Definition 3 (:func:`.regularity.check_regularity`, certified refutations in ball
arithmetic) on vectors at several scales (1, 10, 1000 and 10⁴ times a small corpus of shapes:
ties, staircases, one low candidate) and shifts ``c`` from 1 to 10⁴ (both signs), so a property
refuted anywhere there is not used.

It is a screen, not a proof: a property not refuted here may still fail elsewhere. A proof that
uses a screened premise states it in its domain (``premises``) and is never a whole-domain proof
on that account (:attr:`~dpexact.verification.bracket.Proof.whole_domain`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...protocols import Mechanism, mechanism_properties
from .regularity import RegularityViolation, check_regularity

__all__ = ["PremiseScreen", "screen_premises", "extended_regularity", "SCALES", "SHIFTS"]

#: scales of the corpus shapes (the shapes span about 3Δ)
SCALES = (1, 10, 1000, 10_000)
#: shifts c of q + c·1, in units of Δ (integers only for integer-score laws)
SHIFTS = ("1", "-5/2", "9", "-37/2", "1000", "-1001", "10000")

_NAMES = {"symmetric": "symmetry", "shift_invariant": "shift", "monotone": "monotonicity"}


@dataclass(frozen=True)
class PremiseScreen:
    """The declared properties (attribute names of the mechanism's properties) the screen did not
    refute (``kept``), those it refuted with the first certified witness of each (``refuted``),
    and the number of comparisons made."""

    kept: frozenset[str]
    refuted: dict[str, RegularityViolation]
    checked: int

    def note(self) -> str:
        """One line for a verdict: what was refuted, with its witness."""
        parts = []
        for k, x in self.refuted.items():
            parts.append(f"declared {k.replace('_', '-')} refuted: Pr[M({[str(v) for v in x.a]}) = {x.r}] = {x.pa} vs "
                         f"Pr[M({[str(v) for v in x.b]}) = {x.s}] = {x.pb} ({x.arithmetic})")
        return "; ".join(parts)


def _vectors(n: int, delta: Fraction, integer: bool) -> list[tuple[Fraction, ...]]:
    shapes = [tuple(Fraction(-(k % 3)) for k in range(n)), tuple(Fraction(n - 1 - k) for k in range(n)),
              tuple(Fraction(0) if k == 0 else Fraction(-1) for k in range(n)),
              tuple(Fraction(1) if k == 0 else Fraction(0) for k in range(n))]
    unit = Fraction(max(1, round(delta))) if integer else delta
    out = []
    for s in SCALES:
        for shape in shapes:
            v = tuple(x * s * unit for x in shape)
            if v not in out:
                out.append(v)
    return out


def extended_regularity(mechanism: Mechanism, vectors: list, shifts: list) -> tuple[list[RegularityViolation], int, int]:
    """``(violations, comparisons, refused)`` of pf Definition 3 on each vector and each shift separately
    (:func:`.regularity.check_regularity`, ball): a vector or shift the law refuses (``ValueError`` /
    ``NotImplementedError``: a size or range limit of its exact law) is skipped and counted, so that
    one refusal at a large scale does not hide the others. Any other exception propagates."""
    violations: list[RegularityViolation] = []
    checked = refused = 0
    for v in vectors:
        for shift in ([shifts[0]] + [[c] for c in shifts[1:]]) if shifts else [[]]:
            cs = shift if isinstance(shift, list) else [shift]
            try:
                rep = check_regularity(mechanism, [v], shifts=[str(c) for c in cs], backend="ball",
                                       max_perms=6 if cs == [shifts[0]] else 1)
            except (ValueError, NotImplementedError):
                refused += 1
                continue
            violations.extend(rep.violations)
            checked += sum(rep.checked.values())
    return violations, checked, refused


def screen_premises(mechanism: Mechanism, n: int) -> PremiseScreen:
    """Screen the mechanism's declared properties (module docstring) on vectors of size ``n``.

    A law that cannot be evaluated on the screen's vectors (it refuses them, or raises) keeps no
    premise: a property that cannot be checked is not used."""
    props = mechanism_properties(mechanism)
    declared = [k for k in _NAMES if getattr(props, k, False)]
    if not declared:
        return PremiseScreen(frozenset(), {}, 0)
    from ...numbers.real import Real

    d = Real.of(mechanism.sensitivity)
    delta = d.to_fraction() if d.is_rational else Fraction(1)
    integer = bool(props.integer_scores)
    shifts = [Fraction(s) * (Fraction(max(1, round(delta))) if integer else delta) for s in SHIFTS]
    if integer:
        shifts = [s for s in shifts if s.denominator == 1]
    try:
        violations, checked, _ = extended_regularity(mechanism, _vectors(n, delta, integer), shifts)
    except Exception:  # noqa: BLE001 - a law that cannot be screened keeps no premise
        return PremiseScreen(frozenset(), {k: RegularityViolation(_NAMES[k], (), 0, (), 0, "?", "?",
                                                                   "the law could not be evaluated on the screen")
                                           for k in declared}, 0)
    if checked == 0:  # nothing could be evaluated: nothing screened, nothing used
        return PremiseScreen(frozenset(), {k: RegularityViolation(_NAMES[k], (), 0, (), 0, "?", "?",
                                                                   "the law refused every vector of the screen")
                                           for k in declared}, 0)
    refuted: dict[str, Any] = {}
    for k in declared:
        bad = [x for x in violations if x.property == _NAMES[k]]
        if bad:
            refuted[k] = bad[0]
    return PremiseScreen(frozenset(k for k in declared if k not in refuted), refuted, checked)
