"""The claim catalogue: `Claim` (what a paper states), `ClaimVerdict` (what a check found), the
registry of checks and the runner behind ``dpexact check``.

A claim id is ``<paper>.<kind>.<number-or-slug>`` (e.g. ``pf.theorem.3``,
``pf.text.hepth-mode-ratio``). Each section module of a paper (``proofs_checks/pf/fig1.py``, ...) registers its
claims with the :func:`claim` decorator; the decorated function takes ``quick: bool`` (reduced
scope, same id) and returns a :class:`ClaimVerdict`.

Verdict semantics:

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

from dpexact.schemas.numbers import free_form

__all__ = [
    "PAPERS",
    "KINDS",
    "Claim",
    "ClaimVerdict",
    "Verdict",
    "Figure",
    "Outcome",
    "SEVERITIES",
    "claim",
    "catalogue",
    "load_catalogue",
    "select",
    "run_claim",
    "run_checks",
    "run",
    "to_json",
    "outcomes_from_json",
]

PAPERS = ("pf", "adp", "err", "brr", "hetsel")
KINDS = ("theorem", "lemma", "proposition", "corollary", "remark", "equation", "figure", "algorithm", "appendix", "text")
VERDICTS = ("holds", "refuted", "inconclusive")
_ID = re.compile(r"^(?P<paper>[a-z][a-z0-9]*)\.(?P<kind>[a-z]+)\.(?P<tag>[0-9a-z][0-9a-z.-]*)$")


@dataclass(frozen=True)
class Figure:
    """A comparison plot attached to a verdict (drawn by :mod:`proofs_checks.report`).

    ``series`` maps a label to y values over ``x``, or over its own ``xs[label]`` when the series
    have different abscissae (each data set's own ε grid); ``hline`` draws reference levels.
    """

    title: str
    x: tuple[float, ...]
    series: dict[str, tuple[float, ...]]
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    hline: tuple[float, ...] = ()
    xs: dict[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimVerdict:
    """Outcome of one check.

    Attributes:
        verdict: ``"holds"`` / ``"refuted"`` / ``"inconclusive"``.
        certified: the verdict rests on exact/ball arithmetic or symbolic computation.
        scope: what was covered (parameters, sizes, grids).
        evidence: JSON-serialisable details: counterexample, computed values next to the paper's.
        figure: an optional comparison plot.
        missing_data: why the check could not run on its data set (missing, or failing its
            checksum); only on an ``inconclusive`` verdict. Such a claim is not a difference from
            its record: ``dpexact check`` exits 3 for it, with how to get the data.
    """

    verdict: Literal["holds", "refuted", "inconclusive"]
    certified: bool
    scope: str
    evidence: Any
    figure: Figure | None = field(default=None, compare=False)
    missing_data: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.missing_data and self.verdict != "inconclusive":
            raise ValueError(f"missing_data is only for an inconclusive verdict, got {self.verdict!r}")
        if not isinstance(self.certified, bool):
            raise TypeError(f"certified must be a bool, got {type(self.certified).__name__}")


#: the name the catalogue's checks use (ClaimVerdict: distinct from dpexact.verify's privacy Verdict)
Verdict = ClaimVerdict


def inconclusive(reason: str, scope: str = "not run", **evidence: Any) -> ClaimVerdict:
    """An uncertified ``inconclusive`` verdict whose evidence starts with ``reason``."""
    return ClaimVerdict("inconclusive", False, scope, {"reason": reason, **evidence})


def data_missing(reason: str) -> ClaimVerdict:
    """The ``inconclusive`` verdict of a check that could not run because its data set is missing
    or fails its checksum (:attr:`ClaimVerdict.missing_data`): not a difference from the record."""
    return ClaimVerdict("inconclusive", False, "not run: data missing or failing its SHA256SUMS check",
                        {"reason": reason}, missing_data=reason)


SEVERITIES = ("false-statement", "wrong-number", "erratum", "not-reproducible")
"""How much a refutation matters, most serious first:

* ``false-statement`` — a theorem, lemma, proposition or a claimed privacy / optimality guarantee is false;
* ``wrong-number`` — a printed number or figure differs beyond its stated precision;
* ``erratum`` — a typo, notation, or a fixable proof step; the statement stands;
* ``not-reproducible`` — the paper lacks what is needed to reproduce it.
"""


@dataclass(frozen=True)
class Claim:
    """The record of one statement of a paper: what it says, where, how it is checked and what
    the check is expected to find.

    Attributes:
        id: ``<paper>.<kind>.<number-or-slug>``.
        paper: short paper name (``pf``, ``adp``, ``err``, ``brr``, ``hetsel``, or a researcher's own).
        statement: the claim, quoted or faithfully paraphrased.
        location: where it is stated (section, equation, page element).
        check: ``check(quick) -> ClaimVerdict``.
        expected: the verdict the full-scope check finds (``None``: not yet recorded).
        expected_quick: the verdict of the reduced scope when it differs from ``expected``.
        severity: for a refutation, one of :data:`SEVERITIES`.
        explanation: why the paper and the check differ, where that is known.
        scope_quick, scope_full: what the reduced and the full check cover.
    """

    id: str
    paper: str
    statement: str
    location: str
    check: Callable[[bool], ClaimVerdict] = field(compare=False, repr=False)
    expected: str | None = None
    expected_quick: str | None = None
    severity: str | None = None
    explanation: str = ""
    scope_quick: str = ""
    scope_full: str = ""

    def __post_init__(self) -> None:
        m = _ID.match(self.id)
        if m is None:
            raise ValueError(f"claim id {self.id!r} is not '<paper>.<kind>.<number-or-slug>'")
        if m["paper"] != self.paper:
            raise ValueError(f"claim id {self.id!r}: paper must match {self.paper!r}")
        if m["kind"] not in KINDS:
            raise ValueError(f"claim id {self.id!r}: kind must be one of {KINDS}")
        if not self.statement.strip():
            raise ValueError(f"claim {self.id!r}: empty statement")
        for name in ("expected", "expected_quick"):
            v = getattr(self, name)
            if v is not None and v not in VERDICTS:
                raise ValueError(f"claim {self.id!r}: {name} must be one of {VERDICTS}, got {v!r}")
        if self.severity is not None and self.severity not in SEVERITIES:
            raise ValueError(f"claim {self.id!r}: severity must be one of {SEVERITIES}, got {self.severity!r}")
        if "refuted" in (self.expected, self.expected_quick) and self.severity is None:
            raise ValueError(f"claim {self.id!r}: an expected refutation needs a severity ({', '.join(SEVERITIES)})")

    @property
    def module(self) -> str:
        """The module that defines the check (a paper section, or a researcher's catalogue)."""
        return getattr(self.check, "__module__", "")

    def expected_verdict(self, quick: bool) -> str | None:
        """The verdict the check is expected to find in the given scope."""
        return (self.expected_quick or self.expected) if quick else self.expected


_REGISTRY: dict[str, Claim] = {}


def claim(id: str, statement: str, location: str, *, expected: str | None = None, expected_quick: str | None = None,
          severity: str | None = None, explanation: str = "", scope_quick: str = "",
          scope_full: str = "") -> Callable[[Callable[[bool], ClaimVerdict]], Callable[[bool], ClaimVerdict]]:
    """Decorator registering ``check(quick) -> ClaimVerdict`` as the check of claim ``id`` (the other
    arguments are the fields of :class:`Claim`)."""

    def wrap(fn: Callable[[bool], ClaimVerdict]) -> Callable[[bool], ClaimVerdict]:
        if id in _REGISTRY:
            raise ValueError(f"claim {id!r} registered twice")
        _REGISTRY[id] = Claim(id, id.partition(".")[0], " ".join(statement.split()), location, fn, expected, expected_quick,
                              severity, " ".join(explanation.split()), scope_quick, scope_full)
        return fn

    return wrap


def catalogue(papers: Iterable[str] | None = None) -> list[Claim]:
    """All claims of the built-in papers (importing their subpackages), in paper, section
    (``SECTIONS`` of the paper's package) and registration order."""
    wanted = list(PAPERS if papers is None else papers)
    out: list[Claim] = []
    for p in wanted:
        if p not in PAPERS:
            raise ValueError(f"paper must be one of {PAPERS}, got {p!r}")
        sections = [f"proofs_checks.{p}.{m}" for m in importlib.import_module(f"proofs_checks.{p}").SECTIONS]
        out += sorted((c for c in _REGISTRY.values() if c.module in sections), key=lambda c: sections.index(c.module))
    return out


def load_catalogue(source: str) -> list[Claim]:
    """The claims registered by a researcher's own catalogue: a ``.py`` file or an importable
    module name, written with :func:`claim` like the built-in papers.

    The file is imported (run) as Python, exactly like a test file under pytest: load only
    catalogues you trust. Raises ``ValueError`` naming ``catalogue`` if it cannot be imported or
    registers no claim.
    """
    import importlib.util
    import sys
    from pathlib import Path

    if source.endswith(".py"):
        path = Path(source).expanduser().resolve()
        if not path.is_file():
            raise ValueError(f"catalogue: file {source!r} not found")
        name = f"_dpexact_catalogue_{path.stem}_{abs(hash(str(path))):x}"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ValueError(f"catalogue: cannot import {source!r}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[name]
                raise ValueError(f"catalogue: importing {source!r} failed: {type(exc).__name__}: {exc}") from exc
    else:
        try:
            name = importlib.import_module(source).__name__
        except ImportError as exc:
            raise ValueError(f"catalogue: cannot import module {source!r}: {exc}") from exc
    claims = [c for c in _REGISTRY.values() if c.module == name or c.module.startswith(name + ".")]
    if not claims:
        raise ValueError(f"catalogue: {source!r} registers no claim (decorate checks with proofs_checks.claim)")
    return claims


def select(papers: Iterable[str] | None = None, ids: Iterable[str] | None = None, claims: list[Claim] | None = None) -> list[Claim]:
    """Claims of ``papers`` (all if ``None``) restricted to ``ids`` (exact ids or ``prefix*``),
    from the built-in catalogue or from ``claims`` (e.g. :func:`load_catalogue`)."""
    if claims is None:
        claims = catalogue(papers)
    elif papers:
        unknown_papers = sorted(set(papers) - {c.paper for c in claims})
        if unknown_papers:
            raise ValueError(f"paper: no claims of {unknown_papers} in this catalogue")
        claims = [c for c in claims if c.paper in set(papers)]
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
    verdict: ClaimVerdict
    seconds: float
    crashed: bool = False


def run_claim(c: Claim, quick: bool = False) -> Outcome:
    """Run one check; a crash becomes an ``inconclusive`` outcome with ``crashed=True``, and
    missing DPBench data or data that fail their ``SHA256SUMS`` check an uncertified
    ``inconclusive`` naming the file (never a number from untrusted data)."""
    from dpexact.data import DatasetIntegrityError, DatasetMissingError

    t0 = time.perf_counter()
    try:
        v = c.check(quick)
        if not isinstance(v, ClaimVerdict):
            raise TypeError(f"check of {c.id} returned {type(v).__name__}, not Verdict")
        crashed = False
    except (DatasetMissingError, DatasetIntegrityError) as exc:  # data we cannot trust decide nothing
        v = data_missing(f"DPBench data: {exc}")
        crashed = False
    except Exception as exc:  # a crashing check is reported, the run continues
        v = ClaimVerdict("inconclusive", False, "check crashed", {"crash": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()})
        crashed = True
    return Outcome(c, v, time.perf_counter() - t0, crashed)


def run(
    claims: Iterable[Claim],
    quick: bool = False,
    progress: Callable[[Claim, Outcome | None], None] | None = None,
) -> list[Outcome]:
    """Run ``claims`` in order and return their outcomes.

    ``progress(claim, None)`` is called before a check starts and ``progress(claim, outcome)``
    after it ends (a display, or an incremental writer of the results so far). A crashing check
    becomes an ``inconclusive`` outcome with ``crashed=True`` and the run continues.
    """
    out = []
    for c in claims:
        if progress:
            progress(c, None)
        o = run_claim(c, quick)
        out.append(o)
        if progress:
            progress(c, o)
    return out


def run_checks(
    claims: list[Claim],
    quick: bool = False,
    on_start: Callable[[Claim], None] | None = None,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """:func:`run` with separate start / done callbacks."""

    def progress(c: Claim, o: Outcome | None) -> None:
        if o is None and on_start:
            on_start(c)
        elif o is not None and on_done:
            on_done(o)

    return run(claims, quick, progress)


def _evidence(x: Any) -> Any:
    # the schema's evidence is an object, a list, text or null: a bare number keeps one type per field as {"value": x}
    return {"value": x} if isinstance(x, (bool, int, float)) else x


def _jsonable(x: Any) -> Any:
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
        return f  # a non-finite one becomes null + NAME_exact in to_json (dpexact.schemas.numbers.free_form)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, str):
        return x
    return str(x)


def to_json(outcomes: list[Outcome], version: str, quick: bool = False, complete: bool = True, total: int | None = None) -> dict:
    """The verdicts as a JSON document.

    ``complete`` is false while a run is under way or after it was interrupted; ``total`` is the
    number of claims the run was asked for (``len(outcomes)`` when complete).
    """
    return {
        "complete": bool(complete),
        "quick": bool(quick),
        "claims_total": len(outcomes) if total is None else int(total),
        "claims_done": len(outcomes),
        "claims": [
            {
                "id": o.claim.id,
                "paper": o.claim.paper,
                "location": o.claim.location,
                "statement": o.claim.statement,
                "verdict": o.verdict.verdict,
                "expected": o.claim.expected_verdict(quick),
                "severity": o.claim.severity if o.verdict.verdict == "refuted" else None,
                "explanation": o.claim.explanation,
                "certified": bool(o.verdict.certified),
                "crashed": bool(o.crashed),
                "scope": o.verdict.scope,
                "evidence": free_form(_evidence(_jsonable(o.verdict.evidence))),
                "seconds": float(o.seconds),
            }
            for o in outcomes
        ],
        "dpexact_version": str(version),
    }


def outcomes_from_json(doc: Any, claims: list[Claim], quick: bool) -> dict[str, Outcome]:
    """The finished outcomes of a saved run (:func:`to_json`, e.g. ``FILE.partial``) that a new
    run of ``claims`` may keep instead of re-running them (``dpexact check --resume``).

    Every saved claim must be one of ``claims`` with the same statement and location (the
    catalogue it came from), and the saved run must have the same scope (``quick``); a claim that
    crashed or could not run for missing data is left out, so that it runs again. Figures are not
    saved in the JSON document: a kept claim has none.

    Args:
        doc: the parsed JSON document.
        claims: the claims of the run that resumes.
        quick: that run's scope.

    Returns:
        Claim id -> kept :class:`Outcome`.

    Raises:
        ValueError: the document is not a check document, has the other scope, or holds a claim
            that ``claims`` lacks or states differently.
    """
    if not isinstance(doc, dict) or doc.get("command") != "check" or not isinstance(doc.get("claims"), list):
        raise ValueError("--resume: not a `dpexact check` results document")
    if bool(doc.get("quick")) != bool(quick):
        saved = "--quick" if doc.get("quick") else "the full scope"
        raise ValueError(f"--resume: the saved run used {saved}; run again with the same scope (or without --resume)")
    by_id = {c.id: c for c in claims}
    kept: dict[str, Outcome] = {}
    for entry in doc["claims"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise ValueError("--resume: a saved claim has no id")
        c = by_id.get(entry["id"])
        if c is None or entry.get("statement") != c.statement or entry.get("location") != c.location:
            why = "is not in this catalogue selection" if c is None else "is stated differently in this catalogue"
            raise ValueError(f"--resume: saved claim {entry['id'][:80]!r} {why}: the file comes from another catalogue "
                             "or selection (run without --resume)")
        if entry.get("crashed") or str(entry.get("scope", "")).startswith("not run: data missing"):
            continue
        try:
            v = ClaimVerdict(entry["verdict"], entry["certified"], str(entry.get("scope", "")), entry.get("evidence"))
            seconds = float(entry.get("seconds", 0.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"--resume: saved claim {entry['id'][:80]!r} is malformed ({exc})") from None
        kept[c.id] = Outcome(c, v, seconds)
    return kept
