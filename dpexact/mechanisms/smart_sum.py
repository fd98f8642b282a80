"""SmartSum (Chan, Shi & Song 2011 continual counting; CheckDP ``smartsum`` / ``badsmartsum``).

CheckDP's program (``examples/smartsum.c``), for steps i = 0..L-1 (L = min(T+1, n)) and block
size M: at a block end ((i+1) % M == 0) it outputs ``y_i = s + q_i + η_i`` with s the sum of the
block's earlier queries, and restarts s; otherwise it outputs ``y_i = y_{i-1} + q_i + η_i``
(``y_{-1} = 0``) and adds q_i to s. Every ``η_i ~ Lap(1/ε)`` (scale Δ/ε here); the bad version sets
the block-end noise to 0. Claim: 2ε-DP when one query differs (``CHECK: 2 * epsilon``).

The noise is recovered from the output by a unit-triangular map, ``η = C y - D q`` with
``(Dq)_i = q_i`` off block ends and the block sum up to i at block ends, so the density of y is
``Π_i f_b((C y - D q)_i)`` (Jacobian 1) and for neighbours the largest log-ratio over output sets
is exactly ``‖D (q - q')‖₁ / b`` (attained on tail boxes of η). With one query j moved by Δ this
is ``Δ/b`` times the number of released steps whose η depends on q_j: 2 for a query inside a
block whose end is released, 1 otherwise — so the level is ``2Δ/b = 2ε``.

Without block-end noise (bad version) the block-end output is the exact block sum: the event
``{y_i = Σ_block q}`` has probability 1 under q and 0 under a neighbour that changes that block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import get_backend
from ..numbers.real import Real
from ..protocols import LaplacePieces, MechanismProperties, Neighbourhood, PrivacyLevel
from .validation import float_scores, positive_real

__all__ = ["SmartSum"]


@dataclass(frozen=True)
class SmartSum:
    """SmartSum over n steps with block size M (CheckDP smartsum; ``bad=True``: badsmartsum); claim 2ε, ONE_DIFFER."""

    epsilon: Any
    block: int = 2
    horizon: Any = None
    bad: bool = False
    sensitivity: Any = 1

    short_name: ClassVar[str] = "smart-sum"
    output_kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        m = int(self.block) if isinstance(self.block, str) and self.block.isdigit() else self.block
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
            raise ValueError(f"block must be an integer >= 2 (CheckDP: M > 1), got {self.block!r}")
        object.__setattr__(self, "block", int(m))
        if isinstance(self.bad, str):
            object.__setattr__(self, "bad", self.bad.lower() == "true")
        if self.horizon is not None:
            h = int(self.horizon) if isinstance(self.horizon, str) and self.horizon.isdigit() else self.horizon
            if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 0:
                raise ValueError(f"horizon must be a non-negative integer, got {self.horizon!r}")
            object.__setattr__(self, "horizon", int(h))

    @property
    def claimed_epsilon(self) -> Real:
        return self.epsilon * 2

    def noise_scale(self) -> Real:
        return self.sensitivity / self.epsilon

    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "block": self.block, "horizon": self.horizon, "bad": self.bad,
                "claimed_epsilon": str(self.claimed_epsilon)}

    def neighbourhood(self) -> Any:
        """CheckDP's ONE_DIFFER: exactly one answer changes, by at most Δ."""
        from .query_neighbourhoods import OneDiffer

        return OneDiffer(self.sensitivity.to_fraction())

    def logpdf(self, queries: Any, y: Any) -> float:
        """Float log-density at output y: the noises are recovered one by one (a unit-triangular
        map, Jacobian 1) and each is Laplace(Δ/ε). ``bad=True`` has no density (its block ends are
        noiseless): ``ValueError``."""
        if self.bad:
            raise ValueError("bad SmartSum has no density: its block-end outputs carry no noise")
        q = float_scores(queries, "queries")
        y = np.asarray(y, dtype=float)
        L = self._steps(len(q))
        if y.shape != (L,):
            raise ValueError(f"y: {L} outputs expected, got shape {y.shape}")
        b = self.noise_scale().to_float()
        prev, s, total = 0.0, 0.0, 0.0
        for i in range(L):
            eta = y[i] - ((s if self._is_end(i) else prev) + q[i])
            s = 0.0 if self._is_end(i) else s + q[i]
            prev = y[i]
            total += -abs(eta) / b - np.log(2 * b)
        return float(total)

    def box_coordinates(self, y: Any) -> np.ndarray:
        """``C y``: ``y_i - y_{i-1}`` off block ends (``y_{-1} = 0``), ``y_i`` at block ends — so that
        ``C M(q) = D q + η`` has independent Laplace coordinates (module docstring). Rows of a 2-D
        array are outputs."""
        y = np.asarray(y, dtype=float)
        prev = np.concatenate([np.zeros(y.shape[:-1] + (1,)), y[..., :-1]], axis=-1)
        ends = np.array([self._is_end(i) for i in range(y.shape[-1])])
        return np.where(ends, y, y - prev)

    def box_probability(self, queries: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any:
        """``Pr[C M(q) ∈ Π [lo_i, hi_i]] = Π_i Pr[(Dq)_i + η_i ∈ [lo_i, hi_i]]`` (exact or ball); the bad
        version's block-end coordinates are the atom ``(Dq)_i``, counted in ``[lo_i, hi_i)``."""
        from .additive_noise import laplace_box_probability
        from .validation import exact_scores

        q = exact_scores(queries, "queries", limit=10_000)
        L = self._steps(len(q))
        dq, s = [], Real.of(0)
        for i in range(L):
            dq.append(s + q[i] if self._is_end(i) else q[i])
            s = Real.of(0) if self._is_end(i) else s + q[i]
        noiseless = [self.bad and self._is_end(i) for i in range(L)]
        return laplace_box_probability(dq, box, self.noise_scale(), backend, prec, noiseless)

    def pdf(self, queries: Any, y: Any, backend: str = "float") -> float:
        if not get_backend(backend).is_float:
            raise ValueError(f"backend: SmartSum's density is served on float only, got {backend!r}")
        return float(np.exp(self.logpdf(queries, y)))

    def _steps(self, n: int) -> int:
        return n if self.horizon is None else min(self.horizon + 1, n)

    def _is_end(self, i: int) -> bool:
        return (i + 1) % self.block == 0

    def D_column(self, n: int, j: int) -> list[int]:
        """Column j of D: which released steps' noise depends on q_j (module docstring)."""
        col = [0] * self._steps(n)
        for i in range(len(col)):
            if i == j:
                col[i] = 1
            elif self._is_end(i) and j < i and j // self.block == i // self.block:
                col[i] = 1
        return col

    #: the verify options the privacy map takes (:class:`~dpexact.protocols.PrivacyMap`)
    privacy_map_options: ClassVar[frozenset] = frozenset({"n", "relation"})

    def privacy_map(self, n: int | None = None, relation: str | None = None,
                    neighbourhood: Neighbourhood | None = None) -> PrivacyLevel:
        """The exact level ``max_j ‖D e_j‖₁·Δ/b`` on n steps (default 10) when one query differs (module
        docstring; density-ratio theorem), with η-boxes ``[3Δ, 3Δ+1]`` on the steps ``q_j`` moves as the
        witness (ratio enclosed in 256-bit balls from the Laplace cdf); the bad version: the event
        ``{y_i = Σ_block q}`` of probability 1 against 0 (level ∞)."""
        import math
        from fractions import Fraction

        from flint import arb

        from ..numbers.backends import ball_context
        from .sparse_vector.threshold_integral import ball_ops, laplace_cdf

        if relation not in (None, "one-differ"):
            raise ValueError(f"relation: SmartSum's claim is stated for 'one-differ', got {relation!r}")
        if neighbourhood is not None:
            raise ValueError("--neighbourhood: SmartSum's privacy map is stated for one query differing by Δ")
        n = n if n is not None else 10
        L = self._steps(n)
        d = self.sensitivity.to_fraction()
        where = f"one query differs by at most {d} (ONE_DIFFER)"
        ends = [i for i in range(L) if self._is_end(i)]
        if self.bad and ends and ends[0] >= 1:
            i = ends[0]
            q = [Fraction(0)] * n
            q2 = list(q)
            q2[i - 1] = d  # same block, earlier step: the exact block sum moves by Δ
            s_q = sum(q[i - self.block + 1 : i + 1])
            return PrivacyLevel(level=math.inf, scores=tuple(q), neighbour_scores=tuple(q2),
                                event={"output": f"y_{i} = {s_q}"}, log_ratio=math.inf, arithmetic="exact",
                                neighbourhood=where, families={"closed-form": 1},
                                notes=(f"event {{y_{i} = {s_q}}}: probability 1 under q (the block-end output is the "
                                       f"exact block sum), 0 under q' whose block sum is {s_q + d}",))
        b = self.noise_scale()
        cols = [self.D_column(n, j) for j in range(n)]
        j = max(range(n), key=lambda t: sum(cols[t]))
        level = Real.of(d * sum(cols[j])) / b
        # witness: q' = q + Δe_j; η-boxes [c, c+1] in the right tail on the affected steps, the bulk elsewhere
        shifts = [c * d for c in cols[j]]  # D(q' - q)
        ops = ball_ops(256)
        with ball_context(256):
            lr = arb(0)
            for sh in shifts:
                if sh:
                    # output set {y : η(y; q) ∈ [c, c+1]}; under q', η(y; q') = η(y; q) - sh ∈ [c-sh, c+1-sh]
                    c = Real.of(3 * d)
                    p_q = laplace_cdf(ops, c + 1, b) - laplace_cdf(ops, c, b)
                    p_q2 = laplace_cdf(ops, c + 1 - sh, b) - laplace_cdf(ops, c - sh, b)
                    lr += p_q2.log() - p_q.log()  # the pair ordered (q', q): η nearer 0 under q'
        q = [Fraction(0)] * n
        q2 = [d if t == j else Fraction(0) for t in range(n)]
        return PrivacyLevel(level=level, scores=tuple(q2), neighbour_scores=tuple(q),
                            event={"output": f"η-boxes [{3 * d}, {3 * d + 1}] on the steps q_{j} moves"}, log_ratio=lr,
                            arithmetic="ball:256", neighbourhood=where, families={"closed-form": 1},
                            notes=(f"exact level ‖D e_j‖₁·Δ/b = {level} (every pair, every output set; density-ratio "
                                   "theorem), witness: η-boxes in the tail on the steps q_j moves",))

    def density_pieces(self, n: int) -> LaplacePieces | None:
        """``C y = D q + η`` (module docstring): coordinate i is ``(Dq)_i + Lap(Δ/ε)``; None for the bad
        version (its block ends are noiseless: no density)."""
        if self.bad:
            return None
        from fractions import Fraction

        L = self._steps(n)
        cols = [self.D_column(n, j) for j in range(n)]
        centres = tuple(tuple(Fraction(cols[j][i]) for j in range(n)) for i in range(L))
        b = self.noise_scale()
        # for every n a query enters its own step and at most its block's end (D_column): 2/b
        return LaplacePieces(centres, tuple(b for _ in range(L)), column_bound=Real.of(2) / b)

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        """CheckDP's program, literally."""
        q = float_scores(queries, "queries")
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        b = self.noise_scale().to_float()
        L = self._steps(len(q))
        out = np.empty((k, L))
        for r in range(k):
            nxt, s = 0.0, 0.0
            for i in range(L):
                if self._is_end(i):
                    eta = 0.0 if self.bad else rng.laplace(scale=b)
                    nxt, s = s + q[i] + eta, 0.0
                else:
                    nxt, s = nxt + q[i] + rng.laplace(scale=b), s + q[i]
                out[r, i] = nxt
        return out[0] if size is None else out
