"""A certified value of a curve: lower <= value <= upper, with the witness of the lower end."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CurvePoint"]


@dataclass(frozen=True)
class CurvePoint:
    """One certified value: ``lower <= value <= upper``, with the witness of the lower end."""

    at: float
    at_text: str
    lower: float
    upper: float
    witness: dict = field(default_factory=dict, compare=False)
