"""One registry of mechanisms by short name; the CLI and the verifiers are built on it.

``dpexact.mechanism("pf", epsilon=1)`` returns a mechanism object. Each entry maps a short
name to a factory taking keyword parameters (``epsilon``, ``sensitivity``, ``monotone`` and
mechanism-specific ones such as ``p``, ``sensitivities``, ``gamma``, ``beta``, ``epsilon_c``).
Later modules add themselves with :func:`register`. A name containing ``:`` —
``PATH.py:OBJECT`` or ``module:OBJECT`` — loads a mechanism defined outside the package
(:mod:`.loader`). :func:`info` describes an entry: parameters (dataclass fields or the
factory's signature) with defaults, and the citations of its docstrings.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import sys
from typing import Any, Callable, Mapping

__all__ = ["mechanism", "mechanism_from_params", "register", "available", "describe", "info"]

# short name -> "module:attribute" (imported lazily so that `import dpexact` stays light)
_ENTRIES: dict[str, str] = {
    "em": "dpexact.mechanisms.exponential:ExponentialMechanism",
    "pf": "dpexact.mechanisms.permute_and_flip:PermuteAndFlip",
    "rnm-exp": "dpexact.mechanisms.report_noisy_max:RNMExponential",
    "rnm-gumbel": "dpexact.mechanisms.report_noisy_max:RNMGumbel",
    "rnm-laplace": "dpexact.mechanisms.report_noisy_max:RNMLaplace",
    "grr": "dpexact.mechanisms.randomized_response:GeneralizedRandomizedResponse",
    "err": "dpexact.mechanisms.exponential_rr:ExponentialRandomizedResponse",
    "err-naive": "dpexact.mechanisms.exponential_rr:NaiveExponentialRandomizedResponse",
    "err-alg3": "dpexact.mechanisms.exponential_rr:ERRAlgorithm3Sampler",
    "rnm-global": "dpexact.mechanisms.heterogeneous.rnmh:RNMGlobal",
    "rnmh": "dpexact.mechanisms.heterogeneous.rnmh:RNMH",
    "rnmh-laplace": "dpexact.mechanisms.heterogeneous.rnmh:RNMHLaplace",
    "gem": "dpexact.mechanisms.heterogeneous.gem:GEM",
    "mgem": "dpexact.mechanisms.heterogeneous.gem:ModifiedGEM",
    "rs-gamma": "dpexact.mechanisms.heterogeneous.rs_gamma:RandomStoppingGeometric",
    "rs-gamma-tnb": "dpexact.mechanisms.heterogeneous.rs_gamma:RandomStoppingTNB",
    "combined-gem": "dpexact.mechanisms.heterogeneous.combined_gem:CombinedGEM",
    # sparse vector (Lyu, Su & Li 2017, Figure 1) and the peers' names for the same algorithms
    "svt1": "dpexact.mechanisms.sparse_vector:SVT1",
    "svt2": "dpexact.mechanisms.sparse_vector:SVT2",
    "svt3": "dpexact.mechanisms.sparse_vector:SVT3",
    "svt4": "dpexact.mechanisms.sparse_vector:SVT4",
    "svt5": "dpexact.mechanisms.sparse_vector:SVT5",
    "svt6": "dpexact.mechanisms.sparse_vector:SVT6",
    "isvt1": "dpexact.mechanisms.sparse_vector:SVT5",
    "isvt2": "dpexact.mechanisms.sparse_vector:SVT6",
    "isvt3": "dpexact.mechanisms.sparse_vector:SVT4",
    "isvt4": "dpexact.mechanisms.sparse_vector:SVT3",
    "numerical-svt": "dpexact.mechanisms.sparse_vector.numerical:NumericalSVT",
    "svt34-parallel": "dpexact.mechanisms.sparse_vector.parallel:SVT34Parallel",
    "bad-gap-svt": "dpexact.mechanisms.sparse_vector.released:BadGapSVT",
    "gap-svt": "dpexact.mechanisms.sparse_vector.adaptive:GapSVT",
    "adaptive-svt": "dpexact.mechanisms.sparse_vector.adaptive:AdaptiveSVT",
    "bad-adaptive-svt": "dpexact.mechanisms.sparse_vector.adaptive:BadAdaptiveSVT",
    "rappor": "dpexact.ldp.rappor:Rappor",
    "one-time-rappor": "dpexact.ldp.rappor:OneTimeRappor",
    "laplace": "dpexact.mechanisms.additive_noise:LaplaceMechanism",
    "noisy-hist": "dpexact.mechanisms.additive_noise:NoisyHistogram",
    "noisy-hist-bad": "dpexact.mechanisms.additive_noise:NoisyHistogramBad",
    "prefix-sum": "dpexact.mechanisms.additive_noise:PrefixSum",
    "partial-sum": "dpexact.mechanisms.additive_noise:PartialSum",
    "smart-sum": "dpexact.mechanisms.smart_sum:SmartSum",
    "noisy-max-value": "dpexact.mechanisms.noisy_max_value:NoisyMaxValue",
    "truncated-geometric": "dpexact.mechanisms.truncated_geometric:TruncatedGeometric",
}
_FACTORIES: dict[str, Callable[..., Any]] = {}


def register(name: str, target: "str | Callable[..., Any]") -> None:
    """Register ``name`` -> ``"module:attr"`` (lazy) or a factory callable.

    Args:
        name: the registry name.
        target: ``"module:attr"`` (imported when first used) or a factory callable.

    Returns:
        None.
    """
    if isinstance(target, str):
        _ENTRIES[name] = target
    else:
        _FACTORIES[name] = target


def available() -> list[str]:
    """The registered mechanism names (``dpexact mechanisms`` lists them with their parameters).

    Returns:
        The names, sorted.
    """
    return sorted(set(_ENTRIES) | set(_FACTORIES))


def _factory(name: str) -> Callable[..., Any]:
    if name in _FACTORIES:
        return _FACTORIES[name]
    if name not in _ENTRIES:
        raise ValueError(unknown_mechanism_message(name))
    module, _, attr = _ENTRIES[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def unknown_mechanism_message(name: str) -> str:
    """One short line for a name the registry lacks: the closest registered names (difflib), and
    where the full list is.

    Args:
        name: the name asked for.

    Returns:
        ``unknown mechanism 'pff'; did you mean pf, em? (`dpexact mechanisms` lists all 45)``.
    """
    import difflib

    names = available()
    close = difflib.get_close_matches(str(name).lower(), names, n=3, cutoff=0.6)
    shown = repr(name) if len(str(name)) <= 40 else repr(str(name)[:37] + "...")
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown mechanism {shown}{hint} (`dpexact mechanisms` lists all {len(names)})"


def parameter_list(factory: Callable[..., Any]) -> str:
    """The parameters a factory takes, as ``epsilon, sensitivity=1, monotone=False``.

    Args:
        factory: a registered class or factory function.

    Returns:
        The names, each with its default when it has one.
    """
    return ", ".join(p["name"] + ("" if p["required"] else f"={p['default']}") for p in _parameters(factory))


def _takes_any_keyword(factory: Callable[..., Any]) -> bool:
    if dataclasses.is_dataclass(factory):
        return False
    try:
        return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return True


def describe(name: str) -> str:
    """First paragraph of the mechanism's docstring."""
    doc = _factory(name).__doc__ or ""
    return doc.strip().split("\n\n")[0]


