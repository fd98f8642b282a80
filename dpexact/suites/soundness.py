"""Soundness benchmark: the verifier on mechanism variants whose privacy is known.

Every entry names a mechanism variant, the neighbouring relation its *claim* refers to, the
ground truth (``private`` / ``not-private``) and the citation that establishes it. Non-private
variants are built from registered mechanisms by changing one parameter (the wrong exponent,
an understated Δ, heterogeneous noise scales), or with :class:`Misclaimed`, which runs a
mechanism at one ε but *claims* another: the verifier always checks the claimed ε.

Soundness means: no ``private`` entry is ever reported ``violated`` (a violation carries a
re-checked counterexample, so this would be a bug in a mechanism or in the arithmetic), and
every ``not-private`` entry should be ``violated`` with a certified counterexample.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from ..protocols import Backend
from ..numbers.real import Real
from ..verify.neighbourhoods import LInfBox, MonotoneBox, Neighbourhood

__all__ = ["Misclaimed", "BenchmarkEntry", "ChannelEntry", "catalogue", "run_benchmark", "BenchmarkRow"]

Truth = Literal["private", "not-private"]


@dataclass(frozen=True)
class Misclaimed:
    """``inner`` run as is, but advertised as ``claimed_epsilon``-DP (the verifier checks the claim)."""

    inner: Any
    claimed_epsilon: Any

    def __post_init__(self) -> None:
        from ..mechanisms.validation import positive_real

        object.__setattr__(self, "claimed_epsilon", positive_real(self.claimed_epsilon, "claimed_epsilon"))

    @property
    def epsilon(self) -> Real:
        return self.claimed_epsilon

    @property
    def sensitivity(self) -> Real:
        return self.inner.sensitivity

    @property
    def monotone(self) -> bool:
        return self.inner.monotone

    @property
    def short_name(self) -> str:
        return f"{self.inner.short_name}-misclaimed"

    @property
    def law_mechanism(self) -> Any:
        """The mechanism whose law this runs (:class:`dpexact.protocols.SameLaw`)."""
        return self.inner

    # the rest of the protocol (dpexact.protocols.Mechanism) is the inner mechanism's
    @property
    def size(self) -> int | None:
        return self.inner.size

    @property
    def properties(self) -> Any:
        return self.inner.properties

    @property
    def output_kind(self) -> str:
        return self.inner.output_kind

    def outputs(self, n: int) -> Any:
        return self.inner.outputs(n)

    def neighbourhood(self) -> Any:
        return self.inner.neighbourhood()

    def pmf(self, scores: Any, backend: str | Backend = "float", method: str | None = None) -> Any:
        return self.inner.pmf(scores, backend=backend, method=method)

    def logpmf(self, scores: Any) -> np.ndarray:
        return self.inner.logpmf(scores)

    def rvs(self, scores: Any, size: Any = None, random_state: Any = None) -> Any:
        return self.inner.rvs(scores, size=size, random_state=random_state)

    def params(self) -> dict[str, Any]:
        return {**self.inner.params(), "epsilon": str(self.claimed_epsilon), "actual_epsilon": str(self.inner.epsilon)}


@dataclass(frozen=True)
class BenchmarkEntry:
    """One catalogue row: how to build the variant, its relation, the truth and its source."""

    label: str
    build: Callable[[], Any]
    neighbourhood: Callable[[Any], Neighbourhood]
    truth: Truth
    citation: str
    scope: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ChannelEntry:
    """An LDP catalogue row: ``build() -> (exact Channel, claimed ε)``; decided by the exact
    maximum column ratio (brr eq. 2: Pr[y|x] <= e^ε Pr[y|x'] for all x, x', y)."""

    label: str
    build: Callable[[], tuple[Any, Any]]
    truth: Truth
    citation: str


def _grr_channel(n: int, actual: Any, claimed: Any = None) -> Callable[[], tuple[Any, Any]]:
    def build() -> tuple[Any, Any]:
        from ..ldp import GeneralizedRR

        return GeneralizedRR(n, actual).channel("exact"), actual if claimed is None else claimed

    return build


def _brr_channel(n: int, epsilon: Any, claimed: Any = None) -> Callable[[], tuple[Any, Any]]:
    def build() -> tuple[Any, Any]:
        from ..ldp import BipartiteRR, absolute_loss

        return BipartiteRR(absolute_loss(n), epsilon).channel("exact"), epsilon if claimed is None else claimed

    return build


def _m(name: str, **kw: Any) -> Callable[[], Any]:
    def build() -> Any:
        from ..mechanisms.registry import mechanism

        return mechanism(name, **kw)

    return build


def _box(delta: Any = 1) -> Callable[[Any], Neighbourhood]:
    return lambda m: LInfBox(delta)


def _mono(delta: Any = 1) -> Callable[[Any], Neighbourhood]:
    return lambda m: MonotoneBox(delta)


def _hetbox(sens: tuple) -> Callable[[Any], Neighbourhood]:
    return lambda m: LInfBox(1, sens)


def _misclaimed(name: str, actual: Any, claimed: Any, **kw: Any) -> Callable[[], Any]:
    return lambda: Misclaimed(_m(name, epsilon=actual, **kw)(), claimed)


# scopes: cheap mechanisms get the default plan; RNM (float quadrature, ~50 ms/pmf) a small grid
_RNM_SCOPE = {"searches": ("grid",), "n": 2, "values": [0, 1, 2, 3]}
_HET_SCOPE = {"searches": ("grid",), "values": [0, "1/2", 1]}


def catalogue() -> list[BenchmarkEntry | ChannelEntry]:
    """The benchmark catalogue."""
    L3 = "2*log(3)"
    return [
        # ---- private -------------------------------------------------------------------------
        BenchmarkEntry("em ε=1", _m("em", epsilon=1), _box(), "private", "pf Def. 4, §2.3 (McSherry & Talwar 2007)"),
        BenchmarkEntry("em ε=2log3", _m("em", epsilon=L3), _box(), "private", "pf Def. 4"),
        BenchmarkEntry("em Δ=2 ε=1/2", _m("em", epsilon="1/2", sensitivity=2), _box(2), "private", "pf Def. 4"),
        BenchmarkEntry("em monotone ε=1 (monotone nbhd)", _m("em", epsilon=1, monotone=True), _mono(), "private",
                       "err §III-C; McSherry & Talwar 2007 (monotone: ε/Δ)"),
        BenchmarkEntry("em ε=1/2 claimed 1", _misclaimed("em", "1/2", 1), _box(), "private", "pf Def. 4 (ε/2-DP ⇒ ε-DP)"),
        BenchmarkEntry("pf ε=2log3", _m("pf", epsilon=L3), _box(), "private", "pf Theorem 1"),
        BenchmarkEntry("pf ε=2log2", _m("pf", epsilon="2*log(2)"), _box(), "private", "pf Theorem 1"),
        BenchmarkEntry("pf Δ=1/2 ε=2log3", _m("pf", epsilon=L3, sensitivity="1/2"), _box("1/2"), "private", "pf Theorem 1"),
        BenchmarkEntry("pf monotone ε=2log3 (monotone nbhd)", _m("pf", epsilon=L3, monotone=True), _mono(), "private", "pf Remark 1"),
        BenchmarkEntry("rnm-gumbel ε=1", _m("rnm-gumbel", epsilon=1), _box(), "private", "pf §2 / Gumbel-max trick (= EM)",
                       _RNM_SCOPE),
        BenchmarkEntry("rnm-laplace ε=1", _m("rnm-laplace", epsilon=1), _box(), "private", "pf Appendix F (Lap(2Δ/ε))",
                       _RNM_SCOPE),
        BenchmarkEntry("rnm-exp ε=1", _m("rnm-exp", epsilon=1), _box(), "private", "hetsel eq. (3); = PF (Ding et al. 2021)",
                       _RNM_SCOPE),
        BenchmarkEntry("grr ε=1", _m("grr", epsilon=1), _box(), "private", "brr §2.4 eq. (6); hetsel §III-B",
                       {"searches": ("grid", "structured")}),
        BenchmarkEntry("rs-gamma γ=1/2, Δ=(1/2, 1)", _m("rs-gamma", epsilon=1, sensitivities=["1/2", 1], gamma="1/2"),
                       _hetbox(("1/2", 1)), "private", "hetsel §IV-B Algorithm 1 (Liu & Talwar 2019)", _HET_SCOPE),
        BenchmarkEntry("gem (PF/RNM-exp selector), Δ=(1/2, 1)", _m("gem", epsilon=1, sensitivities=["1/2", 1]),
                       _hetbox(("1/2", 1)), "private",
                       "Raskhodnikova & Smith 2015 (q' has sensitivity <= 1) + pf Theorem 1", _HET_SCOPE),
        BenchmarkEntry("gem (EM selector), Δ=(1/2, 1)", _m("gem", epsilon=1, sensitivities=["1/2", 1], selector="em"),
                       _hetbox(("1/2", 1)), "private", "Raskhodnikova & Smith 2015 (GEM = EM on q')", _HET_SCOPE),
        ChannelEntry("grr LDP N=5 ε=log3", _grr_channel(5, "log(3)"), "private",
                     "Kairouz et al. 2016 (k-RR); brr §2.4 eq. (6): levels e^ε/(e^ε+N-1), 1/(e^ε+N-1)"),
        ChannelEntry("brr LDP N=8 ε=log3 (searched m)", _brr_channel(8, "log(3)"), "private",
                     "brr §3: two probability levels in ratio e^ε (by construction, for every m)"),
        ChannelEntry("brr LDP N=12 ε=1 (searched m)", _brr_channel(12, 1), "private",
                     "brr §3: two probability levels in ratio e^ε (by construction, for every m)"),
        # ---- not private ---------------------------------------------------------------------
        ChannelEntry("grr LDP N=5 ε=log9 claimed log3", _grr_channel(5, "log(9)", "log(3)"), "not-private",
                     "brr eq. (6): max column ratio is e^{actual ε} = 9 > 3"),
        ChannelEntry("brr LDP N=8 ε=log9 claimed log3", _brr_channel(8, "log(9)", "log(3)"), "not-private",
                     "brr §3: column ratio e^{actual ε} = 9 > 3"),
        BenchmarkEntry("em monotone exponent on non-monotone q", _m("em", epsilon=1, monotone=True), _box(), "not-private",
                       "pf Remark 1 / Def. 4: ε/Δ needs monotone q (2ε-DP otherwise)"),
        BenchmarkEntry("pf monotone exponent on non-monotone q", _m("pf", epsilon=L3, monotone=True), _box(), "not-private",
                       "pf Remark 1, Prop. 2 (condition tight at q_r <= q*-2Δ)"),
        BenchmarkEntry("em ε=2 claimed 1", _misclaimed("em", 2, 1), _box(), "not-private", "pf Def. 4 (sup ratio e^{2})"),
        BenchmarkEntry("pf ε=4log3 claimed 2log3", _misclaimed("pf", "4*log(3)", L3), _box(), "not-private",
                       "pf Theorem 1 proof (ratio exactly e^ε' for q_r <= q*-2Δ)"),
        BenchmarkEntry("em Δ understated (1/2 vs 1)", _m("em", epsilon=1, sensitivity="1/2"), _box(1), "not-private",
                       "pf Def. 4 (Δ must bound the sensitivity)"),
        BenchmarkEntry("pf Δ understated (1/2 vs 1)", _m("pf", epsilon=L3, sensitivity="1/2"), _box(1), "not-private",
                       "pf Theorem 1 / Prop. 2"),
        BenchmarkEntry("RNMH exponential, Δ=(1/10, 1)", _m("rnm-exp", epsilon=1, scales=["1/5", 2]), _hetbox(("1/10", 1)),
                       "not-private", "hetsel §IV-A (Δ_1 → 0: not ε'-DP for any ε')", _HET_SCOPE),
        BenchmarkEntry("RNMH Laplace Lap(Δ_a/ε), Δ=(1/10, 1, 1)", _m("rnm-laplace", epsilon=1, scales=["1/10", 1, 1]),
                       _hetbox(("1/10", 1, 1)), "not-private", "hetsel Appendix A (ratio → e^{(k-1)ε})", _HET_SCOPE),
        BenchmarkEntry("rnmh (registry), Δ=(1/10, 1)", _m("rnmh", epsilon=1, sensitivities=["1/10", 1]), _hetbox(("1/10", 1)),
                       "not-private", "hetsel §IV-A, eq. (4)", _HET_SCOPE),
        BenchmarkEntry("rnmh-laplace (registry), Δ=(1/10, 1, 1)", _m("rnmh-laplace", epsilon=1, sensitivities=["1/10", 1, 1]),
                       _hetbox(("1/10", 1, 1)), "not-private", "hetsel Appendix A", _HET_SCOPE),
        BenchmarkEntry("rnm-gumbel monotone scale on non-monotone q", _m("rnm-gumbel", epsilon=1, monotone=True), _box(),
                       "not-private", "pf Remark 1 + Gumbel-max trick (= EM with ε/Δ)", _RNM_SCOPE),
    ]


@dataclass(frozen=True)
class BenchmarkRow:
    label: str
    truth: Truth
    verdict: str
    certified: bool
    worst_log_ratio: float
    epsilon: float
    seconds: float
    citation: str
    counterexample: dict | None
    #: the ε bracket (``EpsilonBracket.as_dict()``) and why the verdict is what it is
    bracket: dict | None = None
    reason: str = ""
    #: the search alone (time to a refutation or to the scope's certificate) and the bracket after it
    search_seconds: float = 0.0
    bracket_seconds: float = 0.0

    @property
    def sound(self) -> bool:
        # a violation of a private mechanism, or a proof for a mechanism that is not private
        return not ((self.truth == "private" and self.verdict == "violated")
                    or (self.truth == "not-private" and self.verdict == "private"))


def run_benchmark(entries: list[BenchmarkEntry | ChannelEntry] | None = None, progress: Callable[[BenchmarkRow], None] | None = None) -> list[BenchmarkRow]:
    """Run :func:`dpexact.verify` on every catalogue entry on its neighbourhood, the finite-scope search
    always (``search`` the default set when the entry names none: the benchmark measures the search),
    then the ε bracket; an entry that cannot be built is an error. The bracket's time starts at the
    front door's ``ε bracket`` progress step."""
    from ..verify.router import verify
    from ..verify.options import DEFAULT_SEARCHES

    rows = []
    for e in entries if entries is not None else catalogue():
        if isinstance(e, ChannelEntry):
            row = _run_channel_entry(e)
            rows.append(row)
            if progress is not None:
                progress(row)
            continue
        mech = e.build()
        nb = e.neighbourhood(mech)
        marks: list[float] = []

        def mark(kind: str, text: str) -> None:
            if text.startswith("ε bracket"):
                marks.append(time.perf_counter())

        t0 = time.perf_counter()
        v = verify(mech, neighbourhood=nb, search=e.scope.get("searches", DEFAULT_SEARCHES), n=e.scope.get("n"),
                   values=e.scope.get("values"), name=e.label, progress=mark)
        t2 = time.perf_counter()
        t1 = marks[0] if marks else t2
        row = BenchmarkRow(e.label, e.truth, v.verdict, v.certified, v.worst_log_ratio, float(Real.of(mech.epsilon)),
                           t2 - t0, e.citation, v.counterexample.as_dict() if v.counterexample else None,
                           v.bracket.as_dict() if v.bracket is not None else None, v.reason, t1 - t0, t2 - t1)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def _run_channel_entry(e: ChannelEntry) -> BenchmarkRow:
    """Exact LDP verdict of a channel: the maximum column ratio against e^ε (fmpq/sympy)."""
    import math

    import sympy

    t0 = time.perf_counter()
    channel, claimed = e.build()
    eps = Real.of(claimed)
    r = channel.max_column_ratio()
    private = channel.satisfies_ldp(eps)
    ratio = Real.of(r.ratio) if r.ratio != math.inf else None
    cex = None if private else {"inputs": list(r.rows), "output": r.column, "ratio": str(r.ratio),
                                "bound e^eps": str(sympy.exp(eps.to_sympy())),
                                "recheck": "exact"}
    bracket = _channel_bracket(channel, r, eps)
    dt = time.perf_counter() - t0
    return BenchmarkRow(e.label, e.truth, "private" if private else "violated", True,
                        math.log(ratio.to_float()) if ratio is not None else math.inf, eps.to_float(),
                        dt, e.citation, cex, bracket.as_dict(),
                        "the exact maximum column ratio over every pair of inputs and every output", dt, 0.0)


def _as_exact(x: Any) -> Any:
    """An exact ratio (fmpq, sympy or Fraction) as something :meth:`Real.of` reads."""
    if type(x).__name__ == "fmpq":
        from fractions import Fraction

        return Fraction(int(x.p), int(x.q))
    return x


def _channel_bracket(channel: Any, r: Any, eps: Real) -> Any:
    """Both ends of an LDP channel's level at once: ``log`` of its exact maximum column ratio
    (brr eq. 2), over every pair of its inputs and every output."""
    import math

    from ..verify.bracket import EpsilonBracket, Proof, Witness

    if r.ratio == math.inf:
        w = Witness(math.inf, (str(r.rows[0]),), (str(r.rows[1]),), r.column, "exact", unbounded=True)
        return EpsilonBracket(w, None)
    from ..numbers.backends import ball_context

    with ball_context(128):
        lr = Real.of(_as_exact(r.ratio)).to_arb(128).log()
        lo, hi = float(lr.lower()), float(lr.upper())
    lo = lo if lo <= lr.lower() else math.nextafter(lo, -math.inf)
    hi = hi if hi >= lr.upper() else math.nextafter(hi, math.inf)
    w = Witness(lo, (str(r.rows[0]),), (str(r.rows[1]),), r.column, "exact", lower=f"log({r.ratio})")
    p = Proof(hi, "exact-channel", {"n": "the channel's inputs", "epsilon": str(eps),
                                    "neighbourhood": "every pair of inputs (local DP)", "scores": "—"},
              upper=f"log({r.ratio})")
    return EpsilonBracket(w, p)
