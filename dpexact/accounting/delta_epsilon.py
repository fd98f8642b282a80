"""(ε, δ) accounting: δ(ε) and its inverse ε(δ), certified, for a pair of pmfs, the Gaussian
and Laplace mechanisms, and k-fold composition of identical mechanisms.

The privacy profile of a pair of output laws is the hockey-stick divergence (adp §2, Def. 1;
:mod:`.hockey_stick`)

    δ(ε) = max(H_{e^ε}(P || Q), H_{e^ε}(Q || P)),   H_{e^ε}(P || Q) = Σ_y max(0, P(y) − e^ε Q(y)),

and ε(δ) = inf{ε >= 0 : δ(ε) <= δ} (``inf`` when no finite ε reaches δ).

* **Pmf pair** (rational entries): the privacy-loss distribution (PLD) groups outputs by
  their likelihood ratio r = P(y)/Q(y): ``{r: (P-mass, Q-mass)}`` plus the P-mass where Q = 0.
  Then H = m_∞ + A_S − e^ε B_S with S = {r > e^ε} and A_S, B_S the P- and Q-masses of S: an
  exact expression whatever ε is (the threshold is found by exact comparisons). The inverse is
  exact too: on the segment where S is fixed, ε = log((m_∞ + A_S − δ)/B_S).
  *k-fold composition* of identical mechanisms: the pair (P^⊗k, Q^⊗k) has the PLD whose ratios
  are products, i.e. the k-fold convolution of the PLD in the multiplicative group, computed
  exactly in rationals (the privacy-loss distribution of Sommer, Meiser & Mohammadi 2019;
  dp_accounting's ``pld`` discretises it, here nothing is rounded). The number of distinct ratios is bounded by :data:`MAX_PLD_SIZE`.
* **Gaussian** N(0, σ²), sensitivity Δ: the analytic profile of Balle & Wang (2018, Thm 8),
  :func:`.privacy_profiles.gaussian_profile_ball` (rigorous arb). k-fold composition is the
  Gaussian mechanism with sensitivity Δ√k (its privacy loss is N(μ²/2, μ²) with μ = Δ/σ, and k
  independent copies add up to μ√k; Dong, Roth & Su 2019, Gaussian DP). The inverse is a certified bisection.
* **Laplace** with scale b: ``δ(ε) = max(0, 1 − exp((ε − Δ/b)/2))`` (:mod:`.privacy_profiles`),
  here exact / ball; inverse ``ε = max(0, Δ/b + 2 log(1 − δ))``. Composition has no closed form
  here: give the mechanism as a pmf pair (discretised) instead.

Every result is an :class:`Enclosure`: float bounds rounded outward from an arb ball (the true
value lies in ``[lower, upper]``), plus the exact value as a string when there is one.
"""

from __future__ import annotations

from collections.abc import Sized
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from ..cost_limits import CostEstimate, CostLimitError
from ..mechanisms.validation import positive_real
from ..numbers.backends import ball_context
from ..numbers.real import Real

__all__ = [
    "AccountedMechanism",
    "Enclosure",
    "GaussianMechanism",
    "LaplaceMechanism",
    "MAX_PLD_SIZE",
    "PmfPair",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "privacy_loss_distribution",
]

#: distinct likelihood ratios a composed PLD may hold (memory and time guard)
MAX_PLD_SIZE = 200_000
#: estimated seconds a composed PLD may take to build
MAX_PLD_SECONDS = 60.0
#: seconds per fmpq product of the convolution: a + b·(operand bits); measured 2.2e-5 s at
#: ~7 000 bits and ~1 µs for small operands (python-flint, this machine)
_PRODUCT_COST = (1e-6, 3e-9)
#: entries of one pmf given to :class:`PmfPair`
MAX_PMF_SIZE = 100_000
#: compositions accepted
MAX_COMPOSITIONS = 10_000
_PREC = 128


