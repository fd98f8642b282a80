"""Two sparse-vector algorithms run side by side on the same queries (DP-Sniper ``SVT34Parallel``).

The output is the pair (output of Algorithm 3, output of Algorithm 4), with independent noise.
For any event S of one component, ``Pr[(o3, o4) ∈ S × everything] = Pr[o3 ∈ S]``, so a certified
violation of either component on its own output set is a certified violation of the pair on a set
of the same probabilities. :meth:`SVT34Parallel.verify_closed_form` searches each component and
reports the first such violation; it only refutes (no private verdict for the pair).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from ...protocols import MechanismProperties

__all__ = ["SVT34Parallel"]


@dataclass(frozen=True)
class SVT34Parallel:
    """Lyu et al. Algorithms 3 and 4 in parallel on the same queries (DP-Sniper ``SVT34Parallel``, c = 2 default)."""

    epsilon: Any
    threshold: Any = 1
    cutoff: Any = 2
    sensitivity: Any = 1

    short_name: ClassVar[str] = "svt34-parallel"
    output_kind: ClassVar[str] = "composed"

    def components(self) -> tuple[Any, Any]:
        from .mechanism import SVT3, SVT4

        kw = dict(epsilon=self.epsilon, threshold=self.threshold, cutoff=self.cutoff, sensitivity=self.sensitivity)
        return SVT3(**kw), SVT4(**kw)

    def __post_init__(self) -> None:
        self.components()  # validates every parameter

    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def params(self) -> dict[str, Any]:
        return self.components()[0].params()

    def verify_closed_form(self, n: int | None = None, relation: str | None = None, name: str | None = None) -> Any:
        """Refute ε-DP of the pair through a certified violation of one component (module docstring)."""
        from ...verify.box_search import verify_boxes
        from ...verify.pattern_search import verify_patterns

        t0 = time.perf_counter()
        s3, s4 = self.components()
        nn = n if n is not None else 10
        rel = relation or "all-differ"
        v = verify_boxes(s3, nn, rel, name=name or self.short_name)
        which = "svt3 component (released values), svt4 output unconstrained"
        if v.verdict != "violated":
            v = verify_patterns(s4, nn, rel, certify_all=False, name=name or self.short_name)
            which = "svt4 component (pattern), svt3 output unconstrained"
        v.scope.notes.append(f"event on the {which}: same probabilities as the component's event")
        if v.verdict != "violated":
            v.verdict = "inconclusive"
        v.params = self.params()
        v.seconds = time.perf_counter() - t0
        return v
