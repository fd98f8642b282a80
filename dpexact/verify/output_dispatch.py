"""One entry point that picks the verifier for a mechanism's output space.

==================  =========================================  ===============================
``output_kind``     verifier                                   what a private verdict covers
==================  =========================================  ===============================
``selection``       :func:`.search.verify` (score families)    every (q, q', r) of the scope
``finite``          :func:`.pattern_search.verify_patterns`    every output of every pair
``mixed``           :func:`.box_search.verify_boxes`           refutation only (boxes)
``interval``        :func:`.box_search.verify_intervals`       refutation only (intervals)
``continuous``      ``mechanism.verify_closed_form`` if any    every pair and every output set
==================  =========================================  ===============================
"""

from __future__ import annotations

from typing import Any

from .verdict import Verdict

__all__ = ["verify_mechanism"]


def verify_mechanism(mechanism: Any, n: int | None = None, relation: str | None = None, name: str | None = None,
                     **kwargs: Any) -> Verdict:
    """Verify the claimed ε of ``mechanism`` with the verifier of its output kind (table above).

    ``relation``: ``"all-differ"`` / ``"one-differ"`` (default: the mechanism's own claim, else all-differ).
    """
    kind = getattr(mechanism, "output_kind", "selection")
    if kind == "finite" and hasattr(mechanism, "pattern_probability"):
        from .pattern_search import verify_patterns

        return verify_patterns(mechanism, n if n is not None else 10, relation or "all-differ", name=name, **kwargs)
    if kind == "mixed":
        from .box_search import verify_boxes

        return verify_boxes(mechanism, n if n is not None else 10, relation or "all-differ", name=name, **kwargs)
    if kind == "interval":
        from .box_search import verify_intervals

        return verify_intervals(mechanism, n if n is not None else 5, relation or "all-differ", name=name, **kwargs)
    if hasattr(mechanism, "verify_closed_form"):
        return mechanism.verify_closed_form(n, relation, name=name, **kwargs)
    if kind in ("selection", "finite"):
        from .search import verify

        return verify(mechanism, n=n, name=name, **kwargs)
    raise TypeError(f"mechanism: no verifier for output kind {kind!r}")
