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

The verb is :func:`dpexact.verify` (:func:`.router.verify`, through :mod:`dpexact.api`); this package is
``dpexact.verification``, so the function and the package do not share a name. Submodules are imported on use.
"""

from __future__ import annotations
