"""hetsel: §III-B: RNM."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..catalogue import Verdict, claim
from ._helpers import _ball_str, _mech, _pure_dp


@claim("hetsel.text.rnm-dp",
       "Report noisy max (eq. 3: z_a ~ Exp(ε/2Δ), Δ = max_a Δ_a) is ε-DP for every ε > 0.", "hetsel §III-B, eq. (3)",
       expected="holds",
       scope_quick="rnm-global (PF law at the global Δ); candidate-wise box neighbours (vertices) of the listed vectors; exact/arb",
       scope_full="rnm-global (PF law at the global Δ); candidate-wise box neighbours (vertices) of the listed vectors; exact/arb")
def rnm_dp(quick: bool) -> Verdict:
    configs = [(["1/2", "1"], "2*log(2)", [[0, 0], [0, "1/2"], [0, 2]]), (["1", "1", "2"], "1", [[0, 0, 0], [0, -1, 1]])]
    if not quick:
        configs += [(["1/4", "1", "1/2"], "1/3", [[0, 0, 0], [1, 0, -2], [0, "1/2", "1/4"]])]
    rows = [_pure_dp(_mech("rnm-global", eps, sens), vecs, sens) for sens, eps, vecs in configs]
    bad = [r for r in rows if "counterexample" in r]
    ok = all(r["certified_all"] for r in rows)
    scope = "rnm-global (PF law at the global Δ); candidate-wise box neighbours (vertices) of the listed vectors; exact/arb"
    if bad:
        return Verdict("refuted", True, scope, {"rows": rows})
    return Verdict("holds" if ok else "inconclusive", ok, scope, {"rows": rows})


@claim("hetsel.text.rnm-exp-dominates",
       "RNM with exponential noise has expected utility dominating RNM with Laplace or Gumbel noise "
       "(cited from McKenna & Sheldon 2020; Ding et al. 2021).", "hetsel §III-B, footnote 3",
       expected="holds",
       scope_quick="8 comparisons on random rational score vectors, n ≤ 4, ε ∈ {0.1, 1, 3}, Δ = 1; scales: Exp mean 2Δ/ε (= PF), Gumbel 2Δ/ε (= EM), Lap(2Δ/ε) (pf App. F); arb expected errors",
       scope_full="24 comparisons on random rational score vectors, n ≤ 4, ε ∈ {0.1, 1, 3}, Δ = 1; scales: Exp mean 2Δ/ε (= PF), Gumbel 2Δ/ε (= EM), Lap(2Δ/ε) (pf App. F); arb expected errors")
def rnm_exp_dominates(quick: bool) -> Verdict:
    from dpexact.utility import expected_error

    rng = np.random.default_rng(11)
    rows, bad, undecided = [], [], 0
    for _ in range(4 if quick else 12):
        n = int(rng.integers(2, 5))
        eps = str(rng.choice(["1/10", "1", "3"]))
        q = ["0"] + [f"-{int(k)}/4" if k else "0" for k in rng.integers(0, 13, n - 1)]
        e_exp = expected_error(_mech_plain("pf", eps), q, backend="ball").value
        for other in ("em", "rnm-laplace"):
            e_o = expected_error(_mech_plain(other, eps), q, backend="ball").value
            d = e_o - e_exp
            rows.append({"q": q, "epsilon": eps, "vs": other, "E_other - E_exp": _ball_str(d)})
            if d < 0:
                bad.append(rows[-1])
            elif not d >= 0:
                undecided += 1
    scope = (f"{len(rows)} comparisons on random rational score vectors, n ≤ 4, ε ∈ {{0.1, 1, 3}}, Δ = 1; scales: Exp mean 2Δ/ε "
             "(= PF), Gumbel 2Δ/ε (= EM), Lap(2Δ/ε) (pf App. F); arb expected errors")
    ev = {"rows": rows[:8], "violations": bad, "undecided (equal within balls)": undecided}
    if bad:
        return Verdict("refuted", True, scope, ev)
    return Verdict("holds", True, scope, ev)


def _mech_plain(name: str, epsilon: Any) -> Any:
    import dpexact

    return dpexact.mechanism(name, epsilon=epsilon)
