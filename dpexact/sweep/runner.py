"""A sweep: expand the spec, skip what the store holds, run the rest, store each result at once.

Resume is by key: a point whose row is in the store (and intact) is not run again; a failed
row is kept unless ``retry_failed``. Rows are written by this process as results arrive, so a
cluster without a shared file system works. On Ctrl-C the jobs already running are finished
and stored before the sweep stops (:func:`.executor.run_jobs`), so a resumed sweep neither
loses nor recomputes a finished task; only a hard kill of this process loses the jobs that were
running (they have no result yet) and the next call runs them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .executor import Job, Progress, dask_client, run_jobs
from .spec import Point, SweepSpec
from .store import ResultStore, Row
from .tasks import expand_claims, run_point

__all__ = ["SweepReport", "sweep_points", "run_sweep", "point_record"]


@dataclass
class SweepReport:
    """What a call did: every point, its row (if any), what was computed / skipped / corrupt."""

    points: list[Point]
    rows: dict[str, Row]
    computed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    corrupt: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        return [k for k, r in self.rows.items() if r.status == "failed"]

    @property
    def missing(self) -> list[str]:
        return [p.key for p in self.points if p.key not in self.rows]


def sweep_points(spec: SweepSpec, version: str | None = None) -> list[Point]:
    """The spec's grid (claim patterns of a ``check`` sweep expanded to ids)."""
    from .. import __version__

    if spec.task == "check":
        ids = expand_claims(spec.axes["claim"], spec.settings.get("papers"))
        spec = SweepSpec(spec.task, {**spec.axes, "claim": ids}, spec.settings)
    return spec.points(version or __version__)


def _priority(p: Point) -> int:
    """Larger first: an LP's cost grows with its classes and as ε falls (pf App. D)."""
    if p.task == "optimal":
        from ..lp.lattice import count_classes

        try:
            return count_classes(p.inputs["n"], p.inputs["k"])
        except (ValueError, TypeError):
            return 0
    return 0


def run_sweep(
    spec: SweepSpec,
    store: ResultStore,
    *,
    client: Any | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    retry_failed: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    on_row: Callable[[Row], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    task: Callable[[str, dict[str, Any]], dict[str, Any]] = run_point,
) -> SweepReport:
    """Run the points of ``spec`` missing from ``store`` and write each result as it arrives.

    Args:
        client: a ``distributed.Client`` to use; else one is made by
            :func:`.executor.dask_client` from ``scheduler`` / ``workers`` (``workers=0``:
            serially in this process, no Dask).
        retry_failed: run again the points whose stored row failed.
        on_progress: executor progress callback (counts of this call's jobs).
        on_row: called with each row after it is written.
        on_interrupt: called with the number of running jobs being drained after Ctrl-C
            (:func:`.executor.run_jobs`); ``KeyboardInterrupt`` propagates once they are stored.
        task: ``task(kind, inputs) -> outcome`` run per point (picklable; default
            :func:`.tasks.run_point`).
    """
    from .. import __version__

    points = sweep_points(spec, __version__)
    store.clean_stale()  # a killed run's temporary files (its process is gone): never read, now removed
    scan = store.scan([p.key for p in points])
    rows = dict(scan.rows)
    todo = [p for p in points if p.key not in rows or (retry_failed and rows[p.key].status == "failed")]
    todo_keys = {p.key for p in todo}
    report = SweepReport(points, rows, skipped=[p.key for p in points if p.key not in todo_keys], corrupt=scan.corrupt)
    by_key = {p.key: p for p in points}
    counts = {"ok": 0, "failed": 0}
    written: set[str] = set()

    def progress(prog: Progress) -> None:  # done / failed by the rows' status, not Dask's
        if on_progress:
            on_progress(Progress(len(todo), counts["ok"], counts["failed"], prog.running))

    def record(job: Job, out: dict[str, Any] | None, where: str | None, message: str | None = None) -> None:
        p = by_key[job.key]
        if p.key in written:  # handed over again after an interrupt: already stored
            return
        if out is not None and out["dpexact_version"] != __version__:
            message = f"worker runs dpexact {out['dpexact_version']}, this client {__version__}"
        if message is not None:
            out = {"status": "failed", "result": None, "error": message, "certified": None, "bounds": None,
                   "backend": None, "seconds": (out or {}).get("seconds", 0.0)}
        assert out is not None
        row = Row(p.key, p.task, __version__, out["status"], p.grid, p.inputs, out["result"], out["error"],
                  out["certified"], out["bounds"], out["seconds"], out["backend"], where, time.time())
        store.write(row)
        written.add(p.key)
        rows[p.key] = row
        report.computed.append(p.key)
        counts[row.status] += 1
        if on_row:
            on_row(row)

    jobs = [Job(p.key, task, (p.task, p.inputs), _priority(p)) for p in todo]
    if not jobs:
        return report
    if client is not None or workers == 0:
        run_jobs(jobs, client, lambda j, v, w: record(j, v, w), lambda j, m: record(j, None, None, m), progress, on_interrupt)
    else:
        with dask_client(scheduler, workers) as c:
            run_jobs(jobs, c, lambda j, v, w: record(j, v, w), lambda j, m: record(j, None, None, m), progress, on_interrupt)
    return report


def point_record(p: Point, row: Row | None) -> dict[str, Any]:
    """The ``--json`` object of a point: its grid keys, then the task's own record, then status."""
    out: dict[str, Any] = dict(p.grid)
    if row is None:
        out.update({"status": "missing", "error": None, "key": p.key})
        return out
    if row.result is not None:
        out.update(row.result)
    out.update({"status": row.status, "error": row.error, "key": p.key})
    return out
