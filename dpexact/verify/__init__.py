"""Is the claimed ε (or ε, δ) of a mechanism true? The verdict, the ε bracket, the router, the kind table.

* :mod:`.verdict` — the :class:`~.verdict.Verdict` and its :class:`~.verdict.Scope`; :mod:`.bracket` — the ε
  bracket (a certified witness below, a proof over a stated domain above);
* :mod:`.router` — :func:`~.router.verify`, the one entry point; :mod:`.claim` — the claim and the request, parsed
  once; :mod:`.routes` — the routes as units, planned once; :mod:`.kinds` — the one table of output kinds;
  :mod:`.neighbourhoods` — the relations and the ``--neighbourhood`` parser; :mod:`.replay` — re-checking a
  verdict's evidence;
* :mod:`.decide` — one pair or triple; :mod:`.search` — one search per output kind; :mod:`.proofs` —
  whole-space proofs.

A verdict is ``violated`` only with a counterexample re-checked in exact or ball arithmetic, ``private``
only with a proof over a stated domain, and ``private-within-scope`` only when every checked
(q, q', r) triple is proved ``Pr[M(q)=r] <= e^ε Pr[M(q')=r]`` in exact or ball arithmetic.

The package is callable: ``dpexact.verify(mechanism, epsilon=…, …)`` is :func:`.router.verify` (the
attribute ``dpexact.verify`` is this package once any of its modules is imported, so the function
and the package share the name). Submodules are imported on use.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:
    from pathlib import Path

    from ..protocols import AnyMechanism, Neighbourhood
    from .verdict import Verdict


class _CallablePackage(types.ModuleType):
    # the keywords of router.verify, spelt out (tests/test_public_api.py compares the two signatures)
    def __call__(self, mechanism: str | Path | AnyMechanism, *, epsilon: Any = None, sensitivity: Any = None,
                 monotone: bool = False, param: Mapping[str, Any] | None = None,
                 neighbourhood: str | Neighbourhood = "default", search: str | Sequence[str] | None = None,
                 n: int | None = None, values: Sequence[Any] | None = None, steps: int = 1, delta: Any = None,
                 relation: str | None = None, tolerance: float | None = None, name: str | None = None,
                 progress: Callable[[str, str], None] | None = None) -> Verdict:
        from .router import verify

        return verify(mechanism, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, param=param,
                      neighbourhood=neighbourhood, search=search, n=n, values=values, steps=steps, delta=delta,
                      relation=relation, tolerance=tolerance, name=name, progress=progress)


sys.modules[__name__].__class__ = _CallablePackage
