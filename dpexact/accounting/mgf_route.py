"""The MGF route: δ(ε) and ε(δ) of one Poisson-subsampled Gaussian event composed T times, with the composition
exact (m(z)^T) and the inversion certified (:mod:`.mgf_inversion`), tried before the grid route.

Per direction (remove, add) and per end, the law is the one with outward float parameters of
:func:`.discretise_gauss.dominating_laws` (μ↑, r↑ for the upper end, μ↓, r↓ for the lower: sound by post-processing,
that module's docstring). Its output y is cut into a bulk window a < y <= b and the rest: the law's measure is
ν = ν_B + ν_O (both >= 0), so ν^{∗T} >= ν_B^{∗T} and ν^{∗T} − ν_B^{∗T} has mass <= 1 − (1 − |ν_O|)^T <= T·|ν_O|; as
(1 − e^{ε−ℓ})₊ ∈ [0, 1],

    D_B(ε) <= δ(ε) <= D_B(ε) + T·|ν_O|,        D_B(ε) = ∫ (1 − e^{ε−ℓ})₊ dν_B^{∗T}(ℓ),

with D_B bracketed by :func:`.mgf_inversion.trapezoid_delta` from the bulk's MGF at the rule's nodes
(:func:`.mgf_bulk.bulk_mgf`, each value with a proved error) and its decay constant (:func:`.mgf_decay.decay_constant`).
The direction's δ is the max over directions (the accountant's module docstring); ε(δ) = inf{ε >= 0 : δ(ε) <= δ} is
bracketed by two certified evaluations: δ↑(ε_hi) <= δ gives ε(δ) <= ε_hi, δ↓(ε_lo) > δ gives ε(δ) > ε_lo.

Every choice — the window, the abscissa c (the saddle point of the bulk's cumulant function), the period, c₂, the number
of nodes, the trial points of ε — comes from float estimates and never enters a bound. When the interval would not meet
the tolerance (a bulk whose tilted mass sits at the window's edge: the rule's sum then cancels; T too small for the decay
bound), the route says why (a string, kept in the grid route's ``detail['mgf_refused']``) and the grid route answers.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numbers.real import Real
from .delta_epsilon import Enclosure
from .discretise_gauss import dominating_laws
from .event_laws import loss_laws
from .loss_laws import GaussianBase, LossLaw
from .mgf_bulk import BulkLaw, bulk_mgf, outside_mass
from .mgf_decay import decay_constant
from .mgf_inversion import trapezoid_delta

__all__ = ["MIN_COUNT", "mgf_delta", "mgf_epsilon", "mgf_laws"]

#: fewest composed steps tried: the truncation bound (V/t)^T needs T large to be cheap
MIN_COUNT = 16
#: most rule nodes per direction and end (cost guard; more: the grid route)
MAX_NODES = 8192
#: share of the target δ given to each neglected part of the rule (aliasing, truncation)
ETA = 1e-9
#: share of the target δ given to the mass outside the bulk's window (at least)
WINDOW_ETA = 1e-9
#: share of the relative width of δ the caller can spend given to that mass
WINDOW_SHARE = 0.1
#: quadrature nodes of the float estimates (choices only)
EST_NODES = 400
METHOD = "certified MGF inversion (exact composition m(z)^T, trapezoidal Bromwich rule with aliasing, truncation and node errors bounded)"


def mgf_laws(events: list, directions: tuple[str, ...]) -> dict[str, tuple[Any, int]] | None:
    """{direction: (loss law, T)} when the accounting is one Poisson-subsampled Gaussian event composed >= MIN_COUNT
    times; else None."""
    if len(events) != 1 or events[0].count < MIN_COUNT:
        return None
    e = events[0]
    laws = loss_laws(e, directions)
    if not all(isinstance(law.base, GaussianBase) and law.r != 1 for law in laws.values()):
        return None
    return {d: (laws[d], e.count) for d in directions}


def _window(mu: float, r: float, remove: bool, T: int, share: float) -> tuple[float, float]:
    """a, b with T·(mass outside) <= share (a float estimate; the bound itself is :func:`.mgf_bulk.outside_mass`):
    each end gets half. The right tail of the remove mixture is (1 − r)Φ̄(b) + rΦ̄(b − μ), of N(0, 1) Φ̄(b)."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    target = math.log(share / (2 * T))

    def right(b: float) -> float:
        if not remove:
            return float(log_ndtr(-b))
        return float(np.logaddexp(math.log1p(-r) + log_ndtr(-b), math.log(r) + log_ndtr(-(b - mu))))

    b = brentq(lambda x: right(x) - target, -40.0, 80.0)
    a = -brentq(lambda z: float(log_ndtr(-z)) - target, -40.0, 60.0)
    return a, b


