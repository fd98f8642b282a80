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
bound), the route says so (``None``) and the grid route answers.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .delta_epsilon import Enclosure
from .discretise_gauss import dominating_laws
from .event_laws import loss_laws
from .loss_laws import GaussianBase
from .mgf_bulk import BulkLaw, bulk_mgf, outside_mass
from .mgf_decay import decay_constant
from .mgf_inversion import trapezoid_delta

__all__ = ["MIN_COUNT", "mgf_delta", "mgf_epsilon", "mgf_laws"]

#: fewest composed steps tried: the truncation bound (V/t)^T needs T large to be cheap
MIN_COUNT = 16
#: most rule nodes per direction and end (cost guard; more: the grid route)
MAX_NODES = 8192
#: share of the target δ given to each neglected part (window mass, aliasing, truncation)
ETA = 1e-9
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
    """a, b with T·(mass outside) <= share (float estimate; the bound itself is :func:`.mgf_bulk.outside_mass`)."""
    from scipy.special import log_ndtr

    target = math.log(share / (2 * T))
    # the right end: N(μ, 1)'s tail weighted r (remove) or N(0, 1)'s (add); the left end: N(0, 1)'s
    shift, w = (mu, math.log(r)) if remove else (0.0, 0.0)
    from scipy.optimize import brentq

    b = shift + brentq(lambda z: w + float(log_ndtr(-z)) - target, -40.0, 60.0)
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
        z = self.c + 1j * np.arange(len(self.m)) * self.dt
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            lg = self.T * np.log(self.m) - z * eps - np.log(z * (z + 1))
            terms = np.real(np.exp(lg))
        terms[0] /= 2
        return float(terms.sum()) * self.dt / math.pi


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


def _plan(mu: float, r: float, remove: bool, T: int, target_delta: float) -> tuple[BulkLaw, _Est, float]:
    a, b = _window(mu, r, remove, T, ETA * target_delta)
    law = BulkLaw(mu, r, remove, a, b)
    return law, _estimator(law, T), T * outside_mass(law)


def _side(mu: float, r: float, remove: bool, T: int, target_delta: float, eps: float) -> _Side | None:
    """The rule for ε near ``eps`` and δ near ``target_delta``: window, tilt, period, c₂ and nodes (float choices),
    then the bulk's MGF at the nodes and its decay constant (proved)."""
    from flint import arb

    law, est, out = _plan(mu, r, remove, T, target_delta)
    c = _tilt(est, eps)
    if c is None:
        return None
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
    V = decay_constant(mu, r, remove, law.a, law.b, c)
    # nodes: the truncation bound below ETA·δ (float logs)
    log_pref = math.log(dt / math.pi) - c * eps + T * math.log(V) - (T + 2) * math.log(dt)
    s = T + 2
    N = max(2, int(V / dt) + 1)
    while N <= MAX_NODES:
        if log_pref - s * math.log(N) + math.log1p(N / (s - 1)) <= log_eta - 2:
            break
        N = int(N * 1.25) + 1
    else:
        return None
    t = np.arange(N) * dt
    m, E = bulk_mgf(law, c, t)
    mc2, Ec2 = bulk_mgf(law, c2, np.zeros(1))
    m_c2 = arb(float(mc2[0].real)) + arb(0, float(Ec2[0]))
    return _Side(law, T, c, dt, c2, m, E, m_c2, V, out)


def _float_sum(lx: np.ndarray, wp: np.ndarray, T: int, c: float, dt: float, eps: float, n_max: int = 4096) -> float:
    """The rule's sum with float m from the estimator's nodes, up to where |m|^T is e^{−45} of m(c)^T (a choice)."""
    top = float(lx.max())
    base = None
    total = 0.0
    for n0 in range(0, n_max, 32):
        z = c + 1j * dt * np.arange(n0, n0 + 32)
        lm = T * (np.log(np.exp(np.outer(z, lx - top)) @ wp) + z * top)
        if base is None:
            base = lm[0].real
        terms = np.real(np.exp(lm - z * eps) / (z * (z + 1)))
        if n0 == 0:
            terms[0] /= 2
        total += float(terms.sum())
        if (lm.real - base).max() < -45:
            break
    return total * dt / math.pi


def _eps_estimate(mu: float, r: float, remove: bool, T: int, delta: float) -> float | None:
    """A float estimate of ε(δ) for one direction: the saddle-point term's root, then the root of the rule's float
    sum at the saddle point of that ε (choices only; :func:`_side` is then planned for it)."""
    from scipy.optimize import brentq

    _, est, _ = _plan(mu, r, remove, T, delta)
    lt = math.log(delta)
    try:
        c0 = brentq(lambda c: _saddle_log_delta(est, c) - lt, 1e-6, 1e5, xtol=1e-6)
    except ValueError:
        return None
    eps = est.cumulants(c0)[1]
    for _ in range(2):
        c = _tilt(est, eps)
        if c is None:
            return eps
        P = -math.log(ETA * delta) / c * 2
        dt = 2 * math.pi / P

        def f(x: float) -> float:
            v = _float_sum(est.lx, est.wp, T, c, dt, x)
            return (math.log(v) if v > 0 else -800.0) - lt

        try:
            eps = brentq(f, eps * 0.5 if eps > 0 else -1.0, eps * 2 + 1e-3, xtol=1e-12, rtol=1e-10)
        except ValueError:
            return eps
    return eps


