"""A pmf with its expected error, as a JSON-ready record.

The single source of ``dpexact pmf --json`` and of the ``pmf`` task of ``dpexact sweep``:
``Pr[M(q) = r]`` on the requested backend with its error bound, and ``E[q* - q_M]`` (pf eq. 4)
from :func:`.expected_error.expected_error`.
"""

from __future__ import annotations

from typing import Any, Sequence
from ..protocols import Mechanism
from ..schemas.numbers import with_exact

__all__ = ["pmf_summary", "pmf_record"]


def pmf_summary(
    mechanism: str,
    params: dict[str, Any],
    scores: Sequence[Any],
    *,
    backend: str = "float",
    method: str | None = None,
) -> dict[str, Any]:
    """Build registry mechanism ``mechanism`` from ``params`` and return its :func:`pmf_record`.

    Raises ValueError / TypeError for bad parameters, scores or backend (naming the argument).
    """
    from ..mechanisms.registry import mechanism as build
    from .expected_error import expected_error

    mech = build(mechanism, **params)
    ee = expected_error(mech, list(scores), backend=backend, method=method)
    return pmf_record(mechanism, mech, list(scores), ee)


def pmf_record(name: str, mech: Mechanism, scores: list[Any], ee: Any) -> dict[str, Any]:
    """The JSON record of an :class:`.expected_error.ExpectedError` ``ee`` of ``mech`` on ``scores``."""
    p = ee.details["pmf"]
    exact = p.exact_strings()
    out: dict[str, Any] = {
        "mechanism": name,
        "params": mech.params(),
        "backend": p.backend,
        "scores": scores,
        "probabilities": [float(v) for v in p.to_float()],
        "probabilities_exact": exact,
        "exact": exact,  # the former name of probabilities_exact, kept for one release
        "expected_error": ee.as_float,
        **with_exact("error_bound", ee.error_bound),  # null + "inf": no finite bound (an extreme ε)
        "method": p.method,
        "error_kind": p.error_kind,
        **with_exact("pmf_rel_error", p.rel_error),
    }
    if exact is not None:
        out["expected_error_exact"] = str(ee.value)
    return out