@dataclass(frozen=True)
class Enclosure:
    """A certified value: ``lower <= value <= upper`` (floats rounded outward).

    Attributes:
        lower, upper: the enclosure (``math.inf`` for an infinite ε).
        exact: the exact value (a rational or a closed-form expression), when known.
        method: how it was computed.
        detail: per-direction values and sizes (JSON-friendly).
    """

    lower: float
    upper: float
    exact: str | None
    method: str
    detail: dict = field(default_factory=dict, compare=False)

    @property
    def mid(self) -> float:
        return self.lower if self.lower == self.upper else (self.lower + self.upper) / 2

    def as_dict(self) -> dict[str, Any]:
        """``lower`` / ``upper`` as numbers, null where infinite (``lower_exact`` / ``upper_exact`` then say
        ``"inf"``), ``exact`` the value's exact text where one is known."""
        from ..schemas.numbers import free_form, with_exact

        return {**with_exact("lower", self.lower), **with_exact("upper", self.upper), "exact": self.exact,
                "method": self.method, "detail": free_form(self.detail)}


# -- mechanisms -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PmfPair:
    """Output laws P = M(x) and Q = M(x′) of one mechanism on neighbours (rational entries)."""

    p: tuple
    q: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", _pmf(self.p, "p"))
        object.__setattr__(self, "q", _pmf(self.q, "q"))
        if len(self.p) != len(self.q):
            raise ValueError(f"p and q must have the same length, got {len(self.p)} and {len(self.q)}")

    @property
    def name(self) -> str:
        return f"pmf pair ({len(self.p)} outputs)"


@dataclass(frozen=True)
class GaussianMechanism:
    """Additive N(0, σ²) noise on a query of sensitivity Δ."""

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", positive_real(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))

    @property
    def name(self) -> str:
        return f"Gaussian(σ = {self.sigma}, Δ = {self.sensitivity})"


@dataclass(frozen=True)
class LaplaceMechanism:
    """Additive Laplace(b) noise on a query of sensitivity Δ (pure ε = Δ/b)."""

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", positive_real(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", positive_real(self.sensitivity, "sensitivity"))

    @property
    def name(self) -> str:
        return f"Laplace(b = {self.scale}, Δ = {self.sensitivity})"


#: what δ(ε) / ε(δ) account: a pair of pmfs, or an additive Gaussian / Laplace mechanism
AccountedMechanism = PmfPair | GaussianMechanism | LaplaceMechanism


def _pmf(values: Any, name: str) -> tuple[Fraction, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sized):
        raise TypeError(f"{name} must be a sequence of probabilities")
    if not 1 <= len(values) <= MAX_PMF_SIZE:
        raise ValueError(f"{name} must have 1 to {MAX_PMF_SIZE} entries, got {len(values)}")
    out = []
    for i, v in enumerate(values):
        r = Real.of(v, f"{name}[{i}]")
        if not r.is_rational:
            raise ValueError(f"{name}[{i}] must be rational for exact accounting, got {r}")
        if r.value < 0:
            raise ValueError(f"{name}[{i}] must be >= 0, got {r}")
        out.append(r.value)
    if sum(out) != 1:
        raise ValueError(f"{name} must sum to 1, sums to {sum(out)}")
    return tuple(out)


def _compositions(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"compositions must be an int, got {type(k).__name__}")
    if not 1 <= k <= MAX_COMPOSITIONS:
        raise ValueError(f"compositions must be in [1, {MAX_COMPOSITIONS}], got {k}")
    return k


# -- the privacy-loss distribution of a pmf pair --------------------------------------------------


