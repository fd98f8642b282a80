"""API fuzzing oracle: hostile and extreme inputs to every registered mechanism's ``pmf``.

A case is (mechanism name, constructor parameters, scores, backend). Its outcome is one of

* ``clear-error`` — a ``ValueError`` / ``TypeError`` whose message is one line naming an argument;
* ``correct``     — a pmf that is finite, sums to one within its stated bound and, on the float
  backend, lies within its stated bound of the rigorous ball pmf wherever that one returns;
* ``wrong``       — anything else: NaN or infinite values, a total off by more than the bound, a
  float entry provably outside its bound, another exception type, a multi-line message, or no
  answer within the per-case time limit (``reason`` says which).

Used by ``tests/test_fuzz_api.py`` (hypothesis) and ``benchmarks/fuzz_api.py`` (a fixed-seed
corpus). The generators never build code strings: hostile strings are plain data.
"""

from __future__ import annotations

import math
import random
import re
import signal
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.pmf_compare import bound_violations, is_finite, normalisation_violation

__all__ = ["Case", "Outcome", "run_case", "random_case", "epsilon_pools", "score_pools", "REQUIRED"]

#: parameters some mechanisms need to be built
REQUIRED: dict[str, dict[str, Any]] = {"err": {"p": "1/2"}, "err-naive": {"p": "1/2"}, "err-alg3": {"p": "1/2"}}


def epsilon_pools() -> dict[str, list[Any]]:
    """ε values by kind: ``good`` (ordinary), ``extreme`` (valid but far out), ``hostile`` (invalid
    or odd types) and ``strings`` (numeric strings: exercise the exact parser)."""
    import sympy

    return {
        "good": [1, 0.5, Fraction(3, 2), np.float32(0.25), np.int64(2), sympy.Rational(1, 7), sympy.log(3), 2.0],
        "extreme": [1e-300, 1e-12, 1e-3, 1e3, 1e4, 1e20, 1e300, 5e-324, sympy.exp(50), sympy.exp(1000), 10**400,
                    Fraction(1, 10**400)],
        "hostile": [0, -1, math.nan, math.inf, -math.inf, None, [1], True, 1 + 1j, b"1", object(), np.array([1.0])],
        "strings": ["1/3", "2*log(3)", "exp(1000)", "", "abc", "1e999999", "0x10", "1/0", "nan", "inf", " 1 ",
                    "1e-400"],
    }


def score_pools() -> dict[str, list[Any]]:
    """Score vectors by kind (see :func:`epsilon_pools`)."""
    import sympy

    return {
        "good": [[0.0], [1, 0], [0, 0], [1, 0, 0], [0, 0, 0], [2, 1, 0, -1], list(range(6)), [0.5] * 5,
                 np.array([1.0, 0.0, 0.0]), np.array([3, 1, 2], dtype=np.int32), [np.float64(1), np.int64(0)],
                 [Fraction(1, 3), 0, Fraction(-1, 2)], [sympy.Rational(1, 3), 0], [sympy.sqrt(2), 0]],
        "extreme": [[0, -1e-12, -2e-12], [0, 0, -1e7], [1e300, 0, -1e300], [1e10, 1e10 - 1, 1e10 - 1],
                    [1.7e308, -1.7e308], [5e-324, 0], [10**30, 0], np.array([1, 0], dtype=np.float32),
                    [1e-300, 0, 1e-300], [0, -1e7, -1e7, 0]],
        "hostile": [[], [math.nan, 0], [math.inf, 0], [1, -math.inf], b"10", None, 5, {"a": 1}, [[1, 0], [0, 1]],
                    [[1], 0], [1 + 1j, 0], [True, False], [None, 1], np.array([[1.0, 0.0]]), np.array([], dtype=float),
                    [10**400, 0], [object(), 0]],
        "strings": ["1,0,0", ["1/3", "0"], ["abc", 0], ["0x10", 0], ["1e999999", 0], np.array(["1", "0"])],
    }


BACKENDS = {"good": ["float", "float", "float", "ball", "mp", "exact", "ball:64", "mp:20"],
            "hostile": ["mp:5", "ball:10", "foo", None, 3, "ball:-1", "exact:3"]}
EXTRA = {
    "p": ["1/2", 0, 1, 0.3, -0.1, 2, math.nan],
    "gamma": ["1/2", "0.05", 1, 1e-300, 0, 2, math.nan],
    "sensitivities": [None, [1, 2], ["1/2", 1, 1], [0, 1], [-1, 1], [math.inf, 1], [1e-300, 1e300], [1, 1, 1, 1, 1, 1],
                      [1, 1000], [10**6, 100, 10], [1, 1, 10**6], [10, 10**9, 1]],
    "beta": ["0.05", 0, 1, 1e-300, math.nan],
    "eta": [0, 1, "-1/2", -1, -2],
    "sensitivity": [1, "1/2", 1e-300, 1e300, 0, -1, math.nan],
    "monotone": [False, True, "yes", 1],
}
APPLIES = {
    "p": {"err", "err-naive", "err-alg3"},
    "gamma": {"rs-gamma", "rs-gamma-tnb"},
    "eta": {"rs-gamma-tnb"},
    "beta": {"gem", "mgem", "combined-gem"},
    "sensitivities": {"rnm-global", "rnmh", "rnmh-laplace", "gem", "mgem", "rs-gamma", "rs-gamma-tnb", "combined-gem"},
}
#: kind weights: most cases ordinary or extreme, so that results (not only errors) are checked
KIND_WEIGHTS = {"good": 0.45, "extreme": 0.35, "hostile": 0.15, "strings": 0.05}


