"""The sparse vector technique (SVT): Algorithms 1–6 of Lyu, Su & Li (VLDB 2017, Figure 1).

Every variant draws a threshold noise ``ρ ~ Lap(b1)`` and, for each query in turn, a query noise
``ν_i ~ Lap(b2)`` (none in Algorithm 5); query i is answered ⊤ iff ``q_i + ν_i >= T + ρ``, else
⊥. With a cutoff c the run aborts right after the c-th ⊤. The output is the ⊤/⊥ pattern
(:mod:`.patterns`); Algorithm 3 also releases ``q_i + ν_i`` for every ⊤ (:mod:`.released`).

The law of a pattern is a product of one-dimensional integrals over the threshold noise (one
per segment of the pattern between threshold redraws), each computed in closed form by
:mod:`.threshold_integral`: exact in ``Q[exp(Q)]`` for rational parameters and queries
(``exact`` backend, values as sympy expressions), rigorous arb balls on ``ball``, and on
``float`` the ball midpoints with the ball radius as the stated error bound.

=======  ======================  ==============  ================  ======  ========  ===================
name     source (Lyu et al.)     ε1              b1 = scale of ρ   b2      cutoff    privacy (Lyu et al.)
=======  ======================  ==============  ================  ======  ========  ===================
svt1     Alg. 1 (Lyu et al.)     ε/2             Δ/ε1              2cΔ/ε2  c         ε-DP
svt1-m   Alg. 1, monotonic q     ε/2             Δ/ε1              cΔ/ε2   c         ε-DP (monotone queries)
svt2     Alg. 2 (Dwork & Roth)   ε/2             cΔ/ε1; redrawn    2cΔ/ε2  c         ε-DP
                                                 as Lap(cΔ/ε2)
                                                 after each ⊤
svt3     Alg. 3 (Roth)           ε/2             Δ/ε1              cΔ/ε2   c         ∞-DP (releases q_i+ν_i)
svt4     Alg. 4 (Lee & Clifton)  ε/4             Δ/ε1              Δ/ε2    c         ((1+6c)/4)·ε-DP
svt5     Alg. 5 (Stoddard et a.) ε/2             Δ/ε1              none    none      ∞-DP
svt6     Alg. 6 (Chen et al.)    ε/2             Δ/ε1              Δ/ε2    none      ∞-DP
=======  ======================  ==============  ================  ======  ========  ===================

with ``ε2 = ε - ε1``; svt1-m is ``svt1`` with ``monotone=True`` (its claim holds for monotonic
queries only, :class:`SVT1`). Peers' names for the same algorithms: StatDP (Ding et al. CCS 2018)
``SVT`` = svt1 (b1 = 2/ε, b2 = 4N/ε), ``iSVT1`` = svt5, ``iSVT2`` = svt6, ``iSVT3`` = svt4
(b1 = 4/ε, b2 = 4/(3ε)), ``iSVT4`` = svt3 (b1 = 2/ε, b2 = 2N/ε); DP-Sniper (Bichsel et al.
S&P 2021) ``SparseVectorTechnique1..6`` = svt1..svt6. StatDP compares with ``>`` in iSVT3/4
and ``>=`` elsewhere; for continuous noise the tie has probability 0, and for svt5 (no query
noise) it is the event ``ρ = q_i - T`` of probability 0 as well, so both readings have the
same law.

Readings chosen: the cutoff counts ⊤ answers and aborts *after* the c-th ⊤ (Lyu et al.'s
"if count >= c then Abort"), svt5/svt6 have no cutoff by default (Figure 1 prints none;
``cutoff=c`` gives DP-Auditorium's versions, which abort after c ⊤ like the others), Algorithm 2's
redrawn threshold noise uses ``cΔ/ε2`` as printed (equal to ``cΔ/ε1`` since ε1 = ε2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ...numbers.backends import ball_context, get_backend
from ...numbers.pmf import Pmf
from ...numbers.real import Real
from ...protocols import Backend, CouplingUnits, MechanismProperties
from ..validation import exact_scores, float_scores, positive_real
from .patterns import check_pattern, enumerate_patterns
from .threshold_integral import Ops, ball_ops, exact_ops, laurent_patterns, laurent_segment, noiseless_segment

__all__ = ["SparseVector", "SVT1", "SVT2", "SVT4", "SVT5", "SVT6", "finite_real", "run_values"]

#: largest number of queries accepted (cost guard; the pattern space is bounded separately)
MAX_QUERIES = 64
#: ball precision ladder: a pattern probability is recomputed at doubled precision until
#: its relative radius is below 2^-TARGET_BITS (cancellation in the closed form)
TARGET_BITS = 60
MAX_PREC = 4096


def _accurate(v: Any) -> bool:
    """A ball that is exactly 0 or whose relative radius is below 2^-TARGET_BITS."""
    if v.is_exact():
        return True
    m = abs(v.mid())
    return bool(m > 0) and bool(v.rad() <= m * 2.0**-TARGET_BITS)


def finite_real(value: Any, name: str) -> Real:
    """An exact finite real (no symbols), or a ValueError naming ``name``."""
    if isinstance(value, float) and not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    r = Real.of(value, name)
    if r.is_symbolic:
        raise ValueError(f"{name} must be a number, got the symbolic {r}")
    if not r.is_rational:
        import sympy

        if not r.value.is_finite:
            raise ValueError(f"{name} must be finite, got {r}")
    return r


def _cutoff(value: Any, allowed_none: bool) -> int | None:
    if value is None:
        if not allowed_none:
            raise ValueError("cutoff must be a positive integer, got None")
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, str) and value.strip().lstrip("+").isdigit():
            value = int(value)
        else:
            raise TypeError(f"cutoff must be a positive integer, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"cutoff must be a positive integer, got {value}")
    return int(value)


@dataclass(frozen=True)
class SparseVector:
    """Sparse vector technique with threshold noise ``Lap(b1)`` and query noise ``Lap(b2)`` (module table).

    Args:
        epsilon: the claimed ε > 0 (exact).
        threshold: T, a finite exact real (default 0).
        cutoff: c, the number of ⊤ after which the run aborts (a positive integer; ``None``
            for the variants without cutoff).
        sensitivity: Δ > 0 of every query.
    """

    epsilon: Any
    threshold: Any = 0
    cutoff: Any = 1
    sensitivity: Any = 1

    short_name: ClassVar[str] = "svt"
    has_cutoff: ClassVar[bool] = True
    resample: ClassVar[bool] = False
    output_kind: ClassVar[str] = "finite"
    #: the privacy level proved in the literature (text) and whether the ε claim holds
    privacy_statement: ClassVar[str] = "ε-DP"
    claim_holds: ClassVar[bool] = True
    #: the result the threshold-shift coupling re-proves (:meth:`coupling_units`)
    coupling_theorem: ClassVar[str] = "Lyu, Su & Li, VLDB 2017, proof of Theorem 2 (threshold-shift coupling)"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "threshold", finite_real(self.threshold, "threshold"))
        # svt5/svt6 print no cutoff (Figure 1); DP-Auditorium's versions abort after c ⊤: optional
        object.__setattr__(self, "cutoff", _cutoff(self.cutoff, not self.has_cutoff))

    # -- scales (overridden per algorithm) -------------------------------------------------
    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        """``(b1, b2, b1_redraw)``: threshold scale, query scale (None: no query noise), redraw scale."""
        e1 = self.epsilon / 2
        e2 = self.epsilon - e1
        b1 = self.sensitivity / e1
        return b1, self.sensitivity * (2 * self.cutoff) / e2, b1

    # -- protocol surface --------------------------------------------------------------------
    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def neighbourhood(self) -> Any:
        """StatDP's ALL_DIFFER: every query moves by at most Δ (ℓ∞ box)."""
        from ..neighbourhoods import LInfBox

        return LInfBox(self.sensitivity.to_fraction() if self.sensitivity.is_rational else self.sensitivity)

    def outputs(self, n: int) -> list[str]:
        """Every valid ⊤/⊥ pattern for n queries (:func:`.patterns.enumerate_patterns`)."""
        return enumerate_patterns(n, self.cutoff)

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "threshold": str(self.threshold), "cutoff": self.cutoff,
                "sensitivity": str(self.sensitivity)}

    # -- the law ---------------------------------------------------------------------------
    def _segments(self, pattern: str) -> list[tuple[int, int, bool]]:
        """``(start, stop, first)`` index ranges between threshold draws (one unless resampling)."""
        if not self.resample:
            return [(0, len(pattern), True)]
        out, start = [], 0
        for i, a in enumerate(pattern):
            if a == "T":
                out.append((start, i + 1, start == 0))
                start = i + 1
        if start < len(pattern):
            out.append((start, len(pattern), start == 0))
        return out

    def _pattern_value(self, q: list[Real], pattern: str, ops: Ops, upper: Real | None = None,
                       tops_in_integral: bool = True) -> Any:
        b1, b2, b1r = self.noise_scales()
        value = None
        for start, stop, first in self._segments(pattern):
            scale = b1 if first else b1r
            if b2 is None:
                fac = [(q[i] - self.threshold, pattern[i] == "T") for i in range(start, stop)]
                v = noiseless_segment(ops, scale, fac)
            else:
                k = (b2 / scale)
                if not k.is_rational:
                    raise ValueError("the ratio of the noise scales must be rational (it is for every SVT variant)")
                fac = [((q[i] - self.threshold) / b2, pattern[i] == "T") for i in range(start, stop)
                       if tops_in_integral or pattern[i] == "F"]
                v = laurent_segment(ops, k.value, fac, None if upper is None else upper / b2)
            value = v if value is None else value * v
        return value

    def _queries(self, queries: Any) -> list[Real]:
        # every backend's law is computed from the queries as given (floats at their binary value):
        # rounding them to float64 while the threshold stays exact would move q_i - T silently
        q = exact_scores(queries, "queries", limit=MAX_QUERIES)
        if len(q) > MAX_QUERIES:
            raise ValueError(f"queries: {len(q)} entries exceed the limit {MAX_QUERIES}")
        return q

    def pattern_probability(self, queries: Any, pattern: str, backend: str | Backend = "ball") -> Any:
        """``Pr[pattern]`` for one pattern: an ExpSum-valued sympy expression (exact) or an arb ball."""
        be = get_backend(backend)
        q = self._queries(queries)
        check_pattern(pattern, len(q), self.cutoff)
        if be.is_exact:
            return self._pattern_value(q, pattern, exact_ops()).to_sympy()
        return self._balls(q, [pattern], (be.prec if be.is_ball else 128))[0]

    def exact_pattern_value(self, queries: Any, pattern: str) -> Any:
        """``Pr[pattern]`` as an exact :class:`~dpexact.numbers.exp_sum.ExpSum` (rational inputs)."""
        q = self._queries(queries)
        check_pattern(pattern, len(q), self.cutoff)
        return self._pattern_value(q, pattern, exact_ops())

    def _balls(self, q: list[Real], patterns: list[str], prec: int) -> list[Any]:
        out: list[Any] = [None] * len(patterns)
        todo = list(range(len(patterns)))
        p = prec
        shared = self._shared_values(q, patterns, p)
        if shared is not None:  # all patterns at once; only inaccurate ones go up the ladder
            out = shared
            todo = [i for i, v in enumerate(out) if not _accurate(v)]
            p *= 2
        while todo and p <= MAX_PREC:
            with ball_context(p):
                ops = ball_ops(p)
                nxt = []
                for i in todo:
                    v = self._pattern_value(q, patterns[i], ops)
                    out[i] = v
                    if not _accurate(v) and p < MAX_PREC:
                        nxt.append(i)
            todo, p = nxt, 2 * p
        return out

    def _shared_values(self, q: list[Real], patterns: list[str], prec: int | None) -> list[Any] | None:
        """All pattern values in one trie pass (:func:`.threshold_integral.laurent_patterns`), or None
        for the variants it does not cover (no query noise, threshold redraws)."""
        b1, b2, _ = self.noise_scales()
        if b2 is None or self.resample:
            return None
        k = b2 / b1
        if not k.is_rational:
            raise ValueError("the ratio of the noise scales must be rational (it is for every SVT variant)")
        if prec is None:
            return laurent_patterns(exact_ops(), k.value, [(x - self.threshold) / b2 for x in q], patterns)
        with ball_context(prec):
            return laurent_patterns(ball_ops(prec), k.value, [(x - self.threshold) / b2 for x in q], patterns)

    def exact_values(self, queries: Any) -> list[Any]:
        """Exact pattern probabilities as :class:`~dpexact.numbers.exp_sum.ExpSum` (order of :meth:`outputs`)."""
        q = self._queries(queries)
        pats = self.outputs(len(q))
        shared = self._shared_values(q, pats, None)
        if shared is not None:
            return shared
        ops = exact_ops()
        return [self._pattern_value(q, a, ops) for a in pats]

    def pmf(self, queries: Any, backend: str | Backend = "float", method: str | None = None) -> Pmf:
        """``Pr[pattern]`` for every pattern of :meth:`outputs` (``len(queries)``)."""
        if method not in (None, "closed-form"):
            raise ValueError(f"method must be 'closed-form', got {method!r}")
        be = get_backend(backend)
        q = self._queries(queries)
        pats = self.outputs(len(q))
        if be.is_exact:
            vals = tuple(v.to_sympy() for v in self.exact_values(queries))
            return Pmf(vals, "exact", "closed-form", 0.0, 0.0, "exact", details={"outputs": pats})
        if be.is_mp:
            raise ValueError("backend: the sparse-vector laws are served on float, ball and exact (use ball:bits for high precision)")
        prec = be.prec if be.is_ball else 96
        balls = self._balls(q, pats, prec)
        if be.is_ball:
            return Pmf(tuple(balls), str(be), "closed-form", None, max(float(b.rad()) for b in balls), "rigorous",
                       details={"outputs": pats})
        mids = np.array([float(b.mid()) for b in balls])
        rads = np.array([float(b.rad()) for b in balls])
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(mids > 0, (rads + np.abs(mids) * 2.0**-52) / np.abs(mids), 0.0)
        # the ball radius bounds the error of the exact value; rounding the midpoint adds half an ulp
        return Pmf(mids, "float", "closed-form", float(rel.max(initial=0.0)), float(rads.max(initial=0.0)) + 2.0**-53,
                   "rigorous", details={"outputs": pats})

    def logpmf(self, queries: Any) -> np.ndarray:
        p = self.pmf(queries)
        with np.errstate(divide="ignore"):
            return np.log(p.values)

    def screen_logpmf(self, queries: Any, nodes: int = 801) -> np.ndarray:
        """An *uncertified* float estimate of the log-pmf, only for ranking candidates in searches.

        Noiseless variant: the closed form ``F(min_⊤ d) - F(max_⊥ d)`` in float64. Otherwise the
        threshold integral by the trapezoid rule on a uniform grid of ``nodes`` points covering
        the bulk of the integrand (40 noise scales beyond every breakpoint), all patterns at
        once (one matrix product). The resampling variant falls back to :meth:`logpmf`.
        """
        b1, b2, _ = self.noise_scales()
        q = float_scores(queries, "queries")
        pats = self.outputs(len(q))
        if self.resample:
            return self.logpmf(queries)
        b1f, T = b1.to_float(), self.threshold.to_float()
        d = q - T
        A = np.zeros((len(pats), len(q)), dtype=bool)
        B = np.zeros((len(pats), len(q)), dtype=bool)
        for j, a in enumerate(pats):
            for i, c in enumerate(a):
                (A if c == "T" else B)[j, i] = True
        if b2 is None:
            hi = np.where(A, d[None, :], np.inf).min(axis=1)
            lo = np.where(B, d[None, :], -np.inf).max(axis=1)

            def cdf(x: np.ndarray) -> np.ndarray:
                with np.errstate(over="ignore"):
                    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b1f), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b1f))

            with np.errstate(divide="ignore"):
                return np.where(hi > lo, np.log(np.maximum(cdf(hi) - cdf(lo), 0.0)), -np.inf)
        b2f = b2.to_float()
        lo = min(-40 * b1f, d.min() - 40 * b2f)
        hi = max(40 * b1f, d.max() + 40 * b2f)
        rho = np.linspace(lo, hi, nodes)
        x = (rho[None, :] - d[:, None]) / b2f  # Pr[ν >= x·b2]
        log_top = np.where(x >= 0, np.log(0.5) - x, np.log1p(-0.5 * np.exp(np.minimum(x, 0))))
        log_bot = np.where(x >= 0, np.log1p(-0.5 * np.exp(-np.maximum(x, 0))), np.log(0.5) + x)
        log_f = -np.abs(rho) / b1f - np.log(2 * b1f)
        w = np.full(nodes, (hi - lo) / (nodes - 1))
        w[0] = w[-1] = w[0] / 2
        L = A.astype(float) @ log_top + B.astype(float) @ log_bot + (log_f + np.log(w))[None, :]
        top = L.max(axis=1)
        return top + np.log(np.exp(L - top[:, None]).sum(axis=1))

    # -- the law's factors, for the coupling verifier ---------------------------------------------
    def coupling_units(self) -> CouplingUnits | None:
        """The law per query (:class:`~dpexact.protocols.CouplingUnits`): ⊥ is ``Pr[ν < x_i]``
        (``"below"``), ⊤ is ``Pr[ν >= x_i]`` (``"above"``), ``x_i = T + ρ - q_i``; at most ``cutoff``
        ⊤ per output (none: no bound); Algorithm 2 redraws the threshold after each ⊤. ``None``
        without query noise (Algorithm 5), which the coupling does not cover."""
        b1, b2, b1r = self.noise_scales()
        if b2 is None:
            return None
        return CouplingUnits(kinds={"F": [("below", b2)], "T": self._top_terms(b2)}, weights={"F": 0, "T": 1},
                             budget=self.cutoff, threshold_scale=b1, theorem=self.coupling_theorem,
                             redraw_scale=b1r if self.resample else None,
                             redraw_after=("T",) if self.resample else ())

    def coupling_terms(self, pattern: str, n: int) -> list[list[list[tuple]]] | None:
        """Per query, the Laplace factors of ``Pr[pattern]`` (:meth:`coupling_units`) as
        :mod:`dpexact.verification.proofs.threshold_coupling` reads them.

        With a threshold redrawn after each ⊤ (Algorithm 2) each segment has its own threshold noise:
        ``{"segments": [(scale, factors), ...]}``. ``None`` without query noise (Algorithm 5).
        """
        u = self.coupling_units()
        if u is None:
            return None
        per = [u.kinds[a] for a in pattern]
        if not self.resample:
            return [per]
        return [{"segments": [(u.threshold_scale if first else u.redraw_scale, per[start:stop])
                              for start, stop, first in self._segments(pattern)]}]

    def _top_terms(self, b2: Real) -> list[tuple]:
        return [("above", b2)]

    # -- sampling (the algorithm itself) -----------------------------------------------------
    def _run(self, q: np.ndarray, rng: np.random.Generator) -> tuple[str, tuple[float, ...]]:
        b1, b2, b1r = (None if b is None else b.to_float() for b in self.noise_scales())
        T = self.threshold.to_float()
        rho = rng.laplace(scale=b1)
        out, vals, count = [], [], 0
        for x in q:
            nu = 0.0 if b2 is None else rng.laplace(scale=b2)
            if x + nu >= T + rho:
                out.append("T")
                vals.append(x + nu)
                count += 1
                if self.cutoff is not None and count >= self.cutoff:
                    break
                if self.resample:
                    rho = rng.laplace(scale=b1r)
            else:
                out.append("F")
        return "".join(out), tuple(vals)

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> Any:
        """Run the algorithm: one pattern string (``size=None``) or an object array of patterns."""
        q = float_scores(queries, "queries")
        rng = np.random.default_rng(random_state)
        if size is None:
            return self._run(q, rng)[0]
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"size must be a non-negative integer, got {size!r}")
        return np.array([self._run(q, rng)[0] for _ in range(int(size))], dtype=object)


