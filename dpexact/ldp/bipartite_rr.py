"""Bipartite randomized response (BRR), brr §3: the channel (eq. 7) and its local / global search
for the number m of high-weight outputs (Algorithms 1 and 2).

Channel (brr eq. 7): for input x let ``Y_m(x)`` be the m outputs with the smallest loss
λ(x, ·) (ties ordered by ``tie_break``, below). Then

    Pr[y | x] = e^ε / (m e^ε + N − m)   if y ∈ Y_m(x),
                1   / (m e^ε + N − m)   otherwise.

Every row has the same normaliser, so every column ratio is 1 or e^ε: BRR is ε-LDP for any m
(brr Theorem 1.3); m = 1 with λ(x, x) the unique minimum is GRR.

Local search (brr Algorithm 1) for one input with sorted losses λ_1 <= ... <= λ_M: start
from s_1 = e^ε, s_2 = ... = s_M = 1; for i = 2..M evaluate the sign of
``∂Q/∂s_i = Σ_j (λ_i − λ_j) s_j / (Σ_j s_j)²`` (brr eq. 9); the sign is that of
``λ_i Σ_j s_j − Σ_j λ_j s_j`` and is decided *exactly* (e^ε may be irrational: the comparison
``e^ε·A + B`` with rational A, B is settled by a rigorous ball and, if needed, sympy).

Where the paper is ambiguous, both readings are available (``reading=``):

* ``"pseudocode"`` (default) — brr Algorithm 1 line 4 / Algorithm 2 line 6: "if ∂Q/∂s_i < 0
  then s_i = e^ε and m = i, otherwise break": m is the *last* index whose derivative is
  negative. This is also what the authors' published code does (``code/BRR/BRR.py`` in
  github.com/zpbh/BipartiteRR: ``if dQ_dsi > 0: m = i ... else: break`` on similarities),
  so the paper's experiments use it.
* ``"text"`` — brr §3.2 Step 2: "until some s_i satisfies ∂Q/∂s_i >= 0. Stop iterating at
  this point y_i, fix m = i and Y_m = {y_1, ..., y_m}": m is the *first* index whose
  derivative is non-negative (one more than the pseudocode; the same sentence also says
  s_i stays 1, which contradicts y_i ∈ Y_m; we follow "fix m = i" and eq. 7).

Global search (brr Algorithm 2): ``m = min_k m^(k)`` over all inputs k.

Ties (``tie_break``): outputs with equal loss are ordered by index, lower first
(``"lower-index"``, the default, which is what a stable sort of the outputs 1..N gives — as
in the authors' code) or higher first (``"higher-index"``). The order decides which of two
equally distant outputs enters Y_m(x) when m splits a tie (e.g. x − 1 before x + 1); it never
changes m, Q^(k) or Q_g, which depend only on the sorted loss values.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal, Sequence

import numpy as np

from ..mechanisms.validation import positive_real
from ..numbers.backends import Backend, ball_context
from ..numbers.real import Real
from .channel import Channel, normalise_rows
from .generalized_rr import exp_epsilon
from .losses import LossMatrix

__all__ = [
    "BipartiteRR",
    "LocalSearch",
    "GlobalSearch",
    "local_search",
    "global_search",
    "brr_channel",
    "output_order",
    "READINGS",
    "TIE_BREAKS",
]

Reading = Literal["pseudocode", "text"]
TieBreak = Literal["lower-index", "higher-index"]
READINGS = ("pseudocode", "text")
TIE_BREAKS = ("lower-index", "higher-index")


def _check_choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def output_order(row: Sequence[Fraction], tie_break: TieBreak = "lower-index") -> list[int]:
    """Output indices sorted by increasing loss; equal losses by index (lower or higher first)."""
    _check_choice(tie_break, TIE_BREAKS, "tie_break")
    sign = 1 if tie_break == "lower-index" else -1
    if all(getattr(v, "denominator", 1) == 1 for v in row):
        row = [int(v) for v in row]  # same order, faster comparisons
    return sorted(range(len(row)), key=lambda j: (row[j], sign * j))


class _PositiveConstant:
    """Exact sign of ``a·A + B`` for a fixed exact a > 0 and rational A, B.

    Fast path: a float ``â`` with a rigorous bound ``δ >= |â − a|`` (from a 256-bit ball); for
    integer A, B below 2^50 the float value ``fl(â·A + B)`` is within
    ``|A|·δ + 2u(|â·A| + |B|)`` of ``a·A + B`` (two roundings), so its sign is the exact sign
    whenever it exceeds that bound. Otherwise: a 256-bit ball, then :meth:`Real.sign`.
    """

    _U = 2.0**-53

    def __init__(self, a: Real) -> None:
        self.a = a
        self.rational = a.is_rational
        self._ball = a.to_arb(256)
        self._af = float(self._ball.mid())
        self._delta = float(self._ball.rad()) + abs(self._af) * self._U  # |â − a| (mid rounded to float)

    def sign_affine(self, A: "Fraction | int", B: "Fraction | int") -> int:
        if isinstance(A, int) and isinstance(B, int) and abs(A) < 2**50 and abs(B) < 2**50:
            v = self._af * A + B
            err = abs(A) * self._delta + 2 * self._U * (abs(self._af * A) + abs(B)) * 1.01
            if v > err:
                return 1
            if v < -err:
                return -1
        if self.rational:
            v = self.a.value * A + B
            return (v > 0) - (v < 0)
        if A == 0:
            return (B > 0) - (B < 0)
        from flint import arb, fmpq

        A, B = Fraction(A), Fraction(B)
        with ball_context(256):
            v = self._ball * arb(fmpq(A.numerator, A.denominator)) + arb(fmpq(B.numerator, B.denominator))
            if v > 0:
                return 1
            if v < 0:
                return -1
        return (self.a * Real(A) + Real(B)).sign()  # escalates precision, then sympy


@dataclass(frozen=True)
class LocalSearch:
    """Result of brr Algorithm 1 on one input.

    Attributes:
        m: the local number of e^ε-weighted outputs.
        order: output indices by increasing loss (the tie rule applied).
        signs: sign of ∂Q/∂s_i for i = 2, 3, ... as evaluated until the loop stopped.
        reading: ``"pseudocode"`` or ``"text"`` (see the module docstring).
    """

    m: int
    order: tuple[int, ...]
    signs: tuple[int, ...]
    reading: str


def local_search(row: Sequence[Any], epsilon: Any, reading: Reading = "pseudocode",
                 tie_break: TieBreak = "lower-index") -> LocalSearch:
    """brr Algorithm 1 on one row of losses (smaller is better; use ``LossMatrix.as_loss()``
    for utilities). Exact: the loop compares signs exactly.

    Args:
        row: losses λ(x, y) of the outputs (exact: rationals, strings, or floats at their exact value).
        epsilon: ε > 0.
        reading: ``"pseudocode"`` (Alg. 1 line 4, default) or ``"text"`` (§3.2 Step 2).
        tie_break: ``"lower-index"`` or ``"higher-index"``.
    """
    _check_choice(reading, READINGS, "reading")
    eps = positive_real(epsilon, "epsilon")
    lam = _exact_row(row)
    return _local_search(lam, _PositiveConstant(exp_epsilon(eps)), reading, tie_break)


def _exact_row(row: Sequence[Any]) -> list[Fraction]:
    if isinstance(row, (str, bytes)):
        raise TypeError("row must be a sequence of losses")
    vals = [Real.of(v, "loss") for v in row]
    if len(vals) < 2:
        raise ValueError(f"row must hold at least 2 losses, got {len(vals)}")
    if not all(v.is_rational for v in vals):
        raise ValueError("losses must be rational")
    return [v.value for v in vals]


def _local_search(lam: Sequence[Fraction], a: _PositiveConstant, reading: str, tie_break: TieBreak) -> LocalSearch:
    order = output_order(lam, tie_break)
    srt: list[Any] = [lam[j] for j in order]
    if all(v.denominator == 1 for v in srt):  # integer losses: int arithmetic (fast path below)
        srt = [int(v) for v in srt]
    M = len(srt)
    # weights: the first h sorted outputs carry a = e^ε, the rest 1
    h = 1
    l_hi = srt[0]
    l_lo = sum(srt[1:], srt[0] * 0)
    m = 1
    signs = []
    for i in range(2, M + 1):
        li = srt[i - 1]
        # λ_i Σ_j s_j − Σ_j λ_j s_j = a (h λ_i − L_hi) + ((M − h) λ_i − L_lo)
        sg = a.sign_affine(h * li - l_hi, (M - h) * li - l_lo)
        signs.append(sg)
        if sg < 0:
            m = i
            h += 1
            l_hi += li
            l_lo -= li
        else:
            if reading == "text":
                m = i
            break
    return LocalSearch(m, tuple(order), tuple(signs), reading)


@dataclass(frozen=True)
class GlobalSearch:
    """Result of brr Algorithm 2: ``m = min_k m^(k)``.

    Attributes:
        m: the global (uniform) m.
        local_m: ``m^(k)`` for every input k (index order).
        argmin: the inputs attaining the minimum.
        reading: the local-search reading used.
    """

    m: int
    local_m: tuple[int, ...]
    argmin: tuple[int, ...]
    reading: str


def global_search(loss: LossMatrix, epsilon: Any, reading: Reading = "pseudocode",
                  tie_break: TieBreak = "lower-index") -> GlobalSearch:
    """brr Algorithm 2 for a general loss/utility matrix (utilities are minimised as −λ)."""
    if not isinstance(loss, LossMatrix):
        loss = LossMatrix.from_rows(loss)
    _check_choice(reading, READINGS, "reading")
    eps = positive_real(epsilon, "epsilon")
    a = _PositiveConstant(exp_epsilon(eps))
    ms = tuple(_local_search(r, a, reading, tie_break).m for r in loss.as_loss())
    m = min(ms)
    return GlobalSearch(m, ms, tuple(k for k, v in enumerate(ms) if v == m), reading)


def brr_channel(loss: LossMatrix, epsilon: Any, m: int, backend: "str | Backend" = "exact",
                tie_break: TieBreak = "lower-index", prior: Sequence[Any] | None = None) -> Channel:
    """The BRR channel of brr eq. (7) for a given m (1 <= m <= M), with Y_m(x) the m outputs of
    smallest loss (largest utility) for x, ties by ``tie_break``."""
    if not isinstance(loss, LossMatrix):
        loss = LossMatrix.from_rows(loss)
    n, M = loss.shape
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
        raise TypeError(f"m must be an integer, got {type(m).__name__}")
    if not 1 <= int(m) <= M:
        raise ValueError(f"m must lie in [1, {M}], got {m}")
    m = int(m)
    eps = positive_real(epsilon, "epsilon")
    a, one = exp_epsilon(eps), Real(Fraction(1))
    weights = []
    for row in loss.as_loss():
        top = set(output_order(row, tie_break)[:m])
        weights.append([a if y in top else one for y in range(M)])
    rows, be_name, err = normalise_rows(weights, backend)
    return Channel.from_rows(rows, loss, prior, name=f"brr(m={m})", entry_abs_error=err, details={"m": m}, backend=be_name)


@dataclass(frozen=True)
class BipartiteRR:
    """BRR (brr §3) on a loss/utility matrix.

    Args:
        loss: a :class:`LossMatrix` (e.g. ``absolute_loss(N)``, ``jaccard_similarity(N)``).
        epsilon: ε > 0.
        m: a fixed m, or ``None`` to determine it by ``m_rule``.
        m_rule: ``"search"`` (brr Algorithm 2, default) or ``"closed-form"`` (brr Algorithm 3 /
            Theorem 1; only for ``|x − y|`` on an equidistant domain).
        reading: local-search reading, ``"pseudocode"`` (default) or ``"text"``.
        tie_break: ``"lower-index"`` (default) or ``"higher-index"``.
    """

    loss: LossMatrix
    epsilon: Any
    m: int | None = None
    m_rule: str = "search"
    reading: str = "pseudocode"
    tie_break: str = "lower-index"

    short_name: ClassVar[str] = "brr"

    def __post_init__(self) -> None:
        if not isinstance(self.loss, LossMatrix):
            object.__setattr__(self, "loss", LossMatrix.from_rows(self.loss))
        object.__setattr__(self, "epsilon", positive_real(self.epsilon, "epsilon"))
        _check_choice(self.m_rule, ("search", "closed-form"), "m_rule")
        _check_choice(self.reading, READINGS, "reading")
        _check_choice(self.tie_break, TIE_BREAKS, "tie_break")
        if self.m is not None:
            if isinstance(self.m, bool) or not isinstance(self.m, (int, np.integer)):
                raise TypeError(f"m must be an integer, got {type(self.m).__name__}")
            if not 1 <= int(self.m) <= self.loss.shape[1]:
                raise ValueError(f"m must lie in [1, {self.loss.shape[1]}], got {self.m}")
            object.__setattr__(self, "m", int(self.m))

    @property
    def domain(self) -> int:
        return self.loss.shape[0]

    def m_search(self) -> GlobalSearch:
        return global_search(self.loss, self.epsilon, self.reading, self.tie_break)  # type: ignore[arg-type]

    def m_closed_form(self) -> int:
        from .brr_closed_form import closed_form_m, is_equidistant_abs

        if not is_equidistant_abs(self.loss):
            raise ValueError("m_rule='closed-form' (brr Algorithm 3) needs the loss c·|x − y| on an equidistant domain")
        return closed_form_m(self.domain, self.epsilon).m

    def resolved_m(self) -> int:
        """The m used: the fixed one, else by ``m_rule``."""
        if self.m is not None:
            return self.m
        return self.m_search().m if self.m_rule == "search" else self.m_closed_form()

    def channel(self, backend: "str | Backend" = "exact", prior: Sequence[Any] | None = None) -> Channel:
        return brr_channel(self.loss, self.epsilon, self.resolved_m(), backend, self.tie_break, prior)  # type: ignore[arg-type]

    def sample(self, x: int, size: int | None = None, random_state: Any = None) -> Any:
        """Run the randomiser: with probability m e^ε/(m e^ε + N − m) report a uniform point of
        Y_m(x), otherwise a uniform point outside it (the two parts of eq. 7)."""
        n, M = self.loss.shape
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= int(x) < n:
            raise ValueError(f"x must be an input index in [0, {n - 1}], got {x!r}")
        m = self.resolved_m()
        order = np.array(output_order(self.loss.as_loss()[int(x)], self.tie_break))  # type: ignore[arg-type]
        rng = np.random.default_rng(random_state)
        k = 1 if size is None else int(size)
        a = exp_epsilon(self.epsilon).to_float()
        high = rng.random(k) < m * a / (m * a + M - m)
        pick_hi = order[rng.integers(0, m, size=k)]
        pick_lo = order[m + rng.integers(0, max(M - m, 1), size=k)] if M > m else pick_hi
        out = np.where(high, pick_hi, pick_lo)
        return int(out[0]) if size is None else out

    def params(self) -> dict[str, Any]:
        return {"loss": self.loss.name, "domain": self.domain, "epsilon": str(self.epsilon), "m": self.m,
                "m_rule": self.m_rule, "reading": self.reading, "tie_break": self.tie_break}
