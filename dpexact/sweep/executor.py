"""Run a list of picklable jobs on Dask (dask.distributed), or serially in this process.

The executor knows nothing about sweeps: a :class:`Job` is a key, a picklable callable and its
arguments; each finished job is handed to ``on_done`` the moment it finishes (the sweep writes
it to its store there), each job that Dask gives up on to ``on_failed`` with the message.

* By default :func:`dask_client` starts a ``LocalCluster`` of worker *processes* (one thread
  each, since LP solves and ball arithmetic hold the GIL), as many as the CPUs this process may
  use; ``workers`` overrides the count. ``scheduler`` connects to an existing cluster
  (``dask scheduler`` + ``dask worker ADDRESS`` on other machines, dask-jobqueue, Kubernetes).
* A worker that dies (killed, out of memory, segfault) is restarted by its nanny and its job
  re-run elsewhere; a job whose workers died :data:`ALLOWED_FAILURES` + 1 times fails with
  ``KilledWorker`` (Dask's ``distributed.scheduler.allowed-failures``, set here for the local
  cluster; an external scheduler uses its own configuration).
* ``workers=0`` runs the jobs serially in this process, without Dask.
* The local cluster's workers ignore SIGINT (:mod:`.shield`): a Ctrl-C on the terminal reaches
  this process only, which stops submitting, waits at most :data:`DRAIN_SECONDS` for the running
  jobs (:func:`run_jobs`) and closes the cluster itself.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import re
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from . import shield

__all__ = ["ALLOWED_FAILURES", "DRAIN_SECONDS", "Job", "Progress", "dask_client", "default_workers", "run_jobs"]

#: times a job may be lost with its worker before Dask reports it failed (KilledWorker)
ALLOWED_FAILURES = 3

#: seconds the first Ctrl-C waits for the running jobs before cancelling them
DRAIN_SECONDS = 10.0


@dataclass(frozen=True)
class Job:
    """``fn(*args)`` under ``key``; ``priority``: larger runs first (e.g. the expected cost)."""

    key: str
    fn: Callable[..., Any]
    args: tuple = ()
    priority: int = 0


@dataclass
class Progress:
    """Counts passed to the progress callback after every change."""

    total: int
    done: int = 0
    failed: int = 0
    running: int = 0


#: how long connecting to --scheduler may take (a reachable scheduler answers in well under a second)
CONNECT_TIMEOUT = "10s"
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$")


def _check_address(scheduler: str) -> None:
    """A Dask address ``[tcp|tls|ws|wss]://host:port`` whose host resolves, checked before connecting
    (a malformed or unknown address is a one-line error at once, not a wait for the timeout)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        host, port = parse_host_port(location) if scheme in ("tcp", "tls", "ws", "wss") else (None, None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"--scheduler: {scheduler!r} is not a Dask address such as tcp://host:8786 ({exc})") from None
    if host is None:
        raise ValueError(f"--scheduler: {scheduler!r}: give a tcp://, tls://, ws:// or wss:// address")
    if not _HOST.match(str(host)) or not isinstance(port, int) or not 0 < port < 65536:
        raise ValueError(f"--scheduler: {scheduler!r} is not a Dask address such as tcp://host:8786")
    try:
        socket.getaddrinfo(str(host).strip("[]"), port)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"--scheduler: cannot resolve {host} ({exc})") from None


#: resident memory of one idle local worker process with dpexact imported (measured: 118 MB)
_WORKER_BYTES = 120e6
#: local worker processes per CPU at most (each runs one single-threaded task)
MAX_WORKERS_PER_CPU = 4


def default_workers() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: to ``scheduler`` if given, else to a new local process cluster.

    Raises ValueError naming ``--scheduler`` if the address is malformed, does not resolve, or cannot
    be reached within :data:`CONNECT_TIMEOUT`.
    """
    import dask
    from distributed import Client, LocalCluster

    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if workers is not None and scheduler is None:
        from ..cost_limits import CostEstimate, CostLimitError, check_cost

        cpus = default_workers()
        if workers > MAX_WORKERS_PER_CPU * cpus:
            raise ValueError(f"--workers: {workers} local worker processes on {cpus} CPUs; at most "
                             f"{MAX_WORKERS_PER_CPU * cpus} (more only add memory and start-up time)")

        try:  # each worker is a process: bound their memory before starting them
            check_cost(CostEstimate(f"a local Dask cluster of {workers} worker processes", _WORKER_BYTES * workers, 0.0,
                                    "measured: 120 MB per idle worker process with dpexact imported"))
        except CostLimitError as exc:
            raise CostLimitError(f"--workers: {exc}", exc.estimate) from None
    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"--scheduler: cannot connect to {scheduler} ({exc})") from None
        try:
            yield client
        finally:
            client.close()
        return
    with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
        with _sigint_ignored():  # the spawned workers inherit SIG_IGN: a terminal's Ctrl-C is this process's alone
            cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1, processes=True,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL, preload=[shield.__name__])
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the block runs (main thread only; elsewhere a no-op), then restored;
    an interrupt that arrived meanwhile is lost, as the block only starts processes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _call(fn: Callable[..., Any], args: tuple) -> tuple[Any, str | None]:
    """Run on a worker: ``fn(*args)`` and the worker's address."""
    value = fn(*args)
    try:
        from distributed import get_worker

        where = get_worker().address
    except (ImportError, ValueError):
        where = None
    return value, where


