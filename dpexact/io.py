"""Results that survive faults: atomic writes, output paths checked before long work, and no
output path that is not a regular file ever replaced.

A result file is either the previous complete version or the new complete version, never a
truncated mix: the text is written to a temporary file in the same directory, flushed and
fsynced, then moved over the target with :func:`os.replace` (atomic on POSIX and Windows for
paths on one file system). A run that writes incrementally writes its running file beside the
target (:func:`partial_path`) and moves it over the target once complete.

What an output path may be (:func:`output_target`, checked by :func:`check_writable` before any
work and again by the writers):

=====================================  ==========================================================
the path (symbolic links followed)     what is written
=====================================  ==========================================================
absent, or a regular file              atomic replacement (a link is kept: its target is replaced)
a character device or a FIFO           written in place, never renamed over nor truncated away
                                       (``/dev/null``, ``/dev/stdout``, a terminal, ``>(cmd)``);
                                       not atomic; a FIFO waits for its reader a few seconds
a block device, a socket, a directory  refused with one line naming the option
=====================================  ==========================================================

A file name longer than the file system allows, an empty path and an unwritable directory are
refused before any work (:func:`check_writable`), so a long computation never ends in a lost
result.

Inputs are read with a size limit (:func:`read_bounded`): at most ``limit + 1`` bytes, so
``/dev/zero`` or a huge file is refused without reading it all, and a FIFO with no writer reads
as empty instead of blocking.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Literal

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_write_json", "check_writable", "check_writable_dir",
           "output_target", "partial_path", "is_stream", "read_bounded", "read_bounded_text", "read_json_bounded",
           "json_value_count", "JsonLimitError", "InputLimitError", "MAX_JSON_DEPTH"]

#: longest file name and path assumed where the file system does not say (POSIX NAME_MAX / PATH_MAX)
NAME_MAX, PATH_MAX = 255, 4096
#: room the temporary file's name needs beyond a (shortened) target name: ".<name>." + random + ".tmp"
_TMP_NAME_ROOM = 20
#: suffix of the running file an incremental writer keeps beside its target
PARTIAL_SUFFIX = ".partial"
#: seconds a result written to a FIFO waits for its reader
FIFO_WAIT_SECONDS = 10.0

Kind = Literal["file", "stream"]


def output_target(path: "str | os.PathLike[str]", name: str = "output") -> tuple[Path, Kind]:
    """Where a write to ``path`` goes, and how (module docstring table).

    Returns:
        ``(target, "file")`` — ``target`` (symbolic links resolved) is absent or a regular file
        and is replaced atomically; or ``(path, "stream")`` — a character device or FIFO,
        written in place.

    Raises:
        ValueError: naming ``name``: an empty path, a directory, a block device, a socket or
            another file type that is not written to.
    """
    text = os.fspath(path)
    if text == "":
        raise ValueError(f"{name}: empty path; give a file name")
    if "\x00" in text:
        raise ValueError(f"{name}: the path contains a NUL character")
    p = Path(text)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):  # absent: created (check_writable_dir names a blocking file)
        return Path(os.path.realpath(p)) if os.path.islink(p) else p, "file"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise ValueError(f"{name}: {_short(text)}: file name too long") from None
        if exc.errno in (errno.ELOOP, errno.EACCES):
            raise ValueError(f"{name}: cannot use {_short(text)} ({exc.strerror})") from None
        raise
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return (Path(os.path.realpath(p)) if os.path.islink(p) else p), "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return p, "stream"
    if stat.S_ISDIR(mode):
        raise ValueError(f"{name}: {_short(text)} is a directory, expected a file path")
    what = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
    raise ValueError(f"{name}: {_short(text)} is {what}; results are written to regular files, character devices "
                     "(/dev/null, /dev/stdout) or pipes only")


def is_stream(path: "str | os.PathLike[str]") -> bool:
    """Whether ``path`` is a character device or FIFO (written in place, never replaced)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def partial_path(path: "str | os.PathLike[str]") -> Path:
    """The running file of an incremental writer: ``FILE.partial`` beside ``FILE``."""
    p = Path(path)
    return p.with_name(p.name + PARTIAL_SUFFIX)


