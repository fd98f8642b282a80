"""``audit map``: a library's declared privacy map on a grid, against dpexact's certified level.

For every grid point the adapter returns the library's value (ε, ρ, or δ at ε) and the law of the
mechanism it describes; :func:`level` computes the certified level of that law:

* ``epsilon`` / ``epsilon-exact`` of (discrete) Laplace: ``Δ / scale``, exactly as a rational
  from the floats the library holds (the library's float is compared exactly with it, so a
  rounding toward −∞ shows up);
* ``delta`` of Gaussian / Laplace: exact δ(ε) enclosure (:func:`dpexact.accounting.delta_for_epsilon`,
  Balle & Wang 2018 Thm 8 in arb; Laplace closed form), k-fold composition where declared;
* ``delta`` of the discrete Gaussian: ``H_{e^ε}`` summed at 60 digits over the window, tails < 10^{−60};
* ``rho`` of the discrete Gaussian: ``max_α D_α / α`` over a grid of α (a lower bound of the
  zCDP level) and the continuous Gaussian's ``Δ²/(2σ²)`` as upper bound (cks20 Prop. 5);
* ``rho`` of a finite selection mechanism (registry name): ``max_α D_α / α`` of its exact pmfs on
  the given neighbouring score vectors;
* ``epsilon`` of k-ary randomized response: ``log(prob (k − 1) / (1 − prob))`` at 60 digits;
* ``epsilon-for-delta`` of T Poisson-subsampled Gaussians (DP-SGD): the certified ε(δ) enclosure of
  :class:`dpexact.accounting.accountant.Accountant` (MGF route for T >= 16 where it applies, else the grid PLD;
  both neighbouring directions) at the
  floats' exact binary values, refined to :data:`SUBSAMPLED_TOLERANCE` within
  :data:`SUBSAMPLED_SECONDS` (the enclosure is certified either way). ε(δ) = inf{ε >= 0 : δ(ε) <= δ}
  is never negative, so a negative claimed ε is below the level.

A point is ``anti-conservative`` when the level's lower end exceeds the claim (with a witness
record :func:`recheck` re-checks from the record alone), ``conservative`` when the claim is at or
above the level's upper end (its slack given), else ``within enclosure``.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import mpmath

from .adapters import MapPoint, MapSpec, Target, adapter, load_library, parse_target

__all__ = ["MapAudit", "PointResult", "audit_map", "level", "recheck", "ALPHAS"]

#: Rényi orders at which a zCDP claim is compared
ALPHAS = (1.01, 1.1, 1.25, 1.5, 2, 3, 5, 8, 16, 32, 64)
_DPS = 60
#: relative width at which the subsampled-Gaussian enclosure stops refining, and its CPU budget (s)
SUBSAMPLED_TOLERANCE = 1e-3
SUBSAMPLED_SECONDS = 20.0
_EPS_ULP = mpmath.mpf(10) ** -50


def _fr(x: Any) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x)) if isinstance(x, str) else Fraction(x)


@dataclass
class PointResult:
    params: dict[str, Any]
    claim: str
    claimed: float
    level_lower: float
    level_upper: float
    status: str
    slack: float
    route: str
    level_exact: str | None = None
    witness: dict | None = None

    def as_dict(self) -> dict[str, Any]:
        from ..schemas.numbers import free_form, with_exact

        # an infinite level or slack is null with "inf" / "-inf" beside it (one number type per field)
        d = {"params": self.params, "claim": self.claim, "claimed": self.claimed,
             **with_exact("level_lower", self.level_lower), **with_exact("level_upper", self.level_upper),
             "status": self.status, **with_exact("slack", self.slack), "route": self.route}
        if self.level_exact is not None:
            d["level_exact"] = self.level_exact
        if self.witness is not None:
            d["witness"] = free_form(self.witness)  # free-form: a non-finite float is null + NAME_exact
        return d


def _dg_pair(sigma: Any, sensitivity: int) -> tuple[list, list]:
    """Log-pmfs of N_Z(0, σ²) and N_Z(Δ, σ²) on the same window k ∈ [−W, W + Δ] (each leaves mass
    below 10^{−70} outside); the normaliser is the same for both (Δ is an integer)."""
    s = mpmath.mpf(sigma)
    w = int(math.ceil(float(s) * math.sqrt(2 * (_DPS + 10) * math.log(10)))) + 2
    ks = range(-w, w + int(sensitivity) + 1)
    lp = [-(mpmath.mpf(k) ** 2) / (2 * s * s) for k in ks]
    lq = [-(mpmath.mpf(k - sensitivity) ** 2) / (2 * s * s) for k in ks]
    lz = mpmath.log(mpmath.fsum(mpmath.exp(-(mpmath.mpf(k) ** 2) / (2 * s * s)) for k in range(-w - 40, w + 41)))
    return [x - lz for x in lp], [x - lz for x in lq]


def renyi_discrete_gaussian(sigma: Any, sensitivity: int, alpha: Any) -> Any:
    """``D_α(N_Z(0, σ²) || N_Z(Δ, σ²))`` at 60 digits (both share the normaliser: Δ is an integer)."""
    with mpmath.workdps(_DPS + 10):
        lp, lq = _dg_pair(sigma, sensitivity)
        a = mpmath.mpf(alpha)
        return mpmath.log(mpmath.fsum(mpmath.exp(a * x + (1 - a) * y) for x, y in zip(lp, lq))) / (a - 1)


def renyi_finite(p: Sequence[Any], q: Sequence[Any], alpha: Any) -> Any:
    a = mpmath.mpf(alpha)
    return mpmath.log(mpmath.fsum(x**a * y ** (1 - a) for x, y in zip(p, q) if x > 0)) / (a - 1)


def _finite_pmfs(name: str, mparams: dict, q: Sequence, q2: Sequence) -> tuple[list, list]:
    from ..mechanisms.registry import mechanism

    m = mechanism(name, **mparams)
    with mpmath.workdps(_DPS + 10):
        from .laws import mp_of_exact as conv

        p = [conv(v) for v in m.pmf([_fr(x) for x in q], backend="exact").values]
        r = [conv(v) for v in m.pmf([_fr(x) for x in q2], backend="exact").values]
    return p, r


@functools.lru_cache(maxsize=256)
def _subsampled_gaussian_eps(sigma: Fraction, rate: Fraction, sensitivity: Fraction, count: int, delta: Fraction) -> Any:
    """Certified ε(δ) of ``count`` Poisson-subsampled Gaussians (cached: several libraries' accountants
    are compared at the same point)."""
    from ..accounting.accountant import Accountant

    acc = Accountant([{"kind": "gaussian", "sigma": sigma, "sensitivity": sensitivity, "poisson": rate, "count": count}],
                     max_seconds=SUBSAMPLED_SECONDS)
    return acc.epsilon_for_delta(delta, tolerance=SUBSAMPLED_TOLERANCE)


def level(pt: MapPoint) -> tuple[Any, Any, str, str | None, dict | None]:
    """The certified level of a map point: (lower, upper, route, exact string, witness details)."""
    lp, c = pt.law_params, pt.claim
    if c in ("epsilon", "epsilon-exact") and pt.law in ("laplace", "discrete-laplace"):
        e = _fr(lp["sensitivity"]) / _fr(lp["scale"])
        return e, e, f"exact Δ/scale ({pt.law}: the privacy loss's supremum)", f"{e.numerator}/{e.denominator}", None
    if c == "epsilon" and pt.law == "finite-rr":
        with mpmath.workdps(_DPS):
            k, pr = int(lp["k"]), mpmath.mpf(_fr(lp["prob"]).numerator) / _fr(lp["prob"]).denominator
            v = mpmath.log(pr * (k - 1) / (1 - pr))
            return v - _EPS_ULP, v + _EPS_ULP, "log(prob (k−1)/(1−prob)) at 60 digits", mpmath.nstr(v, 30), None
    if c == "delta" and pt.law in ("gaussian", "laplace"):
        from ..accounting.delta_epsilon import GaussianMechanism, LaplaceMechanism, delta_for_epsilon

        m = GaussianMechanism(_fr(lp["sigma"]), _fr(lp["sensitivity"])) if pt.law == "gaussian" \
            else LaplaceMechanism(_fr(lp["scale"]), _fr(lp["sensitivity"]))
        enc = delta_for_epsilon(m, _fr(pt.epsilon), compositions=pt.compositions)
        return enc.lower, enc.upper, f"exact δ(ε): {enc.method}", enc.exact, None
    if c == "epsilon-for-delta" and pt.law == "subsampled-gaussian":
        if pt.delta is None or not 0 < pt.delta < 1 or isinstance(pt.compositions, bool) or pt.compositions < 1:
            raise ValueError("subsampled-gaussian: needs delta in (0, 1) and compositions >= 1")
        enc = _subsampled_gaussian_eps(_fr(lp["sigma"]), _fr(lp["sample_rate"]), _fr(lp.get("sensitivity", 1)),
                                       int(pt.compositions), _fr(pt.delta))
        return (enc.lower, enc.upper, f"certified ε(δ) of {pt.compositions} Poisson-subsampled Gaussians: {enc.method}",
                None, {"delta": repr(pt.delta)})
    if c == "delta" and pt.law == "discrete-gaussian-delta":
        with mpmath.workdps(_DPS + 10):
            lpp, lqq = _dg_pair(lp["sigma"], int(lp["sensitivity"]))
            e = mpmath.mpf(_fr(pt.epsilon).numerator) / _fr(pt.epsilon).denominator
            h = mpmath.fsum(max(mpmath.mpf(0), mpmath.exp(x) - mpmath.exp(e + y)) for x, y in zip(lpp, lqq))
            return h - _EPS_ULP, h + _EPS_ULP, "hockey-stick of the discrete Gaussian pair at 60 digits", None, None
    if c == "rho" and pt.law == "discrete-gaussian":
        vals = [(renyi_discrete_gaussian(lp["sigma"], int(lp["sensitivity"]), a) / mpmath.mpf(a), a) for a in ALPHAS]
        best, a = max(vals, key=lambda t: t[0])
        up = _fr(lp["sensitivity"]) ** 2 / (2 * _fr(lp["sigma"]) ** 2)
        return best - _EPS_ULP, up, "max over α of D_α/α (60 digits); upper: continuous Gaussian Δ²/(2σ²)", None, {"alpha": a}
    if c == "rho" and pt.law == "finite":
        name, mparams = lp["mechanism"], dict(lp["mechanism_params"])
        if name not in _REGISTRY_FINITE:
            raise ValueError(f"finite law: mechanism must be one of {sorted(_REGISTRY_FINITE)}")
        q, q2 = lp["scores"], lp["neighbour_scores"]
        if len(q) != len(q2) or max(abs(_fr(a) - _fr(b)) for a, b in zip(q, q2)) > _fr(mparams.get("sensitivity", 1)):
            raise ValueError("finite law: scores and neighbour_scores are not neighbours (L∞ distance above the sensitivity)")
        p, r = _finite_pmfs(name, mparams, q, q2)
        with mpmath.workdps(_DPS + 10):
            vals = [(max(renyi_finite(p, r, al), renyi_finite(r, p, al)) / mpmath.mpf(al), al) for al in ALPHAS]
        best, a = max(vals, key=lambda t: t[0])
        # the exponential mechanism is ε²/8-zCDP (bounded range: Cesar & Rogers 2021, Lemma 3.2 with Thm 3.3)
        up: Any = _fr(mparams["epsilon"]) ** 2 / 8 if name == "em" else math.inf
        return (best - _EPS_ULP, up, f"max over α of D_α/α of {name}'s exact pmfs on this pair (a lower bound of the level)"
                + ("; upper: ε²/8 (bounded range)" if name == "em" else ""), None, {"alpha": a})
    raise ValueError(f"no certified level for claim {c!r} of law {pt.law!r}")


def _f(x: Any) -> float:
    if isinstance(x, Fraction):
        return float(x)
    if x == math.inf:
        return math.inf
    return float(x)


def evaluate_point(pt: MapPoint, library: str) -> PointResult:
    lo, hi, route, exact, extra = level(pt)
    claimed = _fr(pt.claimed)
    lo_f = _fr(lo) if isinstance(lo, Fraction) else None
    anti = (lo_f > claimed) if lo_f is not None else (mpmath.mpf(lo) > mpmath.mpf(pt.claimed))
    cons = (claimed >= _fr(hi)) if isinstance(hi, Fraction) else (hi != math.inf and mpmath.mpf(pt.claimed) >= mpmath.mpf(hi))
    status = "anti-conservative" if anti else ("conservative" if cons else "within enclosure")
    slack = _f(claimed - _fr(hi)) if isinstance(hi, Fraction) else (pt.claimed - _f(hi))
    if anti:
        slack = _f(claimed - lo) if isinstance(lo, Fraction) else pt.claimed - _f(lo)
    if pt.claim == "epsilon-for-delta" and pt.claimed < 0:
        # (ε, δ)-DP is defined for ε >= 0; as a hockey-stick bound at e^ε < 1 the statement is refuted by the
        # whole output space only when δ < 1 − e^ε, which the record states beside the verdict
        route += f"; claimed ε < 0: outside the definition's range (δ {'<' if pt.delta < -math.expm1(pt.claimed) else '>='} 1 − e^ε)"
    witness = None
    if anti:
        witness = {"kind": "map-witness", "library": library, "law": pt.law, "law_params": _plain(pt.law_params),
                   "claim": pt.claim, "claimed": repr(pt.claimed), "epsilon": None if pt.epsilon is None else repr(pt.epsilon),
                   "compositions": pt.compositions, "level_lower": exact if (exact and isinstance(lo, Fraction)) else mpmath.nstr(mpmath.mpf(lo), 30),
                   **(extra or {})}
    return PointResult(_plain(pt.params), pt.claim, float(pt.claimed), _f(lo), _f(hi), status, slack, route, exact, witness)


def _plain(d: dict) -> dict:
    return {k: (list(v) if isinstance(v, (list, tuple)) else (str(v) if isinstance(v, Fraction) else v)) for k, v in d.items()}


def recheck(record: dict) -> bool:
    """Re-check a map witness from the record alone (no library is imported): the certified level's
    lower end exceeds the claimed value. Raises ValueError on a malformed record."""
    if not isinstance(record, dict) or record.get("kind") != "map-witness":
        raise ValueError("not a map-witness record")
    try:
        pt = MapPoint({}, str(record["claim"]), float(record["claimed"]), str(record["law"]), dict(record["law_params"]),
                      None if record.get("epsilon") is None else float(record["epsilon"]), int(record.get("compositions", 1)),
                      None if record.get("delta") is None else float(record["delta"]))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed map witness: {exc}") from None
    if pt.law == "finite" and pt.law_params.get("mechanism") not in _REGISTRY_FINITE:
        raise ValueError(f"finite witness: mechanism must be one of {sorted(_REGISTRY_FINITE)}")
    return evaluate_point(pt, str(record.get("library", ""))).status == "anti-conservative"


#: registry mechanisms a finite map witness may name (no code named by a record is imported)
_REGISTRY_FINITE = frozenset({"em", "pf", "rnm-exp", "rnm-gumbel", "grr"})


@dataclass
class MapAudit:
    target: str
    points: list[PointResult] = field(default_factory=list)
    seconds: float = 0.0
    errors: list[dict] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "anti-conservative" if any(p.status == "anti-conservative" for p in self.points) else "conservative"

    def as_dict(self) -> dict[str, Any]:
        counts = {s: sum(p.status == s for p in self.points) for s in ("anti-conservative", "conservative", "within enclosure")}
        return {"target": self.target, "verdict": self.verdict, "counts": counts, "points": [p.as_dict() for p in self.points],
                "errors": self.errors, "seconds": self.seconds}


def audit_map(target: "str | Target", grid: list[dict] | None = None, *, spec: MapSpec | None = None, library: Any = None,
              max_points: int = 1000) -> MapAudit:
    """Evaluate a registered map (``LIB:CONSTRUCTOR``) — or a :class:`MapSpec` (the bug-replay
    suite) — on its grid (or ``grid``) and compare each value with the certified level.
    A grid point the library itself refuses is listed under ``errors`` with its message."""
    t0 = time.process_time()
    if spec is None:
        tgt = parse_target(target, "map") if isinstance(target, str) else target
        spec = adapter(tgt.library).MAPS[tgt.call]
        lib, label, libname = load_library(tgt.library), str(tgt), tgt.library
    else:
        lib, label, libname = library, str(target), str(target).split(":")[0]
    pts = spec.grid() if grid is None else grid
    if len(pts) > max_points:
        raise ValueError(f"grid: {len(pts)} points, above the limit {max_points}")
    out = MapAudit(label)
    for p in pts:
        try:
            mp = spec.evaluate(lib, p)
        except (ValueError, TypeError, OverflowError, RuntimeError, ZeroDivisionError) as exc:
            out.errors.append({"params": _plain(p), "error": " ".join(str(exc).split())[:200]})
            continue
        out.points.append(evaluate_point(mp, libname))
    out.seconds = time.process_time() - t0
    return out