def privacy_loss_distribution(p: Sequence[Fraction], q: Sequence[Fraction], compositions: int = 1,
                              max_size: int = MAX_PLD_SIZE, max_seconds: float = MAX_PLD_SECONDS
                              ) -> tuple[dict[Fraction, tuple[Fraction, Fraction]], Fraction]:
    """PLD of (P^⊗k, Q^⊗k) from P to Q, exact: ``({ratio: (P-mass, Q-mass)}, P-mass where Q = 0)``.

    Outputs with P = 0 are left out (they never add to H(P || Q)). Arithmetic in flint
    ``fmpq``; the k − 1 convolution steps are priced before each one is done (products ×
    operand bits, :data:`_PRODUCT_COST`), so the work spent stays within ``max_seconds``.

    Raises:
        CostLimitError: the table would exceed ``max_size`` distinct ratios, or the next step
            would take the estimated time past ``max_seconds``.
    """
    table, inf_mass = _pld_fmpq(p, q, _compositions(compositions), max_size, max_seconds)
    return ({_frac(r): (_frac(a), _frac(b)) for r, (a, b) in table.items()}, _frac(inf_mass))


def _pld_fmpq(p: Sequence[Fraction], q: Sequence[Fraction], k: int, max_size: int, max_seconds: float) -> tuple[dict, Any]:
    from flint import fmpq

    base: dict[Any, list[Any]] = {}
    inf1 = fmpq(0)
    for a, b in zip(p, q):
        if a == 0:
            continue
        fa = fmpq(a.numerator, a.denominator)
        if b == 0:
            inf1 += fa
            continue
        fb = fmpq(b.numerator, b.denominator)
        e = base.setdefault(fa / fb, [fmpq(0), fmpq(0)])
        e[0] += fa
        e[1] += fb
    bits = max((_bits(r) + _bits(m[0]) + _bits(m[1]) for r, m in base.items()), default=1)
    table = {r: (m[0], m[1]) for r, m in base.items()}
    # before any work: a j-fold product set of m distinct ratios has at least (j − 1)(m − 1) + 1
    # elements (|A + B| >= |A| + |B| − 1 for sets of reals, on the logs), so this is a lower bound
    m = len(base)
    floor = sum(((j - 2) * (m - 1) + 1) * m * (_PRODUCT_COST[0] + _PRODUCT_COST[1] * bits * j) for j in range(2, k + 1))
    if floor > max_seconds:
        _too_costly(f"the {k}-fold convolution of {m} ratios needs at least about {floor:.3g} s, above {max_seconds:g} s",
                    floor, (k - 1) * (m - 1) + 1)
    spent = 0.0
    for step in range(2, k + 1):
        cost = len(table) * len(base) * (_PRODUCT_COST[0] + _PRODUCT_COST[1] * bits * step)
        if spent + cost > max_seconds:
            _too_costly(f"the convolution would take about {spent + cost:.3g} s by step {step} of {k} "
                        f"({len(table)} ratios, ~{bits * step} bits), above {max_seconds:g} s", spent + cost, len(table))
        spent += cost
        new: dict[Any, list[Any]] = {}
        for r1, (a1, b1) in table.items():
            for r2, (a2, b2) in base.items():
                e = new.setdefault(r1 * r2, [fmpq(0), fmpq(0)])
                e[0] += a1 * a2
                e[1] += b1 * b2
        if len(new) > max_size:
            _too_costly(f"the composed privacy-loss distribution reaches {len(new)} distinct ratios at step {step} "
                        f"of {k}, above max_size = {max_size}", spent, len(new))
        table = {r: (m[0], m[1]) for r, m in new.items()}
    inf_mass = 1 - (1 - inf1) ** k  # P-mass of the outputs with some coordinate where Q = 0
    return table, inf_mass


def _bits(x: Any) -> int:
    return int(x.p).bit_length() + int(x.q).bit_length()


def _frac(x: Any) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _too_costly(message: str, seconds: float, size: int) -> None:
    est = CostEstimate("privacy-loss distribution convolution", 300.0 * size, seconds, "products × operand bits")
    raise CostLimitError(f"compositions: {message}", est)


def _exp_real(eps: Real) -> Real:
    import sympy

    if eps.is_rational and eps.value == 0:
        return Real.of(1)
    return Real.of(sympy.exp(eps.to_sympy()), "exp(epsilon)")


