"""OpenDP (https://opendp.org): additive-noise samplers, randomized response and report noisy max,
with the privacy maps their measurements declare (``Measurement.map``).

Laws: ``make_laplace`` on integers samples the discrete Laplace with scale t, on floats the
continuous Laplace (sampled exactly on a lattice of floats; here its shape is tested);
``make_gaussian`` on integers samples the discrete Gaussian (cks20); ``make_randomized_response``
keeps the truth with ``prob`` and else returns one of the other k − 1 categories uniformly;
``make_noisy_max`` (max_divergence) adds Gumbel noise of the given scale: the exponential
mechanism's law ``∝ exp(q_i / scale)`` (Gumbel-max trick, pf §2). OpenDP's randomness is its own
CSPRNG and cannot be seeded.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .. import laws
from .base import MapPoint, MapSpec, MissingLibrary, SamplerSpec

LIBRARY = "opendp"


def load() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingLibrary(str(exc)) from None
    dp.enable_features("contrib")
    return dp


def _int_vec(dp: Any) -> Any:
    return dp.vector_domain(dp.atom_domain(T=int))


def _float_vec(dp: Any) -> Any:
    return dp.vector_domain(dp.atom_domain(T=float, nan=False))


def _draw_laplace_int(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_laplace(_int_vec(dp), dp.l1_distance(T=int), scale=float(p["scale"]))
    return np.asarray(m([0] * n), dtype=np.float64)


def _draw_laplace_float(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_laplace(_float_vec(dp), dp.l1_distance(T=float), scale=float(p["scale"]))
    return np.asarray(m([0.0] * n), dtype=np.float64)


def _draw_gaussian_int(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_gaussian(_int_vec(dp), dp.l2_distance(T=int), scale=float(p["scale"]))
    return np.asarray(m([0] * n), dtype=np.float64)


def _draw_gaussian_float(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_gaussian(_float_vec(dp), dp.l2_distance(T=float), scale=float(p["scale"]))
    return np.asarray(m([0.0] * n), dtype=np.float64)


def _draw_laplace_sum2(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    x = _draw_laplace_int(dp, p, 2 * n, rng)
    return x[0::2] + x[1::2]


def _draw_rr(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_randomized_response(list(range(int(p["k"]))), float(p["prob"]))
    return np.asarray([m(0) for _ in range(n)], dtype=np.float64)


def _draw_rr_bool(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    m = dp.m.make_randomized_response_bool(float(p["prob"]))
    return np.asarray([int(m(True)) for _ in range(n)], dtype=np.float64)


def _draw_rr_bool_mixed(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """Randomized response on an input bit that is itself Bernoulli(p_in) (drawn with the seeded rng)."""
    m = dp.m.make_randomized_response_bool(float(p["prob"]))
    bits = rng.random(n) < float(p["p_in"])
    return np.asarray([int(m(bool(b))) for b in bits], dtype=np.float64)


def _rr_mixed_law(p: dict) -> Any:
    prob, p_in = Fraction(str(p["prob"])), Fraction(str(p["p_in"]))
    return laws.mixture([p_in, 1 - p_in], [laws.bernoulli(prob), laws.bernoulli(1 - prob)])


def _noisy_max(measure: str) -> Any:
    def draw(dp: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        mo = dp.max_divergence() if measure == "max" else dp.zero_concentrated_divergence()
        m = dp.m.make_noisy_max(_int_vec(dp), dp.linf_distance(T=int, monotonic=True), mo, scale=float(p["scale"]))
        q = list(p["scores"])
        return np.asarray([m(q) for _ in range(n)], dtype=np.float64)
    return draw


def _rr_law(p: dict) -> Any:
    k, prob = int(p["k"]), Fraction(str(p["prob"]))
    return laws.categorical([prob] + [(1 - prob) / (k - 1)] * (k - 1), f"randomized response(k={k}, prob={p['prob']})")


def _pf_law(p: dict) -> Any:
    """Report noisy max with exponential noise of scale s = permute-and-flip accepting with
    ``exp((q_i − q*)/s)`` (pf Thm 2): dpexact's ``pf`` with ε = 1/s, Δ = 1, monotone."""
    from ...mechanisms.registry import mechanism
    from .diffprivlib import pf_probs

    mech = mechanism("pf", epsilon=1 / Fraction(str(p["scale"])), sensitivity=1, monotone=True)
    return laws.categorical(pf_probs(mech, p["scores"]), f"permute-and-flip(scores={list(p['scores'])}, scale={p['scale']})")


def _em_law(p: dict) -> Any:
    import mpmath

    with mpmath.workdps(laws.DPS + 10):
        w = [mpmath.exp(mpmath.mpf(s) / mpmath.mpf(p["scale"])) for s in p["scores"]]
        z = mpmath.fsum(w)
        return laws.categorical([x / z for x in w], f"exponential mechanism(scores={list(p['scores'])}, scale={p['scale']})")


