"""hetsel: §IV-C/D: GEM and mGEM."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..catalogue import Verdict, claim
from ._helpers import F, _arb, _ball_str, _mech, _prec, _pure_dp


def _gem_prime(q: Sequence[Fraction], d: Sequence[Fraction], t: Fraction) -> list[Fraction]:
    """hetsel eq. (6) in exact rationals (t rational): q'_a = min_{a'} ((q_a − tΔ_a) − (q_a' − tΔ_a'))/(Δ_a + Δ_a')."""
    u = [x - t * y for x, y in zip(q, d)]
    return [min((u[a] - u[b]) / (d[a] + d[b]) for b in range(len(q))) for a in range(len(q))]


@claim("hetsel.equation.6",
       "The GEM transform q'(a,D) = min_{a'} ((q(a,D) − tΔ_a) − (q(a',D) − tΔ_{a'}))/(Δ_a + Δ_{a'}) (eq. 6), "
       "equal to min_{a'} ((q(a,D) − q(a',D)) − t(Δ_a − Δ_{a'}))/(Δ_a + Δ_{a'}) (eq. 7), has overall sensitivity at most 1; "
       "the optimal candidate (according to q') has q' = 0.", "hetsel §IV-C, eqs. (6)-(7); §IV-D",
       expected="holds",
       scope_quick="sympy identity (6) = (7); exact rationals: 603 neighbour pairs (all box vertices) of random q, Δ, rational t; library transform of gem/mgem vs eq. (6) on 14 entries (exact)",
       scope_full="sympy identity (6) = (7); exact rationals: 2088 neighbour pairs (all box vertices) of random q, Δ, rational t; library transform of gem/mgem vs eq. (6) on 14 entries (exact)")
def equation_6(quick: bool) -> Verdict:
    import sympy

    qa, qb, t, da, db = sympy.symbols("q_a q_b t Delta_a Delta_b", positive=True)
    eq67 = sympy.simplify(((qa - t * da) - (qb - t * db)) / (da + db) - ((qa - qb) - t * (da - db)) / (da + db)) == 0
    rng = np.random.default_rng(6)
    worst, tight, bad, checked, lib_checked = F(0), 0, [], 0, 0
    for _ in range(15 if quick else 60):
        n = int(rng.integers(2, 5))
        q = [F(int(v), 4) for v in rng.integers(-8, 9, n)]
        d = [F(int(v), 4) for v in rng.integers(1, 9, n)]
        t = F(int(rng.integers(-12, 13)), 3)
        qp = _gem_prime(q, d, t)
        if max(qp) != 0:
            bad.append({"q": [str(x) for x in q], "Delta": [str(x) for x in d], "t": str(t), "max q'": str(max(qp))})
        for z in itertools.product((-1, 0, 1), repeat=n):
            q2 = [x + s * y for x, s, y in zip(q, z, d)]
            qp2 = _gem_prime(q2, d, t)
            dev = max(abs(x - y) for x, y in zip(qp, qp2))
            checked += 1
            worst = max(worst, dev)
            tight += dev == 1
            if dev > 1:
                bad.append({"q": [str(x) for x in q], "q_neighbour": [str(x) for x in q2], "Delta": [str(x) for x in d],
                            "t": str(t), "max |Δq'|": str(dev)})
    # the library's exact transform (t = ±2 log(n/β)/ε) is eq. (6) at that t
    from dpexact.numbers import Real

    for name in ("gem", "mgem"):
        for q, d in (([0, 1, "1/2"], [1, "1/2", 2]), ([3, -1, 0, 2], ["1/4", 1, 1, 3])):
            m = _mech(name, "1/2", d)
            lib = m.transformed_scores([str(x) for x in q])
            tt = m.t(len(q))
            # exact check: q'_a = min over a' of the eq. (7) ratios, with t symbolic-exact
            for a in range(len(q)):
                vals = [(Real.of(q[a]) - Real.of(q[b]) - tt * (Real.of(d[a]) - Real.of(d[b]))) / (Real.of(d[a]) + Real.of(d[b]))
                        for b in range(len(q))]
                mn = vals[0]
                for v in vals[1:]:
                    if (v - mn).sign() < 0:
                        mn = v
                lib_checked += 1
                if (lib[a] - mn).sign() != 0:
                    bad.append({"mechanism": name, "q": q, "a": a, "library": str(lib[a]), "eq6": str(mn)})
    scope = (f"sympy identity (6) = (7); exact rationals: {checked} neighbour pairs (all box vertices) of random q, Δ, rational t; "
             f"library transform of gem/mgem vs eq. (6) on {lib_checked} entries (exact)")
    ev = {"eq6_equals_eq7": bool(eq67), "max |q'(D) − q'(D')|": str(worst), "pairs attaining 1": tight, "violations": bad[:5]}
    return Verdict("holds" if eq67 and not bad else "refuted", True, scope, ev)


@claim("hetsel.text.gem-privacy",
       "GEM and mGEM (eq. 6 with t = ±2 log(|A|/β)/ε, then RNM with Exp(ε/2) noise) are ε-DP: q' has sensitivity 1.",
       "hetsel §IV-C, §IV-D, footnote 3",
       expected="holds",
       scope_quick="ε = 1, β = 1/20, box-neighbour vertices of the listed vectors; exact/arb (pure_dp verifier)",
       scope_full="ε = 1, β = 1/20, box-neighbour vertices of the listed vectors; exact/arb (pure_dp verifier)")
def gem_privacy(quick: bool) -> Verdict:
    configs = [("gem", ["1/2", "1"], [[0, 0], [0, 1]]), ("mgem", ["1/2", "1"], [[0, 0], [0, 1]])]
    if not quick:
        configs += [("gem", ["1/4", "1", "2"], [[0, 0, 0], [0, 1, -1]]), ("mgem", ["1/4", "1", "2"], [[0, 0, 0], [0, 1, -1]])]
    rows = [_pure_dp(_mech(name, 1, sens), vecs, sens) for name, sens, vecs in configs]
    bad = [r for r in rows if "counterexample" in r]
    ok = all(r["certified_all"] for r in rows)
    scope = "ε = 1, β = 1/20, box-neighbour vertices of the listed vectors; exact/arb (pure_dp verifier)"
    if bad:
        return Verdict("refuted", True, scope, {"rows": rows})
    return Verdict("holds" if ok else "inconclusive", ok, scope, {"rows": rows})


def _utility_failure(name: str, q: list[str], d: list[str], eps: str, beta: str, which: str) -> tuple[Any, Any]:
    """(Pr[the §IV-D utility inequality fails], β) in arb for GEM ('gem') or mGEM ('mgem').

    ``which = "bound"``: q_out ≥ max_j (q_j − 4Δ_j log(|A|/β)/ε); ``"general"``: for all j,
    q_out ≥ q_j − Δ_out(T − t) − Δ_j(T + t), T = 2 log(|A|/β)/ε, t = ±T.
    """
    from flint import arb

    m = _mech(name, eps, d, beta=beta)
    n = len(q)
    with _prec(128):
        p = m.pmf(q, backend="ball").values
        T = 2 * (arb(n) / _arb(beta)).log() / _arb(eps)
        t = T if name == "gem" else -T
        qa = [_arb(x) for x in q]
        da = [_arb(x) for x in d]
        fail = arb(0)
        undecided = 0
        for r in range(n):
            if which == "bound":
                lhs = [qa[r] - (qa[j] - 2 * T * da[j]) for j in range(n)]
            else:
                lhs = [qa[r] - (qa[j] - da[r] * (T - t) - da[j] * (T + t)) for j in range(n)]
            if any(x < 0 for x in lhs):
                fail = fail + p[r]
            elif not all(x >= 0 for x in lhs):
                undecided += 1
                fail = fail + p[r]  # conservative
        return fail, undecided


@claim("hetsel.text.gem-utility",
       "With probability at least 1 − β the RNM step gives q'_out ≥ max q' − 2 log(|A|/β)/ε; hence for all j "
       "q_out ≥ q_j − Δ_out(2 log(|A|/β)/ε − t) − Δ_j(2 log(|A|/β)/ε + t), and with t = 2 log(|A|/β)/ε GEM achieves "
       "q_out ≥ max_j {q_j − 4Δ_j log(|A|/β)/ε}.", "hetsel §IV-D",
       expected="holds",
       scope_quick="18 (mechanism, inequality, q, Δ, ε, β) with n ≤ 5; arb pmf; failure probability compared with β",
       scope_full="60 (mechanism, inequality, q, Δ, ε, β) with n ≤ 5; arb pmf; failure probability compared with β")
def gem_utility(quick: bool) -> Verdict:
    rng = np.random.default_rng(7)
    rows, bad, und, worst = [], [], 0, 0.0
    for _ in range(6 if quick else 20):
        n = int(rng.integers(2, 6))
        q = [f"{int(v)}/2" for v in rng.integers(-20, 21, n)]
        d = [f"{int(v)}/4" for v in rng.integers(1, 13, n)]
        eps = str(rng.choice(["1/2", "2", "8", "20"]))
        beta = str(rng.choice(["1/20", "1/2"]))
        for name, which in (("gem", "bound"), ("gem", "general"), ("mgem", "general")):
            fail, u = _utility_failure(name, q, d, eps, beta, which)
            und += u
            ok = fail <= _arb(beta)
            worst = max(worst, float((fail / _arb(beta)).upper()))
            rows.append({"mechanism": name, "inequality": which, "q": q, "Delta": d, "epsilon": eps, "beta": beta,
                         "Pr[fails]": _ball_str(fail)})
            if not ok:
                bad.append(rows[-1])
    scope = f"{len(rows)} (mechanism, inequality, q, Δ, ε, β) with n ≤ 5; arb pmf; failure probability compared with β"
    ev = {"rows": rows[:6], "max Pr[fails]/β": worst, "violations": bad, "undecided outputs (counted as failures)": und}
    return Verdict("refuted" if bad else "holds", True, scope, ev)
