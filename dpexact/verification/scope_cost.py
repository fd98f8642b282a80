"""What a verification scope of ``n`` candidates will cost, estimated before the search, and the refusal.

The searches build families of score vectors of ``n`` entries and evaluate the mechanism's law on
each pair, so their cost grows with ``n`` at least linearly and, measured, faster. The model, per
output kind, is a power law fitted to the slowest registry mechanism of that kind measured on this
project's reference machine (CPU seconds of the search, start-up excluded; default searches, ε = 1; ``/usr/bin/time`` user
time of ``dpexact verify -m M -e 1 --n N`` minus the 0.9 s start-up, on 2 shared cores):

=============  ======================  ===========  ======  =====================================
output kind    measured mechanism      n_ref        t_ref   exponent (from the two points)
=============  ======================  ===========  ======  =====================================
selection      em (pf alike)           10^5         5.2 s   1.4  (10^4: 0.2 s)
finite         svt1                    1024         0.5 s   1.0  (64: 0.7 s, 256: 0.5 s: flat)
mixed          svt3                    64           22.8 s  1.65 (16: 1.5 s)
interval       noisy-max-value         64           0.8 s   1.0  (the route refuses n > 64)
continuous     noisy-hist, smart-sum   100          7 s     1.74 (laplace: 100: 0.3 s, 1000: 16.5 s)
composed       svt34-parallel          64           0.5 s   1.0  (the route refuses n > 64)
=============  ======================  ===========  ======  =====================================

Estimated seconds: ``t_ref · (n / n_ref)^exponent`` (for ``n`` below ``n_ref`` the search costs
little and nothing is refused). Memory: ``bytes_per_n · n`` (em: 1.1 kB per candidate at 10^5; at
10^9 the run grew past 6.5 GB in 30 s). An estimate above the budget (``--max-seconds``, default
:data:`~dpexact.cost_limits.DEFAULT_CLI_MAX_SECONDS`) or the memory budget is refused with the
estimate, before any work. ``n`` and ``steps`` must be positive integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cost_limits import CostEstimate, check_cost

__all__ = ["ScopeModel", "SCOPE_MODELS", "check_scope_counts", "estimate_scope_cost", "check_scope_cost", "MAX_STEPS"]

#: finest box lattice a search accepts (its cost grows as steps^dimension)
MAX_STEPS = 64


@dataclass(frozen=True)
class ScopeModel:
    """``seconds(n) = t_ref (n / n_ref)^exponent``; ``bytes_per_n`` per candidate."""

    mechanism: str
    n_ref: int
    t_ref: float
    exponent: float
    bytes_per_n: float = 1100.0


#: per output kind (module docstring table)
SCOPE_MODELS: dict[str, ScopeModel] = {
    "selection": ScopeModel("em", 100_000, 5.2, 1.4),
    "finite": ScopeModel("svt1", 1024, 0.5, 1.0),
    "mixed": ScopeModel("svt3", 64, 22.8, 1.65),
    "interval": ScopeModel("noisy-max-value", 64, 0.8, 1.0),
    "continuous": ScopeModel("noisy-hist, smart-sum", 100, 7.0, 1.74),
    "composed": ScopeModel("svt34-parallel", 64, 0.5, 1.0),
}


def check_scope_counts(n: Any, steps: Any) -> None:
    """``n`` (None: the route's default) and ``steps`` positive integers; ValueError naming the option."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"--n must be a positive number of candidates, got {str(n)[:40]}")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"--steps must be an integer in 1..{MAX_STEPS} (box lattice resolution), got {str(steps)[:40]}")


def estimate_scope_cost(kind: str, n: int) -> CostEstimate | None:
    """The estimate for ``n`` candidates on the route of output kind ``kind`` (None: no model, or
    ``n`` at most the model's reference size, where the search is cheap)."""
    model = SCOPE_MODELS.get(kind)
    if model is None or n <= model.n_ref:
        return None
    try:
        seconds = model.t_ref * (n / model.n_ref) ** model.exponent
    except OverflowError:
        seconds = float("inf")
    return CostEstimate(f"verify: a {kind} scope of n = {n} candidates", model.bytes_per_n * n, seconds,
                        f"t = {model.t_ref:g} s · (n / {model.n_ref})^{model.exponent:g}, measured on {model.mechanism}")


def check_scope_cost(kind: str, n: int | None, max_seconds: float | None) -> CostEstimate | None:
    """Refuse (``CostLimitError`` naming ``--n``) a scope whose estimate exceeds the budgets."""
    if n is None:
        return None
    est = estimate_scope_cost(kind, n)
    if est is None:
        return None
    from ..cost_limits import CostLimitError

    try:
        return check_cost(est, max_seconds)
    except CostLimitError as exc:
        raise CostLimitError(f"--n: {exc}; give a smaller --n", exc.estimate) from None
