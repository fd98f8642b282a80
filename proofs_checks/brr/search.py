"""brr: Section 2-3: GRR, BRR, the local and global search."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ..catalogue import Verdict, claim
from ._helpers import _A_FULL, _A_QUICK, _IRR_FULL, _IRR_QUICK, _budget, _local_errors, _local_ms, _parts, _q_sign, _qg_all_m, _sorted_rows


@claim("brr.equation.6", "GRR: Pr[y|x] = e^ε/(e^ε+N−1) if y = x and 1/(e^ε+N−1) otherwise (p for the true item, (1−p)/(N−1) "
       "for each other one); it is ε-LDP, and for N = 2 it is Warner's randomized response.", "brr §2.4, eq. (6); §1",
       expected="holds",
       scope_quick="exact (fmpq) channels of dpexact.ldp.GeneralizedRR, N = 2..6, e^ε ∈ {3, 3/2, 10}: entries vs eq. (6), max column ratio = e^ε",
       scope_full="exact (fmpq) channels of dpexact.ldp.GeneralizedRR, N = 2..15, e^ε ∈ {3, 3/2, 10}: entries vs eq. (6), max column ratio = e^ε")
def equation_6(quick: bool) -> Verdict:
    from dpexact.ldp import GeneralizedRR

    checked, bad = 0, []
    for a in (Fraction(3), Fraction(3, 2), Fraction(10)):
        for n in range(2, 7 if quick else 16):
            ch = GeneralizedRR(n, f"log({a})").channel("exact")
            p = a / (a + n - 1)
            want = [[p if x == y else (1 - p) / (n - 1) for y in range(n)] for x in range(n)]
            got = [[Fraction(int(v.p), int(v.q)) for v in row] for row in ch.rows]
            ratio = ch.max_column_ratio().ratio
            checked += 1
            if got != want or Fraction(int(ratio.p), int(ratio.q)) != a:
                bad.append({"N": n, "e^eps": str(a)})
            if n == 2 and got != [[a / (1 + a), 1 / (1 + a)], [1 / (1 + a), a / (1 + a)]]:
                bad.append({"N": 2, "e^eps": str(a), "note": "not Warner's RR"})
    return Verdict("refuted" if bad else "holds", True,
                   f"exact (fmpq) channels of dpexact.ldp.GeneralizedRR, N = 2..{6 if quick else 15}, e^ε ∈ {{3, 3/2, 10}}: entries vs eq. (6), max column ratio = e^ε",
                   {"channels": checked, "mismatches": bad})


@claim("brr.equation.7", "BRR: Pr[y|x] = e^ε/(m e^ε + N − m) if y ∈ Y_m (the m candidates closest to x) and 1/(m e^ε + N − m) "
       "otherwise; when m = 1 BRR becomes GRR.", "brr §3.1, eq. (7)",
       expected="holds",
       scope_quick="exact channels (dpexact.ldp.brr_channel), |x − y| on N = 2..7, every m, e^ε ∈ {3, 3/2}",
       scope_full="exact channels (dpexact.ldp.brr_channel), |x − y| on N = 2..11, every m, e^ε ∈ {3, 3/2}")
def equation_7(quick: bool) -> Verdict:
    from dpexact.ldp import GeneralizedRR, absolute_loss, brr_channel

    checked, bad = 0, []
    for a in (Fraction(3), Fraction(3, 2)):
        for n in range(2, 8 if quick else 12):
            lm = absolute_loss(n)
            for m in range(1, n + 1):
                ch = brr_channel(lm, f"log({a})", m, "exact")
                rows = [[Fraction(int(v.p), int(v.q)) for v in r] for r in ch.rows]
                hi, lo = a / (m * a + n - m), 1 / (m * a + n - m)
                for x, row in enumerate(rows):
                    top = [y for y in range(n) if row[y] == hi and hi != lo] if m < n else list(range(n))
                    far_in = max(abs(x - y) for y in top)
                    near_out = min([abs(x - y) for y in range(n) if y not in top] or [n])
                    if len(top) != m or any(v not in (hi, lo) for v in row) or far_in > near_out:
                        bad.append({"N": n, "m": m, "x": x + 1})
                if m == 1:
                    g = GeneralizedRR(n, f"log({a})").channel("exact")
                    if [[Fraction(int(v.p), int(v.q)) for v in r] for r in g.rows] != rows:
                        bad.append({"N": n, "m": 1, "note": "differs from GRR"})
                checked += 1
    return Verdict("refuted" if bad else "holds", True,
                   f"exact channels (dpexact.ldp.brr_channel), |x − y| on N = 2..{7 if quick else 11}, every m, e^ε ∈ {{3, 3/2}}",
                   {"channels": checked, "mismatches": bad[:5]})


@claim("brr.equation.9", "∂Q/∂s_i = Σ_j (λ_i − λ_j) s_j / (Σ_j s_j)² for Q = Σ λ_i s_i / Σ s_j (eq. 8), and the monotonicity of Q "
       "in s_i does not depend on the value of s_i.", "brr §3.2, eqs. (8)–(9)",
       expected="holds",
       scope_quick="sympy, symbolic λ and s > 0, n = 2..3: the derivative, and ∂(numerator)/∂s_i = 0 (the sign is free of s_i)",
       scope_full="sympy, symbolic λ and s > 0, n = 2..6: the derivative, and ∂(numerator)/∂s_i = 0 (the sign is free of s_i)")
def equation_9(quick: bool) -> Verdict:
    import sympy as sp

    bad, checked = [], 0
    for n in range(2, 4 if quick else 7):
        lam = sp.symbols(f"l1:{n + 1}", real=True)
        s = sp.symbols(f"s1:{n + 1}", positive=True)
        Q = sum(l * w for l, w in zip(lam, s)) / sum(s)
        for i in range(n):
            num = sum((lam[i] - lam[j]) * s[j] for j in range(n))
            checked += 1
            if sp.simplify(sp.diff(Q, s[i]) - num / sum(s) ** 2) != 0 or sp.diff(num, s[i]) != 0:
                bad.append({"n": n, "i": i + 1})
    return Verdict("refuted" if bad else "holds", True,
                   f"sympy, symbolic λ and s > 0, n = 2..{3 if quick else 6}: the derivative, and ∂(numerator)/∂s_i = 0 (the sign is free of s_i)",
                   {"derivatives_checked": checked, "failures": bad})


def _rows_for_local_tests(quick: bool) -> list[tuple[str, tuple[Fraction, ...]]]:
    from dpexact.ldp import absolute_loss, jaccard_similarity

    nmax = 6 if quick else 8
    rows = [(f"|x−y| N={n} x={x + 1}", absolute_loss(n).values[x]) for n in range(2, nmax + 1) for x in range((n + 1) // 2)]
    rows += [(f"Jaccard N={n} x={x + 1}", jaccard_similarity(n).as_loss()[x]) for n in (5, nmax) for x in range(n)]
    rng = np.random.default_rng(3)
    rows += [(f"random {k}", tuple(Fraction(int(v)) for v in rng.integers(0, 5, size=int(rng.integers(3, nmax + 1))))) for k in range(8)]
    return rows


@claim("brr.algorithm.1", "Algorithm 1 (local search) gives the locally optimal bipartite classification: it minimises the local "
       "expected error Q over the weights e^ε = s_1 ≥ s_i ≥ 1, and the optimal weights are bipartite (only 1 and e^ε).",
       "brr §3.2 (Alg. 1), §2.5 (first challenge), §3.4 (first bullet), Abstract",
       expected="holds",
       scope_quick="30 loss rows (|x−y|, Jaccard as −λ, random integer rows with ties), e^ε ∈ {3/2, 3, 10}: Q at Algorithm 1's m (dpexact.ldp.local_search) vs the minimum of Q over all {1, e^ε}-vertices of the box [1, e^ε]^n, exact; Q is linear-fractional, so its minimum over the box (every ε-LDP row) is attained at a vertex",
       scope_full="40 loss rows (|x−y|, Jaccard as −λ, random integer rows with ties), e^ε ∈ {3/2, 3, 10}: Q at Algorithm 1's m (dpexact.ldp.local_search) vs the minimum of Q over all {1, e^ε}-vertices of the box [1, e^ε]^n, exact; Q is linear-fractional, so its minimum over the box (every ε-LDP row) is attained at a vertex")
def algorithm_1(quick: bool) -> Verdict:
    from dpexact.ldp import local_search

    rows, bad = _rows_for_local_tests(quick), []
    vertices = 0
    for a in (Fraction(3, 2), Fraction(3), Fraction(10)):
        for name, row in rows:
            srt = sorted(row)
            res = local_search(row, f"log({a})")
            best = None
            for s in itertools.product((1, a), repeat=len(row)):  # vertices of the box [1, a]^n
                q = sum(l * w for l, w in zip(row, s)) / sum(s)
                best = q if best is None or q < best else best
                vertices += 1
            q_top = [sum(l * (a if j < h else 1) for j, l in enumerate(srt)) / (h * a + len(srt) - h) for h in range(1, len(srt) + 1)]
            if q_top[res.m - 1] != best or min(range(len(q_top)), key=lambda h: (q_top[h], h)) != res.m - 1:
                bad.append({"row": name, "e^eps": str(a), "alg1_m": res.m, "Q_alg1": str(q_top[res.m - 1]), "min_Q": str(best)})
    scope = (f"{len(rows)} loss rows (|x−y|, Jaccard as −λ, random integer rows with ties), e^ε ∈ {{3/2, 3, 10}}: Q at Algorithm 1's m "
             "(dpexact.ldp.local_search) vs the minimum of Q over all {1, e^ε}-vertices of the box [1, e^ε]^n, exact; Q is "
             "linear-fractional, so its minimum over the box (every ε-LDP row) is attained at a vertex")
    return Verdict("refuted" if bad else "holds", True, scope,
                   {"rows": len(rows) * 3, "vertices_evaluated": vertices, "failures": bad[:5],
                    "note": "Algorithm 1 returns the smallest minimiser; the minimum over all ε-LDP rows is bipartite"})


@claim("brr.text.local-search-step-2", "§3.2 Step 2 (the prose of Algorithm 1): increase s_2, s_3, … until some s_i satisfies "
       "∂Q/∂s_i ≥ 0, then stop, fix m = i and Y_m = {y_1, …, y_m}.", "brr §3.2, Steps 1–3",
       expected="refuted",
       severity="erratum",
       explanation="the prose stops at ∂Q/∂s_i ≥ 0 and sets m = i; Algorithm 1 (and the authors' code) sets m = i only when ∂Q/∂s_i < 0",
       scope_quick="exact: the example, and Algorithm 2 in both readings on |x − y|, N = 2..25, ε ∈ {log 3/2, log 3}",
       scope_full="exact: the example, and Algorithm 2 in both readings on |x − y|, N = 2..40, ε ∈ {log 3/2, log 3}")
def local_search_step_2(quick: bool) -> Verdict:
    from dpexact.ldp import GeneralizedRR, absolute_loss, brr_channel, global_search, local_search

    row = (Fraction(0), Fraction(1), Fraction(2))
    pc, tx = local_search(row, "log(3)").m, local_search(row, "log(3)", reading="text").m
    q = [sum(l * (3 if j < h else 1) for j, l in enumerate(row)) / (3 * h + 3 - h) for h in (1, 2)]
    differ = worse = total = 0
    example = None
    for e in ("log(3/2)", "log(3)"):
        for n in range(2, 26 if quick else 41):
            lm = absolute_loss(n)
            g_p, g_t = global_search(lm, e), global_search(lm, e, reading="text")
            total += 1
            differ += g_p.m != g_t.m
            if g_t.m != g_p.m:
                b = brr_channel(lm, e, g_t.m, "exact").local_errors()
                gr = GeneralizedRR(n, e).channel("exact").local_errors()
                bad_k = [k + 1 for k, (x, y) in enumerate(zip(b, gr)) if x > y]
                if bad_k:
                    worse += 1
                    example = example or {"N": n, "eps": e, "m_text": g_t.m, "m_alg2": g_p.m, "k_worse_than_GRR": bad_k[:4]}
    ev = {"counterexample": {"N": 3, "eps": "log 3", "x": 1, "sorted losses": [0, 1, 2], "sign dQ/ds_2": "+ (numerator 3·1 − 1 = 2)",
                             "m_algorithm_1": pc, "m_step_2": tx, "Q(m=1) = GRR": str(q[0]), "Q(m=2)": str(q[1])},
          "global_m_differs": f"{differ}/{total}", "text_reading_worse_than_GRR_somewhere": f"{worse}/{total}", "example": example,
          "note": "Step 2 also says s_i stays 1 while y_i ∈ Y_m, which eq. (7) contradicts; Algorithm 1 (and the authors' code) sets m = i only when ∂Q/∂s_i < 0"}
    ok = pc == 1 and tx == 2 and q[1] > q[0]
    return Verdict("refuted" if ok else "inconclusive", ok,
                   f"exact: the example, and Algorithm 2 in both readings on |x − y|, N = 2..{25 if quick else 40}, ε ∈ {{log 3/2, log 3}}", ev)


@claim("brr.algorithm.2", "The global search (Algorithm 2: m = min_k m^(k)) minimises the global expected error Q_g over the uniform "
       "number m of e^ε-weighted candidates (the 'optimal number m').", "brr §3.3 ('we perform the global search to minimize the "
       "quality loss Q_g'), Alg. 2, §7 ('optimal number m')",
       expected="refuted",
       severity="false-statement",
       scope_quick="exact Q_g (Fractions) of BRR for every m vs Algorithm 2's m, |x − y|, N = 2..60, e^ε ∈ {11/10, 3/2, 2, 5/2, 3, 4, 10}",
       scope_full="exact Q_g (Fractions) of BRR for every m vs Algorithm 2's m, |x − y|, N = 2..120, e^ε ∈ {21/20, 11/10, 5/4, 3/2, 7/4, 2, 5/2, 3, 4, 6, 10, 20}")
def algorithm_2(quick: bool) -> Verdict:
    nmax = 60 if quick else 120
    worse, total, excess, first, rows = 0, 0, Fraction(1), None, []
    for a_s in (_A_QUICK if quick else _A_FULL):
        a, b = Fraction(a_s), _budget(f"log({a_s})")
        w = 0
        for n in range(2, nmax + 1):
            m = int(_local_ms(b, _sorted_rows(n)).min())
            qg = _qg_all_m(n, a)
            best = min(range(n), key=lambda h: (qg[h], h)) + 1
            total += 1
            if qg[best - 1] < qg[m - 1]:
                worse += 1
                w += 1
                excess = max(excess, qg[m - 1] / qg[best - 1])
                if first is None or n < first["N"]:
                    first = {"N": n, "e^eps": a_s, "m_alg2": m, "Qg(m_alg2)": str(qg[m - 1]), "best_m": best, "Qg(best)": str(qg[best - 1])}
        rows.append({"e^eps": a_s, "alg2_not_optimal": f"{w}/{nmax - 1}"})
    ev = {"counterexample": first, "alg2_not_optimal": f"{worse}/{total}", "max Qg(alg2)/min_m Qg": float(excess), "per_eps": rows}
    return Verdict("refuted" if worse else "holds", True,
                   f"exact Q_g (Fractions) of BRR for every m vs Algorithm 2's m, |x − y|, N = 2..{nmax}, e^ε ∈ {{{', '.join(_A_QUICK if quick else _A_FULL)}}}", ev)


@claim("brr.text.min-m-dominance", "Taking m as the smallest m^(k) ensures that BRR has higher utility than GRR at each occurrence k; "
       "if m increases, the local utility of some occurrences would certainly decrease.", "brr §3.3, first bullet after Algorithm 2's steps",
       expected="refuted",
       severity="false-statement",
       explanation="fails only when a derivative of Algorithm 1 vanishes exactly (rational e^ε)",
       scope_quick="exact local errors for every larger m, |x − y|, N = 2..40, rational e^ε grid; exact derivative signs for ε ∈ {1}",
       scope_full="exact local errors for every larger m, |x − y|, N = 2..80, rational e^ε grid; exact derivative signs for ε ∈ {1/4, 1/2, 1, 2, 3}")
def min_m_dominance(quick: bool) -> Verdict:
    nmax = 40 if quick else 80
    fails, total, example = [], 0, None
    for a_s in (_A_QUICK if quick else _A_FULL):
        a, b = Fraction(a_s), _budget(f"log({a_s})")
        for n in range(2, nmax + 1):
            lam = _sorted_rows(n)
            m = int(_local_ms(b, lam).min())
            sg = _q_sign(n, a, m)  # rows k, columns h
            total += 1
            for h in range(m + 1, n + 1):
                if not np.any(sg[:, h - 1] > 0):
                    fails.append({"N": n, "e^eps": a_s, "m": m, "larger_m": h})
                    if example is None or n < example["N"]:
                        example = {"N": n, "e^eps": a_s, "m": m, "larger_m": h, "Q(m)": [str(x) for x in _local_errors(n, a, m)],
                                   "Q(larger m)": [str(x) for x in _local_errors(n, a, h)]}
    # transcendental e^ε: a derivative a·A + B with A ≠ 0 never vanishes, so at a row attaining the
    # minimum the derivative at step m + 1 is > 0 and Q^(k) strictly increases (Q is unimodal in m)
    strict = strict_total = 0
    irr = _IRR_QUICK if quick else _IRR_FULL
    for e in irr:
        b = _budget(e)
        for n in range(2, nmax + 1):
            lam = _sorted_rows(n)
            ms = _local_ms(b, lam)
            m = int(ms.min())
            if m == n:
                continue
            A, B = _parts(lam)
            k = int(np.argmin(ms))
            strict_total += 1
            strict += b.exact_sign(int(A[k, m]), int(B[k, m])) > 0
    ev = {"counterexample": example, "failures": f"{len(fails)}/{total} (N, e^ε) with rational e^ε", "sample": fails[:6],
          "transcendental_eps_strict": f"{strict}/{strict_total} (N, ε), ε ∈ {{{', '.join(irr)}}}: derivative at m + 1 > 0 at an argmin row",
          "holds_when": "no derivative of Algorithm 1 vanishes exactly (always for irrational e^ε); with a vanishing derivative "
                        "a larger m is at least as good at every k and strictly better at some, so BRR's m is not even Pareto-optimal",
          "first_part": "Q^(k)(BRR) ≤ Q^(k)(GRR) at every k holds (see brr.theorem.2 / brr.theorem.4)"}
    return Verdict("refuted" if fails else ("holds" if strict == strict_total else "inconclusive"), True,
                   f"exact local errors for every larger m, |x − y|, N = 2..{nmax}, rational e^ε grid; exact derivative signs for ε ∈ {{{', '.join(irr)}}}", ev)
