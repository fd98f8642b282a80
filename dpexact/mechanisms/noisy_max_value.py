"""Report-noisy-max that releases the noisy maximum *value* (the classic bug; Ding et al. CCS 2018).

``M(q) = max_i (q_i + Z_i)`` with ``Z_i`` i.i.d. Laplace(b) or Exponential(b), ``b = 2Δ/ε``. The
maximum of independent variables has the cdf ``G(x) = Π_i F(x - q_i)``, so every interval of
outputs has the closed-form probability

    Pr[M(q) ∈ [lo, hi]] = Π_i F(hi - q_i) - Π_i F(lo - q_i)

with ``F`` the Laplace cdf (``½e^{x/b}`` / ``1 - ½e^{-x/b}``) or the exponential cdf
(``1 - e^{-x/b}`` for x >= 0, else 0): exact in ``Q[exp(Q)]`` for rational inputs, a rigorous
ball otherwise.

``release="index-value"`` releases the argmax index together with the value, ``(I, V)``, a
finer output than either alone (the index alone is report noisy max, ε-DP). Its law, ``Pr[I = i, V ∈ [lo, hi]] = ∫_lo^hi
f(v - q_i) Π_{j≠i} F(v - q_j) dv``, is closed-form for both noises
(:mod:`.noisy_max_index_value`); the output kind is then ``mixed``: ``pmf`` / ``outputs`` / ``rvs``
are the index (the report-noisy-max law of the same noise and scale: rnm-laplace / rnm-exp),
``part_box_probability(q, i, [(lo, hi)])`` the joint law (lower = upper: it is exact) and
``rvs_values`` draws ``(i, (v,))`` pairs. Not ε-DP either: the value alone already refutes it.

Not ε-DP: in the left tail ``G(x) ∝ e^{Σ(x - q_i)/b}`` (Laplace), so shifting every query by Δ
changes the density by ``e^{nΔ/b} = e^{nε/2}``; with exponential noise the support starts at
``max_i q_i`` and moves with the queries (unbounded ratio).

Peers: StatDP ``noisy_max_v1b`` (Laplace) / ``noisy_max_v2b`` (exponential); DP-Sniper
``ReportNoisyMax3`` / ``ReportNoisyMax4``; CheckDP ``badnoisymax`` (Laplace). No peer suite has the
index-value variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import ball_context, law_backend
from ..numbers.real import Real
from ..protocols import Backend, MechanismProperties
from .validation import exact_scores, float_scores, positive_real

__all__ = ["NoisyMaxValue"]


@dataclass(frozen=True)
class NoisyMaxValue:
    """Noisy max returning the maximum noisy value (``release="index-value"``: and its index); noise ``"laplace"`` or ``"exponential"`` of scale 2Δ/ε; not ε-DP.

    Peers: StatDP noisy_max_v1b / v2b; DP-Sniper ReportNoisyMax3 / 4; CheckDP badnoisymax.
    """

    epsilon: Any
    noise: str = "laplace"
    sensitivity: Any = 1
    release: str = "value"

    short_name: ClassVar[str] = "noisy-max-value"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        if self.noise not in ("laplace", "exponential"):
            raise ValueError(f"noise must be 'laplace' or 'exponential', got {str(self.noise)[:40]!r}")
        if self.release not in ("value", "index-value"):
            raise ValueError(f"release must be 'value' or 'index-value', got {str(self.release)[:40]!r}")

    @property
    def output_kind(self) -> str:
        """``interval`` (the value) or ``mixed`` (the index and the value)."""
        return "interval" if self.release == "value" else "mixed"

    def noise_scale(self) -> Real:
        return self.sensitivity * 2 / self.epsilon

    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def neighbourhood(self) -> Any:
        from .query_neighbourhoods import all_differ

        return all_differ(self.sensitivity.to_fraction())

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "noise": self.noise, "sensitivity": str(self.sensitivity),
                "release": self.release}

    def _cdf(self, ops: Any, x: Real, b: Real) -> Any:
        from .sparse_vector.threshold_integral import laplace_cdf

        if self.noise == "laplace":
            return laplace_cdf(ops, x, b)
        if x <= 0:
            return ops.const(0)
        return ops.const(1) - ops.exp(-x / b)

    def interval_probability(self, queries: Any, lo: Any, hi: Any, backend: str = "ball", prec: int = 128) -> Any:
        """``Pr[M(q) ∈ [lo, hi]]`` in closed form (exact ExpSum or arb ball)."""
        from .sparse_vector.mechanism import finite_real
        from .sparse_vector.threshold_integral import ball_ops, exact_ops

        q = exact_scores(queries, limit=10_000)
        lo, hi = finite_real(lo, "lo"), finite_real(hi, "hi")
        if not lo < hi:
            raise ValueError(f"interval must have lo < hi, got [{lo}, {hi}]")
        exact, prec = law_backend(backend, prec)
        ops = exact_ops() if exact else ball_ops(prec)
        b = self.noise_scale()
        with ball_context(prec):
            g_hi, g_lo = ops.const(1), ops.const(1)
            for x in q:
                g_hi = g_hi * self._cdf(ops, hi - x, b)
                g_lo = g_lo * self._cdf(ops, lo - x, b)
            return g_hi - g_lo

    # -- release="index-value": the index (finite part) and the joint law --------------------
    def _index_only(self, what: str) -> None:
        if self.release != "index-value":
            raise ValueError(f"{what}: release='value' outputs one real number (use interval_probability)")

    def index_mechanism(self) -> Any:
        """The report-noisy-max mechanism of the same noise and scale (the law of the index)."""
        from .report_noisy_max import RNMExponential, RNMLaplace

        cls = RNMLaplace if self.noise == "laplace" else RNMExponential
        return cls(epsilon=self.epsilon, sensitivity=self.sensitivity)

    def outputs(self, n: int) -> list[int]:
        """The indices ``0..n-1`` (release ``"index-value"``)."""
        self._index_only("outputs")
        return list(range(n))

    def value_count(self, output: Any) -> int:
        """One released real value (the maximum) with every index."""
        return 1

    def pmf(self, queries: Any, backend: str | Backend = "float", method: str | None = None) -> Any:
        """``Pr[I = i]`` for every i: rnm-laplace / rnm-exp (:meth:`index_mechanism`)."""
        self._index_only("pmf")
        return self.index_mechanism().pmf(queries, backend, method)

    def logpmf(self, queries: Any) -> np.ndarray:
        self._index_only("logpmf")
        return self.index_mechanism().logpmf(queries)

    def part_box_probability(self, queries: Any, output: Any, box: Any, backend: str = "ball", prec: int = 128) -> tuple[Any, Any]:
        """``(lower, upper)`` of ``Pr[I = output, V ∈ [lo, hi]]`` for ``box = [(lo, hi)]``; the closed
        form is exact, so lower = upper (an ExpSum on ``exact``, a rigorous ball on ``ball``)."""
        from .noisy_max_index_value import EXACT_EXPONENTIAL_LIMIT, joint_ball, joint_probability
        from .sparse_vector.mechanism import finite_real
        from .sparse_vector.threshold_integral import exact_ops

        self._index_only("part_box_probability")
        q = exact_scores(queries, limit=10_000)
        if len(q) > 64:
            raise ValueError(f"queries: {len(q)} entries exceed the limit 64 of the joint law")
        if isinstance(output, (bool, np.bool_)) or not isinstance(output, (int, np.integer)):
            raise TypeError(f"output must be an index 0..{len(q) - 1}, got {output!r}")
        if not 0 <= int(output) < len(q):
            raise ValueError(f"output must be an index 0..{len(q) - 1}, got {output}")
        if isinstance(box, (str, bytes)) or len(box) != 1 or len(box[0]) != 2:
            raise ValueError(f"box must be one interval [(lo, hi)] (the released value), got {box!r}")
        lo, hi = finite_real(box[0][0], "box[0].lo"), finite_real(box[0][1], "box[0].hi")
        if not lo < hi:
            raise ValueError(f"box[0] must have lo < hi, got ({lo}, {hi})")
        b = self.noise_scale()
        exact, prec = law_backend(backend, prec)
        if exact:
            if not all(x.is_rational for x in [b, lo, hi, *q]):
                raise ValueError("backend: the exact joint law needs rational epsilon, sensitivity, queries and box "
                                 "(Q[exp(Q)]); use ball")
            if self.noise == "exponential" and len(q) > EXACT_EXPONENTIAL_LIMIT:
                raise ValueError(f"backend: the exact exponential joint law is limited to {EXACT_EXPONENTIAL_LIMIT} queries "
                                 f"(2^(n-1) exponents), got {len(q)}; use ball")
            v = joint_probability(self.noise, q, int(output), lo, hi, b, exact_ops())
        else:
            v = joint_ball(self.noise, q, int(output), lo, hi, b, prec)
        return v, v

    # -- sampling (the algorithm itself) -------------------------------------------------------
    def _draw(self, q: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        b = self.noise_scale().to_float()
        z = rng.laplace(scale=b, size=(k, len(q))) if self.noise == "laplace" else rng.exponential(scale=b, size=(k, len(q)))
        noisy = q[None, :] + z
        return noisy.argmax(axis=1), noisy.max(axis=1)

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> Any:
        """Run the algorithm: the noisy maximum (release ``"value"``) or its index (``"index-value"``,
        the finite part; :meth:`rvs_values` gives the pairs)."""
        q = float_scores(queries, "queries")
        if size is not None and (isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0):
            raise ValueError(f"size must be a non-negative integer, got {size!r}")
        idx, m = self._draw(q, 1 if size is None else int(size), np.random.default_rng(random_state))
        out = m if self.release == "value" else idx
        if size is None:
            return float(out[0]) if self.release == "value" else int(out[0])
        return out

    def rvs_values(self, queries: Any, size: int, random_state: Any = None) -> list[tuple[int, tuple[float]]]:
        """Run the algorithm ``size`` times: ``(index, (value,))`` pairs (release ``"index-value"``)."""
        self._index_only("rvs_values")
        q = float_scores(queries, "queries")
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"size must be a non-negative integer, got {size!r}")
        idx, m = self._draw(q, int(size), np.random.default_rng(random_state))
        return [(int(i), (float(v),)) for i, v in zip(idx, m)]
