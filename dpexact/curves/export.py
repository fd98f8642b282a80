"""Export of a certified curve: a dominating discrete PLD for dp_accounting, a Rényi curve for OpenDP.

**Dominating pair (connect the dots).** Let δ*(ε) be the worst-case privacy profile, the supremum
over the family and both directions (a reversal-closed set of pairs, so δ*(−ε) = 1 − e^{−ε} +
e^{−ε}δ*(ε)). As a function of x = e^ε it is convex (a supremum of the convex
Σ(P − xQ)₊). On the grid ε_i = i·h, |i| <= M = ⌈loss_max/h⌉, take certified upper ends
y_i >= δ*(ε_i) (y_M = 0, y_{−M} = 1 − e^{−ε_M}). For any subset V of grid points containing both
ends on which the piecewise-linear function D through (x_v, y_v) is convex, D >= δ* everywhere
(δ* is convex and below D at the vertices), and D is the hockey-stick curve of the discrete pair
with Q-mass s_v − s_{v−1} (slope increases, s before the first vertex = −1, after the last = 0)
and P-mass Q_v e^{ε_v} at loss ε_v. Hence it is a *dominating pair* (Zhu, Dong & Wang 2022,
Definition 7) and its k-fold composition bounds every adaptive composition (ibid., Theorem 10).
This is the pessimistic connect-the-dots PLD of Doroshenko et al. (2022), built from certified
δ values. P-masses are rounded up (δ of every composition is nondecreasing in each P-mass).

Rounding bound: at ε ∈ [ε_i, ε_{i+1}] the exported δ is <= y_i and the true δ*(ε) >= the certified
lower end at ε_{i+1}, so the export exceeds δ* by at most y_i − lower_{i+1}
(:meth:`DominatingPLD.rounding_bound`).

**dp_accounting**: ``PrivacyLossDistribution.create_from_rounded_probability`` with the P-masses
at integer multiples of h, ``pessimistic_estimate=True``, ``symmetric=True`` (the neighbour
relation of scores is symmetric: the add and remove directions are the same reversal-closed set).

**OpenDP**: ``make_user_measurement`` (features ``contrib`` and ``honest-but-curious``) with
``renyi_divergence()`` as the output measure: its privacy map returns, for d_in <= 1, the curve
α ↦ the certified upper end of D_α (for α between grid points, the next grid point above — D_α
is nondecreasing in α; beyond the grid, loss_max).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ..numbers.backends import ball_context
from . import supremum as S

__all__ = ["DominatingPLD", "dominating_pld", "to_dp_accounting", "to_opendp"]

#: grid points a dominating PLD may have (each is a certified branch-and-bound)
MAX_GRID = 20_000


@dataclass(frozen=True)
class DominatingPLD:
    """A discrete pessimistic PLD: P-masses at losses i·h (floats rounded up) and the mass at +∞.

    Attributes:
        interval: h.
        pmf: {i: P-mass at loss i·h}.
        infinity_mass: P-mass at +∞.
        grid_upper, grid_lower: certified ends of δ*(i·h) for i = 0..M.
    """

    interval: float
    pmf: dict
    infinity_mass: float
    grid_upper: tuple
    grid_lower: tuple

    def delta(self, eps: float) -> float:
        """δ(ε) of this pair (float; its own rounding is ≲ 1e-15 relative)."""
        return self.infinity_mass + sum(p * -math.expm1(eps - i * self.interval) for i, p in self.pmf.items()
                                        if i * self.interval > eps)

    def rounding_bound(self, eps: float) -> float:
        """Proven bound on (exported δ(ε)) − δ*(ε) for ε >= 0 (module docstring)."""
        i = int(math.floor(eps / self.interval))
        if i >= len(self.grid_upper) - 1:
            return 0.0
        return max(0.0, self.grid_upper[i] - self.grid_lower[i + 1])


def dominating_pld(curve: Any, interval: float = 1e-2) -> DominatingPLD:
    """The dominating discrete pair of ``curve`` on the grid ``interval`` (module docstring)."""
    from flint import arb

    if not (isinstance(interval, float) and 1e-5 <= interval <= 1.0):
        raise ValueError(f"interval must be a float in [1e-5, 1], got {interval!r}")
    lmax = max(f.loss_max for f in curve.upper_families)
    M = int(math.ceil(lmax / interval))
    if M + 1 > MAX_GRID:
        raise ValueError(f"interval: {M + 1} grid points needed (at most {MAX_GRID}); take a coarser interval")
    grid = [repr(i * interval) for i in range(M + 1)]
    pts = [p for j in range(0, len(grid), 200) for p in curve.delta(grid[j:j + 200], tol=1e-13)]
    up_vals = [p.upper for p in pts]
    lo_vals = [p.lower for p in pts]
    up_vals[M] = 0.0  # ε_M >= loss_max: δ* = 0 (curve.delta gives exactly 0 there)
    with ball_context(S.PREC):
        h = arb(interval)
        xs, ys = {}, {}
        for i in range(-M, M + 1):
            xs[i] = (i * h).exp()
            if i >= 0:
                ys[i] = arb(up_vals[i])
            else:
                x = xs[i]
                ys[i] = arb(S.up(1 - x + x * arb(up_vals[-i])))
        # lower convex hull in floats, then certify convexity in arb (drop a vertex where it is not certain)
        verts: list[int] = []
        for i in range(-M, M + 1):
            while len(verts) >= 2 and _not_convex(xs, ys, verts[-2], verts[-1], i):
                verts.pop()
            verts.append(i)
        while True:
            slopes = [arb(-1)] + [(ys[b] - ys[a]) / (xs[b] - xs[a]) for a, b in zip(verts, verts[1:])] + [arb(0)]
            bad = [j for j in range(len(verts)) if not slopes[j + 1] - slopes[j] > 0]
            inner = [j for j in bad if 0 < j < len(verts) - 1]
            if not inner:
                if bad:
                    raise ArithmeticError("dominating PLD: the end vertices are not certified (precision)")
                break
            del verts[inner[0]]
        pmf: dict[int, float] = {}
        total = arb(0)
        for j, v in enumerate(verts):
            pv = (slopes[j + 1] - slopes[j]) * xs[v]
            pmf[v] = S.up(pv)
            total += pv
        inf_mass = max(0.0, S.up(1 - total))
    return DominatingPLD(interval, pmf, inf_mass, tuple(up_vals), tuple(lo_vals))


def _not_convex(xs: dict, ys: dict, a: int, b: int, c: int) -> bool:
    """Float test: b lies on or above the chord from a to c (b is not a hull vertex)."""
    xa, xb, xc = float(xs[a].mid()), float(xs[b].mid()), float(xs[c].mid())
    ya, yb, yc = float(ys[a].mid()), float(ys[b].mid()), float(ys[c].mid())
    return (yb - ya) * (xc - xa) >= (yc - ya) * (xb - xa)


def to_dp_accounting(curve: Any, interval: float = 1e-2) -> Any:
    """A dp_accounting ``PrivacyLossDistribution`` dominating every neighbouring pair of ``curve``.

    Raises:
        ImportError: dp_accounting is not installed (``pip install dpexact[curves]``).
    """
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_dp_accounting needs dp-accounting (pip install 'dpexact[curves]')") from exc
    d = dominating_pld(curve, interval)
    return pld.PrivacyLossDistribution.create_from_rounded_probability(
        dict(d.pmf), d.infinity_mass, interval, pessimistic_estimate=True, symmetric=True)


def renyi_map(curve: Any, alphas: Optional[Sequence[Any]] = None) -> Any:
    """α ↦ certified upper end of sup D_α (step function from above on a grid; loss_max beyond)."""
    from .compose import DEFAULT_ALPHAS

    pts = curve.renyi(list(alphas or DEFAULT_ALPHAS), tol=1e-9)
    grid = sorted((p.at, p.upper) for p in pts)
    al = [a for a, _ in grid]
    lmax = max(f.loss_max for f in curve.upper_families)

    def f(alpha: float) -> float:
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1, got {alpha}")
        j = bisect.bisect_left(al, alpha)
        return grid[j][1] if j < len(grid) else lmax

    return f


def to_opendp(curve: Any, alphas: Optional[Sequence[Any]] = None) -> Any:
    """An OpenDP user measurement whose privacy map is the certified Rényi curve (module docstring).

    The measurement's function is not the mechanism (dpexact does not sample here): it refuses to
    run; the object is for composing privacy (``make_composition``/``.map``).
    """
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # pragma: no cover
        raise ImportError("to_opendp needs opendp (pip install 'dpexact[curves]')") from exc
    dp.enable_features("contrib", "honest-but-curious")
    f = renyi_map(curve, alphas)

    def privacy_map(d_in: int) -> Any:
        if d_in > 1:
            raise ValueError("the certified curve is for one neighbouring step (d_in <= 1)")
        return (lambda alpha: 0.0 if d_in == 0 else f(alpha))

    def function(_x: Any) -> Any:
        raise NotImplementedError("the exported measurement carries the privacy curve only; sample with the mechanism itself")

    return dp.m.make_user_measurement(dp.user_domain("dpexact-input", lambda _x: True), dp.symmetric_distance(),
                                      dp.renyi_divergence(), function, privacy_map)
