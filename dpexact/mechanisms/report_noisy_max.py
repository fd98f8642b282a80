"""Report noisy max (RNM) with exponential, Gumbel or Laplace noise (pf Appendix F).

Definition (executed literally by :meth:`ReportNoisyMax.rvs`): add independent noise
``z_r = b_r Z_r`` to every score and return ``argmax_r (q_r + z_r)`` (ties have probability 0).
Noise scale: ``b = 2Δ/ε`` (pf Appendix F: ``Lap(2Δ/ε)``; hetsel eq. (3): ``Exp(ε/2Δ)``, i.e.
mean ``2Δ/ε``), ``b = Δ/ε`` with ``monotone=True`` (pf Remark 1), or an explicit per-candidate
vector ``scales`` (RNMH, hetsel eq. (4): ``b_a = 2Δ_a/ε``; *not* ε-DP in general, hetsel §IV-A).

pmf (pf Appendix F, written per candidate so that heterogeneous scales are covered):

    Pr[M(q) = r] = ∫ f_r(x) ∏_{s≠r} F_s(q_r - q_s + x) dx,

``f_r(x) = f(x/b_r)/b_r``, ``F_s(x) = F(x/b_s)``, with ``f, F`` the standard density and cdf
(:mod:`dpexact.mechanisms.noise`). Known identities, used only as *tests*: exponential noise
gives permute-and-flip (Ding et al. 2021, cited in hetsel), Gumbel noise gives the exponential
mechanism (Gumbel-max trick), both with ``c = 1/b``.

Backends (method ``"quadrature"``; cost O(n²) integrand terms per candidate, hence the limits
``FLOAT_LIMIT``, ``MP_LIMIT`` and ``SCALAR_LIMIT`` (ball) on ``len(scores)``):

* ``float`` — :func:`scipy.integrate.quad_vec` on the noisy value ``y``, integrand
  ``(f_r/F_r)(y - q_r) · ∏_s F_s(y - q_s)`` in logs (stable), split at the kinks ``y = q_s``;
  candidate ``r`` is integrated over its cluster of noise windows (mass ``1 - 2e^{-45}``) in
  a local coordinate (:mod:`.windows`), so noise scales far below or far above the score
  spacing are resolved. ``abs_error`` = quad_vec's error estimate + tails + a rounding
  estimate: ``error_kind="estimate"``.
* ``mp`` — :func:`mpmath.quad` per candidate on ``[x_lo, x_hi]`` (tails of mass ~10^-(dps+5)
  cut off, half of them added back), split at the kinks ``x = q_s - q_r``;
  ``error_kind="estimate"`` (mpmath's estimate + tails + 10^(3-dps)).
* ``ball`` — rigorous: python-flint ``acb.integral`` on ``[x_lo, x_hi]`` cut at the kinks, each
  piece integrating the *entire* branch of every factor; the tails outside ``[x_lo, x_hi]`` are
  bounded by ``1 - F_r(x_hi/b_r)`` and ``min_s F_s((x_lo - d_s)/b_s)`` (``d_s = q_s - q_r``; the
  integrand is ``<= f_r`` and ``<= f_r·F_s(..)``) and added as ``[0, T]``; when a kink ``d_s``
  is not exactly representable the piece boundary sits at its midpoint and the sliver of width
  ``ρ_s = rad(d_s)`` where the wrong branch is used is bounded by ``6 ρ_s sup f / b_r``
  (both branches of each factor lie in [-1, 1] and ``f`` within ``2 sup f`` there, for
  ``ρ_s <= b_s/2``). Absolute accuracy ≈ 2^-prec.
* ``exact`` — exponential noise only (method ``"integral"``): the integral above evaluated in
  closed form, term by term (:mod:`.rnm_exponential_exact`); Gumbel and Laplace noise have no
  known closed form (pf Appendix F) and raise ``ValueError`` (use ``ball``).
* exponential noise, method ``"closed-form"`` (the default where it applies): the same closed form
  evaluated in ball arithmetic at rising precision (its terms have both signs) — on ``ball`` for
  rational scores and scales with at most ``CLOSED_FORM_BALL_N`` scores and ``BALL_TERMS`` terms, and
  on ``float`` (float scores are dyadic rationals) for at most ``CLOSED_FORM_FLOAT_N`` scores and
  ``FLOAT_TERMS`` terms, the
  midpoints with the radius as a rigorous bound; otherwise the quadratures above.

Citations: pf Appendix F (definition, integral, (c, c, 0) example, Figure 4);
hetsel eq. (3)-(4) (exponential noise, RNMH); pf Remark 1 (monotone).
"""

