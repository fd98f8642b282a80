"""hetsel: Appendix J: utility-bound heuristics (eqs. 18-19)."""

from __future__ import annotations

from typing import Sequence

from ..catalogue import Verdict, claim
from ._helpers import BETA, F, _arb, _ball_str, _prec


def _bounds(q: Sequence[str], d: Sequence[str], eps: str, beta: str) -> dict:
    """GEM's bound max_j (q_j − 4Δ_j L/ε), RNM's q* − 2ΔL/ε (L = log(|A|/β)) and q_−, in arb."""
    with _prec(128):
        from flint import arb

        n = len(q)
        L = (arb(n) / _arb(beta)).log()
        e = _arb(eps)
        qa, da = [_arb(x) for x in q], [_arb(x) for x in d]
        gem = max((qa[j] - 4 * da[j] * L / e for j in range(n)), key=lambda v: float(v.mid()))
        star = max(range(n), key=lambda j: F(q[j]))
        rnm = qa[star] - 2 * max(da, key=lambda v: float(v.mid())) * L / e
        gem_star = qa[star] - 4 * da[star] * L / e
        return {"gem": gem, "gem_at_a*": gem_star, "rnm": rnm, "q_minus": min(qa, key=lambda v: float(v.mid())), "L/eps": L / e,
                "star": star}


@claim("hetsel.equation.18",
       "GEM has a utility bound worse than RNM's when the sensitivity of the best candidate exceeds half the maximum "
       "sensitivity: Δ_* > max_i Δ_i / 2 (eq. 18).", "hetsel Appendix J, eq. (18)",
       expected="refuted",
       severity="erratum",
       explanation="holds for GEM's bound evaluated at j = a* only; the §IV-D bound is a maximum over j",
       scope_quick="one certified instance (arb); the equivalence at j = a* is algebra",
       scope_full="one certified instance (arb); the equivalence at j = a* is algebra")
def equation_18(quick: bool) -> Verdict:
    q, d, eps, beta = ["0", "-1/100"], ["1", "1/100"], "1", BETA
    b = _bounds(q, d, eps, beta)
    cond = F(d[b["star"]]) > max(F(x) for x in d) / 2
    better = b["gem"] > b["rnm"]
    ev = {"q": q, "Delta": d, "epsilon": eps, "beta": beta, "Δ_* > max Δ/2": cond,
          "GEM bound max_j(q_j − 4Δ_j log(|A|/β)/ε)": _ball_str(b["gem"]), "RNM bound q* − 2Δ log(|A|/β)/ε": _ball_str(b["rnm"]),
          "GEM bound at j = a* only": _ball_str(b["gem_at_a*"]),
          "holds if": "GEM's bound is evaluated at j = a* only (q* − 4Δ_* L/ε < q* − 2ΔL/ε ⇔ Δ_* > Δ/2); the §IV-D bound "
                      "is a maximum over j and can use a near-optimal low-sensitivity candidate"}
    ok = cond and bool(better)
    return Verdict("refuted" if ok else "inconclusive", ok, "one certified instance (arb); the equivalence at j = a* is algebra", ev)


@claim("hetsel.equation.19",
       "GEM has a utility bound worse than selecting a candidate uniformly at random when "
       "Δ_* > (q_* − q_−)/(4 log(|A|/β)/ε) (eq. 19; q_*, q_− the best and worst scores).", "hetsel Appendix J, eq. (19)",
       expected="refuted",
       severity="erratum",
       explanation="holds for GEM's bound evaluated at j = a* only",
       scope_quick="one certified instance (arb)",
       scope_full="one certified instance (arb)")
def equation_19(quick: bool) -> Verdict:
    q, d, eps, beta = ["0", "-1/100", "-1"], ["1", "1/100", "1"], "1", BETA
    b = _bounds(q, d, eps, beta)
    with _prec(128):
        rhs = (_arb(q[0]) - _arb(q[2])) / (4 * b["L/eps"])
    cond = _arb(d[0]) > rhs
    better = b["gem"] > b["q_minus"]
    ev = {"q": q, "Delta": d, "epsilon": eps, "beta": beta, "Δ_*": d[0], "(q*−q−)/(4 log(|A|/β)/ε)": _ball_str(rhs),
          "GEM bound": _ball_str(b["gem"]), "random's worst case q_−": q[2], "GEM bound at j = a* only": _ball_str(b["gem_at_a*"]),
          "holds if": "GEM's bound is evaluated at j = a* only (q* − 4Δ_* L/ε < q_− ⇔ eq. 19)"}
    ok = bool(cond) and bool(better)
    return Verdict("refuted" if ok else "inconclusive", ok, "one certified instance (arb)", ev)


@claim("hetsel.text.gem-bound-monotone",
       "Lower values of ε and β, and higher values of Δ_* and |A|, decrease the lower bound q_* − 4Δ_* log(|A|/β)/ε of "
       "GEM's utility.", "hetsel Appendix J",
       expected="holds",
       scope_quick="sympy derivatives, for |A|/β > 1",
       scope_full="sympy derivatives, for |A|/β > 1")
def gem_bound_monotone(quick: bool) -> Verdict:
    import sympy

    qs, D, A, beta, eps = sympy.symbols("q_star Delta_star A beta epsilon", positive=True)
    bound = qs - 4 * D * sympy.log(A / beta) / eps
    derivs = {"d/dε": sympy.diff(bound, eps), "d/dβ": sympy.diff(bound, beta), "d/dΔ*": sympy.diff(bound, D),
              "d/d|A|": sympy.diff(bound, A)}
    # signs for A/β > 1 (log positive): write log(A/β) = ℓ > 0
    ell = sympy.symbols("ell", positive=True)
    signs = {k: sympy.sign(sympy.simplify(v.subs(sympy.log(A / beta), ell))) for k, v in derivs.items()}
    want = {"d/dε": 1, "d/dβ": 1, "d/dΔ*": -1, "d/d|A|": -1}
    ok = all(signs[k] == want[k] for k in want)
    return Verdict("holds" if ok else "refuted", True, "sympy derivatives, for |A|/β > 1",
                   {"derivatives": {k: str(v) for k, v in derivs.items()}, "signs": {k: int(v) for k, v in signs.items()}})
