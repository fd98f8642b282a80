"""Candidate-wise sensitivities Δ_a (hetsel eqs. 1-2) and the base class of the hetsel mechanisms.

hetsel eq. (1): ``Δ_a = max_{D1 ~ D2} |q(a, D1) - q(a, D2)|``; eq. (2): the global sensitivity
``Δ = max_a Δ_a``.

Parameters (every hetsel mechanism):
    ``sensitivities`` — the list ``(s_a)``; candidate ``a`` has sensitivity
    ``Δ_a = sensitivity · s_a``. With the default ``sensitivity = 1`` the list *is* the list of
    Δ_a (the CLI passes ``--param sensitivities=1,1.8,1``). ``None`` means homogeneous
    sensitivities ``Δ_a = sensitivity`` for every candidate. Values are parsed exactly
    (``"1.8"`` is 9/5); the list must have one entry per score.

A zero sensitivity (a noiseless score) is rejected: the mechanisms here integrate densities
and the paper's point-mass counterexamples (hetsel §IV-A, Appendices A-B) would need atoms.
``monotone`` has no meaning for these mechanisms and must stay ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...numbers.real import Real
from ..base import SelectionMechanism
from ..validation import positive_real

__all__ = ["HeterogeneousSelection", "parse_sensitivities"]


def parse_sensitivities(values: Any, name: str = "sensitivities") -> tuple[Real, ...] | None:
    """Exact, strictly positive entries (``None`` stays ``None``); errors name ``sensitivities``."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        items = [v.strip() for v in str(values).split(",")]
    elif isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {values.shape}")
        items = values.tolist()
    else:
        try:
            items = list(values)
        except TypeError as exc:
            raise TypeError(f"{name} must be a sequence of numbers") from exc
    if not items:
        raise ValueError(f"{name} must not be empty")
    out = []
    for i, v in enumerate(items):
        if isinstance(v, (list, tuple, np.ndarray)):
            raise ValueError(f"{name} must be one-dimensional")
        r = Real.of(v, f"{name}[{i}]")
        s = r.sign()
        if s < 0:
            raise ValueError(f"{name}[{i}] must be >= 0 (a sensitivity), got {r}")
        if s == 0:
            raise ValueError(f"{name}[{i}] is 0: zero candidate-wise sensitivities (noiseless scores) are not supported")
        out.append(positive_real(r, f"{name}[{i}]"))
    return tuple(out)


@dataclass(frozen=True)
class HeterogeneousSelection(SelectionMechanism):
    """Base of the hetsel mechanisms: adds ``sensitivities`` (Δ_a = sensitivity · s_a)."""

    sensitivities: Any = None

    short_name: ClassVar[str] = "hetsel-abstract"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.monotone:
            raise ValueError(f"monotone=True is not defined for {type(self).__name__} (hetsel mechanisms)")
        object.__setattr__(self, "sensitivities", parse_sensitivities(self.sensitivities))

    @property
    def size(self) -> int | None:
        """Tied to ``len(sensitivities)`` candidates when candidate-wise sensitivities are given."""
        return None if self.sensitivities is None else len(self.sensitivities)

    def neighbourhood(self) -> Any:
        """hetsel eq. 1: the candidate-wise box ``|q'_a - q_a| <= Δ_a`` (the ℓ∞ box without ``sensitivities``)."""
        from ..neighbourhoods import LInfBox

        if self.sensitivities is None:
            return super().neighbourhood()
        return LInfBox(self.sensitivity, tuple(self.candidate_sensitivities(len(self.sensitivities))))

    def candidate_sensitivities(self, n: int) -> tuple[Real, ...]:
        """Exact ``(Δ_a)`` for ``n`` candidates; ValueError on a length mismatch."""
        if self.sensitivities is None:
            return (self.sensitivity,) * n
        if len(self.sensitivities) != n:
            raise ValueError(f"sensitivities has {len(self.sensitivities)} entries but scores has {n}")
        if self.sensitivity.is_rational and self.sensitivity.value == 1:
            return self.sensitivities
        return tuple(self.sensitivity * s for s in self.sensitivities)

    def float_sensitivities(self, n: int) -> np.ndarray:
        return np.array([d.to_float() for d in self.candidate_sensitivities(n)])

    def global_sensitivity(self, n: int) -> Real:
        """hetsel eq. (2): ``Δ = max_a Δ_a``."""
        ds = self.candidate_sensitivities(n)
        top = ds[0]
        for d in ds[1:]:
            if d > top:
                top = d
        return top
