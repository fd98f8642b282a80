"""The scalar rules of the float PF quadrature (:mod:`.quadrature_float`): how long each series is and
how many nodes the rule needs, from the a-priori moment bound and the Bernstein bound.

Plain float code on a few numbers, written so that it runs as it is in Python (the numpy route) and
compiled by numba inside the kernel (:mod:`.quadrature_kernel`): one source for both routes, so the
two cannot disagree on a length or a bound. Hence the restrictions: ``math`` only, loops instead of
generators, tuples instead of lists, and no function here calls another (numba resolves a called
name to the plain Python function, which it cannot compile inside a kernel).

The moment bound (module docstring of :mod:`.quadrature_float`): ``log(M_k/M_0) <= λ(k) =
min(k log T, log 2P + log k! - (k+1) log S)``, with ``lT = log T``, ``l2P = log 2P``, ``lS = log S_lo``.
"""

from __future__ import annotations

import math

from .quadrature import MAX_NODES, RHOS

__all__ = ["KMAX", "KF_MAX", "GROUP_MIN", "TINY_R", "TINY_K", "TINY_J", "CUT", "ELLIPSES", "log_ratio", "threshold",
           "tiny_threshold", "series_lengths", "node_rule"]

KMAX = 14  # G's series stops here; heavier weights are large (direct node sums)
KF_MAX = 60  # log F's power sums at most (T < 1 when no weight is large: convergent)
GROUP_MIN = 128  # large weights are grouped by value (ties) only above this count (a sort; the kernel
#                   multiplies an ungrouped column at ~2 ns a node, so 38 large weights at n = 10^3 uniform skip it)
# The tiny class (every weight p <= p_0, handled in one branch-free pass over all entries, no
# compaction): log F through the power sums S_1..S_TINY_R, G through TINY_K + 1 terms M_0..M_K, the
# log-pmf's log1p(y) through TINY_J terms of its alternating series. Measured at uniform scores
# (n = 10^3..10^6): R = 6, K = 5 leave 8 % / 6 % / 2 % / 0 % of the weights to the medium class where
# the former two-term tiny class left 38 / 36 / 31 / 26 % (benchmarks/README.md).
TINY_R = 6
TINY_K = 5
TINY_J = 4  # y <= y_max ≈ 2e-4 at the 1e-19 target (every bench input): y^5/5 ≈ 4e-20
CUT = 2.0**-100  # weights below CUT skip the tiny powers (no subnormal products); their k >= 3 log terms and
#                  G's p-terms are bounded instead (cut² S_1 t³/3 and CUT·M_1/M_0: ~1e-60 and ~1e-30)

#: per ρ in RHOS: ``(α, b², 2 log ρ, log(ρ² - 1))`` of the ellipse on [0, 1] (scaled by T in :func:`node_rule`)
ELLIPSES = tuple(((r + 1 / r) / 4 - 0.5, ((r - 1 / r) / 4) ** 2, 2 * math.log(r), math.log(r * r - 1)) for r in RHOS)


def log_ratio(k: int, lT: float, l2P: float, lS: float) -> float:
    """``λ(k)``: ``log`` of the bound ``M_k/M_0 <= min(T^k, 2P k!/S^{k+1})``."""
    return min(k * lT, l2P + math.lgamma(k + 1) - (k + 1) * lS)


def threshold(k: int, target: float, T: float, lT: float, l2P: float, lS: float) -> float:
    """The largest p with ``p^{k+1} e^{λ(k+1)} / (1 - pT) <= target`` and ``pT <= 1/2``."""
    lr = min((k + 1) * lT, l2P + math.lgamma(k + 2) - (k + 2) * lS)
    p = math.exp((math.log(target / 2) - lr) / (k + 1))
    return min(p, 0.5 / T)