def run_values(m: SparseVector, queries: Any, size: int, random_state: Any = None) -> list[tuple[str, tuple[float, ...]]]:
    """Run ``m``'s algorithm ``size`` times: ``(pattern, values)`` pairs (the variants that release values)."""
    q = float_scores(queries, "queries")
    rng = np.random.default_rng(random_state)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise ValueError(f"size must be a non-negative integer, got {size!r}")
    return [m._run(q, rng) for _ in range(int(size))]


@dataclass(frozen=True)
class SVT1(SparseVector):
    """Sparse vector, Lyu et al. Algorithm 1: ρ ~ Lap(Δ/ε1), ν_i ~ Lap(2cΔ/ε2), ε1 = ε2 = ε/2; ε-DP (Lyu et al. Theorem 2).

    ``monotone=True``: the variant for monotonic queries, ν_i ~ Lap(cΔ/ε2) = Lap(2cΔ/ε) (half of
    the 4cΔ/ε above), ε-DP when every query moves in the same direction between neighbours
    (``q' - q ∈ [0, Δ]^n`` or ``[-Δ, 0]^n``, :class:`~dpexact.mechanisms.neighbourhoods.MonotoneBox`;
    Lyu, Su & Li (VLDB 2017), Algorithm 1's case of monotonic queries, noise Lap(cΔ/ε2): in the
    proof of Theorem 2 the threshold shift then absorbs the ⊥ answers and a ⊤ answer moves by at
    most Δ, not 2Δ). Not claimed when queries may move in opposite directions (StatDP's ALL_DIFFER).

    Peers: StatDP ``SVT``; DP-Sniper ``SparseVectorTechnique1``; CheckDP ``sparsevector``
    (``examples/sparsevector.c``), and with ``monotone=True`` CheckDP ``svt_increasing`` /
    ``svt_decreasing`` (``examples/svt_increasing.c``, ``examples/svt_decreasing.c``:
    ``Lap(2/ε)``, ``Lap(2·NN/ε)``, PRECONDITION INCREASING / DECREASING).
    """

    monotone: Any = False
    short_name: ClassVar[str] = "svt1"
    coupling_theorem: ClassVar[str] = "Lyu, Su & Li, VLDB 2017, Theorem 2 (Algorithm 1, and its Lap(cΔ/ε2) case for monotonic queries)"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise TypeError(f"monotone must be a bool, got {type(self.monotone).__name__}")
        object.__setattr__(self, "monotone", bool(self.monotone))

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        b1, b2, b1r = super().noise_scales()
        return b1, (b2 / 2 if self.monotone else b2), b1r

    def neighbourhood(self) -> Any:
        """ALL_DIFFER (ℓ∞ box), or the monotone box for ``monotone=True`` (the relation of its claim)."""
        if not self.monotone:
            return super().neighbourhood()
        from ..neighbourhoods import MonotoneBox

        return MonotoneBox(self.sensitivity.to_fraction() if self.sensitivity.is_rational else self.sensitivity)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "monotone": self.monotone}