from __future__ import annotations

from collections.abc import Iterable
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import Backend
from ..numbers.pmf import Pmf, pmf_from_numbers
from ..numbers.real import Real
from ..protocols import MechanismProperties
from .base import SelectionMechanism, _check_method, noisy_max_shift
from .noise import NoiseFamily, noise_family
from .rnm_exponential_exact import rnm_exponential_ball, rnm_exponential_exact
from .validation import check_size, positive_real
from .windows import FloatReach, clusters

__all__ = ["ReportNoisyMax", "RNMExponential", "RNMGumbel", "RNMLaplace", "FLOAT_LIMIT", "SCALAR_LIMIT", "MP_LIMIT"]

#: largest ``len(scores)`` for the float quadrature (O(n) per node, ~n pieces)
FLOAT_LIMIT = 2000
#: exponential noise: the ball closed form replaces the quadratures up to these many scores (measured
#: crossover on a 2-core machine: 0.6 vs 6 ms at n = 4, 3 vs 6 ms (float) and 13 vs 19 ms (ball) at n = 6 / 8)
CLOSED_FORM_FLOAT_N, CLOSED_FORM_BALL_N, FLOAT_TERMS = 6, 8, 512
#: largest ``len(scores)`` for ball (n integrals of ~n pieces, O(n) per evaluation); measured on this
#: project's 2-core machine, worst family (Laplace): n = 32 takes 4.1 s, seconds ≈ a·n^k
SCALAR_LIMIT, SCALAR_COST = 48, (3.6e-3, 2.04)
#: largest ``len(scores)`` for mp (tanh-sinh at 50 digits; worst family Gumbel: n = 8 takes 9.8 s)
MP_LIMIT, MP_COST = 8, (3.4e-2, 2.73)
U = 2.0**-53
FLOAT_TAIL = 45.0  # float: each density is integrated over its window of mass 1 - O(e^-45)