@dataclass
class _Est:
    """Float quadrature of the bulk for choices: losses ℓ_k and weights w_k·p(y_k)."""

    lx: np.ndarray
    wp: np.ndarray
    T: int

    def cumulants(self, c: float) -> tuple[float, float, float]:
        top = float(self.lx.max())
        e = self.wp * np.exp(c * (self.lx - top))
        s = float(e.sum())
        m1 = float((e * self.lx).sum()) / s
        m2 = float((e * self.lx ** 2).sum()) / s
        return self.T * (math.log(s) + c * top), self.T * m1, max(self.T * (m2 - m1 * m1), 1e-300)


@functools.cache
def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def _estimator(law: BulkLaw, T: int) -> _Est:
    g, w = _legendre(EST_NODES)
    y = (law.b - law.a) / 2 * g + (law.b + law.a) / 2
    w = (law.b - law.a) / 2 * w
    s = law.mu * y - law.mu ** 2 / 2
    gl = np.log1p(law.r * np.expm1(s))
    phi = np.exp(-y * y / 2) / math.sqrt(2 * math.pi)
    if law.remove:
        p = (1 - law.r) * phi + law.r * np.exp(-(y - law.mu) ** 2 / 2) / math.sqrt(2 * math.pi)
        return _Est(gl, w * p, T)
    return _Est(-gl, w * phi, T)


def _few_bits(x: float, bits: int = 12) -> float:
    e = math.floor(math.log2(x)) - bits + 1
    return math.floor(x / 2.0 ** e) * 2.0 ** e


@dataclass
class _Side:
    """One direction and one end: the rule's nodes computed once, δ evaluated at any ε from them."""

    law: BulkLaw
    T: int
    c: float
    dt: float
    c2: float
    m: np.ndarray
    E: np.ndarray
    m_c2: Any
    V: float
    out: float  # T·|ν_O| rounded up

    def delta(self, eps: Any) -> tuple[float, float, dict]:
        lo, hi, parts = trapezoid_delta(self.m, self.E, self.c, self.dt, self.T, eps, self.V, self.c2, self.m_c2)
        return lo, min(1.0, math.nextafter(hi + self.out, math.inf)), parts

    def estimate(self, eps: float) -> float:
        """The rule's float sum (no bounds): a choice of trial points."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return _float_sum(self.T * np.log(self.m), self.c, self.dt, eps)


def _saddle_log_delta(est: _Est, c: float) -> float:
    """The leading saddle-point term of log D at tilt c (ε = K'(c)): K − cK' − log(c(c + 1)√(2πK'')) — a choice."""
    K, K1, K2 = est.cumulants(c)
    return K - c * K1 - math.log(c * (c + 1) * math.sqrt(2 * math.pi * K2))


def _tilt(est: _Est, eps: float) -> float | None:
    """c with K'(c) = ε (the saddle point; K' increases), None when ε is outside the bulk's reach."""
    from scipy.optimize import brentq

    try:
        return brentq(lambda c: est.cumulants(c)[1] - eps, 1e-6, 1e5, xtol=1e-9)
    except ValueError:
        return None


def _plan(mu: float, r: float, remove: bool, T: int, target_delta: float, share: float | None = None
          ) -> tuple[BulkLaw, _Est, float]:
    a, b = _window(mu, r, remove, T, (WINDOW_ETA if share is None else share) * target_delta)
    law = BulkLaw(mu, r, remove, a, b)
    return law, _estimator(law, T), math.nextafter(T * outside_mass(law), math.inf)  # T·|ν_O|, rounded up