def atomic_write_bytes(path: "str | os.PathLike[str]", data: bytes, name: str = "output") -> Path:
    """Replace ``path`` with ``data`` atomically (temporary file + fsync + rename), or write it in
    place when ``path`` is a character device or FIFO (module docstring); return the path written.

    On any error (full disk, permission, interrupt) the temporary file is removed and the
    previous content of ``path``, if any, is left untouched; the error propagates.

    Raises:
        ValueError: ``path`` is not something a result is written to (:func:`output_target`).
        OSError: the write failed.
    """
    target, kind = output_target(path, name)
    if kind == "stream":
        return _write_in_place(target, data, name)
    directory = target.parent if str(target.parent) else Path(".")
    stem = target.name if len(target.name.encode()) <= NAME_MAX - _TMP_NAME_ROOM else "dpexact"
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates mode 0600; a result file gets the mode an ordinary open() would give
        os.chmod(tmp, _existing_mode(target) or (0o666 & ~_umask()))
        # the target may have become a device or FIFO since output_target looked: never rename over one
        if is_stream(target):
            raise ValueError(f"{name}: {_short(str(target))} became a device or FIFO during the run; not replaced")
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


def _open_for_writing(target: Path, wait: float) -> int:
    """Open a device or FIFO for writing; a FIFO with no reader is retried for ``wait`` seconds, then
    ``OSError(ENXIO)`` (a blocking open would wait for a reader forever)."""
    import time

    deadline = time.monotonic() + wait
    while True:
        try:  # no O_CREAT, no O_TRUNC: the device or FIFO exists and is only written to
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline:
                if exc.errno == errno.ENXIO:
                    raise OSError(errno.ENXIO, f"no reader on the FIFO within {wait:g} s") from None
                raise
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)  # a reader is there: write as echo would
        return fd


def _write_in_place(target: Path, data: bytes, name: str) -> Path:
    fd = _open_for_writing(target, FIFO_WAIT_SECONDS)
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):  # swapped for another file since the check
            raise ValueError(f"{name}: {_short(str(target))} is no longer a device or FIFO; not written")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return target


def atomic_write_text(path: "str | os.PathLike[str]", text: str, encoding: str = "utf-8", name: str = "output") -> Path:
    """:func:`atomic_write_bytes` of ``text`` encoded with ``encoding``."""
    return atomic_write_bytes(path, text.encode(encoding), name)


def atomic_write_json(path: "str | os.PathLike[str]", obj: Any, name: str = "output", **dump_kwargs: Any) -> Path:
    """Serialise ``obj`` first (so a serialisation error writes nothing), then write atomically."""
    dump_kwargs.setdefault("ensure_ascii", False)
    text = json.dumps(obj, **dump_kwargs)
    return atomic_write_text(path, text + "\n", name=name)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _existing_mode(target: Path) -> int | None:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return None


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _limit(directory: Path, key: str, default: int) -> int:
    existing = next((p for p in (directory, *directory.parents) if p.is_dir()), Path("."))
    try:
        value = os.pathconf(existing, key)
    except (OSError, ValueError, AttributeError):
        return default
    return value if value and value > 0 else default


def _check_name_lengths(target: Path, name: str) -> None:
    """File names and the whole path within the file system's limits, before any work."""
    directory = target.parent if str(target.parent) else Path(".")
    name_max = _limit(directory, "PC_NAME_MAX", NAME_MAX)
    for part in target.parts:
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > name_max:
            raise ValueError(f"{name}: file name too long ({size} bytes; this file system allows {name_max}): "
                             f"{_short(part, 60)}")
    size = len(os.fsencode(os.path.abspath(target)))
    path_max = _limit(directory, "PC_PATH_MAX", PATH_MAX)
    if size >= path_max:
        raise ValueError(f"{name}: path too long ({size} bytes; this system allows {path_max - 1})")


def check_writable(path: "str | os.PathLike[str]", name: str = "output", partial: bool = False) -> Path:
    """Fail early (``ValueError`` naming ``name``) if a result cannot be written to ``path``.

    Refuses an empty path, a directory, a block device or socket, a name longer than the file
    system allows, an unwritable file or directory. Creates the parent directory if needed and
    probes it with a temporary file, so that a long computation is never followed by a lost
    result. A character device or FIFO is accepted if it is writable (it is written in place).
    With ``partial=True`` the running file :func:`partial_path` must fit too.
    """
    target, kind = output_target(path, name)
    if kind == "stream":
        if not os.access(target, os.W_OK):
            raise ValueError(f"{name}: {_short(str(target))} is not writable")
        return Path(path)
    _check_name_lengths(partial_path(target) if partial else target, name)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        missing = not parent.exists()
    except OSError:
        missing = False  # check_writable_dir names the cause
    if missing:  # a typo in a path must not create a tree of directories
        raise ValueError(f"{name}: directory {_short(str(parent))} does not exist (create it first)")
    check_writable_dir(parent, name)
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{name}: {_short(str(target))} is not writable")
    return Path(path)


