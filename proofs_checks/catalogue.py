"""The claim catalogue: `Claim` (what a paper states), `Verdict` (what a check found), the
registry of checks and the runner behind ``dpexact check``.

A claim id is ``<paper>.<kind>.<number-or-slug>`` (e.g. ``pf.theorem.3``,
``pf.text.hepth-mode-ratio``). Each paper module (``proofs_checks/pf.py``, ...) registers its
claims with the :func:`claim` decorator; the decorated function takes ``quick: bool`` (reduced
scope, same id) and returns a :class:`Verdict`.

Verdict semantics (issue 6):

* ``holds`` — the statement was confirmed on the stated ``scope``;
* ``refuted`` — a counterexample or a mismatch with the paper's number was found (a claim that
  holds only under an extra condition is refuted, and the evidence names the condition);
* ``inconclusive`` — the check could not decide (missing machinery, undecided arithmetic).

``certified`` is true only when the verdict rests on exact (fmpq / sympy) or ball (arb)
arithmetic or on a symbolic computation.
"""

from __future__ import annotations

import importlib
import re
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal

__all__ = [
    "PAPERS",
    "KINDS",
    "Claim",
    "Verdict",
    "Figure",
    "Outcome",
    "claim",
    "catalogue",
    "select",
    "run_claim",
    "run_checks",
    "to_json",
]

PAPERS = ("pf", "adp", "err", "brr", "hetsel")
KINDS = ("theorem", "lemma", "proposition", "corollary", "remark", "equation", "figure", "algorithm", "appendix", "text")
VERDICTS = ("holds", "refuted", "inconclusive")
_ID = re.compile(r"^(?P<paper>[a-z]+)\.(?P<kind>[a-z]+)\.(?P<tag>[0-9a-z][0-9a-z.-]*)$")