def _side(mu: float, r: float, remove: bool, T: int, target_delta: float, eps: float, width: float = 0.0
          ) -> _Side | str:
    """The rule for ε near ``eps`` and δ near ``target_delta``: window, tilt, period, c₂ and nodes (float choices),
    then the bulk's MGF at the nodes and its decay constant (proved). ``width``: the relative width of δ the caller
    can spend; a tenth of it goes to the window's outside mass (a shorter window keeps the tilted bulk off its right
    edge, where the rule's sum would cancel)."""
    from flint import arb

    law, est, out = _plan(mu, r, remove, T, target_delta)
    c = _tilt(est, eps)
    if c is None:
        return f"no tilt reaches ε = {eps:.6g} in the bulk"
    if WINDOW_SHARE * width > WINDOW_ETA:
        law, est, out = _plan(mu, r, remove, T, target_delta, WINDOW_SHARE * width)
        c = _tilt(est, eps)
        if c is None:
            return f"no tilt reaches ε = {eps:.6g} in the bulk"
    sd = math.sqrt(est.cumulants(c)[2])
    log_eta = math.log(ETA * target_delta)
    # the period: k <= −1 aliases e^{−cP}; k >= 1 through c₂ (the best of a few)
    best = None
    for j in (1, 2, 3, 4, 6, 8, 12, 16):
        c2 = c + j / sd
        K2c = est.cumulants(c2)[0]
        P = max(-log_eta / c, (math.log(1 / (1 + c2)) + K2c - c2 * eps - log_eta) / (c2 - c)) * 1.02
        if best is None or P < best[0]:
            best = (P, c2)
    P, c2 = best
    dt = _few_bits(2 * math.pi / P)
    try:
        V = decay_constant(mu, r, remove, law.a, law.b, c)
    except (ValueError, OverflowError) as exc:
        return f"decay constant: {exc}"
    # nodes: the truncation bound below ETA·δ (float logs)
    log_pref = math.log(dt / math.pi) - c * eps + T * math.log(V) - (T + 2) * math.log(dt)
    s = T + 2
    N = max(2, int(V / dt) + 1)
    while N <= MAX_NODES:
        if log_pref - s * math.log(N) + math.log1p(N / (s - 1)) <= log_eta - 2:
            break
        N = int(N * 1.25) + 1
    else:
        return f"the truncation bound needs more than {MAX_NODES} nodes (V = {V:.3g}, Δ = {dt:.3g})"
    t = np.arange(N) * dt
    try:
        m, E = bulk_mgf(law, c, t)
        mc2, Ec2 = bulk_mgf(law, c2, np.zeros(1))
    except (ValueError, OverflowError, RuntimeError) as exc:  # outside the quadrature's proved float regime
        return f"bulk MGF: {exc}"
    m_c2 = arb(float(mc2[0].real)) + arb(0, float(Ec2[0]))
    return _Side(law, T, c, dt, c2, m, E, m_c2, V, out)


#: most nodes of the float estimate of ε (a law whose |m(c + it)|^T has not decayed by then is refused: its
#: certified rule would need still more)
EST_MAX_NODES = 2048


def _float_logm(est: _Est, c: float, dt: float) -> np.ndarray | None:
    """T·log m(c + inΔ) from the estimator's nodes, up to where it is e^{−45} below n = 0; None if not by
    EST_MAX_NODES (choices only)."""
    top = float(est.lx.max())
    out = []
    for n0 in range(0, EST_MAX_NODES, 64):
        z = c + 1j * dt * np.arange(n0, n0 + 64)
        with np.errstate(divide="ignore"):
            lm = est.T * (np.log(np.exp(np.outer(z, est.lx - top)) @ est.wp) + z * top)
        out.append(lm)
        if (lm.real - out[0][0].real).max() < -45:
            return np.concatenate(out)
    return None


def _float_sum(logm: np.ndarray, c: float, dt: float, eps: float) -> float:
    """The rule's sum in floats from T·log m at its nodes (no bounds: choices only)."""
    z = c + 1j * dt * np.arange(len(logm))
    terms = np.real(np.exp(logm - z * eps) / (z * (z + 1)))
    terms[0] /= 2
    return float(terms.sum()) * dt / math.pi