SAMPLERS = {
    "make_laplace:int": SamplerSpec("make_laplace:int", "make_laplace on integers (discrete Laplace)", {"scale": 2.5},
                                    lambda p: laws.discrete_laplace(p["scale"]), _draw_laplace_int, seconds_per_draw=2e-5),
    "make_laplace:float": SamplerSpec("make_laplace:float", "make_laplace on floats (continuous Laplace)", {"scale": 2.5},
                                      lambda p: laws.laplace(p["scale"]), _draw_laplace_float, floating=True, seconds_per_draw=3e-5),
    "make_gaussian:int": SamplerSpec("make_gaussian:int", "make_gaussian on integers (discrete Gaussian)", {"scale": 3.0},
                                     lambda p: laws.discrete_gaussian(p["scale"]), _draw_gaussian_int, seconds_per_draw=3e-5),
    "make_gaussian:float": SamplerSpec("make_gaussian:float", "make_gaussian on floats (continuous Gaussian)", {"scale": 3.0},
                                       lambda p: laws.gaussian(p["scale"]), _draw_gaussian_float, floating=True, seconds_per_draw=3e-5),
    "make_laplace:int-sum2": SamplerSpec("make_laplace:int-sum2", "sum of two make_laplace integer releases (law: convolution)",
                                         {"scale": 1.5}, lambda p: laws.convolve(laws.discrete_laplace(p["scale"]), laws.discrete_laplace(p["scale"])),
                                         _draw_laplace_sum2, seconds_per_draw=4e-5),
    "make_randomized_response": SamplerSpec("make_randomized_response", "k-ary randomized response on input 0", {"k": 4, "prob": 0.5},
                                            _rr_law, _draw_rr, seconds_per_draw=3e-4),
    "make_randomized_response_bool": SamplerSpec("make_randomized_response_bool", "binary randomized response on True", {"prob": 0.75},
                                                 lambda p: laws.bernoulli(Fraction(str(p["prob"]))), _draw_rr_bool, seconds_per_draw=3e-4),
    "make_randomized_response_bool:mixed": SamplerSpec(
        "make_randomized_response_bool:mixed", "binary randomized response on a Bernoulli(p_in) input (law: a mixture)",
        {"prob": 0.75, "p_in": 0.3}, _rr_mixed_law, _draw_rr_bool_mixed, seconds_per_draw=3e-4),
    "make_noisy_max": SamplerSpec("make_noisy_max", "report noisy max, max_divergence (exponential noise): permute-and-flip law",
                                  {"scores": [0, 1, 2, 4], "scale": 1.5}, _pf_law, _noisy_max("max"), seconds_per_draw=4e-4),
    "make_noisy_max:zcdp": SamplerSpec("make_noisy_max:zcdp", "report noisy max, zCDP (Gumbel noise): exponential mechanism law",
                                       {"scores": [0, 1, 2, 4], "scale": 1.5}, _em_law, _noisy_max("zcdp"), seconds_per_draw=4e-4),
}


# ---- privacy maps -----------------------------------------------------------------------------

def _grid_scales() -> list[dict]:
    return [{"scale": s, "d_in": d} for s in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0, 10.0, 0.3) for d in (1, 2, 3)]


def _eval_laplace_int(dp: Any, p: dict) -> MapPoint:
    m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=float(p["scale"]))
    return MapPoint(p, "epsilon", float(m.map(p["d_in"])), "discrete-laplace", {"scale": p["scale"], "sensitivity": p["d_in"]})


def _eval_laplace_float(dp: Any, p: dict) -> MapPoint:
    m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=float(p["scale"]))
    return MapPoint(p, "epsilon-exact", float(m.map(float(p["d_in"]))), "laplace", {"scale": p["scale"], "sensitivity": p["d_in"]})


def _eval_gaussian_int(dp: Any, p: dict) -> MapPoint:
    m = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=float(p["scale"]))
    return MapPoint(p, "rho", float(m.map(p["d_in"])), "discrete-gaussian", {"sigma": p["scale"], "sensitivity": p["d_in"]})


def _eval_zcdp_delta(dp: Any, p: dict) -> MapPoint:
    m = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=float(p["scale"]))
    prof = dp.c.make_zCDP_to_approxDP(m).map(float(p["d_in"]))
    return MapPoint(p, "delta", float(prof.delta(float(p["epsilon"]))), "gaussian",
                    {"sigma": p["scale"], "sensitivity": p["d_in"]}, epsilon=float(p["epsilon"]))


def _eval_rr(dp: Any, p: dict) -> MapPoint:
    m = dp.m.make_randomized_response(list(range(int(p["k"]))), float(p["prob"]))
    return MapPoint(p, "epsilon", float(m.map(1)), "finite-rr", {"k": p["k"], "prob": p["prob"]})


MAPS = {
    "make_laplace:int": MapSpec("make_laplace:int", "ε = d_in / scale (discrete Laplace)", _grid_scales, _eval_laplace_int),
    "make_laplace:float": MapSpec("make_laplace:float", "ε = d_in / scale (Laplace), float returned vs the exact rational",
                                  _grid_scales, _eval_laplace_float),
    "make_gaussian:int": MapSpec("make_gaussian:int", "ρ = d_in² / (2 scale²) (discrete Gaussian)",
                                 lambda: [{"scale": s, "d_in": d} for s in (0.5, 1.0, 2.0, 3.0, 5.0) for d in (1, 2)], _eval_gaussian_int),
    "make_zCDP_to_approxDP": MapSpec("make_zCDP_to_approxDP", "δ(ε) of make_gaussian (floats) through the zCDP→(ε, δ) conversion",
                                     lambda: [{"scale": s, "d_in": 1, "epsilon": e} for s in (0.5, 1.0, 2.0, 4.0, 8.0)
                                              for e in (0.1, 0.5, 1.0, 2.0, 4.0)], _eval_zcdp_delta),
    "make_randomized_response": MapSpec("make_randomized_response", "ε = log(prob (k − 1) / (1 − prob))",
                                        lambda: [{"k": k, "prob": pr} for k in (2, 3, 4, 8) for pr in (0.5, 0.6, 0.75, 0.9)
                                                 if pr > 1 / k], _eval_rr),
}
