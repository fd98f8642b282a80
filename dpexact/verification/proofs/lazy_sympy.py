"""sympy, imported when a proof first uses it: the symbolic proofs sit in the one ``PROOFS`` list
that every verification imports, but most routes (a selection theorem, a branch-and-bound) never
touch sympy, and importing it costs about 0.35 s of CPU (benchmarks/cli_startup.py)."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["sympy", "symbols"]


class _LazySympy:
    """Attribute access imports sympy and reads the attribute from it (``sympy.simplify``, ``sympy.Basic``)."""

    def __getattr__(self, name: str) -> Any:
        import sympy as _sympy

        return getattr(_sympy, name)


#: stands for the sympy module in the proof modules
sympy: Any = _LazySympy()


@functools.lru_cache(maxsize=None)
def symbols() -> tuple[Any, Any, Any]:
    """The free symbols of the symbolic proofs.

    Returns:
        ``(ε, Δ, c)``: ε and Δ positive, the cutoff c a positive integer.
    """
    import sympy as _sympy

    return (_sympy.Symbol("epsilon", positive=True), _sympy.Symbol("Delta", positive=True),
            _sympy.Symbol("c", integer=True, positive=True))
