"""Report noisy max: a checked coupling bound on its privacy level for every pair of neighbours.

Condition on the noises of the other candidates. Candidate r wins iff its noise exceeds

    x(q) = max_{s≠r} (q_s + b Z_s) - q_r,

so ``Pr[M(q) = r] = E[S_r(x(q))]`` with ``S_r`` the survival function of ``b Z_r`` and the same
expectation (the noise law does not depend on q) for a neighbour q'. Between neighbours x moves by
at most ``2Δ`` (ALL_DIFFER: the maximum and ``q_r`` each move by ≤ Δ) or ``Δ`` (monotone
neighbours: both move the same way; ONE_DIFFER: one of them moves), and ``log S_r`` is
``h/b``-Lipschitz with ``h`` the largest hazard rate of the standard noise
(:meth:`~dpexact.mechanisms.noise.NoiseFamily.hazard_max`, 1 for Laplace, exponential and Gumbel).
Pointwise in the other noises the ratio is therefore at most ``e^{shift·h/b}``, and so is the ratio
of expectations: for every n, every pair of neighbours and every output,

    log(Pr[M(q) = r] / Pr[M(q') = r]) <= shift · h / b.

With ``b = 2Δ/ε`` this is ε on ALL_DIFFER (pf Appendix F; Dwork & Roth 2014 Claim 3.9 for
Laplace); with ``monotone=True`` (``b = Δ/ε``) it is ε on monotone neighbours and 2ε on ALL_DIFFER,
which is the mechanism's true level there (the coupling proves nothing better, and the verifier's
search finds the violation).
"""

from __future__ import annotations

from typing import Any

from ...numbers.real import Real
from ...protocols import Mechanism

__all__ = ["noisy_max_bound", "extend_by_noisy_max"]

_SHIFT = {"all-differ": 2, "monotone": 1, "one-differ": 1}


def noisy_max_bound(mechanism: Mechanism, relation: str = "all-differ") -> Real | None:
    """``shift·h/b`` (module docstring) for report noisy max with a common noise scale, else None."""
    from ...mechanisms.report_noisy_max import ReportNoisyMax

    if not isinstance(mechanism, ReportNoisyMax) or mechanism.scales is not None:
        return None  # per-candidate scales (RNMH) move x by candidate-wise amounts: not covered here
    family = mechanism.family
    if relation not in _SHIFT:
        raise ValueError(f"relation must be one of {sorted(_SHIFT)}, got {relation!r}")
    b = Real.of(mechanism.noise_scale())
    return Real.of(mechanism.sensitivity) * _SHIFT[relation] * family.hazard_max() / b


def extend_by_noisy_max(v: Any, mechanism: Mechanism, relation: str) -> None:
    """Add to a private verdict what the noisy-max coupling proves beyond the searched scope."""
    bound = noisy_max_bound(mechanism, relation)
    if bound is not None and not bound > Real.of(mechanism.epsilon):
        v.scope.notes.append(f"beyond the searched scope: conditioning on the other candidates' noises proves "
                             f"log-ratio <= {bound} <= ε for EVERY pair of neighbours ({relation}), every output and every n")

