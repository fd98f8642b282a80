"""Audits of deployed DP libraries: their samplers against dpexact's exact laws (a goodness-of-fit
test whose false-alarm rate and power are stated before drawing) and their declared privacy maps
against the certified level (ε bracket, exact δ(ε), exact Rényi divergences).

* :mod:`.gof` — the test, its power against the least favourable alternative, Holm;
* :mod:`.laws` — exact laws (60 digits) of the samplers, sums and mixtures;
* :mod:`.adapters` — one module per library, and the registry ``LIB:CALL`` is parsed against;
* :mod:`.sampler` — ``audit sampler``; :mod:`.maps` — ``audit map``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["audit_sampler", "audit_map"]


def __getattr__(name: str) -> Any:
    if name == "audit_sampler":
        from .sampler import audit_sampler

        return audit_sampler
    if name == "audit_map":
        from .maps import audit_map

        return audit_map
    raise AttributeError(name)
