"""The one way into verification: :func:`verify` — the mechanism resolved and checked once, the options
read once into a :class:`~.claim.Claim` and a :class:`~.claim.Request` (:func:`~.claim.read_claim`), one
plan (the first route of :data:`.routes.ROUTES` that supports the claim), the options that plan cannot
honour refused before any work, then the plan run. The verdict carries its claim.

The CLI (``dpexact verify``), a sweep's ``verify`` task, the peer and soundness suites and the notebooks
all call :func:`verify` (an import-linter contract keeps them out of :mod:`.search` and :mod:`.proofs`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..protocols import AnyMechanism, Neighbourhood
from .claim import Claim, Request, read_claim
from .kinds import kind_of
from .verdict import Verdict

__all__ = ["verify", "verify_claim"]


def verify_claim(claim: Claim, request: Request, progress: Callable[[str, str], None] | None = None) -> Verdict:
    """Verify a parsed claim: plan once, refuse what the plan does not honour, run it.

    A failure of the mechanism's own code (its pmf function raised,
    :class:`~dpexact.mechanisms.base.MechanismCrash`) is reported as an ``inconclusive`` verdict that
    names it — a defect of the law, neither a usage error nor an internal one."""
    from ..mechanisms.base import MechanismCrash
    from .options import refuse_unhonoured
    from .routes import plan
    from .verdict import Scope, build_verdict

    route = plan(claim, request)
    refuse_unhonoured(request.given, *route.honours(claim, request))
    try:
        v = route.run(claim, request, progress or (lambda kind, text: None))
    except MechanismCrash as exc:
        scope = Scope(neighbourhood=claim.spec, notes=[f"the mechanism's law failed: {exc}"])
        v = build_verdict(claim.mechanism, name=claim.name, epsilon=claim.epsilon, verdict="inconclusive",
                          scope=scope, seconds=0.0,
                          reason=f"the mechanism's law failed during verification: {exc} (a defect of the law: "
                                 f"nothing is claimed)")
    v.claim = claim
    return v


def verify(mechanism: str | Path | AnyMechanism, *, epsilon: Any = None, sensitivity: Any = None, monotone: bool = False,
           param: Mapping[str, Any] | None = None, neighbourhood: str | Neighbourhood = "default",
           search: str | Sequence[str] | None = None,
           n: int | None = None, values: Sequence[Any] | None = None, steps: int = 1, delta: Any = None,
           relation: str | None = None, tolerance: float | None = None, name: str | None = None,
           progress: Callable[[str, str], None] | None = None) -> Verdict:
    """Is the claimed ε (or, with ``delta``, (ε, δ)) of ``mechanism`` true? ``dpexact verify`` as a function.

    ``mechanism`` is a registry name, ``PATH.py:OBJECT`` / ``module:OBJECT`` (a string or a path object; built with ``epsilon``,
    ``sensitivity``, ``monotone`` and the ``param`` dict) or a mechanism object (which carries its own
    parameters: giving them too is an error). The other keywords are the CLI's options: ``neighbourhood``
    (default | box[:Δ] | monotone[:Δ] | add-remove | replace | any-pair), ``search`` (grid | structured |
    random | local, one or several), ``n``, ``values``, ``steps``, ``delta``, ``relation`` and
    ``tolerance``. The mechanism is checked once here (:func:`~dpexact.mechanisms.resolve.resolve_mechanism`),
    the options are read once (:func:`~.claim.read_claim`) and the route is planned once (:mod:`.routes`).

    Example: ``dpexact.verify("pf", epsilon=1, n=3).verdict``.

    Args:
        mechanism: registry name, ``PATH.py:OBJECT`` / ``module:OBJECT`` or a mechanism object.
        epsilon: the claimed ε (exact: ``"1/2"``, ``"2*log(3)"``); for a name or path only.
        sensitivity: Δ (default 1); for a name or path only.
        monotone: monotone quality (pf Remark 1); for a name or path only.
        param: further mechanism parameters (``-p name=value``).
        neighbourhood: default | box[:Δ] | monotone[:Δ] | add-remove | replace | any-pair, or a
            neighbourhood object (:mod:`dpexact.verification.neighbourhoods`).
        search: grid | structured | random | local, one or several.
        n: the number of candidates / queries searched.
        values: the score values of the grid search.
        steps: the grid search's steps between values.
        delta: δ of an (ε, δ) claim (``None``: pure ε-DP).
        relation: the query relation of a sparse-vector-type mechanism.
        tolerance: the width of the ε bracket asked for.
        name: the name the verdict gives the mechanism (default: the registry name or path given, else its
            short name).
        progress: called with ``(kind, text)`` as the verification goes (the CLI's progress line).

    Returns:
        The :class:`~dpexact.verification.verdict.Verdict` (``verdict``, ``certified``, ``epsilon_bracket``,
        its counterexample or proof, the scope it covers, and ``claim``: the claim it is about).

    Raises:
        ValueError, TypeError: bad mechanism, parameters or options (one line naming the argument).
    """
    from ..mechanisms.resolve import resolve_mechanism

    if isinstance(mechanism, os.PathLike):  # a file path object: the loader's PATH.py:OBJECT string
        mechanism = os.fspath(mechanism)
    m = resolve_mechanism(mechanism, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, param=param)
    kind = kind_of(m)
    claim, request = read_claim(m, selection=kind.selection, neighbourhood=neighbourhood, searches=search, n=n,
                                values=values, steps=steps, relation=relation, delta=delta, tolerance=tolerance,
                                name=name if name is not None else (mechanism if isinstance(mechanism, str) else None))
    return verify_claim(claim, request, progress)