@dataclass(frozen=True)
class ReportNoisyMax(SelectionMechanism):
    """Report noisy max: ``argmax_r (q_r + b_r Z_r)`` (pf Appendix F).

    Args:
        epsilon, sensitivity, monotone: as in :class:`SelectionMechanism`; they fix the common
            scale ``b = 2Δ/ε`` (``Δ/ε`` if ``monotone``).
        noise: ``"laplace"`` (pf Appendix F, default), ``"exponential"`` or ``"gumbel"``.
        scales: optional per-candidate noise scales ``b_r`` (exact, > 0) that replace the
            common scale (RNMH, hetsel eq. 4); their length must match the scores.
    """

    noise: str = "laplace"
    scales: Any = None

    short_name: ClassVar[str] = "rnm"

    def __post_init__(self) -> None:
        super().__post_init__()
        noise_family(self.noise)
        if self.scales is not None:
            if isinstance(self.scales, (str, bytes)) or not isinstance(self.scales, Iterable):
                raise TypeError(f"scales must be a sequence of positive numbers, got {type(self.scales).__name__}")
            sc = tuple(positive_real(v, f"scales[{i}]") for i, v in enumerate(self.scales))
            if not sc:
                raise ValueError("scales must not be empty")
            object.__setattr__(self, "scales", sc)

    # -- parameters -----------------------------------------------------------------------------
    @property
    def family(self) -> NoiseFamily:
        return noise_family(self.noise)

    def noise_scale(self) -> Real:
        """The common scale ``b = 2Δ/ε`` (``Δ/ε`` when monotone), i.e. ``1 / exponent_scale``."""
        return (self.sensitivity if self.monotone else self.sensitivity * 2) / self.epsilon

    @property
    def size(self) -> int | None:
        """Tied to ``len(scales)`` candidates when per-candidate scales are given."""
        return None if self.scales is None else len(self.scales)

    @property
    def properties(self) -> MechanismProperties:
        """i.i.d. noise with a common scale is regular (pf Definition 3); per-candidate scales are not symmetric."""
        if self.scales is None:
            return MechanismProperties(symmetric=True, shift_invariant=True, monotone=True)
        return MechanismProperties(shift_invariant=True)

    def candidate_scales(self, n: int) -> list[Real]:
        """``[b_0, ..., b_{n-1}]`` for ``n`` candidates (``ValueError`` naming ``scales`` on a mismatch)."""
        if self.scales is None:
            return [self.noise_scale()] * n
        if len(self.scales) != n:
            raise ValueError(f"scales has {len(self.scales)} entries but scores has {n}")
        return list(self.scales)

    # -- pmf --------------------------------------------------------------------------------------
    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float:
        """Conditioning on the other noises (pf Appendix F), rate ``1/min_r b_r`` (see
        :func:`~.base.lipschitz_shift`)."""
        return noisy_max_shift(self.candidate_scales(q.size), rounding)

    def _closed_form_ball(self, q: list[Real], prec: int, max_terms: int | None = None) -> tuple[list[Any], dict] | None:
        """Exponential noise on rational inputs: the exact closed form in ball arithmetic, or None
        when it does not apply or would be longer than the quadrature (too many terms)."""
        if self.family.name != "exponential" or len(q) > CLOSED_FORM_BALL_N:
            return None
        scales = self.candidate_scales(len(q))
        if not all(x.is_rational for x in q) or not all(b.is_rational for b in scales):
            return None
        try:
            return rnm_exponential_ball(q, scales, prec, **({} if max_terms is None else {"max_terms": max_terms}))
        except ValueError:
            return None

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        if method in (None, "closed-form") and self.family.name == "exponential" and q.size <= CLOSED_FORM_FLOAT_N:
            # float scores are exact dyadic rationals: the ball closed form gives a rigorous float pmf
            got = self._closed_form_ball([Real.of(float(x)) for x in q], 64, FLOAT_TERMS)
            if got is not None:
                vals, info = got
                mids = np.array([float(v.mid()) for v in vals])
                with np.errstate(divide="ignore"):
                    logs = np.array([float(v.log().mid()) if v > 0 else np.log(max(float(v.mid()), 0.0)) for v in vals])
                ae = max(float(v.rad()) for v in vals) + 2.0**-53
                rel = max((float((v.rad() / v.lower()).upper()) if v > 0 else math.inf) for v in vals) + 2.0**-52
                return Pmf(mids, "float", "closed-form", rel if math.isfinite(rel) else None, ae, "rigorous",
                           logvalues=logs, details=info)
            if method == "closed-form":
                raise ValueError("method 'closed-form': needs exponential noise and at most "
                                 f"{CLOSED_FORM_FLOAT_N} scores on a common lattice")
        m = _check_method(method, ("quadrature",), "quadrature")
        check_size(q.size, FLOAT_LIMIT, "the float RNM quadrature (O(n^2))")
        b = np.array([x.to_float() for x in self.candidate_scales(q.size)])
        if q.size == 1:
            return Pmf(np.ones(1), "float", m, 0.0, 0.0, "exact")
        return _float_law(self.family, q, b)

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        if backend.is_exact:
            if self.family.name != "exponential":
                raise ValueError(
                    f"report noisy max with {self.noise} noise has no known closed-form pmf (pf Appendix F); "
                    "use backend='ball' for rigorous enclosures"
                )
            _check_method(method, ("integral", "quadrature"), "integral")
            self._exact_exponents(q)  # refuses exponents whose exact weights would need astronomically many digits
            vals, info = rnm_exponential_exact(q, self.candidate_scales(len(q)))
            return Pmf(tuple(vals), "exact", "integral", rel_error=0.0, abs_error=0.0, error_kind="exact", details=info)
        if backend.is_ball and method in (None, "closed-form"):
            got = self._closed_form_ball(q, backend.prec)
            if got is not None:
                return pmf_from_numbers(got[0], backend, "closed-form", got[1])
            if method == "closed-form":
                raise ValueError("method 'closed-form': needs exponential noise, rational scores and scales, "
                                 "on a common lattice")
        m = _check_method(method, ("quadrature",), "quadrature")
        limit, (a, k) = (SCALAR_LIMIT, SCALAR_COST) if backend.is_ball else (MP_LIMIT, MP_COST)
        check_size(len(q), limit, f"the {backend.name} RNM quadrature (O(n^2) integrals; estimated "
                                  f"{a * float(len(q)) ** k:.2g} s at n = {len(q)})")
        scales = self.candidate_scales(len(q))
        if backend.is_ball:
            vals, info = _pmf_ball(self.family, q, scales, backend.prec)
            return pmf_from_numbers(vals, backend, m, info)
        vals, err = _pmf_mp(self.family, q, scales, backend.dps)
        est = err + 10.0 ** (3 - backend.dps)
        return Pmf(tuple(vals), str(backend), m, rel_error=None, abs_error=est, error_kind="estimate",
                   details={"quad_error": err})

    # -- sampling ---------------------------------------------------------------------------------
    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        b = np.array([x.to_float() for x in self.candidate_scales(q.size)])
        qc = q - q.max()
        n = q.size
        out = np.empty(size, dtype=np.int64)
        batch = max(1, min(size, 2_000_000 // n))
        for start in range(0, size, batch):
            k = min(batch, size - start)
            noisy = qc + b * self.family.sample(rng, (k, n))
            out[start : start + k] = noisy.argmax(axis=1)
        return out


@dataclass(frozen=True)
class RNMExponential(ReportNoisyMax):
    """Report noisy max with exponential noise of mean 2Δ/ε (hetsel eq. 3; equals PF in law)."""

    noise: str = field(default="exponential", init=False)
    short_name: ClassVar[str] = "rnm-exp"


@dataclass(frozen=True)
class RNMGumbel(ReportNoisyMax):
    """Report noisy max with Gumbel noise of scale 2Δ/ε (equals the exponential mechanism in law)."""

    noise: str = field(default="gumbel", init=False)
    short_name: ClassVar[str] = "rnm-gumbel"


@dataclass(frozen=True)
class RNMLaplace(ReportNoisyMax):
    """Report noisy max with Laplace noise of scale 2Δ/ε (pf Appendix F).

    With a common scale the pmf has a closed form (:mod:`.rnm_laplace_closed_form`, method
    ``"closed-form"``, the default then): exact on ``exact`` for rational ε/Δ and scores, fast
    rigorous balls on ``ball``, and ball midpoints with the ball radius as the bound on ``float``.
    ``method="quadrature"`` keeps the integration of :class:`ReportNoisyMax`.
    """

    noise: str = field(default="laplace", init=False)
    short_name: ClassVar[str] = "rnm-laplace"

    def _closed_form(self, method: str | None) -> bool:
        m = _check_method(method, ("closed-form", "quadrature"), "closed-form" if self.scales is None else "quadrature")
        if m == "closed-form" and self.scales is not None:
            raise ValueError("method 'closed-form' needs a common noise scale (no per-candidate scales)")
        return m == "closed-form"

    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        if not self._closed_form(method):
            return super().pmf_float(q, "quadrature")
        from .rnm_laplace_closed_form import rnm_laplace_ball

        check_size(q.size, SCALAR_LIMIT, "the closed-form RNM-Laplace pmf (O(n^3))")
        vals = rnm_laplace_ball([Real.of(float(x)) for x in q], self.noise_scale(), 128)
        mids = np.array([float(v.mid()) for v in vals])
        rads = np.array([float(v.rad()) for v in vals])
        rel = float(np.max((rads + mids * U) / mids)) if np.all(mids > 0) else math.inf
        # the balls are of the law of q itself (float scores are exact dyadics); the rounding of exact
        # scores to q is added by SelectionMechanism.pmf (input_rounding_shift)
        return Pmf(mids, "float", "closed-form", rel, float(rads.max()) + U, "rigorous")

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        if backend.is_mp or not self._closed_form(method):
            return super().pmf_backend(q, backend, None if method == "closed-form" else method)
        from .rnm_laplace_closed_form import rnm_laplace_ball, rnm_laplace_exact

        check_size(len(q), SCALAR_LIMIT, "the closed-form RNM-Laplace pmf (O(n^3))")
        b = self.noise_scale()
        if backend.is_exact:
            if not (b.is_rational and all(x.is_rational for x in q)):
                raise ValueError("exact backend: the closed form needs rational epsilon, sensitivity and scores")
            vals = tuple(v.to_sympy() for v in rnm_laplace_exact(q, b))
            return Pmf(vals, "exact", "closed-form", 0.0, 0.0, "exact")
        vals = rnm_laplace_ball(q, b, backend.prec)
        rads = [float(v.rad()) for v in vals]
        mids = [abs(float(v.mid())) for v in vals]
        rel = max((r / x for r, x in zip(rads, mids) if x > 0), default=math.inf)
        return Pmf(tuple(vals), str(backend), "closed-form", rel_error=rel, abs_error=max(rads), error_kind="rigorous")


# ---------------------------------------------------------------------------------------------
# float: all candidates at once in the noisy value y (shifted so that max q = 0)
# ---------------------------------------------------------------------------------------------
def _float_law(fam: NoiseFamily, q: np.ndarray, b: np.ndarray) -> Pmf:
    """Float pmf: candidate ``r`` integrated over its cluster of noise windows
    (:mod:`.windows`) in the local coordinate ``t = y - c``; the mass of ``f_r`` outside its
    window ``[t_low, t_high]`` scales is <= 2e^{-W} and is added to the error."""
    from scipy.integrate import quad_vec

    n = q.size
    if not np.all((b >= 1e-305) & (b <= 1e305)):  # window ends t·b (|t| <= 45) and 1/b stay normal floats
        raise ValueError(f"the noise scales {b.min():.3g}..{b.max():.3g} are outside float64's range; use backend='ball'")
    W = FLOAT_TAIL
    t_lo, t_hi = fam.t_low(W), fam.t_high(W)
    logb = np.log(b)
    vals = np.zeros(n)
    err = 0.0
    shift = 0.0
    intervals = 0
    worst_status = 0
    messages: set[str] = set()
    for members in clusters(np.argsort(q, kind="stable").tolist(), FloatReach(q, b, t_lo, t_hi)):
        mem = np.array(members)
        c = q[mem[0]]
        with np.errstate(over="ignore"):
            o = q - c  # local kinks; ±inf for scores out of float range of c (F_s is then 0 or 1)
        om, bm = o[mem], b[mem]
        lo, hi = float(np.min(om + t_lo * bm)), float(np.max(om + t_hi * bm))
        if fam.name == "exponential":
            lo = max(lo, float(np.max(o)))  # F_s = 0 below every q_s
        if hi <= lo:
            continue
        # kinks, and each member's own window at a ladder of its scale: a density much narrower than
        # the cluster (scales differing by orders of magnitude) then gets subintervals of its own
        # instead of falling between the quadrature nodes
        marks = {float(x) for x in om}
        narrow = (t_hi - t_lo) * bm * 100 < hi - lo  # windows below 1% of the cluster
        for k in (t_lo, -10.0, -3.0, -1.0, 1.0, 3.0, 10.0, t_hi):
            marks.update(float(x) for x in (om + k * bm)[narrow])
        pts = sorted(x for x in marks if lo < x < hi)

        def integrand(t: float, mem: np.ndarray = mem, o: np.ndarray = o) -> np.ndarray:
            with np.errstate(invalid="ignore", over="ignore"):
                u = (t - o) / b
            total = float(np.sum(fam.logcdf(u)))  # log ∏_s F_s(y - q_s)
            with np.errstate(invalid="ignore", over="ignore"):
                e = fam.log_reverse_hazard(u[mem]) - logb[mem] + total
            return np.exp(np.where(np.isnan(e), -np.inf, e))

        res, e, info = quad_vec(integrand, lo, hi, epsabs=1e-300, epsrel=1e-12, norm="max",
                                points=pts or None, limit=20_000, full_output=True)
        vals[mem] = np.asarray(res, dtype=np.float64)
        err += float(e)
        intervals += int(info.intervals.shape[0])
        worst_status = max(worst_status, int(info.status == 1))
        messages.add(str(info.message))
        # the local kinks o_s carry a rounding of <= u|o_s|: it moves each probability by at most
        # ~u|o_s| sup f / b_min per kink (estimate)
        shift = max(shift, U * mem.size * float(np.max(np.abs(om))) / float(bm.min()))
    tail = 2 * math.exp(-W)  # F(t_lo) + 1 - F(t_hi), and the integrand is <= f_r
    # rounding estimate: O(n + 50) ulps per integrand value, one more per subinterval summed, plus
    # the shift of the local kinks
    rounding = U * (4 * n + 100 + intervals) * float(vals.max()) + shift
    details = {"quad_error": err, "intervals": intervals, "status": worst_status, "message": "; ".join(sorted(messages)),
               "tail_bound": tail}
    # quad_vec's estimate is reported even when its own target was not met (status 2 =
    # "rounding error": the estimate is then at the rounding level); status 1 (subinterval
    # limit) leaves the estimate unreliable, so it is reported as infinite.
    abs_err = math.inf if worst_status == 1 else err + rounding + tail
    return Pmf(vals, "float", "quadrature", rel_error=None, abs_error=abs_err, error_kind="estimate", details=details)


# ---------------------------------------------------------------------------------------------
# mp: one mpmath.quad per candidate, split at the kinks
# ---------------------------------------------------------------------------------------------
def _pmf_mp(fam: NoiseFamily, q: list[Real], scales: list[Real], dps: int) -> tuple[list[Any], float]:
    """Per candidate: mpmath.quad on [x_lo, kinks..., x_hi]; returns the values and the largest
    (quadrature estimate + tail mass outside the cut) over candidates."""
    import mpmath

    n = len(q)
    b = [s.to_mpf() for s in scales]
    log_inv_tau = (dps + 5) * math.log(10)
    t_hi, t_lo = fam.t_high(log_inv_tau), fam.t_low(log_inv_tau)
    vals: list[Any] = []
    err_total = 0.0
    for r in range(n):
        d = [(q[s] - q[r]).to_mpf() for s in range(n)]  # kinks x = q_s - q_r (d_r = 0)

        def g(x: Any, r: int = r, d: list[Any] = d) -> Any:
            out = fam.pdf_mp(x / b[r]) / b[r]
            for s in range(n):
                if s != r:
                    out *= fam.cdf_mp((x - d[s]) / b[s])
            return out

        x_hi = b[r] * t_hi
        x_lo = max(d[s] + b[s] * t_lo for s in range(n))
        if x_lo >= x_hi:
            v, e = mpmath.mpf(0), mpmath.mpf(0)
        else:
            pts = [x_lo] + sorted({x for x in d if x_lo < x < x_hi}) + [x_hi]
            v, e = mpmath.quad(g, pts, error=True)
        # lower tail: for the s attaining x_lo = d_s + b_s t_lo the argument is t_lo itself (evaluating
        # (x_lo - d_s)/b_s would cancel catastrophically when |d_s| ~ 1e300), and F(t_lo) <= tau
        tail = (1 - fam.cdf_mp(x_hi / b[r])) + fam.cdf_mp(mpmath.mpf(t_lo))
        vals.append(v + tail / 2)
        err_total = max(err_total, float(e) + float(tail) / 2)
    return vals, err_total


# ---------------------------------------------------------------------------------------------
# ball: rigorous acb.integral on analytic pieces + analytic tail bounds
# ---------------------------------------------------------------------------------------------
def _dyadic(x: Any) -> Fraction:
    """The exact midpoint of an arb ball as a Fraction."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _pmf_ball(fam: NoiseFamily, q: list[Real], scales: list[Real], prec: int) -> tuple[list[Any], dict]:
    from flint import arb, fmpq

    n = len(q)
    log_inv_tau = (prec + 8) * math.log(2)
    t_hi, t_lo = fam.t_high(log_inv_tau), fam.t_low(log_inv_tau)
    b = [s.to_arb(prec) for s in scales]
    bf = [float(x.mid()) for x in b]
    if not all(0 < x < math.inf for x in bf):
        raise ValueError("epsilon: the noise scales 2Δ/ε lie outside float64's range, which the ball quadrature's "
                         "cut points need")
    pdf_sup = fam.pdf_max()

    def exact_arb(x: Fraction) -> Any:
        return arb(fmpq(x.numerator, x.denominator))

    vals = []
    pieces_used = 0
    tail_max = 0.0
    sliver_max = 0.0
    for r in range(n):
        d = [(q[s] - q[r]).to_arb(prec) for s in range(n)]
        mids = [_dyadic(x) for x in d]
        if not all(abs(m) < 2**1000 for m in mids):
            raise ValueError("scores: score differences beyond float64's range (> 1e301) are not supported by the "
                             "ball quadrature's cut points")
        # sliver correction for kinks that are not exact dyadics
        sliver = arb(0)
        if fam.has_kink:
            for s in range(n):
                if not d[s].is_exact():
                    if not (d[s].rad() * 2 <= b[s]):
                        raise ValueError("scores: a kink q_s - q_r is not resolved at this precision; raise the ball precision")
                    sliver += 6 * arb(d[s].rad()) * pdf_sup / b[r]
        # truncation (exact dyadic cut points)
        x_hi = Fraction(bf[r] * t_hi)
        x_lo = max(mids[s] + Fraction(bf[s] * t_lo) for s in range(n))  # exact: no rounding of huge mids
        if fam.name == "exponential":
            x_lo = max(mids)  # F_s vanishes below d_s: no lower tail (slivers aside)
        integral = arb(0)
        if x_lo < x_hi:
            cuts = {x_lo, x_hi}
            if fam.has_kink:
                cuts |= {m for m in mids if x_lo < m < x_hi}
            cuts_sorted = sorted(cuts)
            for a, c in zip(cuts_sorted[:-1], cuts_sorted[1:]):
                right = [a >= m for m in mids]  # branch of each factor on [a, c]
                if fam.name == "exponential" and not all(right):
                    continue  # some F_s (or f_r) is identically 0 on this piece
                integral += _piece(fam, r, d, b, right, exact_arb(a), exact_arb(c))
                pieces_used += 1
        tail = fam.sf_upper(exact_arb(x_hi) / b[r])
        # x_lo - d_s formed exactly around the dyadic midpoint of d_s (|d_s| may be ~1e300)
        tail += min((fam.cdf_upper((exact_arb(x_lo - mids[s]) - (d[s] - exact_arb(mids[s]))) / b[s]) for s in range(n)), key=lambda t: float(t.upper()))
        half = tail.upper() / 2
        val = integral + half + arb(0, 1) * (half + sliver.upper())
        vals.append(val)
        tail_max = max(tail_max, float(tail.upper()))
        sliver_max = max(sliver_max, float(sliver.upper()))
    return vals, {"pieces": pieces_used, "tail_bound": tail_max, "sliver_bound": sliver_max}


def _piece(fam: NoiseFamily, r: int, d: list[Any], b: list[Any], right: list[bool], a: Any, c: Any) -> Any:
    """Rigorous ``∫_a^c f_r(x) ∏_{s≠r} F_s(x - d_s) dx`` with fixed analytic branches."""
    from flint import acb

    n = len(d)
    kink = fam.has_kink

    def g(x: Any, analytic: bool) -> Any:  # entire in x: the analytic flag needs no check
        out = fam.pdf_branch(x / b[r], right[r] or not kink) / b[r]
        for s in range(n):
            if s != r:
                out *= fam.cdf_branch((x - d[s]) / b[s], right[s] or not kink)
        return out

    return acb.integral(g, a, c).real
