"""Lemma M of docs/curves.md (PF at any n: the extreme pair of outputs is a mixture of n = 3 pairs), checked in
exact rationals (Fraction), symbolic algebra (sympy) and certified ball integration (arb), with mutations that
must make each check fail. The independent law is dpexact's own PF (``dpexact.mechanism("pf")``, ball backend).
"""

from __future__ import annotations

import random
from fractions import Fraction as Fr

import pytest

from dpexact.curves import pf_mixture as M

KAPPA = Fr(1, 3)  # any κ ∈ (0, 1) works in Lemma M; a rational stand-in for e^{−ε} keeps the checks exact


def _rand_scales(rng, n):
    return [Fr(rng.randint(1, 400), rng.randint(1, 100)) for _ in range(n)]


def test_race_form_is_dpexacts_pf_law():
    """Pr[argmin V_k = i] with V_k ~ U[0, a_k], a_k = e^{−c q_k}, is PF's law (checked against dpexact's PF)."""
    import math

    import dpexact

    rng = random.Random(5)
    for n in (2, 3, 5, 8):
        q = [rng.uniform(-4, 4) for _ in range(n)]
        eps = "1"
        law = dpexact.mechanism("pf", epsilon=eps).pmf([repr(v) for v in q], backend="ball").values
        a = [Fr(math.exp(-0.5 * v)) for v in q]  # c = ε/(2Δ) = 1/2; exact rationals of the float scales
        for i in range(n):
            assert abs(float(M.win_probability(a, i)) - float(law[i].mid())) < 1e-12


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_mixing_survival_closed_form_and_its_monotonicity_are_identities(k):
    """T = F − tF' equals Π(1 − y)(1 + Σ y/(1 − y)); ∂T/∂y_1 = −Π_{l≠1}(1 − y_l) Σ_{l≠1} y_l/(1 − y_l) <= 0;
    F''/F = (Σ A)² − Σ A² = 2 Σ_{k<l} A_k A_l >= 0 (A_k = 1/(a_k − t)): symbolic, exact."""
    import sympy as sp

    t = sp.Symbol("t", positive=True)
    a = sp.symbols(f"a0:{k}", positive=True)
    y = sp.symbols(f"y0:{k}", positive=True)
    F = sp.prod([1 - t / ai for ai in a])
    T = F - t * sp.diff(F, t)
    closed = sp.prod([1 - yi for yi in y]) * (1 + sum(yi / (1 - yi) for yi in y))
    assert sp.simplify(T - closed.subs({yi: t / ai for yi, ai in zip(y, a)})) == 0
    slope = -sp.prod([1 - yi for yi in y[1:]]) * sum(yi / (1 - yi) for yi in y[1:])
    assert sp.simplify(sp.diff(closed, y[0]) - slope) == 0
    A = [1 / (ai - t) for ai in a]
    assert sp.simplify(sp.diff(F, t, 2) / F - (sum(A) ** 2 - sum(x * x for x in A))) == 0
    assert sp.expand(sum(A) ** 2 - sum(x * x for x in A) - 2 * sum(A[p] * A[r] for p in range(k) for r in range(p + 1, k))) == 0


def test_mixing_survival_module_matches_definition_exactly():
    rng = random.Random(1)
    for _ in range(20):
        others = _rand_scales(rng, rng.randint(1, 6))
        m = min(others)
        for _ in range(5):
            t = m * Fr(rng.randint(0, 999), 1000)
            # T = F − t F' from the polynomial F, against the closed form the module uses
            poly = M._poly(others)
            F, dF = M._eval(poly, t), M._eval(M._deriv(poly), t)
            assert M.mixing_survival(others, t) == F - t * dF
            for k in range(len(others)):
                assert M.mixing_survival_slope(others, t, k) <= 0
        assert M.mixing_survival(others, Fr(0)) == 1 and M.mixing_survival(others, m) == 0
        poly = M._poly(others)
        assert M._eval(poly, m) == 0  # F(m) = 0: the atom is T(m⁻) = −m F'(m⁻) >= 0
        assert M.mixing_atom(others) == M._eval(poly, m) - m * M._eval(M._deriv(poly), m) >= 0


