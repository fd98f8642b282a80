"""Independent reference computations for the proofs_checks tests (no dpexact code inside; no tests here)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np


def pf_pmf_sequential(p: tuple) -> list:
    """PF (pf Alg. 1) by conditioning on the next item drawn from the remaining set:
    P(r | S) = (1/|S|) [p_r + Σ_{s∈S, s≠r} (1 − p_s) P(r | S∖{s})] (exact for Fractions)."""
    n = len(p)

    @lru_cache(maxsize=None)
    def P(r: int, S: frozenset) -> object:
        if r not in S:
            return 0
        tot = p[r]
        for s in S:
            if s != r:
                tot = tot + (1 - p[s]) * P(r, S - {s})
        return tot / len(S)

    full = frozenset(range(n))
    return [P(r, full) for r in range(n)]


def em_pmf(q, eps: float, delta: float = 1.0) -> np.ndarray:
    w = np.exp(eps / (2 * delta) * (np.asarray(q, float) - np.max(q)))
    return w / w.sum()


def eq7(n: int, p: float) -> float:
    return math.log(1 / p) * (1 - 1 / (1 + (n - 1) * p))


def eq8(n: int, p: float) -> float:
    return math.log(1 / p) * (1 - (1 - (1 - p) ** n) / (n * p))


def coins(q, eps: float = 2 * math.log(2)):
    """Fraction coins 2^(q_r − q*) at ε = 2 log 2 for integer q; floats otherwise."""
    m = max(q)
    if abs(eps - 2 * math.log(2)) < 1e-15 and all(float(x).is_integer() for x in q):
        return tuple(Fraction(1, 2 ** int(m - x)) for x in q)
    return tuple(math.exp(eps / 2 * (x - m)) for x in q)


# -- pf §5 / App. D: the LP on the bounded lattice, built directly (one variable per (q, r)) ---------------


def lattice_levels(n: int, k: int) -> list:
    """Q(n, k) as level vectors ℓ ∈ {0..k}^n with min ℓ = 0 (score q_r = −2Δℓ_r)."""
    import itertools

    return [v for v in itertools.product(range(k + 1), repeat=n) if min(v) == 0]


def pf_probs(levels, a) -> list:
    """Exact PF pmf on a level vector at ε = log a (coins a^{−ℓ}), by the sequential recursion."""
    return pf_pmf_sequential(tuple(Fraction(1) / Fraction(a) ** l for l in levels))


def em_probs(levels, a) -> list:
    w = [Fraction(1) / Fraction(a) ** l for l in levels]
    return [x / sum(w) for x in w]


def total_error(probs, n: int, k: int, a) -> Fraction:
    """Σ_{q∈Q(n,k)} E[err] in units of 2Δ for ``probs(levels, a)``."""
    return sum(sum(p * l for p, l in zip(probs(v, a), v)) for v in lattice_levels(n, k))


def solve_regular_lp(n: int, k: int, a, extra_ub=None, objective=None):
    """pf App. D's LP on Q(n, k) at ε = log a with scipy.optimize.linprog (HiGHS), written out directly.

    Variables x_r(q); privacy x_r(q) ≥ e^{−ε} x_r(q′) with q′ = q + 2Δe_r (q_r < 0) or q + 2Δ(e_r − 1) (q_r = 0,
    scores that leave the lattice raised back to level k); symmetry through adjacent transpositions; sum to one.
    ``extra_ub(vecs, var)`` may return extra rows (coefficient dict, rhs) meaning Σ coef·x ≤ rhs;
    ``objective`` (a dict var -> coef) replaces the default Σ_q Σ_r ℓ_r x_r(q). Returns (result, vecs, var).
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog

    rho = 1.0 / float(a)
    vecs = lattice_levels(n, k)
    index = {v: i for i, v in enumerate(vecs)}

    def var(v, r):
        return index[v] * n + r

    ub_rows, ub_rhs, eq_rows, eq_rhs = [], [], [], []
    for v in vecs:
        for r in range(n):
            if v[r] > 0:
                w = list(v)
                w[r] -= 1
            else:
                w = [min(l + 1, k) for l in v]
                w[r] = 0
            w = tuple(w)
            if w != v:
                ub_rows.append({var(v, r): -1.0, var(w, r): rho})
                ub_rhs.append(0.0)
        eq_rows.append({var(v, r): 1.0 for r in range(n)})
        eq_rhs.append(1.0)
        for t in range(n - 1):
            w = list(v)
            w[t], w[t + 1] = w[t + 1], w[t]
            w = tuple(w)
            for r in range(n):
                rr = t + 1 if r == t else t if r == t + 1 else r
                if var(v, r) < var(w, rr):
                    eq_rows.append({var(v, r): 1.0, var(w, rr): -1.0})
                    eq_rhs.append(0.0)
    if extra_ub is not None:
        for coef, rhs in extra_ub(vecs, var):
            ub_rows.append(coef)
            ub_rhs.append(rhs)

    def mat(rows):
        ri = [i for i, row in enumerate(rows) for _ in row]
        ci = [j for row in rows for j in row]
        vals = [x for row in rows for x in row.values()]
        return sp.csr_matrix((vals, (ri, ci)), shape=(len(rows), len(vecs) * n))

    c = np.zeros(len(vecs) * n)
    if objective is None:
        for v in vecs:
            for r in range(n):
                c[var(v, r)] = v[r]
    else:
        for j, x in objective.items():
            c[j] = x
    res = linprog(c, A_ub=mat(ub_rows), b_ub=ub_rhs, A_eq=mat(eq_rows), b_eq=eq_rhs, bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return res, vecs, var
