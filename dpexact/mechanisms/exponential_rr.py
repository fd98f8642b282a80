"""Exponential randomized response (err §III): complete, naive and Algorithm-3-sampler laws.

Notation: ``w_r = exp(c (q_r - q*))`` with ``c = ε/(2Δ)`` (``c = ε/Δ`` with
``monotone=True``, err §III-C "for monotonic quality functions ... exp(ε q_r/Δ)");
``EM_r = w_r / Σ_s w_s`` is the exponential mechanism (err Definition 3); ``p ∈ [0, 1]`` is the
coin bias.

Complete ERR, err Lemma 1 (class :class:`ExponentialRandomizedResponse`, registry ``err``)::

    Pr[r] = p/m + (1-p) EM_r   if r ∈ T        (p_{r,T})
            (1-p) EM_r         if r ∉ T        (p_{r,F}),     m = |T|.

The set ``T`` is ambiguous in err §III, so both readings are options (``candidate_set``):

* ``"chain"`` (default) — err Algorithm 3, lines 1-4: sort the scores decreasingly and add
  ``r+1`` to ``T`` while ``q_r - q_{r+1} <= Δ`` (consecutive gaps of at most Δ from the top).
  This is the reading of the paper's experiments: §V-C/Fig. 7 switch from eq. 15 (m = 1) to
  eq. 16 (m = n) at ``v = -Δ`` for ``q = (v, ..., v, 0)``.
* ``"interval"`` — err Lemma 1's text: ``T = {r : q_r ∈ I}``, ``I = [q* - cΔ, q* + Δ]`` with
  ``c ∈ N+`` such that widening to ``[q* - (c+1)Δ, q* + Δ]`` adds nothing; we take the
  *smallest* such c. This differs from the chain: ``q = (5, 3, 1), Δ = 1`` gives
  ``T = {r1, r2}`` (c = 2), while Algorithm 3 and the paper's own discussion of (5, 3, 1)
  (§III-A) give ``T = {r1}``; for ``q = (v, ..., v, 0)`` it gives m = n up to ``v = -2Δ``.

``T`` is decided in exact arithmetic (float scores are exact binary numbers; near-ties of the
float comparison are re-checked with :class:`Real`).

Naive ERR, err Algorithm 2 (:class:`NaiveExponentialRandomizedResponse`, ``err-naive``):
with probability p return ``argmax q``; otherwise lines 4-7 run rejection sampling with
acceptance ``(1-p) w_r`` — the factor ``(1-p)`` cancels in the accepted draw's law, so that
branch is exactly EM::

    Pr[r] = p·[r is the true item] + (1-p) EM_r.

Ties in ``argmax`` (not covered by the paper, which assumes a unique optimum): ``tie_break``
``"uniform"`` (default) or ``"first"``.

Algorithm 3 as printed (:class:`ERRAlgorithm3Sampler`, ``err-alg3``): lines 5-12 visit the
``t = |T|`` members of ``T`` in uniformly random order *without replacement* and return each
with an independent coin of bias ``p/t``; lines 13-18 are EM (the ``(1-p)`` cancels as
above). Its exact output law is therefore::

    Pr[r] = [r ∈ T]·(1 - (1 - p/t)^t)/t + (1 - p/t)^t · EM_r,

which equals Lemma 1 only when ``t = 1`` (for t >= 2, ``1 - (1-p/t)^t < p``). For ``p = 1``
and ``t >= 2`` lines 14-17 never terminate (acceptance probability 0), so the sampler's law is
undefined there and a ValueError is raised.

Accuracy: float — the EM pmf's a-priori relative bound ρ plus ``8u`` for the mixture (all
terms non-negative; ``(1-p/t)^t`` via ``expm1/log1p``: ``+ (t+4)u``); mp — estimate; ball —
rigorous; exact — fmpq when the EM weights are rational (e.g. ``ε = 2 log 2``), else sympy.
Citations: err §III-A (Algorithm 2), §III-B (Algorithm 3), §III-C (Lemma 1), Definition 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ..numbers.backends import Backend
from ..numbers.pmf import Pmf, pmf_from_numbers
from ..numbers.real import Real
from .base import SelectionMechanism, _check_method, lipschitz_shift
from .exponential import ExponentialMechanism
from .randomized_response import TIE_BREAKS, maximisers
from .validation import probability

__all__ = [
    "ExponentialRandomizedResponse",
    "NaiveExponentialRandomizedResponse",
    "ERRAlgorithm3Sampler",
    "candidate_set",
]

U = 2.0**-53
CANDIDATE_SETS = ("chain", "interval")


# ---------------------------------------------------------------------------------------------
# The set T
# ---------------------------------------------------------------------------------------------


def _exact(x: Any) -> Real:
    return Real(Fraction(float(x))) if isinstance(x, (float, np.floating)) else Real.of(x)


def _chain_float(q: np.ndarray, delta: Real) -> list[int]:
    order = np.argsort(-q, kind="stable")
    qs = q[order]
    with np.errstate(over="ignore"):  # a gap beyond float range is inf, which compares as "> Δ": right
        gaps = qs[:-1] - qs[1:]  # one rounding each: |fl(g) - g| <= u g
    df = delta.to_float()
    stop = len(q) - 1  # number of accepted gaps
    for i in np.flatnonzero(gaps > df * (1 - 4 * U)):
        i = int(i)
        if gaps[i] >= df * (1 + 4 * U) or (_exact(qs[i]) - _exact(qs[i + 1]) - delta).sign() > 0:
            stop = i
            break
    return sorted(order[: stop + 1].tolist())


def _chain_exact(q: list[Real], delta: Real) -> list[int]:
    qf = np.array([x.to_float() for x in q])
    order = sorted(range(len(q)), key=lambda i: -qf[i])
    # refine the float order exactly (insertion sort is cheap on an almost sorted list)
    for k in range(1, len(order)):
        j = k
        while j > 0 and q[order[j]] > q[order[j - 1]]:
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    out = [order[0]]
    for a, b in zip(order, order[1:]):
        if (q[a] - q[b] - delta).sign() > 0:
            break
        out.append(b)
    return sorted(out)


def _interval(d: list[Real]) -> list[int]:
    """Smallest c ∈ N+ with no ``d_r = (q* - q_r)/Δ`` in ``(c, c+1]``; T = {d_r <= c}."""
    bins = set()
    for x in d:
        if x.sign() > 0:
            b = _ceil(x) - 1
            bins.add(b)
    c = 1
    while c in bins:
        c += 1
    return [i for i, x in enumerate(d) if (x - c).sign() <= 0]


def _ceil(x: Real) -> int:
    if x.is_rational:
        return -((-x.value.numerator) // x.value.denominator)
    f = math.ceil(x.to_float())
    for k in (f - 1, f, f + 1):  # exact decision near the float guess
        if (x - k).sign() <= 0 and (x - (k - 1)).sign() > 0:
            return k
    raise ValueError(f"cannot decide ceil({x})")  # pragma: no cover


def candidate_set(scores: Any, sensitivity: Any, reading: str = "chain") -> list[int]:
    """The set T of err Lemma 1 / Algorithm 3 (sorted candidate indices).

    Args:
        scores: score vector (float array or exact values).
        sensitivity: Δ (exact).
        reading: ``"chain"`` (err Algorithm 3 lines 1-4) or ``"interval"`` (err Lemma 1 text).
    """
    if reading not in CANDIDATE_SETS:
        raise ValueError(f"candidate_set must be one of {CANDIDATE_SETS}, got {reading!r}")
    delta = Real.of(sensitivity, "sensitivity")
    if isinstance(scores, np.ndarray) and scores.dtype.kind == "f":
        if reading == "chain":
            return _chain_float(scores, delta)
        df = delta.to_float()
        d = (scores.max() - scores) / df
        near = np.abs(d - np.round(d)) <= 8 * U * np.maximum(d, 1.0)
        top = _exact(scores.max())
        # exact for near-integers, float otherwise (the float ceil is then correct)
        dr = [(top - _exact(v)) / delta if nr else Real(Fraction(math.ceil(x) - 0.5)) if x > 0 else Real(Fraction(0))
              for v, x, nr in zip(scores.tolist(), d.tolist(), near.tolist())]
        return _interval(dr)
    q = [Real.of(v, "scores") for v in scores]
    if reading == "chain":
        return _chain_exact(q, delta)
    top = q[0]
    for v in q[1:]:
        if v > top:
            top = v
    return _interval([(top - v) / delta for v in q])


# ---------------------------------------------------------------------------------------------
# Mechanisms
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ERRBase(SelectionMechanism):
    p: Any = None

    exact_limit: ClassVar[int] = 1500
    exact_symbolic_limit: ClassVar[int] = 350
    exact_cost: ClassVar[tuple[float, float] | None] = (7.6e-5, 1.55)
    exact_symbolic_cost: ClassVar[tuple[float, float] | None] = (2.5e-7, 2.87)
    mp_limit: ClassVar[int] = 50_000  # n = 20 000: mp 3.7 s, ball 2.0 s
    ball_limit: ClassVar[int] = 100_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.p is None:
            raise ValueError("p (the coin bias, err Lemma 1) is required")
        object.__setattr__(self, "p", probability(self.p, "p"))

    def _em(self) -> ExponentialMechanism:
        return ExponentialMechanism(self.epsilon, self.sensitivity, self.monotone)

    def input_rounding_shift(self, scores: Any, q: np.ndarray, rounding: float) -> float | None:
        """``a·[r ∈ S]/|S| + b·EM_r``: EM's shift when rounding kept the set ``S``, else unknown."""
        from .validation import exact_scores

        if self._mixture_float(q)[0] != self._mixture_exact(exact_scores(scores))[0]:
            return None
        return lipschitz_shift(self.exponent_scale, rounding)

    # Pr[r] = a·[r ∈ S]/|S| + b·EM_r: subclasses give (S, a, b) by _mixture_float/_mixture_exact
    def pmf_float(self, q: np.ndarray, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        S, a, b, extra_rel = self._mixture_float(q)
        em = self._em().pmf(q)
        vals = b * em.values
        vals[S] += a / len(S)
        with np.errstate(divide="ignore"):
            logv = np.log(vals)
        if b > 0:
            small = vals < 1e-300
            logv[small] = math.log(b) + em.logvalues[small]
        rel = (em.rel_error or 0.0) + 8 * U + extra_rel
        return Pmf(vals, "float", "closed-form", rel_error=rel, abs_error=rel * float(vals.max()),
                   error_kind="a-priori", logvalues=logv, details={"T": S, "m": len(S)})

    def pmf_backend(self, q: list[Real], backend: Backend, method: str | None) -> Pmf:
        _check_method(method, ("closed-form",), "closed-form")
        if backend.is_exact:
            self._check_exact_size(len(q), symbolic=self._exact_weights_symbolic(q))
        S, a, b = self._mixture_exact(q)
        em = self._em().pmf(q, backend=backend)
        Sset = set(S)
        if backend.is_exact:
            kind = em.details["field"]
            if not (a.is_rational and b.is_rational):
                kind = "sympy"
            conv = _to_fmpq if kind == "fmpq" else _to_sympy
            eb, share = conv(b), conv(a / len(S))
            vals = tuple(share + eb * v if i in Sset else eb * v for i, v in enumerate(em.values))
            return Pmf(vals, "exact", "closed-form", 0.0, 0.0, "exact", details={"field": kind, "T": S, "m": len(S)})
        share = backend.from_real(a / len(S))
        bb = backend.from_real(b)
        vals = tuple((share + bb * v) if i in Sset else bb * v for i, v in enumerate(em.values))
        if backend.is_ball:
            return pmf_from_numbers(vals, backend, "closed-form", {"T": S, "m": len(S)})
        est = (em.rel_error or 0.0) + 10.0 ** (-backend.dps + 2)
        return Pmf(vals, str(backend), "closed-form", est, est, "estimate", details={"T": S, "m": len(S)})

    def _em_sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        return self._em().sample(q, rng, size)


def _to_fmpq(x: Real) -> Any:
    from flint import fmpq

    f = x.to_fraction()
    return fmpq(f.numerator, f.denominator)


def _to_sympy(x: Real) -> Any:
    return x.to_sympy()


@dataclass(frozen=True)
class ExponentialRandomizedResponse(_ERRBase):
    """Complete exponential randomized response, err Lemma 1 (T by Algorithm 3 or the interval)."""

    candidate_set: str = "chain"

    short_name: ClassVar[str] = "err"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.candidate_set not in CANDIDATE_SETS:
            raise ValueError(f"candidate_set must be one of {CANDIDATE_SETS}, got {self.candidate_set!r}")

    def _mixture_float(self, q: np.ndarray) -> tuple[list[int], float, float, float]:
        S = candidate_set(q, self.sensitivity, self.candidate_set)
        return S, self.p.to_float(), (1 - self.p).to_float(), 0.0

    def _mixture_exact(self, q: list[Real]) -> tuple[list[int], Real, Real]:
        return candidate_set(q, self.sensitivity, self.candidate_set), self.p, 1 - self.p

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        # Lemma 1's proof: with probability p output a uniform member of T, else run EM.
        S = np.asarray(candidate_set(q, self.sensitivity, self.candidate_set))
        coin = rng.random(size) < self.p.to_float()
        out = self._em_sample(q, rng, size)
        out[coin] = S[rng.integers(0, S.size, int(coin.sum()))]
        return out


@dataclass(frozen=True)
class NaiveExponentialRandomizedResponse(_ERRBase):
    """Naive exponential randomized response, err Algorithm 2 (``tie_break`` uniform|first)."""

    tie_break: str = "uniform"

    short_name: ClassVar[str] = "err-naive"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {self.tie_break!r}")

    def _mixture_float(self, q: np.ndarray) -> tuple[list[int], float, float, float]:
        return maximisers(q, self.tie_break), self.p.to_float(), (1 - self.p).to_float(), 0.0

    def _mixture_exact(self, q: list[Real]) -> tuple[list[int], Real, Real]:
        return maximisers(q, self.tie_break), self.p, 1 - self.p

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        # Algorithm 2 literally: line 1 coin; lines 4-7 rejection sampling with (1-p) w_r.
        top = np.asarray(maximisers(q, self.tie_break))
        coin = rng.random(size) < self.p.to_float()
        out = np.empty(size, dtype=np.int64)
        out[coin] = top[rng.integers(0, top.size, int(coin.sum()))]
        out[~coin] = _rejection(q, self.exponent_scale.to_float(), (1 - self.p).to_float(), rng, int((~coin).sum()))
        return out


@dataclass(frozen=True)
class ERRAlgorithm3Sampler(_ERRBase):
    """The exact output law of err Algorithm 3 as printed (differs from Lemma 1 when |T| >= 2)."""

    candidate_set: str = "chain"

    short_name: ClassVar[str] = "err-alg3"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.candidate_set not in CANDIDATE_SETS:
            raise ValueError(f"candidate_set must be one of {CANDIDATE_SETS}, got {self.candidate_set!r}")

    def _check_terminates(self, t: int) -> None:
        if t >= 2 and (self.p - 1).sign() == 0:
            raise ValueError("p = 1 with |T| >= 2: err Algorithm 3 lines 14-17 never terminate "
                             "(acceptance probability (1-p)·w_r = 0), so its output law is undefined")

    def _mixture_float(self, q: np.ndarray) -> tuple[list[int], float, float, float]:
        S = candidate_set(q, self.sensitivity, self.candidate_set)
        t = len(S)
        self._check_terminates(t)
        pt = (self.p / t).to_float()
        # stay = (1 - p/t)^t, computed as exp(t log1p(-p/t))
        stay = math.exp(t * math.log1p(-pt)) if pt < 1 else 0.0
        go = -math.expm1(t * math.log1p(-pt)) if pt < 1 else 1.0
        return S, go, stay, (t + 4) * U

    def _mixture_exact(self, q: list[Real]) -> tuple[list[int], Real, Real]:
        S = candidate_set(q, self.sensitivity, self.candidate_set)
        t = len(S)
        self._check_terminates(t)
        base = 1 - self.p / t
        if base.is_rational:
            stay = Real(base.value**t)
        else:  # pragma: no cover - p is parsed exactly and is rational unless given symbolically
            stay = Real.of(base.to_sympy() ** t)
        return S, 1 - stay, stay

    def sample(self, q: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        S = np.asarray(candidate_set(q, self.sensitivity, self.candidate_set))
        t = S.size
        self._check_terminates(t)
        pt = (self.p / t).to_float()
        out = np.full(size, -1, dtype=np.int64)
        # lines 6-12: visit T in random order without replacement, coin p/t at each member
        order = rng.random((size, t)).argsort(axis=1)
        heads = rng.random((size, t)) < pt
        hit = heads.any(axis=1)
        first = heads.argmax(axis=1)
        out[hit] = S[order[np.arange(size), first]][hit]
        # lines 13-18: rejection sampling with acceptance (1-p) w_r
        miss = int((~hit).sum())
        if miss:
            out[~hit] = _rejection(q, self.exponent_scale.to_float(), (1 - self.p).to_float(), rng, miss)
        return out


def _rejection(q: np.ndarray, c: float, scale: float, rng: np.random.Generator, size: int) -> np.ndarray:
    """err Algorithms 2/3 repeat-loops: r ~ Uniform, accept with ``scale·exp(c(q_r - q*))``."""
    out = np.empty(size, dtype=np.int64)
    if size == 0:
        return out
    if scale <= 0:
        raise ValueError("rejection loop with acceptance probability 0 never terminates (p = 1)")
    acc = scale * np.exp(c * (q - q.max()))
    filled = 0
    while filled < size:
        need = size - filled
        batch = int(min(max(2 * need / max(float(acc.mean()), 1e-9), 1024), 4_000_000))
        r = rng.integers(0, q.size, batch)
        ok = r[rng.random(batch) < acc[r]][:need]
        out[filled : filled + ok.size] = ok
        filled += ok.size
    return out
