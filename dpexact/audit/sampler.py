"""``audit sampler``: a library's sampler beside the exact law, with the test's false-alarm rate
and power stated before the first draw.

Order of work: (1) the exact law for the parameters (:mod:`.laws`); (2) the cells from the exact
pmf, merged so every expected count is >= 5 (tails by exact mass), and the number of draws N that
gives the requested power against every alternative at total variation >= t (:mod:`.gof`);
(3) a pilot of :data:`PILOT_DRAWS` draws times the sampler and the cost guard refuses an N that
would exceed the time or memory budget; (4) the statement; (5) N draws, the support check (an
output the exact law gives probability 0 fails at once) and Pearson's test.

Verdicts: ``conforms`` (not rejected at α, and the stated power reaches the requested one),
``does not conform`` (rejected: the cells that fail and the p-value), ``underpowered`` (not
rejected, but the power at the N drawn is below the requested one).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cost_limits import CostEstimate, check_cost, estimate_from_pilot
from . import gof, laws
from .adapters import SamplerSpec, Target, adapter, load_library, parse_target

__all__ = ["SamplerAudit", "audit_sampler", "plan_sampler", "PILOT_DRAWS", "MAX_DRAWS", "DEFAULT_MAX_SECONDS"]

PILOT_DRAWS = 200
MAX_DRAWS = 10**8
#: the default time budget of one sampler audit (seconds of CPU, estimated from the pilot)
DEFAULT_MAX_SECONDS = 120.0
#: bytes per draw held at once (a Python list of floats, then a float64 array and its cells)
BYTES_PER_DRAW = 64


@dataclass
class SamplerAudit:
    target: str
    params: dict[str, Any]
    law: str
    floating: bool
    seed: int
    seedable: bool
    plan: gof.TestPlan
    requested_power: float
    verdict: str = "not run"
    statistic: float | None = None
    p_value: float | None = None
    failing: list[dict] = field(default_factory=list)
    impossible: list[float] = field(default_factory=list)
    estimate: CostEstimate | None = None
    seconds: float = 0.0
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        from ..schemas.numbers import list_with_exact, with_exact

        return {"target": self.target, "params": _jsonable(self.params), "law": self.law, "floating": self.floating,
                "covers": ("the shape of the real law on quantile cells wider than float spacing, not float-level leakage"
                           if self.floating else "the exact law on integer cells (tails merged by exact mass)"),
                "seed": self.seed, "seedable": self.seedable, "plan": self.plan.as_dict(),
                "requested_power": self.requested_power, "verdict": self.verdict, **with_exact("statistic", self.statistic),
                "p_value": self.p_value, "failing": self.failing, **list_with_exact("impossible", self.impossible[:20]),
                "estimate": None if self.estimate is None else self.estimate.as_dict(), "seconds": self.seconds,
                **({"note": self.note} if self.note else {})}


def _jsonable(params: dict) -> dict:
    return {k: (list(v) if isinstance(v, (tuple, list)) else (v if isinstance(v, (int, float, str, bool)) or v is None else str(v)))
            for k, v in params.items()}


def resolve(target: "str | Target", params: dict[str, Any] | None) -> tuple[Target, SamplerSpec, dict[str, Any]]:
    """The registered sampler and its parameters (defaults updated by ``params``; unknown names refused)."""
    t = parse_target(target, "sampler") if isinstance(target, str) else target
    spec = adapter(t.library).SAMPLERS[t.call]
    p = dict(spec.defaults)
    for k, v in (params or {}).items():
        if k not in spec.defaults:
            raise ValueError(f"--param: {t} takes {', '.join(sorted(spec.defaults))}, not {k[:40]!r}")
        p[k] = v
    return t, spec, p


def plan_sampler(law: laws.Law, alpha: float, tv: float, power: float, draws: int | None, bins: int = 40,
                 seed: int | None = None) -> tuple[gof.Cells, gof.TestPlan]:
    """The cells and the plan: at ``draws`` if given, else the smallest N reaching ``power``
    (cells depend on N through the merge, so N and the cells are iterated to a fixed point)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0 < tv < 1:
        raise ValueError(f"tv must be in (0, 1), got {tv}")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")
    if draws is not None:
        if isinstance(draws, bool) or not isinstance(draws, int) or not 10 <= draws <= MAX_DRAWS:
            raise ValueError(f"draws must be an integer in 10..{MAX_DRAWS}, got {draws!r}")
        cells = laws.cells_for(law, draws, bins)
        return cells, gof.plan(cells, draws, alpha, tv, seed)
    n = 1000
    for _ in range(8):
        cells = laws.cells_for(law, n, bins)
        n2 = max(gof.draws_for_power(len(cells.probs), alpha, tv, power), 10)
        if n2 > MAX_DRAWS:
            raise ValueError(f"tv: reaching power {power} at tv {tv} needs {n2} draws, above {MAX_DRAWS}")
        if n2 == n:
            break
        n = n2
    cells = laws.cells_for(law, n, bins)
    pl = gof.plan(cells, n, alpha, tv, seed)
    while pl.power < power:  # the merge or the Monte Carlo critical value moved: take the next N that reaches the power
        n = int(n * 1.02) + 1
        if n > MAX_DRAWS:
            raise ValueError(f"tv: reaching power {power} at tv {tv} needs more than {MAX_DRAWS} draws")
        cells = laws.cells_for(law, n, bins)
        pl = gof.plan(cells, n, alpha, tv, seed)
    return cells, pl


