"""The level of report-noisy-max with integer noise, for every integer score vector.

A mechanism that states its law as noisy argmax of i.i.d. integer noise with uniform ties
(:class:`~dpexact.protocols.IntegerNoisyArgmax`, e.g. ``examples/geometric_noisy_max.py``) and
declares ``integer_scores`` is proved here on an ℓ∞ or monotone box of integer neighbours.

**The bound** (the shift-of-the-winner's-noise argument of Dwork & Roth 2014 Claim 3.9, pf Appendix F,
for integer noise and ties). Let ``f`` be the noise pmf and, for the output r and a fixed q,
``G_q(u)`` the probability that r is picked when ``Y_r = q_r + u`` (over the others' noise and the
tie-break). Then ``Pr[M(q) = r] = Σ_u f(u) G_q(u)``, and ``G`` depends on q only through the
differences ``q_s - q_r - u``, and is non-increasing in each: raising one other noisy score by 1
either changes nothing, or adds it to r's tie (1/k → 1/(k+1)), or puts it alone above r (→ 0).
For a neighbour ``q' = q + z`` every ``z_s - z_r <= k`` (k below), so ``G_{q'}(u) >= G_q(u - k)`` and

    Pr[M(q') = r] >= Σ_u f(u) G_q(u - k) = Σ_v f(v + k) G_q(v) >= e^{-ρ} Pr[M(q) = r],

with ``ρ = sup_v log f(v) - log f(v + k)``. For the two-sided geometric noise ``f(v) ∝ α^|v|``,
``α = e^{-rate}``: ``log f(v) - log f(v + k) = rate (|v + k| - |v|) <= rate · k``, with equality for
``v >= 0``, so ``ρ = rate · k`` exactly. The level is ``rate · k`` for every n and every integer score
vector, and it is tight for n >= 2: with r lowest and the others ``g`` above it, the ratio tends to
``e^{rate·k}`` as ``g → ∞`` (the router's level search certifies finite witnesses below it).

**k on the integer lattice**: q and q' are both integer vectors, so ``|z_a| <= ⌊Δ_a⌋``:
``k = ⌊Δ_(1)⌋ + ⌊Δ_(2)⌋`` on an ℓ∞ box (the two largest radii; ``2⌊Δ⌋`` on a uniform one) and
``k = ⌊Δ'⌋`` on a monotone box (every z_a of one sign).

**What the proof reads**: the stated noise (``integer_noise()``), not the pmf's code. The statement is
screened against the mechanism's own pmf first (:mod:`..decide.noisy_argmax_law`: an independent
evaluation of the stated law at integer vectors of length n); a disagreement anywhere there and the
unit proves nothing. The domain says that the proof covers the law as stated (``law``), the way
the density-ratio proof covers a law stated as Laplace pieces.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...numbers.real import Real
from ...protocols import (INTEGER_NOISE_FAMILIES, AnyMechanism, IntegerNoisyArgmax, Neighbourhood,
                          mechanism_properties)
from ..bracket import Proof
from ..neighbourhoods import LInfBox, MonotoneBox

__all__ = ["LatticeNoisyMax", "lattice_shift"]

THEOREM = ("noisy argmax with i.i.d. integer noise, uniform ties: shift of the winner's noise (Dwork & Roth 2014 "
           "Claim 3.9; pf Appendix F), level = sup_v log f(v)/f(v+k) = rate·k for two-sided geometric noise")


def lattice_shift(nb: Neighbourhood, n: int) -> int | None:
    """The largest ``z_s - z_r`` over integer neighbours ``q' = q + z`` (module docstring); None for a
    relation the proof is not about."""
    if isinstance(nb, MonotoneBox):
        return math.floor(Fraction(nb.sensitivity))
    if isinstance(nb, LInfBox):
        if nb.sensitivities is not None and len(nb.sensitivities) != n:
            return None
        radii = sorted((math.floor(Fraction(d)) for d in nb.deltas(n)), reverse=True)
        return radii[0] + (radii[1] if len(radii) > 1 else 0)
    return None


class LatticeNoisyMax:
    """Proof unit: the level of a law stated as integer noisy max (module docstring)."""

    name = "integer noisy max (lattice)"

    def __init__(self) -> None:
        self._screens: dict[tuple[int, int], Any] = {}

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> bool:
        return (isinstance(relation, (LInfBox, MonotoneBox)) and isinstance(mechanism, IntegerNoisyArgmax)
                and n is not None and n >= 1 and bool(mechanism_properties(mechanism).integer_scores)
                and mechanism.integer_noise().family in INTEGER_NOISE_FAMILIES)

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> None:
        """None: the level is a supremum at infinity; the router's level search certifies finite witnesses."""
        return None

    def screen(self, mechanism: IntegerNoisyArgmax, n: int) -> Any:
        """The screen of the stated law against the pmf, once per mechanism and n."""
        from ..decide.noisy_argmax_law import screen_stated_law

        key = (id(mechanism), n)
        if key not in self._screens:  # (the mechanism is kept with its result: an id is never reused meanwhile)
            self._screens[key] = (mechanism, screen_stated_law(mechanism, n))
        return self._screens[key][1]

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Proof | None:
        if not self.supports(mechanism, n, relation):
            return None
        k = lattice_shift(relation, n)
        noise = mechanism.integer_noise()
        rate = Real.of(noise.rate, "integer_noise().rate")
        if k is None or rate.sign() <= 0:
            return None
        screen = self.screen(mechanism, n)
        if not screen.agrees:
            return None
        level = rate * k
        return Proof(upper_float=_up(level), method="theorem", upper=str(level), theorem=THEOREM,
                     domain={"n": n, "epsilon": str(Real.of(mechanism.epsilon)),
                             "neighbourhood": f"{relation.describe()}, integer neighbours", "scores": "Z^n",
                             "law": f"noisy argmax of i.i.d. {noise.family} noise (rate {rate}), uniform ties, "
                                    f"as stated by integer_noise() (screened against the pmf at {screen.vectors} "
                                    f"integer vectors)"},
                     details={"unit": self.name, "tight": n >= 2 and k > 0, "shift": k, "rate": str(rate)})


def _up(x: Real) -> float:
    """A float >= the exact real x."""
    f = x.to_float()
    return f if Real.of(f) >= x else math.nextafter(f, math.inf)