def _eps_estimate(mu: float, r: float, remove: bool, T: int, delta: float) -> float | None:
    """A float estimate of ε(δ) for one direction (a choice; :func:`_side` is then planned for it): the root of
    log δ̃(ε) = log δ, each δ̃(ε) the rule's float sum at ε's own saddle point (a fixed tilt loses every digit to
    cancellation far from its ε), started from the saddle-point term's root. None when the float rule does not
    converge within EST_MAX_NODES or no bracket is found."""
    from scipy.optimize import brentq

    _, est, _ = _plan(mu, r, remove, T, delta)
    lt = math.log(delta)
    log_eta = math.log(ETA * delta)

    class _NoRule(Exception):
        pass

    def f(x: float) -> float:
        c = _tilt(est, x)
        if c is None:
            raise _NoRule
        dt = 2 * math.pi / (-log_eta / c * 2)
        logm = _float_logm(est, c, dt)
        if logm is None:
            raise _NoRule
        v = _float_sum(logm, c, dt, x)
        return (math.log(v) if v > 0 else -800.0) - lt

    try:
        c0 = brentq(lambda c: _saddle_log_delta(est, c) - lt, 1e-6, 1e5, xtol=1e-6)
        eps = est.cumulants(c0)[1]
        lo, hi = eps * 0.8, eps * 1.25
        for _ in range(16):  # δ̃ decreases in ε: move the bracket until it straddles
            flo, fhi = f(lo), f(hi)
            if flo > 0 > fhi:
                return brentq(f, lo, hi, xtol=1e-13, rtol=1e-11)
            lo, hi = (lo / 2, lo) if flo <= 0 else (hi, hi * 2)
    except (ValueError, _NoRule):
        return None
    return None


def _ends(law: LossLaw) -> tuple[tuple[float, float], tuple[float, float]]:
    _, _, up, lo = dominating_laws(law)
    return up, lo


def _sides(law: LossLaw, T: int, target_delta: float, eps: float, width: float) -> tuple[_Side, _Side] | str:
    """The upper end's rule (μ↑, r↑) and the lower end's (μ↓, r↓; the same rule when the parameters are floats)."""
    (mu_u, r_u), (mu_l, r_l) = _ends(law)
    remove = law.direction == "remove"
    up = _side(mu_u, r_u, remove, T, target_delta, eps, width)
    if isinstance(up, str) or (mu_u, r_u) == (mu_l, r_l):
        return up if isinstance(up, str) else (up, up)
    low = _side(mu_l, r_l, remove, T, target_delta, eps, width)
    return low if isinstance(low, str) else (up, low)


def _detail(info: dict, t0: float) -> dict:
    return {**info, "tolerance_met": True, "h": None, "passes": [], "cpu_seconds": round(time.process_time() - t0, 4)}


def mgf_delta(laws: dict[str, tuple[Any, int]], eps: Real, tolerance: float) -> Enclosure | str:
    """Certified δ(ε) = max over directions, or the reason (a string) why the route cannot meet ``tolerance``."""
    t0 = time.process_time()
    e = eps.to_arb(256)
    e_mid = float(e.mid())
    lo = hi = 0.0
    info: dict[str, Any] = {"route": "mgf", "directions": {}}
    for d, (law, T) in laws.items():
        (mu_u, r_u), _ = _ends(law)
        remove = d == "remove"
        # δ's size sets the window: first a guess from the saddle-point term on a generous window
        _, est, _ = _plan(mu_u, r_u, remove, T, 1e-30)
        c = _tilt(est, e_mid)
        if c is None:
            return f"{d}: no tilt reaches ε = {e_mid:.6g} in the bulk"
        d_est = math.exp(max(_saddle_log_delta(est, c), -700.0))
        # the saddle-point term can be 10× off for these skewed laws: the rule's float sum at ε's own tilt is not
        dt = 2 * math.pi / (-math.log(ETA * d_est) / c * 2)
        logm = _float_logm(est, c, dt)
        if logm is not None and _float_sum(logm, c, dt, e_mid) > 0:
            d_est = _float_sum(logm, c, dt, e_mid)
        sides = _sides(law, T, d_est, e_mid, tolerance)
        if isinstance(sides, str):
            return f"{d}: {sides}"
        up, low = sides
        l_d = low.delta(e)[0]
        h_d = up.delta(e)[1]
        info["directions"][d] = {"lower": l_d, "upper": h_d, "nodes": len(up.m), "c": up.c}
        lo, hi = max(lo, l_d), max(hi, h_d)
    if hi <= 0 or (hi - lo) > tolerance * hi:
        return f"interval [{lo:.6g}, {hi:.6g}] wider than the tolerance ({info['directions']})"
    return Enclosure(lo, hi, None, METHOD, _detail(info, t0))


