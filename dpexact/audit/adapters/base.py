"""What an adapter declares: the samplers and privacy maps of one library, each with the exact
law (or the law descriptor of its certified level) dpexact computes for the same parameters.

An adapter module exposes ``LIBRARY`` (the distribution name, for the error that names the
``audit`` extra), ``load()`` (imports the library, raising :class:`MissingLibrary` when it is not
installed), ``SAMPLERS`` and ``MAPS`` (name -> spec). Nothing a user types is imported or called:
the command resolves ``LIB:CALL`` against these tables only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["MissingLibrary", "SamplerSpec", "MapSpec", "MapPoint"]


class MissingLibrary(ImportError):
    """The library an adapter wraps is not installed."""


@dataclass(frozen=True)
class SamplerSpec:
    """A library sampler beside its exact law.

    Attributes:
        name: the CALL of ``LIB:CALL``.
        summary: what the call is, in the library's own words.
        defaults: parameters (name -> value) the call is audited with unless given.
        law: parameters -> the exact law (:mod:`..laws`) the library promises.
        draw: (library module, parameters, n, numpy Generator) -> n draws as a numpy array;
            the Generator is used only where the library accepts a seed.
        floating: a float sampler (its cells are quantile intervals: shape, not float leakage).
        seedable: whether the library's own randomness follows the seed.
    """

    name: str
    summary: str
    defaults: dict[str, Any]
    law: Callable[[dict[str, Any]], Any]
    draw: Callable[[Any, dict[str, Any], int, np.random.Generator], np.ndarray]
    floating: bool = False
    seedable: bool = False
    seconds_per_draw: float = 2e-5


@dataclass(frozen=True)
class MapPoint:
    """One evaluation of a declared privacy map and the law its certified level is computed from.

    ``claim`` is ``epsilon`` (pure DP), ``rho`` (zCDP), ``delta`` (δ at ``epsilon``),
    ``epsilon-exact`` (a pure ε to compare exactly, as a rational, with the float the library returns)
    or ``epsilon-for-delta`` (ε at ``delta``, compared with the certified ε(δ)).
    ``law`` names the certified level's route: ``laplace`` / ``gaussian`` (scale or σ,
    sensitivity; dpexact.accounting), ``subsampled-gaussian`` (σ, Poisson ``sample_rate``, sensitivity,
    ``compositions`` times: the certified accountant), ``discrete-laplace``, ``discrete-gaussian`` (exact laws),
    ``finite`` (a registry mechanism by name with its parameters and neighbouring score vectors).
    """

    params: dict[str, Any]
    claim: str
    claimed: float
    law: str
    law_params: dict[str, Any]
    epsilon: float | None = None
    compositions: int = 1
    delta: float | None = None


@dataclass(frozen=True)
class MapSpec:
    """A library's privacy map and the grid it is evaluated on."""

    name: str
    summary: str
    grid: Callable[[], list[dict[str, Any]]]
    evaluate: Callable[[Any, dict[str, Any]], MapPoint]
    extra: dict[str, Any] = field(default_factory=dict)
