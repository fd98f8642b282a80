"""A selection mechanism seen as a finite-output one (outputs ``0..n-1``), so that the pattern search
runs it on the peers' query-pair families."""

from __future__ import annotations

from typing import Any

from ...mechanisms.base import MechanismCrash
from ...numbers.real import Real
from ...protocols import Backend, Mechanism, noise_unit

__all__ = ["SelectionOutputs"]


class SelectionOutputs:
    """A selection mechanism seen as a finite-output one (outputs ``0..n-1``), so that
    :func:`.patterns.verify_patterns` runs it on the peers' query-pair families.

    ``pattern_probability(q, r, "ball:p")`` is entry r of the mechanism's own ball pmf
    (memoised per vector); ``noise_scales()`` gives the noise scale 2Δ/ε (Δ/ε if monotone) that sets
    the family's levels.
    """

    def __init__(self, mechanism: Mechanism) -> None:
        self.mechanism = mechanism
        self.short_name = mechanism.short_name
        self.epsilon = mechanism.epsilon
        self.sensitivity = mechanism.sensitivity
        self.threshold = 0
        self._balls: dict = {}
        #: why the exact backend could not decide a tie, when the mechanism's exact pmf crashed
        self.exact_failure = ""

    def noise_scales(self) -> tuple:
        return (noise_unit(self.mechanism),)

    def outputs(self, n: int) -> list[int]:
        return list(range(n))

    def params(self) -> dict:
        return self.mechanism.params()

    def logpmf(self, q: Any) -> Any:
        return self.mechanism.logpmf(q)

    def pmf(self, q: Any, backend: str | Backend = "float") -> Any:
        key = (tuple(str(x) for x in q), str(backend))
        if key not in self._balls:
            self._balls[key] = self.mechanism.pmf(list(q), backend)
        return self._balls[key]

    def pattern_probability(self, q: Any, r: int, backend: str | Backend = "ball") -> Any:
        return self.pmf(q, backend).values[r]

    def exact_difference_sign(self, q: Any, q2: Any, r: int, eps: Any) -> int | None:
        """Exact sign of ``Pr[M(q) = r] - e^ε Pr[M(q') = r]`` from the mechanism's exact backend
        (decides the ties a ball straddles); ``None`` when it has no exact backend here."""
        import sympy

        from ...numbers.backends import ExactBackend, exact_sympy

        try:
            a = self.pmf(q, "exact").values[r]
            b = self.pmf(q2, "exact").values[r]
        except (ValueError, TypeError) as exc:
            if isinstance(exc, (MechanismCrash, TypeError)) and not self.exact_failure:  # a defect: named in the verdict
                self.exact_failure = f"the exact pmf failed on scores {[str(x) for x in q]}: {str(exc)[:200]}"
            return None
        diff = exact_sympy(a) - sympy.exp(Real.of(eps).to_sympy()) * exact_sympy(b)
        return ExactBackend().try_sign(diff)
