"""brr: exact arithmetic on e^ε; the equidistant domain: sorted distance rows, Algorithm 1, Algorithm 3; exact local / global errors on the equidistant domain; paper's asymptotic formulas (u = e^{ε/2})."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

# the vectorised search lives in the library; the claim modules use it under these names
from dpexact.numbers.backends import ball_context
from dpexact.ldp.brr_equidistant import ExpSign as _Budget
from dpexact.ldp.brr_equidistant import derivative_parts as _parts
from dpexact.ldp.brr_equidistant import exp_sign as _budget
from dpexact.ldp.brr_equidistant import global_m_equidistant as _global_m_large  # noqa: F401  (re-exported)
from dpexact.ldp.brr_equidistant import local_ms as _local_ms
from dpexact.ldp.brr_equidistant import sorted_distance_row as _sorted_row  # noqa: F401  (re-exported)
from dpexact.ldp.brr_equidistant import sorted_distance_rows as _sorted_rows

_A_FULL = ("21/20", "11/10", "5/4", "3/2", "7/4", "2", "5/2", "3", "4", "6", "10", "20")

_A_QUICK = ("11/10", "3/2", "2", "5/2", "3", "4", "10")

_IRR_FULL = ("1/4", "1/2", "1", "2", "3")

_IRR_QUICK = ("1",)

_N_MAX_GRID = 300

def _eps_grid(quick: bool) -> list[str]:
    return [f"log({a})" for a in (_A_QUICK if quick else _A_FULL)] + list(_IRR_QUICK if quick else _IRR_FULL)


def _isqrt_floor_div(Y: int, c: int, d: int) -> int:
    """⌊(√Y − c)/d⌋ for integers Y ≥ 0, c and d > 0 (exact: no integer lies in (⌊√Y⌋, √Y])."""
    return (math.isqrt(Y) - c) // d


def _floor_arb(f: Any, exact: Any) -> int:
    """⌊f(ball)⌋ from a 128-bit ball, else the sympy-backed exact floor ``exact()``."""
    with ball_context(128):
        v = f()
        lo, hi = v.lower().floor(), v.upper().floor()
        if lo == hi:
            return int(lo.unique_fmpz())
    return exact()


def _alg3(n: int, b: _Budget) -> dict[str, Any]:
    """brr Algorithm 3, every line (m2 also when ε ≥ 1), exact. For e^ε = p/q the floors are integer
    square roots: m1 = ⌊(√(4N²pq + (q−p)²) − (2Nq − p + q))/(2(p − q))⌋, and i − 1 = ⌊(√(N²pq) − Nq)/(p − q)⌋
    (N even) or ⌊(√(q(p(N²−1) + q)) − Nq)/(p − q)⌋ (N odd); otherwise arb, then
    :func:`dpexact.ldp.brr_closed_form.exact_floor`."""
    if b.frac is not None:
        p, q = b.frac.numerator, b.frac.denominator
        Y1, c1 = 4 * n * n * p * q + (q - p) ** 2, 2 * n * q - p + q
        m1 = _isqrt_floor_div(Y1, c1, 2 * (p - q))
        root1_integral = math.isqrt(Y1) ** 2 == Y1 and (math.isqrt(Y1) - c1) % (2 * (p - q)) == 0
        Y2 = n * n * p * q if n % 2 == 0 else q * (p * (n * n - 1) + q)
        i = _isqrt_floor_div(Y2, n * q, p - q) + 1
    else:
        import sympy

        from dpexact.ldp.brr_closed_form import exact_floor

        e = b.eps.to_sympy()
        Ae, Nn, half = sympy.exp(e), sympy.Integer(n), sympy.Rational(1, 2)
        A = b.arb()
        m1 = _floor_arb(lambda: ((n * n * A + (1 - A) ** 2 / 4).sqrt() - (n - A / 2 + 0.5)) / (A - 1),
                        lambda: exact_floor((sympy.sqrt(Nn**2 * Ae + (1 - Ae) ** 2 / 4) - (Nn - Ae / 2 + half)) / (Ae - 1)))
        root1_integral = False  # z1(i) = 0 needs e^ε = (N−i)(N−i+1)/(i(i−1)), a rational
        if n % 2 == 0:
            i = _floor_arb(lambda: n / (A.sqrt() + 1) + 1, lambda: exact_floor(Nn / (sympy.exp(e / 2) + 1) + 1))
        else:
            i = _floor_arb(lambda: ((A * (n * n - 1) + 1).sqrt() - n) / (A - 1) + 1,
                           lambda: exact_floor((sympy.sqrt(Ae * (Nn**2 - 1) + 1) - Nn) / (Ae - 1) + 1))
    m2 = i if i % 2 == 1 else i + 1
    m = m1 if b.ge1 else min(m1, m2)
    return {"m": m, "m1": m1, "m2": m2, "i": i, "root1_integral": root1_integral}


def _middle_rule(n: int, b: _Budget) -> int:
    """Largest odd i ≤ N with z(i) < 0, z the middle row's numerator (brr eqs. 15/16):
    4z = a(i − 1)² − i² + 2(N + 1)i − N² − 2N − 1 (+1 for odd N)."""
    i = np.arange(1, n + 1, 2, dtype=np.int64)
    A = (i - 1) ** 2
    Bv = -(i**2) + 2 * (n + 1) * i - n * n - 2 * n - 1 + (n % 2)
    neg = np.flatnonzero(b.sign(A, Bv) < 0)
    return int(i[neg[-1]]) if neg.size else 1


def _middle_z_sign(n: int, b: _Budget, i: int) -> int:
    """Exact sign of the middle row's numerator z(i) (brr eqs. 15/16, times 4)."""
    return b.exact_sign((i - 1) ** 2, -(i**2) + 2 * (n + 1) * i - n * n - 2 * n - 1 + (n % 2))