def _greater_than_exp(r: Any, eps: Real, E: Real) -> bool:
    """Exactly decide ``r > e^ε`` for a rational r (fmpq)."""
    from flint import arb, fmpq

    if E.is_rational:
        return r > fmpq(E.value.numerator, E.value.denominator)
    for prec in (128, 1024, 8192):  # e^ε irrational: never equal to r, a ball decides
        with ball_context(prec):
            d = arb(r) - eps.to_arb(prec).exp()
        if d > 0:
            return True
        if d < 0:
            return False
    return (Real.of(_frac(r)) - E).sign() > 0


def _hockey_from_pld(table: dict, inf_mass: Any, eps: Real) -> tuple[Fraction, Fraction]:
    """(A, B) with H_{e^ε} = A − e^ε·B exactly: A = m_∞ + Σ_{r > e^ε} P_r, B = Σ_{r > e^ε} Q_r."""
    from flint import fmpq

    E = _exp_real(eps)
    ratios = sorted(table)
    lo, hi = 0, len(ratios)  # first index with r > e^ε (binary search, exact comparisons)
    while lo < hi:
        mid = (lo + hi) // 2
        if _greater_than_exp(ratios[mid], eps, E):
            hi = mid
        else:
            lo = mid + 1
    a, b = inf_mass, fmpq(0)
    for r in ratios[lo:]:
        a += table[r][0]
        b += table[r][1]
    return _frac(a), _frac(b)


def _outward(x: Any) -> tuple[float, float]:
    """Float bounds of an arb ball, rounded outward (exact when the ball is an exact float)."""
    from flint import arb

    f = float(x.mid())
    if x.rad() == 0 and arb(f) == x:
        return f, f
    lo, hi = float(x.lower()), float(x.upper())
    return math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)


def _ball_of(a: Fraction, b: Fraction, eps: Real, prec: int) -> Any:
    from flint import arb, fmpq

    with ball_context(prec):
        return arb(fmpq(a.numerator, a.denominator)) - arb(fmpq(b.numerator, b.denominator)) * eps.to_arb(prec).exp()


def _expr(a: Fraction, b: Fraction, eps: Real) -> str:
    E = _exp_real(eps)
    if E.is_rational:
        return str(a - b * E.value)
    if b == 0:
        return str(a)
    return f"{a} - {b}*exp({eps})"


def _clip01(lo: float, hi: float) -> tuple[float, float]:
    # 0 <= δ <= 1 holds mathematically: intersecting the enclosure with it stays rigorous
    return max(lo, 0.0), min(hi, 1.0)


# -- δ(ε) -----------------------------------------------------------------------------------------


