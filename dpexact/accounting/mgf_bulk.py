"""Certified bulk MGF m(z) = ∫_a^b p(y) e^{z L(y)} dy of one Poisson-subsampled Gaussian step at many complex
z = c + it, in vectorised floats, each value with a proved absolute error bound.

Law (standardised output y, as in :mod:`.discretise_gauss`): s(y) = μy − μ²/2, g(y) = log(1 − r + r e^{s(y)}),
ρ(y) = r e^{s}/(1 − r + r e^{s}). Remove: p = (1 − r)φ(y) + rφ(y − μ) = φ(y)e^{g(y)}, L = g. Add: p = φ, L = −g.

Method: composite Gauss–Legendre (m = :data:`M_NODES` nodes a panel) on float breakpoints a = y_0 < … < y_P = b,
the panels chosen per *level* T (every |t| <= T uses the level's panels): a y-grid of step <= :data:`W0` merged with
a grid uniform in g (each panel's phase range T·Δg <= :data:`OMEGA`), then every panel whose bound exceeds its
share of the tolerance is halved. Panels whose whole integrand is below their share are skipped (bounded, not
summed). The proved bound E is the sum of:

1. Remainder (Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3, stated there for
   the (n+1)-point rule; Fungrim "Gaussian quadrature" for the m-point form): for f analytic in the open Bernstein
   ellipse E_ρ with |f| <= M there, |∫_{−1}^1 f − Σ w_k f(x_k)| <= (64/15)·M·ρ^{2−2m}/(ρ² − 1); on a panel of
   half-width h times h. M over the panel's ellipse ⊂ rectangle [mid ± hA] × [± hB], A, B = (ρ ± 1/ρ)/2,
   V = hB: |φ(x+iv)| = φ(x)e^{v²/2}; |p| <= [(1−r)φ(x₀) + rφ(x₁ − μ)]e^{V²/2} (x₀, x₁ the rectangle's points nearest
   0, μ); g(x+iv) − g(x) = i∫_0^v g'(x+iτ)dτ with |g'(x+iτ)| = μ r e^{s}/|1 − r + r e^{s+iμτ}| <=
   μ r e^{s}/(1 − r + r e^{s}cos μV) when μV <= π/2, increasing in x, so |L(x+iv) − L(x)| <= D := μV·that at the
   right end (= μV when r = 1; Re(1 − r + r e^{s+iμv}) > 0 there, so the principal log is analytic), and |e^{zL}| <= exp(c·max L + (c + T)D) (L monotone: max at an end).
   Candidate ρ from :data:`RHOS` (μV <= 1.2), the smallest bound kept. Computed in logs; the log carries a float
   error far below the margin 1e-9·(1 + Σ|terms|) added to it.
2. Skipped panels: |∫| <= 2h·max_real|f| (the same bound with V = 0, A = 1).
3. Nodes and weights: gl_rule's nodes within tw_err (arb, :func:`.gauss_cells.gl_rule`), each weight within a
   relative w_rel (arb, :func:`_rule`); the float node ŷ = mid + h·x̂ is within Δy <= 1.01(h·tw_err + 2u(|mid| + 2h
   + |ŷ|)) of the exact node of the exact panel, and ŵ = h·ŵ⁰ within η·ŵ, η = 1.01(w_rel + 3u). Moving a node:
   |f'| = |f|·|p'/p + zL'| <= |f|(|y| + μ + |z|μρ) on the real line, and log|f| has slope <= K := max|y| + μ +
   (c + T)μ + 1, so |f(ŷ) − f(y*)| <= Δy·|f(ŷ)|(|ŷ| + Δy + μ + |z|λ)e^{KΔy}, λ = μ·min(1, 1.02ρ̂) (log ρ has slope
   <= μ; ρ̂ within 2% of ρ); the weights add η·Σ|ŵf(ŷ)|.
4. Evaluation: term_k = ŵ·exp(A_k + i t θ_k), A = −ŷ²/2 − ½log 2π + (1 + c)ĝ (remove; p = φe^{g}) or − cĝ (add),
   θ = ±ĝ. numpy's exp/log/expm1/log1p are assumed within 4 ulp (as in :mod:`.grid_measure`, :mod:`.gauss_cells`),
   and so are sin/cos (absolute error <= 8u on values in [−1, 1]; numpy calls the platform's libm/SIMD versions,
   which reduce the argument exactly: an assumption stated here). ĝ = log1p(r·expm1(ŝ)) (ĝ = ŝ when r = 1) is
   within β = 1.01(1.03·min(1, ρ̂)·δs + 8u|ĝ| + 11u|x̂|/(1 + x̂)) of g(ŷ): δs = 3u(|μŷ| + μ²/2) bounds ŝ's rounding,
   dg/ds = ρ, and log1p has condition number |x|/(1 + x) (x = r·expm1(s)). Â is within a = 1.01|k|β + u(2.2ŷ² + 8 +
   3.3|kĝ|) (k = 1 + c or −c; ½log 2π within 5u; three roundings); the phase fl(tθ̂) within |t|(β + u|θ̂|). Then
   |term̂ − term| <= 1.03·ê·(a + 26u + |t|(β + u|θ̂|)) (ê = ŵ·exp(Â); exp 8u, cos and sin 8u each, three products u
   each; a, β <= 1e-6 and |t|(β + u|θ̂|) <= 1e-3 are checked, so second-order terms fit in the factor 1.03).
4b. A block of rows t_j = t₀ + jΔ + d_j (d_j bounded by the float residual plus 3u(|t_j| + |t₀| + j|Δ|)) is
   computed as R_j = R₀·S^j, R₀ = e^{it₀θ̂}, S = e^{iΔθ̂} by cos/sin, S^{2^k} by squaring and R_{i+2^k} = R_i·S^{2^k}:
   a complex product is within √5u of the exact one (Brent, Percival & Zimmermann 2007; with an FMA 2u, Jeannerod et
   al. 2017), so by induction |R̂_j − e^{i t_j θ}| <= ε₀ + (|t₀| + j|Δ|)(β + u|θ̂|) + 1.01(j·11.4u + (j + popcount j)
   ·√5u) + d_j(|θ̂| + β); we charge (|t₀| + j|Δ|) as the phase multiplier, 1.01·16ju per unit ê (popcount j <= j)
   and d_j·Σê(|θ̂| + β).
5. Sums: each panel's m products summed (any order: γ_m·Σ|·|, Higham 2002, §3.1/§4.2), then the panels (γ_P):
   <= 1.5(γ_m + γ_P)(1 + γ_m)·Σê for the real and imaginary parts together (|Re R| + |Im R| <= √2(1 + ε) < 1.5).
6. Underflow: each exp and each bound may lose up to 2^-1074; we add N·2^-1060.
The positive sums of the error terms are themselves formed in floats: each is multiplied by (1 + γ_N), and the
final E by (1 + 1e-6).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .gauss_cells import U, gl_rule

__all__ = ["BulkLaw", "bulk_mgf", "outside_mass"]

#: Gauss–Legendre nodes a panel
M_NODES = 32
#: candidate ellipse parameters ρ for the remainder of a panel
RHOS = np.array([1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0, 15.0])
#: largest y-width of a panel before halving (the Gaussian and the tilt vary on scale ~1)
W0 = 1.0
#: largest phase range T·Δg of a panel before halving (m = 32 nodes resolve ~45 radians to 1e-17)
OMEGA = 60.0
#: the tolerance on the remainder of all panels together, relative to an estimate of m(c)
TOL = 1e-17
#: levels of T: |t| is served by the smallest T0·R^k >= |t|
T0, T_RATIO = 16.0, 1.5
#: rows (values of t) of one block of the (t, node) arrays: they stay in cache
T_BLOCK = 16
LOG_SQRT2PI = 0.5 * math.log(2 * math.pi)
C6415 = math.log(64 / 15) + 1e-15


@dataclass(frozen=True)
class BulkLaw:
    mu: float  # μ > 0
    r: float  # Poisson rate in (0, 1]
    remove: bool  # direction (module docstring)
    a: float  # window a < y <= b
    b: float


@functools.cache
def _rule(m: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """gl_rule's nodes x̂, weights ŵ⁰ and node error bound, and a bound on max_k |ŵ⁰_k − w⁰_k|/ŵ⁰_k (arb at 128
    bits): per weight, not gl_rule's absolute bound over the smallest weight (~60× smaller for m = 32)."""
    from flint import arb, ctx

    x, w, tw_err, _, _ = gl_rule(m)
    old = ctx.prec
    ctx.prec = 128
    try:
        rel = max(float((abs(arb.legendre_p_root(m, k, weight=True)[1] - arb(float(w[k]))) / arb(float(w[k]))).upper())
                  for k in range(m))
    finally:
        ctx.prec = old
    return x, w, tw_err, math.nextafter(rel * 1.01, math.inf)


