"""Two sparse-vector algorithms run side by side on the same queries (DP-Sniper ``SVT34Parallel``).

The output is the pair (output of Algorithm 3, output of Algorithm 4), with independent noise.
For any event S of one component, ``Pr[(o3, o4) ∈ S × everything] = Pr[o3 ∈ S]``, so a certified
violation of either component on its own output set is a certified violation of the pair on a set
of the same probabilities. :func:`dpexact.verification.proofs.closed_forms.verify_svt34_parallel` searches each component and
reports the first such violation; it only refutes (no private verdict for the pair).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...protocols import MechanismProperties

__all__ = ["SVT34Parallel"]


@dataclass(frozen=True)
class SVT34Parallel:
    """Lyu, Su & Li (VLDB 2017) Algorithms 3 and 4 in parallel on the same queries (DP-Sniper ``SVT34Parallel``,
    Bichsel et al. 2021; c = 2 default)."""

    epsilon: Any
    threshold: Any = 1
    cutoff: Any = 2
    sensitivity: Any = 1

    short_name: ClassVar[str] = "svt34-parallel"
    output_kind: ClassVar[str] = "composed"

    def components(self) -> tuple[Any, Any]:
        from .mechanism import SVT4
        from .released import SVT3

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

    def neighbourhood(self) -> Any:
        """The components' relation (both claim ALL_DIFFER on the same queries)."""
        return self.components()[0].neighbourhood()

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> Any:
        """``(o3, o4)`` with independent noise: SVT3's ``(pattern, values)`` and SVT4's pattern."""
        import numpy as np

        rng = np.random.default_rng(random_state)
        s3, s4 = self.components()
        k = 1 if size is None else int(size)
        a = s3.rvs_values(queries, k, random_state=rng)
        b = s4.rvs(queries, size=k, random_state=rng)
        pairs = list(zip(a, b))
        return pairs[0] if size is None else pairs
