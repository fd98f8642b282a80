"""Certified suprema over a family of pairs: branch-and-bound in θ, chord bounds in α.

**θ (inputs).** ``sup_θ g(θ)`` over θ ∈ [0, 1] for each member family and direction: boxes
are bounded by ``min(naive enclosure, mean-value form)`` (:mod:`.dual`), split at the midpoint,
the box of largest upper bound first; the value at each box's midpoint (an arb enclosure at an
exact dyadic θ) is a certified *lower* end and its θ the witness. Stops when the largest upper
bound is within ``tol`` of the best lower end or after ``max_boxes`` boxes (the bracket is then
wider, still certified).

**α (Rényi orders).** With φ_θ(α) = log E_Q[e^{αL}] = (α − 1) D_α, Ψ(α) = sup_θ φ_θ(α) is
convex (a supremum of cumulant generating functions) with Ψ(1) = 0, and

    ρ = sup_{α>1} D_α/α = sup_{α>1} Ψ(α)/(α(α − 1)).

* α ∈ (1, 1 + β₀]: Lagrange's remainder of the cumulant generating function gives
  D_{1+β} <= KL + β·Var_tilted(L)/2 <= KL + β R²/8 (Popoviciu: a variance of a law on an
  interval of length R is <= R²/4), so D_α/α <= sup_θ KL + β₀R²/8;
* α ∈ [a, b] ⊂ [1 + β₀, A]: by convexity Ψ lies below the chord through upper bounds of Ψ(a),
  Ψ(b); the chord over α(α − 1) is bounded on [a, b] by its mean-value form (second order);
* α >= A: D_α <= D_∞ <= ``loss_max``, so D_α/α <= loss_max/A.

The lower end is max(sup_θ KL, Ψ_low(α)/(α(α − 1)) at the evaluated α) — KL is the limit
α → 1⁺ (Bun & Steinke 2016, Proposition 3.2 note; the notes' "check the limit, not a grid").
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..numbers.backends import ball_context
from . import dual as D
from . import families as F

__all__ = ["Bracket", "sup_theta", "renyi_bracket", "rho_bracket", "delta_bracket", "kl_bracket"]

PREC = 256


def up(x: Any) -> float:
    """Float >= every point of the arb ``x`` (inf when unbounded)."""
    from flint import arb

    u = x.upper() if not isinstance(x, float) else arb(x)
    if not u.is_finite():
        return math.inf
    f = float(u)
    if arb(f) < u:
        f = math.nextafter(f, math.inf)
    return f


def down(x: Any) -> float:
    """Float <= every point of the arb ``x``."""
    from flint import arb

    lo = x.lower()
    if not lo.is_finite():
        return -math.inf
    f = float(lo)
    if arb(f) > lo:
        f = math.nextafter(f, -math.inf)
    return f


@dataclass
class Bracket:
    """``lower <= value <= upper`` (floats rounded outward) with the witness of the lower end."""

    lower: float
    upper: float
    witness: dict = field(default_factory=dict)
    boxes: int = 0

    @property
    def width(self) -> float:
        return self.upper - self.lower


Members = Sequence[tuple[Any, bool]]


def box_upper(gx: Any, gc: Any, X: Any, mid: float) -> float:
    """Upper bound of g on the box X: min(naive enclosure, mean-value form g(c) + g'(X)(X − c))."""
    return min(up(gx.v), up(gc + gx.d * (X - mid)))


def members(fams: Sequence[Any]) -> list[tuple[Any, bool]]:
    """(family, reverse) for each family and each direction it needs."""
    out = []
    for f in fams:
        out.append((f, False))
        if not f.symmetric:
            out.append((f, True))
    return out


def sup_theta(mem: Members, g: Callable[[Any, Any, bool], Any], tol: float, max_boxes: int = 4000,
              prec: int = PREC) -> Bracket:
    """Certified ``sup`` over members and θ ∈ [0, 1] of ``g(family, θ, reverse)``."""
    from flint import arb

    with ball_context(prec):
        best, best_w = -math.inf, {}
        heap: list = []
        finished_up = -math.inf
        boxes = 0

        def point(fam: Any, rev: bool, th: Any) -> None:
            nonlocal best, best_w
            v = g(fam, th if th is None else arb(th), rev)
            lo = down(v.v if isinstance(v, D.Dual) else v)
            if lo > best:
                best = lo
                best_w = {"family": fam.name, "direction": "Q||P" if rev else "P||Q", **fam.witness(th)}

        def push(fam: Any, rev: bool, lo: float, hi: float) -> None:
            nonlocal boxes
            boxes += 1
            mid, rad = (lo + hi) / 2, (hi - lo) / 2
            X = arb(mid, rad)
            gx = g(fam, D.Dual(X, arb(1)), rev)
            gc = g(fam, arb(mid), rev)
            gc = gc.v if isinstance(gc, D.Dual) else gc
            u = box_upper(gx, gc, X, mid)
            lo_c = down(gc)
            nonlocal best, best_w
            if lo_c > best:
                best = lo_c
                best_w = {"family": fam.name, "direction": "Q||P" if rev else "P||Q", **fam.witness(mid)}
            heapq.heappush(heap, (-u, lo, hi, id(fam), rev, fam))

        for fam, rev in mem:
            if not fam.parametrised:
                v = g(fam, None, rev)
                v = v.v if isinstance(v, D.Dual) else v
                finished_up = max(finished_up, up(v))
                if down(v) > best:
                    best, best_w = down(v), {"family": fam.name, "direction": "Q||P" if rev else "P||Q", **fam.witness(None)}
                boxes += 1
                continue
            for th in (0.0, 1.0):
                point(fam, rev, th)
            push(fam, rev, 0.0, 1.0)
        while heap:
            u = -heap[0][0]
            if max(u, finished_up) - best <= tol or boxes >= max_boxes:
                break
            _, lo, hi, _, rev, fam = heapq.heappop(heap)
            mid = (lo + hi) / 2
            if not lo < mid < hi:  # cannot split a float interval further
                finished_up = max(finished_up, u)
                continue
            push(fam, rev, lo, mid)
            push(fam, rev, mid, hi)
        top = max(finished_up, -heap[0][0] if heap else -math.inf)
        return Bracket(best, max(top, best), best_w, boxes)


def _arb_of(x: Any) -> Any:
    from flint import arb

    from ..numbers.real import Real

    return x if type(x).__name__ == "arb" else Real.of(x).to_arb(PREC)


def renyi_bracket(fams: Sequence[Any], alpha: Any, tol: float = 1e-10, max_boxes: int = 4000) -> Bracket:
    """Certified ``sup D_α`` over the families (α > 1 exact)."""
    with ball_context(PREC):
        a = _arb_of(alpha)
        if not a > 1:
            raise ValueError(f"alpha must be > 1, got {alpha}")
        b = sup_theta(members(fams), lambda f, t, r: F.log_mgf(f, t, a, r), tol * down(a - 1), max_boxes)
        s = a - 1
        from flint import arb

        return Bracket(down(arb(b.lower) / s), up(arb(b.upper) / s), b.witness, b.boxes)


def kl_bracket(fams: Sequence[Any], tol: float = 1e-10, max_boxes: int = 4000) -> Bracket:
    """Certified ``sup KL`` over the families."""
    return sup_theta(members(fams), lambda f, t, r: F.kl(f, t, r), tol, max_boxes)


def delta_bracket(fams: Sequence[Any], eps_prime: Any, tol: float = 1e-12, max_boxes: int = 4000) -> Bracket:
    """Certified ``sup δ(ε')`` (hockey-stick divergence) over the families."""
    with ball_context(PREC):
        e = _arb_of(eps_prime)
        return sup_theta(members(fams), lambda f, t, r: F.hockey(f, t, e, r), tol, max_boxes)


def _chord_upper(a: Any, b: Any, pa: Any, pb: Any) -> float:
    """Upper bound on max over α ∈ [a, b] of h(α) = chord(α)/(α(α − 1)), chord through (a, pa), (b, pb).

    h = (mα + c₀)/(α² − α) is smooth on [a, b] ⊂ (1, ∞): its maximum is at a or b or at a root
    of h′, i.e. of mα² + 2c₀α − c₀ = 0, each evaluated as a ball. Where the roots cannot be
    separated (m's ball contains 0) the mean-value form of h on [a, b] is used instead.
    """
    from flint import arb

    m = (pb - pa) / (b - a)
    c0 = (pa * b - pb * a) / (b - a)

    def h(x: Any) -> Any:
        return (m * x + c0) / (x * (x - 1))

    cands = [up(h(a)), up(h(b))]
    disc = c0 * (c0 + m)
    if m > 0 or m < 0:
        if not disc < 0:
            sd = (disc if disc >= 0 else arb(0).union(disc.upper())).sqrt()
            for r in ((-c0 + sd) / m, (-c0 - sd) / m):
                if not (r < a or r > b):
                    cands.append(up(h(r)))
        return max(cands)
    X = a.union(b)
    c = (a + b) / 2
    den = X * (X - 1)
    dh = (m * den - (m * X + c0) * (2 * X - 1)) / (den * den)
    return max(max(cands), min(up(h(X)), up(h(c) + dh * (X - c))))


def rho_bracket(fams: Sequence[Any], tol: float = 1e-9, max_points: int = 400, max_boxes: int = 4000) -> Bracket:
    """Certified ``ρ = sup_{α>1} D_α/α`` over the families (tight zCDP; module docstring)."""
    from flint import arb

    mem = members(fams)
    if not any(f.parametrised for f in fams):
        max_points = max(max_points, 4000)  # one pair: a point costs microseconds
    with ball_context(PREC):
        klb = sup_theta(mem, lambda f, t, r: F.kl(f, t, r), tol / 8, max_boxes)
        R = max(f.loss_range for f in fams)
        Lmax = max(f.loss_max for f in fams)
        lower, wit = klb.lower, {"alpha": "1+ (KL limit)", **klb.witness}
        beta0 = arb(tol) * 2 / (arb(R) ** 2)
        segs_up = up(arb(klb.upper) + beta0 * arb(R) ** 2 / 8)
        A = arb(max(4.0, math.ceil(2 * Lmax / max(lower, 1e-300))))
        tail_up = up(arb(Lmax) / A)
        cache: dict = {}

        def psi(x: Any) -> tuple[float, float]:
            key = x.mid().str(40)
            if key not in cache:
                b = sup_theta(mem, lambda f, t, r: F.log_mgf(f, t, x, r), max(tol * down(x * (x - 1)) / 8, 1e-300), max_boxes)
                cache[key] = b
            return cache[key]

        def value_low(x: Any, b: Bracket) -> float:
            return down(arb(b.lower) / (x * (x - 1)))

        a0 = 1 + beta0
        pts = [a0]
        x = 1 + beta0 * 2
        while x < 2:
            pts.append(x)
            x = 1 + (x - 1) * 2
        x = arb(2)
        while x < A:
            pts.append(x)
            x = x * arb("1.25")
        pts.append(A)
        heap = []
        evals = 0
        for i, p in enumerate(pts):
            b = psi(p)
            evals += 1
            v = value_low(p, b)
            if v > lower:
                lower, wit = v, {"alpha": float(p.mid()), **b.witness}
        for i in range(len(pts) - 1):
            u = _chord_upper(pts[i], pts[i + 1], arb(psi(pts[i]).upper), arb(psi(pts[i + 1]).upper))
            heapq.heappush(heap, (-u, i, pts[i], pts[i + 1]))
        cnt = len(pts)
        done_up = max(segs_up, tail_up)
        while heap:
            u = -heap[0][0]
            if max(u, done_up) - lower <= tol or evals >= max_points:
                break
            _, _, a, b = heapq.heappop(heap)
            # geometric midpoint in α − 1 while the ends are far apart in ratio (1/(α − 1) varies there)
            m = 1 + ((a - 1) * (b - 1)).sqrt() if b - 1 > 2 * (a - 1) else (a + b) / 2
            m = arb(m.mid())
            bm = psi(m)
            evals += 1
            v = value_low(m, bm)
            if v > lower:
                lower, wit = v, {"alpha": float(m.mid()), **bm.witness}
            for lo, hi in ((a, m), (m, b)):
                cnt += 1
                uu = _chord_upper(lo, hi, arb(psi(lo).upper), arb(psi(hi).upper))
                heapq.heappush(heap, (-uu, cnt, lo, hi))
        top = max(done_up, -heap[0][0] if heap else -math.inf)
        return Bracket(lower, max(top, lower), wit, evals)
