"""hetsel: §VII: combined GEM."""

from __future__ import annotations

from ..catalogue import Verdict, claim
from ._helpers import F, _mech, _pure_dp


@claim("hetsel.algorithm.2",
       "Combined GEM (Algorithm 2: report 1[spearman(q, Δ) ≥ 0] by 2-randomised response with ε_c, then run mGEM (report 1) "
       "or GEM (report 0) with ε_g = ε − ε_c) is differentially private with total budget ε = ε_c + ε_g.",
       "hetsel §VII, Algorithm 2",
       expected="holds",
       scope_quick="ε = 1, ε_c = 0.6 (default), β = 1/20; box-neighbour vertices of the listed vectors (including pairs whose Spearman bit differs); exact/arb",
       scope_full="ε = 1, ε_c = 0.6 (default), β = 1/20; box-neighbour vertices of the listed vectors (including pairs whose Spearman bit differs); exact/arb")
def algorithm_2(quick: bool) -> Verdict:
    configs = [(["1/2", "1", "2"], [[0, 0, 0], [0, 1, "1/2"]])]
    if not quick:
        configs += [(["1/2", "1"], [[0, 0], [0, 1], [1, 0]]), (["1", "1/4", "2"], [[0, 0, 0], [1, 0, 0], [0, 0, 1]])]
    rows, flips = [], 0
    from dpexact.mechanisms.heterogeneous.combined_gem import spearman_sign
    from dpexact.verification.neighbourhoods import LInfBox

    for sens, vecs in configs:
        m = _mech("combined-gem", 1, sens)
        rows.append(_pure_dp(m, vecs, sens))
        nb = LInfBox(1, tuple(sens))
        for v in vecs:
            b0 = spearman_sign([F(str(x)) for x in v], [F(s) for s in sens]) >= 0
            flips += sum((spearman_sign(list(w), [F(s) for s in sens]) >= 0) != b0 for w in nb.candidates([F(str(x)) for x in v]))
    bad = [r for r in rows if "counterexample" in r]
    ok = all(r["certified_all"] for r in rows)
    scope = ("ε = 1, ε_c = 0.6 (default), β = 1/20; box-neighbour vertices of the listed vectors (including pairs whose "
             "Spearman bit differs); exact/arb")
    ev = {"rows": rows, "neighbour pairs with a flipped correlation bit": flips,
          "argument": "2RR_{ε_c} of any bit is ε_c-DP; GEM/mGEM with ε_g are ε_g-DP; sequential composition"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("holds" if ok and flips else "inconclusive", ok, scope, ev)
