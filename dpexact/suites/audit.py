"""Bug-replay suite for ``dpexact bench-audit``: historical bugs of deployed DP libraries re-created
as patched samplers or maps next to their correct versions, each audited with the stated α and power.

Samplers (numpy, seeded; the exact law is the one the library promised):

* ``opendp-rational-bias`` — OpenDP's additive-noise sampler biased by a rational-division bug:
  the scale's rational n/d divided with integer truncation (t = 5/2 sampled as 2);
* ``opendp-zcdp-noisy-max-pf`` — OpenDP's zCDP noisy max sampling permute-and-flip (exponential
  noise) where the exponential mechanism's law (Gumbel noise) is promised;
* ``opendp-gumbel-argmin`` — Gumbel noisy max returning the argmin;
* ``smartnoise-bernoulli-bits`` — a Bernoulli(p) sampler from p's binary expansion reading the bit
  after the geometric index (off by one: right for no p of the form below, e.g. 2/3 -> 1/3);
* ``geometric-as-rounded-laplace`` — a geometric noiser implemented as rounded Laplace
  (mass at 0: 1 − e^{−1/2} = 0.393 instead of tanh(1/2) = 0.462 at scale 1);
* ``diffprivlib-em-nan`` — the exponential mechanism normalising weights that all underflow
  (returns NaN) instead of subtracting the largest utility first.

Maps (certified level, :mod:`dpexact.audit.maps`):

* ``opendp-zcdp-noisy-max-rho`` — the same noisy-max bug seen through its privacy map: ρ = ε²/8 claimed for
  permute-and-flip's law (exact Rényi divergences on neighbouring scores exceed it), next to the exponential
  mechanism, which meets it;
* ``zcdp-to-delta`` — an anti-conservative zCDP -> (ε, δ) conversion ε = ρ + √(2ρ log(1/δ)) (the
  correct bound is ρ + 2√(ρ log(1/δ)); Bun & Steinke 2016 Prop. 1.3) on the Gaussian mechanism;
* ``tail-bound-rounding`` — the ε of a Laplace scale rounded toward −∞ instead of +∞;
* ``analytic-gaussian-sign`` — the analytic Gaussian's calibration (Balle & Wang 2018, Alg. 1)
  with a sign error in the δ < δ0 branch (α = √(1+u/2) − √(u/2)), which shrinks σ.
* ``opacus-gdp-clt`` — DP-SGD's ε(δ) from the GDP central-limit approximation (Opacus's
  ``GaussianAccountant``, which warns it "can underestimate") at T <= 10 steps, next to the RDP bound
  at integer orders; both against the certified ε(δ) of T Poisson-subsampled Gaussians.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from ..audit import laws
from ..audit.adapters.base import MapPoint, MapSpec, SamplerSpec

__all__ = ["BUGS", "Bug", "run_bug", "run_suite", "SUITE_ALPHA", "SUITE_TV", "SUITE_POWER"]

SUITE_ALPHA = 0.01
SUITE_TV = 0.05
SUITE_POWER = 0.95


@dataclass(frozen=True)
class Bug:
    name: str
    library: str
    kind: str  # sampler | map
    summary: str
    correct: Any  # SamplerSpec | MapSpec
    buggy: Any


# ---- samplers -------------------------------------------------------------------------------

def _dlap(rng: np.random.Generator, t: float, n: int) -> np.ndarray:
    """Discrete Laplace(t) as the difference of two geometrics with ratio e^{−1/t} (cks20 §4)."""
    p = -math.expm1(-1.0 / t)
    return (rng.geometric(p, n) - rng.geometric(p, n)).astype(np.float64)


def _dlap_rational(num: int, den: int, truncate: bool) -> Callable:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        return _dlap(rng, float(num // den) if truncate else num / den, n)
    return draw


def _argmax_noise(noise: str, pick: str) -> Callable:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        q = np.asarray(p["scores"], dtype=np.float64)
        z = rng.gumbel(0.0, p["scale"], (n, q.size)) if noise == "gumbel" else rng.exponential(p["scale"], (n, q.size))
        v = q + z
        return (np.argmax(v, axis=1) if pick == "max" else np.argmin(v, axis=1)).astype(np.float64)
    return draw


def _em_law(p: dict) -> laws.DiscreteLaw:
    with mpmath.workdps(laws.DPS + 10):
        w = [mpmath.exp(mpmath.mpf(s) / mpmath.mpf(p["scale"])) for s in p["scores"]]
        z = mpmath.fsum(w)
        return laws.categorical([x / z for x in w], "exponential mechanism")


def _bits(p: Fraction, k: int = 64) -> np.ndarray:
    return np.array([int(p * 2**i) % 2 for i in range(1, k + 1)] + [0], dtype=np.int64)


def _bernoulli_bits(shift: int) -> Callable:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        b = _bits(Fraction(p["p"]))
        i = np.minimum(rng.geometric(0.5, n) + shift, len(b)) - 1  # the first heads at index i >= 1
        return b[i].astype(np.float64)
    return draw


def _rounded_laplace(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    return np.round(rng.laplace(0.0, p["scale"], n))


def _em_weights(stable: bool) -> Callable:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        u = np.asarray(p["utility"], dtype=np.float64)
        c = p["epsilon"] / (2 * p["sensitivity"])
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.exp(c * (u - u.max())) if stable else np.exp(c * u)
            probs = w / w.sum()
        if not np.all(np.isfinite(probs)):
            return np.full(n, np.nan)
        return np.searchsorted(np.cumsum(probs), rng.random(n) * probs.sum(), side="right").clip(0, u.size - 1).astype(np.float64)
    return draw


def _em_util_law(p: dict) -> laws.DiscreteLaw:
    with mpmath.workdps(laws.DPS + 10):
        c = mpmath.mpf(p["epsilon"]) / (2 * mpmath.mpf(p["sensitivity"]))
        w = [mpmath.exp(c * mpmath.mpf(u)) for u in p["utility"]]
        z = mpmath.fsum(w)
        return laws.categorical([x / z for x in w], "exponential mechanism")


def _s(name: str, defaults: dict, law: Callable, draw: Callable) -> SamplerSpec:
    return SamplerSpec(name, name, defaults, law, draw, seedable=True, seconds_per_draw=1e-6)


_NM = {"scores": [0, 1, 2, 4], "scale": 1.5}
#: the correct Gumbel noisy max, shared by the two noisy-max bugs (one sampler, one calibration)
_GUMBEL_MAX = _s("gumbel-max", dict(_NM), _em_law, _argmax_noise("gumbel", "max"))
_EM = {"utility": [-2000, -2001, -2003], "epsilon": 1.0, "sensitivity": 1.0}


# ---- maps -----------------------------------------------------------------------------------

def _zcdp_eval(bugged: bool) -> Callable:
    def ev(lib: Any, p: dict) -> MapPoint:
        rho = 1 / (2 * p["sigma"] ** 2)
        lg = math.log(1 / p["delta"])
        eps = rho + (math.sqrt(2 * rho * lg) if bugged else 2 * math.sqrt(rho * lg))
        return MapPoint(p, "delta", p["delta"], "gaussian", {"sigma": p["sigma"], "sensitivity": 1}, epsilon=eps)
    return ev


def _rounded_eps(direction: float) -> Callable:
    def ev(lib: Any, p: dict) -> MapPoint:
        exact = Fraction(p["sensitivity"]) / Fraction(p["scale"])
        e = p["sensitivity"] / p["scale"]
        if direction > 0 and Fraction(e) < exact:
            e = math.nextafter(e, math.inf)
        if direction < 0 and Fraction(e) > exact:
            e = math.nextafter(e, -math.inf)
        return MapPoint(p, "epsilon-exact", e, "laplace", {"scale": p["scale"], "sensitivity": p["sensitivity"]})
    return ev


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float, sign_error: bool = False) -> float:
    """σ of the analytic Gaussian mechanism (Balle & Wang 2018, Algorithm 1) with floats and brentq;
    the correct version then adds a relative 10^{−9} so float rounding stays on the safe side."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    e = epsilon
    d0 = norm.cdf(0.0) - math.exp(e) * norm.cdf(-math.sqrt(2 * e))
    if delta >= d0:
        f = lambda v: norm.cdf(math.sqrt(e * v)) - math.exp(e) * norm.cdf(-math.sqrt(e * (v + 2))) - delta  # noqa: E731
        hi = 1.0
        while f(hi) < 0:
            hi *= 2
        v = brentq(f, 0.0, hi, xtol=1e-15)
        alpha = math.sqrt(1 + v / 2) - math.sqrt(v / 2)
    else:
        f = lambda u: norm.cdf(-math.sqrt(e * u)) - math.exp(e) * norm.cdf(-math.sqrt(e * (u + 2))) - delta  # noqa: E731
        hi = 1.0
        while f(hi) > 0:
            hi *= 2
        u = brentq(f, 0.0, hi, xtol=1e-15)
        alpha = math.sqrt(1 + u / 2) + (-1 if sign_error else 1) * math.sqrt(u / 2)
    sigma = alpha * sensitivity / math.sqrt(2 * e)
    return sigma if sign_error else sigma * (1 + 1e-9)