def delta_for_epsilon(mechanism: AccountedMechanism, epsilon: Any, compositions: int = 1, prec: int = _PREC) -> Enclosure:
    """Certified δ(ε) of ``mechanism`` (:class:`PmfPair`, :class:`GaussianMechanism`,
    :class:`LaplaceMechanism`) composed ``compositions`` times (module docstring)."""
    k = _compositions(compositions)
    eps = Real.of(epsilon, "epsilon")
    if eps.sign() < 0:
        raise ValueError(f"epsilon must be >= 0, got {eps}")
    if isinstance(mechanism, PmfPair):
        sides = {}
        for label, (p, q) in (("P||Q", (mechanism.p, mechanism.q)), ("Q||P", (mechanism.q, mechanism.p))):
            table, inf_mass = _pld_fmpq(p, q, k, MAX_PLD_SIZE, MAX_PLD_SECONDS)
            a, b = _hockey_from_pld(table, inf_mass, eps)
            lo, hi = _clip01(*_outward(_ball_of(a, b, eps, prec)))
            sides[label] = (a, b, lo, hi, len(table))
        (a1, b1, l1, h1, n1), (a2, b2, l2, h2, n2) = sides["P||Q"], sides["Q||P"]
        d = Real.of(a1 - a2) - Real.of(b1 - b2) * _exp_real(eps)  # exact comparison of the two sides
        s = d.sign()
        exact = _expr(a1, b1, eps) if s >= 0 else _expr(a2, b2, eps)
        lo, hi = (l1, h1) if s >= 0 else (l2, h2)
        detail = {"P||Q": {"lower": l1, "upper": h1, "exact": _expr(a1, b1, eps), "pld_size": n1},
                  "Q||P": {"lower": l2, "upper": h2, "exact": _expr(a2, b2, eps), "pld_size": n2}}
        return Enclosure(lo, hi, exact, "exact PLD" + (f", {k}-fold convolution" if k > 1 else ""), detail)
    if isinstance(mechanism, GaussianMechanism):
        from .privacy_profiles import gaussian_profile_ball

        lo, hi = _clip01(*_outward(gaussian_profile_ball(eps, mechanism.sigma, _gauss_sensitivity(mechanism, k), prec)))
        return Enclosure(lo, hi, None, "Balle & Wang 2018 Thm 8, arb" + (f"; {k}-fold: Δ√k" if k > 1 else ""))
    if isinstance(mechanism, LaplaceMechanism):
        _laplace_single(k)
        import sympy

        x = (eps.to_sympy() - (mechanism.sensitivity.to_sympy() / mechanism.scale.to_sympy())) / 2
        r = Real.of(x, "epsilon")
        if r.sign() >= 0:
            return Enclosure(0.0, 0.0, "0", "Laplace closed form (ε >= Δ/b)")
        expr = 1 - sympy.exp(x)
        lo, hi = _clip01(*_outward(Real.of(expr).to_arb(prec)))
        return Enclosure(lo, hi, str(expr), "Laplace closed form, arb")
    raise TypeError(f"mechanism must be a PmfPair, GaussianMechanism or LaplaceMechanism, got {type(mechanism).__name__}")


def _gauss_sensitivity(m: GaussianMechanism, k: int) -> Real:
    import sympy

    return m.sensitivity if k == 1 else Real.of(m.sensitivity.to_sympy() * sympy.sqrt(k), "sensitivity")


def _laplace_single(k: int) -> None:
    if k != 1:
        raise ValueError("compositions: no closed form for composed Laplace mechanisms here; "
                         "give a discretised Laplace as a pmf pair to compose it exactly")


# -- ε(δ) -----------------------------------------------------------------------------------------


def _target(delta: Any) -> Real:
    t = Real.of(delta, "delta")
    if t.sign() < 0 or (t - 1).sign() > 0:
        raise ValueError(f"delta must be in [0, 1], got {t}")
    return t


def _epsilon_one_way(table: dict, inf_mass: Any, target: Fraction) -> Fraction | None:
    """x with ε = log x the smallest ε >= 0 with H(ε) <= t (x = 1: ε = 0); ``None``: ε = ∞."""
    from flint import fmpq

    t = fmpq(target.numerator, target.denominator)
    if t < inf_mass:
        return None
    a, b = inf_mass, fmpq(0)
    for r in sorted(table, reverse=True):
        if r <= 1:
            break
        if a - r * b > t:  # H(log r) > t: the answer lies in (log r, previous ratio]
            return _frac((a - t) / b)
        a += table[r][0]
        b += table[r][1]
    if a - b > t:  # H(0) > t
        return _frac((a - t) / b)
    return Fraction(1)