@dataclass(frozen=True)
class Case:
    mechanism: str
    params: dict[str, Any]
    scores: Any
    backend: Any = "float"

    def __str__(self) -> str:
        s = repr(self.scores)
        return f"{self.mechanism} {self.params!r} scores={s[:80]} backend={self.backend!r}"


@dataclass(frozen=True)
class Outcome:
    kind: str  # "clear-error" | "correct" | "wrong"
    reason: str = ""
    details: dict = field(default_factory=dict)


def _pick(rng: random.Random, pools: dict[str, list[Any]], strings: bool) -> Any:
    kinds = [k for k in KIND_WEIGHTS if k in pools and (strings or k != "strings")]
    kind = rng.choices(kinds, weights=[KIND_WEIGHTS[k] for k in kinds])[0]
    return rng.choice(pools[kind])


def random_case(rng: random.Random, names: list[str], strings: bool = True) -> Case:
    """One case; ``strings=False`` leaves out numeric strings (the exact parser's own fuzz covers them)."""
    name = rng.choice(names)
    params: dict[str, Any] = {"epsilon": _pick(rng, epsilon_pools(), strings)}
    params.update(REQUIRED.get(name, {}))
    for key, values in EXTRA.items():
        if (key in APPLIES and name not in APPLIES[key]) or rng.random() > 0.2:
            continue
        params[key] = rng.choice(values)
    backend = rng.choice(BACKENDS["hostile"] if rng.random() < 0.08 else BACKENDS["good"])
    return Case(name, params, _pick(rng, score_pools(), strings), backend)


class _Timeout(Exception):
    pass


def _with_alarm(fn: Any, seconds: float) -> Any:
    fired = [False]

    def handler(signum: int, frame: Any) -> None:
        fired[0] = True
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    except Exception:
        if fired[0]:
            raise _Timeout() from None
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


ARGUMENT_NAMES = ("scores", "epsilon", "backend", "method", "sensitivity", "sensitivities", "monotone", "p", "gamma",
                  "eta", "beta", "scales", "noise_factor", "epsilon_c", "mechanism", "selector", "tie_break",
                  # the peer-suite laws (sparse vector, RAPPOR, geometric): their pmf's argument and parameters
                  "queries", "threshold", "cutoff", "n_hashes", "filter_size", "f", "q", "lo", "hi", "n")
_NAMES = re.compile(r"\b(" + "|".join(ARGUMENT_NAMES) + r")\b")


def _clear(exc: BaseException) -> bool:
    """A one-line ValueError / TypeError that names an argument."""
    msg = str(exc)
    return (isinstance(exc, (ValueError, TypeError)) and bool(msg.strip()) and "\n" not in msg and len(msg) < 600
            and _NAMES.search(msg) is not None)


def run_case(case: Case, timeout: float = 10.0, reference: bool = True) -> Outcome:
    """Build the mechanism, compute the pmf and classify the outcome (see the module docstring)."""
    import dpexact

    def compute() -> Any:
        m = dpexact.mechanism(case.mechanism, **case.params)
        return m, m.pmf(case.scores, backend=case.backend)

    try:
        m, p = _with_alarm(compute, timeout)
    except _Timeout:
        return Outcome("wrong", "timeout")
    except (ValueError, TypeError) as exc:
        if _clear(exc):
            return Outcome("clear-error", f"{type(exc).__name__}: {exc}")
        return Outcome("wrong", f"unclear {type(exc).__name__}: {str(exc)[:200]!r}")
    except Exception as exc:  # noqa: BLE001 - any other exception is a finding
        return Outcome("wrong", f"crash {type(exc).__name__}: {str(exc)[:200]}")
    try:
        return _classify(case, m, p, timeout, reference)
    except _Timeout:
        return Outcome("correct", "check not decided in time")
    except Exception as exc:  # noqa: BLE001 - the oracle could not decide; not the mechanism's fault
        return Outcome("correct", f"check not decided: {type(exc).__name__}")


def _classify(case: Case, m: Any, p: Any, timeout: float, reference: bool) -> Outcome:
    if not is_finite(p):
        return Outcome("wrong", f"non-finite result {p.to_float()} abs_error={p.abs_error}")
    if p.number_backend.is_ball:
        from dpexact.numbers.pmf_compare import ball_is_normalised

        return Outcome("correct") if ball_is_normalised(p) else Outcome("wrong", "ball total does not contain 1")
    if p.number_backend.is_exact:
        try:
            total = p.total()
            ok = _with_alarm(lambda: _exact_is_one(total), timeout)
        except _Timeout:
            return Outcome("correct", "exact total not decided in time")
        return Outcome("correct") if ok else Outcome("wrong", f"exact total {total} != 1")
    ex = normalisation_violation(p)
    if ex > 0:
        return Outcome("wrong", f"total off by {ex:.3g} beyond the bound {p.abs_error:.3g}")
    if reference and p.number_backend.is_float and len(p.values) <= 8:
        try:
            ball = _with_alarm(lambda: m.pmf(case.scores, backend="ball"), timeout)
        except Exception:  # noqa: BLE001 - no rigorous reference for this case
            return Outcome("correct", "no ball reference")
        if is_finite(ball):
            v = bound_violations(p, ball)
            if v:
                return Outcome("wrong", f"outside its bound: {v[0]}")
    return Outcome("correct")


def _exact_is_one(total: Any) -> bool:
    """Whether an exact total is 1: fmpq exactly; sympy by a 512-bit ball (an excluded 1 is certain)."""
    from dpexact.numbers.real import Real

    if type(total).__name__ == "fmpq":
        return total == 1
    return bool(Real.of(total).to_arb(512).contains(1))
