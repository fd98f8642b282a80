"""One way for tests to build every registered mechanism with valid parameters."""

from __future__ import annotations

from typing import Any

import dpexact

#: mechanisms whose definition needs the candidate-wise Δ_a (hetsel eq. 6): tied to n = 3 here
NEEDS_SENSITIVITIES = ("gem", "mgem", "combined-gem")


def build(name: str, **overrides: Any) -> Any:
    """The registered mechanism ``name`` at ε = 1 with the parameters its definition requires."""
    kw: dict[str, Any] = {"epsilon": 1}
    if name.startswith("err"):
        kw["p"] = "1/2"
    if name in NEEDS_SENSITIVITIES:
        kw["sensitivities"] = [1, 1, 1]
    kw.update(overrides)
    return dpexact.mechanism(name, **kw)
