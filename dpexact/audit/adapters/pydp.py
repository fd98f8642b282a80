"""python-dp (``pydp``, OpenMined's wrapper of Google's differential-privacy C++ library):
numerical mechanisms and distributions.

Laws: ``LaplaceMechanism(ε, Δ).add_noise`` adds Laplace noise of scale ``diversity = Δ/ε`` on a
fine lattice (Google's granularity, far below the cells used here: the shape is tested);
``GaussianMechanism(ε, δ, Δ).add_noise`` adds N(0, std²) with the ``std`` it reports;
``distributions.GeometricDistribution(λ).sample()`` is the one-sided geometric
``P(k) = (1 − e^{−λ}) e^{−λ k}``, k >= 0; ``GaussianDistribution(σ).sample(1.0)`` is N(0, σ²).
The C++ randomness cannot be seeded from Python.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from .. import laws
from .base import MapPoint, MapSpec, MissingLibrary, SamplerSpec

LIBRARY = "python-dp"


def load() -> Any:
    try:
        import pydp.algorithms.numerical_mechanisms as nm
        import pydp.distributions as dist
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingLibrary(str(exc)) from None
    return {"nm": nm, "dist": dist}


def _geometric_law(p: dict) -> Any:
    with mpmath.workdps(laws.DPS + 10):
        lam = mpmath.mpf(p["lambda"])
        r = mpmath.exp(-lam)
        width = int(float((laws.DPS + 5) * mpmath.log(10) / lam)) + 1
        probs = tuple((1 - r) * r**k for k in range(width + 1))
        return laws.DiscreteLaw(f"geometric(λ={p['lambda']})", 0, probs, mpmath.mpf(0), r ** (width + 1))


def _many(lib_mech: Any, n: int) -> np.ndarray:
    return np.asarray([lib_mech.add_noise(0.0) for _ in range(n)], dtype=np.float64)


def _samples(dist: Any, n: int, *args: Any) -> np.ndarray:
    return np.asarray([dist.sample(*args) for _ in range(n)], dtype=np.float64)


SAMPLERS = {
    "LaplaceMechanism": SamplerSpec("LaplaceMechanism", "numerical_mechanisms.LaplaceMechanism.add_noise(0.0)",
                                    {"epsilon": 0.5, "sensitivity": 1.0}, lambda p: laws.laplace(p["sensitivity"] / p["epsilon"]),
                                    lambda m, p, n, rng: _many(m["nm"].LaplaceMechanism(epsilon=p["epsilon"], sensitivity=p["sensitivity"]), n),
                                    floating=True, seconds_per_draw=4e-6),
    "GaussianMechanism": SamplerSpec("GaussianMechanism", "numerical_mechanisms.GaussianMechanism.add_noise(0.0)",
                                     {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0},
                                     lambda p: laws.gaussian(load()["nm"].GaussianMechanism(p["epsilon"], p["delta"], p["sensitivity"]).std),
                                     lambda m, p, n, rng: _many(m["nm"].GaussianMechanism(p["epsilon"], p["delta"], p["sensitivity"]), n),
                                     floating=True, seconds_per_draw=4e-6),
    "GeometricDistribution": SamplerSpec("GeometricDistribution", "distributions.GeometricDistribution(λ).sample()", {"lambda": 0.5},
                                         _geometric_law,
                                         lambda m, p, n, rng: _samples(m["dist"].GeometricDistribution(p["lambda"]), n),
                                         seconds_per_draw=4e-6),
    "GaussianDistribution": SamplerSpec("GaussianDistribution", "distributions.GaussianDistribution(σ).sample(1.0)", {"sigma": 2.0},
                                        lambda p: laws.gaussian(p["sigma"]),
                                        lambda m, p, n, rng: _samples(m["dist"].GaussianDistribution(p["sigma"]), n, 1.0),
                                        floating=True, seconds_per_draw=4e-6),
}


def _eval_laplace(lib: Any, p: dict) -> MapPoint:
    mech = lib["nm"].LaplaceMechanism(epsilon=p["epsilon"], sensitivity=p["sensitivity"])
    return MapPoint(p, "epsilon-exact", float(mech.epsilon), "laplace", {"scale": float(mech.diversity), "sensitivity": p["sensitivity"]})


def _eval_gaussian(lib: Any, p: dict) -> MapPoint:
    mech = lib["nm"].GaussianMechanism(p["epsilon"], p["delta"], p["sensitivity"])
    return MapPoint(p, "delta", float(mech.delta), "gaussian", {"sigma": float(mech.std), "sensitivity": p["sensitivity"]},
                    epsilon=float(mech.epsilon))


MAPS = {
    "LaplaceMechanism": MapSpec("LaplaceMechanism", "ε reported by LaplaceMechanism(ε, Δ) against Δ / diversity",
                                lambda: [{"epsilon": e, "sensitivity": s} for e in (0.1, 0.3, 0.5, 1.0, 2.0, 3.0) for s in (1.0, 0.5, 3.0)],
                                _eval_laplace),
    "GaussianMechanism": MapSpec("GaussianMechanism", "(ε, δ) of GaussianMechanism(ε, δ, Δ) against the exact δ(ε) at its std",
                                 lambda: [{"epsilon": e, "delta": d, "sensitivity": s} for e in (0.1, 0.5, 1.0, 2.0, 4.0)
                                          for d in (1e-3, 1e-5, 1e-8) for s in (1.0, 2.0)], _eval_gaussian),
}
