"""What the compiled PF kernel (:mod:`.quadrature_kernel`) takes from other modules, as one digest.

Why: numba's on-disk cache is keyed on the kernel's own file (modification time and size) and on
each function's bytecode, not on the values of the globals a function reads nor on the functions
it calls from other files. A kernel cached before an edit of :mod:`.quadrature_rules` (a constant
such as ``TINY_R``, or a rule such as ``tiny_threshold``) would keep the old classes and series
lengths while the numpy route took the new ones; likewise after an edit of :mod:`.quadrature_sums`.

How: the kernel's file records the digest it was last checked against (``COMPILED_INPUTS``). At
import, a different digest turns numba's cache off for that process (the kernel is compiled afresh,
15-26 CPU s, and correct), and tests/test_pf_kernel.py fails until the record is updated; updating it
edits the kernel's file, so numba never reads the stale entries again.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from . import quadrature, quadrature_rules as rules, quadrature_sums as sums

__all__ = ["FOREIGN_FUNCTIONS", "foreign_constants", "digest"]

#: the functions compiled into the kernel from other modules (each with the constants it reads)
FOREIGN_FUNCTIONS: tuple[Callable[..., Any], ...] = (
    quadrature._truncation, rules.log_ratio, rules.threshold, rules.tiny_threshold, rules.series_lengths,
    rules.node_rule, *(f.py_func for f in (sums.levels, sums.counter_total, sums.fold, sums.power_sums_few,
                                           sums.power_sums, sums.sum_and_squares)))


def foreign_constants() -> dict[str, Any]:
    """The constants the kernel's own code imports from other modules, by name."""
    return {"CUT": rules.CUT, "GROUP_MIN": rules.GROUP_MIN, "KMAX": rules.KMAX, "TINY_J": rules.TINY_J,
            "TINY_K": rules.TINY_K, "TINY_R": rules.TINY_R, "MAX_NODES": quadrature.MAX_NODES, "U": quadrature.U}


def _plain(v: Any) -> bool:
    return isinstance(v, (bool, int, float, str)) or (isinstance(v, tuple) and all(_plain(e) for e in v))


def digest(functions: tuple[Callable[..., Any], ...] | None = None, constants: Mapping[str, Any] | None = None) -> str:
    """sha256 (16 hex digits) over the source of each function, the plain values (numbers, strings,
    tuples of them) of the module globals it names, and ``constants``; ``""`` when a source cannot be
    read (then no recorded digest matches: no cache)."""
    parts = []
    for f in FOREIGN_FUNCTIONS if functions is None else functions:
        try:
            src = inspect.getsource(f)
        except (OSError, TypeError):
            return ""
        g = f.__globals__
        read = sorted((name, g[name]) for name in f.__code__.co_names if name in g and _plain(g[name]))
        parts.append(f"{f.__module__}.{f.__qualname__}\n{src}\n{read!r}")
    parts.append(repr(sorted((foreign_constants() if constants is None else constants).items())))
    return hashlib.sha256("\n\n".join(parts).encode()).hexdigest()[:16]