def _agauss_eval(sign_error: bool) -> Callable:
    def ev(lib: Any, p: dict) -> MapPoint:
        s = analytic_gaussian_sigma(p["epsilon"], p["delta"], 1.0, sign_error)
        return MapPoint(p, "delta", p["delta"], "gaussian", {"sigma": s, "sensitivity": 1}, epsilon=p["epsilon"])
    return ev


def _noisy_max_rho(mech: str) -> Callable:
    """zCDP noisy max claiming the exponential mechanism's ρ = ε²/8, its law ``mech`` (em or pf)."""
    def ev(lib: Any, p: dict) -> MapPoint:
        return MapPoint(p, "rho", p["epsilon"] ** 2 / 8, "finite",
                        {"mechanism": mech, "mechanism_params": {"epsilon": str(Fraction(p["epsilon"]))},
                         "scores": list(p["scores"]), "neighbour_scores": list(p["neighbour_scores"])})
    return ev


def _sgm_eval(gdp: bool) -> Callable:
    """ε(δ) of T Poisson-subsampled Gaussians (σ, q): the GDP central-limit approximation Opacus's
    ``GaussianAccountant`` uses (Bu, Dong, Long & Su 2020: μ = q √(T (e^{1/σ²} − 1)), ε from the μ-GDP
    dual), or the RDP bound at integer orders 2..64 (Mironov, Talwar & Zhang 2019 §3.3:
    A_α = Σ_k C(α, k) (1 − q)^{α−k} q^k e^{(k²−k)/(2σ²)}; Mironov 2017 Prop. 3: ε = T log A_α/(α − 1) + log(1/δ)/(α − 1))."""
    def ev(lib: Any, p: dict) -> MapPoint:
        s, q, t, d = (mpmath.mpf(p["sigma"]), mpmath.mpf(p["q"]), int(p["steps"]), mpmath.mpf(p["delta"]))
        with mpmath.workdps(40):
            if gdp:
                mu = q * mpmath.sqrt(t * mpmath.expm1(1 / s**2))
                lo, hi = mpmath.mpf(0), mpmath.mpf(500)  # the dual decreases in ε: bisect it
                for _ in range(120):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if mpmath.ncdf(-mid / mu + mu / 2) - mpmath.exp(mid) * mpmath.ncdf(-mid / mu - mu / 2) > d else (lo, mid)
                eps = float(hi)
            else:
                eps = min(float((t * mpmath.log(mpmath.fsum(mpmath.binomial(a, k) * (1 - q) ** (a - k) * q**k
                                                          * mpmath.exp((k * k - k) / (2 * s**2)) for k in range(a + 1)))
                                 - mpmath.log(d)) / (a - 1)) for a in range(2, 65)) * (1 + 1e-12)
        return MapPoint(p, "epsilon-for-delta", eps, "subsampled-gaussian", {"sigma": p["sigma"], "sample_rate": p["q"], "sensitivity": 1},
                        compositions=t, delta=p["delta"])
    return ev


