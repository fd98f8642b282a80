"""Oracle of the float pmfs' stated bounds against the exact inputs (used by the property test
and by the count reported in benchmarks): the float pmf of exact scores / ε, compared with a
256-bit ball pmf of the same exact inputs (:func:`dpexact.numbers.pmf_compare.bound_violations`:
a violation is certain, the ball radius gets the benefit of the doubt)."""

from __future__ import annotations

from typing import Any

from dpexact.mechanisms.registry import available
from dpexact.numbers.pmf_compare import bound_violations

from registered_mechanisms import NEEDS_SENSITIVITIES, build


def selection_mechanisms() -> list[str]:
    """Every registered selection mechanism with a certified pmf (its float path is what is checked)."""
    out = []
    for name in available():
        m = build(name)
        if getattr(m, "output_kind", None) == "selection" and m.properties.certified:
            out.append(name)
    return out


def fixed_n(name: str) -> int | None:
    """The number of candidates a mechanism built by :func:`build` is tied to."""
    return 3 if name in NEEDS_SENSITIVITIES else None


def case_violations(name: str, epsilon: str, scores: list[str]) -> list[Any]:
    """The certain violations of the float pmf's bound for these exact inputs ([] when it holds)."""
    m = build(name, epsilon=epsilon)
    f = m.pmf(scores)
    b = m.pmf(scores, "ball:256")
    return bound_violations(f, b)
