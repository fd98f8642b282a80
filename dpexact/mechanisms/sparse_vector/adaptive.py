"""Sparse vector releasing gaps, and the adaptive sparse vector (CheckDP's suite; Ding et al. 2020).

**gap-svt** — CheckDP ``gapsparsevector`` (Wang et al. CCS 2020; the "free gap" of Ding, Wang,
Zhang & Kifer, "Free Gap Information from the Differentially Private Sparse Vector and Noisy Max
Mechanisms", VLDB 2020, Algorithm 2): Lyu et al. Algorithm 1's noise (``ρ ~ Lap(2Δ/ε)``,
``ν_i ~ Lap(4cΔ/ε)``, cutoff c) but each ⊤ releases its *gap* ``q_i + ν_i - T - ρ >= 0``. ε-DP.

**adaptive-svt** — CheckDP ``adaptivesparsevector`` (Ding et al. 2020, Algorithm 3, with CheckDP's
constants): budget counter ``cost = 2cε``; for each query draw ``η3 ~ Lap(8cΔ/ε)``; if
``q_i + η3 - T - ρ >= σ`` release that gap (``cost += ε``), else draw ``η2 ~ Lap(4cΔ/ε)`` and
release ``q_i + η2 - T - ρ`` if it is ``>= 0`` (``cost += 2ε``), else ⊥; abort as soon as
``cost > 4cε - 2ε``. In units of ε the used budget ``#top + 2·#middle`` may reach ``2c - 1``
before the run stops. σ = 16 is CheckDP's constant (its comment: "sqrt(2) is approximated to be
2"). ε-DP.

**bad-adaptive-svt** — CheckDP ``badadaptivesparsevector``: the same algorithm, but the first
branch releases the noisy answer ``q_i + η3`` instead of its gap. Not ε-DP: ``q_i + η3`` is
cheap (scale 8cΔ/ε), but whether it was released depends on ``T + ρ``, which the other answers
also see, so the threshold noise can no longer absorb the ⊥ answers.

Readings chosen: the output of a query is ⊥ (CheckDP prints 0 or -100, a value no release takes
with positive probability) or one real number; *which branch* released a number is not observed
(both print a number), so the law of a released value sums the two branches. CheckDP rounds
``T + ρ`` to an ``int`` (``int T_bar``); as in its other sparse-vector rows we use the real
threshold.

**The law** (density w.r.t. counting × Lebesgue measure; ``x_i = T + ρ - q_i``): given ρ the
answers are independent, so for a pattern with released values in a box B,

    Pr[pattern, values ∈ B] = Σ_branches ∫ f_ρ(ρ) Π_{i ∈ ⊥} Pr[⊥_i | ρ] Π_{i ∈ ⊤} Pr[branch_i, value_i ∈ B_i | ρ] dρ,

    gap-svt:   Pr[⊥_i | ρ] = Pr[ν < x_i],           Pr[⊤, gap ∈ [lo, hi]] = Pr[ν ∈ x_i + [max(lo, 0), hi]]
    adaptive:  Pr[⊥_i | ρ] = Pr[η3 < x_i + σ]·Pr[η2 < x_i]
               top:    Pr[η3 ∈ x_i + [max(lo, σ), hi]]
               middle: Pr[η3 < x_i + σ]·Pr[η2 ∈ x_i + [max(lo, 0), hi]]
    bad top:   Pr[η3 ∈ [max(lo - q_i, x_i + σ), hi - q_i]]

summed over the branch sequences that reach the pattern under the budget rule. Every factor is a
Laplace interval probability whose limits move with ρ, so the integral is in closed form
(:mod:`.piecewise`): exact in ``Q[exp(Q)]`` for rational inputs, a rigorous ball otherwise.
The pattern law (``pmf``) is the box law with every value unrestricted.

:meth:`coupling_terms` states the same law in the vocabulary of the threshold-shift coupling
verifier (:mod:`dpexact.verify.proofs.threshold_coupling`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar, Sequence

import numpy as np

from ...numbers.backends import ball_context, get_backend, law_backend
from ...numbers.real import Real
from ...protocols import Backend, CouplingUnits
from .mechanism import MAX_PREC, SVT1, SparseVector, _accurate, finite_real, run_values
from .patterns import MAX_PATTERNS
from .piecewise import Piecewise, integrate_product, noise_between
from .threshold_integral import Ops, ball_ops, exact_ops

__all__ = ["GapSVT", "AdaptiveSVT", "BadAdaptiveSVT"]

Interval = tuple[Any, Any]  # (lo, hi); None = unbounded


def _frac(x: Real) -> Fraction:
    if not x.is_rational:
        raise ValueError("the ratio of the noise scales must be rational (it is for every sparse-vector variant)")
    return x.value


def _box(pattern: str, box: Sequence[Any]) -> list[tuple[Real, Real]]:
    tops = pattern.count("T")
    if isinstance(box, (str, bytes)) or len(box) != tops:
        raise ValueError(f"box: pattern {pattern!r} releases {tops} values, got {box!r}")
    out = []
    for j, iv in enumerate(box):
        if isinstance(iv, (str, bytes)) or len(iv) != 2:
            raise ValueError(f"box[{j}] must be an interval (lo, hi), got {iv!r}")
        lo, hi = finite_real(iv[0], f"box[{j}].lo"), finite_real(iv[1], f"box[{j}].hi")
        if not lo < hi:
            raise ValueError(f"box[{j}] must have lo < hi, got ({lo}, {hi})")
        out.append((lo, hi))
    return out


#: largest (branch term × factor) count one law evaluation may sum: a term is one closed-form
#: integral of n factors, about 1 ms per factor at 128 bits on the development machine (measured:
#: adaptive-svt, cutoff 3, n = 10 sums 3345 terms in 32 s), so the limit is about 100 s of work
MAX_TERM_FACTORS = 100_000
_MS_PER_TERM_FACTOR = 1.0


class _MixedLaw:
    """The pattern + released-values law shared by the variants (module docstring)."""

    def _guard(self, patterns: Sequence[str], n: int) -> None:
        """Refuse, before any integral, a law whose branch terms exceed :data:`MAX_TERM_FACTORS`."""
        from ...cost_limits import CostEstimate, CostLimitError

        work = n * sum(len(self._assignments(a, n)) for a in patterns)
        if work > MAX_TERM_FACTORS:
            est = CostEstimate(f"{self.short_name} law on n = {n} queries ({work // n} branch terms of {n} factors)",
                               0.0, work * _MS_PER_TERM_FACTOR / 1000, f"{_MS_PER_TERM_FACTOR:g} ms per term factor")
            raise CostLimitError(f"n: {est.describe()}; the limit is {MAX_TERM_FACTORS} term factors "
                                 f"(fewer queries or a smaller cutoff)", est)

    def _branch_factor(self, ops: Ops, i: int, q: list[Real], branch: str, iv: Interval) -> Piecewise:
        raise NotImplementedError

    def _assignments(self, pattern: str, n: int) -> list[tuple[str, ...]]:
        raise NotImplementedError

    def _law(self, q: list[Real], pattern: str, ivs: Sequence[Interval], ops: Ops) -> Any:
        """``Pr[pattern, values ∈ ivs]`` in ``ops`` (ivs: one interval per ⊤, None limits = unbounded)."""
        tops = [i for i, a in enumerate(pattern) if a == "T"]
        box = dict(zip(tops, ivs))
        total = None
        for branches in self._assignments(pattern, len(q)):
            facs, k = [], 0
            for i, a in enumerate(pattern):
                if a == "F":
                    facs.append(self._branch_factor(ops, i, q, "F", (None, None)))
                else:
                    facs.append(self._branch_factor(ops, i, q, branches[k], box[i]))
                    k += 1
            v = integrate_product(ops, facs)
            total = v if total is None else total + v
        return ops.const(0) if total is None else total

    def _units(self, q: list[Real]) -> tuple[Real, list[Real]]:
        b1 = self.noise_scales()[0]
        return b1, [(x - self.threshold) / b1 for x in q]

    # -- public law ------------------------------------------------------------------------
    def part_box_probability(self, queries: Any, pattern: str, box: Sequence[tuple[Any, Any]],
                        backend: str = "ball", prec: int = 128) -> tuple[Any, Any]:
        """``Pr[pattern, released values ∈ box]`` (module docstring) as ``(lower, upper)``.

        The law is a closed form, so both bounds are the same number: an exact
        :class:`~dpexact.numbers.exp_sum.ExpSum` (``backend="exact"``) or an arb ball at ``prec``
        bits (``"ball"``). ``box``: one ``(lo, hi)`` (``lo < hi``) per ⊤ of ``pattern``.
        """
        q = self._queries(queries)
        self.check_output(pattern, len(q))
        ivs = _box(pattern, box)
        exact, prec = law_backend(backend, prec)
        self._guard([pattern], len(q))
        if exact:
            v = self._law(q, pattern, ivs, exact_ops())
            return v, v
        with ball_context(prec):
            v = self._law(q, pattern, ivs, ball_ops(prec))
        return v, v

    def pattern_probability(self, queries: Any, pattern: str, backend: str | Backend = "ball") -> Any:
        """``Pr[pattern]`` (values integrated out): sympy expression (exact) or arb ball."""
        be = get_backend(backend)
        q = self._queries(queries)
        self.check_output(pattern, len(q))
        free = [(None, None)] * pattern.count("T")
        self._guard([pattern], len(q))
        if be.is_exact:
            return self._law(q, pattern, free, exact_ops()).to_sympy()
        return self._law_balls(q, [pattern], (be.prec if be.is_ball else 128))[0]

    def _law_balls(self, q: list[Real], patterns: list[str], prec: int) -> list[Any]:
        """Pattern probabilities as balls, precision doubled until accurate (cancellation in the closed form)."""
        self._guard(patterns, len(q))
        out: list[Any] = [None] * len(patterns)
        todo, p = list(range(len(patterns))), prec
        while todo and p <= MAX_PREC:
            with ball_context(p):
                ops = ball_ops(p)
                nxt = []
                for j in todo:
                    out[j] = self._law(q, patterns[j], [(None, None)] * patterns[j].count("T"), ops)
                    if not _accurate(out[j]) and p < MAX_PREC:
                        nxt.append(j)
            todo, p = nxt, 2 * p
        return out

    def exact_values(self, queries: Any) -> list[Any]:
        q = self._queries(queries)
        pats = self.outputs(len(q))
        self._guard(pats, len(q))
        ops = exact_ops()
        return [self._law(q, a, [(None, None)] * a.count("T"), ops) for a in pats]

    def screen_logpmf(self, queries: Any) -> np.ndarray:
        return self.logpmf(queries)

    def rvs_values(self, queries: Any, size: int, random_state: Any = None) -> list[tuple[str, tuple[float, ...]]]:
        """Run the algorithm ``size`` times: ``(pattern, released values)`` pairs."""
        return run_values(self, queries, size, random_state)


@lru_cache(maxsize=64)
def _walk(budget: int, n: int, cutoff: int) -> dict[str, list[tuple[str, ...]]]:
    """Patterns of the adaptive budget rule for n queries, each with its branch sequences."""
    out: dict[str, list[tuple[str, ...]]] = {}

    def walk(prefix: str, branches: tuple[str, ...], used: int) -> None:
        if len(out) > MAX_PATTERNS:
            raise ValueError(f"n: more than {MAX_PATTERNS} output patterns for n = {n}, cutoff = {cutoff}")
        if used > budget or len(prefix) == n:
            out.setdefault(prefix, []).append(branches)
            return
        walk(prefix + "F", branches, used)
        walk(prefix + "T", branches + ("top",), used + 1)
        walk(prefix + "T", branches + ("middle",), used + 2)

    walk("", (), 0)
    return out


@dataclass(frozen=True)
class GapSVT(_MixedLaw, SVT1):
    """Sparse vector releasing the gap ``q_i + ν_i - T - ρ`` of each ⊤: ρ ~ Lap(2Δ/ε), ν_i ~ Lap(4cΔ/ε); ε-DP.

    Ding et al. VLDB 2020 (free gap). Peers: CheckDP ``gapsparsevector``. The pattern law is
    Lyu et al. Algorithm 1's (:class:`SVT1`); ``monotone=True`` halves the query noise for monotone
    neighbours, as there (the coupling verifier proves the gaps private under that relation too).
    """

    short_name: ClassVar[str] = "gap-svt"
    output_kind: ClassVar[str] = "mixed"

    def check_output(self, pattern: str, n: int) -> str:
        from .patterns import check_pattern

        return check_pattern(pattern, n, self.cutoff)

    def _assignments(self, pattern: str, n: int) -> list[tuple[str, ...]]:
        return [("gap",) * pattern.count("T")]

    def _branch_factor(self, ops: Ops, i: int, q: list[Real], branch: str, iv: Interval) -> Piecewise:
        b1, d = self._units(q)
        beta = _frac(self.noise_scales()[1] / b1)
        if branch == "F":
            return noise_between(ops, beta, hi_shift=-d[i])
        lo, hi = iv
        lo = Real.of(0) if lo is None or lo < 0 else lo
        if hi is not None and not lo < hi:
            return Piecewise.const(ops, ops.const(0))
        return noise_between(ops, beta, lo_shift=-d[i] + lo / b1, hi_shift=None if hi is None else -d[i] + hi / b1)

    def pattern_probability(self, queries: Any, pattern: str, backend: str | Backend = "ball") -> Any:
        return SVT1.pattern_probability(self, queries, pattern, backend)

    def exact_values(self, queries: Any) -> list[Any]:
        return SVT1.exact_values(self, queries)

    def screen_logpmf(self, queries: Any, nodes: int = 801) -> np.ndarray:
        return SVT1.screen_logpmf(self, queries, nodes)

    def _run(self, q: np.ndarray, rng: np.random.Generator) -> tuple[str, tuple[float, ...]]:
        b1, b2, _ = (b.to_float() for b in self.noise_scales())
        T = self.threshold.to_float()
        rho = rng.laplace(scale=b1)
        out, vals, count = [], [], 0
        for x in q:
            nu = rng.laplace(scale=b2)
            if x + nu >= T + rho:
                out.append("T")
                vals.append(x + nu - T - rho)
                count += 1
                if count >= self.cutoff:
                    break
            else:
                out.append("F")
        return "".join(out), tuple(vals)

    def coupling_units(self) -> CouplingUnits:
        """Per query: ⊥ ``Pr[ν < x_i]``, ⊤ a released gap ``Pr[ν ∈ x_i + I]``; at most c ⊤."""
        b1, b2, _ = self.noise_scales()
        return CouplingUnits(kinds={"F": [("below", b2)], "T": [("window", b2)]}, weights={"F": 0, "T": 1},
                             budget=self.cutoff, threshold_scale=b1,
                             theorem="Ding, Wang, Zhang & Kifer, VLDB 2020 (free gap), Algorithm 2")

    def coupling_terms(self, pattern: str, n: int) -> list[list[list[tuple]]]:
        """The law's factors for :mod:`dpexact.verify.proofs.threshold_coupling` (one branch sequence)."""
        kinds = self.coupling_units().kinds
        return [[kinds[a] for a in pattern]]


