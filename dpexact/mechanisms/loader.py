"""Mechanisms defined outside the package: ``PATH.py:OBJECT`` and ``module:OBJECT``.

Wherever a mechanism is named (``dpexact pmf -m``, ``verify -m``, ``optimal --mechanisms``,
``conform``), a name containing ``:`` is loaded from outside the registry:

* ``/some/dir/my_mech.py:MyMechanism`` — the file is imported by path
  (:func:`importlib.util.spec_from_file_location`), once per absolute path;
* ``my_package.my_module:MyMechanism`` — an importable module.

``OBJECT`` is a class or a factory function, called with the command's parameters
(``epsilon``, ``sensitivity``, ``--param name=value``), or a ready mechanism instance (then
only the parameters it already has may be given). The result must satisfy
:class:`dpexact.protocols.Mechanism` (finite outputs) or
:class:`dpexact.protocols.ContinuousMechanism` (the other output kinds). Loading user code runs it: name only files you trust.

Every failure is one line naming the spec: file missing, import failing, object missing,
object not a mechanism, constructor error. The loaded mechanism is wrapped in
:class:`GuardedMechanism`, which turns an unexpected exception inside its ``pmf`` / ``logpmf``
/ ``rvs`` (and the law methods of the other output kinds: ``box_probability``, ``pdf``, …) into
a ``ValueError`` naming the mechanism (``ValueError`` / ``TypeError`` pass
through unchanged, as they already name the bad argument).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from ..protocols import check_mechanism
from .base import MechanismCrash

__all__ = ["is_external", "load_object", "load_mechanism", "GuardedMechanism"]

#: the law methods of the other output kinds, guarded like pmf / logpmf / rvs
_GUARDED = frozenset({"box_probability", "interval_probability", "pdf", "logpdf", "outputs", "rvs_values", "components"})
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def is_external(spec: str) -> bool:
    """Whether ``spec`` names a mechanism outside the registry (``…:OBJECT``)."""
    return isinstance(spec, str) and ":" in spec


def _split(spec: str) -> tuple[str, str]:
    where, _, obj = spec.strip().rpartition(":")
    if not where or not obj:
        raise ValueError(f"mechanism {spec!r}: expected PATH.py:OBJECT or module:OBJECT")
    if not _IDENT.match(obj):
        raise ValueError(f"mechanism {spec!r}: {obj!r} is not a Python name")
    return where, obj


def _import_file(spec: str, path_text: str) -> Any:
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise ValueError(f"mechanism {spec!r}: file {path_text} does not exist")
    path = path.resolve()
    key = "dpexact_user_" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
    if key in sys.modules:
        return sys.modules[key]
    module_spec = importlib.util.spec_from_file_location(key, path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"mechanism {spec!r}: {path_text} cannot be imported as a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[key] = module  # dataclasses and pickling look their module up here
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # user code: report any failure in one line
        del sys.modules[key]
        raise ValueError(f"mechanism {spec!r}: importing {path_text} failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_object(spec: str) -> Any:
    """The object named by ``PATH.py:OBJECT`` or ``module:OBJECT`` (dotted attribute paths allowed)."""
    if not isinstance(spec, str):
        raise TypeError(f"mechanism must be a string, got {type(spec).__name__}")
    where, obj = _split(spec)
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _import_file(spec, where)
    else:
        if not _MODULE.match(where):
            raise ValueError(f"mechanism {spec!r}: {where!r} is neither a .py file nor a module name")
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            raise ValueError(f"mechanism {spec!r}: no module named {exc.name!r}") from exc
        except Exception as exc:
            raise ValueError(f"mechanism {spec!r}: importing {where} failed: {type(exc).__name__}: {exc}") from exc
    target: Any = module
    for part in obj.split("."):
        if not hasattr(target, part):
            raise ValueError(f"mechanism {spec!r}: {where} has no object {obj!r}")
        target = getattr(target, part)
    return target


def load_mechanism(spec: str, **params: Any) -> "GuardedMechanism":
    """Build the mechanism named by ``spec`` with ``params`` (see the module docstring)."""
    target = load_object(spec)
    if callable(target) and not _looks_like_instance(target):
        try:
            mech = target(**params)
        except Exception as exc:  # the constructor is user code
            raise ValueError(f"mechanism {spec!r}: {type(exc).__name__}: {exc}") from exc
    else:
        mech = target
        if params:
            if not dataclasses.is_dataclass(mech):
                raise TypeError(f"mechanism {spec!r}: is an instance; name its class or a factory to pass parameters")
            try:
                mech = dataclasses.replace(mech, **params)
            except Exception as exc:
                raise ValueError(f"mechanism {spec!r}: {type(exc).__name__}: {exc}") from exc
    check_mechanism(mech, f"mechanism {spec!r}", continuous=True)  # every output kind of the protocol
    return GuardedMechanism(mech, spec)


def _looks_like_instance(obj: Any) -> bool:
    return not isinstance(obj, type) and hasattr(obj, "pmf") and hasattr(obj, "params")


class GuardedMechanism:
    """A loaded mechanism whose unexpected exceptions become one-line ``ValueError``s.

    Every attribute is the wrapped mechanism's; ``inner`` is the mechanism itself.
    """

    def __init__(self, inner: Any, spec: str) -> None:
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "spec", spec)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name in _GUARDED and callable(value):
            return functools.partial(self._call, name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a loaded mechanism is read-only")

    def __repr__(self) -> str:
        return repr(self.inner)

    def _call(self, what: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self.inner, what)(*args, **kwargs)
        except (ValueError, TypeError):
            raise
        except Exception as exc:
            raise MechanismCrash(f"mechanism {self.spec!r}: {what} raised {type(exc).__name__}: {exc}") from exc

    def pmf(self, scores: Any, backend: Any = "float", method: str | None = None) -> Any:
        return self._call("pmf", scores, backend, method)

    def logpmf(self, scores: Any) -> Any:
        return self._call("logpmf", scores)

    def rvs(self, scores: Any, size: Any = None, random_state: Any = None) -> Any:
        return self._call("rvs", scores, size=size, random_state=random_state)
