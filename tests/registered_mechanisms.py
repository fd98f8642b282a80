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
    if name in ("rappor", "one-time-rappor"):  # 2^6 reports: the pmf enumerates every one
        kw.update(filter_size=6, n_hashes=2, epsilon=None)
    kw.update(overrides)
    return dpexact.mechanism(name, **kw)