#: paper short names (../shared/papers/README.md) followed by a location in the paper
_CITATION = re.compile(r"\b(?:pf|err|brr|hetsel|adp)\s+(?:Definition|Def\.|Lemma|Theorem|Thm\.?|Proposition|Prop\.|"
                       r"Remark|Corollary|Appendix|App\.|Algorithm|Alg\.|Section|eqs?\.|§)\s*[A-Za-z0-9.§()\-–]*[A-Za-z0-9)]")


#: other works: "Lyu, Su & Li (VLDB 2017", "Ding et al. CCS 2018", "Balcer & Vadhan 2018" (authors, venue, year)
_WORK = re.compile(r"\b[A-Z][a-zA-Z\-]+(?:, [A-Z][a-zA-Z\-]+)*(?: & [A-Z][a-zA-Z\-]+| et al\.),? \(?"
                   r"(?:[A-Z][A-Za-z\-]* )?(?:19|20)\d\d\b")


def _parameters(factory: Callable[..., Any]) -> list[dict[str, Any]]:
    def show(v: Any) -> Any:
        if v is inspect.Parameter.empty or v is dataclasses.MISSING:
            return None
        return v if isinstance(v, (bool, int, float, str)) or v is None else str(v)

    if dataclasses.is_dataclass(factory):
        return [{"name": f.name, "default": show(f.default), "required": f.default is dataclasses.MISSING
                 and f.default_factory is dataclasses.MISSING} for f in dataclasses.fields(factory) if f.init]
    out = []
    for p in inspect.signature(factory).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        out.append({"name": p.name, "default": show(p.default), "required": p.default is inspect.Parameter.empty})
    return out


