"""The conformance report: one check's outcome, the report of a mechanism, and the helpers every
check uses (a call whose clear error makes a check not applicable; a counterexample's scores)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

__all__ = ["ConformanceCheck", "ConformanceReport", "safe", "cx"]


@dataclass
class ConformanceCheck:
    """One check: ``passed`` True / False, or None when not applicable; ``message`` says why."""

    name: str
    passed: bool | None
    message: str
    counterexample: dict | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ConformanceReport:
    mechanism: str
    params: dict
    checks: list[ConformanceCheck] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.passed is not False for c in self.checks)

    @property
    def failures(self) -> list[ConformanceCheck]:
        return [c for c in self.checks if c.passed is False]

    def check(self, name: str) -> ConformanceCheck:
        return next(c for c in self.checks if c.name == name)

    def as_dict(self) -> dict[str, Any]:
        return {"mechanism": self.mechanism, "params": self.params, "passed": self.passed,
                "checks": [c.as_dict() for c in self.checks]}


def safe(fn: Any) -> tuple[Any, str | None]:
    """``(fn(), None)``, or ``(None, "Type: message")`` for a clear error (ValueError, TypeError, …)."""
    try:
        return fn(), None
    except (ValueError, TypeError, NotImplementedError, ArithmeticError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def cx(q: Sequence[Any], **extra: Any) -> dict:
    """A counterexample record: the score vector as strings plus ``extra``."""
    return {"scores": [str(x) for x in q], **extra}
