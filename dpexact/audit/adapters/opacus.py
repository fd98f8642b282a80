"""Opacus (https://opacus.ai, PyTorch DP-SGD): the Gaussian noise its optimizer adds, and the ε its
accountants report for the Poisson-subsampled Gaussian mechanism.

Noise: ``DPOptimizer.add_noise`` adds ``opacus.optimizers.optimizer._generate_noise(std =
noise_multiplier × max_grad_norm, reference = p.summed_grad)`` to each clipped, summed gradient:
``torch.normal(0, std)`` in the parameter's dtype; with ``secure_mode`` the sum of four draws (in
torch's default dtype: that call passes no dtype) halved (law N(0, std²) again, Holohan & Braghin 2021
§5.1, the first draw thrown away);
``loss_reduction="mean"`` then divides the gradient by the expected batch size B (law
N(0, (std/B)²)). The noise follows a ``torch.Generator`` seeded here. float32 draws are N(0, std²)
rounded to float32: the quantile cells (about std/40 wide) are ~10⁵ float32 spacings wide, so
the test covers the shape, as for every float sampler.

Maps: ``RDPAccountant`` (Mironov, Talwar & Zhang 2019 RDP of the sampled Gaussian, converted by
Balle et al. 2020 Thm 21 over Opacus's default orders), ``PRVAccountant`` (Gopi, Lee & Wutschitz
2021; Opacus returns its upper estimate) and ``GaussianAccountant`` (GDP central-limit
approximation of Bu, Dong, Long & Su 2020; Opacus itself warns it "can underestimate") — each
stepped T times at (noise_multiplier σ, sample_rate q) and asked ``get_epsilon(δ)``. The level is
dpexact's certified ε(δ) of T Poisson-subsampled Gaussians (sensitivity 1, noise σ, rate q, both
neighbouring directions: :class:`dpexact.accounting.accountant.Accountant`, grid route).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import laws
from .base import MapPoint, MapSpec, MissingLibrary, SamplerSpec

LIBRARY = "opacus"


def load() -> Any:
    try:
        import torch
        from opacus import accountants
        from opacus.optimizers import optimizer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingLibrary(str(exc)) from None
    return {"torch": torch, "optimizer": optimizer, "accountants": accountants}


def _generator(lib: Any, rng: np.random.Generator) -> Any:
    return lib["torch"].Generator().manual_seed(int(rng.integers(0, 2**62)))


def _std(p: dict) -> float:
    return float(p["noise_multiplier"]) * float(p["max_grad_norm"])


def _noise(dtype: str, secure: bool) -> Any:
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        torch = lib["torch"]
        ref = torch.zeros(n, dtype={"float32": torch.float32, "float64": torch.float64}[dtype])
        x = lib["optimizer"]._generate_noise(std=_std(p), reference=ref, generator=_generator(lib, rng), secure_mode=secure)
        return x.to(torch.float64).numpy()
    return draw


def _optimizer_noise(reduction: str) -> Any:
    """The gradient ``DPOptimizer.pre_step`` leaves (clip and accumulate, ``add_noise``, ``scale_grad``)
    when the one per-sample gradient is zero: the noise exactly as the optimizer adds it."""
    def draw(lib: Any, p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        torch = lib["torch"]
        w = torch.nn.Parameter(torch.zeros(n, dtype=torch.float64))
        opt = lib["optimizer"].DPOptimizer(torch.optim.SGD([w], lr=1.0), noise_multiplier=float(p["noise_multiplier"]),
                                           max_grad_norm=float(p["max_grad_norm"]), expected_batch_size=int(p.get("batch_size", 1)),
                                           loss_reduction=reduction, generator=_generator(lib, rng))
        w.grad_sample = torch.zeros((1, n), dtype=torch.float64)
        if not opt.pre_step():
            raise RuntimeError("DPOptimizer skipped the step")
        return w.grad.detach().numpy().copy()
    return draw


_P = {"noise_multiplier": 1.1, "max_grad_norm": 1.0}

SAMPLERS = {
    "_generate_noise": SamplerSpec("_generate_noise", "optimizer._generate_noise(std = σ·C, float32 reference): torch.normal",
                                   dict(_P), lambda p: laws.gaussian(_std(p)), _noise("float32", False),
                                   floating=True, seedable=True, seconds_per_draw=1e-7),
    "_generate_noise:float64": SamplerSpec("_generate_noise:float64", "optimizer._generate_noise(std = σ·C, float64 reference)",
                                           dict(_P), lambda p: laws.gaussian(_std(p)), _noise("float64", False),
                                           floating=True, seedable=True, seconds_per_draw=1e-7),
    "_generate_noise:secure": SamplerSpec("_generate_noise:secure", "optimizer._generate_noise(secure_mode=True): (Σ of 4 draws)/2",
                                          dict(_P), lambda p: laws.gaussian(_std(p)), _noise("float64", True),
                                          floating=True, seedable=True, seconds_per_draw=5e-7),
    "DPOptimizer": SamplerSpec("DPOptimizer", "DPOptimizer.pre_step on a zero per-sample gradient (loss_reduction=sum)",
                                         {**_P, "max_grad_norm": 2.0}, lambda p: laws.gaussian(_std(p)), _optimizer_noise("sum"),
                                         floating=True, seedable=True, seconds_per_draw=1e-7),
    "DPOptimizer:mean": SamplerSpec(
        "DPOptimizer:mean", "DPOptimizer.pre_step, loss_reduction=mean: the noise divided by the expected batch size B",
        {**_P, "batch_size": 64}, lambda p: laws.gaussian(_std(p) / int(p["batch_size"])), _optimizer_noise("mean"),
        floating=True, seedable=True, seconds_per_draw=1e-7),
}


# ---- privacy maps: the accountants ------------------------------------------------------------

#: (σ, q, T) of DP-SGD runs, at δ = 1e-5 (the customary target), plus a few large-δ points where
#: the RDP conversion's ε turns negative. 32 points: their certified levels cost 1-12 CPU s each, ≈ 110 s in all.
GRID_SQT = [(s, q, t) for s in (0.7, 1.0, 2.0) for q in (0.01, 0.1) for t in (1, 10, 100, 1000)]
GRID_LARGE_DELTA = [(s, 0.01, t, d) for s in (4.0, 10.0) for t in (1, 10) for d in (0.01, 0.1)]


def _grid() -> list[dict]:
    return [{"noise_multiplier": s, "sample_rate": q, "steps": t, "delta": 1e-5} for s, q, t in GRID_SQT] + \
           [{"noise_multiplier": s, "sample_rate": q, "steps": t, "delta": d} for s, q, t, d in GRID_LARGE_DELTA]


_ACCOUNTANTS = {"RDPAccountant": lambda a: a.RDPAccountant(), "PRVAccountant": lambda a: a.PRVAccountant(),
                "GaussianAccountant": lambda a: a.GaussianAccountant()}


def _evaluate(name: str) -> Any:
    def evaluate(lib: Any, p: dict) -> MapPoint:
        steps = int(p["steps"])
        if not 1 <= steps <= 10**5:
            raise ValueError(f"steps must be in 1..100000, got {steps}")
        with warnings.catch_warnings():  # the GDP accountant warns at construction, RDP at an extreme order
            warnings.simplefilter("ignore")
            acc = _ACCOUNTANTS[name](lib["accountants"])
            for _ in range(steps):
                acc.step(noise_multiplier=float(p["noise_multiplier"]), sample_rate=float(p["sample_rate"]))
            eps = float(acc.get_epsilon(delta=float(p["delta"])))
        return MapPoint(p, "epsilon-for-delta", eps, "subsampled-gaussian",
                        {"sigma": float(p["noise_multiplier"]), "sample_rate": float(p["sample_rate"]), "sensitivity": 1},
                        compositions=steps, delta=float(p["delta"]))
    return evaluate


MAPS = {
    "RDPAccountant": MapSpec("RDPAccountant", "ε(δ) of T Poisson-subsampled Gaussians: RDP (default orders) -> (ε, δ)",
                             _grid, _evaluate("RDPAccountant")),
    "PRVAccountant": MapSpec("PRVAccountant", "ε(δ) of T Poisson-subsampled Gaussians: PRV (FFT), the upper estimate returned",
                             _grid, _evaluate("PRVAccountant")),
    "GaussianAccountant": MapSpec("GaussianAccountant", "ε(δ) of T Poisson-subsampled Gaussians: GDP central-limit approximation",
                                  _grid, _evaluate("GaussianAccountant")),
}
