"""Mechanisms defined outside the package: ``PATH.py:OBJECT`` and ``module:OBJECT``.

Wherever a mechanism is named (``dpexact pmf -m``, ``verify -m``, ``optimal --mechanisms``,
``conform``, a sweep spec, :func:`dpexact.mechanism`), a name containing ``:`` is loaded from
outside the registry:

* ``/some/dir/my_mech.py:MyMechanism`` — the file is imported by path
  (:func:`importlib.util.spec_from_file_location`), once per absolute path;
* ``my_package.my_module:MyMechanism`` — an importable module.

Loading a module imports it, and importing runs its top-level code: name only files and modules
you trust. Beyond that import, dpexact calls nothing that is not declared a mechanism.
``OBJECT`` must be one of

* a mechanism instance (e.g. a :func:`dpexact.define_mechanism` result) — then only the
  parameters it already has may be given (a dataclass is rebuilt with them);
* a class that satisfies the protocol *as a class*, checked before it is instantiated
  (:func:`class_problem`: every member of :class:`dpexact.protocols.Mechanism` or
  :class:`~dpexact.protocols.ContinuousMechanism` defined on the class or annotated as a
  field, the methods callable, ``output_kind`` a known kind if it is a constant) — called with
  the command's parameters (``epsilon``, ``sensitivity``, ``--param name=value``);
* a function marked with :func:`mechanism_factory` (``@dpexact.mechanism_factory``), called
  with the same parameters.

Anything else (``os:system``, ``shutil:rmtree``, an unmarked function, a class that is not a
mechanism) is refused in one line *before it is called*. What is built must satisfy
:class:`dpexact.protocols.Mechanism` (finite outputs) or
:class:`dpexact.protocols.ContinuousMechanism` (the other output kinds).

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
import inspect
import re
import sys
from pathlib import Path
from typing import Any

from ..protocols import FINITE_KINDS, KIND_METHODS, Backend, check_mechanism
from .base import MechanismCrash

__all__ = ["is_external", "load_object", "load_mechanism", "GuardedMechanism", "MechanismFactory",
           "mechanism_factory", "class_problem"]

#: the law methods of the other output kinds, guarded like pmf / logpmf / rvs
_GUARDED = frozenset({"box_probability", "part_box_probability", "interval_probability", "pdf", "logpdf", "outputs", "rvs_values", "components"})
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
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"mechanism {spec!r}: {where} has no object {obj!r}") from None
    return target


class MechanismFactory:
    """A function declared to build a mechanism (made by :func:`mechanism_factory`).

    Calling it calls the function; the loader calls a ``module:OBJECT`` that is a function only
    when it is wrapped so, because an arbitrary callable (``os.system``) must never be called
    with the user's parameters.
    """

    def __init__(self, function: Any) -> None:
        if not callable(function):
            raise TypeError(f"mechanism_factory expects a function, got {type(function).__name__}")
        self.function = function
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"mechanism_factory({self.function!r})"


def mechanism_factory(function: Any) -> MechanismFactory:
    """Decorator: mark ``function`` as a mechanism factory, so that ``PATH.py:NAME`` /
    ``module:NAME`` may call it with the command's parameters::

        @dpexact.mechanism_factory
        def my_em(epsilon, sensitivity=1):
            return dpexact.define_mechanism("my-em", pmf, epsilon=epsilon)

    Args:
        function: a function returning a mechanism from keyword parameters.

    Returns:
        The function, marked (callable as before).
    """
    return MechanismFactory(function)


#: members every mechanism class has (Mechanism and ContinuousMechanism share them)
_COMMON_ATTRIBUTES = ("short_name", "epsilon", "sensitivity", "size", "properties", "output_kind")
_COMMON_METHODS = ("rvs", "params", "neighbourhood")
#: the methods of the finite kinds (Mechanism); the other kinds' are KIND_METHODS
_FINITE_METHODS = ("pmf", "logpmf", "outputs")


def _static_names(cls: type) -> set[str]:
    """Names a class defines or annotates (dataclass fields without default), read without calling anything."""
    names: set[str] = set()
    for klass in inspect.getmro(cls):
        own = klass.__dict__
        names.update(own)
        annotations = own.get("__annotations__", {})
        if isinstance(annotations, dict):
            names.update(annotations)
    return names


def _static_callable(cls: type, name: str) -> bool:
    try:
        member = inspect.getattr_static(cls, name)
    except AttributeError:
        return False
    return isinstance(member, (staticmethod, classmethod)) or inspect.isroutine(member) or callable(member)


def class_problem(cls: type) -> str | None:
    """Why ``cls`` does not satisfy the mechanism protocol *as a class* (``None``: it does).

    Read statically (:func:`inspect.getattr_static`, the MRO's ``__dict__`` and annotations): no
    code of the class runs, so a class that is not a mechanism is refused before it is
    instantiated.
    """
    names = _static_names(cls)
    missing = [a for a in _COMMON_ATTRIBUTES if a not in names]
    missing += [m for m in _COMMON_METHODS if not _static_callable(cls, m)]
    try:
        kind = inspect.getattr_static(cls, "output_kind")
    except AttributeError:
        kind = None
    if isinstance(kind, str):
        if kind not in FINITE_KINDS and kind not in KIND_METHODS:
            return f"has an unknown output_kind {kind!r} (one of {', '.join(FINITE_KINDS + tuple(KIND_METHODS))})"
        law = _FINITE_METHODS if kind in FINITE_KINDS else KIND_METHODS[kind]
        missing += [m for m in law if not _static_callable(cls, m)]
    else:  # a property: any kind's law will do, the instance is checked after it is built
        laws = [_FINITE_METHODS, *KIND_METHODS.values()]
        if not any(all(_static_callable(cls, m) for m in law) for law in laws):
            missing.append("the law methods of an output kind (pmf, logpmf, outputs; or those of dpexact.protocols.KIND_METHODS)")
    if missing:
        return f"does not satisfy the dpexact Mechanism protocol (missing: {', '.join(missing)}); see dpexact.protocols"
    return None


def _instance_problem(obj: Any) -> str | None:
    """:func:`class_problem` for an instance: its class plus its own ``__dict__``, read statically."""
    problem = class_problem(type(obj))
    if problem is None:
        return None
    try:
        own = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return problem
    names = _static_names(type(obj)) | set(own)
    if all(a in names for a in _COMMON_ATTRIBUTES + _COMMON_METHODS):
        return None  # members set on the instance: check_mechanism decides
    return problem


def _kind_of(target: Any) -> str:
    if inspect.isbuiltin(target):
        return f"the built-in {getattr(target, '__qualname__', type(target).__name__)}"
    if inspect.isroutine(target):
        return f"the function {getattr(target, '__qualname__', '?')}"
    return f"a {type(target).__name__} object"


def load_mechanism(spec: str, /, **params: Any) -> "GuardedMechanism":
    """Build the mechanism named by ``spec`` with ``params`` (see the module docstring).

    Nothing is called before it is known to be a mechanism class, a marked factory or a
    mechanism instance: anything else raises a one-line ``TypeError`` naming ``spec``.
    """
    target = load_object(spec)
    if isinstance(target, MechanismFactory):
        mech = _build(spec, target, params)
    elif isinstance(target, type):
        problem = class_problem(target)
        if problem is not None:
            raise TypeError(f"mechanism {spec!r}: class {target.__name__} {problem}; not instantiated")
        mech = _build(spec, target, params)
    else:
        problem = _instance_problem(target)
        if problem is not None:
            callable_hint = ("; a function that builds a mechanism must be marked @dpexact.mechanism_factory"
                             if callable(target) else "")
            raise TypeError(f"mechanism {spec!r}: {_kind_of(target)} is not a mechanism, a mechanism class or a "
                            f"marked factory{callable_hint}; refused without calling it")
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


def _build(spec: str, constructor: Any, params: dict[str, Any]) -> Any:
    try:
        return constructor(**params)
    except Exception as exc:  # the constructor is user code
        raise ValueError(f"mechanism {spec!r}: {type(exc).__name__}: {exc}") from exc


class GuardedMechanism:
    """A loaded mechanism whose unexpected exceptions become one-line ``ValueError``s.

    Every attribute is the wrapped mechanism's; ``inner`` is the mechanism itself.
    """

    def __init__(self, inner: object, spec: str) -> None:
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

    def pmf(self, scores: Any, backend: str | Backend = "float", method: str | None = None) -> Any:
        return self._call("pmf", scores, backend, method)

    def logpmf(self, scores: Any) -> Any:
        return self._call("logpmf", scores)

    def rvs(self, scores: Any, size: Any = None, random_state: Any = None) -> Any:
        return self._call("rvs", scores, size=size, random_state=random_state)