@functools.lru_cache(maxsize=2)
def _grid(quick: bool) -> tuple[dict[str, Any], ...]:
    """Search (Algorithms 1–2) and closed form (Algorithm 3) for N = 2..300 on the ε grid
    (rows k and N + 1 − k have the same sorted distances, so only k ≤ ⌈N/2⌉ are searched)."""
    out = []
    budgets = [_budget(e) for e in _eps_grid(quick)]
    for n in range(2, _N_MAX_GRID + 1):
        lam = _sorted_rows(n)[: (n + 1) // 2]
        parts = _parts(lam)
        for b in budgets:
            ms = _local_ms(b, lam, parts=parts)
            m = int(ms.min())
            ext, mid = int(ms[0]), int(ms[(n - 1) // 2])
            cf = _alg3(n, b)
            out.append({"eps": b.label, "N": n, "m": m, "ext": ext, "mid": mid, "mid_rule": _middle_rule(n, b),
                        "mid_root_integral": cf["i"] % 2 == 1 and _middle_z_sign(n, b, cf["i"]) == 0,
                        "min_at_ext_or_mid": m in (ext, mid), "ge1": b.ge1, **{f"cf_{k}": v for k, v in cf.items()}})
    return tuple(out)


@functools.lru_cache(maxsize=2)
def _crosscheck_library(quick: bool) -> dict[str, Any]:
    """The fast search / closed form used on the grid against dpexact.ldp's own implementations."""
    from dpexact.ldp import absolute_loss, closed_form_m, global_search

    cases = [(n, e) for e in _eps_grid(quick) for n in ((3, 4, 10, 17) if quick else (2, 3, 4, 5, 10, 17, 31, 64))]
    cases += [(150, "log(3)"), (299, "1")] if quick else [(150, "log(3)"), (299, "1"), (300, "log(3/2)"), (233, "1/2")]
    bad = []
    for n, e in cases:
        g = global_search(absolute_loss(n), e)
        fast = _local_ms(_budget(e), _sorted_rows(n))
        cf, lib = _alg3(n, _budget(e)), closed_form_m(n, e)
        if tuple(int(x) for x in fast) != g.local_m or cf["m"] != lib.m or cf["m1"] != lib.m1:
            bad.append({"N": n, "eps": e})
    return {"cases": len(cases), "mismatches": bad}


def _local_errors(n: int, a: Fraction, m: int) -> list[Fraction]:
    """Q^(k) of BRR with m (brr eq. 10; m = 1 is GRR): (a S_k + T_k − S_k)/(m a + N − m), exact."""
    lam = _sorted_rows(n)
    S, T = lam[:, :m].sum(axis=1), lam.sum(axis=1)
    Z = m * a + n - m
    return [(a * int(s) + int(t) - int(s)) / Z for s, t in zip(S, T)]


def _q_sign(n: int, a: Fraction, m_ref: int) -> np.ndarray:
    """sign(Q^(k)(h) − Q^(k)(m_ref)) for every row k (axis 0) and h = 1..N (axis 1), exactly: with
    e^ε = p/q, Q^(k)(h) = (p C_kh + q (T_k − C_kh)) / (h p + q (N − h)), C_kh the sum of the h smallest."""
    p, q = a.numerator, a.denominator
    C = np.cumsum(_sorted_rows(n), axis=1)
    T = C[:, -1:]
    h = np.arange(1, n + 1)
    num = p * C + q * (T - C)
    den = h * p + q * (n - h)
    ref_num, ref_den = num[:, m_ref - 1 : m_ref], den[m_ref - 1]
    return np.sign(num * ref_den - ref_num * den[None, :])


def _qg_all_m(n: int, a: Fraction) -> list[Fraction]:
    """Q_g (brr eq. 11, uniform prior) of BRR for m = 1..N, exact."""
    col = np.cumsum(_sorted_rows(n).sum(axis=0))
    T = int(col[-1])
    return [(a * int(col[h - 1]) + T - int(col[h - 1])) / (n * (h * a + n - h)) for h in range(1, n + 1)]


def _s_row(n: int, dist: int, m: int) -> int:
    """Sum of the m smallest distances from a point at distance ``dist`` from the nearer edge."""
    if m <= 2 * dist + 1:
        r = (m - 1) // 2
        return r * (r + 1) if m % 2 else (r + 1) ** 2
    return dist * (dist + 1) + (m - 1 - dist) * (m - dist) // 2 - dist * (dist + 1) // 2


def _ratio_large(n: int, a: Fraction, m: int) -> tuple[Fraction, Fraction, Fraction]:
    """(Q_g(BRR)/Q_g(GRR), max_k, min_k of Q^(k)(BRR)/Q^(k)(GRR)) exactly, O(N)."""
    T = (n**3 - n) // 3
    S = 0
    lo = hi = None
    for k in range((n + 1) // 2):
        d = min(k, n - 1 - k)
        s = _s_row(n, d, m)
        t = d * (d + 1) // 2 + (n - 1 - d) * (n - d) // 2
        S += s * (2 if n - 1 - k != k else 1)
        r = (a * s + t - s) * (a + n - 1) / ((m * a + n - m) * t)
        lo = r if lo is None or r < lo else lo
        hi = r if hi is None or r > hi else hi
    g = (a * S + T - S) * (a + n - 1) / (T * (m * a + n - m))
    return g, hi, lo


def _thm3_paper(u: Any) -> Any:
    return (7 * u + 1) / (4 * u * (u + 1))


def _thm3_true(u: Any) -> Any:
    return (7 * u + 9) / (4 * (u + 1) ** 2)


def _thm2_sup(u: Any) -> Any:
    return 2 / (u + 1)


def _thm2_inf(u: Any, sqrt: Any = None) -> Any:
    sqrt = sqrt or (lambda x: x.sqrt() if hasattr(x, "sqrt") else math.sqrt(x))
    return u - (u - 1) / (u + 1) * (sqrt(u * u + 2 * u + 2) + 1)


def _limit_at_infinity(expr: Any, x: Any) -> Any:
    """lim_{x→∞} of a rational function of x (ratio of the leading coefficients), exactly."""
    import sympy as sp

    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    pn, pd = sp.Poly(num, x), sp.Poly(den, x)
    if pn.degree() > pd.degree():
        raise ArithmeticError(f"{expr} diverges")
    return sp.cancel(pn.LC() / pd.LC()) if pn.degree() == pd.degree() else sp.Integer(0)


@functools.lru_cache(maxsize=1)
def _asymptotics() -> dict[str, Any]:
    """sympy: the N → ∞ limits of brr App. A.2–A.3 (local ratios, global ratio, eq. 18 coefficient)."""
    import sympy as sp

    N, n, m, a, c, d, u, P, r, rho = sp.symbols("N n m a c d u P r rho", positive=True)
    lim = _limit_at_infinity
    T = (N - n) * (N - n - 1) / 2 + n * (n + 1) / 2
    q_grr = T / (a + N - 1)
    S1 = (m - 1) * (m + 1) / 4  # case (1), odd m: 0,1,1,…,(m−1)/2,(m−1)/2
    S2 = n * (n + 1) / 2 + (m - 1 - n) * (m - n) / 2  # case (2)
    Z = N + (a - 1) * m
    scale = {n: d * N, m: c * N}
    R1 = sp.factor(lim((((a * S1 + T - S1) / Z) / q_grr).subs(scale), N))
    R2 = sp.factor(lim((((a * S2 + T - S2) / Z) / q_grr).subs(scale), N))
    case1_paper = (c**2 * (a - 1) + 2 * (1 - 2 * d + 2 * d**2)) / (4 * (1 + (a - 1) * c))
    case2_paper = sp.Rational(1, 2) * ((1 - 2 * d + 2 * d**2) * a + (c - 1) * (c + 1 - 2 * d) * (a - 1)) / ((a - 1) * c + 1)
    Q1 = lim(((a * S1 + T - S1) / Z / N).subs(scale), N)
    Q2 = lim(((a * S2 + T - S2) / Z / N).subs(scale), N)
    sub = {a: u**2, c: 1 / (u + 1)}
    d1 = (1 + c - sp.sqrt(1 + c**2)) / 2
    dR2 = sp.factor(sp.together(sp.diff(R2, d)))
    # Theorem 3: exact Σ_k S_m(k) for odd N = 2P+1, odd m = 2r+1 and even N = 2P, even m = 2r+2
    inner = sp.summation(n * (n + 1) / 2 + (2 * r - n) * (2 * r + 1 - n) / 2, (n, 0, r - 1))
    s_odd = sp.expand(2 * inner + (2 * (P - r) + 1) * r * (r + 1))
    inner2 = sp.summation(n * (n + 1) / 2 + (2 * r + 1 - n) * (2 * r + 2 - n) / 2, (n, 0, r))
    s_even = sp.expand(2 * inner2 + 2 * (P - 1 - r) * (r + 1) ** 2)
    lims = []
    for Nn, mm, S in ((2 * P + 1, 2 * r + 1, s_odd), (2 * P, 2 * r + 2, s_even)):
        Tt = (Nn**3 - Nn) / 3
        ratio = ((a - 1) * S + Tt) * (a + Nn - 1) / (Tt * (mm * a + Nn - mm))
        lims.append(sp.factor(lim(ratio.subs(r, rho * P), P)))
    L_u = sp.factor(sp.cancel(lims[0].subs({a: u**2, rho: 1 / (u + 1)})))
    # eq. (18): the paper's N² coefficient and the one its own sums give
    D = 1 + (a - 1) * c
    K_paper = (((1 - c) * (c**2 * (a - 1) + 2) + c**2) / (4 * D) - 1 / (6 * D) + c * (a + (a - 1) * (c**2 - 1)) / (2 * D)
               - c**2 * (a + (c - 1) * (a - 1)) / (4 * D))
    s18a = sp.summation((N - 2 * n + 2 * n**2 / N) * a + N * (c - 1) * (c + 1 - 2 * n / N) * (a - 1), (n, 0, (c * N - 1) / 2)) / D
    s18b = sp.summation(N / (2 * D) * (c**2 * (a - 1) + 2 - 4 * n / N + 4 * n**2 / N**2), (n, (c * N + 1) / 2, (N - 1) / 2))
    K_true = sp.factor(lim((s18a + s18b) / N**2, N))
    return {
        "sym": (N, n, m, a, c, d, u, P, r, rho), "R1": R1, "R2": R2, "sub": sub, "d1": d1, "dR2": dR2,
        "case1_ok": sp.cancel(Q1 - case1_paper) == 0, "case2_ok": sp.cancel(Q2 - case2_paper) == 0,
        "s_odd": s_odd, "s_even": s_even, "lim_odd": lims[0], "lim_even": lims[1], "L_u": L_u,
        "K_paper": K_paper, "K_true": K_true,
    }
