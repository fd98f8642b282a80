"""hetsel: helpers."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence


F = Fraction

BETA = "1/20"  # β = 0.05 (§VI)

GAMMA = "1/20"  # γ = 0.05 (§VI)

N_CAND = 100  # |A| = 100 (§VI)


def _mech(name: str, epsilon: Any, sensitivities: Any, **kw: Any) -> Any:
    import dpexact

    return dpexact.mechanism(name, epsilon=epsilon, sensitivities=[str(s) for s in sensitivities], **kw)


def _prec(bits: int = 128) -> Any:
    """Arb precision ``bits`` for a block (the library's ball context)."""
    from dpexact.numbers.backends import ball_context

    return ball_context(bits)


def _arb(x: Any, prec: int = 128) -> Any:
    from dpexact.numbers import Real

    return Real.of(x).to_arb(prec)


def _f(x: Any) -> float:
    """Midpoint of a ball (or a float) as a float, for reports."""
    return float(x.mid()) if hasattr(x, "mid") else float(x)


def _ball_str(x: Any) -> str:
    return x.str(15, radius=True) if hasattr(x, "str") else str(x)


def _certify(mech: Any, q: Sequence[Any], q2: Sequence[Any], r: int, claimed: Any, sens: Sequence[Any]) -> dict:
    """Re-check ``Pr[M(q)=r] > e^{claimed} Pr[M(q2)=r]`` in ball arithmetic (counterexample object)."""
    from dpexact.verification.decide.counterexample import Counterexample
    from dpexact.verification.neighbourhoods import LInfBox
    from dpexact.suites.soundness import Misclaimed

    m = Misclaimed(mech, claimed)
    cx = Counterexample(m, LInfBox(1, tuple(str(s) for s in sens)), tuple(F(str(x)) for x in q),
                        tuple(F(str(x)) for x in q2), r, 0.0, 0.0)
    rc = cx.recheck("ball", 256)
    cx = Counterexample(m, cx.neighbourhood, cx.scores, cx.neighbour_scores, r, rc.log_ratio_lo, rc.log_ratio_hi)
    return {**cx.as_dict(), "claimed_epsilon": str(claimed), "log_ratio": [rc.log_ratio_lo, rc.log_ratio_hi],
            "proved": rc.proved, "arithmetic": rc.arithmetic, "neighbours": rc.neighbours}


def _pure_dp(mech: Any, vectors: list, sens: Sequence[Any], claimed: Any | None = None) -> dict:
    """Certified pure-DP check of ``mech`` (claimed ε, default its own) on ``vectors`` and their box neighbours."""
    from dpexact.verification.neighbourhoods import LInfBox
    from dpexact.verification.decide.pure_dp import check_pure_dp
    from dpexact.suites.soundness import Misclaimed

    m = mech if claimed is None else Misclaimed(mech, claimed)
    res = check_pure_dp(m, vectors, LInfBox(1, tuple(str(s) for s in sens)))
    out = {"mechanism": getattr(mech, "short_name", "?"), "sensitivities": [str(s) for s in sens],
           "claimed_epsilon": str(m.epsilon), "vectors": len(vectors), "pairs": res.pairs, "triples": res.triples,
           "certified_all": res.certified_all, "max_certified_log_ratio": res.worst_certified_hi,
           "max_float_log_ratio": res.worst_float, "undecided": res.undecided}
    if res.counterexample is not None:
        out["counterexample"] = res.counterexample.as_dict()
    return out
