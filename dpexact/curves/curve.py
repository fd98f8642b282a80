"""Mechanism-specific privacy curves, certified over every pair of neighbouring inputs.

:func:`privacy_curve` returns a :class:`PrivacyCurve` whose ends are certified:

* **upper** — the supremum over a family of pairs that dominates every neighbouring pair of the
  mechanism (:mod:`.families`: a theorem per mechanism), bounded by branch-and-bound
  (:mod:`.supremum`); valid for every score vector at the given n.
* **lower** — the value at a member that is a pair of neighbouring inputs (or a limit of such
  pairs), evaluated in arb at an exact parameter: the mechanism's curve is at least this.

Supported (``name``, what n means, whether the ends meet):

=============== ====================================== ==========================================
em, rnm-gumbel  candidates n >= 2 — same curve for all n tight (bounded range, attained at every n)
pf, rnm-exp     candidates n >= 2                      tight at n = 2; n >= 3: lower = the n = 2
                                                       curve (limit), upper = ε-RR (pure ε-DP only)
grr             k = n (or ``k``)                       tight (one pair)
rappor          (no n)                                 tight (one pair)
laplace         (no n)                                 tight (closed form)
=============== ====================================== ==========================================

The report-noisy-max variants are equal in law: RNM with exponential noise is PF (Ding et al.
2021), with Gumbel noise EM (the Gumbel-max trick). Laplace-noise RNM and the sparse-vector
family have no dominating family here yet and are refused.

Composition: :meth:`PrivacyCurve.compose_epsilon` (certified, via the additive composition of
the certified Rényi curve: Mironov 2017 Prop. 1; conversion of Canonne, Kamath & Steinke 2020,
Prop. 12) — a stand-in for a certified PLD accountant, which would take
:meth:`PrivacyCurve.dominating_pld` (the same object that :meth:`to_dp_accounting` exports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ..numbers.backends import ball_context
from ..numbers.real import Real
from . import families as F
from . import supremum as S
from .pf_s_certified import CERTIFIED as _PF_S
from .point import CurvePoint

__all__ = ["CURVE_MECHANISMS", "CurvePoint", "PrivacyCurve", "privacy_curve"]

CURVE_MECHANISMS = ("em", "rnm-gumbel", "pf", "rnm-exp", "grr", "rappor", "laplace")
MAX_GRR_K = 10_000
MAX_EPSILON = 50.0
#: points per curve request (each is a certified branch-and-bound)
MAX_POINTS = 200


@dataclass(frozen=True)
class PrivacyCurve:
    """Certified privacy curves of one mechanism at one ε and n (see the module docstring).

    Attributes:
        mechanism, epsilon (text), n: the request.
        upper_families: families whose supremum bounds every neighbouring pair.
        lower_families: families whose members are (limits of) neighbouring pairs.
        tight: the two lists are the same (the curves are exact up to the bracket width).
        scope: what the upper end covers, in words.
    """

    mechanism: str
    epsilon: str
    n: Optional[int]
    upper_families: tuple
    lower_families: tuple
    tight: bool
    scope: str
    today: Optional[str]

    # -- curves -----------------------------------------------------------------------------------

    def _two(self, fn: Any) -> tuple[S.Bracket, S.Bracket]:
        up_b = fn(list(self.upper_families))
        lo_b = up_b if self.tight else fn(list(self.lower_families))
        if not self.tight and self.n is not None and self.n > 2 and lo_b.witness.get("g") is not None:
            lo_b.witness["inputs_at_n"] = _pf_pair_at_n(lo_b.witness, self.n, Real.of(self.epsilon).to_float())
        return lo_b, up_b

    def delta(self, eps_primes: Sequence[Any], tol: float = 1e-12) -> list[CurvePoint]:
        """Certified δ(ε') = sup over neighbours of the hockey-stick divergence, ε' >= 0."""
        out = []
        lmax = max(f.loss_max for f in self.upper_families)
        for e in _points(eps_primes, "epsilon", lambda r: r.sign() >= 0, ">= 0"):
            if Real.of(e).to_float() >= lmax and Real.of(e).to_arb(S.PREC) >= lmax:
                # every privacy loss is <= loss_max <= ε', so every term (e^L − e^{ε'})₊ is 0: δ = 0 exactly
                out.append(CurvePoint(Real.of(e).to_float(), str(Real.of(e)), 0.0, 0.0, {"exact": "0 (every loss <= ε')"}))
                continue
            lo, up = self._two(lambda fams: S.delta_bracket(fams, e, tol))
            out.append(CurvePoint(Real.of(e).to_float(), str(Real.of(e)), max(lo.lower, 0.0), min(up.upper, 1.0), lo.witness))
        return out

    def renyi(self, alphas: Sequence[Any], tol: float = 1e-10) -> list[CurvePoint]:
        """Certified Rényi divergences sup D_α over neighbours (both directions), α > 1."""
        out = []
        for a in _points(alphas, "alpha", lambda r: (r.to_arb(64) > 1), "> 1"):
            lo, up = self._two(lambda fams: S.renyi_bracket(fams, a, tol))
            out.append(CurvePoint(Real.of(a).to_float(), str(Real.of(a)), max(lo.lower, 0.0), up.upper, lo.witness))
        return out

    def zcdp(self, tol: float = 1e-9) -> CurvePoint:
        """Certified tight zCDP ρ = sup_{α>1} D_α/α over neighbours (KL limit included)."""
        lo, up = self._two(lambda fams: S.rho_bracket(fams, tol))
        return CurvePoint(math.nan, "rho", max(lo.lower, 0.0), up.upper, lo.witness)

    def kl(self, tol: float = 1e-12) -> CurvePoint:
        """Certified sup KL over neighbours (the α → 1 limit of D_α)."""
        lo, up = self._two(lambda fams: S.kl_bracket(fams, tol))
        return CurvePoint(1.0, "1", max(lo.lower, 0.0), up.upper, lo.witness)

    # -- what an accountant uses today ------------------------------------------------------------

    def today_delta(self, eps_primes: Sequence[float]) -> Optional[list[float]]:
        """δ(ε') of the curve accountants use today: ε-RR for EM, Laplace(1/ε) for PF (floats)."""
        e = Real.of(self.epsilon).to_float()
        if self.mechanism in ("em", "rnm-gumbel"):
            # binary ε-RR: δ(ε') = (e^ε − e^{ε'})/(1 + e^ε) for ε' < ε
            return [max(0.0, (math.exp(e) - math.exp(x)) / (1 + math.exp(e))) for x in eps_primes]
        if self.mechanism in ("pf", "rnm-exp"):
            return [0.0 if x >= e else -math.expm1((x - e) / 2) for x in eps_primes]
        return None

    def today_rho(self) -> Optional[float]:
        """ρ accountants use today: ε²/8 for EM (Cesar & Rogers 2021), ε²/2 for pure ε-DP (Bun & Steinke)."""
        e = Real.of(self.epsilon).to_float()
        if self.mechanism in ("em", "rnm-gumbel"):
            return e * e / 8
        if self.mechanism in ("pf", "rnm-exp"):
            return e * e / 2
        return None

    # -- composition and export -------------------------------------------------------------------

    def compose_epsilon(self, compositions: int, delta: float, alphas: Optional[Sequence[Any]] = None) -> CurvePoint:
        """Certified upper bound on ε(δ) after ``compositions`` adaptive uses (Rényi route).

        ε <= min_α [k·D_α + log((α − 1)/α) − (log δ + log α)/(α − 1)] (Canonne, Kamath &
        Steinke 2020, Proposition 12), with D_α the certified upper end of :meth:`renyi`;
        Rényi DP composes additively under adaptivity (Mironov 2017, Proposition 1).
        """
        from .compose import rdp_epsilon

        return rdp_epsilon(self, compositions, delta, alphas)

    def dominating_pld(self, interval: float = 1e-3):
        """A discrete pessimistic PLD dominating every neighbouring pair (:mod:`.export`)."""
        from .export import dominating_pld

        return dominating_pld(self, interval)

    def to_dp_accounting(self, interval: float = 1e-3):
        """dp_accounting ``PrivacyLossDistribution`` (pessimistic; :mod:`.export`)."""
        from .export import to_dp_accounting

        return to_dp_accounting(self, interval)

    def to_opendp(self, alphas: Optional[Sequence[Any]] = None):
        """OpenDP user measurement whose privacy map is the certified Rényi curve (:mod:`.export`)."""
        from .export import to_opendp

        return to_opendp(self, alphas)


def pf_s_entry(eps_text: str) -> Optional[dict]:
    """The certificate entry of statement S at ε (exact text), or None: PF at n >= 3 then keeps [n = 2, ε-RR]."""
    return _PF_S.get(eps_text)


def _pf_pair_at_n(w: dict, n: int, eps: float) -> dict:
    """A finite pair at n for PF's n = 2 witness: the other n − 2 scores at −120Δ/ε in both inputs.

    Their acceptance probabilities are e^{−60} (c = ε/2Δ), so the pair's value is the limit's up to
    O(n e^{−60}); benchmarks/curves_pf_rho.py certifies it with dpexact's PF law in ball arithmetic.
    """
    rest = [-120.0 / eps] * (n - 2)
    a, b = [w["g"], 0.0] + rest, [w["g"] + 1.0, -1.0] + rest
    first, second = (b, a) if w.get("direction") == "Q||P" else (a, b)
    return {"first_scores": first, "second_scores": second, "divergence": "D(PF(first) || PF(second))",
            "units": "Δ (scores), the other scores at −120Δ/ε"}


def _points(values: Sequence[Any], name: str, ok: Any, what: str) -> list[Any]:
    vals = list(values)
    if not vals:
        raise ValueError(f"{name}: give at least one value")
    if len(vals) > MAX_POINTS:
        raise ValueError(f"{name}: at most {MAX_POINTS} values, got {len(vals)}")
    out = []
    for v in vals:
        r = Real.of(v, name)
        if not ok(r):
            raise ValueError(f"{name} must be {what}, got {v}")
        if r.to_float() > 1e6:
            raise ValueError(f"{name} must be <= 1e6, got {v}")
        out.append(r)
    return out


def privacy_curve(mechanism: str, epsilon: Any, n: Optional[int] = None, k: Optional[int] = None) -> PrivacyCurve:
    """The certified curves of ``mechanism`` at ``epsilon`` (its pure-DP parameter) and ``n`` candidates.

    Args:
        mechanism: one of :data:`CURVE_MECHANISMS`.
        epsilon: ε > 0 (exact text or number; ``log(2)`` accepted).
        n: candidates (em, pf, rnm-*; and grr's k when ``k`` is not given).
        k: domain size of grr.

    Returns:
        A :class:`PrivacyCurve`: δ(ε'), Rényi D_α and zCDP ρ as certified [lower, upper] intervals over every
        neighbouring input, with the witness pair of the lower end and the exports to dp_accounting / OpenDP.

    Raises:
        ValueError: unsupported mechanism, or an argument out of range / not applicable.
    """
    if mechanism not in CURVE_MECHANISMS:
        raise ValueError(f"mechanism: no certified curve for {mechanism!r}; supported: {', '.join(CURVE_MECHANISMS)} "
                         "(rnm-laplace and the sparse-vector family have no proved dominating pair here)")
    r = Real.of(epsilon, "epsilon")
    if not r.sign() > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}")
    ef = r.to_float()
    if ef > MAX_EPSILON:
        raise ValueError(f"epsilon must be <= {MAX_EPSILON}, got {epsilon}")
    with ball_context(S.PREC):
        ea = r.to_arb(S.PREC)
    if mechanism in ("rappor", "laplace"):
        if n is not None or k is not None:
            raise ValueError(f"--n / k: {mechanism} has no number of candidates")
        fam: Any = F.LaplaceFamily(ea, ef) if mechanism == "laplace" else F.rappor_family(ea, ef)
        return PrivacyCurve(mechanism, str(r), None, (fam,), (fam,), True, fam.theorem, None)
    if mechanism == "grr":
        if k is not None and n is not None and k != n:
            raise ValueError(f"k: grr's k={k} and --n {n} disagree (give one)")
        kk = k if k is not None else n
        if kk is None:
            raise ValueError("k: grr needs k (-p k=K) or --n")
        if not 2 <= kk <= MAX_GRR_K:
            raise ValueError(f"k must be in [2, {MAX_GRR_K}], got {kk}")
        fam = F.grr_family(ea, ef, kk)
        return PrivacyCurve(mechanism, str(r), kk, (fam,), (fam,), True, fam.theorem, None)
    if k is not None:
        raise ValueError(f"k: only grr takes k, not {mechanism}")
    if n is None:
        raise ValueError(f"--n: {mechanism} needs the number of candidates n")
    if not 2 <= n <= 10**9:
        raise ValueError(f"--n must be in [2, 1e9], got {n}")
    if mechanism in ("em", "rnm-gumbel"):
        fam = F.em_family(ea, ef)
        return PrivacyCurve(mechanism, str(r), n, (fam,), (fam,), True,
                            "every score vector and every n >= 2 (bounded range; " + fam.theorem + ")", "eps-RR; zCDP eps^2/8")
    pieces = tuple(F.pf2_pieces(ea, ef))
    if n == 2:
        return PrivacyCurve(mechanism, str(r), n, pieces, pieces, True,
                            "every pair of scores at n = 2 (the law depends on the gap only)", "Laplace(1/eps)")
    cert = pf_s_entry(str(r))
    if cert is not None:
        with ball_context(S.PREC):
            kap = (-ea).exp()
            x1, x2 = (kap + (1 - kap) * cert["u"][0], kap + (1 - kap) * cert["u"][1])
            ends = tuple(F.pf_end_pieces(ea, ef, x1, x2))
        return PrivacyCurve(mechanism, str(r), n, pieces + ends, pieces, False,
                            f"every score vector at every n (statement S certified at this ε on x in "
                            f"[κ + (1 − κ){cert['u'][0]}, κ + (1 − κ){cert['u'][1]}], "
                            f"{', '.join(p['file'] for p in cert['parts'])}; "
                            "docs/curves.md): the n = 2 family and two frontier-end families; lower end: the n = 2 "
                            "curve, approached at n by sending the other scores to −∞", "Laplace(1/eps)")
    return PrivacyCurve(mechanism, str(r), n, (F.rr_family(ea, ef),), pieces, False,
                        "upper end: pure ε-DP only (ε-RR dominates every ε-DP pair); lower end: the n = 2 curve, "
                        "approached at n by sending the other scores to −∞", "Laplace(1/eps)")