@dataclass(frozen=True)
class SVT2(SparseVector):
    """Sparse vector, Lyu et al. Algorithm 2 (Dwork & Roth 2014): ρ ~ Lap(cΔ/ε1), redrawn after every ⊤; ν_i ~ Lap(2cΔ/ε2); ε-DP.

    Peers: DP-Sniper ``SparseVectorTechnique2``.
    """

    short_name: ClassVar[str] = "svt2"
    resample: ClassVar[bool] = True
    coupling_theorem: ClassVar[str] = "Lyu, Su & Li, VLDB 2017, Algorithm 2 (Dwork & Roth 2014, Theorem 3.25: c threshold redraws)"

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        e1 = self.epsilon / 2
        e2 = self.epsilon - e1
        c = self.cutoff
        return self.sensitivity * c / e1, self.sensitivity * (2 * c) / e2, self.sensitivity * c / e2


@dataclass(frozen=True)
class SVT4(SparseVector):
    """Sparse vector, Lyu et al. Algorithm 4 (Lee & Clifton 2014): ε1 = ε/4, ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2); only ((1+6c)/4)ε-DP.

    Peers: StatDP ``iSVT3``; DP-Sniper ``SparseVectorTechnique4``.
    """

    short_name: ClassVar[str] = "svt4"
    coupling_theorem: ClassVar[str] = "Lyu, Su & Li, VLDB 2017, §4: Algorithm 4 is ((1+6c)/4)·ε-DP"
    privacy_statement: ClassVar[str] = "((1+6c)/4)·ε-DP (Lyu et al. §4)"
    claim_holds: ClassVar[bool] = False

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        e1 = self.epsilon / 4
        e2 = self.epsilon - e1
        b1 = self.sensitivity / e1
        return b1, self.sensitivity / e2, b1

    def true_epsilon(self) -> Real:
        """Lyu et al.'s privacy level ((1+6c)/4)·ε of Algorithm 4."""
        return self.epsilon * Fraction(1 + 6 * self.cutoff, 4)


