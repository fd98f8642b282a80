"""The exponential mechanism used as an LDP channel (brr Definition 2.5, eq. 5; compared in brr
Figs. 4 and 5).

With quality ``q(x, y) = −λ(x, y)`` for a loss (``q = λ`` for a utility):

    Pr[y | x] = exp(ε q(x, y) / (2Δ)) / Σ_y' exp(ε q(x, y') / (2Δ)),

where Δ is the sensitivity of q over *all* pairs of inputs (in LDP every two inputs are
neighbours): ``Δ = max_y (max_x λ(x, y) − min_x λ(x, y))`` (:func:`~.losses.loss_sensitivity`;
N − 1 for ``|x − y|`` on {1..N}). The paper does not state the Δ used for Figs. 4/5; this is
the Δ that makes eq. (5) ε-LDP by the standard argument (each of the numerator and the
normaliser moves by at most e^{ε/2}). A different Δ can be passed.

Float accuracy: the exponent ``x = −c·λ`` is formed exactly and rounded once; exp adds 1 ulp, so
each weight has relative error ``<= u(|x| + 2)``, which :func:`~.channel.normalise_rows` turns
into the entry bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from ..mechanisms.validation import positive_real
from ..numbers.backends import Backend, get_backend
from ..numbers.real import Real
from .channel import U, Channel, normalise_rows
from .losses import LossMatrix, loss_sensitivity

__all__ = ["ExponentialChannel"]


@dataclass(frozen=True)
class ExponentialChannel:
    """Exponential mechanism as a channel on a loss/utility matrix.

    Args:
        loss: the :class:`LossMatrix`.
        epsilon: ε > 0.
        sensitivity: Δ > 0, or ``None`` for :func:`loss_sensitivity` of ``loss``.
    """

    loss: LossMatrix
    epsilon: Any
    sensitivity: Any = None

    short_name: ClassVar[str] = "em"

    def __post_init__(self) -> None:
        if not isinstance(self.loss, LossMatrix):
            object.__setattr__(self, "loss", LossMatrix.from_rows(self.loss))
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        if self.sensitivity is None:
            d = loss_sensitivity(self.loss)
            if d <= 0:
                raise ValueError("loss: every column is constant, so Δ = 0; pass sensitivity explicitly")
            object.__setattr__(self, "sensitivity", Real(d))
        else:
            object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))

    def channel(self, backend: "str | Backend" = "ball", prior: Sequence[Any] | None = None) -> Channel:
        """The N×M matrix; exact entries are sympy expressions ``exp(...)/Σ exp(...)``."""
        be = get_backend(backend)
        c = self.epsilon / (self.sensitivity * 2)
        lam = self.loss.as_loss()
        # shift by the row minimum so the largest weight is exp(0) = 1 (no overflow); exact shift
        lows = [min(r) for r in lam]
        if be.is_float:
            cf = c.to_float()
            lf = np.array([[float(v - lo) for v in r] for r, lo in zip(lam, lows)])
            x = -cf * lf
            w = np.exp(x)
            p = w / w.sum(axis=1, keepdims=True)
            rho = U * (float(np.max(-x)) * 2 + 2)
            err = 1.01 * (2 * rho + (lf.shape[1] + 3) * U) * float(p.max())
            return Channel.from_rows(p, self.loss, prior, name="em", entry_abs_error=err)
        import sympy

        cs = c.to_sympy()
        weights = [[Real.of(sympy.exp(-cs * sympy.Rational((v - lo).numerator, (v - lo).denominator)))
                    for v in r] for r, lo in zip(lam, lows)]
        rows, be_name, err = normalise_rows(weights, be)
        return Channel.from_rows(rows, self.loss, prior, name="em", entry_abs_error=err, backend=be_name)

    def params(self) -> dict[str, Any]:
        return {"loss": self.loss.name, "epsilon": str(self.epsilon), "sensitivity": str(self.sensitivity)}