def epsilon_for_delta(mechanism: AccountedMechanism, delta: Any, compositions: int = 1, prec: int = _PREC) -> Enclosure:
    """Certified ε(δ) = inf{ε >= 0 : δ(ε) <= δ} (``inf`` bounds when no finite ε reaches δ)."""
    k = _compositions(compositions)
    t = _target(delta)
    if isinstance(mechanism, PmfPair):
        if not t.is_rational:
            raise ValueError(f"delta must be rational for a pmf pair, got {t}")
        xs, detail = [], {}
        for label, (p, q) in (("P||Q", (mechanism.p, mechanism.q)), ("Q||P", (mechanism.q, mechanism.p))):
            table, inf_mass = _pld_fmpq(p, q, k, MAX_PLD_SIZE, MAX_PLD_SECONDS)
            x = _epsilon_one_way(table, inf_mass, t.value)
            xs.append(x)
            detail[label] = {"exact": "inf" if x is None else _log_str(x), "pld_size": len(table)}
        if any(x is None for x in xs):
            return Enclosure(math.inf, math.inf, "inf", "exact PLD: δ below the mass where one law is 0", detail)
        x = max(xs)
        return Enclosure(*_log_bounds(x, prec), _log_str(x), "exact PLD" + (f", {k}-fold convolution" if k > 1 else ""), detail)
    if isinstance(mechanism, LaplaceMechanism):
        _laplace_single(k)
        import sympy

        eps0 = mechanism.sensitivity.to_sympy() / mechanism.scale.to_sympy()
        if (t - 1).sign() == 0:
            return Enclosure(0.0, 0.0, "0", "Laplace closed form")
        expr = eps0 + 2 * sympy.log(1 - t.to_sympy())
        if Real.of(expr).sign() <= 0:
            return Enclosure(0.0, 0.0, "0", "Laplace closed form")
        lo, hi = _outward(Real.of(expr).to_arb(prec))
        return Enclosure(max(lo, 0.0), hi, str(expr), "Laplace closed form, arb")
    if isinstance(mechanism, GaussianMechanism):
        return _gaussian_inverse(mechanism, t, k, prec)
    raise TypeError(f"mechanism must be a PmfPair, GaussianMechanism or LaplaceMechanism, got {type(mechanism).__name__}")


def _log_str(x: Fraction) -> str:
    return "0" if x == 1 else f"log({x})"


def _log_bounds(x: Fraction, prec: int) -> tuple[float, float]:
    from flint import arb, fmpq

    if x == 1:
        return 0.0, 0.0
    with ball_context(prec):
        lo, hi = _outward(arb(fmpq(x.numerator, x.denominator)).log())
    return max(lo, 0.0), hi


def _gaussian_inverse(m: GaussianMechanism, t: Real, k: int, prec: int) -> Enclosure:
    """Bisection on rational ε; each end certified: δ(lo) > t (ball lower) and δ(hi) <= t (ball upper)."""
    from .privacy_profiles import gaussian_profile_ball

    sens = _gauss_sensitivity(m, k)
    tb = t.to_arb(prec)

    def above(e: Fraction) -> bool | None:  # δ(e) > t certified: True; δ(e) <= t certified: False
        d = gaussian_profile_ball(e, m.sigma, sens, prec)
        if d > tb:
            return True
        if d <= tb:
            return False
        return None

    if t.sign() == 0:
        return Enclosure(math.inf, math.inf, "inf", "Gaussian: δ(ε) > 0 for every finite ε")
    if above(Fraction(0)) is False:
        return Enclosure(0.0, 0.0, "0", "Gaussian: δ(0) <= δ")
    lo, hi = Fraction(0), Fraction(1)
    while True:
        state = above(hi)
        if state is False:
            break
        if state is None or hi > 2**40:
            raise ArithmeticError(f"delta: cannot certify δ(ε) <= {t} at ε = {float(hi)} with {prec} bits")
        lo, hi = hi, hi * 2
    for _ in range(200):
        if hi - lo <= max(Fraction(1, 2**52) * hi, Fraction(1, 2**60)):
            break
        mid = Fraction(float((lo + hi) / 2))
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        state = above(mid)
        if state is None:  # δ(mid) within rounding of t: the ends are still certified
            break
        lo, hi = (mid, hi) if state else (lo, mid)
    return Enclosure(math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf), None,
                     "Gaussian: certified bisection on Balle & Wang 2018 Thm 8" + (f"; {k}-fold: Δ√k" if k > 1 else ""),
                     {"epsilon_lower_exact": str(lo), "epsilon_upper_exact": str(hi)})
