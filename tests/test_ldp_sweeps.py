"""Long sweeps (``-m slow``): brr Algorithm 3 vs Algorithm 2 for N = 2..300, and the brr Fig. 1 / Fig. 4
quantities for GRR, BRR and EM. Tables are printed (``pytest -m slow -s``); the assertions are
the properties that must hold whatever the agreement rate is."""

from collections import Counter

import pytest
import sympy

from dpexact.ldp import (
    BipartiteRR,
    ExponentialChannel,
    GeneralizedRR,
    absolute_loss,
    closed_form_m,
    global_search,
    local_search,
)

SWEEP_EPS = ["1/4", "1/2", 1, "log(3)", 2, 4]


@pytest.mark.slow
@pytest.mark.parametrize("eps", SWEEP_EPS)
def test_closed_form_vs_search_n2_to_300(eps):
    agree, signs, first = 0, Counter(), []
    for n in range(2, 301):
        lm = absolute_loss(n)
        g = global_search(lm, eps)
        cf = closed_form_m(n, eps)
        # properties: m1 is x=1's local m (or one more when the root is an integer); eps >= 1
        # branch is never below the global minimum
        loc0 = local_search(lm.values[0], eps).m
        assert cf.m1 in (loc0, loc0 + 1)
        assert g.m <= loc0
        if cf.branch == "eps>=1":
            assert cf.m >= g.m
        if g.m == cf.m:
            agree += 1
        else:
            signs[(g.m > cf.m) - (g.m < cf.m)] += 1
            if len(first) < 6:
                first.append((n, g.m, cf.m, g.argmin[:2]))
    print(f"\neps={eps}: closed form == search for {agree}/299 N; search>cf: {signs[1]}, search<cf: {signs[-1]}; "
          f"first disagreements (N, search, closed form, argmin inputs): {first}")


THEOREM3 = lambda eps: float((7 * sympy.exp(eps / 2) + 1) / (4 * sympy.exp(eps / 2) * (sympy.exp(eps / 2) + 1)))


@pytest.mark.slow
def test_fig1_fig4_table():
    """Q_g and QLoss (brr eqs. 11, 12) on {1..N}, |x−y|, ball arithmetic (rigorous)."""
    print("\n   N   eps   m | QLoss GRR   QLoss BRR   QLoss EM  | Qg BRR/GRR  Thm3 limit")
    for eps in (sympy.Rational(1, 2), sympy.Integer(1), sympy.Integer(2), sympy.Integer(4)):
        for n in (20, 40, 60, 80, 100, 200):
            lm = absolute_loss(n)
            g = GeneralizedRR(n, eps).channel("ball", loss=lm)
            brr = BipartiteRR(lm, eps)
            b = brr.channel("ball")
            e = ExponentialChannel(lm, eps).channel("ball")
            qg, qb, qe = g.qloss(), b.qloss(), e.qloss()
            # Theorem 4 / Theorem 2 (first part): BRR never worse than GRR
            assert not (qb.value > qg.value)
            ratio = b.global_error().as_float / g.global_error().as_float
            print(f"{n:4d} {str(eps):>4} {brr.resolved_m():4d} | {qg.as_float:.6f}   {qb.as_float:.6f}   "
                  f"{qe.as_float:.6f} | {ratio:.6f}   {THEOREM3(eps):.6f}")