def tiny_threshold(R: int, K: int, target: float, S: float, T: float, lT: float, l2P: float,
                   lS: float) -> float:
    """``p_0``, the largest weight of the tiny class, a priori: the smaller of the largest p whose log
    series after R terms is within the target, ``p^R S e^{λ(R+1)}/((R+1)(1 - pT)) <= target`` (every
    tiny weight ``<= p`` and ``Σ p <= S``), and the largest p whose G series after K terms is,
    ``p^{K+1} e^{λ(K+1)}/(1 - pT) <= target`` (:func:`threshold`); both with ``pT <= 1/2``."""
    lr = min((R + 1) * lT, l2P + math.lgamma(R + 2) - (R + 2) * lS)
    p_f = math.exp((math.log(target * (R + 1) / (2 * S)) - lr) / R)
    lr = min((K + 1) * lT, l2P + math.lgamma(K + 2) - (K + 2) * lS)
    p_g = math.exp((math.log(target / 2) - lr) / (K + 1))
    return min(p_f, p_g, 0.5 / T)


def series_lengths(p_M: float, S1_med: float, target: float, T: float, lT: float, l2P: float,
                   lS: float) -> tuple[int, int]:
    """``(K_F, K_pre)`` for medium weights up to ``p_M`` summing to ``S1_med``, a priori:
    ``K_F`` the first k in [2, KF_MAX] whose weighted log-series remainder
    ``p_M^k S_1 e^{λ(k+1)}/(k+1) <= target (1 - p_M T)``; ``K_pre`` the first k in [1, KMAX] with
    ``p_M^{k+1} e^{λ(k+1)}/(1 - p_M T) <= target`` (G's series; the a-posteriori K is at most this)."""
    lpm, l1mT = math.log(p_M), math.log(1 - p_M * T)
    lS1 = math.log(max(S1_med, 1e-300))
    lt = math.log(target)
    K_F = KF_MAX
    for k in range(2, KF_MAX):
        lr = min((k + 1) * lT, l2P + math.lgamma(k + 2) - (k + 2) * lS)
        if k * lpm + lS1 - math.log(k + 1) + lr <= lt + l1mT:
            K_F = k
            break
    K_pre = KMAX
    for k in range(1, KMAX):
        lr = min((k + 1) * lT, l2P + math.lgamma(k + 2) - (k + 2) * lS)
        if (k + 1) * lpm + lr - l1mT <= lt:
            K_pre = k
            break
    return K_F, K_pre


def node_rule(T: float, S: float, S2: float, target_abs: float) -> tuple[int, float]:
    """Fewest Gauss–Legendre nodes (a multiple of 4 in [8, MAX_NODES]) whose Bernstein bound is
    ``<= target_abs``, and that bound (:mod:`dpexact.numbers.gauss_legendre`).

    On the ellipse of ``ρ`` (centre T/2, semi-axes a, b; ``α = a - T/2``) every factor has
    ``log|1 - p z| <= ½ log((1 + pα)² + (pb)²) = log(1 + pα) + ½ log(1 + (pb)²/(1 + pα)²) <= pα + (pb)²/2``
    for every weight (``p <= 1``, ``T <= 1``: the first square is the maximum, :mod:`.quadrature`), so
    ``log M <= α S + b² S_2/2`` with the sums over all weights: no per-weight logarithm."""
    lc = math.log(T / 2 * 64 / 15)
    best_n = float(MAX_NODES)
    for alpha, b2, l2r, lr2m1 in ELLIPSES:
        log_m = T * alpha * S + T * T * b2 * S2 / 2
        need = (lc - math.log(target_abs) + log_m - lr2m1) / l2r
        if need < best_n:
            best_n = need
    n_nodes = min(MAX_NODES, max(8, -(-math.ceil(max(best_n, 0.0)) // 4) * 4))
    best = math.inf
    for alpha, b2, l2r, lr2m1 in ELLIPSES:
        log_m = T * alpha * S + T * T * b2 * S2 / 2
        c = lc + log_m - lr2m1 - n_nodes * l2r
        if c < best:
            best = c
    return n_nodes, (math.exp(best) * (1 + 2.0**-40) if best < 700 else math.inf)
