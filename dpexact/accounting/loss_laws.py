"""Privacy-loss laws of one accounting event in one direction, in arb balls: the masses the
discretisation (:mod:`.discretise`) needs, all rigorous.

A direction's pair (P′, Q′) comes from a *base* pair (P, Q) of the event and a subsampling rate r
(r = 1: none; :mod:`.events`):

* remove: (P′, Q′) = (rP + (1−r)Q, Q), loss L = g(L₀) = log(1 − r + r e^{L₀}) (increasing in L₀),
* add:    (P′, Q′) = (Q, rP + (1−r)Q), loss L = −g(L₀) (decreasing),

with L₀ = log dP/dQ the base loss. The base is a finite list of atoms (P-mass, Q-mass) — pmf pairs,
mechanisms, randomized response, discrete Laplace and discrete Gaussian (truncated, the cut mass
bounded and sent to +∞) — or a continuous law of L₀ given by its distribution functions under P
and Q (Gaussian: L₀ ~ N(±μ²/2, μ²), μ = Δ/σ; Laplace: the continuous part on (−ε₀, ε₀) plus atoms
at ±ε₀, ε₀ = Δ/b, with F_P(l) = e^{(l−ε₀)/2}/2 and F_Q(l) = 1 − e^{−(l+ε₀)/2}/2 there).

Tilted tail of the Gaussian (remove direction; the add direction's loss is bounded by −log(1 − r)
for r < 1 and equals the remove direction's law for r = 1): for l >= 0, {L > l} = {L₀ > a},
a = g⁻¹(l) >= l, and g(L₀) − L₀ decreases, so g(L₀) <= L₀ + (l − a) there and
∫_{L>l} e^{θL}dP′ <= e^{θ(l−a)}(r T_P(a) + (1−r) T_Q(a)) with
T(a) = ∫_{y>a} e^{θy} dN(m, s²)(y) = e^{θm + θ²s²/2} Φ̄((a − m − θs²)/s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["LossLaw", "AtomBase", "GaussianBase", "LaplaceBase"]


def _arb(x: Any) -> Any:
    from flint import arb

    return x if type(x).__name__ == "arb" else arb(x)


def _phi(z: Any) -> Any:
    """Φ(z) = erfc(−z/√2)/2 (arb)."""
    from flint import arb

    return (-z / arb(2).sqrt()).erfc() / 2


def _phibar(z: Any) -> Any:
    from flint import arb

    return (z / arb(2).sqrt()).erfc() / 2


@dataclass(frozen=True)
class AtomBase:
    """Finitely many base atoms ``(p, q)`` (arb masses, either may be 0) plus ``cut``: P-mass left out
    (a rigorous upper bound on it, sent to +∞ by the upper end and dropped by the lower end)."""

    atoms: tuple
    cut: Any = 0


@dataclass(frozen=True)
class GaussianBase:
    """L₀ ~ N(μ²/2, μ²) under P and N(−μ²/2, μ²) under Q, μ = Δ/σ (an arb)."""

    mu: Any

    def mass(self, side: str, a: Any, b: Any) -> Any:
        """Mass of L₀ ∈ (a, b] under ``side`` ('P' or 'Q'); ``None`` is −∞ / +∞."""
        mu = self.mu
        m = mu * mu / 2 if side == "P" else -mu * mu / 2
        za = None if a is None else (a - m) / mu
        zb = None if b is None else (b - m) / mu
        if za is not None and za > 0:  # upper half: survival functions (no cancellation near 1)
            return _phibar(za) - (0 if zb is None else _phibar(zb))
        return (1 if zb is None else _phi(zb)) - (0 if za is None else _phi(za))

    def cum(self, side: str, a: Any) -> tuple[str, Any]:
        """Φ at a boundary in the form that keeps its accuracy: ('F', P(L₀ <= a)) left of the mean,
        ('S', P(L₀ > a)) right of it; ``None`` is −∞ (F = 0) or +∞ (S = 0) as given by the caller."""
        mu = self.mu
        m = mu * mu / 2 if side == "P" else -mu * mu / 2
        z = (a - m) / mu
        return ("S", _phibar(z)) if z > 0 else ("F", _phi(z))

    @staticmethod
    def between(lo: tuple[str, Any], hi: tuple[str, Any]) -> Any:
        """Mass of (lo, hi] from two :meth:`cum` values."""
        (kl, vl), (kh, vh) = lo, hi
        if kl == "F" and kh == "F":
            return vh - vl
        if kl == "S" and kh == "S":
            return vl - vh
        if kl == "F":
            return 1 - vl - vh
        return vh + vl - 1  # lo right of the mean, hi left: cannot happen for lo <= hi but stays exact

    def tilted_tail(self, side: str, a: Any, theta: Any) -> Any:
        """∫_{y>a} e^{θy} dN(m, s²)(y) (closed form, arb)."""
        mu = self.mu
        m = mu * mu / 2 if side == "P" else -mu * mu / 2
        s2 = mu * mu
        return (theta * m + theta * theta * s2 / 2).exp() * _phibar((a - m - theta * s2) / mu)

    def range0(self) -> tuple[float, float]:
        return -math.inf, math.inf


@dataclass(frozen=True)
class LaplaceBase:
    """Laplace with ε₀ = Δ/b: atoms at ±ε₀ and a continuous part on (−ε₀, ε₀) (module docstring)."""

    eps0: Any

    def atoms(self) -> list[tuple[Any, Any, Any]]:
        e = self.eps0
        half = _arb(1) / 2
        return [(-e, (-e).exp() / 2, half), (e, half, (-e).exp() / 2)]

    def _clamp(self, x: Any) -> Any:
        e = self.eps0
        if x is None:
            return None
        if x <= -e:
            return -e
        if x >= e:
            return e
        if x >= -e and x <= e:
            return x
        # the ball straddles an end: any point of the union encloses F at max/min(x, end)
        return x.union(-e) if x.overlaps(-e) else x.union(e)

    def mass(self, side: str, a: Any, b: Any) -> Any:
        e = self.eps0
        a = -e if a is None else self._clamp(a)
        b = e if b is None else self._clamp(b)
        if side == "P":  # F_P(l) = e^{(l − ε₀)/2}/2 on the continuous part
            return (((b - e) / 2).exp() - ((a - e) / 2).exp()) / 2
        return (((-(a + e)) / 2).exp() - ((-(b + e)) / 2).exp()) / 2

    def range0(self) -> tuple[float, float]:
        e = float(self.eps0.mid())
        return -e, e


@dataclass(frozen=True)
class LossLaw:
    """One direction (``"remove"`` or ``"add"``) of an event's base pair at subsampling rate ``r`` (arb, 1 = none)."""

    base: Any
    r: Any
    direction: str

    # -- the loss map g ------------------------------------------------------------------------
    def _g(self, l0: Any) -> Any:
        r = self.r
        if r == 1:
            return l0
        return (1 - r + r * l0.exp()).log()

    def _ginv(self, l: Any) -> Any:
        """g⁻¹(l); ``None`` for l <= log(1 − r) (the preimage is empty: −∞)."""
        r = self.r
        if r == 1:
            return l
        t = l.exp() - 1 + r
        if t <= 0:
            return None
        if not t > 0:
            raise ArithmeticError("loss grid point within rounding of log(1 − r): raise the precision")
        return (t / r).log()

    def _loss(self, l0: Any) -> Any:
        return self._g(l0) if self.direction == "remove" else -self._g(l0)

    # -- pieces ----------------------------------------------------------------------------------
    def atoms(self) -> list[tuple[Any, Any, Any]]:
        """Direction atoms ``(loss or None for +∞, P′-mass, Q′-mass)`` with P′-mass > 0 (arb)."""
        r = self.r
        raw: list[tuple[Any, Any]] = []
        if isinstance(self.base, AtomBase):
            raw = [(p, q) for p, q in self.base.atoms]
        elif isinstance(self.base, LaplaceBase):
            raw = [(p, q) for _, p, q in self.base.atoms()]
        out = []
        for p, q in raw:
            mix = r * p + (1 - r) * q if r != 1 else p
            pp, qq = (mix, q) if self.direction == "remove" else (q, mix)
            if pp == 0:
                continue
            if qq == 0:
                out.append((None, pp, qq))
                continue
            out.append(((pp / qq).log(), pp, qq))
        return out

    @property
    def continuous(self) -> bool:
        return isinstance(self.base, (GaussianBase, LaplaceBase))

    def cut_mass(self) -> Any:
        """P′-mass left out of an atom base (upper end: at +∞)."""
        if isinstance(self.base, AtomBase) and self.base.cut != 0:
            c = _arb(self.base.cut)
            # remove: P′ = rP + (1−r)Q, the cut bounds both P and Q tails; add: P′ = Q
            return c
        return _arb(0)

    def cell(self, lo: Any, hi: Any) -> tuple[Any, Any]:
        """(P′-mass, Q′-mass) of the continuous part on L ∈ (lo, hi] (arb; lo, hi exact grid points)."""
        b = self.base
        if self.direction == "remove":
            a0, b0 = self._ginv(lo), self._ginv(hi)
            if b0 is None:
                return _arb(0), _arb(0)
        else:  # L = −g(L₀) ∈ (lo, hi]  <=>  g(L₀) ∈ [−hi, −lo)
            a0, b0 = self._ginv(-hi), self._ginv(-lo)
            if b0 is None:
                return _arb(0), _arb(0)
        mp, mq = b.mass("P", a0, b0), b.mass("Q", a0, b0)
        r = self.r
        mix = r * mp + (1 - r) * mq if r != 1 else mp
        return (mix, mq) if self.direction == "remove" else (mq, mix)

    def cells(self, points: list) -> list[tuple[Any, Any]]:
        """:meth:`cell` for the consecutive cells (points[i], points[i+1]], each boundary's Φ computed once."""
        b = self.base
        if not isinstance(b, GaussianBase):
            return [self.cell(lo, hi) for lo, hi in zip(points[:-1], points[1:])]
        pre = [self._ginv(x) if self.direction == "remove" else self._ginv(-x) for x in points]
        cums = []
        for a in pre:
            if a is None:  # the preimage is empty: remove −∞ (F = 0), add +∞ side handled below
                cums.append(None)
            else:
                cums.append((b.cum("P", a), b.cum("Q", a)))
        r = self.r
        out = []
        for i in range(len(points) - 1):
            if self.direction == "remove":
                lo, hi = cums[i], cums[i + 1]
            else:
                lo, hi = cums[i + 1], cums[i]
            if hi is None:
                out.append((_arb(0), _arb(0)))
                continue
            lo_p, lo_q = lo if lo is not None else (("F", _arb(0)), ("F", _arb(0)))
            mp, mq = GaussianBase.between(lo_p, hi[0]), GaussianBase.between(lo_q, hi[1])
            mix = r * mp + (1 - r) * mq if r != 1 else mp
            out.append((mix, mq) if self.direction == "remove" else (mq, mix))
        return out

    def mass_below(self, l: Any) -> Any:
        """P′-mass of the continuous part with L <= l."""
        b = self.base
        r = self.r
        if self.direction == "remove":
            b0 = self._ginv(l)
            if b0 is None:
                return _arb(0)
            mp, mq = b.mass("P", None, b0), b.mass("Q", None, b0)
            return r * mp + (1 - r) * mq if r != 1 else mp
        a0 = self._ginv(-l)  # L <= l  <=>  g(L₀) >= −l
        return b.mass("Q", a0, None)

    def tilted_above(self, l: Any, theta: Any) -> Any:
        """A rigorous bound on ∫_{L>l} e^{θL} dP′ for the continuous part (module docstring)."""
        b = self.base
        lo_sup = self.loss_range()[1]
        if float(l.lower()) >= lo_sup:
            return _arb(0)
        if isinstance(b, LaplaceBase):  # bounded: at most e^{θ·sup}·P′(L > l)
            sup = self._loss(b.eps0) if self.direction == "remove" else self._loss(-b.eps0)
            return (theta * sup).exp() * (1 - self.mass_below(l)).nonnegative_part()
        if self.direction == "add" and self.r != 1:
            sup = -(1 - self.r).log()
            return (theta * sup).exp() * (1 - self.mass_below(l)).nonnegative_part()
        if not l >= 0:
            raise ArithmeticError("tilted tail bound needs l >= 0")
        r = self.r
        a = self._ginv(l) if self.direction == "remove" else l  # add with r = 1: the remove law
        tp, tq = b.tilted_tail("P", a, theta), b.tilted_tail("Q", a, theta)
        if r == 1:
            return tp
        # g(L₀) − L₀ = log(r + (1 − r)e^{−L₀}) decreases, so on L₀ > a: e^{θg(L₀)} <= e^{θ(l − a)}e^{θL₀}
        # (l − a = g(a) − a <= 0; at a small rate r it is about log r, which the plain bound e^{θL₀} would lose)
        return (theta * (l - a)).exp() * (r * tp + (1 - r) * tq)

    def loss_range(self) -> tuple[float, float]:
        """(inf, sup) of the continuous part's losses as floats (may be infinite)."""
        b = self.base
        lo0, hi0 = b.range0()
        r = float(self.r.mid()) if self.r != 1 else 1.0

        def g(x: float) -> float:
            if r == 1:
                return x
            if x == -math.inf:
                return math.log1p(-r)
            if x == math.inf:
                return math.inf
            return math.log(1 - r + r * math.exp(min(x, 700.0))) if x < 700 else x + math.log(r)

        if self.direction == "remove":
            return g(lo0), g(hi0)
        return -g(hi0), -g(lo0)