@dataclass(frozen=True)
class AdaptiveSVT(_MixedLaw, SparseVector):
    """Adaptive sparse vector with gaps (Ding et al. VLDB 2020, Alg. 3; CheckDP ``adaptivesparsevector``); ε-DP.

    ρ ~ Lap(2Δ/ε); per query η3 ~ Lap(8cΔ/ε): gap >= σ released (cost ε), else η2 ~ Lap(4cΔ/ε):
    gap >= 0 released (cost 2ε), else ⊥; the run stops once ``#top + 2·#middle > 2c - 2``.
    """

    sigma: Any = 16
    short_name: ClassVar[str] = "adaptive-svt"
    output_kind: ClassVar[str] = "mixed"
    bad: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "sigma", finite_real(self.sigma, "sigma"))
        if self.sigma < 0:
            raise ValueError(f"sigma must be >= 0, got {self.sigma}")

    def noise_scales(self) -> tuple[Real, Real, Real]:
        """``(b1, b2, b3)``: threshold 2Δ/ε, middle branch 4cΔ/ε, top branch 8cΔ/ε."""
        c = self.cutoff
        return self.sensitivity * 2 / self.epsilon, self.sensitivity * (4 * c) / self.epsilon, self.sensitivity * (8 * c) / self.epsilon

    def params(self) -> dict[str, Any]:
        return {**super().params(), "sigma": str(self.sigma)}

    @property
    def budget(self) -> int:
        """Largest used budget (in ε, ``#top + 2·#middle``) that lets the run go on: ``2c - 2``."""
        return 2 * self.cutoff - 2

    def _walk(self, n: int) -> dict[str, list[tuple[str, ...]]]:
        """Every pattern for n queries with the branch sequences that produce it (budget rule)."""
        return _walk(self.budget, n, self.cutoff)

    def outputs(self, n: int) -> list[str]:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        return list(self._walk(n))

    def check_output(self, pattern: str, n: int) -> str:
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a string over 'T'/'F', got {type(pattern).__name__}")
        if pattern not in self._walk(n):
            raise ValueError(f"pattern {pattern!r} is not an output of {self.short_name} on {n} queries (cutoff {self.cutoff})")
        return pattern

    def _assignments(self, pattern: str, n: int) -> list[tuple[str, ...]]:
        return self._walk(n).get(pattern, [])

    def _balls(self, q: list[Real], patterns: list[str], prec: int) -> list[Any]:
        return self._law_balls(q, patterns, prec)

    def _branch_factor(self, ops: Ops, i: int, q: list[Real], branch: str, iv: Interval) -> Piecewise:
        b1, d = self._units(q)
        _, b2, b3 = self.noise_scales()
        beta2, beta3 = _frac(b2 / b1), _frac(b3 / b1)
        s = self.sigma / b1
        below_top = noise_between(ops, beta3, hi_shift=-d[i] + s)
        if branch == "F":
            return below_top * noise_between(ops, beta2, hi_shift=-d[i])
        lo, hi = iv
        if branch == "top":
            if self.bad:  # releases q_i + η3, with η3 >= x_i + σ
                return noise_between(ops, beta3, lo=None if lo is None else (lo - q[i]) / b1, lo_shift=-d[i] + s,
                                     hi=None if hi is None else (hi - q[i]) / b1)
            lo = self.sigma if lo is None or lo < self.sigma else lo
            if hi is not None and not lo < hi:
                return Piecewise.const(ops, ops.const(0))
            return noise_between(ops, beta3, lo_shift=-d[i] + lo / b1, hi_shift=None if hi is None else -d[i] + hi / b1)
        lo = Real.of(0) if lo is None or lo < 0 else lo
        if hi is not None and not lo < hi:
            return Piecewise.const(ops, ops.const(0))
        return below_top * noise_between(ops, beta2, lo_shift=-d[i] + lo / b1, hi_shift=None if hi is None else -d[i] + hi / b1)

    def _run(self, q: np.ndarray, rng: np.random.Generator) -> tuple[str, tuple[float, ...]]:
        b1, b2, b3 = (b.to_float() for b in self.noise_scales())
        T, sigma = self.threshold.to_float(), self.sigma.to_float()
        rho = rng.laplace(scale=b1)
        out, vals, used = [], [], 0
        for x in q:
            eta3 = rng.laplace(scale=b3)
            if x + eta3 - (T + rho) >= sigma:
                out.append("T")
                vals.append(x + eta3 if self.bad else x + eta3 - (T + rho))
                used += 1
            else:
                eta2 = rng.laplace(scale=b2)
                if x + eta2 - (T + rho) >= 0:
                    out.append("T")
                    vals.append(x + eta2 - (T + rho))
                    used += 2
                else:
                    out.append("F")
            if used > self.budget:
                break
        return "".join(out), tuple(vals)

    def coupling_units(self) -> CouplingUnits:
        """Per query (:class:`~dpexact.protocols.CouplingUnits`): ⊥ ``Pr[η3 < x_i + σ]·Pr[η2 < x_i]``;
        top a released gap ``Pr[η3 ∈ x_i + I]`` (the bad variant's released answer: ``"released"``, its
        window is fixed while its condition moves with ρ: only the zero shift aligns it); middle ``Pr[η3 < x_i + σ]·Pr[η2 ∈ x_i + I]``.
        The run goes on while ``#top + 2·#middle <= 2c - 2`` and the last answer adds at most 2, so
        every output has ``#top + 2·#middle <= 2c``."""
        b1, b2, b3 = self.noise_scales()
        return CouplingUnits(kinds={"F": [("below", b3), ("below", b2)],
                                    "top": [("released", b3)] if self.bad else [("window", b3)],
                                    "middle": [("below", b3), ("window", b2)]},
                             weights={"F": 0, "top": 1, "middle": 2}, budget=self.budget + 2, threshold_scale=b1,
                             theorem="Ding, Wang, Zhang & Kifer, VLDB 2020, Algorithm 3 (adaptive sparse vector with gaps)")

    def coupling_terms(self, pattern: str, n: int) -> list[list[list[tuple]]]:
        """The law's factors for :mod:`dpexact.verify.proofs.threshold_coupling`, one list per branch sequence
        (each query's factors from :meth:`coupling_units`, by its branch)."""
        kinds = self.coupling_units().kinds
        seqs = []
        for branches in self._assignments(pattern, n):
            terms, k = [], 0
            for a in pattern:
                if a == "F":
                    terms.append(kinds["F"])
                    continue
                terms.append(kinds[branches[k]])
                k += 1
            seqs.append(terms)
        return seqs


@dataclass(frozen=True)
class BadAdaptiveSVT(AdaptiveSVT):
    """Adaptive sparse vector whose first branch releases the noisy answer ``q_i + η3`` (not its gap); not ε-DP.

    Peers: CheckDP ``badadaptivesparsevector``.
    """

    short_name: ClassVar[str] = "bad-adaptive-svt"
    privacy_statement: ClassVar[str] = "not ε-DP (released answer tied to the noisy threshold)"
    claim_holds: ClassVar[bool] = False
    bad: ClassVar[bool] = True
