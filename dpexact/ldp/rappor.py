"""RAPPOR (Erlingsson, Pihur & Korolova, CCS 2014, steps 1–3) as an exact LDP channel.

A value v is hashed into a Bloom filter ``B(v) ∈ {0,1}^k`` with h hash functions (MurmurHash3
``mmh3.hash(str(v), seed=i) % k``, exactly as DP-Sniper's ``dpsniper/mechanisms/rappor.py``).
Each bit then goes through the permanent randomized response (1 w.p. f/2, 0 w.p. f/2, the bit
w.p. 1-f) and, for full RAPPOR, the instantaneous one (report 1 w.p. q if the permanent bit is
1, p if it is 0). The bits are independent, so the channel is a product:

    Pr[o | v] = Π_j Pr[o_j | B_j(v)],   Pr[o_j = 1 | b] = q* (b = 1), p* (b = 0),
    q* = (1 - f/2)·q + (f/2)·p,   p* = (f/2)·q + (1 - f/2)·p      (one-time: q* = 1 - f/2, p* = f/2).

The output space has ``2^k`` elements, but the privacy loss factorises bit by bit: for inputs
v, v' the largest ``log(Pr[o|v]/Pr[o|v'])`` over outputs is exactly
``a·log max(q*/p*, (1-q*)/(1-p*)) + b·log max(p*/q*, (1-p*)/(1-q*))`` with a (b) the bits where
``B(v) = 1, B(v') = 0`` (resp. 0, 1), attained at the output that sets those bits to the more
likely value. :meth:`Rappor.privacy_map` evaluates it for every pair of the input domain
(LDP: any two inputs are neighbours), exactly, with a witness output re-checked in ball
arithmetic from the product law.

Claimed ε (when not given): the paper's guarantee ``2h·log(q*/p*)`` — ε∞ = 2h·ln((1-f/2)/(f/2))
for one-time RAPPOR, ε1 = h·log(q*(1-p*)/(p*(1-q*))) for RAPPOR.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import ball_context
from ..numbers.real import Real
from ..protocols import Backend, MechanismProperties, Neighbourhood, PrivacyLevel

__all__ = ["Rappor", "OneTimeRappor"]


def _prob(x: Any, name: str) -> Fraction:
    r = Real.of(x, name)
    if not r.is_rational or not 0 <= r.value <= 1:
        raise ValueError(f"{name} must be a rational in [0, 1], got {x!r}")
    return r.value


@dataclass(frozen=True)
class Rappor:
    """RAPPOR (Erlingsson et al. CCS 2014, steps 1–3) on integer values lo..hi; DP-Sniper ``Rappor``."""

    epsilon: Any = None
    n_hashes: int = 4
    filter_size: int = 20
    f: Any = Fraction(3, 4)
    p: Any = Fraction(9, 20)
    q: Any = Fraction(11, 20)
    lo: int = -10
    hi: int = 10

    short_name: ClassVar[str] = "rappor"
    output_kind: ClassVar[str] = "finite"
    one_time: ClassVar[bool] = False
    sensitivity: ClassVar[int] = 1

    def __post_init__(self) -> None:
        for name in ("n_hashes", "filter_size", "lo", "hi"):
            v = getattr(self, name)
            v = int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{name} must be an integer, got {v!r}")
            object.__setattr__(self, name, int(v))
        if not 1 <= self.n_hashes <= self.filter_size <= 64:
            raise ValueError("need 1 <= n_hashes <= filter_size <= 64")
        if not self.lo < self.hi or self.hi - self.lo > 1000:
            raise ValueError(f"lo < hi with at most 1001 values required, got [{self.lo}, {self.hi}]")
        for name in ("f", "p", "q"):
            object.__setattr__(self, name, _prob(getattr(self, name), name))
        qs, ps = self.bit_probabilities()
        if not 0 < ps < qs < 1:
            raise ValueError(f"need 0 < p* < q* < 1 for a useful channel, got p* = {ps}, q* = {qs}")
        if self.epsilon is None:
            object.__setattr__(self, "epsilon", self.paper_epsilon())
        else:
            from ..mechanisms.validation import positive_real

            object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))

    def bit_probabilities(self) -> tuple[Fraction, Fraction]:
        """``(q*, p*)``: probability of reporting 1 for a Bloom bit 1, resp. 0."""
        f = self.f
        if self.one_time:
            return 1 - f / 2, f / 2
        return (1 - f / 2) * self.q + f / 2 * self.p, f / 2 * self.q + (1 - f / 2) * self.p

    def paper_epsilon(self) -> Real:
        """Erlingsson et al.'s guarantee for two values with disjoint filters: ``h·log(q*(1-p*)/(p*(1-q*)))``."""
        import sympy

        qs, ps = self.bit_probabilities()
        return Real.of(self.n_hashes * sympy.log(sympy.Rational(qs * (1 - ps)) / sympy.Rational(ps * (1 - qs))))

    def bloom(self, v: int) -> tuple[int, ...]:
        import mmh3

        bits = [0] * self.filter_size
        for i in range(self.n_hashes):
            bits[mmh3.hash(str(v), seed=i) % self.filter_size] = 1
        return tuple(bits)

    @property
    def size(self) -> int | None:
        return 1

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True, integer_scores=True)

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "n_hashes": self.n_hashes, "filter_size": self.filter_size,
                "f": str(self.f), "p": str(self.p), "q": str(self.q), "lo": self.lo, "hi": self.hi}

    def neighbourhood(self) -> Any:
        """Local DP: any two inputs in lo..hi are neighbours."""
        from ..mechanisms.neighbourhoods import AnyPair

        return AnyPair(tuple((v,) for v in range(self.lo, self.hi + 1)))

    def outputs(self, n: int = 1) -> list[str]:
        """The reports as bit strings, in lexicographic order (2^filter_size of them, at most 2^16)."""
        if self.filter_size > 16:
            from ..cost_limits import CostEstimate, CostLimitError

            k = self.filter_size
            est = CostEstimate(f"enumerating the 2^{k} reports", float(2**k * (k + 50)), 0.0, "one string per report")
            raise CostLimitError(f"filter_size: enumerating 2^{k} reports exceeds the limit 2^16 "
                                 "(the privacy verifier needs no enumeration: its level is a closed form)", est)
        return [format(i, f"0{self.filter_size}b") for i in range(2**self.filter_size)]

    def _value(self, scores: Any) -> int:
        from ..mechanisms.validation import exact_scores

        q = exact_scores(scores)
        if len(q) != 1:
            raise ValueError(f"scores: one input value expected, got {len(q)}")
        v = q[0]
        if not v.is_rational or v.to_fraction().denominator != 1 or not self.lo <= v.to_fraction() <= self.hi:
            raise ValueError(f"scores: the input must be an integer in {self.lo}..{self.hi}, got {v}")
        return int(v.to_fraction())

    def pmf(self, scores: Any, backend: str | Backend = "float", method: str | None = None) -> Any:
        """``Pr[o | v] = Π_i (q* if B(v)_i else p*)^{o_i} (1 − …)^{1−o_i}`` over :meth:`outputs` (Erlingsson et al. §3)."""
        from flint import arb, fmpq

        from ..numbers.backends import get_backend
        from ..numbers.pmf import Pmf

        if method not in (None, "product"):
            raise ValueError(f"method must be 'product', got {method!r}")
        be = get_backend(backend)
        v = self._value(scores)
        outs = self.outputs()
        qs, ps = self.bit_probabilities()
        bits = self.bloom(v)
        exact = []
        for o in outs:
            r = Fraction(1)
            for b, x in zip(bits, o):
                p1 = qs if b else ps
                r *= p1 if x == "1" else 1 - p1
            exact.append(r)
        if be.is_exact:
            return Pmf(tuple(fmpq(x.numerator, x.denominator) for x in exact), "exact", "product", 0.0, 0.0, "exact")
        if be.is_ball:
            with be.context():
                return Pmf(tuple(arb(fmpq(x.numerator, x.denominator)) for x in exact), str(be), "product", None,
                           0.0, "rigorous")
        if be.is_mp:
            raise ValueError("backend: RAPPOR's law is served on float, ball and exact")
        # each value is a correctly rounded rational: relative error 2^-53
        return Pmf(np.array([float(x) for x in exact]), "float", "product", 2.0**-53, 2.0**-53, "rigorous")

    def logpmf(self, scores: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.pmf(scores).values)

    def output_probability(self, v: int, o: tuple[int, ...], prec: int = 128) -> Any:
        """``Pr[o | v]`` as an arb ball from the product law."""
        from flint import arb, fmpq

        qs, ps = self.bit_probabilities()
        with ball_context(prec):
            r = arb(1)
            for b, x in zip(self.bloom(v), o):
                p1 = qs if b else ps
                r *= arb(fmpq(p1.numerator, p1.denominator)) if x else arb(fmpq((1 - p1).numerator, (1 - p1).denominator))
            return r

    #: the privacy map takes no option: its domain is every pair of values lo..hi (:class:`~dpexact.protocols.PrivacyMap`)
    privacy_map_options: ClassVar[frozenset] = frozenset()

    def privacy_map(self, n: int | None = None, relation: str | None = None,
                    neighbourhood: Neighbourhood | None = None) -> PrivacyLevel:
        """The exact largest loss over every pair of inputs lo..hi (module docstring): the loss factorises
        over the bits, a bit set for v only costing ``log max(q*/p*, (1-q*)/(1-p*))`` and one set for v' only
        ``log max(p*/q*, (1-p*)/(1-q*))``; the witness report takes each bit's worse value, its log-ratio
        enclosed in 256-bit balls from :meth:`output_probability`."""
        import sympy

        if n is not None or relation is not None or neighbourhood is not None:
            raise ValueError(f"{self.short_name}: the privacy map covers every pair of values {self.lo}..{self.hi}; it "
                             "takes no n, relation or neighbourhood")
        qs, ps = self.bit_probabilities()
        up = max(qs / ps, (1 - qs) / (1 - ps))  # a bit with B(v)=1, B(v')=0: report 1 (or 0)
        down = max(ps / qs, (1 - ps) / (1 - qs))  # B(v)=0, B(v')=1: report 0 (or 1)
        o_up = 1 if qs / ps >= (1 - qs) / (1 - ps) else 0
        o_down = 0 if (1 - ps) / (1 - qs) >= ps / qs else 1
        filters = {v: self.bloom(v) for v in range(self.lo, self.hi + 1)}
        counts: dict[tuple[int, int], tuple[int, int]] = {}
        for v, bv in filters.items():
            for w, bw in filters.items():
                if v != w:
                    counts[(v, w)] = (sum(1 for x, y in zip(bv, bw) if x > y), sum(1 for x, y in zip(bv, bw) if x < y))
        # the loss of a pair is u^a w^b: compared exactly (a weighted sum of u and w would rank pairs wrongly)
        (v, w), (a, b) = max(counts.items(), key=lambda kv: Fraction(up) ** kv[1][0] * Fraction(down) ** kv[1][1])
        level = Real.of(a * sympy.log(sympy.Rational(up)) + b * sympy.log(sympy.Rational(down)))
        o = tuple(o_up if x > y else o_down if x < y else x for x, y in zip(filters[v], filters[w]))
        p1, p2 = self.output_probability(v, o, 256), self.output_probability(w, o, 256)
        with ball_context(256):
            lr = p1.log() - p2.log()
        return PrivacyLevel(level=level, scores=(Fraction(v),), neighbour_scores=(Fraction(w),),
                            event={"output": "".join(map(str, o))}, log_ratio=lr, arithmetic="ball:256",
                            neighbourhood=f"any two values in {self.lo}..{self.hi} (LDP)",
                            families={"value pairs": len(counts)}, pairs=len(counts),
                            notes=(f"exact: the loss factorises over the {self.filter_size} bits; every pair of inputs and "
                                   f"every one of the 2^{self.filter_size} outputs; worst pair differs in {a}+{b} bits",))

    def rvs(self, v: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        """Reports of input ``v`` (an int, or a one-entry score vector as for :meth:`pmf`), as 0/1 arrays."""
        v = self._value([v] if isinstance(v, (int, np.integer)) else v)
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        b = np.array(self.bloom(int(v)))[None, :].repeat(k, axis=0)
        u = rng.choice(3, size=b.shape, p=[float(self.f) / 2, float(self.f) / 2, 1 - float(self.f)])
        perm = np.where(u == 0, 1, np.where(u == 1, 0, b))
        if self.one_time:
            out = perm
        else:
            r = rng.random(b.shape)
            out = np.where(perm == 1, r < float(self.q), r < float(self.p)).astype(int)
        return out[0] if size is None else out




@dataclass(frozen=True)
class OneTimeRappor(Rappor):
    """One-time RAPPOR (steps 1–2: permanent randomized response only, f = 0.95); DP-Sniper ``OneTimeRappor``."""

    f: Any = Fraction(19, 20)
    short_name: ClassVar[str] = "one-time-rappor"
    one_time: ClassVar[bool] = True
