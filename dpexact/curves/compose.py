"""Certified composition of a curve: three certified upper routes, a lower end from a witness pair.

**Upper** (adaptive k-fold composition): each route below is certified on its own, so their
minimum is (:func:`certified_epsilon`).

1. *Pure DP* (``"pure"``): every mechanism here is ε₀-DP and the exact k-fold of ε₀-RR bounds any
   adaptive composition of ε₀-DP mechanisms (Kairouz, Oh & Viswanath 2015).
2. *Rényi* (``"renyi"``): Rényi DP composes additively under adaptivity (Mironov 2017,
   Proposition 1), so with D̄_α the certified upper end of the worst-case D_α,

       ε(δ) <= min_α [k·D̄_α + log((α − 1)/α) − (log δ + log α)/(α − 1)]

   (Canonne, Kamath & Steinke 2020, Proposition 12), minimised over a fixed grid of α, in arb
   rounded upward.
3. *Dominating pair through the accountant* (``"pld"``): :meth:`PrivacyCurve.dominating_pld` is a
   discrete pair (P, Q) whose hockey-stick curve is above every neighbouring pair's for every
   α = e^ε >= 0 (:mod:`.export`'s docstring: a convex piecewise-linear majorant of the worst-case
   profile, both ends exact). A dominating pair of every step dominates their adaptive composition
   (Zhu, Dong & Wang 2022, Definition 7 and Theorem 10), so the certified ε(δ) of the k-fold product
   P^k vs Q^k — computed by the certified accountant (:mod:`dpexact.accounting`, its grid route:
   outward discretisation, FFT with its error bound) — is an upper end for the mechanism. One
   direction suffices: the dominance holds for every ordered neighbouring pair.
   :func:`dominating_pair` makes the pair a *pair of distributions* with exact rational masses
   (the pmf-pair event requires it): masses are rounded *down* and the deficits go to a P-only atom
   (loss +∞) and a Q-only atom (loss −∞); both moves can only raise the hockey-stick curve
   (proof at :func:`dominating_pair`).

Measured (benchmarks/curves_savings_v2.jsonl): the pair route is the tightest on 24 of 96 cells, all PF
(ε₀ = 0.1 at k >= 100, ε₀ = 0.5 at k = 100, and n >= 3 at k = 10); for EM the pair dominating
the *envelope* of the family composes worse than the Rényi route (EM, ε₀ = 1, k = 1000: 246.97 vs
202.71) — the envelope is not the curve of any one member.

**Lower** (non-adaptive k-fold of one member): for a binary member with losses ℓ₁ > ℓ₀ and
P-mass p on ℓ₁, the k-fold loss is jℓ₁ + (k − j)ℓ₀ with j ~ Binomial(k, p) under P, so

    δ_k(ε) = Σ_j C(k, j) p^j (1 − p)^{k−j} (1 − e^{ε − jℓ₁ − (k−j)ℓ₀})₊

exactly (in arb). Any ε with δ_k(ε) > δ certified is below the true ε(δ) of the mechanism
(the mechanism, used k times on these inputs, has this pair).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Optional, Sequence

from ..numbers.backends import ball_context
from ..numbers.golden import golden_section
from ..numbers.real import Real
from . import supremum as S

__all__ = ["DEFAULT_ALPHAS", "ROUTES", "pure_dp_epsilon", "rdp_epsilon", "rdp_epsilon_from_points", "binary_k_fold_delta",
           "witness_epsilon_lower", "dominating_pair", "pld_epsilon", "certified_epsilon"]

#: α grid of the Rényi route: 1 + 2^{j/4}/64 .. ~1000
DEFAULT_ALPHAS = tuple(f"{1 + 2 ** (j / 4) / 64:.6g}" for j in range(0, 64))
MAX_COMPOSITIONS = 100_000
#: the upper routes of :func:`certified_epsilon` (module docstring)
ROUTES = ("pure", "renyi", "pld")
#: grid step of the dominating pair: from 0.01 to 0.001 its composed ε moves <= 6e-5 relative for PF and <= 4e-3 for
#: EM (ε₀ = 0.1, k = 10..1000, measured through dp_accounting; EM's pair loses to the Rényi route by more) while the
#: pair costs 1.5–10× more to certify
PLD_INTERVAL = 1e-2
#: the accountant's relative width (its default): only the upper end is used; at 1e-3 the pair's upper end stayed
#: 3e-4 above its value at k = 10 (PF ε₀ = 0.1: 0.99933 vs FFT 0.99900), wider than the brackets it should narrow
PLD_TOLERANCE = 1e-4
#: CPU budget of one accountant query (the accountant refuses beforehand when its first pass would not fit)
PLD_MAX_SECONDS = 120.0
#: atoms × compositions the pair route accepts before any work (its grid window grows with both)
MAX_PLD_WORK = 2 * 10**6
#: the pair's masses are multiples of 2^−_BITS (rounded down): the deficit sent to ±∞ is <= atoms·2^−120
_BITS = 120


def rdp_epsilon(curve: Any, compositions: int, delta: float, alphas: Optional[Sequence[Any]] = None) -> Any:
    """Certified upper bound on ε(δ) after ``compositions`` adaptive uses: the smaller of the Rényi
    route and the exact k-fold of ε-randomised response (module docstring)."""
    r = rdp_epsilon_from_points(curve.renyi(list(alphas or DEFAULT_ALPHAS), tol=1e-9), compositions, delta)
    p = pure_dp_epsilon(curve_loss_max(curve), compositions, delta)
    return p if p.upper < r.upper else r


def pure_dp_epsilon(eps0: float, compositions: int, delta: float) -> Any:
    """Certified upper bound on ε(δ) for k adaptive uses of any ε₀-DP mechanism.

    The k-fold of binary ε₀-randomised response is the worst case of adaptive composition of
    ε₀-DP mechanisms (Kairouz, Oh & Viswanath 2015, Theorem 3.3); its δ_k(ε) is the binomial sum
    of :func:`binary_k_fold_delta`, evaluated in arb; bisection keeps an ε whose δ_k upper end is <= δ.
    """
    from flint import arb

    from .point import CurvePoint

    with ball_context(S.PREC):
        e0 = arb(eps0)
        p = e0.exp() / (1 + e0.exp())
        lo, hi = 0.0, compositions * eps0
        for _ in range(60):
            mid = (lo + hi) / 2
            if binary_k_fold_delta(p, e0, -e0, compositions, arb(mid)) <= delta:
                hi = mid
            else:
                lo = mid
    return CurvePoint(delta, str(delta), 0.0, hi, {"route": "k-fold of eps0-RR (Kairouz-Oh-Viswanath 2015)"})


def rdp_epsilon_from_points(points: Sequence[Any], compositions: int, delta: float) -> Any:
    """The Rényi route's ε(δ) from certified points ``(α, upper end of D_α)`` (:class:`CurvePoint`)."""
    from flint import arb

    from .point import CurvePoint

    if not 1 <= compositions <= MAX_COMPOSITIONS:
        raise ValueError(f"compositions must be in [1, {MAX_COMPOSITIONS}], got {compositions}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    best, best_a = math.inf, None
    with ball_context(S.PREC):
        ld = arb(delta).log()
        for p in points:
            a = Real.of(p.at_text).to_arb(S.PREC)  # the exact α at which D̄_α was certified
            v = compositions * arb(p.upper) + (1 - 1 / a).log() - (ld + a.log()) / (a - 1)
            u = S.up(v)
            if u < best:
                best, best_a = u, p.at
    return CurvePoint(delta, str(delta), 0.0, max(best, 0.0), {"route": "Renyi (CKS 2020 Prop. 12)", "alpha": best_a})


def binary_k_fold_delta(p: Any, l1: Any, l0: Any, k: int, eps: Any) -> Any:
    """δ_k(ε) of the k-fold product of a binary pair (arb; module docstring)."""
    from flint import arb

    total = arb(0)
    c = arb(1)
    one_p = 1 - p
    for j in range(k + 1):
        if j:
            c = c * (k - j + 1) / j
        loss = j * l1 + (k - j) * l0
        if loss > eps:
            total += c * p ** j * one_p ** (k - j) * (1 - (eps - loss).exp())
        elif not loss <= eps:
            total += (c * p ** j * one_p ** (k - j) * (1 - (eps - loss).exp())).union(arb(0))
    return total


def witness_epsilon_lower(curve: Any, compositions: int, delta: float, grid: int = 16, refine: int = 0) -> Any:
    """Certified lower end of ε(δ) after k uses: best binary member on a θ grid, bisection on ε.

    ``refine`` > 0: then a golden-section search on θ within one grid step of the best member (same family
    and direction), ``refine`` steps; every θ evaluated is an exact member, so the maximum stays certified
    (measured: EM ε₀ = 1, k = 10: 7.476 at grid 8 → 7.713 with 14 steps).
    """
    from .point import CurvePoint

    best, info = 0.0, {}
    from .families import Family

    # members given as (Q, L) groups; closed-form families (Laplace) carry no binary member to search
    fams = [f for f in curve.lower_families if isinstance(f, Family)]
    top = None
    for fam in fams:
        thetas = [None] if not fam.parametrised else [(i + 0.5) / grid for i in range(grid)]
        for th in thetas:
            for rev in ((False,) if fam.symmetric else (False, True)):
                v = _member_epsilon(curve, fam, th, rev, compositions, delta, best)
                if v is not None and v > best:
                    best, info, top = v, {"family": fam.name, "theta": th, "direction": "Q||P" if rev else "P||Q"}, (fam, rev)
    if refine and top is not None and top[0].parametrised:
        fam, rev = top
        lo_t, hi_t = max(info["theta"] - 1 / grid, 1e-9), min(info["theta"] + 1 / grid, 1 - 1e-9)
        seen = {"best": best, "info": info}

        def f(t: float) -> float:
            """−ε of the member at θ = t (golden_section minimises); the best member is kept as it is evaluated."""
            v = _member_epsilon(curve, fam, t, rev, compositions, delta, 0.0)
            v = -math.inf if v is None else v
            if v > seen["best"]:
                seen.update(best=v, info={**seen["info"], "theta": t})
            return -v

        golden_section(f, lo_t, hi_t, refine, -1.0)  # width −1: all ``refine`` steps, as measured
        best, info = seen["best"], seen["info"]
    return CurvePoint(delta, str(delta), best, math.inf, info)


def _member_epsilon(curve: Any, fam: Any, th: Optional[float], rev: bool, compositions: int, delta: float,
                    floor: float) -> Optional[float]:
    """Certified lower end of the k-fold ε(δ) of one binary member (θ = ``th``), or None when it is not above
    ``floor`` (or the member is not binary)."""
    from flint import arb

    with ball_context(S.PREC):
        g = fam.directed(None if th is None else arb(th), rev)
        if len(g) != 2:
            return None
        (q1, l1), (q0, l0) = g if g[0][1] > g[1][1] else (g[1], g[0])
        p1 = q1 * l1.exp()
        if not (binary_k_fold_delta(p1, l1, l0, compositions, arb(floor)) > delta):
            return None
        lo, hi = floor, compositions * curve_loss_max(curve)
        for _ in range(40):
            mid = (lo + hi) / 2
            if binary_k_fold_delta(p1, l1, l0, compositions, arb(mid)) > delta:
                lo = mid
            else:
                hi = mid
    return lo


def curve_loss_max(curve: Any) -> float:
    return max(f.loss_max for f in curve.upper_families)


def dominating_pair(pld: Any) -> tuple[list[Fraction], list[Fraction]]:
    """The dominating pair of a :class:`~.export.DominatingPLD` as exact rational distributions (P, Q).

    The vertices v of ``pld`` (losses v·h) and the certified values y_v of the worst-case profile
    δ*(v·h) are re-read in arb, with both ends exact (y_M = 0; y_{−M} = 1 − e^{−Mh}, where δ* is
    1 − e^{ε} below −loss_max), and with slopes s_j of the chords (s = −1 before the first vertex, 0
    after the last) the pair is Q_v = s_{j+1} − s_j, P_v = Q_v e^{vh}: ΣQ_v = 1 (telescoping) and
    ΣP_v = D(0) = 1 exactly. A vertex where s_{j+1} > s_j is not certain is dropped (any vertex subset
    with both ends still gives a majorant of the convex δ*).

    Rounding (why the result still dominates): each P_v and Q_v is rounded *down* to a multiple of
    2^−120 below its ball, P′_∞ = 1 − ΣP′_v (a P-only atom, loss +∞) and Q′_{−∞} = 1 − ΣQ′_v (a
    Q-only atom, loss −∞), both >= 0 since the exact sums are 1. For every x = e^ε >= 0,

        H_x(P′‖Q′) = Σ(P′_v − xQ′_v)₊ + P′_∞ >= Σ(P′_v − xQ_v)₊ + P′_∞
                   >= Σ[(P_v − xQ_v)₊ − (P_v − P′_v)] + P′_∞ = H_x(P‖Q)

    ((·)₊ is nondecreasing and 1-Lipschitz; the Q-only atom adds (0 − xQ′_{−∞})₊ = 0). Rounding the
    P-masses *up* instead (as the float export does) would leave ΣP′ > 1, not a distribution.

    Returns:
        ``(p, q)``: lists of Fractions, each summing to exactly 1; the last two atoms are the P-only
        atom (q = 0) and the Q-only atom (p = 0).

    Raises:
        ArithmeticError: an end vertex is not certified convex, or a rounded sum exceeds 1 (precision).
    """
    from flint import arb

    with ball_context(S.PREC):
        h = arb(pld.interval)
        M = len(pld.grid_upper) - 1
        verts = sorted(pld.pmf)
        if verts[0] != -M or verts[-1] != M:
            raise ArithmeticError("dominating pair: the PLD's vertices do not span [-M, M]")
        x = {v: (v * h).exp() for v in verts}
        y = {}
        for v in verts:
            if v == M:
                y[v] = arb(0)
            elif v >= 0:
                y[v] = arb(pld.grid_upper[v])
            else:  # δ*(−ε) = 1 − e^{−ε} + e^{−ε} δ*(ε) (reversal-closed family), with δ*(Mh) = 0 exactly
                y[v] = 1 - x[v] + x[v] * arb(0 if -v == M else pld.grid_upper[-v])
        while True:
            s = [arb(-1)] + [(y[b] - y[a]) / (x[b] - x[a]) for a, b in zip(verts, verts[1:])] + [arb(0)]
            bad = [j for j in range(len(verts)) if not s[j + 1] - s[j] > 0]
            if not bad:
                break
            if bad[0] in (0, len(verts) - 1):
                raise ArithmeticError("dominating pair: an end vertex is not certified convex (precision)")
            del verts[bad[0]]
        scale = 2 ** _BITS
        p: list[Fraction] = []
        q: list[Fraction] = []
        for j, v in enumerate(verts):
            qv = s[j + 1] - s[j]
            p.append(_floor_fraction(qv * x[v], scale))
            q.append(_floor_fraction(qv, scale))
    p_inf, q_minf = 1 - sum(p), 1 - sum(q)
    if p_inf < 0 or q_minf < 0:
        raise ArithmeticError("dominating pair: rounded-down masses sum above 1 (precision)")
    return p + [p_inf, Fraction(0)], q + [Fraction(0), q_minf]


def _floor_fraction(b: Any, scale: int) -> Fraction:
    """The largest multiple of 1/scale below every point of the arb ``b``, at least 0 (scale a power of 2:
    the product and the floor of the ball's lower end are exact)."""
    f = (b * scale).lower().floor().unique_fmpz()
    if f is None:
        raise ArithmeticError("dominating pair: an unbounded mass")
    return Fraction(max(int(f), 0), scale)


def pld_epsilon(curve: Any, compositions: int, delta: float, interval: float = PLD_INTERVAL,
                tolerance: float = PLD_TOLERANCE, max_seconds: float = PLD_MAX_SECONDS, pld: Any = None) -> Any:
    """Certified upper end of ε(δ) after ``compositions`` adaptive uses: the curve's dominating pair composed
    by the certified accountant (module docstring, route 3).

    Args:
        curve: a :class:`~.curve.PrivacyCurve`.
        compositions, delta: k and δ.
        interval: the dominating pair's grid step (:meth:`PrivacyCurve.dominating_pld`).
        tolerance, max_seconds: the accountant's relative width and CPU budget.
        pld: an already built :class:`~.export.DominatingPLD` of ``curve`` (reused across k).

    Returns:
        A :class:`CurvePoint` whose ``upper`` bounds the mechanism's ε(δ); ``lower`` is 0 (the pair's own
        lower end is not a bound for the mechanism: it is in ``witness["pair_lower"]``).

    Raises:
        ValueError: k or δ out of range, or atoms × k above :data:`MAX_PLD_WORK` (with the figures).
        CostLimitError: the accountant's first pass would not fit ``max_seconds``.
    """
    import time

    from ..accounting.events import event_from_dict
    from ..accounting.grid_accounting import grid_epsilon
    from .point import CurvePoint

    _check_k_delta(compositions, delta)
    t0 = time.process_time()
    # cost bound before spending it: at most 2M + 3 atoms (M = ⌈loss_max/h⌉ grid points each side, the two ±∞
    # atoms); the accountant's window and FFT grow with atoms and with k
    h = pld.interval if pld is not None else interval
    atoms = 2 * math.ceil(curve_loss_max(curve) / h) + 3
    if atoms * compositions > MAX_PLD_WORK:
        raise ValueError(f"compositions: up to {atoms} atoms × {compositions} = {atoms * compositions} above "
                         f"{MAX_PLD_WORK}; take a coarser interval or another route")
    d = pld if pld is not None else curve.dominating_pld(interval)
    p, q = dominating_pair(d)
    # through the pmf-pair event's own checks (lists of exact strings summing to 1)
    ev = event_from_dict({"kind": "pmf-pair", "count": compositions, "p": [_text(a) for a in p], "q": [_text(b) for b in q]})
    # The grid route is called directly: with rational laws the Accountant takes its exact route, whose tables of
    # distinct likelihood ratios explode here (~|atoms|^k); the grid route is the one it uses for any other law.
    enc = grid_epsilon([ev], ("remove",), Real.of(delta), tolerance, max_seconds)
    info = {"route": "dominating pair through the certified accountant (Zhu-Dong-Wang 2022 Thm 10)",
            "interval": d.interval, "atoms": len(p), "pair_lower": enc.lower, "pair_upper": enc.upper,
            "accountant": enc.method, "tolerance_met": enc.detail.get("tolerance_met"),
            "cpu_seconds": time.process_time() - t0}
    return CurvePoint(delta, str(delta), 0.0, enc.upper, info)


def certified_epsilon(curve: Any, compositions: int, delta: float, routes: Sequence[str] = ROUTES,
                      alphas: Optional[Sequence[Any]] = None, interval: float = PLD_INTERVAL, pld: Any = None) -> Any:
    """Certified upper end of ε(δ) after ``compositions`` adaptive uses: the minimum over ``routes`` (each
    certified on its own; module docstring). A route that refuses on cost is recorded in
    ``witness["refused"]`` and the others are kept.

    Returns:
        A :class:`CurvePoint` with ``upper`` = the minimum, ``witness["route"]`` the route that gave it and
        ``witness["routes"]`` every route's upper end (``None`` when refused).
    """
    from ..cost_limits import CostLimitError
    from .point import CurvePoint

    _check_k_delta(compositions, delta)
    unknown = [r for r in routes if r not in ROUTES]
    if unknown or not routes:
        raise ValueError(f"routes must be a non-empty subset of {', '.join(ROUTES)}, got {list(routes)}")
    ups: dict[str, Any] = {}
    refused: dict[str, str] = {}
    for r in routes:
        try:
            if r == "pure":
                ups[r] = pure_dp_epsilon(curve_loss_max(curve), compositions, delta).upper
            elif r == "renyi":
                ups[r] = rdp_epsilon_from_points(curve.renyi(list(alphas or DEFAULT_ALPHAS), tol=1e-9), compositions, delta).upper
            else:
                ups[r] = pld_epsilon(curve, compositions, delta, interval, pld=pld).upper
        except (CostLimitError, ValueError) as exc:
            if r != "pld":
                raise
            ups[r], refused[r] = None, str(exc)
    done = {r: u for r, u in ups.items() if u is not None}
    if not done:
        raise ValueError(f"compositions: every route refused ({'; '.join(refused.values())})")
    best = min(done, key=lambda r: done[r])
    return CurvePoint(delta, str(delta), 0.0, done[best], {"route": best, "routes": ups, "refused": refused})


def _check_k_delta(compositions: int, delta: float) -> None:
    if isinstance(compositions, bool) or not isinstance(compositions, int) or not 1 <= compositions <= MAX_COMPOSITIONS:
        raise ValueError(f"compositions must be an integer in [1, {MAX_COMPOSITIONS}], got {compositions!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")


def _text(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"