def _bracket(up: _Side, low: _Side, t_lo: float, t_hi: float, tolerance: float, guess: float) -> tuple[float, float] | str:
    """ε_lo < ε_d(δ) <= ε_hi for one direction, δ ∈ [t_lo, t_hi] (the target's enclosure): the float root of the
    upper side's rule, then certified evaluations a little either side of it."""
    from scipy.optimize import brentq

    lt = math.log(t_lo)

    def f(x: float) -> float:
        v = up.estimate(x)
        return (math.log(v) if v > 0 else -800.0) - lt

    est = guess
    for spread in (1e-3, 3e-2, 0.5):
        try:
            est = brentq(f, guess * (1 - spread), guess * (1 + spread), xtol=1e-15, rtol=1e-15)
            break
        except ValueError:
            continue
    parts: dict = {}
    for share in (0.2, 0.45):  # the bracket's half-width, in units of tolerance·ε: never wider than asked
        w = est * tolerance * share
        e_hi, e_lo = est + w, est - w
        if e_lo <= 0:
            return "ε(δ) too close to 0 for a relative bracket"
        _, hi, parts = up.delta(e_hi)
        if hi <= t_lo and low.delta(e_lo)[0] > t_hi:
            return e_lo, e_hi
    return ("the certified δ at ε(1 ± {:.2g}) does not straddle δ (aliasing {:.3g}, truncation {:.3g}, sum radius "
            "{:.3g})").format(0.45 * tolerance, parts["alias"], parts["truncation"], parts["sum_radius"])


def mgf_epsilon(laws: dict[str, tuple[Any, int]], delta: Real, tolerance: float) -> Enclosure | str:
    """Certified ε(δ) = max over directions of each direction's ε(δ), or the reason (a string) why the route cannot
    meet ``tolerance`` (ε(δ) not clearly positive included: the grid route handles ε = 0)."""
    t0 = time.process_time()
    b = delta.to_arb(256)
    t_lo, t_hi = math.nextafter(float(b.lower()), -math.inf), math.nextafter(float(b.upper()), math.inf)
    if not t_lo > 0:
        return "δ below the float range"
    lo = hi = 0.0
    info: dict[str, Any] = {"route": "mgf", "directions": {}}
    for d, (law, T) in laws.items():
        (mu_u, r_u), _ = _ends(law)
        remove = d == "remove"
        guess = _eps_estimate(mu_u, r_u, remove, T, t_lo)
        if guess is None:
            return f"{d}: |m(c + it)|^T does not decay within {EST_MAX_NODES} nodes of the float estimate"
        if not guess > 0:
            return f"{d}: no positive estimate of ε(δ)"
        # ε's relative width w moves δ by about w·ε·|d log δ/dε| = w·ε·c (c the saddle point at ε)
        _, est, _ = _plan(mu_u, r_u, remove, T, t_lo)
        c = _tilt(est, guess)
        width = tolerance * guess * c if c is not None else 0.0
        sides = _sides(law, T, t_lo, guess, width)
        if isinstance(sides, str):
            return f"{d}: {sides}"
        up, low = sides
        br = _bracket(up, low, t_lo, t_hi, tolerance, guess)
        if isinstance(br, str):
            return f"{d}: {br}"
        info["directions"][d] = {"lower": br[0], "upper": br[1], "nodes": len(up.m), "c": up.c}
        lo, hi = max(lo, br[0]), max(hi, br[1])
    if hi > 0 and (hi - lo) > tolerance * hi:  # pragma: no cover - each direction's bracket is already that narrow
        return f"interval [{lo:.6g}, {hi:.6g}] wider than the tolerance"
    return Enclosure(lo, hi, None, METHOD, _detail(info, t0))