@dataclass(frozen=True)
class SVT5(SparseVector):
    """Sparse vector, Lyu et al. Algorithm 5 (Stoddard et al. 2014): ρ ~ Lap(Δ/ε1), no query noise, no cutoff; ∞-DP.

    Peers: StatDP ``iSVT1``; DP-Sniper ``SparseVectorTechnique5``.
    """

    cutoff: Any = None
    short_name: ClassVar[str] = "svt5"
    has_cutoff: ClassVar[bool] = False
    privacy_statement: ClassVar[str] = "∞-DP (Lyu et al. §4)"
    claim_holds: ClassVar[bool] = False

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        b1 = self.sensitivity / (self.epsilon / 2)
        return b1, None, b1


@dataclass(frozen=True)
class SVT6(SparseVector):
    """Sparse vector, Lyu et al. Algorithm 6 (Chen et al. 2015): ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2), no cutoff; ∞-DP.

    Peers: StatDP ``iSVT2``; DP-Sniper ``SparseVectorTechnique6``.
    """

    cutoff: Any = None
    short_name: ClassVar[str] = "svt6"
    has_cutoff: ClassVar[bool] = False
    privacy_statement: ClassVar[str] = "∞-DP (Lyu et al. §4)"
    claim_holds: ClassVar[bool] = False

    def noise_scales(self) -> tuple[Real, Real | None, Real]:
        e1 = self.epsilon / 2
        b1 = self.sensitivity / e1
        return b1, self.sensitivity / (self.epsilon - e1), b1