def _m(name: str, grid: list[dict], ev: Callable) -> MapSpec:
    return MapSpec(name, name, lambda: list(grid), ev)


_ZGRID = [{"sigma": s, "delta": d} for s in (0.5, 1.0, 2.0, 4.0) for d in (1e-3, 1e-6)]
_RGRID = [{"scale": b, "sensitivity": s} for b in (0.3, 0.7, 3.0, 7.0, 1.1) for s in (1.0, 0.1, 0.3)]
_NGRID = [{"epsilon": e, "scores": q, "neighbour_scores": q2} for e in (0.5, 1.0, 2.0)
          for q, q2 in (((0, 1), (1, 0)), ((0, 0, 1), (1, 1, 0)), ((0, 0, 0), (-1, -1, 1)))]
_AGRID = [{"epsilon": e, "delta": d} for e in (0.5, 1.0, 2.0) for d in (1e-3, 1e-6)]
_SGRID = [{"sigma": s, "q": 0.1, "steps": t, "delta": 1e-5} for s in (1.0, 2.0) for t in (1, 10)]

BUGS: tuple[Bug, ...] = (
    Bug("opendp-rational-bias", "opendp", "sampler", "discrete Laplace scale 5/2 truncated to 2 by integer division",
        _s("dlap(5/2)", {}, lambda p: laws.discrete_laplace(Fraction(5, 2)), _dlap_rational(5, 2, False)),
        _s("dlap(5//2)", {}, lambda p: laws.discrete_laplace(Fraction(5, 2)), _dlap_rational(5, 2, True))),
    Bug("opendp-zcdp-noisy-max-pf", "opendp", "sampler", "zCDP noisy max samples permute-and-flip, promises EM (Gumbel)",
        _GUMBEL_MAX,
        _s("exponential-max", dict(_NM), _em_law, _argmax_noise("exponential", "max"))),
    Bug("opendp-gumbel-argmin", "opendp", "sampler", "Gumbel noisy max returns the argmin",
        _GUMBEL_MAX,
        _s("gumbel-argmin", dict(_NM), _em_law, _argmax_noise("gumbel", "min"))),
    Bug("smartnoise-bernoulli-bits", "smartnoise", "sampler", "Bernoulli(2/3) from p's bits, reading bit i+1 for i",
        _s("bits", {"p": "2/3"}, lambda p: laws.bernoulli(Fraction(p["p"])), _bernoulli_bits(0)),
        _s("bits-off-by-one", {"p": "2/3"}, lambda p: laws.bernoulli(Fraction(p["p"])), _bernoulli_bits(1))),
    Bug("geometric-as-rounded-laplace", "diffprivlib", "sampler", "geometric noise as round(Laplace(1)): P(0) = 0.393, not 0.462",
        _s("geometric", {"scale": 1.0}, lambda p: laws.discrete_laplace(p["scale"]), lambda lib, p, n, rng: _dlap(rng, p["scale"], n)),
        _s("rounded-laplace", {"scale": 1.0}, lambda p: laws.discrete_laplace(p["scale"]), _rounded_laplace)),
    Bug("diffprivlib-em-nan", "diffprivlib", "sampler", "exponential mechanism: all weights underflow, NaN returned",
        _s("em-stable", dict(_EM), _em_util_law, _em_weights(True)),
        _s("em-underflow", dict(_EM), _em_util_law, _em_weights(False))),
    Bug("opendp-zcdp-noisy-max-rho", "opendp", "map", "noisy max claiming EM's ρ = ε²/8 while sampling permute-and-flip",
        _m("em-rho", _NGRID, _noisy_max_rho("em")), _m("pf-rho", _NGRID, _noisy_max_rho("pf"))),
    Bug("zcdp-to-delta", "opendp", "map", "zCDP -> (ε, δ) with ε = ρ + √(2ρ log 1/δ) (missing factor √2)",
        _m("rho+2sqrt", _ZGRID, _zcdp_eval(False)), _m("rho+sqrt2", _ZGRID, _zcdp_eval(True))),
    Bug("tail-bound-rounding", "opendp", "map", "ε = Δ/scale rounded toward −∞ instead of +∞",
        _m("round-up", _RGRID, _rounded_eps(+1)), _m("round-down", _RGRID, _rounded_eps(-1))),
    Bug("analytic-gaussian-sign", "smartnoise", "map", "analytic Gaussian: sign error in the δ < δ0 branch shrinks σ",
        _m("balle-wang", _AGRID, _agauss_eval(False)), _m("balle-wang-sign", _AGRID, _agauss_eval(True))),
    Bug("opacus-gdp-clt", "opacus", "map", "DP-SGD ε(δ) from the GDP central-limit approximation (GaussianAccountant) at small T",
        _m("rdp-integer-orders", _SGRID, _sgm_eval(False)), _m("gdp-clt", _SGRID, _sgm_eval(True))),
)


