"""Sparse vector that releases the noisy answers of its ⊤ queries (Lyu et al. Algorithm 3).

The output is mixed: the ⊤/⊥ pattern and, for each ⊤ query i, the real ``v_i = q_i + ν_i``.
Its law has the density (with respect to counting measure on patterns × Lebesgue measure on
the released values)

    p(a, v) = Π_{i ∈ ⊤} f_{b2}(v_i - q_i) · ∫_{ρ <= min_⊤ v_i - T} f_ρ(ρ) Π_{i ∈ ⊥} Pr[ν_i < T + ρ - q_i] dρ

(the ⊤ events are ``ρ <= v_i - T``). Privacy is a statement about *sets* of outputs, so the
verifier uses :meth:`SVT3.part_box_probability`: for a box ``B = Π [lo_i, hi_i]`` of released values,
the inner integral is increasing in its upper limit and ``min_⊤ v_i`` ranges over
``[min lo_i, min hi_i]`` on B, hence

    I(min lo - T) · Π_i L_i  <=  Pr[a, v ∈ B]  <=  I(min hi - T) · Π_i L_i,
    L_i = F_{b2}(hi_i - q_i) - F_{b2}(lo_i - q_i)

with every term in closed form (exact for rationals, rigorous balls otherwise).
``pmf`` is the pattern marginal (the released values integrated out), which is the law of
Algorithm 1's pattern with ``b2 = cΔ/ε2``.

Peers: StatDP ``iSVT4`` (b1 = 2/ε, b2 = 2N/ε), DP-Sniper ``SparseVectorTechnique3``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence



from ...numbers.backends import ball_context, law_backend
from ...numbers.real import Real
from .mechanism import SparseVector, finite_real, run_values
from .patterns import check_pattern
from .threshold_integral import Ops, ball_ops, exact_ops, laplace_cdf

__all__ = ["SVT3", "BadGapSVT"]


@dataclass(frozen=True)
class SVT3(SparseVector):
    """Sparse vector, Lyu, Su & Li (VLDB 2017) Algorithm 3 (Roth 2011): ρ ~ Lap(Δ/ε1), ν_i ~ Lap(cΔ/ε2), releases q_i + ν_i of each ⊤; ∞-DP.

    Peers: StatDP ``iSVT4``; DP-Sniper ``SparseVectorTechnique3``.
    """

    short_name: ClassVar[str] = "svt3"
    output_kind: ClassVar[str] = "mixed"
    privacy_statement: ClassVar[str] = "∞-DP (Lyu et al. §4)"
    claim_holds: ClassVar[bool] = False

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        e1 = self.epsilon / 2
        e2 = self.epsilon - e1
        b1 = self.sensitivity / e1
        return b1, self.sensitivity * self.cutoff / e2, b1

    def _top_terms(self, b2: Real) -> list[tuple]:
        # the released q_i + ν_i is the very value tested against T + ρ: only the zero shift aligns both
        return [("released", b2)]

    def _check_values(self, pattern: str, values: Sequence[Any], name: str) -> list:
        tops = pattern.count("T")
        if isinstance(values, (str, bytes)) or len(values) != tops:
            raise ValueError(f"{name}: pattern {pattern!r} releases {tops} values, got {values!r}")
        return list(values)

    def part_box_probability(self, queries: Any, pattern: str, box: Sequence[tuple[Any, Any]],
                        backend: str = "ball", prec: int = 128) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds of ``Pr[pattern, released values ∈ box]`` (module docstring).

        ``box`` holds one ``(lo, hi)`` interval (``lo < hi``, exact) per ⊤ of ``pattern``.
        ``backend``: ``"ball"`` (arb at ``prec`` bits) or ``"exact"`` (ExpSum values).
        """
        q = self._queries(queries)
        check_pattern(pattern, len(q), self.cutoff)
        box = self._check_values(pattern, box, "box")
        ivs = []
        for j, iv in enumerate(box):
            if len(iv) != 2:
                raise ValueError(f"box[{j}] must be an interval (lo, hi), got {iv!r}")
            lo, hi = finite_real(iv[0], f"box[{j}].lo"), finite_real(iv[1], f"box[{j}].hi")
            if not lo < hi:
                raise ValueError(f"box[{j}] must have lo < hi, got ({lo}, {hi})")
            ivs.append((lo, hi))
        exact, prec = law_backend(backend, prec)
        if exact:
            return self._box(q, pattern, ivs, exact_ops())
        with ball_context(prec):
            return self._box(q, pattern, ivs, ball_ops(prec))

    def _box(self, q: list[Real], pattern: str, ivs: list[tuple[Real, Real]], ops: Ops) -> tuple[Any, Any]:
        _, b2, _ = self.noise_scales()
        tops = [i for i, a in enumerate(pattern) if a == "T"]
        mass = ops.const(1)
        for i, (lo, hi) in zip(tops, ivs):
            mass = mass * (laplace_cdf(ops, hi - q[i], b2) - laplace_cdf(ops, lo - q[i], b2))
        if not tops:
            v = self._pattern_value(q, pattern, ops)
            return v, v
        u_lo = min(lo for lo, _ in ivs) - self.threshold
        u_hi = min(hi for _, hi in ivs) - self.threshold
        lower = self._pattern_value(q, pattern, ops, upper=u_lo, tops_in_integral=False) * mass
        upper = self._pattern_value(q, pattern, ops, upper=u_hi, tops_in_integral=False) * mass
        return lower, upper

    def density(self, queries: Any, pattern: str, values: Sequence[Any], prec: int = 128) -> Any:
        """The density ``p(pattern, values)`` as an arb ball (module docstring)."""
        q = self._queries(queries)
        check_pattern(pattern, len(q), self.cutoff)
        vs = [finite_real(v, f"values[{j}]") for j, v in enumerate(self._check_values(pattern, values, "values"))]
        _, b2, _ = self.noise_scales()
        with ball_context(prec):
            ops = ball_ops(prec)
            tops = [i for i, a in enumerate(pattern) if a == "T"]
            d = ops.const(1)
            for i, v in zip(tops, vs):
                d = d * ops.exp(-abs_real(v - q[i]) / b2) / (2 * ops.const(b2))
            if not tops:
                return self._pattern_value(q, pattern, ops)
            return d * self._pattern_value(q, pattern, ops, upper=min(vs) - self.threshold, tops_in_integral=False)

    def rvs_values(self, queries: Any, size: int, random_state: Any = None) -> list[tuple[str, tuple[float, ...]]]:
        """Run the algorithm ``size`` times: ``(pattern, released values)`` pairs."""
        return run_values(self, queries, size, random_state)


def abs_real(x: Real) -> Real:
    return -x if x < 0 else x


@dataclass(frozen=True)
class BadGapSVT(SVT3):
    """Algorithm 1's noise (ρ ~ Lap(Δ/ε1), ν_i ~ Lap(2cΔ/ε2)) but releasing the noisy answers q_i + ν_i of ⊤ queries; ∞-DP.

    Peers: CheckDP ``badgapsparsevector`` (Wang et al. CCS 2020; its private counterpart releases the gap
    ``q_i + ν_i - T - ρ``).
    """

    short_name: ClassVar[str] = "bad-gap-svt"

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        e1 = self.epsilon / 2
        b1 = self.sensitivity / e1
        return b1, self.sensitivity * (2 * self.cutoff) / (self.epsilon - e1), b1
