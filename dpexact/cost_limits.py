"""Cost limits: estimates of memory and time made *before* a computation, and the refusal.

A size guard estimates what a problem will cost from its size alone (a cost model measured on
the target machine, stated where the model lives: :mod:`dpexact.lp.cost_model`,
:mod:`dpexact.ldp.cost_model`) and refuses, with the estimate in the message, what would
exceed the budget. Memory is always bounded (a process that exhausts RAM takes the machine
with it); time is bounded where the caller gives a budget (the CLI always does).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "CostEstimate",
    "CostLimitError",
    "DEFAULT_CLI_MAX_SECONDS",
    "check_cost",
    "check_count",
    "estimate_from_pilot",
    "default_max_memory",
    "physical_memory",
]

#: the CLI's default time budget per command (estimated CPU seconds): an interactive command
#: that would run longer than a minute must be asked for with ``--max-seconds``
DEFAULT_CLI_MAX_SECONDS = 60.0
#: share of physical RAM one computation may plan to use (others share the machine)
MEMORY_SHARE = 0.5


class CostLimitError(ValueError):
    """A problem whose estimated cost exceeds the budget (raised before any heavy work)."""

    def __init__(self, message: str, estimate: "CostEstimate") -> None:
        super().__init__(message)
        self.estimate = estimate


@dataclass(frozen=True)
class CostEstimate:
    """Estimated peak memory (bytes) and wall time (seconds) of one computation.

    Attributes:
        what: the computation, e.g. ``"optimal Q(12, 12), generation"``.
        memory_bytes: estimated peak resident memory of the process.
        seconds: estimated time on one core of the machine the model was measured on.
        model: which fitted regime produced the estimate (for the message).
        parts: seconds per stage (build, solve, ratios, …).
    """

    what: str
    memory_bytes: float
    seconds: float
    model: str
    parts: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        parts = ", ".join(f"{k} {_fmt_s(v)}" for k, v in self.parts.items())
        memory = f" and {_fmt_bytes(self.memory_bytes)} peak memory" if self.memory_bytes > 0 else ""  # 0: not modelled
        if self.seconds == 0 and not self.parts and memory:  # a memory-only model
            return f"{self.what}: estimated {memory[5:]} [{self.model}]"
        return (f"{self.what}: estimated {_fmt_s(self.seconds)}"
                + (f" ({parts})" if parts else "")
                + f"{memory} [{self.model}]")

    def as_dict(self) -> dict[str, Any]:
        return {"what": self.what, "memory_bytes": self.memory_bytes, "seconds": self.seconds,
                "model": self.model, "parts": dict(self.parts)}


def physical_memory() -> int:
    """Physical RAM in bytes (``os.sysconf``); 8 GiB if the platform does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 8 * 2**30


def default_max_memory() -> float:
    """The default memory budget: :data:`MEMORY_SHARE` of physical RAM."""
    return MEMORY_SHARE * physical_memory()


def _positive_or_none(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number or None, got {type(value).__name__}")
    if not 0 < value < float("inf"):  # NaN fails too; an infinite budget would switch the guard off
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_cost(estimate: CostEstimate, max_seconds: Any = None, max_memory: Any = "default") -> CostEstimate:
    """Raise :class:`CostLimitError` if ``estimate`` exceeds a budget; return it otherwise.

    Args:
        estimate: the cost estimate.
        max_seconds: time budget in seconds, or ``None`` for no time limit.
        max_memory: memory budget in bytes; ``"default"`` is :func:`default_max_memory`,
            ``None`` disables the check (the caller takes the risk).
    """
    secs = _positive_or_none(max_seconds, "max_seconds")
    mem = default_max_memory() if max_memory == "default" else _positive_or_none(max_memory, "max_memory")
    if mem is not None and estimate.memory_bytes > mem:
        raise CostLimitError(f"{estimate.describe()}; above the memory budget of {_fmt_bytes(mem)} "
                             f"({MEMORY_SHARE:.0%} of this machine's {_fmt_bytes(physical_memory())} RAM)", estimate)
    if secs is not None and estimate.seconds > secs:
        raise CostLimitError(f"{estimate.describe()}; above the time budget of {_fmt_s(secs)} "
                             "(raise it with --max-seconds / max_seconds=)", estimate)
    return estimate


def check_count(value: Any, name: str, lowest: int = 1, highest: int | None = None) -> int:
    """An integer count given by a user (``--draws``, ``--workers``): ``ValueError`` naming ``name``
    outside ``lowest..highest``; the caller then estimates what the count will cost."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < lowest or (highest is not None and value > highest):
        bound = f"{lowest}..{highest}" if highest is not None else f">= {lowest}"
        raise ValueError(f"{name} must be in {bound}, got {value}")
    return value


def estimate_from_pilot(what: str, pilot: Callable[[], Any], pilot_units: int, units: float, bytes_per_unit: float,
                        model: str) -> CostEstimate:
    """Time ``pilot()`` (``pilot_units`` units of work) and extrapolate linearly to ``units``.

    For work whose cost is linear in a count the user gives (sampler draws): the pilot is small
    and bounded, so estimating stays cheap whatever the count.
    """
    t0 = time.process_time()
    pilot()
    per_unit = (time.process_time() - t0) / max(1, pilot_units)
    return CostEstimate(what, bytes_per_unit * units, per_unit * units, model, {"pilot": per_unit * pilot_units})


def _fmt_s(s: float) -> str:
    if not s < 1e12 * 86400:  # inf too: an estimate past float64's range
        return "more than 10^12 days"
    if s < 120:
        return f"{s:.3g} s"
    if s < 7200:
        return f"{s / 60:.3g} min"
    if s < 2 * 86400:
        return f"{s / 3600:.3g} h"
    return f"{s / 86400:.3g} days"


def _fmt_bytes(b: float) -> str:
    if not b < 1e18:
        return "more than 10^6 TB"
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b / 1e3:.3g} kB"
