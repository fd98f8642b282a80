"""Which options of ``dpexact verify`` each verifier honours, declared on the verifier itself.

An option a verifier cannot honour for this mechanism is refused with a one-line error naming
it, never ignored (``verify -m laplace --neighbourhood box:2`` must not answer for Δ = 1).
Each verifier states its options with :func:`honours`; the router computes which verifier a
call reaches and :func:`refuse_unhonoured` compares the options the caller set (those not at
their default) with that verifier's declaration.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

__all__ = ["OPTION_FLAGS", "DEFAULT_SEARCHES", "honours", "honoured_by", "given_options", "refuse_unhonoured"]

F = TypeVar("F", bound=Callable[..., Any])

#: the searches run when none are named (a sweep spec fills them in: the same as not naming any)
DEFAULT_SEARCHES = ("grid", "structured", "local")

#: option name (keyword of :func:`dpexact.verify`) -> its CLI flag, for the error message
OPTION_FLAGS = {"neighbourhood": "--neighbourhood", "searches": "--search", "n": "--n", "values": "--values",
                "steps": "--steps", "relation": "--relation", "delta": "--delta", "tolerance": "--tolerance"}


def honours(*options: str) -> Callable[[F], F]:
    """Declare the ``verify`` options a verifier honours (the others are refused on its route)."""
    unknown = set(options) - set(OPTION_FLAGS)
    if unknown:
        raise ValueError(f"unknown verify options {sorted(unknown)}")

    def mark(fn: F) -> F:
        fn.honoured_options = frozenset(options)  # type: ignore[attr-defined]
        return fn

    return mark


def honoured_by(fn: Callable[..., Any]) -> frozenset[str]:
    """The options ``fn`` declared with :func:`honours` (none declared: none honoured)."""
    return frozenset(fn.__dict__.get("honoured_options", ()))


def given_options(*, neighbourhood: str | None = "default", searches: Any = None, n: Any = None, values: Any = None,
                  steps: Any = 1, relation: str | None = None, delta: Any = None, tolerance: Any = None) -> list[str]:
    """The options set away from their defaults, in a fixed order."""
    named = searches is not None and tuple(searches) != DEFAULT_SEARCHES
    given = {"neighbourhood": neighbourhood not in (None, "default"), "searches": named,
             "n": n is not None, "values": values is not None, "steps": steps != 1, "relation": relation is not None,
             "delta": delta is not None, "tolerance": tolerance is not None}
    return [k for k in OPTION_FLAGS if given[k]]


def refuse_unhonoured(given: Iterable[str], honoured: frozenset[str], what: str) -> None:
    """``ValueError`` naming the first given option that ``what`` (the route) does not honour."""
    for opt in given:
        if opt not in honoured:
            ok = ", ".join(OPTION_FLAGS[o] for o in OPTION_FLAGS if o in honoured) or "none of them"
            raise ValueError(f"{OPTION_FLAGS[opt]}: not supported by {what} (it honours {ok}); "
                             "an option that cannot apply is refused, not ignored")
