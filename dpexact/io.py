"""Results that survive faults: atomic writes and output paths checked before long work.

A result file is either the previous complete version or the new complete version, never a
truncated mix: the text is written to a temporary file in the same directory, flushed and
fsynced, then moved over the target with :func:`os.replace` (atomic on POSIX and Windows for
paths on one file system). A run that writes incrementally rewrites the whole file the same
way after each unit of work and marks it ``"complete": false`` until the last write.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["atomic_write_text", "atomic_write_json", "check_writable", "check_writable_dir"]


def atomic_write_text(path: "str | os.PathLike[str]", text: str, encoding: str = "utf-8") -> Path:
    """Replace ``path`` with ``text`` atomically (temporary file + fsync + rename).

    On any error (full disk, permission, interrupt) the temporary file is removed and the
    previous content of ``path``, if any, is left untouched; the error propagates.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding=encoding) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates mode 0600; a result file gets the mode an ordinary open() would give
        os.chmod(tmp, _existing_mode(target) or (0o666 & ~_umask()))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


def atomic_write_json(path: "str | os.PathLike[str]", obj: Any, **dump_kwargs: Any) -> Path:
    """Serialise ``obj`` first (so a serialisation error writes nothing), then write atomically."""
    dump_kwargs.setdefault("ensure_ascii", False)
    text = json.dumps(obj, **dump_kwargs)
    return atomic_write_text(path, text + "\n")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _existing_mode(target: Path) -> int | None:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return None


def check_writable(path: "str | os.PathLike[str]", name: str = "output") -> Path:
    """Fail early (``ValueError`` naming ``name``) if a file cannot be created at ``path``.

    Creates the parent directory if needed and probes it with a temporary file, so that a
    long computation is never followed by a lost result.
    """
    target = Path(path)
    if target.exists() and target.is_dir():
        raise ValueError(f"{name}: {target} is a directory, expected a file path")
    check_writable_dir(target.parent if str(target.parent) else Path("."), name)
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{name}: {target} is not writable")
    return target


def check_writable_dir(path: "str | os.PathLike[str]", name: str = "output directory") -> Path:
    """Create ``path`` if needed and check that a file can be written inside it."""
    directory = Path(path)
    blocking = next((p for p in (directory, *directory.parents) if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        raise ValueError(f"{name}: cannot write in {directory} ({blocking} is a file, not a directory)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".dpexact-probe.", dir=directory)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write in {directory} ({exc.strerror or exc})") from None
    return directory
