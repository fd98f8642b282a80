"""Exact laws of library samplers, at 60 significant digits (mpmath), for the goodness-of-fit test.

A :class:`DiscreteLaw` is an integer law given on a window ``[lo, lo + len(probs))`` plus its two
tail masses, each computed as ``1 − (everything else)`` or as a closed-form geometric tail at
60 digits, so that merged tail cells carry their exact mass. A :class:`ContinuousLaw` has an exact
cdf; its cells are quantile intervals whose float edges are far wider than float spacing (the
test checks the shape of the real law, not float-level leakage: Mironov 2012).

Laws (Canonne, Kamath & Steinke 2020 = cks20 for the discrete ones):

* discrete Laplace with scale t: ``p(k) = tanh(1/(2t)) e^{−|k|/t}`` (cks20 Def. 3.1 with t);
* discrete Gaussian ``p(k) ∝ e^{−k²/(2σ²)}`` (cks20 Def. 1.1), normalised by summation with a
  Gaussian tail bound below 10^{−60};
* Bernoulli, finite categorical (exponential mechanism, permute-and-flip, randomized response);
* sums (convolution) and finite mixtures of the above;
* continuous Laplace(b), Gaussian(σ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import mpmath

from .gof import Cells, merge_cells

__all__ = ["DiscreteLaw", "ContinuousLaw", "Law", "discrete_laplace", "discrete_gaussian", "bernoulli", "categorical",
           "convolve", "mixture", "laplace", "gaussian", "cells_for", "DPS"]

#: decimal digits of every exact-law computation
DPS = 60
_TINY = mpmath.mpf(10) ** -(DPS + 5)


@dataclass(frozen=True)
class DiscreteLaw:
    """An integer law: ``probs[i] = P(X = lo + i)``, plus ``left = P(X < lo)``, ``right = P(X >= lo + len)``."""

    name: str
    lo: int
    probs: tuple
    left: Any = mpmath.mpf(0)
    right: Any = mpmath.mpf(0)

    def pmf(self, k: int) -> Any:
        i = k - self.lo
        return self.probs[i] if 0 <= i < len(self.probs) else mpmath.mpf(0)

    def mass(self) -> Any:
        with mpmath.workdps(DPS):
            return mpmath.fsum(self.probs) + self.left + self.right


@dataclass(frozen=True)
class ContinuousLaw:
    """A law on the reals with an exact cdf (mpmath) and a float quantile function."""

    name: str
    cdf: Callable[[Any], Any]
    quantile: Callable[[float], float]


Law = DiscreteLaw | ContinuousLaw


def _mp(x: Any) -> Any:
    """An mpf from an int, float, decimal string, Fraction or mpf (a Fraction exactly as a quotient)."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def mp_of_exact(v: Any) -> Any:
    """An exact pmf value (python-flint fmpq, Fraction, int or a sympy expression) as an mpf at the
    current precision (a rational exactly as a quotient, an expression evaluated by sympy to DPS + 10 digits)."""
    import flint

    if isinstance(v, flint.fmpq):
        return mpmath.mpf(int(v.p)) / int(v.q)
    if isinstance(v, (int, Fraction)):
        return _mp(Fraction(v))
    return mpmath.mpf(str(v.evalf(DPS + 10)))


def _window(name: str, weight: Callable[[int], Any], centre: int, width: int) -> DiscreteLaw:
    with mpmath.workdps(DPS + 10):
        ks = range(centre - width, centre + width + 1)
        w = [weight(k) for k in ks]
        z = mpmath.fsum(w)
        return DiscreteLaw(name, centre - width, tuple(x / z for x in w))


def discrete_laplace(scale: Any, shift: int = 0) -> DiscreteLaw:
    """Discrete Laplace with scale ``t`` (``p(k) ∝ e^{−|k−shift|/t}``), window to tail mass 10^{−65},
    tails as closed-form geometric sums."""
    with mpmath.workdps(DPS + 10):
        t = _mp(scale)
        if not t > 0:
            raise ValueError(f"scale must be > 0, got {scale}")
        r = mpmath.exp(-1 / t)
        c = (1 - r) / (1 + r)
        width = int(min(10**6, math.ceil(float((DPS + 5) * mpmath.log(10) * t)) + 1))
        if width >= 10**6:
            raise ValueError(f"scale {scale}: the exact window would exceed 10^6 points")
        probs = tuple(c * r ** abs(i) for i in range(-width, width + 1))
        tail = c * r ** (width + 1) / (1 - r)  # Σ_{k > width} c r^k
        return DiscreteLaw(f"discrete Laplace(t={scale})", shift - width, probs, tail, tail)


def discrete_gaussian(sigma: Any, shift: int = 0) -> DiscreteLaw:
    """Discrete Gaussian ``∝ e^{−(k−shift)²/(2σ²)}``; the window ``|k| <= W`` leaves mass below
    ``e^{−W²/(2σ²)}·(…)`` < 10^{−65}, put in the tails by the same Gaussian sum."""
    with mpmath.workdps(DPS + 10):
        s = _mp(sigma)
        if not s > 0:
            raise ValueError(f"sigma must be > 0, got {sigma}")
        width = int(math.ceil(float(s * mpmath.sqrt(2 * (DPS + 8) * mpmath.log(10))))) + 2
        if width >= 10**6:
            raise ValueError(f"sigma {sigma}: the exact window would exceed 10^6 points")
        w = [mpmath.exp(-(mpmath.mpf(k) ** 2) / (2 * s * s)) for k in range(-width - 40, width + 41)]
        z = mpmath.fsum(w)
        inner = tuple(x / z for x in w[40:-40])
        tail = mpmath.fsum(w[:40]) / z  # the rest beyond width + 40 is below 10^{-80}
        return DiscreteLaw(f"discrete Gaussian(σ={sigma})", shift - width, inner, tail, tail)


