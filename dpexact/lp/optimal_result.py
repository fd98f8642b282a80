"""The result of one optimal-mechanism solve with its optimality ratios: a typed record, like the
verdict of :func:`dpexact.verify`, the ``Pmf`` of :func:`dpexact.pmf` and the enclosure of
:func:`dpexact.delta`; :meth:`OptimalResult.to_dict` is ``dpexact optimal --json`` (key for key)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["OptimalResult"]


@dataclass(frozen=True)
class OptimalResult:
    """The optimal regular mechanism on Q(n, k) at ε (pf App. D) and the optimality ratios (pf §5).

    Attributes:
        n, k, epsilon, sensitivity, boundary: the LP asked for (ε and Δ as the exact strings given).
        method: the LP route that solved it; ``variables``, ``constraints``, ``classes``, ``vectors``: its size.
        build_seconds, seconds: wall time of the build and of the solve.
        optimal_total_error: Σ_q E[err(M*, q)] (float), inside the proven ``optimal_total_error_bounds``.
        vertex: whether the solution is a vertex (needed for a certificate).
        ratios: ``ratio(M) = Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]`` (>= 1) per mechanism, each within
            ``ratio_error_bounds[name]``.
        certified: ``False``, ``"exact"`` (exact certificate) or ``"enclosure"`` (a proven interval).
        optimal_total_error_exact, ratios_exact, certificate_failure: the exact certificate's fields
            (present when one was asked for: ``certify`` with a rational e^{-ε}).
        optimal_total_error_enclosure: the certified interval of the optimum (``certify`` otherwise).
    """

    n: int
    k: int
    epsilon: str
    sensitivity: str
    boundary: str
    method: str
    variables: int
    constraints: int
    classes: int
    vectors: int
    build_seconds: float
    seconds: float
    optimal_total_error: float
    optimal_total_error_bounds: tuple[float, float]
    vertex: bool
    ratios: dict[str, float]
    ratio_error_bounds: dict[str, float]
    certified: Literal[False, "exact", "enclosure"]
    #: whether an exact certificate was attempted (its three fields are then part of the record)
    exact_certificate: bool = False
    optimal_total_error_exact: str | None = None
    ratios_exact: dict[str, str] = field(default_factory=dict)
    certificate_failure: str | None = None
    optimal_total_error_enclosure: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record of ``dpexact optimal --json`` (the certificate's keys only when one was asked for)."""
        out: dict[str, Any] = {
            "n": self.n, "k": self.k, "epsilon": self.epsilon, "sensitivity": self.sensitivity,
            "boundary": self.boundary, "method": self.method, "variables": self.variables,
            "constraints": self.constraints, "classes": self.classes, "vectors": self.vectors,
            "build_seconds": self.build_seconds, "seconds": self.seconds,
            "optimal_total_error": self.optimal_total_error,
            "optimal_total_error_bounds": list(self.optimal_total_error_bounds), "vertex": self.vertex,
            "ratios": dict(self.ratios), "ratio_error_bounds": dict(self.ratio_error_bounds),
            "certified": self.certified,
        }
        if self.exact_certificate:
            out["optimal_total_error_exact"] = self.optimal_total_error_exact
            out["ratios_exact"] = dict(self.ratios_exact)
            if self.certificate_failure is not None:
                out["certificate_failure"] = self.certificate_failure
        if self.optimal_total_error_enclosure is not None:
            out["optimal_total_error_enclosure"] = list(self.optimal_total_error_enclosure)
        return out