def _mixture_enclosure(a_i, a_j, others, density=M.mixing_density, atom=M.mixing_atom):
    """Certified ball of E_μ[Pr_3[i wins]] = ∫_0^m win3(c) dμ(c) (μ: density on (0, m) + atom at m), by arb
    integration split where the smallest of (a_i, a_j, c) changes."""
    from flint import acb, fmpq

    def q(x):
        return acb(fmpq(x.numerator, x.denominator))

    m = min(others)
    b = min(a_i, a_j)
    exact_others = others
    others = [q(x) for x in others]  # the density is evaluated on complex balls
    pieces = [(Fr(0), min(b, m), True)] + ([(b, m, False)] if b < m else [])
    total, mass = acb(0), acb(0)
    for lo, hi, third_smallest in pieces:
        if third_smallest:
            f = lambda z, _an: M.n3_win_third_smallest(q(a_i), q(a_j), z) * density(others, z)
        else:
            f = lambda z, _an: M.n3_win(q(a_i), q(a_j), z, q(b)) * density(others, z)
        total += acb.integral(f, q(lo), q(hi))
        mass += acb.integral(lambda z, _an: density(others, z), q(lo), q(hi))
    w = atom(exact_others)
    top = M.n3_win(a_i, a_j, m, min(a_i, a_j, m))
    return total.real + q(w * top).real, mass.real + q(w).real


def _exact_pi(a_i, a_j, others):
    return M.win_probability([a_i, a_j] + list(others), 0)


@pytest.mark.parametrize("seed", range(6))
def test_lemma_m_mixture_identity_is_certified(seed):
    """P_i (exact, at n = 3..7) lies in the certified ball of the μ-average of n = 3 values; μ has mass 1.
    Also the Q side (scales moved by s_k ∈ [κ, 1], j by κ) and output j."""
    rng = random.Random(seed)
    a = _rand_scales(rng, rng.randint(3, 7))
    a_i, a_j, others = a[0], a[1], a[2:]
    ball, mass = _mixture_enclosure(a_i, a_j, others)
    assert ball.contains(_frac_arb(_exact_pi(a_i, a_j, others))) and ball.rad() < 1e-12
    assert mass.contains(1) and mass.rad() < 1e-12
    s = [KAPPA + (1 - KAPPA) * Fr(rng.randint(0, 10), 10) for _ in others]
    moved = [sk * ak for sk, ak in zip(s, others)]
    qball, _ = _mixture_enclosure(a_i, KAPPA * a_j, moved)
    assert qball.contains(_frac_arb(_exact_pi(a_i, KAPPA * a_j, moved)))
    jball, _ = _mixture_enclosure(a_j, a_i, others)
    assert jball.contains(_frac_arb(_exact_pi(a_j, a_i, others)))


def _frac_arb(x):
    from flint import arb, fmpq

    return arb(fmpq(x.numerator, x.denominator))


def test_mutation_mixture_identity_fails_when_a_term_is_broken():
    """Drop the factor c of μ's density (c F''(c) → F''(c)), or drop the atom: the certified ball excludes P_i."""
    rng = random.Random(2)
    a = _rand_scales(rng, 5)
    a_i, a_j, others = a[0], a[1], a[2:]
    exact = _frac_arb(_exact_pi(a_i, a_j, others))
    no_c = lambda o, z: M._eval(M._deriv(M._deriv(M._poly(o))), z)
    assert not _mixture_enclosure(a_i, a_j, others, density=no_c)[0].contains(exact)
    assert not _mixture_enclosure(a_i, a_j, others, atom=lambda o: 0 * min(o))[0].contains(exact)


