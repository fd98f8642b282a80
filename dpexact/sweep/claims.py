"""The claim catalogue on the sweep executor: ``dpexact check --workers N / --scheduler ADDR``.

Each claim is a job ``check_claim(id, quick)``: the worker imports ``proofs_checks``, finds
the claim by id and runs it with ``proofs_checks.catalogue.run_claim`` (a crashing check
becomes an ``inconclusive`` outcome there, as in a serial run). Only the id travels to the
worker and only the verdict, time and crash flag travel back; the outcome is rebuilt here
around the caller's own claim record, so outcomes equal those of the serial runner.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Sequence

from .executor import Job, dask_client, run_jobs

__all__ = ["check_claim", "run_claims"]


def _catalogue() -> Any:
    return importlib.import_module("proofs_checks.catalogue")  # imports dpexact: loaded lazily, layers stay one-way


def check_claim(claim_id: str, quick: bool, catalogue: str | None = None) -> tuple[Any, float, bool]:
    """Run claim ``claim_id`` (of the built-in catalogue, or of the researcher's ``catalogue``
    file or module, loaded here) on this worker: ``(verdict, seconds, crashed)``."""
    cat = _catalogue()
    own = cat.load_catalogue(catalogue) if catalogue else None
    [c] = cat.select(None, [claim_id], claims=own)
    o = cat.run_claim(c, quick)
    return o.verdict, o.seconds, o.crashed


def run_claims(
    claims: Sequence[Any],
    quick: bool = False,
    *,
    client: Any | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[Any, Any], None] | None = None,
    catalogue: str | None = None,
) -> list[Any]:
    """Outcomes of ``claims`` (catalogue ``Claim`` records) in their order, computed on Dask.

    ``progress(claim, outcome)`` is called as each finishes (completion order). A claim whose
    workers all died becomes an ``inconclusive`` crashed outcome with Dask's message.
    ``client`` / ``scheduler`` / ``workers`` as in :func:`.runner.run_sweep`. ``catalogue``:
    the source of the claims if not the built-in catalogue (each worker loads it, so a file
    path must be readable there).
    """
    cat = _catalogue()
    by_id = {c.id: c for c in claims}
    outcomes: dict[str, Any] = {}

    def done(job: Job, value: tuple[Any, float, bool], where: str | None) -> None:
        verdict, seconds, crashed = value
        o = cat.Outcome(by_id[job.key], verdict, seconds, crashed)
        outcomes[job.key] = o
        if progress:
            progress(o.claim, o)

    def failed(job: Job, message: str) -> None:
        v = cat.Verdict("inconclusive", False, "check crashed", {"crash": message})
        o = cat.Outcome(by_id[job.key], v, 0.0, True)
        outcomes[job.key] = o
        if progress:
            progress(o.claim, o)

    jobs = [Job(c.id, check_claim, (c.id, quick, catalogue)) for c in claims]
    if client is not None or workers == 0:
        run_jobs(jobs, client, done, failed)
    else:
        with dask_client(scheduler, workers) as c:
            run_jobs(jobs, c, done, failed)
    return [outcomes[c.id] for c in claims]
