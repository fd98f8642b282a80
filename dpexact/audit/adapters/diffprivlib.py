"""diffprivlib (IBM): Laplace, Gaussian (classical and analytic), discrete Gaussian, two-sided
geometric, binary randomized response, the exponential mechanism and permute-and-flip, with the
(ε, δ) their constructors take (the map is the constructor: parameters -> noise scale).

Laws: ``Laplace(ε, δ, Δ)`` adds Laplace with scale ``Δ / (ε − log(1 − δ))``; ``Gaussian`` and
``GaussianAnalytic`` add N(0, σ²) with the σ they compute (``_scale``); ``GaussianDiscrete`` the
discrete Gaussian with that σ; ``Geometric(ε, Δ)`` the two-sided geometric ``∝ e^{−|k| ε/Δ}``
(discrete Laplace with t = Δ/ε); ``Binary`` keeps the value with probability ``e^ε / (1 + e^ε)``;
``Exponential`` samples ``∝ exp(ε u / (2Δ))`` (``monotonic`` drops the 2); ``PermuteAndFlip``
has the permute-and-flip law (McKenna & Sheldon 2020; dpexact's ``pf``). diffprivlib accepts a
``random_state``: these draws follow the seed.

diffprivlib 0.6.6's package ``__init__`` imports its models, which fail with scikit-learn >= 1.7
(``cannot import name 'DOUBLE' from 'sklearn.tree._tree'``). The mechanisms themselves do not
need scikit-learn, so :func:`load` then imports ``diffprivlib.mechanisms`` alone (the package's
own files, without its models); benchmarks/README.md records the incompatibility.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
import types
from fractions import Fraction
from typing import Any

import numpy as np

from ...protocols import Mechanism
from .. import laws
from .base import MapPoint, MapSpec, MissingLibrary, SamplerSpec

LIBRARY = "diffprivlib"

#: set by :func:`load` when the package __init__ failed and the mechanisms were imported alone
LOAD_NOTE: list[str] = []


def load() -> Any:
    try:
        return importlib.import_module("diffprivlib.mechanisms")
    except ImportError as exc:
        spec = importlib.util.find_spec("diffprivlib") if "diffprivlib" not in sys.modules else None
        if spec is None and "diffprivlib" not in sys.modules:
            raise MissingLibrary(str(exc)) from None
        if "sklearn" not in str(exc):
            raise MissingLibrary(str(exc)) from None
        # the mechanisms without the models' scikit-learn imports (module docstring)
        for name in [m for m in sys.modules if m == "diffprivlib" or m.startswith("diffprivlib.")]:
            del sys.modules[name]
        pkg = types.ModuleType("diffprivlib")
        pkg.__path__ = list(spec.submodule_search_locations)  # type: ignore[union-attr]
        sys.modules["diffprivlib"] = pkg
        LOAD_NOTE.append(f"diffprivlib's package import fails ({str(exc)[:120]}); its mechanisms were imported alone")
        return importlib.import_module("diffprivlib.mechanisms")


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def _randomise(lib_mech: Any, value: Any, n: int) -> np.ndarray:
    return np.asarray([lib_mech.randomise(value) for _ in range(n)], dtype=np.float64)


def _laplace(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    return _randomise(lib.Laplace(epsilon=p["epsilon"], delta=p.get("delta", 0.0), sensitivity=p["sensitivity"], random_state=_seed(rng)), 0.0, n)


def _laplace_law(p: dict) -> Any:
    return laws.laplace(p["sensitivity"] / (p["epsilon"] - math.log(1 - p.get("delta", 0.0))))


def _gaussian(cls: str) -> Any:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        return _randomise(getattr(lib, cls)(epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"], random_state=_seed(rng)),
                          0 if cls == "GaussianDiscrete" else 0.0, n)
    return draw


def _gaussian_law(cls: str) -> Any:
    def law(p: dict) -> Any:
        mech = getattr(load(), cls)(epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"])
        return laws.discrete_gaussian(mech._scale) if cls == "GaussianDiscrete" else laws.gaussian(mech._scale)
    return law


def _geometric(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    return _randomise(lib.Geometric(epsilon=p["epsilon"], sensitivity=p["sensitivity"], random_state=_seed(rng)), 0, n)


def _binary(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    mech = lib.Binary(epsilon=p["epsilon"], value0="0", value1="1", random_state=_seed(rng))
    return np.asarray([int(mech.randomise("1")) for _ in range(n)], dtype=np.float64)


def _binary_law(p: dict) -> Any:
    import mpmath

    with mpmath.workdps(laws.DPS):
        e = mpmath.exp(mpmath.mpf(p["epsilon"]))
        return laws.bernoulli(e / (1 + e))


def _selection(cls: str) -> Any:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        mech = getattr(lib, cls)(epsilon=p["epsilon"], sensitivity=p["sensitivity"], utility=list(p["utility"]),
                               monotonic=p.get("monotonic", False), random_state=_seed(rng))
        return np.asarray([mech.randomise() for _ in range(n)], dtype=np.float64)
    return draw


def _em_law(p: dict) -> Any:
    import mpmath

    with mpmath.workdps(laws.DPS + 10):
        c = mpmath.mpf(p["epsilon"]) / mpmath.mpf(p["sensitivity"]) / (1 if p.get("monotonic") else 2)
        w = [mpmath.exp(c * mpmath.mpf(u)) for u in p["utility"]]
        z = mpmath.fsum(w)
        return laws.categorical([x / z for x in w], f"exponential mechanism(u={list(p['utility'])})")


def _pf_law(p: dict) -> Any:
    """Permute-and-flip's law from dpexact's ``pf`` (exact, scores u·/Δ at ε, or 2ε·… when monotone is off)."""
    from ...mechanisms.registry import mechanism

    mono = bool(p.get("monotonic", False))
    mech = mechanism("pf", epsilon=Fraction(str(p["epsilon"])), sensitivity=Fraction(str(p["sensitivity"])), monotone=mono)
    return laws.categorical(pf_probs(mech, p["utility"]), f"permute-and-flip(u={list(p['utility'])})")


def pf_probs(mech: Mechanism, scores: Any) -> list:
    """The exact pmf of a dpexact selection mechanism, as mpf values at :data:`laws.DPS` digits."""
    import mpmath

    pm = mech.pmf([Fraction(str(u)) for u in scores], backend="exact")
    with mpmath.workdps(laws.DPS + 10):
        return [laws.mp_of_exact(v) for v in pm.values]


SAMPLERS = {
    "Laplace": SamplerSpec("Laplace", "mechanisms.Laplace.randomise(0.0)", {"epsilon": 0.5, "delta": 0.0, "sensitivity": 1.0},
                           _laplace_law, _laplace, floating=True, seedable=True, seconds_per_draw=2e-5),
    "Laplace:delta": SamplerSpec("Laplace:delta", "mechanisms.Laplace with δ > 0 (scale Δ/(ε − log(1 − δ)))",
                                 {"epsilon": 0.5, "delta": 0.1, "sensitivity": 1.0}, _laplace_law, _laplace, floating=True, seedable=True),
    "Gaussian": SamplerSpec("Gaussian", "mechanisms.Gaussian.randomise(0.0)", {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0},
                            _gaussian_law("Gaussian"), _gaussian("Gaussian"), floating=True, seedable=True),
    "GaussianAnalytic": SamplerSpec("GaussianAnalytic", "mechanisms.GaussianAnalytic.randomise(0.0)",
                                    {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0}, _gaussian_law("GaussianAnalytic"),
                                    _gaussian("GaussianAnalytic"), floating=True, seedable=True),
    "GaussianDiscrete": SamplerSpec("GaussianDiscrete", "mechanisms.GaussianDiscrete.randomise(0)",
                                    {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1}, _gaussian_law("GaussianDiscrete"),
                                    _gaussian("GaussianDiscrete"), seedable=True, seconds_per_draw=6e-5),
    "Geometric": SamplerSpec("Geometric", "mechanisms.Geometric.randomise(0)", {"epsilon": 0.7, "sensitivity": 1},
                             lambda p: laws.discrete_laplace(Fraction(str(p["sensitivity"])) / Fraction(str(p["epsilon"]))),
                             _geometric, seedable=True),
    "Binary": SamplerSpec("Binary", "mechanisms.Binary.randomise('1') (binary randomized response)", {"epsilon": 1.0},
                          _binary_law, _binary, seedable=True),
    "Exponential": SamplerSpec("Exponential", "mechanisms.Exponential.randomise() (exponential mechanism)",
                               {"epsilon": 1.0, "sensitivity": 1.0, "utility": [0, 1, 2, 3, 5]}, _em_law, _selection("Exponential"),
                               seedable=True),
    "PermuteAndFlip": SamplerSpec("PermuteAndFlip", "mechanisms.PermuteAndFlip.randomise()",
                                  {"epsilon": 1.0, "sensitivity": 1.0, "utility": [0, 1, 2, 3, 5]}, _pf_law, _selection("PermuteAndFlip"),
                                  seedable=True, seconds_per_draw=4e-5),
}


# ---- privacy maps: the constructor's (ε, δ) against the exact level of the noise it sets ------

def _eval_gauss(cls: str) -> Any:
    def ev(lib: Any, p: dict) -> MapPoint:
        mech = getattr(lib, cls)(epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"])
        law = "discrete-gaussian-delta" if cls == "GaussianDiscrete" else "gaussian"
        return MapPoint(p, "delta", float(p["delta"]), law, {"sigma": float(mech._scale), "sensitivity": p["sensitivity"]},
                        epsilon=float(p["epsilon"]))
    return ev


def _eval_laplace(lib: Any, p: dict) -> MapPoint:
    mech = lib.Laplace(epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"])
    scale = mech.sensitivity / (mech.epsilon - math.log(1 - mech.delta))
    if p["delta"] == 0:
        return MapPoint(p, "epsilon-exact", float(p["epsilon"]), "laplace", {"scale": scale, "sensitivity": p["sensitivity"]})
    return MapPoint(p, "delta", float(p["delta"]), "laplace", {"scale": scale, "sensitivity": p["sensitivity"]}, epsilon=float(p["epsilon"]))


def _eval_geometric(lib: Any, p: dict) -> MapPoint:
    mech = lib.Geometric(epsilon=p["epsilon"], sensitivity=p["sensitivity"])
    return MapPoint(p, "epsilon", float(p["epsilon"]), "discrete-laplace", {"scale": -1 / mech._scale, "sensitivity": 1})


_EPS = (0.1, 0.25, 0.5, 0.75, 1.0)
MAPS = {
    "Gaussian": MapSpec("Gaussian", "σ = √(2 log(1.25/δ)) Δ/ε (ε <= 1): exact δ(ε) of N(0, σ²)",
                        lambda: [{"epsilon": e, "delta": d, "sensitivity": s} for e in _EPS for d in (1e-3, 1e-5, 1e-8) for s in (1.0, 3.0)],
                        _eval_gauss("Gaussian")),
    "GaussianAnalytic": MapSpec("GaussianAnalytic", "Balle–Wang σ: exact δ(ε) of N(0, σ²)",
                                lambda: [{"epsilon": e, "delta": d, "sensitivity": s} for e in (0.1, 0.5, 1.0, 2.0, 5.0)
                                         for d in (1e-3, 1e-5, 1e-8) for s in (1.0, 3.0)], _eval_gauss("GaussianAnalytic")),
    "GaussianDiscrete": MapSpec("GaussianDiscrete", "discrete-Gaussian σ: exact δ(ε) of the discrete Gaussian pair",
                                lambda: [{"epsilon": e, "delta": d, "sensitivity": 1} for e in (0.5, 1.0, 2.0) for d in (1e-3, 1e-5)],
                                _eval_gauss("GaussianDiscrete")),
    "Laplace": MapSpec("Laplace", "scale Δ/(ε − log(1 − δ)): exact ε (δ = 0) or exact δ(ε)",
                       lambda: [{"epsilon": e, "delta": d, "sensitivity": s} for e in (0.1, 0.3, 0.5, 1.0, 2.0) for d in (0.0, 0.01, 0.1)
                                for s in (1.0, 0.7)], _eval_laplace),
    "Geometric": MapSpec("Geometric", "two-sided geometric with ratio e^{−ε/Δ}: exact ε",
                         lambda: [{"epsilon": e, "sensitivity": s} for e in (0.1, 0.5, 1.0, 2.0) for s in (1, 2, 3)], _eval_geometric),
}
