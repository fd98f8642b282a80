"""Task functions of a sweep: one grid point in, one JSON-ready outcome out.

Each kind calls the same library function as its CLI command, so a sweep's result for a point
equals the command's ``--json`` output (the versioned document of :mod:`dpexact.schemas`):

* ``optimal`` — :func:`dpexact.lp.summary.optimal_summary` (``dpexact optimal --json``);
* ``verify`` — :func:`dpexact.verify` (the front door) then ``Verdict.as_dict`` (``dpexact verify --json``:
  every output kind, ``delta`` for (ε, δ));
* ``pmf`` — :func:`dpexact.utility.summary.pmf_summary` (``dpexact pmf --json``);
* ``check`` — ``proofs_checks.catalogue.run_claim`` then ``to_json`` (one claim of ``dpexact check``).

:func:`run_point` never raises for a failing computation (bad parameter, solver error, HiGHS
time limit, crashing check): the outcome has ``status="failed"`` and the message, and the sweep
goes on. It is a module-level function of picklable arguments, so Dask ships it to any worker.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from ..schemas import document

__all__ = ["TASKS", "run_point", "evidence", "expand_claims"]


def _jsonable(obj: Any) -> Any:
    """What the CLI prints: ``json.dumps(obj, default=str)`` read back."""
    return json.loads(json.dumps(obj, default=str))


def _optimal(i: dict[str, Any]) -> dict[str, Any]:
    from ..lp.summary import optimal_summary

    return document("optimal", optimal_summary(i["n"], i["k"], i["epsilon"], sensitivity=i["sensitivity"], mechanisms=i["mechanisms"],
                           boundary=i["boundary"], method=i["method"], crossover=i.get("crossover"), certify=i["certify"],
                           time_limit=i.get("time_limit"), threads=i.get("threads"), max_seconds=i.get("max_seconds")))


def _mechanism_params(i: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"epsilon": i["epsilon"], "sensitivity": i["sensitivity"]}
    if i.get("monotone"):
        params["monotone"] = True
    params.update(i.get("params") or {})
    return params


def _verify(i: dict[str, Any]) -> dict[str, Any]:
    from ..verification.router import verify
    from ..mechanisms.registry import mechanism as build
    from ..verification.replay import evidence_record

    params = _mechanism_params(i)
    mech = build(i["mechanism"], **params)
    v = verify(mech, neighbourhood=i["neighbourhood"], search=tuple(i["search"]), n=i.get("n"), values=i.get("values"),
               steps=i["steps"], relation=i.get("relation"), delta=i.get("delta"), name=i["mechanism"])
    d = v.as_dict()
    record = evidence_record(v, i["mechanism"], params)
    if record is not None:  # as `dpexact verify`: `dpexact replay` re-checks it
        d["replay"] = record
    return _jsonable(document("verify", d))


def _pmf(i: dict[str, Any]) -> dict[str, Any]:
    from ..utility.summary import pmf_summary

    return _jsonable(document("pmf", pmf_summary(i["mechanism"], _mechanism_params(i), i["scores"], backend=i["backend"],
                                                  method=i.get("method"))))


def _check(i: dict[str, Any]) -> dict[str, Any]:
    import importlib

    from .. import __version__

    cat = importlib.import_module("proofs_checks.catalogue")  # imports dpexact: loaded lazily, layers stay one-way
    [c] = cat.select(i.get("papers"), [i["claim"]])
    o = cat.run_claim(c, i["quick"])
    rec = cat.to_json([o], __version__)["claims"][0]
    if o.crashed:
        raise RuntimeError(f"check of {c.id} crashed: {o.verdict.evidence.get('crash')}")
    return rec


#: task kind -> function(inputs) -> JSON record
TASKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "optimal": _optimal, "verify": _verify, "pmf": _pmf, "check": _check,
}


def evidence(task: str, result: dict[str, Any]) -> dict[str, Any]:
    """``certified`` (text), ``bounds`` and ``backend`` of a record, for the store's columns."""
    if task == "optimal":
        c = result.get("certified")
        return {"certified": "false" if c is False else str(c),
                "bounds": result.get("optimal_total_error_enclosure") or result.get("optimal_total_error_bounds"),
                "backend": "exact" if c == "exact" else "float"}
    if task == "verify":
        return {"certified": str(bool(result.get("certified"))).lower(), "bounds": [result.get("worst_log_ratio")],
                "backend": (result.get("recheck") or {}).get("arithmetic") or "ball"}
    if task == "pmf":
        e, b = result["expected_error"], result["error_bound"]  # b null: no finite bound
        return {"certified": result.get("error_kind"), "bounds": None if b is None else [e - b, e + b],
                "backend": result.get("backend")}
    return {"certified": str(bool(result.get("certified"))).lower(), "bounds": None, "backend": None}


def run_point(task: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Run one grid point; return ``{status, result, error, seconds, dpexact_version, evidence...}``."""
    from .. import __version__

    t0 = time.perf_counter()
    try:
        result = TASKS[task](inputs)
        out = {"status": "ok", "result": result, "error": None, **evidence(task, result)}
    except Exception as exc:  # recorded with its message; the sweep continues
        msg = str(exc).splitlines()[0] if str(exc) else ""
        out = {"status": "failed", "result": None, "error": f"{type(exc).__name__}: {msg}",
               "certified": None, "bounds": None, "backend": None}
    out["seconds"] = time.perf_counter() - t0
    out["dpexact_version"] = __version__
    return out


def expand_claims(patterns: list[str], papers: list[str] | None) -> list[str]:
    """Claim ids matching ``patterns`` (exact ids or ``prefix*``; ``*`` = all) in ``papers``."""
    import importlib

    cat = importlib.import_module("proofs_checks.catalogue")
    return [c.id for c in cat.select(papers, None if patterns == ["*"] else patterns)]