def exact_tv(a: laws.DiscreteLaw, b: laws.DiscreteLaw) -> float:
    """Total variation of two discrete laws (windows; tails compared as masses)."""
    with mpmath.workdps(laws.DPS):
        lo = min(a.lo, b.lo)
        hi = max(a.lo + len(a.probs), b.lo + len(b.probs))
        s = mpmath.fsum(abs(a.pmf(k) - b.pmf(k)) for k in range(lo, hi)) + abs(a.left - b.left) + abs(a.right - b.right)
        return float(s / 2)


def _bug_law(bug: Bug) -> laws.DiscreteLaw | None:
    """The exact law of the buggy sampler where it has a closed form here (for the row's TV)."""
    p = bug.buggy.defaults
    if bug.name == "opendp-rational-bias":
        return laws.discrete_laplace(2)
    if bug.name == "geometric-as-rounded-laplace":
        with mpmath.workdps(laws.DPS + 10):
            b = mpmath.mpf(p["scale"])
            cdf = lambda x: mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2  # noqa: E731
            w = 200
            probs = tuple(cdf(mpmath.mpf(k) + 0.5) - cdf(mpmath.mpf(k) - 0.5) for k in range(-w, w + 1))
            tail = cdf(mpmath.mpf(-w) - 0.5)
            return laws.DiscreteLaw("round(Laplace)", -w, probs, tail, tail)
    if bug.name == "smartnoise-bernoulli-bits":
        b = _bits(Fraction(p["p"]))
        return laws.bernoulli(sum(Fraction(int(b[i]), 2 ** i) for i in range(1, len(b))))
    if bug.name == "opendp-gumbel-argmin":
        return _em_law({"scores": [-s for s in p["scores"]], "scale": p["scale"]})
    if bug.name == "opendp-zcdp-noisy-max-pf":
        from ..audit.adapters.diffprivlib import pf_probs
        from ..mechanisms.registry import mechanism

        m = mechanism("pf", epsilon=1 / Fraction(str(p["scale"])), sensitivity=1, monotone=True)
        return laws.categorical(pf_probs(m, p["scores"]), "permute-and-flip")
    return None