def info(name: str) -> dict[str, Any]:
    """Registry entry ``name``: summary, class, parameters (name, default, required) and citations."""
    factory = _factory(name)
    module = sys.modules.get(getattr(factory, "__module__", ""), None)
    docs = [(factory.__doc__ or ""), ((module.__doc__ if module is not None else None) or "")]
    cites: list[str] = []
    for d in docs:
        flat = " ".join(d.split())
        for m in [*_CITATION.finditer(flat), *_WORK.finditer(flat)]:
            c = m.group(0).rstrip(".,;").replace("(", "")
            while c.endswith(")") and c.count(")") > c.count("("):
                c = c[:-1]
            if c not in cites:
                cites.append(c)
    target = _ENTRIES.get(name) or f"{getattr(factory, '__module__', '?')}:{getattr(factory, '__qualname__', '?')}"
    return {"name": name, "object": target, "summary": describe(name), "parameters": _parameters(factory),
            "citations": cites}


def mechanism(name: str, /, **params: Any) -> Any:
    """Build the mechanism registered as ``name`` with ``params`` (errors name the bad parameter).

    ``name`` may also be ``PATH.py:OBJECT`` or ``module:OBJECT`` (a mechanism defined
    outside the package, see :mod:`.loader`).

    Args:
        name: a registry name (``dpexact mechanisms``), ``PATH.py:OBJECT`` or ``module:OBJECT``.
        **params: the mechanism's parameters (``epsilon``, ``sensitivity``, ...; exact).

    Returns:
        The mechanism object.

    Raises:
        ValueError: an unknown name (the closest names suggested).
        TypeError: an unknown or missing parameter (the valid parameters listed).
    """
    if not isinstance(name, str):
        raise TypeError(f"mechanism must be a name, got {type(name).__name__}")
    from .validation import warn_inexact_floats

    warn_inexact_floats(params)
    if ":" in name and name not in _FACTORIES and name not in _ENTRIES:
        from .loader import load_mechanism

        return load_mechanism(name, **params)
    factory = _factory(name)
    if not _takes_any_keyword(factory):
        known = {p["name"] for p in _parameters(factory)}
        unknown = [k for k in params if k not in known]
        if unknown:
            raise TypeError(f"mechanism {name!r} has no parameter {', '.join(map(repr, unknown))}; "
                            f"its parameters: {parameter_list(factory)}")
    try:
        return factory(**params)
    except TypeError as exc:
        if "unexpected keyword" in str(exc) or "missing" in str(exc):
            raise TypeError(f"mechanism {name!r}: {exc} (its parameters: {parameter_list(factory)})") from exc
        raise


def mechanism_from_params(name: str, params: Mapping[str, Any]) -> Any:
    """:func:`mechanism` with the parameters as one mapping (a replay record's ``params``, a symbolic ε):
    callers that hold the parameters as data pass them as data."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, got {type(params).__name__}")
    return mechanism(name, **params)
