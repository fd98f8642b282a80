"""brr: Section 3.4, Figure 3, Appendix A.1: the explicit m."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.backends import ball_context

from ..catalogue import Figure, Verdict, claim
from ._helpers import _N_MAX_GRID, _alg3, _budget, _crosscheck_library, _eps_grid, _global_m_large, _grid, _local_errors, _local_ms, _parts, _sorted_row, _sorted_rows


@claim("brr.figure.3", "Sorted distance rows of adjacent priori points k − 1 and k coincide up to a single column j0 and differ by +1 "
       "after it; with s_1..s_{i−1} = e^ε the derivative numerator of row k − 1 is smaller than row k's for i ≤ j0 and larger for "
       "i > j0 (the ≺ marks); rows k and N + 1 − k coincide (symmetry).", "brr §3.4, Figure 3; App. A.1 (first two displays)",
       expected="holds",
       scope_quick="exact integer arithmetic (numerator = e^ε·A + B, compared coefficientwise), N = 2..30, all adjacent rows up to the middle, all i",
       scope_full="exact integer arithmetic (numerator = e^ε·A + B, compared coefficientwise), N = 2..60, all adjacent rows up to the middle, all i")
def figure_3(quick: bool) -> Verdict:
    nmax = 30 if quick else 60
    checked, bad, j0s = 0, [], {}
    for n in range(2, nmax + 1):
        lam = _sorted_rows(n)
        if not np.array_equal(lam, lam[::-1]):
            bad.append({"N": n, "symmetry": False})
        A, B = _parts(lam)
        for k in range(2, (n + 1) // 2 + 1):  # 1-indexed rows k−1, k with k ≤ ⌈N/2⌉
            up, lo = lam[k - 2], lam[k - 1]
            diff = up - lo
            j0 = int(np.argmax(diff != 0)) if np.any(diff) else n
            if not (np.all(diff[:j0] == 0) and np.all(diff[j0:] == 1)) or j0 == n:
                bad.append({"N": n, "k": k, "diff": diff.tolist()})
                continue
            j0s.setdefault("j0 = 2k − 2", 0)
            j0s["j0 = 2k − 2"] += j0 == 2 * k - 2
            for i in range(2, n + 1):  # numerator = a·A + B; row k−1 minus row k
                dA, dB = int(A[k - 2, i - 1] - A[k - 1, i - 1]), int(B[k - 2, i - 1] - B[k - 1, i - 1])
                want = (0, -(n - j0)) if i <= j0 else (j0, 0)  # −Σ_{j>j0} s_j  /  +Σ_{j≤j0} s_j
                checked += 1
                if (dA, dB) != want:
                    bad.append({"N": n, "k": k, "i": i, "got": (dA, dB), "want": want})
    return Verdict("refuted" if bad else "holds", True,
                   f"exact integer arithmetic (numerator = e^ε·A + B, compared coefficientwise), N = 2..{nmax}, all adjacent rows up to the middle, all i",
                   {"comparisons": checked, "failures": bad[:5], "j0": j0s, "note": "j0 = 2k − 2 for the pair (k − 1, k); the differences are −(N − j0) < 0 and +j0·e^ε > 0"})


@claim("brr.text.min-m-at-extreme-or-middle", "The global minimal m = min_k m^(k) can occur only in the row of an extreme (1, N) or "
       "middle priori point.", "brr §3.4 (paragraph before Algorithm 3); App. A.1",
       expected="holds",
       scope_quick="exact derivative signs on every row, |x − y|, N = 2..300, ε ∈ {log(11/10), log(3/2), log(2), log(5/2), log(3), log(4), log(10), 1}",
       scope_full="exact derivative signs on every row, |x − y|, N = 2..300, ε ∈ {log(21/20), log(11/10), log(5/4), log(3/2), log(7/4), log(2), log(5/2), log(3), log(4), log(6), log(10), log(20), 1/4, 1/2, 1, 2, 3}")
def min_at_extreme_or_middle(quick: bool) -> Verdict:
    grid = _grid(quick)
    bad = [{"N": g["N"], "eps": g["eps"], "m": g["m"]} for g in grid if not g["min_at_ext_or_mid"]]
    lib = _crosscheck_library(quick)
    ok_lib = not lib["mismatches"]
    return Verdict("refuted" if bad else ("holds" if ok_lib else "inconclusive"), ok_lib,
                   f"exact derivative signs on every row, |x − y|, N = 2..{_N_MAX_GRID}, ε ∈ {{{', '.join(_eps_grid(quick))}}}",
                   {"cases": len(grid), "failures": bad[:5], "library_crosscheck": lib})


def _mid_example(n: int, e: str) -> dict[str, Any]:
    b = _budget(e)
    lam = _sorted_rows(n)
    ms = _local_ms(b, lam)
    k = (n - 1) // 2
    A, B = _parts(lam[k])
    m = int(ms[k])
    return {"N": n, "eps": e, "local_m_extreme": int(ms[0]), "local_m_middle": m, "middle_row": lam[k].tolist(),
            "numerators a·A+B for i = 2..m+1": [f"{int(A[i])}a{int(B[i]):+d}" for i in range(1, m + 1)]}


@claim("brr.text.eps-ge-1-extreme-row", "When ε ≥ 1 the extreme points 1 and N give the global m (m1 ≤ m2: 'the minimum m is "
       "obtained at the extreme point').", "brr §3.4 (before Algorithm 3); App. A.1 after eq. (17)",
       expected="refuted",
       severity="false-statement",
       explanation="rests on the reversed inequality of eq. (17)",
       scope_quick="exact local searches, |x − y|, N = 2..300, ε ≥ 1 from the grid {log(11/10), log(3/2), log(2), log(5/2), log(3), log(4), log(10), 1}",
       scope_full="exact local searches, |x − y|, N = 2..300, ε ≥ 1 from the grid {log(21/20), log(11/10), log(5/4), log(3/2), log(7/4), log(2), log(5/2), log(3), log(4), log(6), log(10), log(20), 1/4, 1/2, 1, 2, 3}")
def eps_ge_1_extreme(quick: bool) -> Verdict:
    rows = [g for g in _grid(quick) if g["ge1"]]
    bad = [g for g in rows if g["ext"] > g["m"]]
    ex = _mid_example(5, "log(3)")
    ok = ex["local_m_middle"] < ex["local_m_extreme"]
    ev = {"counterexample": ex, "extreme_not_minimal": f"{len(bad)}/{len(rows)} (N, ε) with ε ≥ 1",
          "sample": [{"N": g["N"], "eps": g["eps"], "m_extreme": g["ext"], "m_middle": g["mid"]} for g in bad[:6]],
          "note": "the comparison in (17) that leads to this rests on a reversed inequality (brr.equation.17)"}
    return Verdict("refuted" if bad and ok else "holds" if not bad else "inconclusive", True,
                   f"exact local searches, |x − y|, N = 2..{_N_MAX_GRID}, ε ≥ 1 from the grid {{{', '.join(_eps_grid(quick))}}}", ev)


@claim("brr.appendix.a1-extreme-m", "At the extreme priori point the local m is m1 = ⌊(√(N²e^ε + (1−e^ε)²/4) − (N − e^ε/2 + 1/2))/(e^ε − 1)⌋.",
       "brr App. A.1, after eq. (14)",
       expected="refuted",
       severity="erratum",
       explanation="off by one only when the root is an integer (never for irrational e^ε)",
       scope_quick="exact: Algorithm 1 on the row of x = 1 vs the floor formula, N = 2..300, ε grid {log(11/10), log(3/2), log(2), log(5/2), log(3), log(4), log(10), 1}",
       scope_full="exact: Algorithm 1 on the row of x = 1 vs the floor formula, N = 2..300, ε grid {log(21/20), log(11/10), log(5/4), log(3/2), log(7/4), log(2), log(5/2), log(3), log(4), log(6), log(10), log(20), 1/4, 1/2, 1, 2, 3}")
def a1_extreme_m(quick: bool) -> Verdict:
    grid = _grid(quick)
    bad = [g for g in grid if g["cf_m1"] != g["ext"]]
    explained = all(g["cf_root1_integral"] and g["cf_m1"] == g["ext"] + 1 for g in bad)
    converse = all(g["cf_m1"] != g["ext"] for g in grid if g["cf_root1_integral"])
    from dpexact.ldp import local_search

    ex_m = local_search((0, 1, 2, 3), "log(3)").m  # N = 4, e^ε = 3: z1(2) = 2·3 − (2·3) = 0
    ev = {"counterexample": {"N": 4, "eps": "log 3", "root": 2, "z1(2) = 3·1 + (−1 −2)": 0, "local_m": ex_m, "m1": 2},
          "mismatches": f"{len(bad)}/{len(grid)}", "all_mismatches_are_integral_roots": explained, "every_integral_root_mismatches": converse,
          "holds_when": "the root is not an integer, i.e. unless e^ε = (N−i)(N−i+1)/(i(i−1)) for an integer 2 ≤ i < N "
                        "(never for irrational e^ε); at an integral root ∂Q/∂s_i = 0 and Algorithm 1 stops one earlier"}
    return Verdict("refuted" if bad and ex_m == 1 else "holds", True,
                   f"exact: Algorithm 1 on the row of x = 1 vs the floor formula, N = 2..{_N_MAX_GRID}, ε grid {{{', '.join(_eps_grid(quick))}}}", ev)


@claim("brr.appendix.a1-middle-m", "At the middle priori point the local m is m2: i = ⌊N/(e^{ε/2}+1) + 1⌋ (N even) or "
       "⌊(√(e^ε(N²−1)+1) − N)/(e^ε − 1) + 1⌋ (N odd), and m2 = i if i is odd, m2 = i + 1 otherwise.",
       "brr App. A.1 after eqs. (15)–(16); Algorithm 3, lines 4–5",
       expected="refuted",
       severity="false-statement",
       explanation="the correct rule is i − 1, not i + 1, when i is even",
       scope_quick="exact: Algorithm 1 on the middle row vs lines 4–5, N = 2..300, ε grid {log(11/10), log(3/2), log(2), log(5/2), log(3), log(4), log(10), 1}",
       scope_full="exact: Algorithm 1 on the middle row vs lines 4–5, N = 2..300, ε grid {log(21/20), log(11/10), log(5/4), log(3/2), log(7/4), log(2), log(5/2), log(3), log(4), log(6), log(10), log(20), 1/4, 1/2, 1, 2, 3}")
def a1_middle_m(quick: bool) -> Verdict:
    grid = _grid(quick)
    bad = [g for g in grid if g["cf_m2"] != g["mid"]]
    rule_ok = all(g["mid_rule"] == g["mid"] for g in grid)
    by_parity = {"i even (m2 = i + 1 overshoots by 2)": sum(1 for g in bad if g["cf_i"] % 2 == 0),
                 "i odd": sum(1 for g in bad if g["cf_i"] % 2 == 1),
                 "i odd and an integral root (z(i) = 0, so Algorithm 1 stops at i − 2)": sum(1 for g in bad if g["mid_root_integral"])}
    ex = next((g for g in grid if g["eps"] == "log(3/2)" and g["cf_m2"] != g["mid"]), bad[0] if bad else None)
    ev = {"counterexample": ex and {**_mid_example(ex["N"], ex["eps"]), "i": ex["cf_i"], "m2": ex["cf_m2"]},
          "mismatches": f"{len(bad)}/{len(grid)}", "by_parity_of_i": by_parity,
          "correct_rule": "the largest odd i with z(i) < 0 (the derivatives at 2r and 2r+1 coincide, so Algorithm 1 stops at an odd "
                          "index below the root): i − 1, not i + 1, when i is even",
          "correct_rule_matches_search": rule_ok}
    return Verdict("refuted" if bad else "holds", True,
                   f"exact: Algorithm 1 on the middle row vs lines 4–5, N = 2..{_N_MAX_GRID}, ε grid {{{', '.join(_eps_grid(quick))}}}", ev)


def _alg3_summary(quick: bool) -> dict[str, Any]:
    grid = _grid(quick)
    per, diffs = {}, {}
    for g in grid:
        p = per.setdefault(g["eps"], [0, 0])
        p[0] += g["cf_m"] == g["m"]
        p[1] += 1
        if g["cf_m"] != g["m"]:
            diffs[g["cf_m"] - g["m"]] = diffs.get(g["cf_m"] - g["m"], 0) + 1
    agree = sum(p[0] for p in per.values())
    causes = {"integral root (m1 over-counts)": 0, "a middle row needs fewer (Algorithm 3 misses it)": 0, "other": 0}
    for g in grid:
        if g["cf_m"] != g["m"]:
            if g["cf_root1_integral"] and g["mid"] >= g["cf_m"]:
                causes["integral root (m1 over-counts)"] += 1
            elif g["mid"] < g["cf_m"]:
                causes["a middle row needs fewer (Algorithm 3 misses it)"] += 1
            else:
                causes["other"] += 1
    return {"agree": agree, "total": len(grid), "per_eps": {e: f"{p[0]}/{p[1]}" for e, p in per.items()},
            "closed_form_minus_search": {str(k): v for k, v in sorted(diffs.items())}, "causes": causes}


@claim("brr.algorithm.3", "Algorithm 3 gives BRR's uniform m explicitly on the equidistant domain: m = m1 if ε ≥ 1, else "
       "min(m1, m2) — the m of the search (Algorithms 1–2).", "brr §3.4, Algorithm 3; Abstract ('explicit formulas on the uniform number')",
       expected="refuted",
       severity="false-statement",
       scope_quick="exact: dpexact.ldp closed_form_m / an exact integer transcription vs the exact search, N = 2..300, ε ∈ {log(11/10), log(3/2), log(2), log(5/2), log(3), log(4), log(10), 1}",
       scope_full="exact: dpexact.ldp closed_form_m / an exact integer transcription vs the exact search, N = 2..300, ε ∈ {log(21/20), log(11/10), log(5/4), log(3/2), log(7/4), log(2), log(5/2), log(3), log(4), log(6), log(10), log(20), 1/4, 1/2, 1, 2, 3}")
def algorithm_3(quick: bool) -> Verdict:
    s = _alg3_summary(quick)
    lib = _crosscheck_library(quick)
    # the two certified counterexamples, through the library's own implementations
    from dpexact.ldp import absolute_loss, closed_form_m, global_search

    ex = []
    for n, e in ((4, "log(3)"), (5, "log(3)"), (10, "1")):
        ex.append({"N": n, "eps": e, "algorithm_3": closed_form_m(n, e).m, "search": global_search(absolute_loss(n), e).m})
    q = _local_errors(4, Fraction(3), 2), _local_errors(4, Fraction(3), 1)
    eps_list = sorted(s["per_eps"], key=lambda e: _budget(e).eps.to_float())
    share = [int(s["per_eps"][e].split("/")[0]) / int(s["per_eps"][e].split("/")[1]) for e in eps_list]
    fig = Figure("brr Alg. 3 vs search: share of N = 2..300 where the closed-form m equals the searched m",
                 tuple(float(_budget(e).eps.to_float()) for e in eps_list), {"agreement": tuple(share)}, "ε", "fraction of N")
    ev = {"counterexamples": ex, "agreement": f"{s['agree']}/{s['total']}", "closed_form_minus_search": s["closed_form_minus_search"],
          "causes": s["causes"], "per_eps": s["per_eps"],
          "consequence": {"N": 4, "eps": "log 3", "k": 2, "Q(BRR, Algorithm 3's m = 2)": str(q[0][1]), "Q(GRR)": str(q[1][1]),
                          "note": "with Algorithm 3's m BRR is worse than GRR at k = 2"},
          "library_crosscheck": lib}
    bad = s["agree"] < s["total"] and all(x["algorithm_3"] != x["search"] for x in ex)
    return Verdict("refuted" if bad else "holds", True,
                   f"exact: dpexact.ldp closed_form_m / an exact integer transcription vs the exact search, N = 2..{_N_MAX_GRID}, "
                   f"ε ∈ {{{', '.join(_eps_grid(quick))}}}", ev, fig)


@claim("brr.theorem.1.1", "For the m of BRR (eq. 7), whatever the selections of m1 and m2: m ≥ 1 and lim_{N→∞} m/N = 1/(e^{ε/2} + 1).",
       "brr §3.4, Theorem 1 part 1) (proof App. A.1); §5.1 ('m increases with an asymptotic proportion to N')",
       expected="holds",
       scope_quick="sympy limits of m1, and of i (both parities) over N; z1(1) = −N(N−1)/2 ≤ 0 ⇒ root ≥ 1 ⇒ m1 ≥ 1; min over the grid (N ≤ 300) of the closed-form and searched m; exact search at large N",
       scope_full="sympy limits of m1, and of i (both parities) over N; z1(1) = −N(N−1)/2 ≤ 0 ⇒ root ≥ 1 ⇒ m1 ≥ 1; min over the grid (N ≤ 300) of the closed-form and searched m; exact search at large N")
def theorem_1_1(quick: bool) -> Verdict:
    import sympy as sp

    Nn, u = sp.symbols("N u", positive=True)
    a = u**2
    r1 = (sp.sqrt(Nn**2 * a + (1 - a) ** 2 / 4) - (Nn - a / 2 + sp.Rational(1, 2))) / (a - 1)
    r_even = Nn / (u + 1) + 1
    r_odd = (sp.sqrt(a * (Nn**2 - 1) + 1) - Nn) / (a - 1) + 1
    lims = [sp.simplify(sp.limit(r / Nn, Nn, sp.oo) - 1 / (u + 1)) for r in (r1, r_even, r_odd)]
    z1_at_1 = sp.expand(((a - 1) * 1 + (2 * Nn - a + 1) * 1 - Nn * (Nn + 1)) / 2)  # z1(1): root ≥ 1 since z1(1) ≤ 0
    grid = _grid(quick)
    min_cf = min(g["cf_m"] for g in grid)
    min_search = min(g["m"] for g in grid)
    large = []
    for u_s in (("2",) if quick else ("3/2", "2", "4")):
        uq = Fraction(u_s)
        b = _budget(f"log({uq * uq})")
        n = 1001 if quick else 3001
        m = _global_m_large(b, n)
        large.append({"u = e^(eps/2)": u_s, "N": n, "m_search/N": m / n, "1/(u+1)": float(1 / (uq + 1))})
    ok = all(x == 0 for x in lims) and sp.expand(z1_at_1 + Nn * (Nn - 1) / 2) == 0 and min_cf >= 1 and min_search >= 1
    return Verdict("holds" if ok else "refuted", True,
                   "sympy limits of m1, and of i (both parities) over N; z1(1) = −N(N−1)/2 ≤ 0 ⇒ root ≥ 1 ⇒ m1 ≥ 1; "
                   f"min over the grid (N ≤ {_N_MAX_GRID}) of the closed-form and searched m; exact search at large N",
                   {"limits(m/N) − 1/(u+1) for m1, m2 (N even), m2 (N odd)": [str(x) for x in lims], "z1(1)": str(z1_at_1),
                    "min closed-form m": min_cf, "min searched m": min_search, "search at large N": large,
                    "note": "floors and the +1 of m2 do not move the limits; the searched m also tends to N/(e^{ε/2}+1)"})


@claim("brr.theorem.1.2", "If ε ≥ 1, BRR's m is m = ⌊(√(N²e^ε + (1−e^ε)²/4) − (N − e^ε/2 + 1/2))/(e^ε − 1)⌋.",
       "brr §3.4, Theorem 1 part 2) (proof App. A.1)",
       expected="refuted",
       severity="false-statement",
       scope_quick="exact search vs exact floor, |x − y|, N = 2..300, ε ≥ 1 from the grid",
       scope_full="exact search vs exact floor, |x − y|, N = 2..300, ε ≥ 1 from the grid")
def theorem_1_2(quick: bool) -> Verdict:
    rows = [g for g in _grid(quick) if g["ge1"]]
    bad = [g for g in rows if g["cf_m1"] != g["m"]]
    from dpexact.ldp import absolute_loss, global_search

    ex = [{"N": n, "eps": "log 3", "formula": _alg3(n, _budget("log(3)"))["m1"], "search (dpexact.ldp.global_search)": global_search(absolute_loss(n), "log(3)").m,
           "why": w} for n, w in ((4, "the root is exactly 2: ∂Q/∂s_2 = 0 at x = 1, and x = 2 stops at 1"),
                                  (5, "the middle point x = 3 stops at m = 1 < m^(1) = 2"))]
    per = {}
    for g in rows:
        p = per.setdefault(g["eps"], [0, 0])
        p[0] += g["cf_m1"] == g["m"]
        p[1] += 1
    ev = {"counterexamples": ex, "formula_equals_search": f"{len(rows) - len(bad)}/{len(rows)}",
          "per_eps": {e: f"{p[0]}/{p[1]}" for e, p in per.items()}, "diff formula − search": sorted({g["cf_m1"] - g["m"] for g in bad})}
    ok = all(x["formula"] != x["search (dpexact.ldp.global_search)"] for x in ex)
    return Verdict("refuted" if bad and ok else "holds", True,
                   f"exact search vs exact floor, |x − y|, N = 2..{_N_MAX_GRID}, ε ≥ 1 from the grid", ev)


@claim("brr.theorem.1.3", "BRR satisfies ε-(local) differential privacy: Pr[y|x1]/Pr[y|x2] ≤ e^ε for all x1, x2, y.",
       "brr §3.4, Theorem 1 part 3) (proof App. A.1); §3.1",
       expected="holds",
       scope_quick="exact max column ratio (dpexact.verification.search.ldp_channel.ldp_level, fmpq) of BRR channels: |x − y|, Jaccard, random losses; m ∈ {1, searched, N − 1, N}; e^ε ∈ {3, 3/2}",
       scope_full="exact max column ratio (dpexact.verification.search.ldp_channel.ldp_level, fmpq) of BRR channels: |x − y|, Jaccard, random losses; m ∈ {1, searched, N − 1, N}; e^ε ∈ {3, 3/2}")
def theorem_1_3(quick: bool) -> Verdict:
    from dpexact.ldp import BipartiteRR, absolute_loss, brr_channel, jaccard_similarity
    from dpexact.verification.search.ldp_channel import ldp_level

    checked, bad, exact_e = 0, [], 0
    rng = np.random.default_rng(5)
    for a in (Fraction(3), Fraction(3, 2)):
        e = f"log({a})"
        mats = [absolute_loss(n) for n in range(2, 8 if quick else 11)] + [jaccard_similarity(n) for n in (4, 7 if quick else 9)]
        mats += [rng.integers(0, 6, size=(5, 5)).tolist() for _ in range(3)]
        for lm in mats:
            bm = BipartiteRR(lm, e)
            n = bm.loss.shape[0]
            for m in sorted({1, bm.resolved_m(), n - 1, n}):
                ch = brr_channel(bm.loss, e, max(m, 1), "exact")
                r = ldp_level([[Fraction(int(v.p), int(v.q)) for v in row] for row in ch.rows]).ratio
                ratio = Fraction(int(r.p), int(r.q))
                checked += 1
                exact_e += ratio == a
                if ratio > a or not ch.satisfies_ldp(e):
                    bad.append({"N": n, "m": m, "e^eps": str(a), "ratio": str(ratio)})
    return Verdict("refuted" if bad else "holds", True,
                   "exact max column ratio (dpexact.verification.search.ldp_channel.ldp_level, fmpq) of BRR channels: |x − y|, Jaccard, random losses; "
                   "m ∈ {1, searched, N − 1, N}; e^ε ∈ {3, 3/2}",
                   {"channels": checked, "violations": bad, "ratio_equal_to_e^eps": f"{exact_e}/{checked}",
                    "note": "the bound is attained (ratio = e^ε) unless every row's Y_m is the same set (e.g. m = N)"})


@claim("brr.equation.14", "Extreme point: Σ_{j<i}(λ_i−λ_j)e^ε + Σ_{j>i}(λ_i−λ_j) = (e^ε−1)i²/2 + (N − e^ε/2 + 1/2)i − N²/2 − N/2, a "
       "quadratic with Δ = N²e^ε + (1−e^ε)²/4 whose positive root is the expression inside m1's floor.", "brr App. A.1, eq. (14)",
       expected="holds",
       scope_quick="exact integer coefficients of e^ε and 1 for N = 2..40, every i; sympy for Δ and the root",
       scope_full="exact integer coefficients of e^ε and 1 for N = 2..80, every i; sympy for Δ and the root")
def equation_14(quick: bool) -> Verdict:
    import sympy as sp

    nmax = 40 if quick else 80
    bad, checked = [], 0
    for n in range(2, nmax + 1):
        A, B = _parts(_sorted_row(n, 0))
        for i in range(2, n + 1):
            wantA, wantB = Fraction(i * i - i, 2), Fraction(-i * i, 2) + n * i + Fraction(i, 2) - Fraction(n * n + n, 2)
            checked += 1
            if (Fraction(int(A[i - 1])), Fraction(int(B[i - 1]))) != (wantA, wantB):
                bad.append({"N": n, "i": i})
    i, N, a = sp.symbols("i N a", positive=True)
    z1 = (a - 1) / 2 * i**2 + (N - a / 2 + sp.Rational(1, 2)) * i - N**2 / 2 - N / 2
    disc = sp.expand(sp.discriminant(z1, i) - (N**2 * a + (1 - a) ** 2 / 4))
    root = (sp.sqrt(N**2 * a + (1 - a) ** 2 / 4) - (N - a / 2 + sp.Rational(1, 2))) / (a - 1)
    root_ok = sp.simplify(z1.subs(i, root)) == 0
    ok = not bad and disc == 0 and root_ok
    return Verdict("holds" if ok else "refuted", True,
                   f"exact integer coefficients of e^ε and 1 for N = 2..{nmax}, every i; sympy for Δ and the root",
                   {"identities": checked, "failures": bad[:5], "discriminant_matches": disc == 0, "root_is_a_zero": root_ok,
                    "note": "the identity holds; taking m1 = ⌊root⌋ as the local m fails at integral roots (brr.appendix.a1-extreme-m)"})


def _middle_identity(n: int, i: int) -> tuple[Fraction, Fraction]:
    """Paper's eq. (15)/(16) at odd i as (coefficient of e^ε, constant)."""
    cA = Fraction((i - 1) ** 2, 4)
    cB = Fraction(-i * i + 2 * (n + 1) * i - n * n - 2 * n - 1 + (n % 2), 4)
    return cA, cB


