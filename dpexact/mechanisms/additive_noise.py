"""Additive Laplace noise on query vectors: Laplace mechanism, noisy histograms, prefix sums.

``M(q) = L(q̃ + ν)`` with ``ν_i ~ Lap(b)`` i.i.d., ``q̃`` = the queries (each repeated ``copies``
times, DP-Sniper's LaplaceParallel), restricted to ``coordinates`` if given (StatDP's
histogram releases ``noisy[0]`` only), and ``L`` the identity or the prefix-sum map
(ShadowDP's PrefixSum: ``y_k = Σ_{i<=k} (q_i + ν_i)``). ``L`` is invertible, so an output set
``L(B)`` with ``B = Π [lo_i, hi_i]`` has the closed-form probability

    Pr[M(q) ∈ L(B)] = Π_i (F_b(hi_i - q̃_i) - F_b(lo_i - q̃_i)),   F_b the Laplace cdf

(exact in ``Q[exp(Q)]`` for rationals, rigorous balls otherwise; :meth:`box_probability`).

Privacy (a density-ratio theorem, not a search): the density ratio of neighbours is
``Π_i f_b(x_i - q̃_i)/f_b(x_i - q̃'_i) <= e^{‖q̃ - q̃'‖₁ / b}``, with equality on the whole
orthant ``x_i >= max(q̃_i, q̃'_i)`` (tails of the Laplace law are exponential). Hence the exact
privacy level is ``sup_{q~q'} ‖q̃ - q̃'‖₁ / b``: ``copies·k·Δ/b`` for ALL_DIFFER (k released
coordinates) and ``copies·Δ/b`` for ONE_DIFFER, for *every* pair and every output set.
:meth:`AdditiveLaplace.privacy_map` states it (the mechanism's privacy map) with a witness box computed from the law itself.

``total=True`` releases ``Σ_i q_i + Lap(b)`` (CheckDP's PartialSum).

Peers: DP-Sniper ``LaplaceMechanism``, ``NoisyHist1`` (b = 1/ε), ``NoisyHist2`` (b = ε, the bug),
``LaplaceParallel``, ``PrefixSum``; StatDP ``histogram`` / ``histogram_eps`` (Ding et al. CCS
2018, Algs. 9–10); CheckDP ``partialsum`` / ``badpartialsum``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from ..numbers.backends import ball_context, law_backend
from ..numbers.real import Real
from ..protocols import LaplacePieces, MechanismProperties, Neighbourhood, PrivacyLevel
from .validation import float_scores, positive_real

__all__ = ["laplace_box_probability", "AdditiveLaplace", "LaplaceMechanism", "NoisyHistogram", "NoisyHistogramBad", "PrefixSum", "PartialSum"]


def laplace_box_probability(centres: Sequence[Any], box: Sequence[tuple[Any, Any]], scale: Real, backend: str = "ball",
                            prec: int = 128, noiseless: Sequence[bool] = ()) -> Any:
    """``Pr[c + ν ∈ Π [lo_i, hi_i]]`` for independent ``ν_i ~ Lap(scale)`` (``ν_i = 0`` where ``noiseless[i]``):
    ``Π_i (F(hi_i - c_i) - F(lo_i - c_i))``, F the Laplace cdf, and ``[lo_i <= c_i < hi_i]`` for a
    noiseless coordinate (an atom: boxes are half-open there, so adjacent boxes partition). Exact in ``Q[exp(Q)]`` (rational inputs) or a rigorous ball."""
    from .sparse_vector.mechanism import finite_real
    from .sparse_vector.threshold_integral import ball_ops, exact_ops, laplace_cdf

    if len(box) != len(centres):
        raise ValueError(f"box: {len(centres)} intervals expected, got {len(box)}")
    exact, prec = law_backend(backend, prec)
    ops = exact_ops() if exact else ball_ops(prec)
    with ball_context(prec):
        p = ops.const(1)
        for j, (x, (lo, hi)) in enumerate(zip(centres, box)):
            lo, hi = finite_real(lo, f"box[{j}].lo"), finite_real(hi, f"box[{j}].hi")
            if not lo < hi:
                raise ValueError(f"box[{j}] must have lo < hi, got ({lo}, {hi})")
            if j < len(noiseless) and noiseless[j]:
                if not lo <= x < hi:
                    return ops.const(0)
                continue
            p = p * (laplace_cdf(ops, hi - x, scale) - laplace_cdf(ops, lo - x, scale))
        return p


def _differences(y: Any) -> np.ndarray:
    """Successive differences ``y_k - y_{k-1}`` (``y_{-1} = 0``) along the last axis: prefix sums back to
    their terms; rows of a 2-D array are outputs."""
    return np.diff(np.asarray(y, dtype=float), axis=-1, prepend=0.0)


@dataclass(frozen=True)
class AdditiveLaplace:
    """``L(q̃ + Lap(b))`` (module docstring) with ``b = copies·Δ/ε`` (overridden by the buggy variant).

    Args:
        epsilon: the claimed ε.
        sensitivity: Δ.
        relation: the neighbourhood of the claim, ``"all-differ"`` or ``"one-differ"``.
        copies: independent noisy copies of each query (≥ 1).
        coordinates: indices of the released coordinates (``None``: all).
        prefix: release prefix sums instead of the noisy values.
    """

    epsilon: Any
    sensitivity: Any = 1
    relation: str = "all-differ"
    copies: int = 1
    coordinates: Any = None
    prefix: bool = False
    total: bool = False
    noise_factor: Any = 1

    short_name: ClassVar[str] = "additive-laplace"
    output_kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))
        if self.relation not in ("all-differ", "one-differ"):
            raise ValueError(f"relation must be 'all-differ' or 'one-differ', got {self.relation!r}")
        c = self.copies
        if isinstance(c, str) and c.isdigit():
            c = int(c)
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 1 <= c <= 1000:
            raise ValueError(f"copies must be an integer in 1..1000, got {self.copies!r}")
        object.__setattr__(self, "copies", int(c))
        nf = Real.of(self.noise_factor, "noise_factor")
        if not nf.is_rational or nf.value <= 0:
            raise ValueError(f"noise_factor must be a positive rational, got {self.noise_factor!r}")
        object.__setattr__(self, "noise_factor", nf)
        if isinstance(self.total, str):
            object.__setattr__(self, "total", self.total.lower() == "true")
        if self.coordinates is not None:
            coords = tuple(int(i) for i in (self.coordinates.split(",") if isinstance(self.coordinates, str) else self.coordinates))
            if not coords or any(i < 0 for i in coords):
                raise ValueError(f"coordinates must be non-negative indices, got {self.coordinates!r}")
            object.__setattr__(self, "coordinates", coords)

    def noise_scale(self) -> Real:
        """b = f·copies·Δ/ε: the Laplace mechanism's scale, the budget split evenly over the copies
        (f = ``noise_factor``, 1 unless a variant under-scales its noise)."""
        return self.sensitivity * self.copies * self.noise_factor / self.epsilon

    @property
    def size(self) -> int | None:
        return None

    @property
    def properties(self) -> MechanismProperties:
        return MechanismProperties(certified=True)

    def neighbourhood(self) -> Any:
        from .query_neighbourhoods import OneDiffer, all_differ

        d = self.sensitivity.to_fraction()
        return all_differ(d) if self.relation == "all-differ" else OneDiffer(d)

    def params(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "sensitivity": str(self.sensitivity), "relation": self.relation,
                "copies": self.copies, "coordinates": None if self.coordinates is None else list(self.coordinates),
                "prefix": self.prefix, "total": self.total, "noise_factor": str(self.noise_factor),
                "noise_scale": str(self.noise_scale())}

    def _released(self, q: Sequence[Any]) -> list:
        if self.total:
            s = q[0]
            for x in q[1:]:
                s = s + x
            return [s] * self.copies
        idx = range(len(q)) if self.coordinates is None else self.coordinates
        if any(i >= len(q) for i in idx):
            raise ValueError(f"coordinates {self.coordinates} out of range for {len(q)} queries")
        return [q[i] for i in idx for _ in range(self.copies)]

    def box_probability(self, queries: Any, box: Sequence[tuple[Any, Any]], backend: str = "ball", prec: int = 128) -> Any:
        """``Pr[M(q) ∈ L(B)]`` for ``B = Π [lo_i, hi_i]``, i.e. ``Pr[box_coordinates(M(q)) ∈ B]`` (exact or ball)."""
        from .validation import exact_scores

        q = self._released(exact_scores(queries, limit=10_000))
        return laplace_box_probability(q, box, self.noise_scale(), backend, prec)

    @property
    def box_coordinates(self) -> Any:
        """The map into the coordinates boxes are stated in, ``L⁻¹``: successive differences for
        prefix sums; ``None`` (the identity: boxes of the outputs themselves) otherwise."""
        return _differences if self.prefix else None

    def logpdf(self, queries: Any, y: Any) -> float:
        """Float log-density at output y (the prefix map has Jacobian 1)."""
        q = np.asarray(self._released(list(float_scores(queries, "queries"))))
        y = np.asarray(y, dtype=float)
        x = np.diff(y, prepend=0.0) if self.prefix else y
        b = self.noise_scale().to_float()
        return float(np.sum(-np.abs(x - q) / b - np.log(2 * b)))

    def pdf(self, queries: Any, y: Any, backend: str = "float") -> float:
        return float(np.exp(self.logpdf(queries, y)))

    def rvs(self, queries: Any, size: Any = None, random_state: Any = None) -> np.ndarray:
        q = np.asarray(self._released(list(float_scores(queries, "queries"))))
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        x = q[None, :] + rng.laplace(scale=self.noise_scale().to_float(), size=(k, len(q)))
        y = np.cumsum(x, axis=1) if self.prefix else x
        return y[0] if size is None else y

    def density_pieces(self, n: int) -> LaplacePieces:
        """Each released coordinate is ``q̃_j + Lap(b)`` (in the box coordinates: the noisy values
        behind a prefix sum), ``q̃_j`` one query, or the sum of all (``total``); for every n a query
        enters at most ``copies`` coordinates (``column_bound = copies/b``)."""
        from fractions import Fraction

        units = [tuple(Fraction(int(i == k)) for i in range(n)) for k in range(n)]
        centres = self._released(units) if not self.total else [tuple(Fraction(1) for _ in range(n))] * self.copies
        b = self.noise_scale()
        # every query enters ``copies`` released coordinates (its own, or the total) with weight 1
        return LaplacePieces(tuple(centres), tuple(b for _ in centres), column_bound=Real.of(self.copies) / b)

    #: the verify options the privacy map takes (:class:`~dpexact.protocols.PrivacyMap`)
    privacy_map_options: ClassVar[frozenset] = frozenset({"n", "relation", "neighbourhood"})

    def privacy_map(self, n: int | None = None, relation: str | None = None,
                    neighbourhood: Neighbourhood | None = None) -> PrivacyLevel:
        """Exact ``sup_{q~q'} sup_S log(Pr[M(q)∈S]/Pr[M(q')∈S]) = sup ‖q̃ - q̃'‖₁ / b`` for n queries
        (module docstring; default n: one more than the largest released coordinate), with a witness box
        ``x_i ∈ [2Δ, 3Δ]`` in the orthant ``x_i >= max(q̃_i, q̃'_i)`` where the ratio equals the sup, its
        log-ratio enclosed in 256-bit balls from :meth:`box_probability`.

        ``neighbourhood``: an ℓ∞ box ``|q'_i - q_i| <= Δ'`` (one Δ' for every query) for a claim about all
        queries moving (all-differ). The level ``sup ‖A(q - q')‖₁ / b`` is homogeneous of degree 1 in the
        radius: for Δ' it is ``level·Δ'/Δ`` (witness: every query moved by Δ'). Any other relation is a
        ``ValueError`` naming it.
        """
        from fractions import Fraction

        from .neighbourhoods import LInfBox

        if relation is not None and relation != self.relation:
            raise ValueError(f"relation: this mechanism's claim is stated for {self.relation!r}, got {relation!r}")
        if neighbourhood is not None and not (isinstance(neighbourhood, LInfBox) and neighbourhood.sensitivities is None
                                              and self.relation == "all-differ"):
            raise ValueError(f"--neighbourhood: {self.short_name} is verified on an ℓ∞ box box:Δ' (one radius, all "
                             f"queries moving) only; its claim's relation is {self.relation!r}")
        n = n if n is not None else (1 + max(self.coordinates) if self.coordinates else 1)
        k = n if self.coordinates is None or self.total else len(self.coordinates)
        moved = k if self.relation == "all-differ" else 1  # the sum moves by at most kΔ or Δ
        level = self.sensitivity * (moved * self.copies) / self.noise_scale()
        d = self.sensitivity.to_fraction()
        if neighbourhood is not None:  # the level scales with the radius (docstring)
            level = level * Real.of(neighbourhood.sensitivity) / self.sensitivity
            d = neighbourhood.sensitivity
        if self.relation == "all-differ":
            q1 = [d] * n
        else:
            first = 0 if self.coordinates is None else self.coordinates[0]
            q1 = [d if i == first else Fraction(0) for i in range(n)]
        q0 = [Fraction(0)] * n
        box = [(2 * d, 3 * d)] * len(self._released(q0))  # x_i >= max(q_i, q'_i): the ratio equals the sup there
        p1 = self.box_probability(q1, box, "ball", 256)
        p0 = self.box_probability(q0, box, "ball", 256)
        with ball_context(256):
            lr = p1.log() - p0.log()
        nb = self.neighbourhood() if neighbourhood is None else neighbourhood
        return PrivacyLevel(level=level, scores=tuple(q1), neighbour_scores=tuple(q0),
                            event={"output": "box", "box": [[str(a), str(b)] for a, b in box]}, log_ratio=lr,
                            arithmetic="ball:256", neighbourhood=nb.describe(), families={"closed-form": 1},
                            notes=(f"exact privacy level sup ‖q̃-q̃'‖₁/b = {level} for n = {n}: every pair and every "
                                   "output set (Laplace density-ratio theorem); witness box attains it",))


@dataclass(frozen=True)
class LaplaceMechanism(AdditiveLaplace):
    """Laplace mechanism: q + Lap(Δ/ε) on every query; ε-DP per query (Dwork et al. 2006). DP-Sniper ``LaplaceMechanism``."""

    short_name: ClassVar[str] = "laplace"


@dataclass(frozen=True)
class NoisyHistogram(AdditiveLaplace):
    """Noisy histogram: every bin + Lap(Δ/ε), one bin changes (ONE_DIFFER); ε-DP. DP-Sniper ``NoisyHist1``, StatDP ``histogram``."""

    relation: str = "one-differ"
    short_name: ClassVar[str] = "noisy-hist"


@dataclass(frozen=True)
class NoisyHistogramBad(AdditiveLaplace):
    """Noisy histogram with the Lap(ε) bug (scale ε instead of 1/ε); (Δ/ε)-DP only. DP-Sniper ``NoisyHist2``, StatDP ``histogram_eps``."""

    relation: str = "one-differ"
    short_name: ClassVar[str] = "noisy-hist-bad"

    def noise_scale(self) -> Real:
        return self.epsilon


@dataclass(frozen=True)
class PrefixSum(AdditiveLaplace):
    """Prefix sums of q + Lap(Δ/ε) (ShadowDP, Wang et al. PLDI 2019); ε-DP when one query differs. DP-Sniper ``PrefixSum``."""

    relation: str = "one-differ"
    prefix: bool = True
    short_name: ClassVar[str] = "prefix-sum"


@dataclass(frozen=True)
class PartialSum(AdditiveLaplace):
    """Sum of all queries + Lap(Δ/ε), one query differs (CheckDP ``partialsum``); ε-DP.
    ``noise_factor=1/2`` is CheckDP's ``badpartialsum`` (Lap(1/(2ε)): 2ε-DP)."""

    relation: str = "one-differ"
    total: bool = True
    short_name: ClassVar[str] = "partial-sum"