def test_lemma_m_coupling_holds_exactly_and_fails_outside_the_neighbour_range():
    """κC <=_st C' <=_st C on a fine rational grid of t for neighbours (s_k ∈ [κ, 1]); a score moved by more than
    Δ (one s_k < κ or > 1) breaks it — the check can fail."""
    rng = random.Random(7)
    for _ in range(30):
        others = _rand_scales(rng, rng.randint(1, 6))
        s = [KAPPA + (1 - KAPPA) * Fr(rng.randint(0, 20), 20) for _ in others]
        top = max(others) / KAPPA
        ts = [top * Fr(k, 400) for k in range(401)]
        assert M.coupling_violations(others, s, KAPPA, ts) == []
    others = [Fr(2), Fr(3), Fr(5)]
    ts = [Fr(k, 50) for k in range(1, 800)]
    assert M.coupling_violations(others, [Fr(1), Fr(6, 5), Fr(1)], KAPPA, ts)  # s > 1: C' above C somewhere
    assert M.coupling_violations(others, [KAPPA / 2, KAPPA, KAPPA], KAPPA, ts)  # s < κ: C' below κC somewhere


def test_reduction_to_extreme_offsets_is_monotone_exactly():
    """Q_i decreases when another candidate's scale shrinks and increases when i's own shrinks (the reduction
    to d_i = 0, d_j = ε): exact, random configurations."""
    rng = random.Random(9)
    for _ in range(40):
        a = _rand_scales(rng, rng.randint(3, 6))
        k = rng.randrange(1, len(a))
        shrunk = list(a)
        shrunk[k] = a[k] * Fr(rng.randint(1, 99), 100)
        assert M.win_probability(shrunk, 0) <= M.win_probability(a, 0)
        own = list(a)
        own[0] = a[0] * Fr(rng.randint(1, 99), 100)
        assert M.win_probability(own, 0) >= M.win_probability(a, 0)


def test_n3_vector_is_the_race_law():
    rng = random.Random(4)
    for _ in range(30):
        a_i, a_j, c = _rand_scales(rng, 3)
        s = KAPPA + (1 - KAPPA) * Fr(rng.randint(0, 10), 10)
        Pi, Qi, Pj, Qj = M.n3_vector(a_i, a_j, KAPPA, c, s * c)
        assert Pi == M.win_probability([a_i, a_j, c], 0) and Pj == M.win_probability([a_i, a_j, c], 1)
        assert Qi == M.win_probability([a_i, KAPPA * a_j, s * c], 0)
        assert Qj == M.win_probability([a_i, KAPPA * a_j, s * c], 1)
        if c < min(a_i, a_j):
            assert M.n3_win_third_smallest(a_i, a_j, c) == M.n3_win(a_i, a_j, c, c)