@dataclass(frozen=True)
class Figure:
    """A comparison plot attached to a verdict (drawn by :mod:`proofs_checks.report`).

    ``series`` maps a label to y values over ``x``; ``hline`` draws reference levels.
    """

    title: str
    x: tuple[float, ...]
    series: dict[str, tuple[float, ...]]
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    hline: tuple[float, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """Outcome of one check.

    Attributes:
        verdict: ``"holds"`` / ``"refuted"`` / ``"inconclusive"``.
        certified: the verdict rests on exact/ball arithmetic or symbolic computation.
        scope: what was covered (parameters, sizes, grids).
        evidence: JSON-serialisable details: counterexample, computed values next to the paper's.
        figure: an optional comparison plot.
    """

    verdict: Literal["holds", "refuted", "inconclusive"]
    certified: bool
    scope: str
    evidence: Any
    figure: Figure | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if not isinstance(self.certified, bool):
            raise TypeError(f"certified must be a bool, got {type(self.certified).__name__}")


def inconclusive(reason: str, scope: str = "not run", **evidence: Any) -> Verdict:
    """An uncertified ``inconclusive`` verdict whose evidence starts with ``reason``."""
    return Verdict("inconclusive", False, scope, {"reason": reason, **evidence})


@dataclass(frozen=True)
class Claim:
    """One statement of a paper and the function that checks it.

    Attributes:
        id: ``<paper>.<kind>.<number-or-slug>``.
        paper: short paper name (``pf``, ``adp``, ``err``, ``brr``, ``hetsel``).
        statement: the claim, quoted or faithfully paraphrased.
        location: where it is stated (section, equation, page element).
        check: ``check(quick) -> Verdict``.
    """

    id: str
    paper: str
    statement: str
    location: str
    check: Callable[[bool], Verdict] = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        m = _ID.match(self.id)
        if m is None:
            raise ValueError(f"claim id {self.id!r} is not '<paper>.<kind>.<number-or-slug>'")
        if m["paper"] not in PAPERS or m["paper"] != self.paper:
            raise ValueError(f"claim id {self.id!r}: paper must be one of {PAPERS} and match {self.paper!r}")
        if m["kind"] not in KINDS:
            raise ValueError(f"claim id {self.id!r}: kind must be one of {KINDS}")
        if not self.statement.strip():
            raise ValueError(f"claim {self.id!r}: empty statement")


_REGISTRY: dict[str, Claim] = {}


def claim(id: str, statement: str, location: str) -> Callable[[Callable[[bool], Verdict]], Callable[[bool], Verdict]]:
    """Decorator registering ``check(quick) -> Verdict`` as the check of claim ``id``."""

    def wrap(fn: Callable[[bool], Verdict]) -> Callable[[bool], Verdict]:
        if id in _REGISTRY:
            raise ValueError(f"claim {id!r} registered twice")
        _REGISTRY[id] = Claim(id, id.partition(".")[0], " ".join(statement.split()), location, fn)
        return fn

    return wrap


def catalogue(papers: Iterable[str] | None = None) -> list[Claim]:
    """All registered claims (importing the paper modules), in paper then registration order."""
    wanted = list(PAPERS if papers is None else papers)
    for p in wanted:
        if p not in PAPERS:
            raise ValueError(f"paper must be one of {PAPERS}, got {p!r}")
        importlib.import_module(f"proofs_checks.{p}")
    return [c for p in wanted for c in _REGISTRY.values() if c.paper == p]


def select(papers: Iterable[str] | None = None, ids: Iterable[str] | None = None) -> list[Claim]:
    """Claims of ``papers`` (all if ``None``) restricted to ``ids`` (exact ids or ``prefix*``)."""
    claims = catalogue(papers)
    if not ids:
        return claims
    patterns = list(ids)
    out = [c for c in claims if any(c.id == p or (p.endswith("*") and c.id.startswith(p[:-1])) for p in patterns)]
    unknown = [p for p in patterns if not any(c.id == p or (p.endswith("*") and c.id.startswith(p[:-1])) for c in claims)]
    if unknown:
        raise ValueError(f"claim: unknown id(s) {unknown}")
    return out


@dataclass(frozen=True)
class Outcome:
    """A claim with its verdict, run time and, if the check crashed, the traceback."""

    claim: Claim
    verdict: Verdict
    seconds: float
    crashed: bool = False


def run_claim(c: Claim, quick: bool = False) -> Outcome:
    """Run one check; a crash becomes an ``inconclusive`` outcome with ``crashed=True``."""
    t0 = time.perf_counter()
    try:
        v = c.check(quick)
        if not isinstance(v, Verdict):
            raise TypeError(f"check of {c.id} returned {type(v).__name__}, not Verdict")
        crashed = False
    except Exception as exc:  # a crashing check is reported, the run continues
        v = Verdict("inconclusive", False, "check crashed", {"crash": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()})
        crashed = True
    return Outcome(c, v, time.perf_counter() - t0, crashed)


def run_checks(
    claims: list[Claim],
    quick: bool = False,
    on_start: Callable[[Claim], None] | None = None,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run ``claims`` in order; callbacks drive a progress display."""
    out = []
    for c in claims:
        if on_start:
            on_start(c)
        o = run_claim(c, quick)
        out.append(o)
        if on_done:
            on_done(o)
    return out


def _jsonable(x: Any) -> Any:
    import math

    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else str(f)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, str):
        return x
    return str(x)


def to_json(outcomes: list[Outcome], version: str) -> dict:
    """``{"claims": [...], "dpexact_version": str}`` in the schema of issue 6."""
    return {
        "claims": [
            {
                "id": o.claim.id,
                "paper": o.claim.paper,
                "statement": o.claim.statement,
                "verdict": o.verdict.verdict,
                "certified": bool(o.verdict.certified),
                "scope": o.verdict.scope,
                "evidence": _jsonable(o.verdict.evidence),
                "seconds": float(o.seconds),
            }
            for o in outcomes
        ],
        "dpexact_version": str(version),
    }
