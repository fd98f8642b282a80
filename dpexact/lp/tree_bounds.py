"""Rigorous float64 bounds on the LP optimum from any approximate solution, by tree sweeps.

Works for every solver route, vertex or interior point, at every size the LP can be built
(O(N) numpy work, N = number of variables), so every float optimum carries a proven interval.
Units inside: ``cost(v) = mult(c)·c_ℓ·ℓ`` (the objective is ``Σ_q E[err] / 2Δ``); the bounds
are returned in score units (``× 2Δ``).

**Lower bound** (weak duality, using :mod:`.privacy_forest`). With ``U_c`` the dual of class
``c``'s sum-to-one row, the dual of the z-form LP is

    maximise Σ_c U_c   subject to   R_v(U) >= 0 for every variable v,
    R_v = cost(v) − c_ℓ(v)·U_{c(v)} + ρ Σ_{children w of v} R_w            (ρ = e^{−ε}),

(``R_v`` is the dual of ``v``'s privacy row; at a root, the reduced cost of ``z(v) >= 0``).
For any float ``U`` one leaves-to-roots sweep gives ``R̂`` and a bound ``e_v`` on its rounding
error (standard ``γ_m = m·u/(1 − m·u)`` analysis, ``u = 2⁻⁵³``, with ``m`` = (depth + 1)·
(max children + 3) + 2 operations per path and the ball ``ρ ∈ [ρ̂ ± r]``, doubled for
safety). Lowering ``U_c`` raises every ``R`` (all weights ``ρ^d c_ℓ`` are positive), so

    U′_c = U_c − max_{v ∈ c} max(0, e_v − R̂_v) / c_ℓ(v)         (rounded down)

is dual feasible and ``Σ_c U′_c`` (summed exactly by ``math.fsum``, rounded down) is a lower
bound on the optimum. One pass suffices: ``R′_v >= R_v + c_ℓ(v)(U_c − U′_c) >= 0``. Before
it, a heuristic leaves-to-roots pass (:func:`_lower_duals`) lowers ``U`` where subtree sums
go negative, charging a node only after its descendants' classes were lowered; this halves
the repair's loss for first-order (PDLP) duals and does not affect validity.

**Upper bound** (a feasible point). ``z`` is clipped at 0 and renormalised per class, then
mixed with the anchor ``z_F(c, ℓ) = σ^ℓ / Σ_j c_j σ^j``, ``σ = e^{−ε/2}`` (exponential
weights at ε/2: every privacy row holds with ratio ``>= σ > ρ``, pf App. D's rows for EM), with
the least weight λ that makes every row provably ``>= 0``. The objective of the mixture,
bounded above with its rounding errors, is an upper bound on the optimum, and the mixture
itself (``z``) is a feasible mechanism up to float64 rounding of its stored values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .privacy_forest import privacy_forest
from .regular_lp import RegularLP

__all__ = ["OptimumBounds", "optimum_bounds", "EpsilonRangeError"]

_U = 2.0**-53


class EpsilonRangeError(ArithmeticError, ValueError):
    """An ε outside the range where the float64 bounds exist (too large: e^(-ε) underflows; too small:
    margins below float64 resolution): an argument out of range (a ValueError, exit 2 at the CLI)
    as much as an arithmetic limit."""


def _gamma(m: int) -> float:
    return m * _U / (1 - m * _U)


@dataclass(frozen=True)
class OptimumBounds:
    """``lower <= Σ_q E[err(M*, q)] <= upper`` (score units), proven in float64 with error bounds.

    Attributes:
        lower, upper: the interval (floats rounded outwards).
        z: the feasible point whose objective is bounded by ``upper`` (LP variable order).
        mixing: weight λ of the ε/2 exponential-weights anchor in ``z``.
        dual_repair: largest lowering ``U_c − U′_c`` of a class dual (units of the objective / 2Δ).
    """

    lower: float
    upper: float
    z: np.ndarray
    mixing: float
    dual_repair: float

    @property
    def width(self) -> float:
        return self.upper - self.lower

    @property
    def relative_width(self) -> float:
        return self.width / self.upper if self.upper > 0 else 0.0


def _rho_ball(lp: RegularLP) -> tuple[float, float]:
    """Float ``ρ̂`` and a bound ``r >= |e^{−ε} − ρ̂|``."""
    b = lp.rho.to_arb(96)
    mid = float(b.mid())
    return mid, float(b.rad()) * 2 + abs(mid) * 2.0**-52


def _to_score_units(value: float, lp: RegularLP, up: bool) -> float:
    """``value × 2Δ`` rounded outwards."""
    two_delta = lp.sensitivity * 2
    if two_delta.is_rational:
        exact = Fraction(value) * two_delta.to_fraction()
        f = float(exact)
        if (Fraction(f) < exact) if up else (Fraction(f) > exact):
            f = float(np.nextafter(f, np.inf if up else -np.inf))
        return f
    b = two_delta.to_arb(96) * value
    ends = b.upper() if up else b.lower()
    return float(np.nextafter(float(ends), np.inf if up else -np.inf))


def _weights(lp: RegularLP) -> np.ndarray:
    w = lp.var_mult * lp.var_count * lp.var_level  # Python ints, exact
    if max(w, default=0) >= 2**53:
        raise ValueError("lp: multiplicities too large for exact float64 weights")
    return w.astype(np.float64)


def _lower_duals(lp: RegularLP, U: np.ndarray, cost: np.ndarray, rho: float) -> np.ndarray:
    """Heuristic leaves-to-roots pass lowering class duals where a subtree sum goes negative.

    A node's deficit is charged to its own class only after its descendants' classes have
    been lowered (which already raised its subtree sum), so ancestors are not over-repaired
    as in the one-shot repair. The lowered duals are then re-checked and repaired rigorously
    by the caller; this pass only makes that final repair small.
    """
    forest = privacy_forest(lp)
    cnt = lp.var_count.astype(np.float64)
    cls = lp.var_class
    U = U.copy()
    U0 = U.copy()
    R = cost - cnt * U[cls]
    scale = 1e-12 * (np.abs(cost) + cnt * np.abs(U[cls]))
    for grp in reversed(forest.levels):
        c = cls[grp]
        cur = R[grp] + cnt[grp] * (U0[c] - U[c])
        lower_by = np.zeros(len(lp.classes))
        np.maximum.at(lower_by, c, np.maximum(scale[grp] - cur, 0.0) / cnt[grp])
        U -= lower_by
        cur = R[grp] + cnt[grp] * (U0[c] - U[c])
        R[grp] = cur
        nr = grp[forest.parent[grp] >= 0]
        np.add.at(R, forest.parent[nr], rho * R[nr])
    return U


def optimum_bounds(lp: RegularLP, z: np.ndarray, class_duals: np.ndarray) -> OptimumBounds:
    """Proven bounds on ``lp``'s optimum from an approximate primal ``z`` and class duals.

    Args:
        lp: the reduced LP.
        z: approximate probabilities ``z(c, ℓ)`` (any float vector of the right size; negative
            entries are clipped, each class renormalised).
        class_duals: approximate duals of the sum-to-one rows in the units of
            :meth:`RegularLP.float_arrays` (objective divided by ``2Δ|Q|``), e.g. HiGHS's
            ``row_dual`` of those rows.

    Raises:
        ValueError: wrong sizes or non-finite entries.
        ArithmeticError: the anchor's margins could not be proven positive (ε too small for
            float64).
    """
    nv, nc = lp.num_vars, len(lp.classes)
    z = np.asarray(z, dtype=np.float64)
    u_in = np.asarray(class_duals, dtype=np.float64)
    if z.shape != (nv,):
        raise ValueError(f"z: expected {nv} values, got shape {z.shape}")
    if u_in.shape != (nc,):
        raise ValueError(f"class_duals: expected {nc} values, got shape {u_in.shape}")
    if not (np.all(np.isfinite(z)) and np.all(np.isfinite(u_in))):
        raise ValueError("z, class_duals: must be finite")
    forest = privacy_forest(lp)
    rho, rho_err = _rho_ball(lp)
    if not rho - rho_err > 0:  # e^{-ε} below float64's smallest normal: the margins below divide by it
        raise EpsilonRangeError(f"epsilon: e^(-ε) = e^(-{lp.epsilon}) underflows float64; the LP's "
                              "proven float bounds cannot be computed at this ε")
    cnt = lp.var_count.astype(np.float64)
    cls = lp.var_class
    cost = _weights(lp)
    inf = np.inf

    # ---- lower bound: repair the duals ----------------------------------------------------
    U = _lower_duals(lp, u_in * float(lp.num_vectors), cost, rho)
    g = cost - cnt * U[cls]
    a0 = cost + cnt * np.abs(U[cls])
    R = forest.subtree_sums(g, rho)
    A = forest.subtree_sums(a0, rho + rho_err)
    m_ops = (forest.max_depth + 1) * (forest.max_children + 3) + 2
    tau = 2 * (_gamma(m_ops) + (forest.max_depth + 1) * rho_err / (rho - rho_err))
    err = 2 * tau * A
    deficit = np.maximum(err - R, 0.0) / cnt
    delta = np.zeros(nc)
    np.maximum.at(delta, cls, deficit)
    delta *= 1 + 4 * _U
    U2 = np.where(delta > 0, np.nextafter(U - delta, -inf), U)
    lower_units = float(np.nextafter(math.fsum(U2), -inf))
    lower = _to_score_units(lower_units, lp, up=False)

    # ---- upper bound: a feasible point -----------------------------------------------------
    sigma = float(np.sqrt(rho))
    if not (rho + rho_err < sigma <= 1.0):
        raise EpsilonRangeError("epsilon: too small to separate e^{-ε/2} from e^{-ε} in float64")
    lev = lp.var_level
    powers = np.ones(int(lev.max(initial=0)) + 1)  # σ^ℓ by repeated products (error γ_ℓ)
    for j in range(1, powers.size):
        powers[j] = powers[j - 1] * sigma
    pw = powers[lev]
    zf = pw / np.bincount(cls, weights=cnt * pw, minlength=nc)[cls]
    zc = np.maximum(z, 0.0)
    sums = np.bincount(cls, weights=cnt * zc, minlength=nc)
    bad = sums < 0.5  # an approximation this far off: use the anchor for the class
    zt = np.where(bad[cls], zf, zc / np.where(bad, 1.0, sums)[cls])
    kk = lp.k + 1
    ms = _gamma(2 * kk + 8)
    rv, ro = lp.row_var, lp.row_other
    r_hat = zt[rv] - rho * zt[ro]
    r_low = r_hat - (4 * ms * (zt[rv] + zt[ro]) + 2 * rho_err * zt[ro])
    m_hat = zf[rv] - rho * zf[ro]
    m_low = m_hat - (4 * ms * (zf[rv] + zf[ro]) + 2 * rho_err * zf[ro])
    if m_low.size and m_low.min() <= 0:
        raise EpsilonRangeError("epsilon: the anchor's privacy margins are below float64 resolution")
    need = np.maximum(-r_low, 0.0)
    lam = float(np.max(need / (need + m_low), initial=0.0))
    if lam > 0:
        lam = min(1.0, lam * (1 + 8 * _U) + 2.0**-1000)
    f1 = math.fsum(cost * zt) * (1 + 4 * _U) * (1 + 2 * ms)
    f2 = math.fsum(cost * zf) * (1 + 4 * _U) * (1 + 2 * ms)
    upper_units = ((1 - lam) * f1 + lam * f2) * (1 + 4 * _U)
    upper = _to_score_units(upper_units, lp, up=True)
    zmix = (1 - lam) * zt + lam * zf
    return OptimumBounds(lower, upper, zmix, lam, float(delta.max(initial=0.0)))
