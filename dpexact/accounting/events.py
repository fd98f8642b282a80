"""Accounting events: immutable records that *describe* one mechanism step (the ``DpEvent`` idea of
Google's dp_accounting), read from a spec and handed to :class:`~dpexact.accounting.accountant.Accountant`.

Every event is a pair of output laws (P, Q) = (M(x), M(x′)) on neighbours where x′ is x with one
record removed (the *remove* direction; the *add* direction swaps them), repeated ``count`` times,
optionally subsampled:

============================ ======================================================= ==========================
kind                          pair (P, Q)                                              parameters (exact strings)
============================ ======================================================= ==========================
``gaussian``                  N(Δ, σ²), N(0, σ²) (a dominating pair, symmetric)        ``sigma``, ``sensitivity``
``laplace``                   Lap(Δ, b), Lap(0, b)                                     ``scale`` (or ``epsilon``: b = Δ/ε), ``sensitivity``
``discrete-laplace``          ∝ e^{−|y−Δ|/t}, ∝ e^{−|y|/t} on ℤ                         ``scale`` t, integer ``sensitivity``
``discrete-gaussian``         ∝ e^{−(y−Δ)²/(2σ²)}, ∝ e^{−y²/(2σ²)} on ℤ (Canonne et al.)  ``sigma``, integer ``sensitivity``
``randomized-response``       k-ary: e^ε/(e^ε+k−1) on the true value (two inputs)      ``epsilon``, ``k`` (default 2)
``pmf-pair``                  the given laws                                           ``p``, ``q`` (lists)
``mechanism``                 a dpexact mechanism's exact pmf at two inputs            ``name``, ``params``, ``x``, ``x_prime``
============================ ======================================================= ==========================

Subsampling (``poisson = q``): each record is kept independently with probability q; the
subsampled pair of a pair (P, Q) is (qP + (1−q)Q, Q) in the remove direction and (Q, qP + (1−q)Q)
in the add direction (Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via
characteristic function", Thm 11 — their dominating pairs for Poisson subsampling, remove and add
relations). ``without_replacement = γ`` (a batch of m out of n, γ = m/n, replace-one neighbours)
uses the same mixture with γ (Zhu, Dong & Wang 2022, Thm 10; Balle, Barthe & Gaboardi 2018,
"Privacy amplification by subsampling", Thm 10), which needs (P, Q) to be a dominating pair of the
mechanism for replace-one neighbours: it is accepted for the noise-addition events and randomized
response, refused for ``pmf-pair`` and ``mechanism`` (laws at one pair of inputs are not a
dominating pair).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..numbers.real import Real

__all__ = ["Event", "KINDS", "MAX_COUNT", "MAX_EVENTS", "event_from_dict", "events_from_spec"]

KINDS = ("gaussian", "laplace", "discrete-laplace", "discrete-gaussian", "randomized-response", "pmf-pair", "mechanism")
#: repetitions of one event
MAX_COUNT = 10**7
#: events in one spec (each one is built separately; repetitions go in ``count``)
MAX_EVENTS = 10_000
_FIELDS = {
    "gaussian": {"sigma", "sensitivity"},
    "laplace": {"scale", "epsilon", "sensitivity"},
    "discrete-laplace": {"scale", "sensitivity"},
    "discrete-gaussian": {"sigma", "sensitivity"},
    "randomized-response": {"epsilon", "k"},
    "pmf-pair": {"p", "q"},
    "mechanism": {"name", "params", "x", "x_prime"},
}
_COMMON = {"kind", "count", "poisson", "without_replacement"}


def _real_pos(v: Any, name: str) -> Real:
    if isinstance(v, bool) or v is None:
        raise ValueError(f"{name} must be a number given as a string, got {v!r}")
    r = Real.of(str(v) if isinstance(v, (int, float)) else v, name)
    if r.is_symbolic or r.sign() <= 0:
        raise ValueError(f"{name} must be > 0, got {r}")
    return r


def _rate(v: Any, name: str) -> Real:
    r = _real_pos(v, name)
    if (r - 1).sign() > 0:
        raise ValueError(f"{name} must be in (0, 1], got {r}")
    return r


@dataclass(frozen=True)
class Event:
    """One accounting event: ``kind`` with its exact parameters, ``count`` repetitions, optional
    subsampling (``poisson`` or ``without_replacement`` rate). Immutable and hashable; build it with
    :func:`event_from_dict` (which checks every field) or directly with ``params`` as a sorted tuple.

    Attributes:
        kind: one of :data:`KINDS`.
        params: ``((name, value), ...)``; values are :class:`Real` or tuples of them.
        count: repetitions (k-fold composition of this event).
        poisson: Poisson subsampling rate q in (0, 1], or ``None``.
        without_replacement: sampling rate γ = m/n in (0, 1], or ``None``.
    """

    kind: str
    params: tuple
    count: int = 1
    poisson: Real | None = None
    without_replacement: Real | None = None
    label: str = field(default="", compare=False)

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    @property
    def rate(self) -> Real | None:
        """The subsampling rate (either kind), ``None`` without subsampling."""
        return self.poisson if self.poisson is not None else self.without_replacement

    @property
    def symmetric(self) -> bool:
        """The pair is symmetric (remove and add directions have the same PLD) when not subsampled."""
        return self.kind not in ("pmf-pair", "mechanism") and self.rate is None

    def describe(self) -> str:
        ps = ", ".join(f"{k}={_show(v)}" for k, v in self.params if k != "params")
        sub = (f", Poisson q={self.poisson}" if self.poisson is not None else "") + \
              (f", without replacement γ={self.without_replacement}" if self.without_replacement is not None else "")
        return f"{self.kind}({ps}){sub} ×{self.count}"

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "count": self.count}
        for k, v in self.params:
            d[k] = _show(v) if not isinstance(v, dict) else v
        if self.poisson is not None:
            d["poisson"] = str(self.poisson)
        if self.without_replacement is not None:
            d["without_replacement"] = str(self.without_replacement)
        return d


def _show(v: Any) -> Any:
    if isinstance(v, tuple):
        return [str(x) for x in v]
    return str(v)


def event_from_dict(d: Any, where: str = "event") -> Event:
    """Check and build one :class:`Event` from a spec table (values: exact strings or ints).

    Raises:
        ValueError: unknown kind or field, missing or out-of-range parameter (message names it).
    """
    if not isinstance(d, dict):
        raise ValueError(f"{where} must be a table, got {type(d).__name__}")
    kind = d.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
    unknown = set(d) - _FIELDS[kind] - _COMMON
    if unknown:
        raise ValueError(f"{where}: unknown field(s) for kind {kind!r}: {', '.join(sorted(unknown))} "
                         f"(allowed: {', '.join(sorted(_FIELDS[kind] | _COMMON))})")
    count = d.get("count", 1)
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise ValueError(f"{where}.count must be an integer in [1, {MAX_COUNT}], got {count!r}")
    poisson = _rate(d["poisson"], f"{where}.poisson") if "poisson" in d else None
    wor = _rate(d["without_replacement"], f"{where}.without_replacement") if "without_replacement" in d else None
    if poisson is not None and wor is not None:
        raise ValueError(f"{where}: give poisson or without_replacement, not both")
    p: dict[str, Any] = {}
    if kind in ("gaussian", "discrete-gaussian"):
        if "sigma" not in d:
            raise ValueError(f"{where}.sigma is required for kind {kind!r}")
        p["sigma"] = _real_pos(d["sigma"], f"{where}.sigma")
    if kind in ("gaussian", "laplace", "discrete-laplace", "discrete-gaussian"):
        p["sensitivity"] = _real_pos(d.get("sensitivity", "1"), f"{where}.sensitivity")
        if kind.startswith("discrete") and not (p["sensitivity"].is_rational and p["sensitivity"].value.denominator == 1):
            raise ValueError(f"{where}.sensitivity must be a positive integer for kind {kind!r}, got {p['sensitivity']}")
    if kind in ("laplace", "discrete-laplace"):
        if "scale" in d and "epsilon" in d:
            raise ValueError(f"{where}: give scale or epsilon, not both")
        if "scale" in d:
            p["scale"] = _real_pos(d["scale"], f"{where}.scale")
        elif "epsilon" in d and kind == "laplace":
            p["scale"] = Real.of(p["sensitivity"].to_sympy() / _real_pos(d["epsilon"], f"{where}.epsilon").to_sympy())
        else:
            raise ValueError(f"{where}.scale is required for kind {kind!r}")
    if kind == "randomized-response":
        if "epsilon" not in d:
            raise ValueError(f"{where}.epsilon is required for kind 'randomized-response'")
        p["epsilon"] = _real_pos(d["epsilon"], f"{where}.epsilon")
        k = d.get("k", 2)
        if isinstance(k, str) and k.strip().isdigit():
            k = int(k)
        if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 10**6:
            raise ValueError(f"{where}.k must be an integer in [2, 10^6], got {k!r}")
        p["k"] = k
    if kind == "pmf-pair":
        for name in ("p", "q"):
            if name not in d:
                raise ValueError(f"{where}.{name} is required for kind 'pmf-pair'")
        p["p"], p["q"] = _pmf_list(d["p"], f"{where}.p"), _pmf_list(d["q"], f"{where}.q")
        if len(p["p"]) != len(p["q"]):
            raise ValueError(f"{where}: p and q must have the same length, got {len(p['p'])} and {len(p['q'])}")
    if kind == "mechanism":
        for name in ("name", "x", "x_prime"):
            if name not in d:
                raise ValueError(f"{where}.{name} is required for kind 'mechanism'")
        if not isinstance(d["name"], str):
            raise ValueError(f"{where}.name must be a registry name (string)")
        params = d.get("params", {})
        if not isinstance(params, dict) or not all(isinstance(v, (str, int)) for v in params.values()):
            raise ValueError(f"{where}.params must be a table of exact strings")
        p["name"] = d["name"]
        p["params"] = tuple(sorted((str(k), str(v)) for k, v in params.items()))
        p["x"] = _list(d["x"], f"{where}.x")
        p["x_prime"] = _list(d["x_prime"], f"{where}.x_prime")
    if wor is not None and kind in ("pmf-pair", "mechanism"):
        raise ValueError(f"{where}.without_replacement: no dominating pair is known for kind {kind!r} (laws at one pair of "
                         "inputs); use poisson, or describe the mechanism by a noise-addition event")
    return Event(kind, tuple(sorted(p.items())), count, poisson, wor)


def _list(v: Any, name: str) -> tuple:
    if isinstance(v, str):
        v = [s.strip() for s in v.split(",")]
    if not isinstance(v, (list, tuple)) or not v:
        raise ValueError(f"{name} must be a non-empty list")
    return tuple(str(x) for x in v)


def _pmf_list(v: Any, name: str) -> tuple:
    items = _list(v, name)
    out = []
    for i, s in enumerate(items):
        r = Real.of(s, f"{name}[{i}]")
        if r.is_symbolic or r.sign() < 0:
            raise ValueError(f"{name}[{i}] must be a number >= 0, got {r}")
        out.append(r)
    if all(r.is_rational for r in out) and sum((r.value for r in out), Fraction(0)) != 1:
        raise ValueError(f"{name} must sum to 1, sums to {sum((r.value for r in out), Fraction(0))}")
    return tuple(out)


def events_from_spec(spec: Any) -> list[Event]:
    """The events of a parsed spec ``{"event": [table, ...]}`` (TOML ``[[event]]`` or a JSON list)."""
    if isinstance(spec, dict):
        if set(spec) - {"event"}:
            raise ValueError(f"SPEC: unknown top-level key(s) {', '.join(sorted(set(spec) - {'event'}))} (expected [[event]])")
        spec = spec.get("event", [])
    if not isinstance(spec, list):
        raise ValueError("SPEC must be a list of events ([[event]] tables in TOML, a list in JSON)")
    if not spec:
        raise ValueError("SPEC: no events (give at least one [[event]])")
    if len(spec) > MAX_EVENTS:
        raise ValueError(f"SPEC: {len(spec)} events, at most {MAX_EVENTS} (repetitions go in count)")
    return [event_from_dict(d, f"event[{i}]") for i, d in enumerate(spec)]
