"""From an :class:`~.events.Event` to its base laws: exact rational atoms (when the laws are rational),
arb atoms, or a continuous base (:mod:`.loss_laws`), per neighbouring direction.

Laws (P = M(x), Q = M(x′), x′ = x without the differing record):

* randomized response, k-ary with e^ε: p = e^ε/(e^ε + k − 1) on the true value, s = 1/(e^ε + k − 1)
  elsewhere; the two inputs give (p, s, (k−2)s) and (s, p, (k−2)s) on {x, x′, other}.
* discrete Laplace with scale t (P(y) ∝ a^{|y−Δ|}, a = e^{−1/t}, normaliser (1−a)/(1+a)): the loss
  takes Δ + 1 values; the atoms y <= 0 and y >= Δ are geometric sums (closed form).
* discrete Gaussian (Canonne, Kamath & Steinke 2020): atoms y ∈ [−N, N + Δ], N = ⌈40σ⌉ + Δ + 10;
  Z = Σ_y e^{−y²/(2σ²)} enclosed by its partial sum and the tail bound
  Σ_{y>N} e^{−y²/(2σ²)} <= e^{−N²/(2σ²)}/(1 − e^{−N/σ²}) (ratio of consecutive terms); the P- and
  Q-mass outside the window is at most twice that tail (Z >= 1) and goes to +∞ (upper end).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..numbers.backends import ball_context
from ..numbers.real import Real
from .events import Event
from .loss_laws import AtomBase, GaussianBase, LaplaceBase, LossLaw

__all__ = ["exact_pairs", "loss_laws", "MAX_ATOMS"]

MAX_ATOMS = 200_000
PREC = 128


def _exp_rational(eps: Real) -> Fraction | None:
    import sympy

    e = sympy.exp(eps.to_sympy())
    return Fraction(int(e.p), int(e.q)) if e.is_Rational else None


def _mechanism_pmfs(ev: Event) -> tuple[list[Real], list[Real]]:
    from ..mechanisms.registry import mechanism

    params = dict(ev.get("params"))
    try:
        m = mechanism(ev.get("name"), **params)
        p = list(m.pmf(list(ev.get("x")), backend="exact").values)
        q = list(m.pmf(list(ev.get("x_prime")), backend="exact").values)
    except (TypeError, KeyError) as exc:
        raise ValueError(f"mechanism event: {exc}") from None
    if len(p) != len(q):
        raise ValueError("mechanism event: the two inputs give pmfs of different lengths")
    if len(p) > MAX_ATOMS:
        raise ValueError(f"mechanism event: {len(p)} outputs, at most {MAX_ATOMS}")
    return [Real.of(v) for v in p], [Real.of(v) for v in q]


def _rr_pairs(ev: Event) -> list[tuple[Any, Any]] | None:
    E = _exp_rational(ev.get("epsilon"))
    k = ev.get("k")
    if E is None:
        return None
    p, s = E / (E + k - 1), Fraction(1) / (E + k - 1)
    pairs = [(p, s), (s, p)]
    if k > 2:
        pairs.append(((k - 2) * s, (k - 2) * s))
    return pairs


def exact_pairs(ev: Event) -> list[tuple[Any, Any]] | None:
    """Rational (P, Q) atoms as fmpq when the event's laws and rate are rational, else ``None``."""
    from flint import fmpq

    if ev.rate is not None and not ev.rate.is_rational:
        return None
    pairs: list[tuple[Any, Any]] | None = None
    if ev.kind == "randomized-response":
        pairs = _rr_pairs(ev)
    elif ev.kind == "pmf-pair":
        p, q = ev.get("p"), ev.get("q")
        if all(x.is_rational for x in p + q):
            pairs = [(a.value, b.value) for a, b in zip(p, q)]
    elif ev.kind == "mechanism":
        p, q = _mechanism_pmfs(ev)
        if all(x.is_rational for x in p + q):
            pairs = [(a.value, b.value) for a, b in zip(p, q)]
    if pairs is None:
        return None
    return [(fmpq(a.numerator, a.denominator), fmpq(b.numerator, b.denominator)) for a, b in pairs]


def _arb_atoms(ev: Event) -> AtomBase:
    from flint import arb

    if ev.kind == "randomized-response":
        E = ev.get("epsilon").to_arb(PREC).exp()
        k = ev.get("k")
        p, s = E / (E + k - 1), 1 / (E + k - 1)
        atoms = [(p, s), (s, p)] + ([((k - 2) * s, (k - 2) * s)] if k > 2 else [])
        return AtomBase(tuple(atoms))
    if ev.kind in ("pmf-pair", "mechanism"):
        p, q = (ev.get("p"), ev.get("q")) if ev.kind == "pmf-pair" else _mechanism_pmfs(ev)
        return AtomBase(tuple((a.to_arb(PREC), b.to_arb(PREC)) for a, b in zip(p, q)))
    if ev.kind == "discrete-laplace":
        t = ev.get("scale").to_arb(PREC)
        d = int(ev.get("sensitivity").value)
        if d > MAX_ATOMS:
            raise ValueError(f"discrete-laplace: sensitivity {d} above {MAX_ATOMS}")
        a = (-1 / t).exp()
        c = (1 - a) / (1 + a)
        g = c / (1 - a)
        atoms = [(g * a**d, g), (g, g * a**d)] + [(c * a ** (d - y), c * a**y) for y in range(1, d)]
        return AtomBase(tuple(atoms))
    if ev.kind == "discrete-gaussian":
        sig = ev.get("sigma")
        d = int(ev.get("sensitivity").value)
        n = math.ceil(40 * sig.to_float()) + d + 10
        if 2 * n + d > MAX_ATOMS:
            raise ValueError(f"discrete-gaussian: {2 * n + d} atoms above {MAX_ATOMS} (sigma too large)")
        s2 = 2 * sig.to_arb(PREC) ** 2
        w = {y: (-(arb(y) ** 2) / s2).exp() for y in range(-n - d, n + d + 1)}
        part = sum((w[y] for y in range(-n, n + 1)), arb(0))
        tail = (-(arb(n) ** 2) / s2).exp() / (1 - (-arb(n) / (s2 / 2)).exp())
        Z = part.union(part + 2 * tail)
        atoms = [(w[y - d] / Z, w[y] / Z) for y in range(-n, n + d + 1)]
        return AtomBase(tuple(atoms), cut=4 * tail)
    raise ValueError(f"no atoms for kind {ev.kind!r}")


def loss_laws(ev: Event, directions: tuple[str, ...]) -> dict[str, LossLaw]:
    """The :class:`LossLaw` of ``ev`` in each direction asked (arb)."""
    with ball_context(PREC):
        r = ev.rate.to_arb(PREC) if ev.rate is not None else 1
        if ev.kind == "gaussian":
            base: Any = GaussianBase(ev.get("sensitivity").to_arb(PREC) / ev.get("sigma").to_arb(PREC))
        elif ev.kind == "laplace":
            base = LaplaceBase(ev.get("sensitivity").to_arb(PREC) / ev.get("scale").to_arb(PREC))
        else:
            base = _arb_atoms(ev)
        return {d: LossLaw(base, r, d) for d in directions}