def check_writable_dir(path: "str | os.PathLike[str]", name: str = "output directory") -> Path:
    """Create ``path`` if needed and check that a file can be written inside it."""
    if os.fspath(path) == "":
        raise ValueError(f"{name}: empty path; give a directory")
    directory = Path(path)
    try:
        blocking = next((p for p in (directory, *directory.parents) if p.exists()), None)
    except OSError as exc:  # a name too long for the file system
        raise ValueError(f"{name}: cannot use {_short(str(directory))} ({exc.strerror or exc})") from None
    if blocking is not None and not blocking.is_dir():
        what = "is a file" if blocking.is_file() else "is"
        raise ValueError(f"{name}: cannot write in {_short(str(directory))} ({_short(str(blocking))} {what}, not a directory)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".dpexact-probe.", dir=directory)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write in {_short(str(directory))} ({exc.strerror or exc})") from None
    return directory


def read_bounded(path: "str | os.PathLike[str]", limit: int, name: str = "input") -> bytes:
    """The bytes of ``path``, refused (``ValueError`` naming ``name``) past ``limit`` bytes.

    Reads at most ``limit + 1`` bytes. A FIFO is opened without waiting for a writer: with none
    it reads as empty (one piped in with ``<(...)`` has its writer already).

    Raises:
        ValueError: larger than ``limit``.
        OSError: cannot be opened or read (the caller names the cause).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        os.set_blocking(fd, True)  # from here on a read waits for data, or returns b"" with no writer
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise InputLimitError(f"{name}: {_short(os.fspath(path))} is larger than {limit} bytes")
    return b"".join(chunks)


def read_bounded_text(path: "str | os.PathLike[str]", limit: int, name: str = "input") -> str:
    """:func:`read_bounded` decoded as UTF-8 (``ValueError`` naming ``name`` if it is not)."""
    raw = read_bounded(path, limit, name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: {_short(os.fspath(path))} is not UTF-8 text (byte {exc.start})") from None


#: deepest nesting of arrays and objects a JSON input may have (every document dpexact writes has < 10)
MAX_JSON_DEPTH = 100


class JsonLimitError(ValueError):
    """A JSON input beyond a size, nesting or element-count limit (refused before it is used)."""


class InputLimitError(JsonLimitError):
    """An input larger than its byte limit (:func:`read_bounded`)."""


def json_value_count(text: str) -> int:
    """An upper bound on the number of JSON values in ``text``, counted without parsing: every value
    but the first follows a ``,`` or opens its array / object (separators inside strings only add)."""
    return text.count(",") + text.count("[") + text.count("{") + 1


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (only finite numbers are)")


def read_json_bounded(path: "str | os.PathLike[str]", limit: int, name: str = "input", max_values: int | None = None,
                      max_depth: int = MAX_JSON_DEPTH, allow_constants: bool = True) -> Any:
    """The JSON document in ``path``, with its size, element count and nesting bounded before use.

    Args:
        path: the file (read with :func:`read_bounded_text`).
        limit: most bytes.
        name: the argument named in errors.
        max_values: most JSON values (:func:`json_value_count`, checked before parsing).
        max_depth: deepest nesting of arrays and objects.
        allow_constants: accept ``NaN`` / ``Infinity`` (not JSON, but what Python writes).

    Raises:
        JsonLimitError: past a limit (one line naming ``name``).
        ValueError: not UTF-8, or not JSON.
        OSError: cannot be read.
    """
    text = read_bounded_text(path, limit, name)
    shown = _short(os.fspath(path))
    if max_values is not None:
        count = json_value_count(text)
        if count > max_values:
            raise JsonLimitError(f"{name}: {shown} holds up to {count} JSON values; at most {max_values} are read")
    try:
        doc = json.loads(text, **({} if allow_constants else {"parse_constant": _refuse_constant}))
    except RecursionError:
        raise JsonLimitError(f"{name}: {shown} is nested deeper than {max_depth} levels") from None
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:  # iterative: a deep document must not exhaust the recursion limit here either
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > max_depth:
                raise JsonLimitError(f"{name}: {shown} is nested deeper than {max_depth} levels")
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return doc
