"""Grids of LPs, verifications, pmfs and claim checks on Dask, with a results store that loses nothing.

* :mod:`.spec` — the TOML spec: task kind, axes and settings; grid expansion; point keys;
* :mod:`.tasks` — one grid point -> the JSON record of the matching CLI command (never raises);
* :mod:`.executor` — picklable jobs on dask.distributed (local process cluster or an existing
  scheduler), or serially; retries jobs whose worker died;
* :mod:`.store` — one atomically written, checksummed Parquet file per finished task;
* :mod:`.runner` — resume by key, write each result as it arrives;
* :mod:`.report` — table and pf Figure-2-style ratio plot from the store.

Heavy imports (dask, pyarrow, matplotlib) load only when used.
"""

from .executor import Job, dask_client, run_jobs
from .runner import SweepReport, point_record, run_sweep, sweep_points
from .spec import SweepSpec, load_spec, parse_spec
from .store import ResultStore, Row

__all__ = [
    "Job", "dask_client", "run_jobs",
    "SweepReport", "point_record", "run_sweep", "sweep_points",
    "SweepSpec", "load_spec", "parse_spec",
    "ResultStore", "Row",
]