def bernoulli(p: Any) -> DiscreteLaw:
    with mpmath.workdps(DPS):
        p = _mp(p)
        if not 0 <= p <= 1:
            raise ValueError(f"p must be in [0, 1], got {p}")
        return DiscreteLaw(f"Bernoulli({mpmath.nstr(p, 8)})", 0, (1 - p, p))


def categorical(probs: Sequence[Any], name: str = "categorical") -> DiscreteLaw:
    with mpmath.workdps(DPS):
        ps = tuple(_mp(x) for x in probs)
        if any(x < 0 for x in ps) or abs(mpmath.fsum(ps) - 1) > mpmath.mpf(10) ** -(DPS - 10):
            raise ValueError("probs must be >= 0 and sum to 1")
        return DiscreteLaw(name, 0, ps)


def convolve(a: DiscreteLaw, b: DiscreteLaw) -> DiscreteLaw:
    """The law of X + Y for independent X ~ a, Y ~ b: the window part exactly convolved; mass that
    involves a tail of either goes to the tails (an upper bound 2·(tails) on the window's error,
    below 10^{−60} for the laws above)."""
    if len(a.probs) * len(b.probs) > 4 * 10**6:
        raise ValueError("the convolution would exceed 4·10^6 products")
    with mpmath.workdps(DPS + 10):
        out = [mpmath.mpf(0)] * (len(a.probs) + len(b.probs) - 1)
        for i, x in enumerate(a.probs):
            for j, y in enumerate(b.probs):
                out[i + j] += x * y
        rest = 1 - mpmath.fsum(out)
        return DiscreteLaw(f"{a.name} + {b.name}", a.lo + b.lo, tuple(out), rest / 2, rest / 2)


def mixture(weights: Sequence[Any], laws: Sequence[DiscreteLaw]) -> DiscreteLaw:
    """``Σ w_j law_j`` on the union of the windows."""
    lo = min(l.lo for l in laws)
    hi = max(l.lo + len(l.probs) for l in laws)
    with mpmath.workdps(DPS + 10):
        ws = [_mp(w) for w in weights]
        probs = tuple(mpmath.fsum(w * l.pmf(k) for w, l in zip(ws, laws)) for k in range(lo, hi))
        left = mpmath.fsum(w * l.left for w, l in zip(ws, laws))
        right = mpmath.fsum(w * l.right for w, l in zip(ws, laws))
        return DiscreteLaw("mixture(" + ", ".join(l.name for l in laws) + ")", lo, probs, left, right)


def laplace(scale: Any) -> ContinuousLaw:
    b = _mp(scale)

    def cdf(x: Any) -> Any:
        x = mpmath.mpf(x)
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    def quantile(u: float) -> float:
        return float(b * math.log(2 * u)) if u < 0.5 else float(-b * math.log(2 * (1 - u)))

    return ContinuousLaw(f"Laplace(b={scale})", cdf, quantile)


def gaussian(sigma: Any) -> ContinuousLaw:
    s = _mp(sigma)

    def quantile(u: float) -> float:
        from scipy.stats import norm

        return float(norm.ppf(u) * float(s))

    return ContinuousLaw(f"Gaussian(σ={sigma})", lambda x: mpmath.ncdf(mpmath.mpf(x) / s), quantile)


def cells_for(law: Law, draws: int, bins: int = 40) -> Cells:
    """The test's cells: every integer of a discrete law's window plus its two tails, merged to
    expected counts >= 5; for a continuous law, ``bins`` quantile intervals (float edges) whose
    masses are computed exactly from the cdf at those float edges."""
    with mpmath.workdps(DPS):
        if isinstance(law, DiscreteLaw):
            lows = [-math.inf] + [float(law.lo + i) for i in range(len(law.probs))] + [float(law.lo + len(law.probs))]
            highs = lows[1:] + [math.inf]
            probs = [law.left, *law.probs, law.right]
            keep = [i for i, p in enumerate(probs) if p > _TINY or i in (0, len(probs) - 1)]
            lows, highs, probs = ([lows[i] for i in keep], [highs[i] for i in keep], [probs[i] for i in keep])
            # a dropped zero cell between kept ones joins its left neighbour
            highs = [lows[j + 1] for j in range(len(lows) - 1)] + [math.inf]
            return merge_cells(lows, highs, [float(p) for p in probs], draws)
        edges = sorted({law.quantile(i / bins) for i in range(1, bins)})
        import numpy as np

        e = np.asarray(edges)
        if e.size > 1 and np.any(np.diff(e) < 2.0**20 * np.spacing(np.abs(e[1:]))):
            raise ValueError(f"{law.name}: quantile cells narrower than 2^20 float spacings; the test would see float granularity")
        cdfs = [mpmath.mpf(0)] + [law.cdf(e) for e in edges] + [mpmath.mpf(1)]
        probs = [float(cdfs[i + 1] - cdfs[i]) for i in range(len(cdfs) - 1)]
        return merge_cells([-math.inf, *edges], [*edges, math.inf], probs, draws)
