"""Download the DPBench 1-D histograms from their public upstream and check them against the
digests pinned in the package (:data:`.dpbench.PINNED_SHA256`).

Upstream: the DPBench code base ``dpcomp_core`` (Hay et al., SIGMOD 2016), folder
``dpcomp_core/datafiles/1D`` at the commit whose files the digests were taken from
(:data:`DPBENCH_UPSTREAM`). A file is written only after its SHA-256 equals the pinned one
(temporary file in the target folder, then an atomic rename); a file already present with the
right digest is not downloaded again. The folder also gets a ``SHA256SUMS`` listing the files,
which :func:`.dpbench.load_dpbench` checks too.

    dpexact data fetch dpbench --dir ~/dpbench && export DPEXACT_DPBENCH=~/dpbench
"""

from __future__ import annotations

import hashlib
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Sequence

from ..io import atomic_write_bytes, atomic_write_text
from .dpbench import DPBENCH_DOMAIN, PINNED_SHA256, SHA256SUMS, DatasetIntegrityError

__all__ = ["DPBENCH_UPSTREAM", "MAX_BYTES", "TIMEOUT", "DEADLINE", "fetch_dpbench"]

#: the folder the pinned files come from (dpcomp_core at commit 233cfcc)
DPBENCH_UPSTREAM = ("https://raw.githubusercontent.com/dpcomp-org/dpcomp_core/"
                    "233cfcc380320860ab957003b7b6271e0c2027c1/dpcomp_core/datafiles/1D/")
#: the largest file accepted (a 4096-bin float64 histogram is 32 KiB and a header)
MAX_BYTES = 1 << 20
#: seconds before a stalled download is abandoned (no byte for this long)
TIMEOUT = 60.0
#: seconds the whole fetch may take: a server trickling bytes (one every few seconds never trips
#: TIMEOUT) is abandoned at this deadline; the pinned files total about 1 MB, minutes at modem speed
DEADLINE = 300.0


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download(url: str, timeout: float, deadline: float) -> bytes:
    """The body of ``url`` (at most MAX_BYTES + 1 bytes), read in chunks (``read1``: whatever has
    arrived) until ``deadline`` (:func:`time.monotonic`); a wait for one chunk is bounded by
    ``timeout``, so the fetch ends at most ``timeout`` seconds past its deadline."""
    if not url.startswith(("https://", "http://")):
        raise ValueError(f"--base-url must be an http(s) URL, got {url[:60]!r}")

    def left() -> float:
        rest = deadline - time.monotonic()
        if rest <= 0:
            raise TimeoutError("the fetch did not complete before its deadline (a server sending too slowly)")
        return rest

    chunks: list[bytes] = []
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=min(timeout, left())) as r:  # noqa: S310 (scheme checked above)
            while size <= MAX_BYTES:
                chunk = r.read1(min(1 << 16, MAX_BYTES + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                left()
    except urllib.error.HTTPError as exc:
        raise OSError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise OSError(f"cannot download {url}: {exc.reason if isinstance(exc, urllib.error.URLError) else exc}") from None
    data = b"".join(chunks)
    if len(data) > MAX_BYTES:
        raise DatasetIntegrityError(f"{url}: larger than {MAX_BYTES} bytes; not a DPBench histogram", Path(url), None, None)
    return data


def fetch_dpbench(directory: "str | os.PathLike[str]", names: Sequence[str] | None = None,
                  base_url: str = DPBENCH_UPSTREAM, timeout: float = TIMEOUT, deadline: float = DEADLINE,
                  echo: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Fetch ``<NAME>.n4096.npy`` for ``names`` (default: every pinned file) into ``directory``.

    Returns the paths, in order. Raises :class:`.dpbench.DatasetIntegrityError` when a download
    does not have the pinned digest (nothing is written for it), OSError when it cannot be
    downloaded or written — or when no byte comes for ``timeout`` seconds, or the whole fetch
    takes more than ``deadline`` seconds (a server trickling bytes) — ValueError on an unknown
    name or a URL that is not http(s).
    """
    end = time.monotonic() + deadline
    folder = Path(directory).expanduser()
    files = [f"{n.upper()}.n{DPBENCH_DOMAIN}.npy" for n in names] if names else sorted(PINNED_SHA256)
    unknown = [f for f in files if f not in PINNED_SHA256]
    if unknown:
        raise ValueError(f"unknown DPBench histogram {unknown[0]!r}; known: "
                         + ", ".join(f.split('.')[0] for f in sorted(PINNED_SHA256)))
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in files:
        target = folder / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise OSError(f"{target} exists and is not a regular file; not replaced")
        if target.is_file() and _sha256(target) == PINNED_SHA256[name]:
            echo(f"{name}: present, digest checked")
            out.append(target)
            continue
        url = base_url.rstrip("/") + "/" + name
        data = _download(url, timeout, end)
        digest = hashlib.sha256(data).hexdigest()
        if digest != PINNED_SHA256[name]:
            raise DatasetIntegrityError(f"{url}: SHA-256 {digest} differs from the pinned {PINNED_SHA256[name]}; "
                                        "not written", target, PINNED_SHA256[name], digest)
        atomic_write_bytes(target, data, name="--dir")
        echo(f"{name}: downloaded, SHA-256 {digest[:16]}… matches the pinned digest")
        out.append(target)
    sums = folder / SHA256SUMS
    listed = {p.name for p in folder.iterdir() if p.name in PINNED_SHA256 and p.is_file()}
    if not sums.is_symlink() and (not sums.exists() or sums.is_file()):
        atomic_write_text(sums, "".join(f"{PINNED_SHA256[n]}  {n}\n" for n in sorted(listed)), name="--dir")
    return out
