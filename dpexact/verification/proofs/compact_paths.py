"""A ``define_mechanism`` law run symbolically in compact coordinates: every branch, as closed forms.

The compact branch-and-bound (:mod:`.compact_bnb`) needs the law of a selection mechanism over the
*whole* score space ℝⁿ. Score space is covered by charts: in chart ``m`` the score ``q_m`` is a
largest one, and every input is written with log-variables

    q_m = L,   q_a = L + G_a  (G_a <= 0, a != m),   q'_a = q_a + Z_a  (Z in the neighbours' offset box).

The law (a pmf function in backend operations) is run once per chart on the exact backend with these
symbols as scores (:class:`SymbolicBackend`):

* ``ops.exp`` of an argument affine in the log-variables returns ``e^{c_0} Λ^{c_L} Π W_a^{c_a} Π Y_a^{c_z}``
  with the *algebraic* variables ``Λ = e^L``, ``W_a = e^{G_a} ∈ [0, 1]``, ``Y_a = e^{Z_a}``; every
  other use of a score outside a comparison (``ops.log`` of a score, a score left in a probability)
  raises :class:`Unsupported` (the route then proves nothing);
* a comparison (``compare``, ``eq``, ``max``, ``argmax``) is a sign of a difference ``d`` that is
  affine in the log-variables; one whose sign is not fixed by the chart is answered once with each
  outcome class and the law re-run (depth-first), so every point of the chart takes one of the
  enumerated paths. A path is a set of constraints ``sign(d) ∈ S``; the same ``d`` (or ``-d``) is
  always answered consistently along a path (no path with both ``a > b`` and ``b > a``; ``x = x``
  holds since ``d = 0`` is decided exactly).

Each path gives ``P_path(q)_r`` as a closed form in the algebraic variables (Gelfand–Shilov style
compactification: a gap going to -∞ is ``W_a = 0``, a face of a closed cube), and its constraints are
affine forms evaluated on boxes of the log-variables in extended-real interval arithmetic (mpmath
``iv``, where ``-∞`` is an end like any other), so a comparison with any constant (``top - x >= 1000``)
is decided on the boxes that lie on one side of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import gcd, lcm
from typing import Any

from ...numbers.backends import ExactBackend
from ...numbers.comparisons import EQUAL, GREATER, SIGN
from ...protocols import AnyMechanism
from .compact_fractions import lcm_of

__all__ = [
    "MAX_PATHS",
    "ChartLaw",
    "Path",
    "Unsupported",
    "exponent_lcd",
    "ext_interval",
    "free_of_l",
    "possible_signs",
    "run_chart",
    "run_permuted",
]

#: paths enumerated per chart and side before the route gives up (a law with too many branches)
MAX_PATHS = 512


class Unsupported(Exception):
    """The law uses a score where the compact coordinates cannot follow it (the route declines)."""


@dataclass(frozen=True)
class Path:
    """One branch of the law: its constraints ``(d, allowed signs)`` and the pmf as closed forms."""

    constraints: tuple[tuple[Any, frozenset[int]], ...]
    values: tuple[Any, ...]


@dataclass
class ChartLaw:
    """The law on chart ``m``: log-variables, algebraic variables and the paths of each side."""

    m: int
    logvars: dict[str, Any]
    algvars: dict[str, Any]
    paths_q: list[Path]
    paths_q2: list[Path]
    #: per log-variable name, the exponent unit g: the algebraic variable is e^{g·v} (every exponent an integer)
    scales: dict[str, Fraction] = field(default_factory=dict)
    #: the paths' probabilities as fractions of the compact generators, per half and path (filled by the search)
    fracs: dict = field(default_factory=dict)


class _Fork(Exception):
    def __init__(self, outcomes: tuple[int, ...]) -> None:
        super().__init__("fork")
        self.outcomes = outcomes


def ext_interval(lo: Any, hi: Any) -> Any:
    """An mpmath ``iv`` interval with extended-real ends (``None`` for an infinite end is not used:
    pass ``float('-inf')`` / ``float('inf')``), rounded outward from exact rationals."""
    from mpmath import iv

    def end(x: Any, up: bool) -> Any:
        if isinstance(x, float):
            return iv.mpf(x)
        from fractions import Fraction

        f = Fraction(x)
        v = iv.mpf(f.numerator) / iv.mpf(f.denominator)
        return v
    a, b = end(lo, False), end(hi, True)
    return iv.mpf([a.a, b.b])


@lru_cache(maxsize=4096)
def _coefficient_interval(c: Any) -> Any:
    """An exact sympy constant as an outward-rounded ``iv`` interval."""
    import math

    import sympy
    from mpmath import iv

    if c.is_Rational:
        return iv.mpf(int(c.p)) / iv.mpf(int(c.q))
    from ...numbers.real import sympy_to_arb

    b = sympy_to_arb(sympy.sympify(c, strict=True))
    lo, hi = float(b.lower()), float(b.upper())
    return iv.mpf([math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)])


def affine(d: Any, names: Sequence[Any]) -> tuple[Any, list[Any]] | None:
    """``(c0, [c_v])`` with ``d = c0 + Σ c_v v`` over ``names``, or None when ``d`` is not affine
    (cached: the same constraint is tested on every box of the branch-and-bound)."""
    return _affine(d, tuple(names))


@lru_cache(maxsize=4096)
def _affine(d: Any, names: tuple[Any, ...]) -> tuple[Any, list[Any]] | None:
    import sympy

    d = sympy.expand(d)
    coeffs = []
    rest = d
    for v in names:
        c = d.coeff(v)
        if c.free_symbols & set(names):
            return None
        coeffs.append(c)
        rest = rest - c * v
    rest = sympy.expand(rest)
    if rest.free_symbols & set(names):
        return None
    return rest, coeffs


def possible_signs(d: Any, names: Sequence[Any], boxes: dict[Any, Any]) -> set[int]:
    """The signs the affine ``d`` can take when each variable ranges over its ``iv`` interval in
    ``boxes`` (all three when ``d`` is not affine or an end is undetermined)."""
    aff = affine(d, names)
    if aff is None:
        return {-1, 0, 1}
    c0, cs = aff
    from mpmath import iv

    total = _coefficient_interval(c0)
    for c, v in zip(cs, names):
        if c == 0:
            continue
        x = boxes[v]
        ci = _coefficient_interval(c)
        total = total + ci * x
    lo, hi = total.a, total.b
    if lo != lo or hi != hi:  # nan: ∞ - ∞ on an end
        return {-1, 0, 1}
    out = set()
    if lo < 0:
        out.add(-1)
    if lo <= 0 <= hi:
        out.add(0)
    if hi > 0:
        out.add(1)
    del iv
    return out


class _Oracle:
    """Answers the comparisons of one symbolic run: decided ones exactly, open ones by the replayed
    prefix and, beyond it, by forking; every answer is recorded as a constraint of the path."""

    def __init__(self, prefix: tuple[int, ...], names: Sequence[Any], root: dict[Any, Any]) -> None:
        self.prefix, self.names, self.root = prefix, names, root
        self.trace: list[int] = []
        self.allowed: dict[Any, frozenset[int]] = {}

    def decide(self, d: Any, classes: tuple[tuple[int, ...], ...]) -> int:
        import sympy

        d = sympy.expand(d)
        if not d.free_symbols:
            from ...numbers.real import Real

            s = Real.of(d).sign() if not d.is_Rational else int(bool(d > 0)) - int(bool(d < 0))
            return int(s)
        # canonical key: the difference or its negative, so that a > b and b > a share one constraint
        key, flip = (d, 1) if sympy.default_sort_key(d) <= sympy.default_sort_key(-d) else (sympy.expand(-d), -1)
        allowed = self.allowed.get(key)
        if allowed is None:
            allowed = frozenset(possible_signs(key, self.names, self.root))
        signs = {flip * s for s in allowed}
        open_classes = [tuple(s for s in c if s in signs) for c in classes]
        open_classes = [c for c in open_classes if c]
        if not open_classes:
            raise Unsupported("inconsistent comparisons")  # cannot happen: the allowed set is never empty
        if len(open_classes) == 1:
            pick = open_classes[0]
        else:
            k = len(self.trace)
            if k >= len(self.prefix):
                raise _Fork(tuple(range(len(open_classes))))
            pick = open_classes[self.prefix[k]]
            self.trace.append(self.prefix[k])
        self.allowed[key] = frozenset(flip * s for s in pick)
        return pick[0]


class SymbolicBackend(ExactBackend):
    """The exact backend with symbolic scores (module docstring): ``exp`` maps affine arguments to
    monomials of the algebraic variables, comparisons go to the path oracle."""

    def __init__(self, oracle: _Oracle, logvars: dict[str, Any], algvars: dict[str, Any],
                 coefficients: dict[Any, set[Fraction]]) -> None:
        self.oracle = oracle
        self.coefficients = coefficients  # every score coefficient met in an exponent, per log-variable
        self.logvars = logvars
        self.alg = {logvars[k]: algvars[k] for k in logvars}
        self.names = list(logvars.values())

    def _free(self, x: Any) -> bool:
        import sympy

        e = sympy.sympify(x)
        return isinstance(e, sympy.Basic) and bool(e.free_symbols & set(self.names))

    def exp(self, x: Any) -> Any:
        import sympy

        x = sympy.sympify(x)
        if not self._free(x):
            return sympy.exp(x)
        aff = affine(x, self.names)
        if aff is None:
            raise Unsupported(f"exp of {x}: not affine in the scores")
        c0, cs = aff
        out = sympy.exp(c0)
        for c, v in zip(cs, self.names):
            if c != 0:
                if not c.is_Rational:
                    raise Unsupported(f"exp of {x}: a score's coefficient {c} is not rational")
                self.coefficients.setdefault(v, set()).add(Fraction(int(c.p), int(c.q)))
                out = out * self.alg[v] ** c
        return out

    def expm1(self, x: Any) -> Any:
        return self.exp(x) - 1

    def log(self, x: Any) -> Any:
        if self._free(x):
            raise Unsupported("log of a score expression")
        return super().log(x)

    def log1p(self, x: Any) -> Any:
        if self._free(x):
            raise Unsupported("log1p of a score expression")
        return super().log1p(x)

    def compare(self, a: Any, b: Any) -> int:
        return self.oracle.decide(_sym(a) - _sym(b), SIGN)

    def eq(self, a: Any, b: Any) -> bool:
        return self.oracle.decide(_sym(a) - _sym(b), EQUAL) == 0

    def max(self, xs: Any) -> Any:
        items = list(xs)
        if not items:
            raise ValueError("max: empty sequence")
        top = items[0]
        for v in items[1:]:
            if self.oracle.decide(_sym(v) - _sym(top), GREATER) > 0:
                top = v
        return top

    def argmax(self, xs: Any) -> tuple[int, ...]:
        items = list(xs)
        top = self.max(items)
        return tuple(i for i, v in enumerate(items) if v is top or self.eq(v, top))


def _sym(x: Any) -> Any:
    import sympy

    if type(x).__name__ == "fmpq":
        return sympy.Rational(int(x.p), int(x.q))
    return sympy.sympify(x)


def _run_side(mechanism: AnyMechanism, inputs: list[Any], names: list[Any], root: dict[Any, Any], logvars: dict[str, Any],
              algvars: dict[str, Any], coefficients: dict[Any, set[Fraction]], deadline: float | None) -> list[Path]:
    """Every path of the law on these symbolic inputs (depth-first over the open comparisons)."""
    import sympy

    from ...mechanisms.defined import BackendOperations
    from .compact_budget import check_deadline

    todo: list[tuple[int, ...]] = [()]
    out: list[Path] = []
    while todo:
        check_deadline(deadline)
        prefix = todo.pop()
        oracle = _Oracle(prefix, names, root)
        be = SymbolicBackend(oracle, logvars, algvars, coefficients)
        try:
            vals = mechanism.pmf_function(list(inputs), mechanism._namespace(lambda v: v.to_sympy()), BackendOperations(be))
            vals = [_sym(v) for v in vals]
        except _Fork as f:
            todo.extend(tuple(oracle.trace) + (o,) for o in f.outcomes)
            if len(out) + len(todo) > MAX_PATHS:
                raise Unsupported(f"more than {MAX_PATHS} branch paths")
            continue
        except Unsupported:
            raise
        except Exception as exc:  # noqa: BLE001 - the law raised on a path: the route proves nothing
            raise Unsupported(f"the pmf raised {type(exc).__name__} on a symbolic path: {exc}") from exc
        if len(vals) != len(inputs):
            raise Unsupported("the pmf returned the wrong number of probabilities")
        for v in vals:
            if v.free_symbols & set(names):
                raise Unsupported("a score appears in a probability outside an exponential")
        out.append(Path(tuple(oracle.allowed.items()), tuple(sympy.sympify(v) for v in vals)))
    return out


def _unit(values: set[Fraction]) -> Fraction:
    """The largest g > 0 with every value an integer multiple of g (the rationals' gcd)."""
    nums = [abs(v) for v in values if v != 0]
    if not nums:
        return Fraction(1)
    den = lcm(*[v.denominator for v in nums])
    return Fraction(gcd(*[int(v * den) for v in nums]), den)


#: the last symbolic runs: (id(mechanism), n, m, offsets) -> (mechanism, chart or the Unsupported it raised)
_RUNS: dict = {}


def run_chart(mechanism: AnyMechanism, n: int, m: int, z_root: Sequence[tuple[Any, Any]],
              deadline: float | None = None) -> ChartLaw:
    """The law of ``mechanism`` (a ``define_mechanism`` pmf) on chart ``m`` (module docstring), its
    paths pruned by what the chart allows (``G_a <= 0``, ``Z`` in ``z_root``); each algebraic variable
    is ``e^{g·v}`` with ``g`` the unit of the score coefficients met in exponents (:attr:`ChartLaw.scales`).

    The run is deterministic, so it is kept for the claim's other readers (the compact unit, then the
    lower end's branch-boundary starts read the same paths): a repeat returns the same paths with an
    empty :attr:`ChartLaw.fracs` (each reader fills its own), or raises the same :class:`Unsupported`."""
    key = (id(mechanism), n, m, tuple((Fraction(a), Fraction(b)) for a, b in z_root))
    hit = _RUNS.get(key)
    if hit is not None and hit[0] is mechanism:
        if isinstance(hit[1], Unsupported):
            raise Unsupported(str(hit[1]))
        c = hit[1]
        return ChartLaw(c.m, c.logvars, c.algvars, c.paths_q, c.paths_q2, c.scales)
    try:
        chart = _run_chart(mechanism, n, m, z_root, deadline)
    except Unsupported as exc:
        chart = exc
    if len(_RUNS) > 64:
        _RUNS.clear()
    _RUNS[key] = (mechanism, chart)
    if isinstance(chart, Unsupported):
        raise chart
    return ChartLaw(chart.m, chart.logvars, chart.algvars, chart.paths_q, chart.paths_q2, chart.scales)


def _chart_variables(n: int, m: int, z_root: Sequence[tuple[Any, Any]]) -> tuple[dict, dict, dict, list, list]:
    """``(logvars, algvars, root intervals, names, q)`` of chart ``m`` (module docstring)."""
    import sympy

    logvars: dict[str, Any] = {"L": sympy.Symbol("L", real=True)}
    algvars: dict[str, Any] = {"L": sympy.Symbol("Lam", positive=True)}
    for a in range(n):
        if a != m:
            logvars[f"G{a}"] = sympy.Symbol(f"G{a}", real=True)
            algvars[f"G{a}"] = sympy.Symbol(f"W{a}", nonnegative=True)
    for a in range(n):
        logvars[f"Z{a}"] = sympy.Symbol(f"Z{a}", real=True)
        algvars[f"Z{a}"] = sympy.Symbol(f"Y{a}", positive=True)
    inf = float("inf")
    root = {logvars["L"]: ext_interval(-inf, inf)}
    for a in range(n):
        if a != m:
            root[logvars[f"G{a}"]] = ext_interval(-inf, 0)
        root[logvars[f"Z{a}"]] = ext_interval(*z_root[a])
    q = [logvars["L"] + (logvars[f"G{a}"] if a != m else 0) for a in range(n)]
    return logvars, algvars, root, list(logvars.values()), q


def _run_chart(mechanism: AnyMechanism, n: int, m: int, z_root: Sequence[tuple[Any, Any]],
               deadline: float | None) -> ChartLaw:
    logvars, algvars, root, names, q = _chart_variables(n, m, z_root)
    q2 = [q[a] + logvars[f"Z{a}"] for a in range(n)]
    coefficients: dict[Any, set[Fraction]] = {}
    paths_q = _run_side(mechanism, q, names, root, logvars, algvars, coefficients, deadline)
    paths_q2 = _run_side(mechanism, q2, names, root, logvars, algvars, coefficients, deadline)
    units = {v: _unit(cs) for v, cs in coefficients.items()}
    scales = {k: units.get(logvars[k], Fraction(1)) for k in logvars}
    return ChartLaw(m, logvars, algvars, paths_q, paths_q2, scales)


def run_permuted(mechanism: AnyMechanism, n: int, m: int, perm: Sequence[int],
                 deadline: float | None = None, coefficients: dict | None = None) -> tuple[list[Path], dict, dict]:
    """The law's paths on chart ``m`` at the permuted input ``(q_{perm[0]}, ..., q_{perm[n-1]})`` (no
    neighbour), with the chart's ``(logvars, algvars)``: the symbolic run :mod:`.compact_symmetry`
    compares with the identity's. ``coefficients``, when given, collects every score coefficient met in an
    exponent, per log-variable (what :mod:`.law_identity` reads the exponent scale from)."""
    logvars, algvars, root, names, q = _chart_variables(n, m, [(0, 0)] * n)
    paths = _run_side(mechanism, [q[perm[i]] for i in range(n)], names, root, logvars, algvars,
                      {} if coefficients is None else coefficients, deadline)
    return paths, logvars, algvars


def free_of_l(chart: ChartLaw) -> bool:
    """Whether no path of the chart (either side) involves ``L``: its values are free of ``Λ`` and
    its constraints of ``L``."""
    import sympy

    lam, ell = chart.algvars["L"], chart.logvars["L"]
    for paths in (chart.paths_q, chart.paths_q2):
        for p in paths:
            if any(lam in sympy.sympify(v, strict=True).free_symbols for v in p.values):
                return False
            if any(ell in sympy.sympify(d, strict=True).free_symbols for d, _ in p.constraints):
                return False
    return True


def exponent_lcd(charts: list[ChartLaw], eps: Any, deltas: list[Fraction]) -> int:
    """The least common denominator of every constant exponent the law uses (``e^{p/q}``, ``E``), of ε,
    and of the offsets' exponents ``g·Δ``: so that each is an integer power of ``T = e^{1/lcd}``."""
    import sympy

    dens = [int(sympy.Rational(eps).q)] if isinstance(eps, sympy.Rational) else []
    for chart in charts:
        for paths in (chart.paths_q, chart.paths_q2):
            for p in paths:
                for v in p.values:
                    for e in sympy.sympify(v, strict=True).atoms(sympy.exp):
                        if e.args[0].is_Rational:
                            dens.append(int(e.args[0].q))
        for name, g in chart.scales.items():
            if name.startswith("Z"):
                dens += [(g * x).denominator for x in deltas]
    return lcm_of(dens)