def _ends(law: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    _, _, up, lo = dominating_laws(law)
    return up, lo


def _detail(info: dict, t0: float) -> dict:
    return {**info, "tolerance_met": True, "h": None, "passes": [], "cpu_seconds": round(time.process_time() - t0, 4)}


def mgf_delta(laws: dict[str, tuple[Any, int]], eps: Any, tolerance: float) -> Enclosure | None:
    """Certified δ(ε) = max over directions, or None when the route cannot meet ``tolerance``."""
    from flint import arb

    t0 = time.process_time()
    e = eps.to_arb(256) if hasattr(eps, "to_arb") else arb(eps)
    e_mid = float(e.mid())
    lo = hi = 0.0
    info: dict[str, Any] = {"route": "mgf", "directions": {}}
    for d, (law, T) in laws.items():
        (mu_u, r_u), (mu_l, r_l) = _ends(law)
        remove = d == "remove"
        # δ's size sets the window: first a guess from the saddle-point term on a generous window
        _, est, _ = _plan(mu_u, r_u, remove, T, 1e-30)
        c = _tilt(est, e_mid)
        if c is None:
            return None
        d_est = math.exp(max(_saddle_log_delta(est, c), -700.0))
        up = _side(mu_u, r_u, remove, T, d_est, e_mid)
        low = up if (mu_u, r_u) == (mu_l, r_l) else _side(mu_l, r_l, remove, T, d_est, e_mid)
        if up is None or low is None:
            return None
        l_d = low.delta(e)[0]
        h_d = up.delta(e)[1]
        info["directions"][d] = {"lower": l_d, "upper": h_d, "nodes": len(up.m), "c": up.c}
        lo, hi = max(lo, l_d), max(hi, h_d)
    if hi <= 0 or (hi - lo) > tolerance * hi:
        return None
    return Enclosure(lo, hi, None, METHOD, _detail(info, t0))


def _bracket(up: _Side, low: _Side, t_lo: float, t_hi: float, tolerance: float, guess: float) -> tuple[float, float] | None:
    """ε_lo < ε_d(δ) <= ε_hi for one direction, δ ∈ [t_lo, t_hi] (the target's enclosure): the float root of the
    upper side's rule, then certified evaluations a little either side of it."""
    from scipy.optimize import brentq

    lt = math.log(t_lo)

    def f(x: float) -> float:
        v = up.estimate(x)
        return (math.log(v) if v > 0 else -800.0) - lt

    try:
        est = brentq(f, guess * (1 - 1e-3), guess * (1 + 1e-3), xtol=1e-15, rtol=1e-15)
    except ValueError:
        est = guess
    for k in range(4):
        w = est * tolerance * 0.2 * 4 ** k
        e_hi, e_lo = est + w, est - w
        if e_lo <= 0:
            return None
        if up.delta(e_hi)[1] <= t_lo and low.delta(e_lo)[0] > t_hi:
            return e_lo, e_hi
    return None


def mgf_epsilon(laws: dict[str, tuple[Any, int]], delta: Any, tolerance: float) -> Enclosure | None:
    """Certified ε(δ) = max over directions of each direction's ε(δ), or None when the route cannot meet ``tolerance``
    (or ε(δ) is not clearly positive: the grid route handles ε = 0)."""
    t0 = time.process_time()
    b = delta.to_arb(256)
    t_lo, t_hi = math.nextafter(float(b.lower()), -math.inf), math.nextafter(float(b.upper()), math.inf)
    if not t_lo > 0:
        return None
    lo = hi = 0.0
    info: dict[str, Any] = {"route": "mgf", "directions": {}}
    for d, (law, T) in laws.items():
        (mu_u, r_u), (mu_l, r_l) = _ends(law)
        remove = d == "remove"
        guess = _eps_estimate(mu_u, r_u, remove, T, t_lo)
        if guess is None or not guess > 0:
            return None
        up = _side(mu_u, r_u, remove, T, t_lo, guess)
        low = up if (mu_u, r_u) == (mu_l, r_l) else _side(mu_l, r_l, remove, T, t_lo, guess)
        if up is None or low is None:
            return None
        br = _bracket(up, low, t_lo, t_hi, tolerance, guess)
        if br is None:
            return None
        info["directions"][d] = {"lower": br[0], "upper": br[1], "nodes": len(up.m), "c": up.c}
        lo, hi = max(lo, br[0]), max(hi, br[1])
    if hi > 0 and (hi - lo) > tolerance * hi:
        return None
    return Enclosure(lo, hi, None, METHOD, _detail(info, t0))