def run_bug(bug: Bug, buggy: bool, seed: int = 0, alpha: float = SUITE_ALPHA, tv: float = SUITE_TV,
            power: float = SUITE_POWER) -> dict[str, Any]:
    """One row of ``bench-audit``: the patched (``buggy``) or correct version audited."""
    from ..audit.maps import audit_map
    from ..audit.sampler import audit_sampler

    t0 = time.process_time()
    spec = bug.buggy if buggy else bug.correct
    row: dict[str, Any] = {"name": bug.name, "library": bug.library, "kind": bug.kind, "buggy": buggy, "summary": bug.summary}
    if bug.kind == "sampler":
        r = audit_sampler(f"{bug.library}:{spec.name}", spec=spec, alpha=alpha, tv=tv, power=power, seed=seed, max_seconds=60)
        flagged = r.verdict == "does not conform"
        bl = _bug_law(bug) if buggy else None
        row.update(verdict=r.verdict, alpha=alpha, power=r.plan.power, draws=r.plan.draws, tv=tv, p_value=r.p_value,
                   seed=seed, failing=r.failing[:5],
                   bug_tv=None if bl is None else exact_tv(bl, spec.law(spec.defaults)))
    else:
        r = audit_map(f"{bug.library}:{spec.name}", spec=spec)
        flagged = r.verdict == "anti-conservative"
        anti = [p for p in r.points if p.status == "anti-conservative"]
        row.update(verdict=r.verdict, alpha=0.0, power=1.0, draws=0, points=len(r.points), anti_conservative=len(anti),
                   witness=anti[0].witness if anti else None)
    row["detected"] = flagged
    row["seconds"] = time.process_time() - t0
    return row


def run_suite(seed: int = 0) -> list[dict[str, Any]]:
    """Every bug, correct then patched: the rows of ``bench-audit``."""
    rows = []
    for bug in BUGS:
        for buggy in (False, True):
            rows.append(run_bug(bug, buggy, seed))
    return rows
