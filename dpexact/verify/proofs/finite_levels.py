"""Exact levels of mechanisms with a finite input and output domain, as proofs (and witnesses).

* **Truncated geometric** (Balcer & Vadhan's GeoSample, DP-Sniper's coding): the pmf is rational
  (:meth:`exact_pmf`), the inputs are the counts 0..N and neighbours differ by one, so the level

      ε* = max_{|c - c'| = 1} max_z log(Pr[z | c] / Pr[z | c'])

  is a maximum over finitely many exact rationals: the proof is the exhaustive comparison itself,
  and its argmax is a witness at the level (the bracket closes exactly, e.g. ``log(9/8)`` at k = 3).
* **RAPPOR** (Erlingsson, Pihur & Korolova, CCS 2014): given the Bloom filters, the report bits are
  independent randomised responses with ``Pr[1] = q*`` (filter bit 1) or ``p*`` (bit 0), so the loss of
  an output factorises over the bits: a bit where the filters agree costs 0, one where B(v) = 1,
  B(v') = 0 at most ``u = max(q*/p*, (1-q*)/(1-p*))`` and the reverse at most
  ``w = max(p*/q*, (1-p*)/(1-q*))``, each attained by its own output bit. Hence
  ``ε* = max_{v ≠ v'} log(u^{a(v,v')} w^{b(v,v')})`` with a, b the counts of such bits — a maximum of
  exact rationals over every pair of inputs lo..hi.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import sympy

from ...protocols import AnyMechanism
from ...numbers.real import Real
from ..bracket import Proof, Witness

__all__ = ["TruncatedGeometricLevel", "RapporLevel", "rappor_level"]


def _log_exact(r: Fraction) -> tuple[str, float, float]:
    """``log r`` as an exact string, rounded down and up."""
    e = sympy.log(sympy.Rational(r.numerator, r.denominator))
    ball = Real.of(e).to_arb(128)
    return str(e), float(ball.lower()), float(ball.upper())


class TruncatedGeometricLevel:
    """Proof unit: the exhaustive exact level of the truncated geometric mechanism (module docstring)."""

    name = "exhaustive exact level (truncated geometric)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...mechanisms.truncated_geometric import TruncatedGeometric

        return isinstance(mechanism, TruncatedGeometric) and relation in (None, "one-differ")

    def _level(self, m: AnyMechanism) -> tuple[Fraction, int, int, int]:
        best: tuple | None = None
        for c in range(m.n + 1):
            p = m.exact_pmf([c])
            for c2 in (c - 1, c + 1):
                if not 0 <= c2 <= m.n:
                    continue
                p2 = m.exact_pmf([c2])
                for z in range(m.n + 1):
                    if p[z] == 0:
                        continue
                    r = math.inf if p2[z] == 0 else Fraction(p[z]) / Fraction(p2[z])
                    if best is None or r > best[0]:
                        best = (r, c, c2, z)
        return best

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        r, c, c2, z = self._level(mechanism)
        if r == math.inf:
            return None
        exact, _, hi = _log_exact(r)
        return Proof(upper_float=hi, upper=exact, method="exhaustive", theorem=None,
                     domain={"n": f"counts 0..{mechanism.n}", "epsilon": str(mechanism.epsilon),
                             "neighbourhood": "counts differing by one", "scores": f"{{0..{mechanism.n}}}",
                             "outputs": "every output"},
                     details={"statement": f"max over every pair of neighbouring counts and output of the exact "
                                           f"pmf ratio = {r} (counts {c} vs {c2}, output {z})"})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        r, c, c2, z = self._level(mechanism)
        if r == math.inf:
            return Witness(math.inf, (str(c),), (str(c2),), z, "exact", lower="inf", unbounded=True)
        exact, lo, _ = _log_exact(r)
        return Witness(lower_float=lo, scores=(str(c),), neighbour_scores=(str(c2),), output=z, arithmetic="exact",
                       lower=exact, note=f"Pr ratio {r} (exact rationals)")


def rappor_level(m: AnyMechanism) -> tuple[Fraction, int, int, tuple[int, ...], int]:
    """``(e^{ε*}, v, v', output, pairs)`` (module docstring): the largest exact loss over every pair of inputs."""
    qs, ps = (Fraction(x) for x in m.bit_probabilities())
    up, down = max(qs / ps, (1 - qs) / (1 - ps)), max(ps / qs, (1 - ps) / (1 - qs))
    o_up = 1 if qs / ps >= (1 - qs) / (1 - ps) else 0
    o_down = 0 if (1 - ps) / (1 - qs) >= ps / qs else 1
    filters = {v: m.bloom(v) for v in range(m.lo, m.hi + 1)}
    best: tuple | None = None
    pairs = 0
    for v, bv in filters.items():
        for w, bw in filters.items():
            if v == w:
                continue
            pairs += 1
            a = sum(1 for x, y in zip(bv, bw) if x > y)
            b = sum(1 for x, y in zip(bv, bw) if x < y)
            r = up**a * down**b
            if best is None or r > best[0]:
                best = (r, v, w)
    r, v, w = best
    o = tuple(o_up if x > y else o_down if x < y else x for x, y in zip(filters[v], filters[w]))
    return r, v, w, o, pairs


class RapporLevel:
    """Proof unit: RAPPOR's exact factorised level over every pair of inputs (module docstring)."""

    name = "exact factorised level (RAPPOR)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        from ...ldp.rappor import Rappor

        return isinstance(mechanism, Rappor) and relation is None

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        r, v, w, o, pairs = rappor_level(mechanism)
        exact, _, hi = _log_exact(r)
        return Proof(upper_float=hi, upper=exact, method="closed-form",
                     theorem="Erlingsson, Pihur & Korolova, CCS 2014 (independent per-bit randomised response)",
                     domain={"n": "one value", "epsilon": str(mechanism.epsilon),
                             "neighbourhood": f"any two values in {mechanism.lo}..{mechanism.hi} (LDP)",
                             "scores": f"{{{mechanism.lo}..{mechanism.hi}}}", "outputs": "every output"},
                     details={"statement": f"max over the {pairs} ordered pairs of inputs of the factorised loss: "
                                           f"e^ε* = {r} (values {v} vs {w})"})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        from ...numbers.backends import ball_context

        r, v, w, o, _ = rappor_level(mechanism)
        p1, p2 = mechanism.output_probability(v, o, 256), mechanism.output_probability(w, o, 256)
        with ball_context(256):
            lr = p1.log() - p2.log()
            lo = math.nextafter(float(lr.lower()), -math.inf)
        return Witness(lower_float=lo, scores=(str(v),), neighbour_scores=(str(w),), output="".join(map(str, o)),
                       arithmetic="ball:256", lower=_log_exact(r)[0])
