"""Option values of the plain types coerced without pydantic (start-up of every command).

typer >= 0.2x coerces every option value through a pydantic ``TypeAdapter`` built on first use,
including options left at ``None``: importing pydantic and building the adapters cost ~0.15 s of
CPU per command line (measured with ``python -X importtime`` and ``benchmarks/cli_startup.py``),
more than the work of ``dpexact schema list``. For the types this command line declares, most
values need no coercion at all:

* an absent value (``None``) is ``None``, or ``()`` for a repeated option — what typer returns;
* a ``str`` / ``int`` / ``float`` option whose value already has exactly that type is that value;
* a ``list[str]`` option whose values are strings is their list.

Every other case (a number typed as text, a path, a choice, a ranged number, a file) goes to
typer's own coercion, built only then, so values, conversions and error messages are typer's.
``tests/test_cli_startup.py`` compares the two on every option of the real command line.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["install", "LightParam"]

_LIST_STR = list[str]


class LightParam:
    """A stand-in for typer's runtime coercion of one parameter (``coerce(value, param, ctx)``)."""

    __slots__ = ("descriptor", "_build", "_full", "_plain")

    def __init__(self, descriptor: Any, build: Callable[[Any], Any]):
        self.descriptor = descriptor
        self._build = build
        self._full: Any = None
        self._plain: bool | None = None

    def full(self) -> Any:
        """typer's own coercion of this parameter (built on first use)."""
        if self._full is None:
            self._full = self._build(self.descriptor)
        return self._full

    def _is_plain(self) -> bool:
        if self._plain is None:
            d = self.descriptor
            self._plain = d.file_annotation is None and not (d.is_ranged or d.is_choice or d.is_path)
        return self._plain

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if (param.multiple or param.nargs == -1) else None
        if self._is_plain():
            ann = self.descriptor.annotation
            if (ann is str or ann is int or ann is float) and type(value) is ann:
                return value
            if ann == _LIST_STR and type(value) in (tuple, list) and all(type(v) is str for v in value):
                return list(value)
        return self.full().coerce(value, param, ctx)


_installed = False


def install() -> None:
    """Route typer's per-parameter coercion through :class:`LightParam` (once per process); a typer
    without runtime coercion (before 0.2x) is left as it is."""
    global _installed
    if _installed:
        return
    try:
        from typer import core
    except ImportError:  # pragma: no cover
        return
    original = core.__dict__.get("build_runtime_param")
    if original is None:  # an older typer: click converts the values, pydantic is never imported
        return
    core.build_runtime_param = lambda descriptor: LightParam(descriptor, original)
    _installed = True
