"""Sweep specifications: a TOML file naming a task kind and its grid, expanded into points.

A spec is a flat TOML table. ``task`` names the kind; every other key is either an **axis**
(a scalar or a list of values; the grid is the Cartesian product of the axes, in the order of
:data:`KINDS`) or a **setting** shared by every point. The smallest spec::

    task = "optimal"
    mechanisms = ["pf", "em"]
    n = [3, 4]
    k = [4]
    epsilon = ["1/2", "1"]

Numbers that reach a mechanism stay exact: the TOML text of a float (``epsilon = [0.1]``) is
kept as the string ``"0.1"`` (= 1/10), never rounded to a binary float. ``epsilon`` also
accepts ``{ linspace = ["1/10", "2", 20] }`` (20 equally spaced exact rationals, ends included).

Each point's inputs (axes and settings) are hashed together with the task kind and the
dpexact version into its store key (:func:`point_key`), so a result is reused only for the
same computation by the same code release.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

__all__ = ["KINDS", "MAX_POINTS", "MAX_SPEC_BYTES", "MAX_SPEC_DEPTH", "Point", "SweepSpec", "load_spec", "parse_spec", "point_key"]

#: no sweep may expand to more points than this (bounding the cost before spending it)
MAX_POINTS = 100_000
#: largest spec file read (a spec is a few lines; /dev/zero or a huge file is refused after this many bytes)
MAX_SPEC_BYTES = 1 << 20
#: deepest nesting of tables and arrays in a spec (the grammar needs 3: scores = [[1, 2]], params = { a = [..] })
MAX_SPEC_DEPTH = 8


def _int(name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name}: expected an integer, got {v!r}")
    if v < 1:
        raise ValueError(f"{name}: expected a positive integer, got {v}")
    return v


def _num(name: str, v: Any) -> str:
    """An exact number as text, read by the number grammar now (a bad value fails before any work).

    Rationals get one canonical spelling (``"0.1"``, ``"1/10"`` and ``"2/20"`` are all ``"1/10"``),
    so equal values give equal point keys; irrational values keep their (stripped) spelling.
    """
    from ..numbers.parse import parse_real

    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"{name}: expected a number or a string such as \"1/2\", got {v!r}")
    s = str(v).strip()
    if not s:
        raise ValueError(f"{name}: empty value")
    try:
        x = parse_real(s, name)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc).splitlines()[0]) from None
    return str(x) if isinstance(x, Fraction) else s


def _str(name: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise TypeError(f"{name}: expected a non-empty string, got {v!r}")
    return v.strip()


def _bool(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{name}: expected true or false, got {v!r}")
    return v


def _seconds(name: str, v: Any) -> float:
    try:
        f = float(v) if not isinstance(v, bool) else float("nan")
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a number of seconds, got {v!r}") from None
    if not f > 0 or f == float("inf"):
        raise ValueError(f"{name}: expected a positive number of seconds, got {v!r}")
    return f


def _str_list(name: str, v: Any) -> list[str]:
    if isinstance(v, str):
        v = [s for s in v.split(",")]
    if not isinstance(v, list) or not v:
        raise TypeError(f"{name}: expected a non-empty list of strings, got {v!r}")
    return [_str(name, x) for x in v]


def _num_list(name: str, v: Any) -> list[str]:
    if isinstance(v, str):
        v = v.split(",")
    if not isinstance(v, list) or not v:
        raise TypeError(f"{name}: expected a non-empty list of numbers, got {v!r}")
    return [_num(name, x) for x in v]


def _params(name: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise TypeError(f"{name}: expected a table of mechanism parameters, got {v!r}")
    out: dict[str, Any] = {}
    for key, val in v.items():
        if isinstance(val, bool):
            out[key.replace("-", "_")] = val
        elif isinstance(val, list):
            out[key.replace("-", "_")] = [_num(f"{name}.{key}", x) for x in val]
        else:
            out[key.replace("-", "_")] = _num(f"{name}.{key}", val)
    return out


@dataclass(frozen=True)
class Field:
    """One spec key: its grid/result name, validator, whether it is an axis, and its default."""

    grid_name: str
    check: Callable[[str, Any], Any]
    axis: bool
    required: bool = False
    default: Any = None


#: task kind -> spec key -> Field (axis order = product order)
KINDS: dict[str, dict[str, Field]] = {
    "optimal": {
        "n": Field("n", _int, True, required=True),
        "k": Field("k", _int, True, required=True),
        "epsilon": Field("epsilon", _num, True, required=True),
        "sensitivity": Field("sensitivity", _num, True, default="1"),
        "mechanisms": Field("mechanisms", _str_list, False, default=["pf", "em"]),
        "boundary": Field("boundary", _str, False, default="clip"),
        "method": Field("method", _str, False, default="auto"),
        # unset: as `dpexact optimal` (the interior point with its proven interval, a vertex only for `certify`)
        "crossover": Field("crossover", _bool, False),
        "certify": Field("certify", _bool, False, default=False),
        "time_limit": Field("time_limit", _seconds, False),
        "max_seconds": Field("max_seconds", _seconds, False),
        "threads": Field("threads", _int, False),
    },
    "verify": {
        "mechanisms": Field("mechanism", _str, True, required=True),
        "epsilon": Field("epsilon", _num, True, required=True),
        "n": Field("n", _int, True),
        "sensitivity": Field("sensitivity", _num, True, default="1"),
        "monotone": Field("monotone", _bool, False, default=False),
        "neighbourhood": Field("neighbourhood", _str, False, default="default"),
        "search": Field("search", _str_list, False, default=["grid", "structured", "local"]),
        "values": Field("values", _num_list, False),
        "steps": Field("steps", _int, False, default=1),
        "params": Field("params", _params, False, default={}),
        "delta": Field("delta", _num, True),  # (ε, δ)-DP: an axis, so a grid traces a privacy profile
        "relation": Field("relation", _str, False),
    },
    "pmf": {
        "mechanisms": Field("mechanism", _str, True, required=True),
        "epsilon": Field("epsilon", _num, True, required=True),
        "scores": Field("scores", _num_list, True, required=True),
        "backend": Field("backend", _str, True, default="float"),
        "sensitivity": Field("sensitivity", _num, True, default="1"),
        "monotone": Field("monotone", _bool, False, default=False),
        "method": Field("method", _str, False),
        "params": Field("params", _params, False, default={}),
    },
    "check": {
        "claims": Field("claim", _str, True),
        "papers": Field("papers", _str_list, False),
        "quick": Field("quick", _bool, False, default=False),
    },
}


@dataclass(frozen=True)
class Point:
    """One grid point: its axis values (``grid``) and all inputs of its task (``inputs``)."""

    task: str
    grid: dict[str, Any]
    inputs: dict[str, Any]
    key: str


@dataclass(frozen=True)
class SweepSpec:
    """A validated spec: task kind, axes (grid name -> values) and settings."""

    task: str
    axes: dict[str, list[Any]]
    settings: dict[str, Any]

    def points(self, version: str) -> list[Point]:
        """The grid in product order; each point keyed by :func:`point_key`."""
        names = list(self.axes)
        out = []
        for combo in itertools.product(*(self.axes[a] for a in names)):
            grid = dict(zip(names, combo))
            inputs = {**grid, **self.settings}
            out.append(Point(self.task, grid, inputs, point_key(self.task, inputs, version)))
        return out


def point_key(task: str, inputs: dict[str, Any], version: str) -> str:
    """sha256 (first 32 hex digits) of the canonical JSON of (task, inputs, dpexact version)."""
    text = json.dumps({"task": task, "inputs": inputs, "dpexact_version": version}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _linspace(name: str, v: dict[str, Any]) -> list[str]:
    if set(v) != {"linspace"} or not isinstance(v["linspace"], list) or len(v["linspace"]) != 3:
        raise ValueError(f"{name}: a table must be {{ linspace = [start, stop, count] }}, got {v!r}")
    a, b, m = v["linspace"]
    try:
        lo, hi = Fraction(_num(name, a)), Fraction(_num(name, b))
    except ValueError:
        raise ValueError(f"{name}: linspace ends must be rationals such as \"1/10\" or \"2\", got {a!r}, {b!r}") from None
    count = _int(f"{name} linspace count", int(m) if isinstance(m, str) and m.isdigit() else m)
    if count > MAX_POINTS or (count < 2 and lo != hi):
        raise ValueError(f"{name}: linspace count must be in 2..{MAX_POINTS}, got {count}")
    if count == 1:
        return [str(lo)]
    return [str(lo + (hi - lo) * i / (count - 1)) for i in range(count)]


def parse_spec(data: dict[str, Any]) -> SweepSpec:
    """Validate a parsed TOML table (one-line ``ValueError``/``TypeError`` naming the key)."""
    if not isinstance(data, dict):
        raise TypeError(f"spec: expected a table, got {type(data).__name__}")
    task = data.get("task")
    if task not in KINDS:
        raise ValueError(f"task: must be one of {sorted(KINDS)}, got {task!r}")
    fields = KINDS[task]
    unknown = sorted(set(data) - set(fields) - {"task"})
    if unknown:
        raise ValueError(f"spec: unknown key(s) {unknown} for task {task!r}; allowed: {sorted(fields)}")
    axes: dict[str, list[Any]] = {}
    settings: dict[str, Any] = {}
    for key, f in fields.items():
        if key not in data:
            if f.required:
                raise ValueError(f"{key}: required for task {task!r}")
            if f.axis:
                if f.default is not None:
                    axes[f.grid_name] = [f.default]
            elif f.default is not None:
                settings[f.grid_name] = f.default
            continue
        v = data[key]
        if f.axis:
            if key == "epsilon" and isinstance(v, dict):
                values = _linspace(key, v)
            else:
                if key == "scores":  # a list of vectors (lists or "3,2,0"), or one vector of numbers
                    one = isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
                    items = [v] if one or isinstance(v, str) else v
                else:
                    items = v if isinstance(v, list) else [v]
                if not items:
                    raise ValueError(f"{key}: empty list")
                values = [f.check(key, x) for x in items]
            if len({json.dumps(x) for x in values}) != len(values):
                raise ValueError(f"{key}: repeated values in {values}")
            axes[f.grid_name] = values
        else:
            settings[f.grid_name] = f.check(key, v)
    if task == "check" and "claim" not in axes:
        axes["claim"] = ["*"]
    size = 1
    for values in axes.values():
        size *= len(values)
    if size > MAX_POINTS:
        raise ValueError(f"spec: the grid has {size} points, more than the limit {MAX_POINTS}")
    return SweepSpec(task, axes, settings)


def load_spec(path: "str | Path") -> SweepSpec:
    """Read and validate a TOML spec file (float literals kept as their exact text).

    At most :data:`MAX_SPEC_BYTES` + 1 bytes are read, so a device or a huge file is refused
    without reading it all; nesting deeper than :data:`MAX_SPEC_DEPTH` is refused before
    validation.
    """
    from ..io import read_bounded_text

    p = Path(path)
    try:
        text = read_bounded_text(p, MAX_SPEC_BYTES, "spec")
    except OSError as exc:
        raise ValueError(f"spec: cannot read {p} ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"spec: {p} is not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ValueError(f"spec: {p} nests arrays or tables too deeply (at most {MAX_SPEC_DEPTH} levels)") from None
    _check_depth(data, str(p))
    return parse_spec(data)


def _check_depth(data: Any, where: str) -> None:
    """Refuse nesting deeper than :data:`MAX_SPEC_DEPTH` (iteratively: no recursion on user data)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_SPEC_DEPTH:
            raise ValueError(f"spec: {where} nests arrays or tables deeper than {MAX_SPEC_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