def _gamma(k: int) -> float:
    return k * U / (1 - k * U)


def _g(law: BulkLaw, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ĝ(y), β >= |ĝ − g(y)|, λ >= |L'(y)|) in floats (module docstring, item 4)."""
    mu, r = law.mu, law.r
    hm = 0.5 * mu * mu
    s = mu * y - hm
    ds = 3 * U * (np.abs(mu * y) + hm)
    if r == 1.0:
        return s, ds, np.full_like(y, mu)
    x = r * np.expm1(s)
    g = np.log1p(x)
    rho = r * np.exp(s) / (1 + x)
    # dg/ds = ρ, and ρ moves by at most a factor e^{δs} between ŝ and s; ρ̂ is within 2% of ρ (checked by β <= 1e-6)
    beta = 1.01 * (1.03 * np.minimum(1.0, rho) * ds + 8 * U * np.abs(g) + 11 * U * np.abs(x) / (1 + x))
    return g, beta, mu * np.minimum(1.0, 1.02 * rho)


def _g_up(law: BulkLaw, y: np.ndarray) -> np.ndarray:
    g, beta, _ = _g(law, y)
    return g + beta


def _log_bound(law: BulkLaw, c: float, T: float, mid: np.ndarray, half: np.ndarray, A: np.ndarray | float,
               B: np.ndarray | float) -> np.ndarray:
    """log of an upper bound on |f| over the rectangle [mid ± half·A] × [± half·B] (item 1), for every |t| <= T."""
    mu, r = law.mu, law.r
    # widened by δ: the exact panel's ellipse (mid, half and A, B are rounded) lies inside the float rectangle
    d = 4 * U * (np.abs(mid) + half * A) + 1e-300
    xl, xr = mid - half * A - d, mid + half * A + d
    V = half * B + d
    x0 = np.clip(0.0, xl, xr)
    lp = -0.5 * x0 * x0
    if law.remove and r < 1.0:
        x1 = np.clip(mu, xl, xr)
        lp = np.logaddexp(math.log1p(-r) + lp, math.log(r) - 0.5 * (x1 - mu) ** 2)
    elif law.remove:
        x1 = np.clip(mu, xl, xr)
        lp = -0.5 * (x1 - mu) ** 2
    lmax = _g_up(law, xr) if law.remove else -_g(law, xl)[0] + _g(law, xl)[1]
    muV = mu * V
    if r == 1.0:
        D = muV
    else:
        with np.errstate(over="ignore"):
            s = mu * xr - 0.5 * mu * mu
            D = muV / (np.exp(math.log1p(-r) - math.log(r) - s) + np.cos(np.minimum(muV, 1.2)))
    terms = (lp, 0.5 * V * V, c * lmax, (c + T) * D)
    out = sum(terms) - LOG_SQRT2PI
    out = out + 1e-9 * (1 + sum(np.abs(x) for x in terms))
    return np.where(muV <= 1.2, out, np.inf)


def _panel_bounds(law: BulkLaw, c: float, T: float, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, ...]:
    """(bound if the panel is skipped, best remainder bound over RHOS) — absolute, per panel."""
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    with np.errstate(over="ignore", invalid="ignore"):
        skip = np.exp(_log_bound(law, c, 0.0, mid, half, 1.0, 0.0) + np.log(2 * half) + 1e-12)
        rho = RHOS[:, None]
        A, B = 0.5 * (rho + 1 / rho), 0.5 * (rho - 1 / rho)
        lb = _log_bound(law, c, T, mid, half, A, B)
        lrem = lb + np.log(half) + C6415 - (2 * M_NODES - 2) * np.log(rho) - np.log(rho * rho - 1)
        rem = np.exp(lrem.min(axis=0) + 1e-12)
    return skip, rem


def _scale(law: BulkLaw, c: float) -> float:
    """A rough estimate of m(c) (sets the target only; nothing sound depends on it)."""
    y = np.linspace(law.a, law.b, 1025)
    g = _g(law, y)[0]
    lf = -0.5 * y * y - LOG_SQRT2PI + ((1 + c) * g if law.remove else -c * g)
    top = float(lf.max())
    return math.exp(top) * float(np.exp(lf - top).sum()) * (y[1] - y[0])


def _panels(law: BulkLaw, c: float, T: float, tol: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Breakpoint pairs (lo, hi) of the summed panels and the proved bound of remainders and skipped panels."""
    a, b = law.a, law.b
    pts = [np.linspace(a, b, max(2, math.ceil((b - a) / W0) + 1))]
    ga, gb = float(_g(law, np.array([a]))[0][0]), float(_g(law, np.array([b]))[0][0])
    k = math.ceil(T * (gb - ga) / OMEGA)
    if k > 1:
        G = np.linspace(ga, gb, k + 1)[1:-1]
        s = G if law.r == 1.0 else np.log1p(np.expm1(G) / law.r)
        pts.append(np.clip((s + 0.5 * law.mu * law.mu) / law.mu, a, b))
    y = np.unique(np.concatenate(pts))
    lo, hi = y[:-1], y[1:]
    keep_lo, keep_hi, err = [], [], 0.0
    for _ in range(40):
        skip, rem = _panel_bounds(law, c, T, lo, hi)
        budget = tol * (hi - lo) / (b - a)
        sk = skip <= budget
        ok = ~sk & (rem <= budget)
        err += float(skip[sk].sum()) + float(rem[ok].sum())
        keep_lo.append(lo[ok])
        keep_hi.append(hi[ok])
        bad = ~sk & ~ok
        if not bad.any():
            break
        l, h = lo[bad], hi[bad]
        m = 0.5 * (l + h)
        fine = (m > l) & (m < h)
        if not fine.all():  # cannot halve: skipped or summed, whichever has the smaller (large, still true) bound
            sb, rb = skip[bad][~fine], rem[bad][~fine]
            err += float(np.minimum(sb, rb).sum())
            keep_lo.append(l[~fine][rb < sb])
            keep_hi.append(h[~fine][rb < sb])
            l, h, m = l[fine], h[fine], m[fine]
        lo, hi = np.concatenate([l, m]), np.concatenate([m, h])
    else:
        raise RuntimeError("mgf_bulk: panel refinement did not converge")
    return np.concatenate(keep_lo), np.concatenate(keep_hi), err * (1 + 1e-6)  # a positive float sum of < 1e9 terms


def _level(law: BulkLaw, c: float, T: float, tol: float) -> dict:
    """The level's nodes, per-node values and the t-independent parts of the error bound."""
    x0, w0, tw_err, w_rel = _rule(M_NODES)
    lo, hi, e_rem = _panels(law, c, T, tol)
    mid, half = (0.5 * (lo + hi))[:, None], (0.5 * (hi - lo))[:, None]
    y = mid + half * x0
    w = half * w0
    g, beta, lam = _g(law, y)
    k = (1 + c) if law.remove else -c
    kg = k * g
    A = (-0.5 * y * y - LOG_SQRT2PI) + kg  # the weight multiplies exp(A): one rounding instead of log's 4 ulp of |log w|
    theta = g if law.remove else -g
    a_err = 1.01 * abs(k) * beta + U * (2.2 * y * y + 8 + 3.3 * np.abs(kg))
    if not (a_err.max(initial=0.0) <= 1e-6 and beta.max(initial=0.0) <= 1e-6):
        raise ValueError("mgf_bulk: float evaluation outside the proved regime (|a|, β > 1e-6)")
    if A.max(initial=-np.inf) > 700:
        raise OverflowError("mgf_bulk: m(z) overflows float64")
    e = w * np.exp(A)
    dy = 1.01 * (half * tw_err + 2 * U * (np.abs(mid) + 2 * half + np.abs(y)))
    eta = 1.01 * (w_rel + 3 * U)
    n = y.size
    gN = 1 + _gamma(n + 8)
    ya = float(np.abs(y).max(initial=0.0))
    return {"y": y.ravel(), "w": np.broadcast_to(w, y.shape).ravel(), "theta": theta.ravel(), "beta": beta.ravel(),
            "e": e.ravel(), "P": len(lo), "n": n, "e_rem": e_rem, "eta": eta, "gN": gN,
            "S": float(e.sum()) * gN, "Sa": float((e * (a_err + 26 * U)).sum()) * gN,
            "Sb": float((e * (beta + U * np.abs(theta))).sum()) * gN,
            "S1": float((e * dy * (np.abs(y) + dy + law.mu + c * lam)).sum()) * gN,
            "S2": float((e * dy * lam).sum()) * gN, "K": ya + law.mu + (c + T) * law.mu + 1,
            "dymax": float(dy.max(initial=0.0)), "bmax": float((beta + U * np.abs(theta)).max(initial=0.0))}


def _error_parts(lv: dict, at: np.ndarray, tp: np.ndarray | None = None,
                 extra: np.ndarray | float = 0.0) -> dict[str, np.ndarray | float]:
    """The bound's terms at |t| = ``at``: remainders and skipped panels (items 1–2), evaluation (4: the phase error
    grows with ``tp`` >= |t|, plus ``extra`` from the recurrence of item 4b), nodes and weights (3), sums (5),
    underflow (6)."""
    m, P = M_NODES, lv["P"]
    fac = math.exp(lv["K"] * lv["dymax"])
    tp = at if tp is None else tp
    return {"rem": lv["e_rem"], "ev": 1.03 * (lv["Sa"] + tp * lv["Sb"]) + extra,
            "nodes": 1.03 * fac * (1 + lv["eta"]) * (lv["S1"] + at * lv["S2"]) + 1.03 * lv["eta"] * lv["S"],
            "sums": 1.5 * (_gamma(m) + _gamma(P)) * (1 + _gamma(m)) * lv["S"] * 1.01, "under": lv["n"] * 2.0**-1060}


def _rows(theta: np.ndarray, tb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """e^{i t_j θ} for the rows t_j of a block, and per row (tp_j, ρ_j): the phase multiplier and the extra error
    of item 4b per unit of Σê|θ̂| (ρ_j: grid deviation d_j) and of Σê (the rest, returned as the second factor).

    An arithmetic block (t_j = t_0 + jΔ up to rounding, as the caller's grids are) costs two sin/cos of a row:
    R_0 = e^{it_0θ}, S = e^{iΔθ}, then R_{i+2^k} = R_i·S^{2^k} (S squared in place) — else every row directly."""
    k = len(tb)
    if k >= 2:
        d = tb[1] - tb[0]
        j = np.arange(k)
        dev = np.abs(tb - (tb[0] + j * d))
        dev = (dev + 3 * U * (np.abs(tb) + abs(tb[0]) + j * abs(d))) * 1.01
        if dev.max() <= 8 * U * (float(np.abs(tb).max()) + 1):
            R = np.empty((k, len(theta)), dtype=complex)
            ph0, phd = tb[0] * theta, d * theta
            R[0].real, R[0].imag = np.cos(ph0), np.sin(ph0)
            S = np.cos(phd) + 1j * np.sin(phd)
            n = 1
            while n < k:
                w = min(n, k - n)
                np.multiply(R[:w], S, out=R[n:n + w])
                n += w
                if n < k:
                    S = S * S
            tp = abs(tb[0]) + j * abs(d)
            return R, tp, np.stack([dev, 1.01 * 16 * j * U])
    ph = np.multiply.outer(tb, theta)
    R = np.cos(ph) + 1j * np.sin(ph)
    return R, np.abs(tb), np.zeros((2, k))


def _evaluate(lv: dict, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The level's sum at each t (|t| <= its T) and its bound (items 3–6); t taken in increasing order, so that
    a grid's blocks are arithmetic."""
    P, m = lv["P"], M_NODES
    theta, e = lv["theta"], lv["e"]
    order = np.argsort(t, kind="stable")
    ts = t[order]
    out, E = np.empty(len(t), dtype=complex), np.empty(len(t))
    St = float((e * (np.abs(theta) + lv["beta"])).sum()) * lv["gN"]  # |θ| <= |θ̂| + β
    for i in range(0, len(t), T_BLOCK):
        tb = ts[i:i + T_BLOCK]
        R, tp, (dev, rec) = _rows(theta, tb)
        if float(tp.max()) * lv["bmax"] > 1e-3:  # first-order error analysis (the factors 1.01, 1.03) needs this
            raise ValueError("mgf_bulk: |t| too large for the float regime")
        R *= e
        idx = order[i:i + len(tb)]
        out[idx] = R.reshape(len(tb), P, m).sum(axis=2).sum(axis=1)
        extra = 1.03 * (dev * St + rec * lv["S"])
        E[idx] = sum(_error_parts(lv, np.abs(tb), tp, extra).values()) * (1 + 1e-6)
    return out, E


def bulk_mgf(law: BulkLaw, c: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """m̃ (complex128, one per t) and E (float64, one per t) with |m̃_n − m(c + i t_n)| <= E_n, proved;
    m(z) = ∫_a^b p(y) e^{z L(y)} dy. c >= 0; t real, any sign."""
    if not (law.mu > 0 and 0 < law.r <= 1 and law.a < law.b and c >= 0):
        raise ValueError("mgf_bulk: need mu > 0, 0 < r <= 1, a < b, c >= 0")
    if not (law.mu * max(abs(law.a), abs(law.b)) <= 600 and max(abs(law.a), abs(law.b)) <= 1e3):  # e^{s} finite
        raise ValueError("mgf_bulk: window outside the proved float regime")
    t = np.asarray(t, dtype=float)
    tol = TOL * _scale(law, c)
    if math.isinf(tol):
        raise OverflowError("mgf_bulk: m(c) overflows float64")
    if not tol > 0:  # the whole integrand underflows: every panel is then skipped with its (tiny, true) bound
        tol = 2.0**-1000
    at = np.abs(t)
    lev = np.where(at <= T0, 0, np.ceil(np.log(np.maximum(at, T0) / T0) / math.log(T_RATIO) - 1e-12))
    val, err = np.empty(len(t), dtype=complex), np.empty(len(t))
    for k in np.unique(lev):
        T = T0 * T_RATIO ** int(k)
        while T < at[lev == k].max():  # the level must cover its t exactly (rounding of the log above)
            T *= 1 + 1e-12
        sel = lev == k
        v, E = _evaluate(_level(law, c, T, tol), t[sel])
        val[sel], err[sel] = v, E
    return val, err


def outside_mass(law: BulkLaw) -> float:
    """An upper bound on ∫_{y <= a or y > b} p(y) dy (untilted), by arb's erfc."""
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = 80
    try:
        def tail(x: arb) -> arb:  # P(N(0,1) > x) = erfc(x/√2)/2
            return (x / arb(2).sqrt()).erfc() / 2

        def mass(shift: arb) -> arb:
            return tail(arb(law.b) - shift) + tail(shift - arb(law.a))

        r = arb(law.r)
        tot = mass(arb(0)) if not law.remove else (1 - r) * mass(arb(0)) + r * mass(arb(law.mu))
        return math.nextafter(float(tot.upper()), math.inf)
    finally:
        ctx.prec = old