def run_jobs(
    jobs: Sequence[Job],
    client: Any | None,
    on_done: Callable[[Job, Any, str | None], None],
    on_failed: Callable[[Job, str], None],
    on_progress: Callable[[Progress], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    poll: float = 0.5,
    drain_seconds: float | None = None,
) -> Progress:
    """Run ``jobs`` on ``client`` (``None``: serially here); callbacks run in this process.

    ``on_done(job, value, worker)`` is called as each job finishes, in completion order;
    ``on_failed(job, message)`` when Dask could not run it (e.g. ``KilledWorker``).

    Jobs are submitted in order of decreasing ``priority``, at most twice as many as the
    cluster has threads at a time, so that an interruption leaves little in flight and a grid
    of any size holds few futures. ``KeyboardInterrupt`` (Ctrl-C, or raised by a callback)
    stops submitting, cancels the jobs no worker has started and *drains*: the jobs already
    running finish and are handed to ``on_done`` (``on_interrupt(count)`` announces them),
    then ``KeyboardInterrupt`` is re-raised; so no finished job's result is lost and none is
    stored twice. The drain lasts at most
    ``drain_seconds`` (default :data:`DRAIN_SECONDS`); jobs still running then are cancelled and
    run again by the next call. A second interrupt while draining, or any other exception from a
    callback, cancels what is in flight and propagates. Serially, an interrupt stops at once (the
    job being computed is lost).
    """
    limit = DRAIN_SECONDS if drain_seconds is None else drain_seconds
    deadline = float("inf")
    prog = Progress(total=len(jobs))
    if on_progress:
        on_progress(prog)
    if client is None:
        for job in jobs:
            prog.running = 1
            if on_progress:
                on_progress(prog)
            value, where = _call(job.fn, job.args)
            prog.running = 0
            prog.done += 1
            on_done(job, value, where)
            if on_progress:
                on_progress(prog)
        return prog

    from distributed import wait

    tag = uuid.uuid4().hex[:8]
    queue = collections.deque(sorted(jobs, key=lambda j: -j.priority))  # stable: grid order within a priority
    inflight: dict[Any, Job] = {}
    draining = False
    last = 0.0
    try:
        while queue or inflight:
            if draining and time.monotonic() > deadline:
                break  # the bounded wait is over: what still runs is cancelled below
            try:
                if not draining:
                    window = max(2, 2 * sum(client.nthreads().values()))
                    while queue and len(inflight) < window:
                        job = queue.popleft()
                        fut = client.submit(_call, job.fn, job.args, key=f"dpexact-{job.key}-{tag}", pure=False,
                                            priority=job.priority)
                        inflight[fut] = job
                try:
                    wait(list(inflight), timeout=poll, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    pass
                for fut in [f for f in inflight if f.done()]:
                    job = inflight[fut]
                    if fut.status == "finished":
                        value, where = fut.result()
                        on_done(job, value, where)
                        prog.done += 1
                    else:
                        try:
                            exc = fut.exception()
                            message = f"{type(exc).__name__}: {exc}"
                        except Exception as err:  # cancelled by the scheduler
                            message = f"{type(err).__name__}: {err}"
                        on_failed(job, message)
                        prog.failed += 1
                    del inflight[fut]
                    fut.release()
                now = time.monotonic()
                if on_progress and now - last > poll / 5:
                    prog.running = _running(client, inflight)
                    on_progress(prog)
                    last = now
            except KeyboardInterrupt:
                if draining:
                    raise
                draining = True
                deadline = time.monotonic() + limit
                queue.clear()
                waiting = _not_started(client, inflight)  # queued on a worker: cancelled, run by the next call
                if waiting:
                    client.cancel(waiting)
                    for fut in waiting:
                        del inflight[fut]
                if on_interrupt:
                    on_interrupt(len(inflight))
                # a job whose hand-over was interrupted is still in flight: handed over again
    finally:
        if inflight:
            client.cancel(list(inflight))
    if draining:
        raise KeyboardInterrupt
    return prog


def _executing(dask_worker: Any) -> list[str]:
    """Run on each worker: the keys of the tasks it is executing now."""
    return [str(ts.key) for ts in dask_worker.state.executing]


def _not_started(client: Any, pending: dict[Any, Job]) -> list[Any]:
    """Our futures that no worker has started yet (all of them kept if the workers cannot say)."""
    try:
        executing = {k for keys in client.run(_executing, wait=True).values() for k in keys}
    except Exception:  # an unreachable worker: keep every job in flight, the drain is bounded anyway
        return []
    return [f for f in pending if not f.done() and str(f.key) not in executing]


def _running(client: Any, pending: dict[Any, Job]) -> int:
    """Jobs of ours executing on some worker: those the scheduler has sent to workers, capped by the
    cluster's threads (a worker may hold a few more than it runs, Dask's ``worker-saturation``)."""
    try:
        keys = {f.key for f in pending}
        sent = sum(1 for tasks in client.processing().values() for k in tasks if k in keys)
        return min(sent, sum(client.nthreads().values()))
    except Exception:  # a progress display must never stop the run
        return 0
