"""Theorems that bound the privacy level of the registered selection mechanisms for every n.

Each unit checks its side conditions on the mechanism object and the neighbourhood before it
states anything: the mechanism must be *exactly* the registered class (``type(m) is C``: a
subclass may change the law) with the parameters the theorem covers, and the neighbourhood
must be one the theorem is about. The level is then an exact expression (a :class:`Real`) and
the :class:`~.bracket.Proof` cites the theorem and states its domain (every n, the mechanism's
ε, the neighbourhood, scores in R^n).

=====================  ==================================================  ===========================
unit                   level proved (every n, every pair, every output)    theorem
=====================  ==================================================  ===========================
exponential mechanism  box Δ_a: ``c (Δ_(1) + Δ_(2))`` (two largest Δ_a);   pf Def. 4; McSherry &
(``em``, any base      monotone box Δ': ``c Δ'``; ``c = ε/2Δ`` (``ε/Δ``     Talwar 2007 Thm 6
measure)               monotone); tight for n >= 2 (gap → ∞)
permute-and-flip       ``2cΔ'`` on a box of radius Δ', ``cΔ'`` on a        pf Theorem 1, Remark 1;
(``pf``,               monotone box: the law depends on q through c·q      hetsel eq. 3
``rnm-global``)        only, so it is PF at ε' = 2cΔ' (rnm-global: PF at
                       Δ = max Δ_a); tight on a uniform box
report noisy max       ``shift · h / b`` (:mod:`.noisy_max_coupling`):      pf Appendix F; Dwork &
(``rnm-exp``,          shift ``Δ_(1)+Δ_(2)`` on a box, ``Δ'`` on a         Roth 2014 Claim 3.9
``rnm-gumbel``,        monotone box; ``h`` the noise's largest hazard rate
``rnm-laplace``)
generalized RR         ``ε`` for every relation: every output probability  brr §2.4 eq. (6)
(``grr``)              lies in ``[1, e^ε] / (e^ε + n - 1)``
GEM / mGEM             ``ε``: the transformed scores q' have sensitivity   Raskhodnikova & Smith
(``gem``, ``mgem``,    <= 1 on the box Δ_a (hetsel eqs. 6-7), then PF /    2015; hetsel §IV-C/D,
``combined-gem``)      EM with Δ = 1 on q' (pf Thm 1 / Def. 4); combined:  Alg. 2
                       2RR (ε_c) then GEM / mGEM (ε - ε_c), composed
random stopping        ``(2+η) ε / k`` (η = 1 geometric; k the noise       Liu & Talwar 2019;
(``rs-gamma``,         factor): one draw is (ε/k)-DP on the box Δ_a        Papernot & Steinke 2022
``rs-gamma-tnb``)                                                          Cor. 3; hetsel Alg. 1
=====================  ==================================================  ===========================

GEM and random stopping are upper bounds, not known to be tight (``tight=False``).

Why the EM level (a two-line proof, checked here only through its side conditions): with
``w_s = e^{c q_s}``, ``a = c (q_r - q'_r)`` and ``z = q' - q``,

    P(q)_r / P(q')_r = (w_r + e^a Σ_{s≠r} w_s e^{c z_s}) / (w_r + Σ_{s≠r} w_s)
                     <= max(1, e^{a + c max_{s≠r} z_s}),

so ``<= e^{c (Δ_r + max_{s≠r} Δ_s)}`` on a box, and on a monotone box (all z_s of one sign, in
``[0, Δ']`` or ``[-Δ', 0]``) ``a + c z_s <= c Δ'``. Both are approached as ``w_r / Σ w_s → 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ...numbers.real import Real
from ...protocols import AnyMechanism, Mechanism, Neighbourhood, SameLaw
from ..bracket import Proof
from ..neighbourhoods import LInfBox, MonotoneBox

__all__ = ["TheoremProof", "THEOREMS", "theorem_proof", "literature_level"]


def _box_shift(nb: Neighbourhood, n: int | None) -> Real | None:
    """``Δ_(1) + Δ_(2)`` of an ℓ∞ box (2Δ' when uniform); None for any other relation."""
    if not isinstance(nb, LInfBox):
        return None
    if nb.sensitivities is None:
        return Real.of(nb.sensitivity * 2)
    if n is not None and len(nb.sensitivities) != n:
        return None
    top = sorted(nb.sensitivities, reverse=True)
    return Real.of(top[0] + (top[1] if len(top) > 1 else 0))


def _monotone_radius(nb: Neighbourhood) -> Real | None:
    return Real.of(nb.sensitivity) if isinstance(nb, MonotoneBox) else None


def _domain(mechanism: AnyMechanism, nb: Neighbourhood, n: Any) -> dict[str, Any]:
    return {"n": n, "epsilon": str(Real.of(mechanism.epsilon)), "neighbourhood": nb.describe(), "scores": "R^n"}


def _n_of(nb: Neighbourhood) -> Any:
    """"every" for a relation that does not fix n, else the n a candidate-wise box is tied to."""
    if isinstance(nb, LInfBox) and nb.sensitivities is not None:
        return len(nb.sensitivities)
    return "every"


@dataclass(frozen=True)
class TheoremProof:
    """One theorem as a proof unit: ``level(mechanism, n, nb)`` is the proved level or None when
    a side condition fails (then ``supports`` is False)."""

    name: str
    theorem: str
    level: Callable[[Any, int | None, Any], Real | None]
    tight: bool

    def law_level(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Real | None:
        """The level of the mechanism's law; a mechanism that declares it runs another's law
        (:class:`~dpexact.protocols.SameLaw`) is taken through that law."""
        if isinstance(mechanism, SameLaw):
            mechanism = mechanism.law_mechanism
        return self.level(mechanism, n, relation)

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> bool:
        """A theorem is stated on a score neighbourhood object, never on a query relation name."""
        return isinstance(relation, Neighbourhood) and self.law_level(mechanism, n, relation) is not None

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> None:
        """None: a theorem constructs no witness (the router's level search certifies one)."""
        return None

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: Neighbourhood | str | None) -> Proof | None:
        lv = self.law_level(mechanism, n, relation)
        if lv is None:
            return None
        law = mechanism.law_mechanism if isinstance(mechanism, SameLaw) else mechanism
        return Proof(upper_float=_up(lv), method="theorem", domain=_domain(law, relation, _n_of(relation)),
                     upper=str(lv), theorem=self.theorem,
                     details={"unit": self.name, "tight": self.tight,
                              "side_conditions": "mechanism is the registered class; neighbourhood as stated"})


def _up(x: Real) -> float:
    """A float >= the exact real x."""
    import math

    f = x.to_float()
    return f if Real.of(f) >= x else math.nextafter(f, math.inf)


# ---- the theorems ------------------------------------------------------------------------------


def _em_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    from ...mechanisms.exponential import ExponentialMechanism

    if type(m) is not ExponentialMechanism:
        return None
    c = m.exponent_scale
    shift = _box_shift(nb, n)
    if shift is not None:
        return c * shift
    rad = _monotone_radius(nb)
    return None if rad is None else c * rad


def _pf_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    import sys

    from ...mechanisms.permute_and_flip import PermuteAndFlip

    # an RNMGlobal exists only once its module is imported: PF alone never pays for the hetsel package
    rnmh = sys.modules.get("dpexact.mechanisms.heterogeneous.rnmh")
    if rnmh is not None and type(m) is rnmh.RNMGlobal:
        k = len(nb.sensitivities) if isinstance(nb, LInfBox) and nb.sensitivities is not None else n
        if k is None or (m.sensitivities is not None and len(m.sensitivities) != k):
            return None
        c = Real.of(m.epsilon) / (m.global_sensitivity(k) * 2)  # PF's law at the global Δ (hetsel eq. 3)
    elif type(m) is PermuteAndFlip:
        c = m.exponent_scale
    else:
        return None
    # PF's law depends on q only through c·q: it is PF with ε' = 2cΔ' on the box of radius Δ'
    # (pf Theorem 1, tight) and PF monotone with ε' = cΔ' on the monotone box (pf Remark 1)
    if isinstance(nb, MonotoneBox):
        return c * Real.of(nb.sensitivity)
    if isinstance(nb, LInfBox):
        radius = nb.sensitivity if nb.sensitivities is None else max(nb.sensitivities)  # the box inside the uniform one
        return c * 2 * Real.of(radius)
    return None


def _rnm_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    from ...mechanisms.report_noisy_max import RNMExponential, RNMGumbel, RNMLaplace

    if type(m) not in (RNMExponential, RNMGumbel, RNMLaplace) or m.scales is not None:
        return None
    shift = _box_shift(nb, n)
    if shift is None:
        shift = _monotone_radius(nb)
    if shift is None:
        return None
    return shift * m.family.hazard_max() / Real.of(m.noise_scale())


def _grr_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    from ...mechanisms.randomized_response import TIE_BREAKS, GeneralizedRandomizedResponse

    if type(m) is not GeneralizedRandomizedResponse or m.tie_break not in TIE_BREAKS:
        return None
    return Real.of(m.epsilon)


def _gem_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    from ...mechanisms.heterogeneous.combined_gem import CombinedGEM
    from ...mechanisms.heterogeneous.gem import GEM, ModifiedGEM

    if type(m) not in (GEM, ModifiedGEM, CombinedGEM) or m.selector not in ("rnm", "em") or not isinstance(nb, LInfBox):
        return None
    # combined GEM (hetsel Alg. 2): 2RR on one bit (ε_c-DP whatever the bit) then GEM / mGEM with
    # ε_g = ε - ε_c, composed: ε_c + ε_g = ε (the output r is post-processing of both)
    k = len(nb.sensitivities) if nb.sensitivities is not None else n
    if k is None:
        return None
    if m.sensitivities is not None and len(m.sensitivities) != k:
        return None
    own = m.candidate_sensitivities(k)
    nbd = (nb.sensitivity,) * k if nb.sensitivities is None else nb.sensitivities
    # q' has sensitivity <= 1 only when every |q'_a - q_a| <= Δ_a of the mechanism
    return Real.of(m.epsilon) if all(Real.of(d) <= s for d, s in zip(nbd, own)) else None


def _rs_level(m: Mechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    from ...mechanisms.heterogeneous.rs_gamma import RandomStoppingGeometric, RandomStoppingTNB

    if type(m) not in (RandomStoppingGeometric, RandomStoppingTNB) or not isinstance(nb, LInfBox):
        return None
    k = len(nb.sensitivities) if nb.sensitivities is not None else n
    if k is None or (m.sensitivities is not None and len(m.sensitivities) != k):
        return None
    own = m.candidate_sensitivities(k)
    nbd = (nb.sensitivity,) * k if nb.sensitivities is None else nb.sensitivities
    if not all(Real.of(d) <= s for d, s in zip(nbd, own)):
        return None
    eta = Real.of(1) if type(m) is RandomStoppingGeometric else Real.of(m.eta)
    # one draw (uniform candidate a, q_a + Lap(k Δ_a / ε)) is (ε/k)-DP on the box Δ_a
    return (eta + 2) * Real.of(m.epsilon) / Real.of(m.noise)


THEOREMS: tuple[TheoremProof, ...] = (
    TheoremProof("exponential-mechanism", "McSherry & Talwar 2007 Thm 6; pf Definition 4 (c = ε/2Δ, ε/Δ monotone)",
                 _em_level, True),
    TheoremProof("permute-and-flip", "pf Theorem 1 (monotone: pf Remark 1); rnm-global = PF at Δ = max Δ_a "
                 "(hetsel eq. 3; Ding et al. 2021)", _pf_level, True),
    TheoremProof("report-noisy-max", "noisy-max coupling: pf Appendix F; Dwork & Roth 2014 Claim 3.9 (hazard rate h)",
                 _rnm_level, True),
    TheoremProof("generalized-rr", "brr §2.4 eq. (6); hetsel §III-B (every output probability in [1, e^ε]/(e^ε+n-1))",
                 _grr_level, True),
    TheoremProof("gem", "Raskhodnikova & Smith 2015 (q' has sensitivity <= 1); hetsel eqs. (6)-(7); pf Theorem 1 / Def. 4; "
                 "combined GEM: hetsel Alg. 2, sequential composition of 2RR (ε_c) and GEM / mGEM (ε - ε_c)",
                 _gem_level, False),
    TheoremProof("random-stopping", "random stopping of an ε₀-DP base (uniform candidate, Lap(kΔ_a/ε): ε₀ = ε/k) is "
                 "(2+η)ε₀-DP: Liu & Talwar 2019 (geometric, η = 1); Papernot & Steinke 2022 Cor. 3; hetsel Alg. 1, "
                 "App. C", _rs_level, False),
)


def theorem_proof(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood) -> Proof | None:
    """The first theorem whose side conditions hold, as a :class:`Proof`; None when none applies.

    A mechanism that declares it runs another's law (:class:`~dpexact.protocols.SameLaw`) is
    proved through that law (its domain states the law's ε)."""
    for t in THEOREMS:
        p = t.prove(mechanism, n, nb)
        if p is not None:
            return p
    return None


def literature_level(mechanism: AnyMechanism, n: int | None, nb: Neighbourhood) -> Real | None:
    """The exact level a *tight* theorem gives (None when no tight theorem applies)."""
    for t in THEOREMS:
        if t.tight:
            lv = t.law_level(mechanism, n, nb)
            if lv is not None:
                return lv
    return None
