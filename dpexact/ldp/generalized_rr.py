"""Generalized randomized response (GRR, k-RR; Kairouz et al. 2016) as an LDP channel, brr §2.4 eq. (6).

    Pr[y | x] = e^ε / (e^ε + N − 1)   if y = x,
                1   / (e^ε + N − 1)   if y ≠ x,          x, y ∈ {1, ..., N}, N >= 2.

Its column ratio is exactly e^ε, so GRR is ε-LDP and no better (brr Definition 2.2). For
N = 2 it is Warner's randomized response. Exact entries for exact ε (rational when e^ε is,
e.g. ε = log(3); sympy expressions such as e/(e + 4) otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Sequence

import numpy as np

from ..mechanisms.validation import positive_real
from ..numbers.backends import Backend
from ..numbers.real import Real
from .channel import Channel, normalise_rows
from .losses import LossMatrix, absolute_loss, check_domain

__all__ = ["GeneralizedRR", "exp_epsilon"]


def exp_epsilon(epsilon: Real) -> Real:
    """``e^ε`` as an exact Real (rational when ε = log(rational), e.g. ``"log(3)"``)."""
    import sympy

    return Real.of(sympy.exp(epsilon.to_sympy()), "exp(epsilon)")


@dataclass(frozen=True)
class GeneralizedRR:
    """Generalized randomized response on ``{1, ..., N}`` (brr eq. 6).

    Args:
        domain: N >= 2, the number of points.
        epsilon: ε > 0 (exact: ``"log(3)"``, ``"1/2"``, ...).
    """

    domain: int
    epsilon: Any

    short_name: ClassVar[str] = "grr"

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain", check_domain(self.domain))
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))

    @property
    def e_epsilon(self) -> Real:
        return exp_epsilon(self.epsilon)

    def channel(self, backend: "str | Backend" = "exact", loss: "LossMatrix | Any | None" = None,
                prior: Sequence[Any] | None = None) -> Channel:
        """The N×N matrix of eq. (6); ``loss`` defaults to ``|x − y|`` (brr §3)."""
        n = self.domain
        a, one = self.e_epsilon, Real(Fraction(1))
        weights = [[a if x == y else one for y in range(n)] for x in range(n)]
        rows, be_name, err = normalise_rows(weights, backend)
        return Channel.from_rows(rows, loss if loss is not None else absolute_loss(n),
                                 prior, name="grr", entry_abs_error=err, backend=be_name)

    def sample(self, x: int, size: int | None = None, random_state: Any = None) -> Any:
        """Run the randomiser itself: keep ``x`` with probability p = e^ε/(e^ε + N − 1), otherwise
        report one of the other N − 1 points uniformly (brr §1: "(1 − p)/(N − 1)" each).
        Inputs and outputs are indices 0..N−1."""
        n = self.domain
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= int(x) < n:
            raise ValueError(f"x must be an input index in [0, {n - 1}], got {x!r}")
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        a = self.e_epsilon.to_float()
        keep = rng.random(k) < a / (a + n - 1)
        other = rng.integers(0, n - 1, size=k)
        other = other + (other >= int(x))  # skip x
        out = np.where(keep, int(x), other)
        return int(out[0]) if size is None else out

    def params(self) -> dict[str, Any]:
        return {"domain": self.domain, "epsilon": str(self.epsilon)}
