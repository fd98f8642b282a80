"""pf: Section 5: optimality on the bounded lattice (LP, dpexact.lp)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpexact.numbers.backends import ball_context

from ..catalogue import Verdict, claim
from ._helpers import _exact_pmf, _lattice_vectors


#
# Q(n, k) = {q ∈ (2ΔZ)^n : q* = 0, q* − q_r ≤ 2Δk}; a class c = (c_0, …, c_k) counts the scores per
# level ℓ = −q_r/(2Δ). With ε = log a (a rational) every coin e^{−εℓ} = a^{−ℓ} is rational, so PF's
# and EM's pmfs, the LP data and its certificates are all exact (fmpq).
#
# Which mechanisms the LP covers: the reduced LP of dpexact.lp (privacy rows of pf Prop. 2 with the
# "clip" boundary, symmetry by reduction, sum-to-one) contains the restriction to Q(n, k) of every
# regular ε-DP mechanism (the clipped rows follow from monotonicity), so its optimum is a lower
# bound on Σ_q E[err(M, q)] over regular mechanisms; the paper's relaxed LP (App. D) keeps only
# the rows with q_r < 0 (unrolled) and the merged sum-to-one rows, and also contains them.

#: ε threshold of pf Theorem 3 / Lemma 7
_PF_THRESHOLD = "log((3+sqrt(5))/2)"
#: rational a = e^ε with ε ≥ log((3+√5)/2) ≈ 0.9624 (a ≥ 2.618…)
_A_ABOVE = (Fraction(21, 8), Fraction(3), Fraction(5), Fraction(10))


def _eps_of(a: Fraction) -> str:
    return f"log({a})"


@functools.lru_cache(maxsize=None)
def _classes(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Classes of Q(n, k) (counts per level, c_0 ≥ 1), enumerated from the sorted vectors."""
    out = set()
    for v in _lattice_vectors(n, k):
        counts = [0] * (k + 1)
        for x in v:
            counts[-x] += 1
        out.add(tuple(counts))
    return tuple(sorted(out))


def _mult(c: tuple[int, ...]) -> int:
    m = math.factorial(sum(c))
    for x in c:
        m //= math.factorial(x)
    return m


def _class_scores(c: tuple[int, ...]) -> list[int]:
    """Representative score vector of class c in units of Δ (scores −2ℓ)."""
    return [-2 * l for l, cnt in enumerate(c) for _ in range(cnt)]


@functools.lru_cache(maxsize=None)
def _pf_level_probs(d: tuple[int, ...], a: Fraction) -> tuple[Any, ...]:
    """Pr[PF outputs an item of level ℓ] when the items not yet drawn have level counts ``d`` (coin a^{−ℓ}).

    pf Alg. 3 (draw without replacement): the next item is of level j with probability d_j/|d|;
    heads (probability a^{−j}) returns it, tails removes it. Level 0 has coin 1, so d_0 ≥ 1 throughout.
    """
    from flint import fmpq

    D = sum(d)
    out = [fmpq(0)] * len(d)
    rho = fmpq(a.denominator, a.numerator)
    for j, dj in enumerate(d):
        if not dj:
            continue
        w, p = fmpq(dj, D), rho**j
        out[j] += w * p
        if p != 1:
            d2 = list(d)
            d2[j] -= 1
            sub = _pf_level_probs(tuple(d2), a)
            for l in range(len(d)):
                out[l] += w * (1 - p) * sub[l]
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _class_pmf(name: str, c: tuple[int, ...], a: Fraction) -> dict[int, Any]:
    """Exact (fmpq) Pr[M(q) = r] of one r at each level present in class c, ε = log a, Δ = 1 (own code, not dpexact's).

    EM: a^{−ℓ} / Σ_j c_j a^{−j}; PF: :func:`_pf_level_probs` divided by c_ℓ (symmetry).
    """
    from flint import fmpq

    if name == "em":
        rho = fmpq(a.denominator, a.numerator)
        Z = sum((cnt * rho**l for l, cnt in enumerate(c)), fmpq(0))
        return {l: rho**l / Z for l, cnt in enumerate(c) if cnt}
    if name != "pf":
        raise ValueError(f"name must be 'pf' or 'em', got {name!r}")
    P = _pf_level_probs(c, a)
    return {l: P[l] / cnt for l, cnt in enumerate(c) if cnt}