def _middle_check(parity: int, quick: bool) -> tuple[int, list, int]:
    nmax = 40 if quick else 80
    bad, checked, paired = [], 0, 0
    for n in range(2 + parity, nmax + 1, 2):
        A, B = _parts(_sorted_row(n, (n - 1) // 2))
        for i in range(3, n + 1, 2):
            checked += 1
            if (Fraction(int(A[i - 1])), Fraction(int(B[i - 1]))) != _middle_identity(n, i):
                bad.append({"N": n, "i": i})
            paired += (A[i - 1], B[i - 1]) == (A[i - 2], B[i - 2])
        if parity == 1:  # the paper's intermediate form of (16)
            for i in range(3, n + 1, 2):
                r, h = (i - 1) // 2, (n - 1) // 2
                form = (Fraction(r) + 2 * sum(range(1, r)), -2 * sum(range(1, h - r + 1)))
                if form != _middle_identity(n, i):
                    bad.append({"N": n, "i": i, "form": "intermediate"})
    return checked, bad, paired


@claim("brr.equation.15", "Middle point, N even, odd i: the derivative numerator equals (e^ε−1)i²/4 + (N−(e^ε−1))i/2 + ((e^ε−1) − N² − 2N)/4, "
       "with Δ = e^ε N²/4 and positive root N/(e^{ε/2}+1) + 1.", "brr App. A.1, eq. (15)",
       expected="holds",
       scope_quick="exact coefficients for even N ≤ 80 (40 quick), odd i; sympy for Δ and the root",
       scope_full="exact coefficients for even N ≤ 80 (40 quick), odd i; sympy for Δ and the root")
def equation_15(quick: bool) -> Verdict:
    import sympy as sp

    checked, bad, paired = _middle_check(0, quick)
    i, N, u = sp.symbols("i N u", positive=True)
    a = u**2
    z2 = (a - 1) / 4 * i**2 + (N - (a - 1)) / 2 * i + ((a - 1) - N**2 - 2 * N) / 4
    disc_ok = sp.simplify(sp.discriminant(z2, i) - a * N**2 / 4) == 0
    root_ok = sp.simplify(z2.subs(i, N / (u + 1) + 1)) == 0
    ok = not bad and disc_ok and root_ok
    return Verdict("holds" if ok else "refuted", True, "exact coefficients for even N ≤ 80 (40 quick), odd i; sympy for Δ and the root",
                   {"identities": checked, "failures": bad[:5], "discriminant_matches": disc_ok, "root_is_a_zero": root_ok,
                    "numerator(i−1) = numerator(i) for odd i": f"{paired}/{checked}"})


@claim("brr.equation.16", "Middle point, N odd, odd i: the numerator equals (i−1)/2·e^ε + 2e^ε(1+…+((i−1)/2−1)) − 2(1+…+((N−1)/2−(i−1)/2)) "
       "= (e^ε−1)i²/4 + (N−(e^ε−1))i/2 + ((e^ε−1) − 2N − N² + 1)/4, with Δ = e^ε(N²−1)/4 + 1/4 and root (√(e^ε(N²−1)+1) − N)/(e^ε−1) + 1.",
       "brr App. A.1, eq. (16)",
       expected="holds",
       scope_quick="exact coefficients for odd N ≤ 80 (40 quick), odd i; sympy for Δ and the root",
       scope_full="exact coefficients for odd N ≤ 80 (40 quick), odd i; sympy for Δ and the root")
def equation_16(quick: bool) -> Verdict:
    import sympy as sp

    checked, bad, paired = _middle_check(1, quick)
    i, N, a = sp.symbols("i N a", positive=True)
    z3 = (a - 1) / 4 * i**2 + (N - (a - 1)) / 2 * i + ((a - 1) - 2 * N - N**2 + 1) / 4
    disc_ok = sp.simplify(sp.discriminant(z3, i) - (a * (N**2 - 1) / 4 + sp.Rational(1, 4))) == 0
    root_ok = sp.simplify(sp.expand(z3.subs(i, (sp.sqrt(a * (N**2 - 1) + 1) - N) / (a - 1) + 1))) == 0
    ok = not bad and disc_ok and root_ok
    return Verdict("holds" if ok else "refuted", True, "exact coefficients for odd N ≤ 80 (40 quick), odd i; sympy for Δ and the root",
                   {"identities": checked, "failures": bad[:5], "discriminant_matches": disc_ok, "root_is_a_zero": root_ok,
                    "numerator(i−1) = numerator(i) for odd i": f"{paired}/{checked}"})


@claim("brr.equation.17", "i1r < (N e^{ε/2} + (1−e^ε)/2 − (N − e^ε/2 + 1/2))/(e^ε − 1) = N(e^{ε/2} − 1)/(e^ε − 1) and "
       "i3r > (e^{ε/2}(N−1) − (N − e^ε + 1))/(e^ε − 1); with b − a = e^ε − e^{ε/2} − 1 > 0 iff ε > 2 ln((√5+1)/2) ≈ 0.9624, "
       "so i3r > i1r and m1 ≤ m2 when ε ≥ 1.", "brr App. A.1, eq. (17) and the text after it",
       expected="refuted",
       severity="false-statement",
       scope_quick="sympy (symbolic in N, u = e^{ε/2} > 1), one exact instance, arb for the threshold and for i3r − i1r",
       scope_full="sympy (symbolic in N, u = e^{ε/2} > 1), one exact instance, arb for the threshold and for i3r − i1r")
def equation_17(quick: bool) -> Verdict:
    import sympy as sp
    from flint import arb

    N, u = sp.symbols("N u", positive=True)
    a = u**2
    lhs_sq, rhs = N**2 * a + (1 - a) ** 2 / 4, N * u + (1 - a) / 2
    gap1 = sp.factor(sp.expand(lhs_sq - rhs**2))  # > 0: √(…) > N e^{ε/2} + (1−e^ε)/2, the reverse of (17)
    gap3 = sp.factor(sp.expand(a * (N**2 - 1) + 1 - a * (N - 1) ** 2))  # > 0: the i3r bound is right
    ba = sp.expand(u * (N - 1) - (N - a + 1) - (N * u - N))
    # concrete: N = 4, e^{ε/2} = 2
    i1r = (sp.sqrt(sp.Integer(265) / 4) - sp.Rational(5, 2)) / 3
    bound = sp.Rational(4, 3)
    counter_ok = sp.Integer(265) / 4 > (sp.Rational(13, 2)) ** 2 and bool(i1r > bound)
    with ball_context(128):
        thr = 2 * ((arb(5).sqrt() + 1) / 2).log()
        thr_ok = abs(float(thr.mid()) - 0.9624) < 0.00005
        # i3r − i1r on the grid: positive for every N, ε ≥ 1 *and* ε < 1 (the threshold is an artefact of the wrong bound)
        pos = tot = 0
        for e in ("log(3/2)", "log(2)", "1/2", "1", "log(3)", "2"):
            A = _budget(e).arb()
            for n in range(3, 200, 2):
                i1 = ((n * n * A + (1 - A) ** 2 / 4).sqrt() - (n - A / 2 + arb(1) / 2)) / (A - 1)
                i3 = ((A * (n * n - 1) + 1).sqrt() - (n - A + 1)) / (A - 1)
                tot += 1
                pos += bool(i3 - i1 > 0)
    ev = {"counterexample": {"N": 4, "eps": "2 log 2", "i1r": f"(√265/2 − 5/2)/3 ≈ {float(i1r.evalf(20)):.6f}", "claimed upper bound": "4/3",
                             "reason": "√(265/4) > 13/2 since 265/4 > 169/4"},
          "(N²e^ε+(1−e^ε)²/4) − (Ne^{ε/2}+(1−e^ε)/2)²": str(gap1), "second bound: a(N²−1)+1 − a(N−1)² ": str(gap3),
          "b − a": str(ba), "threshold 2 ln((√5+1)/2)": float(thr.mid()),
          "i3r > i1r on odd N < 200": f"{pos}/{tot} (also for ε < 1)"}
    ok = bool(counter_ok) and sp.simplify(gap1 - N * u * (u**2 - 1)) == 0 and thr_ok
    return Verdict("refuted" if ok else "inconclusive", ok,
                   "sympy (symbolic in N, u = e^{ε/2} > 1), one exact instance, arb for the threshold and for i3r − i1r", ev)
