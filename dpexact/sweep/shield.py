"""Dask worker preload: the worker ignores SIGINT.

A Ctrl-C on a terminal sends SIGINT to the whole foreground process group, worker processes
included; a worker that dies of it loses its task and prints a KeyboardInterrupt traceback. The
sweep's main process alone handles the interrupt (:func:`.executor.run_jobs` drains the running
tasks); its cluster is closed explicitly afterwards. Loaded by the local cluster of
:func:`.executor.dask_client` (``preload=``) so that a worker restarted by its nanny is shielded
too; the cluster's first workers also inherit the ignored disposition from the process that
started them.
"""

from __future__ import annotations

import signal
from typing import Any


def shield() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_setup(worker: Any) -> None:
    """The preload hook Dask calls in the worker process (importing this module changes nothing)."""
    shield()