def _impossible(x: np.ndarray, law: laws.Law) -> list[float]:
    """Draws the exact law gives probability 0 (non-integers or points of zero mass for a discrete law)."""
    if isinstance(law, laws.ContinuousLaw):
        return [float(v) for v in x[~np.isfinite(x)][:20]]
    bad = ~np.isfinite(x) | (np.floor(x) != x)
    ok = ~bad
    xi = x[ok].astype(np.int64)
    lo, hi = law.lo, law.lo + len(law.probs)
    zero_inside = np.zeros(len(law.probs) + 2, dtype=bool)
    zero_inside[1:-1] = [p == 0 for p in law.probs]
    zero_inside[0], zero_inside[-1] = law.left == 0, law.right == 0
    pos = np.clip(xi - lo + 1, 0, len(law.probs) + 1)
    bad_ok = zero_inside[pos]
    vals = list(x[bad][:20]) + list(xi[bad_ok][:20])
    return [float(v) for v in vals[:20]]


def audit_sampler(target: "str | Target", params: dict[str, Any] | None = None, *, draws: int | None = None,
                  alpha: float = 0.01, tv: float = 0.02, power: float = 0.95, seed: int = 0,
                  max_seconds: float | None = DEFAULT_MAX_SECONDS, max_memory: Any = "default",
                  spec: SamplerSpec | None = None, library: Any = None, bins: int = 40,
                  announce: Any = None) -> SamplerAudit:
    """Audit a registered sampler (``LIB:CALL``) — or, with ``spec`` (and ``library``), a sampler
    given as a :class:`SamplerSpec` (the bug-replay suite) — against its exact law.

    Args:
        target: ``LIB:CALL`` (parsed against the adapter registry) or a resolved Target; ignored
            when ``spec`` is given (then it is only the label).
        params: parameters of the call (names from the adapter's defaults).
        draws: N; default: the smallest N giving ``power`` against TV >= ``tv``.
        alpha, tv, power: the false-alarm rate, the total variation the power refers to, and the
            power wanted.
        seed: seeds the numpy Generator handed to the sampler (libraries that accept a seed).
        max_seconds, max_memory: the budget the pilot's estimate must fit (cost_limits).
        announce: a callable given the statement before the first draw.

    Raises:
        ValueError: bad target or parameters; CostLimitError: N over the budget;
        MissingLibrary: the library is not installed.
    """
    t0 = time.process_time()
    if spec is None:
        tgt, spec, p = resolve(target, params)
        label = str(tgt)
        lib = load_library(tgt.library)
    else:
        label, p, lib = str(target), {**spec.defaults, **(params or {})}, library
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in 0..2^63-1, got {str(seed)[:40]}")
    law = spec.law(p)
    cells, pl = plan_sampler(law, alpha, tv, power, draws, bins, seed)
    rng = np.random.default_rng(seed)
    est = estimate_from_pilot(f"{label}: {pl.draws} draws", lambda: spec.draw(lib, p, PILOT_DRAWS, np.random.default_rng(seed + 1)),
                              PILOT_DRAWS, pl.draws, BYTES_PER_DRAW, "linear in draws from a pilot of 200")
    check_cost(est, max_seconds, max_memory)
    out = SamplerAudit(label, p, law.name, spec.floating, seed, spec.seedable, pl, power, estimate=est)
    if announce is not None:
        announce(pl.statement())
    x = np.asarray(spec.draw(lib, p, pl.draws, rng), dtype=np.float64)
    if x.shape != (pl.draws,):
        raise RuntimeError(f"{label}: the sampler returned {x.shape} draws, expected {pl.draws}")
    out.impossible = _impossible(x, law)
    res = gof.pearson(x[np.isfinite(x)] if out.impossible else x, cells, alpha, pl.null) if np.isfinite(x).any() else None
    if out.impossible:
        out.verdict, out.p_value, out.statistic = "does not conform", 0.0, math.inf
        out.failing = [{"cell": "zero-probability outputs", "observed": len(out.impossible), "expected": 0.0}]
    elif res is not None:
        out.statistic, out.p_value = res.statistic, res.p_value
        out.failing = list(res.failing)
        out.verdict = "does not conform" if res.rejected else ("conforms" if pl.power >= power else "underpowered")
    out.seconds = time.process_time() - t0
    return out