def _class_pmf_matches_dpexact(n_max: int, k_max: int, a: Fraction) -> int:
    """Number of (class, mechanism) pmfs compared with dpexact's exact backend; raises on a mismatch."""
    from flint import fmpq

    checked = 0
    for n in range(2, n_max + 1):
        for k in range(1, k_max + 1):
            for c in _classes(n, k):
                q = _class_scores(c)
                for name in ("pf", "em"):
                    P = _exact_pmf(name, q, _eps_of(a))
                    mine = _class_pmf(name, c, a)
                    if any(fmpq(P[i].numerator, P[i].denominator) != mine[-x // 2] for i, x in enumerate(q)):
                        raise ArithmeticError(f"class pmf of {name} on {c} differs from dpexact's")
                    checked += 1
    return checked


def _class_error(name: str, c: tuple[int, ...], a: Fraction) -> Any:
    """E[err(M, q)] on class c in units of 2Δ (Σ_ℓ c_ℓ ℓ Pr[level ℓ]), fmpq."""
    from flint import fmpq

    P = _class_pmf(name, c, a)
    return sum((cnt * l * P[l] for l, cnt in enumerate(c) if cnt and l), fmpq(0))


@functools.lru_cache(maxsize=None)
def _total_error(name: str, n: int, k: int, a: Fraction) -> Any:
    """Σ_{q∈Q(n,k)} E[err(M, q)] in units of 2Δ, exact fmpq (own enumeration, one pmf per class)."""
    from flint import fmpq

    return sum((_mult(c) * _class_error(name, c, a) for c in _classes(n, k)), fmpq(0))


def _relaxed_dual(n: int, k: int, rho: Any) -> dict[tuple[int, ...], Any]:
    """Duals v_c of the sum-to-one rows of pf's relaxed LP in reduced (class) form, from Aᵀy = cost.

    Reduced relaxed LP (units 2Δ, ρ = e^{−ε}):  min Σ_c mult(c) Σ_{ℓ≥1} c_ℓ ℓ z(c,ℓ)  subject to
    P(c,ℓ): z(c,ℓ) − ρ^ℓ z(c − e_ℓ + e_0, 0) ≥ 0 (ℓ ≥ 1, pf's unrolled privacy rows) and
    S(c): Σ_ℓ c_ℓ z(c,ℓ) = 1 (pf's merged sum-to-one/symmetry rows); z ≥ 0. One row per variable.
    The dual equations read y(c,ℓ) = c_ℓ (mult(c) ℓ − v_c) for ℓ ≥ 1 and
    c_0 v_c = Σ_{ℓ=1}^{k} ρ^ℓ y(c − e_0 + e_ℓ, ℓ) (v_c = 0 when c_0 = 1); ``rho`` may be an
    fmpq or an fmpq_poly (then v_c is the polynomial in ρ).
    """
    from flint import fmpq

    classes = sorted(_classes(n, k), key=lambda c: c[0])
    v: dict[tuple[int, ...], Any] = {}
    for c in classes:
        if c[0] == 1:
            v[c] = rho * 0
            continue
        acc = rho * 0
        p = rho * 0 + 1
        for l in range(1, k + 1):
            p = p * rho
            c2 = list(c)
            c2[0] -= 1
            c2[l] += 1
            c2 = tuple(c2)
            acc = acc + p * (c2[l] * (_mult(c2) * l - v[c2]))
        v[c] = acc * fmpq(1, c[0])
    return v


def _relaxed_lp_certificate(n: int, k: int, a: Fraction) -> dict[str, Any]:
    """Exact certificate that PF is optimal for pf's relaxed LP at ρ = 1/a (or why not).

    PF satisfies every row with equality (checked exactly from its pmf), all its probabilities
    are positive, and the dual ``y`` solves Aᵀy = cost; PF is optimal iff y(c,ℓ) ≥ 0 on the
    privacy rows (weak duality; objectives equal because both A z = b and Aᵀ y = cost hold).
    """
    from flint import fmpq

    rho = fmpq(a.denominator, a.numerator)
    v = _relaxed_dual(n, k, rho)
    tight, min_y, worst = True, None, None
    primal = fmpq(0)
    for c in _classes(n, k):
        P = _class_pmf("pf", c, a)
        if sum((cnt * P[l] for l, cnt in enumerate(c) if cnt), fmpq(0)) != 1:
            tight = False
        for l, cnt in enumerate(c):
            if not cnt or not l:
                continue
            up = list(c)
            up[l] -= 1
            up[0] += 1
            if P[l] != rho**l * _class_pmf("pf", tuple(up), a)[0]:
                tight = False
            y = cnt * (_mult(c) * l - v[c])
            if min_y is None or y < min_y:
                min_y, worst = y, (c, l)
            primal += _mult(c) * cnt * l * P[l]
    dual = sum(v.values(), fmpq(0))
    same = dual == primal
    return {"pf_rows_tight": tight, "objectives_equal": same, "dual_feasible": min_y is None or min_y >= 0,
            "min_privacy_dual": str(min_y), "at": worst, "optimum_units_2Delta": str(primal)}


def _exact_lp_min(cost: list[Any], eq_rows: list[tuple[dict[int, Any], Any]], ge_rows: list[tuple[dict[int, Any], Any]],
                  nvars: int) -> dict[str, Any]:
    """min cost·z s.t. eq rows (= rhs), ge rows (≥ rhs), z ≥ 0, all data fmpq; certified exactly.

    HiGHS (dual simplex, float) proposes a basis; the basis system is then solved in fmpq
    (primal z_B and row duals y) and primal feasibility, dual feasibility (y ≥ 0 on ≥ rows,
    reduced costs ≥ 0) and equal objectives are checked exactly — together a proof of optimality.
    """
    import highspy
    import scipy.sparse as sp
    from flint import fmpq, fmpq_mat

    rows = list(eq_rows) + list(ge_rows)
    neq, m = len(eq_rows), len(rows)
    ri, ci, val = [], [], []
    for r, (coef, _) in enumerate(rows):
        for j, x in coef.items():
            ri.append(r)
            ci.append(j)
            val.append(float(x))
    A = sp.csc_matrix((val, (ri, ci)), shape=(m, nvars))
    from dpexact.highs import silent_highs

    h = silent_highs()
    h.setOptionValue("solver", "simplex")
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = nvars, m
    model.col_cost_ = np.array([float(x) for x in cost])
    model.col_lower_ = np.zeros(nvars)
    model.col_upper_ = np.full(nvars, highspy.kHighsInf)
    rhs_f = np.array([float(b) for _, b in rows])
    model.row_lower_ = rhs_f
    model.row_upper_ = np.concatenate([rhs_f[:neq], np.full(m - neq, highspy.kHighsInf)])
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = A.indptr.astype(np.int32)
    model.a_matrix_.index_ = A.indices.astype(np.int32)
    model.a_matrix_.value_ = A.data.astype(np.float64)
    model.a_matrix_.num_col_, model.a_matrix_.num_row_ = nvars, m
    h.passModel(model)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    if status != "Optimal":
        return {"certified": False, "reason": f"HiGHS: {status}"}
    basis = h.getBasis()
    basic = highspy.HighsBasisStatus.kBasic
    bcols = [j for j, s in enumerate(basis.col_status) if s == basic]
    arows = [r for r, s in enumerate(basis.row_status) if s != basic]
    if len(bcols) != len(arows):
        return {"certified": False, "reason": "basis is not square"}
    pos = {j: t for t, j in enumerate(bcols)}
    B = fmpq_mat(len(arows), len(bcols))
    rhs = fmpq_mat(len(arows), 1)
    for s, r in enumerate(arows):
        for j, x in rows[r][0].items():
            if j in pos:
                B[s, pos[j]] = x
        rhs[s, 0] = rows[r][1]
    try:
        zb = B.solve(rhs)
        yb = B.transpose().solve(fmpq_mat(len(bcols), 1, [cost[j] for j in bcols]))
    except ZeroDivisionError:
        return {"certified": False, "reason": "singular basis"}
    z = [fmpq(0)] * nvars
    for t, j in enumerate(bcols):
        z[j] = zb[t, 0]
    y = [fmpq(0)] * m
    for s, r in enumerate(arows):
        y[r] = yb[s, 0]
    red = list(cost)
    ok_rows = True
    for r, (coef, b) in enumerate(rows):
        act = fmpq(0)
        for j, x in coef.items():
            act += x * z[j]
            red[j] -= x * y[r]
        ok_rows &= (act == b) if r < neq else (act >= b)
    checks = {"z>=0": all(x >= 0 for x in z), "rows": ok_rows, "duals>=0": all(x >= 0 for x in y[neq:]),
              "reduced_costs>=0": all(x >= 0 for x in red)}
    primal = sum((cost[j] * z[j] for j in range(nvars)), fmpq(0))
    dual = sum((y[r] * rows[r][1] for r in range(m)), fmpq(0))
    checks["equal_objectives"] = primal == dual
    ok = all(checks.values())
    return {"certified": ok, "value": primal if ok else None, "z": z, "checks": checks,
            "reason": "" if ok else "failed: " + ", ".join(k_ for k_, v_ in checks.items() if not v_)}


def _pareto_lp(n: int, k: int, a: Fraction) -> tuple[Any, list, list, list, list[Fraction]]:
    """The reduced LP of dpexact.lp (clip boundary) plus the rows E[err(M, c)] ≤ E[err(PF, c)] for every class.

    Returns (lp, cost, eq_rows, ge_rows, pf) with ``pf[i]`` PF's exact probability for variable i.
    """
    from flint import fmpq

    from dpexact.lp import build_regular_lp

    lp = build_regular_lp(n, k, _eps_of(a))
    rho = fmpq(a.denominator, a.numerator)
    nv = lp.num_vars
    lvl = [int(x) for x in lp.var_level]
    cnt = [int(x) for x in lp.var_count]
    pf = []
    for i in range(nv):
        c = lp.classes[int(lp.var_class[i])].counts
        pf.append(_class_pmf("pf", c, a)[lvl[i]])
    eq_rows, ge_rows = [], []
    for j in range(len(lp.classes)):
        s, e = int(lp.class_start[j]), int(lp.class_start[j + 1])
        eq_rows.append(({i: fmpq(cnt[i]) for i in range(s, e)}, fmpq(1)))
        err = {i: fmpq(-cnt[i] * lvl[i]) for i in range(s, e) if lvl[i]}
        if err:
            ge_rows.append((err, -_class_error("pf", lp.classes[j].counts, a)))
    for i, o in zip(lp.row_var, lp.row_other):
        ge_rows.append(({int(i): fmpq(1), int(o): -rho}, fmpq(0)))
    cost = [fmpq(int(lp.var_mult[i]) * cnt[i] * lvl[i]) for i in range(nv)]
    return lp, cost, eq_rows, ge_rows, pf


def _pareto_scope(quick: bool) -> list[tuple[int, int]]:
    return [(2, 3), (3, 1), (3, 2), (3, 3), (4, 2), (4, 3)] if quick else [(2, 3), (2, 6), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (4, 2), (4, 3), (4, 4), (5, 2), (5, 3)]


_PARETO_A = (Fraction(11, 10), Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(3))


@claim("pf.proposition.6", "PF is Pareto optimal on the 2Δ-lattice: if E[E(M_PF,q)] > E[E(M,q)] for some regular mechanism M and "
       "some q ∈ R^n_2Δ, then E[E(M_PF,q')] < E[E(M,q')] for some q' ∈ R^n_2Δ.", "pf §5, Proposition 6 (proof App. D)",
       expected="holds",
       scope_quick="Q(n,k) for (n,k) ∈ [(2, 3), (3, 1), (3, 2), (3, 3), (4, 2), (4, 3)], ε = log a, a ∈ {11/10, 5/4, 3/2, 2, 3} (threshold a ≈ 2.618); LP = dpexact.lp reduced LP (clip boundary) + rows E[err(M,c)] ≤ E[err(PF,c)] ∀ classes; HiGHS basis certified exactly in fmpq. Holds within this scope only: q, q' range over Q(n,k) (which implies the statement for q ∈ Q(n,k) on the unbounded lattice)",
       scope_full="Q(n,k) for (n,k) ∈ [(2, 3), (2, 6), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (4, 2), (4, 3), (4, 4), (5, 2), (5, 3)], ε = log a, a ∈ {11/10, 5/4, 3/2, 2, 3} (threshold a ≈ 2.618); LP = dpexact.lp reduced LP (clip boundary) + rows E[err(M,c)] ≤ E[err(PF,c)] ∀ classes; HiGHS basis certified exactly in fmpq. Holds within this scope only: q, q' range over Q(n,k) (which implies the statement for q ∈ Q(n,k) on the unbounded lattice)")
def proposition_6(quick: bool) -> Verdict:
    # On Q(n, k): minimise Σ_q E[err(M, q)] over the LP (regular ε-DP mechanisms restricted to Q(n, k))
    # subject to E[err(M, c)] ≤ E[err(PF, c)] for every class c. Prop. 6 on Q(n, k) ⇔ the optimum is
    # Σ_q E[err(PF, q)] (then no feasible M is better anywhere without being worse somewhere in Q(n, k)).
    rows, bad, failed = [], [], []
    for n, k in _pareto_scope(quick):
        for a in _PARETO_A:
            lp, cost, eq_rows, ge_rows, _ = _pareto_lp(n, k, a)
            res = _exact_lp_min(cost, eq_rows, ge_rows, lp.num_vars)
            target = _total_error("pf", n, k, a)
            if not res["certified"]:
                failed.append({"n": n, "k": k, "epsilon": _eps_of(a), "reason": res["reason"]})
                continue
            val = res["value"]
            ratio_opt = _total_error("pf", n, k, a) / _unconstrained_optimum(n, k, a)
            rows.append({"n": n, "k": k, "epsilon": _eps_of(a), "constrained_optimum/PF_total": str(val / target),
                         "PF_overall_ratio": float(ratio_opt)})
            if val != target:
                bad.append({**rows[-1], "witness_z": [str(x) for x in res["z"]]})
    # negative control: the same LP with EM's errors in place of PF's must find a mechanism better than EM somewhere
    # and nowhere worse (EM is not Pareto optimal: PF dominates it, pf Thm 2)
    control = {}
    for n, k in _pareto_scope(quick)[:3]:
        a = Fraction(2)
        lp, cost, eq_rows, ge_rows, _ = _pareto_lp(n, k, a)
        ge_em = []
        for coef, rhs in ge_rows:
            if all(x <= 0 for x in coef.values()) and rhs != 0:  # an error row: replace PF's error by EM's
                i0 = next(iter(coef))
                c = lp.classes[int(lp.var_class[i0])].counts
                rhs = -_class_error("em", c, a)
            ge_em.append((coef, rhs))
        res = _exact_lp_min(cost, eq_rows, ge_em, lp.num_vars)
        control[f"{n},{k},log 2"] = {"certified": res["certified"], "optimum/EM_total": float(res["value"] / _total_error("em", n, k, a)) if res["certified"] else None}
    control_ok = all(v["certified"] and v["optimum/EM_total"] < 1 for v in control.values())
    below = [r for r in rows if r["PF_overall_ratio"] > 1]
    scope = (f"Q(n,k) for (n,k) ∈ {_pareto_scope(quick)}, ε = log a, a ∈ {{{', '.join(str(a) for a in _PARETO_A)}}} (threshold a ≈ 2.618); "
             "LP = dpexact.lp reduced LP (clip boundary) + rows E[err(M,c)] ≤ E[err(PF,c)] ∀ classes; HiGHS basis certified exactly in fmpq. "
             "Holds within this scope only: q, q' range over Q(n,k) (which implies the statement for q ∈ Q(n,k) on the unbounded lattice)")
    ev = {"instances": len(rows), "not_certified": failed[:5], "counterexamples": bad[:3],
          "instances_where_PF_is_not_overall_optimal": len(below),
          "max_overall_ratio_in_scope": max((r["PF_overall_ratio"] for r in rows), default=None),
          "control_EM_in_place_of_PF_(must_be_<1)": control,
          "note": "where PF's overall optimality ratio exceeds 1 a better-on-average mechanism exists, yet none is better at some q without being worse at another"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    if failed or not control_ok:
        return Verdict("inconclusive", False, scope, ev)
    return Verdict("holds", True, scope, ev)


@functools.lru_cache(maxsize=None)
def _unconstrained_optimum(n: int, k: int, a: Fraction) -> Any:
    """Exact LP optimum Σ_q E[err(M*, q)] (units 2Δ) of dpexact.lp at ε = log a (library certificate)."""
    from dpexact.lp import build_regular_lp, certify_exact, solve_regular_lp

    sol = solve_regular_lp(build_regular_lp(n, k, _eps_of(a)))
    cert = certify_exact(sol)
    if not cert.certified:
        raise ArithmeticError(f"certify_exact failed on Q({n},{k}), a = {a}: {cert.failure}")
    return cert.optimum / 2  # score units (Δ = 1) → units of 2Δ (fmpq)


@claim("pf.lemma.6", "If Pr[M(q)=r] < Pr[M_PF(q)=r] for some r with q_r < q* (M regular, ε-DP, q on the 2Δ-lattice), "
       "then some q' has E[E(M,q')] > E[E(M_PF,q')].", "pf App. D, Lemma 6",
       expected="holds",
       scope_quick="Q(n,k) for (n,k) ∈ [(2, 3), (3, 1), (3, 2), (3, 3)], ε = log a, a ∈ {5/4, 2}; for every (class, level ℓ ≥ 1): exact LP min Pr[M(q)=r] over dpexact.lp's reduced LP (clip) + E[err(M,c)] ≤ E[err(PF,c)] ∀ c (HiGHS basis, fmpq certificate); q and the q' of the lemma range over Q(n,k) (q' = q + (q*−q_r)e_r stays in it)",
       scope_full="Q(n,k) for (n,k) ∈ [(2, 3), (2, 6), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (4, 2), (4, 3)], ε = log a, a ∈ {11/10, 5/4, 3/2, 2, 3}; for every (class, level ℓ ≥ 1): exact LP min Pr[M(q)=r] over dpexact.lp's reduced LP (clip) + E[err(M,c)] ≤ E[err(PF,c)] ∀ c (HiGHS basis, fmpq certificate); q and the q' of the lemma range over Q(n,k) (q' = q + (q*−q_r)e_r stays in it)")
def lemma_6(quick: bool) -> Verdict:
    # Contrapositive on Q(n, k): every LP-feasible M with E[err(M, c)] ≤ E[err(PF, c)] for all classes
    # has Pr[M(q)=r] ≥ Pr[PF(q)=r] whenever q_r < 0. One exact LP per such variable: min z_i ≥ PF_i.
    from flint import fmpq

    scope_nk = _pareto_scope(quick)[: 4 if quick else 9]
    avals = _PARETO_A[1::2] if quick else _PARETO_A
    lps, bad, failed, tight = 0, [], [], 0
    for n, k in scope_nk:
        for a in avals:
            lp, _, eq_rows, ge_rows, pf = _pareto_lp(n, k, a)
            for i in range(lp.num_vars):
                if int(lp.var_level[i]) == 0:
                    continue
                obj = [fmpq(0)] * lp.num_vars
                obj[i] = fmpq(1)
                res = _exact_lp_min(obj, eq_rows, ge_rows, lp.num_vars)
                lps += 1
                if not res["certified"]:
                    failed.append({"n": n, "k": k, "epsilon": _eps_of(a), "variable": i, "reason": res["reason"]})
                    continue
                val = res["value"]
                tight += val == pf[i]
                if val < pf[i]:
                    c = lp.classes[int(lp.var_class[i])].counts
                    bad.append({"n": n, "k": k, "epsilon": _eps_of(a), "class": c, "level": int(lp.var_level[i]),
                                "min_Pr_M": str(val), "Pr_PF": str(pf[i])})
    scope = (f"Q(n,k) for (n,k) ∈ {scope_nk}, ε = log a, a ∈ {{{', '.join(str(a) for a in avals)}}}; for every (class, level ℓ ≥ 1): "
             "exact LP min Pr[M(q)=r] over dpexact.lp's reduced LP (clip) + E[err(M,c)] ≤ E[err(PF,c)] ∀ c (HiGHS basis, fmpq certificate); "
             "q and the q' of the lemma range over Q(n,k) (q' = q + (q*−q_r)e_r stays in it)")
    ev = {"exact_LPs": lps, "min_equals_PF": tight, "counterexamples": bad[:3], "not_certified": failed[:3],
          "note": "the minimum equals PF's probability in every LP: the only feasible M is PF itself"}
    if bad:
        return Verdict("refuted", True, scope, ev)
    if failed:
        return Verdict("inconclusive", False, scope, ev)
    return Verdict("holds", True, scope, ev)


def _theorem3_scope(quick: bool) -> dict[str, list[tuple[int, int]]]:
    if quick:
        return {"lp": [(n, k) for n in (2, 3, 4) for k in (1, 2, 3, 4)],
                "relaxed": [(n, k) for n in range(2, 6) for k in range(1, 6)],
                "continuum": [(n, k) for n in range(2, 7) for k in range(1, 7)]}
    return {"lp": [(n, k) for n in (2, 3, 4, 5) for k in range(1, 6)] + [(3, 8), (2, 10)],
            "relaxed": [(n, k) for n in range(2, 8) for k in range(1, 8)],
            "continuum": [(n, k) for n in range(2, 9) for k in range(1, 9)]}


@claim("pf.theorem.3", "For ε ≥ log((3+√5)/2), PF minimises Σ_{q∈Q} E[E(M,q)] over regular mechanisms on the bounded lattice "
       "Q = {q ∈ R^n_2Δ : q* − q_r ≤ 2Δk, q* = 0}, for any integer k ≥ 0.", "pf §5, Theorem 3 (proof App. D)",
       expected="holds",
       scope_quick="(a) dpexact.lp LP (clip) solved by HiGHS, certified exactly, optimum = PF total exactly at ε = log a, a ∈ {21/8, 3, 5, 10}, (n,k) ∈ [(2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4), (4, 1), (4, 2), (4, 3), (4, 4)]; (b) independent exact dual of pf's relaxed LP (PF tight, Aᵀy = cost, y ≥ 0) for n ≤ 5, k ≤ 5, same ε; (c) all ε ≥ log((3+√5)/2): dual polynomials in ρ identical to dpexact's, their first sign change ε*(n,k) < threshold by root isolation (arb), n ≤ 6, k ≤ 6. A universal statement: holds only within this (n, k) scope",
       scope_full="(a) dpexact.lp LP (clip) solved by HiGHS, certified exactly, optimum = PF total exactly at ε = log a, a ∈ {21/8, 3, 5, 10}, (n,k) ∈ [(2, 1), (2, 2), (2, 3), (2, 4), (2, 5), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (5, 1), (5, 2), (5, 3), (5, 4), (5, 5), (3, 8), (2, 10)]; (b) independent exact dual of pf's relaxed LP (PF tight, Aᵀy = cost, y ≥ 0) for n ≤ 7, k ≤ 7, same ε; (c) all ε ≥ log((3+√5)/2): dual polynomials in ρ identical to dpexact's, their first sign change ε*(n,k) < threshold by root isolation (arb), n ≤ 8, k ≤ 8. A universal statement: holds only within this (n, k) scope")
def theorem_3(quick: bool) -> Verdict:
    from flint import fmpq_poly

    from dpexact.lp import LEMMA7_THRESHOLD
    from dpexact.lp.dual_certificate import dual_feasibility_threshold, dual_recurrence

    sc = _theorem3_scope(quick)
    bad, lp_rows = [], 0
    pmf_checked = sum(_class_pmf_matches_dpexact(4, 3, a) for a in (_A_ABOVE[0], Fraction(5, 4)))
    # (a) dpexact.lp: HiGHS + exact basis certificate; the optimum equals PF's exact total
    for n, k in sc["lp"]:
        for a in _A_ABOVE:
            lp_rows += 1
            if _unconstrained_optimum(n, k, a) != _total_error("pf", n, k, a):
                bad.append({"route": "LP", "n": n, "k": k, "epsilon": _eps_of(a),
                            "ratio": str(_total_error("pf", n, k, a) / _unconstrained_optimum(n, k, a))})
    # (b) independent: pf's relaxed LP, PF tight and the dual of Aᵀy = cost feasible (exact). Why this proves the theorem
    # on Q(n,k): every regular ε-DP mechanism satisfies the relaxed rows (chained Prop. 2 rows stay inside Q(n,k);
    # symmetry merges the sum-to-one rows); the relaxed LP is permutation invariant, so symmetrising a feasible point
    # keeps it feasible with the same objective, and the reduced (class) LP has the same optimum; PF attains it.
    relaxed = 0
    for n, k in sc["relaxed"]:
        for a in _A_ABOVE:
            r = _relaxed_lp_certificate(n, k, a)
            relaxed += 1
            if not (r["pf_rows_tight"] and r["objectives_equal"] and r["dual_feasible"]):
                bad.append({"route": "relaxed dual", "n": n, "k": k, "epsilon": _eps_of(a), **r})
    # (c) every ε ≥ threshold: the dual is a polynomial in ρ; ours equals dpexact's recurrence
    # (v_c = −c_0 mult(c) y0(c), identity of fmpq_poly), whose first sign change ε*(n,k) is isolated rigorously
    x = fmpq_poly([0, 1])
    worst_gap, eps_star = None, {}
    thr = LEMMA7_THRESHOLD.to_arb(128)
    for n, k in sc["continuum"]:
        mine = _relaxed_dual(n, k, x)
        lib = dual_recurrence(n, k, x)
        if any(mine[c] != -c[0] * _mult(c) * lib[c] for c in _classes(n, k)):
            bad.append({"route": "continuum", "n": n, "k": k, "issue": "dual polynomials differ from dpexact's recurrence"})
            continue
        th = dual_feasibility_threshold(n, k)
        if th.epsilon_star is None:
            eps_star[f"{n},{k}"] = "feasible for all ε > 0"
            continue
        eps_star[f"{n},{k}"] = float(th.epsilon_star.mid())
        if not th.epsilon_star < thr:
            bad.append({"route": "continuum", "n": n, "k": k, "epsilon_star": str(th.epsilon_star)})
        gap = float((thr - th.epsilon_star).mid())
        worst_gap = gap if worst_gap is None else min(worst_gap, gap)
    # information: PF is optimal (exact ratio 1) below the threshold too, at ε = log 2 — the threshold is sufficient only
    below = {f"{n},{k}": str(_total_error("pf", n, k, Fraction(2)) / _unconstrained_optimum(n, k, Fraction(2))) for n, k in sc["lp"][:8]}
    scope = (f"(a) dpexact.lp LP (clip) solved by HiGHS, certified exactly, optimum = PF total exactly at ε = log a, a ∈ {{21/8, 3, 5, 10}}, "
             f"(n,k) ∈ {sc['lp']}; (b) independent exact dual of pf's relaxed LP (PF tight, Aᵀy = cost, y ≥ 0) for n ≤ {sc['relaxed'][-1][0]}, "
             f"k ≤ {sc['relaxed'][-1][1]}, same ε; (c) all ε ≥ log((3+√5)/2): dual polynomials in ρ identical to dpexact's, their first "
             f"sign change ε*(n,k) < threshold by root isolation (arb), n ≤ {sc['continuum'][-1][0]}, k ≤ {sc['continuum'][-1][1]}. "
             "A universal statement: holds only within this (n, k) scope")
    ev = {"class_pmfs_equal_to_dpexact": pmf_checked, "lp_instances": lp_rows, "relaxed_dual_instances": relaxed, "eps_star(n,k)": eps_star, "threshold": float(thr.mid()),
          "min_threshold_minus_eps_star": worst_gap, "PF_ratio_at_log2_below_threshold": below, "violations": bad[:5],
          "note": "ε*(n,k) is the finite Lemma 7 root (Σ_{t≤k} t ρ^t = 1) and increases to the threshold as k → ∞"}
    return Verdict("refuted" if bad else "holds", True, scope, ev)


@claim("pf.equation.10", "For ε ≥ log((3+√5)/2), pf's dual solution y satisfies eqs. (10)–(11): −2Δ/n_* ≤ y_r(q) ≤ 0 if q_r = 0 and "
       "0 ≤ y_r(q) ≤ −q_r if q_r < 0 (which includes dual feasibility).", "pf App. D, eqs. (10)–(11)",
       expected="holds",
       scope_quick="(n,k) with n ≤ 5, k ≤ 5; ε = log a, a ∈ {21/8, 3, 5, 10} exactly (fmpq) and ε = log((3+√5)/2) itself in arb; the dual from the independent reduced relaxed LP (pf.theorem.3 (b)). A universal statement: holds within this scope",
       scope_full="(n,k) with n ≤ 7, k ≤ 7; ε = log a, a ∈ {21/8, 3, 5, 10} exactly (fmpq) and ε = log((3+√5)/2) itself in arb; the dual from the independent reduced relaxed LP (pf.theorem.3 (b)). A universal statement: holds within this scope")
def equation_10(quick: bool) -> Verdict:
    from flint import fmpq

    from dpexact.numbers import Real

    # In classes and units of 2Δ: y_r(q) = y0(c) = −v_c/(c_0 mult(c)) at q_r = 0 and y(c,ℓ) = ℓ − v_c/mult(c) at level ℓ ≥ 1,
    # with v_c the sum-row duals of the reduced relaxed LP (_relaxed_dual). So (10) ⇔ 0 ≤ v_c ≤ mult(c), and (11) ⇔ 0 ≤ v_c ≤ ℓ mult(c).
    pairs = [(n, k) for n in range(2, 6 if quick else 8) for k in range(1, 6 if quick else 8)]
    bad, checked = [], 0
    with ball_context(128):
        rho_thr = (-Real.of(_PF_THRESHOLD).to_arb(160)).exp()
        for n, k in pairs:
            for rho, label in [(fmpq(a.denominator, a.numerator), _eps_of(a)) for a in _A_ABOVE] + [(rho_thr, "threshold (arb)")]:
                v = _relaxed_dual(n, k, rho)
                for c, vc in v.items():
                    mlt = _mult(c)
                    l_min = min((l for l, cnt in enumerate(c) if cnt and l), default=None)
                    checked += 1
                    ok10 = bool(vc >= 0) and bool(vc <= mlt)
                    ok11 = l_min is None or (bool(vc >= 0) and bool(vc <= l_min * mlt))
                    if not (ok10 and ok11):
                        bad.append({"n": n, "k": k, "epsilon": label, "class": c, "y0*n_*": str(-vc / mlt)})
        # below the threshold (10) fails once Σ_{t≤k} t ρ^t > 1, e.g. ε = log 2, k = 3
        below = _relaxed_dual(3, 3, fmpq(1, 2))
        below_fail = {str(c): str(-vc / _mult(c)) for c, vc in below.items() if not vc <= _mult(c)}  # n_* y0 < −1 violates (10)
    scope = (f"(n,k) with n ≤ {pairs[-1][0]}, k ≤ {pairs[-1][1]}; ε = log a, a ∈ {{21/8, 3, 5, 10}} exactly (fmpq) and ε = log((3+√5)/2) itself "
             "in arb; the dual from the independent reduced relaxed LP (pf.theorem.3 (b)). A universal statement: holds within this scope")
    ev = {"classes_checked": checked, "violations": bad[:5], "example_below_threshold_log2_n3_k3_y0*n_*": below_fail,
          "note": "pf's displayed dual LP prints the first constraint with '− Σ_t y_r(q − 2Δt e_r) e^{−tε}'; the dual of the relaxed "
          "LP has '+' there (the column of x_r(q) carries +e^{−tε} in the privacy rows), and pf's recurrence is the tight form of the '+' version"}
    return Verdict("refuted" if bad else "holds", True, scope, ev)
