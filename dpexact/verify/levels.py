"""Levels that the proof units state for a mechanism, for tables shown beside a verdict (the peer
suite's ``coupling`` column): read through here so that callers outside :mod:`dpexact.verify` never
reach into :mod:`.proofs` (the import-linter contract ``front-door``)."""

from __future__ import annotations

from ..protocols import AnyMechanism, CouplingLaw

__all__ = ["coupling_level"]


def coupling_level(mechanism: AnyMechanism, n: int | None, relation: str | None) -> str | None:
    """A coupling's proven level on ``relation`` (default all-differ): the other candidates' noises for
    report noisy max (every n), the threshold shift for a sparse-vector law that states its factors (at
    ``n``); ``"inf"`` when the coupling proves nothing, None when none applies."""
    from .proofs.coupling_witness import cached_bound
    from .proofs.noisy_max_coupling import noisy_max_bound

    nm = noisy_max_bound(mechanism, relation or "all-differ")
    if nm is not None:
        return str(nm)
    if not isinstance(mechanism, CouplingLaw) or n is None:
        return None
    cb = cached_bound(mechanism, n, relation or "all-differ")  # the proof unit's, computed once
    return None if cb is None else (str(cb.bound) if cb.finite else "inf")
