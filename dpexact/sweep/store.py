"""The sweep results store: one Parquet file per finished task, written atomically.

Why Parquet files (pyarrow) rather than one DuckDB database: a DuckDB file admits one
writing process at a time and a crash is repaired by replaying its WAL, while here results
arrive from many workers, possibly on several machines, and must each be durable the moment
they finish. One immutable file per task needs no lock and no recovery: each is written to a
temporary name (ignored by readers: it starts with ``.``), fsynced, then renamed into place
(:func:`os.replace`, atomic on POSIX), so a reader sees the complete file or nothing. Stores
from several machines merge by copying files. The directory is a Parquet dataset that pyarrow,
DuckDB (``SELECT * FROM 'DIR/*.parquet'``), polars or pandas query directly.

Each file holds one row (:class:`Row`): the task's key (the file name), kind, inputs, status,
its JSON result, the evidence (certified, bounds, seconds, backend, error message) and a
``sha256`` over all other fields. :meth:`ResultStore.scan` re-reads every file, recomputes the
checksum and checks the key; a truncated, corrupted or foreign file is reported in
``ScanResult.corrupt`` and never returned as a result (its task counts as not done). The
checksum detects accidents (a truncated copy, flipped bits, a file from another store), not
forgery: anyone who can write the store can recompute it. A ``<key>.parquet`` that is not a
regular file (a FIFO, a device, a link) is never read nor replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..io import check_writable_dir

#: a temporary row file older than this is stale whatever its name says (a writer takes seconds)
STALE_TMP_SECONDS = 6 * 3600.0

__all__ = ["Row", "ScanResult", "ResultStore", "checksum"]

_FIELDS = (
    ("key", "string"), ("task", "string"), ("dpexact_version", "string"), ("status", "string"),
    ("grid", "string"), ("inputs", "string"), ("result", "string"), ("error", "string"),
    ("certified", "string"), ("bounds", "string"), ("seconds", "float64"), ("backend", "string"),
    ("worker", "string"), ("finished_at", "float64"),
    ("n", "int64"), ("k", "int64"), ("epsilon", "string"), ("mechanism", "string"),
)


def _schema() -> Any:
    import pyarrow as pa

    types = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64()}
    return pa.schema([(name, types[t]) for name, t in _FIELDS] + [("sha256", pa.string())])



@dataclass(frozen=True)
class Row:
    """One finished task.

    Attributes:
        key: :func:`.spec.point_key` of the task's inputs and the dpexact version.
        task: kind (``optimal``, ``verify``, ``pmf``, ``check``).
        status: ``"ok"`` or ``"failed"`` (then ``error`` holds the message).
        grid, inputs: the point's axis values and all its inputs.
        result: the task's JSON record (``None`` when failed).
        certified: ``"exact"``, ``"enclosure"``, ``"rigorous"``, ``"true"``, ``"false"`` ...
            as the task reports it (text, since kinds differ).
        bounds: proven interval(s) the task reports (e.g. the LP optimum's), or ``None``.
        seconds: wall time of the task on its worker.
        backend: number backend of the result (``float``, ``ball``, ``exact`` ...).
        worker: address of the worker that ran it.
    """

    key: str
    task: str
    dpexact_version: str
    status: str
    grid: dict[str, Any]
    inputs: dict[str, Any]
    result: Any
    error: str | None
    certified: str | None
    bounds: Any
    seconds: float
    backend: str | None
    worker: str | None = None
    finished_at: float = 0.0

    def columns(self) -> dict[str, Any]:
        """The Parquet columns (JSON text for nested fields) without the checksum."""
        def js(x: Any) -> str | None:
            return None if x is None else json.dumps(x, ensure_ascii=False)  # key order kept as the task wrote it

        g = self.grid
        return {
            "key": self.key, "task": self.task, "dpexact_version": self.dpexact_version, "status": self.status,
            "grid": js(g), "inputs": js(self.inputs), "result": js(self.result), "error": self.error,
            "certified": self.certified, "bounds": js(self.bounds), "seconds": float(self.seconds),
            "backend": self.backend, "worker": self.worker, "finished_at": float(self.finished_at),
            "n": g.get("n") if isinstance(g.get("n"), int) else None,
            "k": g.get("k") if isinstance(g.get("k"), int) else None,
            "epsilon": str(g["epsilon"]) if "epsilon" in g else None,
            "mechanism": g.get("mechanism"),
        }

    @classmethod
    def from_columns(cls, c: dict[str, Any]) -> "Row":
        def unjs(x: str | None) -> Any:
            return None if x is None else json.loads(x)

        return cls(c["key"], c["task"], c["dpexact_version"], c["status"], unjs(c["grid"]), unjs(c["inputs"]),
                   unjs(c["result"]), c["error"], c["certified"], unjs(c["bounds"]), c["seconds"], c["backend"],
                   c["worker"], c["finished_at"])


def checksum(columns: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a row's columns (the ``sha256`` column excluded)."""
    body = {k: v for k, v in columns.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (signal 0 probes without signalling)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists (another user's), or cannot tell: keep the file
    return True


@dataclass
class ScanResult:
    """Rows that passed every check, keyed by task key, and the files that did not."""

    rows: dict[str, Row] = field(default_factory=dict)
    corrupt: list[tuple[Path, str]] = field(default_factory=list)


class ResultStore:
    """A directory of ``<key>.parquet`` files, one finished task each (module docstring)."""

    def __init__(self, root: "str | os.PathLike[str]") -> None:
        self.root = check_writable_dir(root, "--store")

    def path(self, key: str) -> Path:
        return self.root / f"{key}.parquet"

    def write(self, row: Row) -> Path:
        """Write ``row`` to ``<key>.parquet`` atomically (temporary file, fsync, rename, fsync dir)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = row.columns()
        cols["sha256"] = checksum(cols)
        table = pa.Table.from_pylist([cols], schema=_schema())
        target = self.path(row.key)
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ValueError(f"--store: {target} is not a regular file; not replaced")
        # the writer's process id in the name: a temporary file of a process that is gone is stale (clean_stale)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=self.root)
        try:
            with os.fdopen(fd, "wb") as fh:
                pq.write_table(table, fh, write_page_checksum=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        try:  # make the rename itself durable
            dfd = os.open(self.root, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
        return target

    def read(self, path: Path) -> Row:
        """Read and verify one file; ``ValueError`` saying why if it is not a complete, intact row."""
        import pyarrow.parquet as pq

        if path.is_symlink() or not path.is_file():  # a FIFO would block the read, a device never end
            raise ValueError("not a regular file")
        try:
            table = pq.read_table(path, page_checksum_verification=True)
        except Exception as exc:  # pyarrow raises ArrowInvalid / OSError on truncated or garbled files
            raise ValueError(f"unreadable Parquet ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
        if table.num_rows != 1:
            raise ValueError(f"expected 1 row, found {table.num_rows}")
        names = [f for f, _ in _FIELDS] + ["sha256"]
        if table.column_names != names:
            raise ValueError(f"unexpected columns {table.column_names}")
        cols = table.to_pylist()[0]
        if cols["sha256"] != checksum(cols):
            raise ValueError("checksum mismatch")
        if path.name != f"{cols['key']}.parquet":
            raise ValueError(f"file name does not match its key {cols['key']}")
        if cols["status"] not in ("ok", "failed"):
            raise ValueError(f"unknown status {cols['status']!r}")
        return Row.from_columns(cols)

    def clean_stale(self, older_than: float = STALE_TMP_SECONDS) -> list[Path]:
        """Remove the temporary files a killed writer left (``.<key>.parquet.<pid>.<random>.tmp``):
        those whose writing process no longer exists, and any older than ``older_than`` seconds
        (a name without a process id, or a process id reused since). A live writer's file is kept.

        Returns:
            The files removed.
        """
        import time

        removed = []
        now = time.time()
        for p in self.root.glob(".*.parquet.*.tmp"):
            parts = p.name[len("."):].split(".")
            pid = parts[2] if len(parts) >= 5 and parts[1] == "parquet" else ""
            try:
                st = p.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            gone = pid.isdigit() and not _alive(int(pid))
            if gone or now - st.st_mtime > older_than:
                try:
                    p.unlink()
                    removed.append(p)
                except OSError:
                    pass
        return removed

    def scan(self, keys: Iterable[str] | None = None) -> ScanResult:
        """Verify and load the rows of ``keys`` (all files if ``None``); temporary files are ignored."""
        out = ScanResult()
        if keys is None:
            paths = sorted(p for p in self.root.glob("*.parquet") if not p.name.startswith("."))
        else:
            paths = [p for p in (self.path(k) for k in keys) if p.exists()]
        for p in paths:
            try:
                row = self.read(p)
            except ValueError as exc:
                out.corrupt.append((p, str(exc)))
                continue
            out.rows[row.key] = row
        return out