def _separation_screen():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "curves_pf_separation.py"
    spec = importlib.util.spec_from_file_location("curves_pf_separation", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_statement_s_screen_separates_and_a_lowered_frontier_breaks_it():
    """A float screen of S (not a proof): at a few (ρ, x), max(L, 0) <= U on a (c, s) grid; the screen can fail:
    with the frontier's B(x) lowered by 1% the n = 2 member at ρ = x (c = ∞) has ψ > 0 = φ."""
    import math

    import numpy as np

    S = _separation_screen()
    eps, kap = 1.0, math.exp(-1.0)
    beta, s = np.concatenate([[0.0], np.logspace(-6, 6, 200)]), np.linspace(kap, 1, 11)
    for rho, x in ((0.5, 0.5), (0.62, 0.6), (3.0, 0.9), (0.01, kap)):
        r = S.margins(eps, rho, x, beta, s)
        assert max(r["L"], 0.0) < r["U"] and r["direct"] <= 1e-12
    # mutation: the n = 2 member at ρ = x (c = ∞) sits on the true frontier (ψ = φ = 0); with B(x) 1% lower the
    # screen reports it (ψ > 0 where φ <= 0)
    r = S.margins(eps, 0.5, 0.5, beta, s, b_scale=0.99)
    assert r["direct"] > 1e-3


def _q_grid_min(rho, kap, a, b, lam, c, points=120):
    grid = [kap * c + (c - kap * c) * Fr(k, points) for k in range(points + 1)]
    m0 = min(rho, kap)
    if kap * c < m0 < c:
        grid.append(m0)
    return min(M.q_side_value(rho, kap, a, b, lam, z) for z in grid)


def test_lemma_e_min_over_s_is_at_the_candidates_exactly():
    """min over c' ∈ [κc, c] of g_λ is attained at κc, c or the critical point c'*: no grid point is lower
    (exact rationals, random ρ, κ, a, B, λ, c)."""
    rng = random.Random(13)
    for _ in range(60):
        kap = Fr(rng.randint(1, 99), 100)
        rho, c = Fr(rng.randint(1, 3000), 1000), Fr(rng.randint(1, 3000), 1000)
        a, b = Fr(rng.randint(1, 100), 100), Fr(rng.randint(100, 900), 100)
        lam = Fr(rng.randint(0, 5000), 100)
        best = min(M.q_side_value(rho, kap, a, b, lam, z) for z in M.q_side_candidates(rho, kap, a, b, lam, c))
        assert _q_grid_min(rho, kap, a, b, lam, c, points=40) >= best


def test_lemma_e_mutation_without_the_critical_point_fails():
    """A configuration (ε ≈ 1) where g_λ is convex below m₀ and its minimum is interior: the ends alone miss it."""
    kap, rho, a, b, lam, c = Fr(3679, 10000), Fr(226, 1000), Fr(541, 1000), Fr(2655, 1000), Fr(10), Fr(208, 1000)
    cands = M.q_side_candidates(rho, kap, a, b, lam, c)
    assert len(cands) == 3
    ends = min(M.q_side_value(rho, kap, a, b, lam, z) for z in cands[:2])
    assert _q_grid_min(rho, kap, a, b, lam, c) < ends
    assert M.q_side_value(rho, kap, a, b, lam, cands[2]) <= _q_grid_min(rho, kap, a, b, lam, c)


def test_lemma_e_pieces_are_c1_and_of_the_stated_shape():
    """Q-masses of (ρ, κ, c'): quadratic in c' below m₀ = min(ρ, κ), affine in 1/c' above, C¹ at m₀ (exact)."""
    rng = random.Random(17)
    for _ in range(30):
        kap, rho = Fr(rng.randint(1, 99), 100), Fr(rng.randint(1, 300), 100)
        m0 = min(rho, kap)
        for A, B in ((rho, kap), (kap, rho)):
            def w(z, A=A, B=B):
                return M.n3_win(A, B, z, min(A, B, z))
            # below m0: (z/A)(1/2 − z/(6B)); above: affine in 1/z (equal second differences in 1/z)
            z = m0 * Fr(rng.randint(1, 99), 100)
            assert w(z) == z / A * (Fr(1, 2) - z / (6 * B))
            u1, u2, u3 = m0 * 2, m0 * 3, m0 * 6  # 1/u in arithmetic progression: 1/(2m0), 1/(3m0), 1/(6m0)
            assert w(u1) - w(u2) == w(u2) - w(u3)
            # C¹ at m0: the one-sided slopes (1/A)(1/2 − m0/(3B)) agree with the exact derivative of both forms
            h = Fr(1, 10**12) * m0
            left, right = (w(m0) - w(m0 - h)) / h, (w(m0 + h) - w(m0)) / h
            target = (Fr(1, 2) - m0 / (3 * B)) / A
            assert abs(left - target) < Fr(1, 10**9) and abs(right - target) < Fr(1, 10**9)


def test_partial_certificate_of_s_proves_a_small_box_and_fails_with_a_wrong_multiplier():
    """benchmarks/curves_pf_s_partial.py proves Φ = ψ − λφ < 0 in ball arithmetic on a small (ρ, x) box for all
    c ∈ (0, ∞], s ∈ [κ, 1]; with λ outside the screen's [L, U] (0, or 100) the same proof must fail."""
    import importlib.util
    import math
    import pathlib
    import sys

    from flint import arb

    bench = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        spec = importlib.util.spec_from_file_location("curves_pf_s_partial", bench / "curves_pf_s_partial.py")
        P = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(P)
    finally:
        sys.path.remove(str(bench))
    kap = math.exp(-1.0)
    box = (2.0, 2.0002, 0.5, 0.5001)
    lam = P.choose_lambda(1.0, 2.0001, 0.50005)
    for prove in (P.prove_box, P.prove_box_mono):
        assert prove(arb(1), kap, *box, lam, 20000) is not None
        assert prove(arb(1), kap, *box, 0.0, 20000) is None
        assert prove(arb(1), kap, *box, 100.0, 20000) is None
    # the monotone corner bound proves a 10% box that plain ball bounds cannot
    big = (2.0, 2.2, 0.5, 0.52)
    lam = P.choose_lambda(1.0, math.sqrt(2.0 * 2.2), 0.51)
    assert P.prove_box_mono(arb(1), kap, *big, lam, 20000) is not None


def test_lemma_t_first_order_at_the_n2_frontier_member():
    """Lemma T (docs/curves.md): for ρ, x ∈ [κ, 1], the n = 2 member's φ₂, ψ₂ both vanish at ρ = x with
    ψ₂/φ₂ = λ₂ = (2 − ρ − x)(2x − κ)/(2xρ − κρ − κx); with λ = λ₂ and a weak third (c >= c_L) the family's
    ψ − λφ is exactly β·D_s (β = 1/c), and on the diagonal D_1 = −x(1 − κ)/6, D_κ = −x(1 − κ)(1 − x)/(6(x − κ)).
    Symbolic (sympy), and the affine form checked against the exact n = 3 masses."""
    import sympy as sp

    x, k, s, rho, beta = sp.symbols("x kappa s rho beta", positive=True)
    a, B = x**2 / (2 * x - k), (2 * x - x**2) / k
    # n = 2 member (no third) for κ <= ρ <= 1: P = (1 − ρ/2, ρ/2), Q = (κ/(2ρ), 1 − κ/(2ρ))
    phi2, psi2 = rho / 2 - a * (1 - k / (2 * rho)), 1 - rho / 2 - B * k / (2 * rho)
    assert sp.simplify(phi2 - (x - rho) * (k * rho + k * x - 2 * rho * x) / (2 * rho * (2 * x - k))) == 0
    assert sp.simplify(psi2 - (x - rho) * (rho + x - 2) / (2 * rho)) == 0
    lam2 = (2 - rho - x) * (2 * x - k) / (2 * x * rho - k * rho - k * x)
    assert sp.simplify(psi2 - lam2 * phi2) == 0

    # third not the smallest on either side: upper limits U_P = min(ρ, 1) = ρ, U_Q = min(ρ, κ) = κ
    def w(A, Bs, U, b):
        return (U - U**2 * (1 / Bs + b) / 2 + U**3 * b / (3 * Bs)) / A

    Pi, Pj = w(rho, 1, rho, beta), w(1, rho, rho, beta)
    Qi, Qj = w(rho, k, k, beta / s), w(k, rho, k, beta / s)
    Phi = (Pi - B * Qi) - lam2 * (Pj - a * Qj)
    D = sp.diff(Phi, beta)
    assert sp.simplify(Phi - beta * D) == 0  # Φ₂ = 0 with λ₂, and Φ is affine in β
    Dd = sp.simplify(D.subs(rho, x))
    assert sp.simplify(Dd.subs(s, 1) + x * (1 - k) / 6) == 0
    assert sp.simplify(Dd.subs(s, k) + x * (1 - k) * (1 - x) / (6 * (x - k))) == 0
    # the symbolic w is the module's exact n = 3 law (a rational point in the weak-third regime)
    R, X, K, S, C = Fr(1, 2), Fr(3, 5), Fr(2, 5), Fr(3, 4), Fr(10)
    Pi_e, Qi_e, Pj_e, Qj_e = M.n3_vector(R, Fr(1), K, C, S * C)
    sub = {rho: R, x: X, k: K, s: S, beta: 1 / C}
    for sym, exact in ((Pi, Pi_e), (Pj, Pj_e), (Qi, Qi_e), (Qj, Qj_e)):
        assert sp.nsimplify(sym.subs(sub)) == sp.Rational(exact.numerator, exact.denominator)
