"""Optimal ε-LDP channel LP: exact certificates, independent solvers, GRR/BRR never below it."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.optimize
import sympy

from dpexact.ldp import BipartiteRR, GeneralizedRR, absolute_loss, jaccard_similarity, optimal_ldp_channel


def scipy_lp_value(lam, a, prior):
    """The same LP written independently for scipy's interior-point HiGHS solver."""
    lam = np.asarray(lam, dtype=float)
    n, m = lam.shape
    c = (np.asarray(prior, dtype=float)[:, None] * lam).ravel()
    a_eq = np.zeros((n, n * m))
    for x in range(n):
        a_eq[x, x * m:(x + 1) * m] = 1
    rows = []
    for y in range(m):
        for x in range(n):
            for x2 in range(n):
                if x != x2:
                    r = np.zeros(n * m)
                    r[x * m + y], r[x2 * m + y] = 1, -a
                    rows.append(r)
    res = scipy.optimize.linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=a_eq, b_eq=np.ones(n),
                                 bounds=(0, None), method="highs-ipm")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("a", [2, 3, Fraction(3, 2)])
def test_binary_domain_optimum_is_randomized_response(a):
    """N = 2, |x − y|, uniform prior: the optimum is RR with error 1/(a + 1)."""
    eps = f"log({a})"
    r = optimal_ldp_channel(absolute_loss(2), eps)
    assert r.certified and r.exact_value == 1 / (Fraction(a) + 1)


@pytest.mark.parametrize("n", [3, 5, 8])
@pytest.mark.parametrize("eps", ["log(2)", "log(3)", "log(5/4)"])
def test_certified_optimum_against_independent_solver_and_mechanisms(n, eps):
    lm = absolute_loss(n)
    r = optimal_ldp_channel(lm, eps)
    assert r.certified, r.details
    a = float(sympy.exp(sympy.sympify(eps)))
    assert abs(float(r.exact_value) - scipy_lp_value(lm.to_float(), a, [1 / n] * n)) < 1e-7
    # the certified channel is a valid ε-LDP channel whose Q_g is the certified value
    ch = r.channel
    assert ch.satisfies_ldp(eps)
    assert Fraction(str(ch.global_error().value)) == r.exact_value
    # GRR and BRR are feasible points of the LP: never below the optimum (exact comparison)
    for mech in (GeneralizedRR(n, eps).channel("exact", loss=lm), BipartiteRR(lm, eps).channel("exact")):
        assert Fraction(str(mech.global_error().value)) >= r.exact_value


def test_worst_case_objective_certified():
    lm = absolute_loss(6)
    r = optimal_ldp_channel(lm, "log(3)", objective="worst-case")
    assert r.certified
    loc = [Fraction(str(v)) for v in r.channel.local_errors()]
    assert max(loc) == r.exact_value
    brr = BipartiteRR(lm, "log(3)").channel("exact")
    assert max(Fraction(str(v)) for v in brr.local_errors()) >= r.exact_value


def test_utility_maximised_and_prior_respected():
    lm = jaccard_similarity(5)
    r = optimal_ldp_channel(lm, "log(3)")
    assert r.certified
    g = GeneralizedRR(5, "log(3)").channel("exact", loss=lm)
    assert r.exact_value >= Fraction(str(g.global_error().value))
    prior = [Fraction(1, 2), Fraction(1, 8), Fraction(1, 8), Fraction(1, 8), Fraction(1, 8)]
    rp = optimal_ldp_channel(absolute_loss(5), "log(3)", prior=prior)
    assert rp.certified
    assert abs(float(rp.exact_value) - scipy_lp_value(absolute_loss(5).to_float(), 3.0, [float(p) for p in prior])) < 1e-7


def test_irrational_e_eps_is_not_certified_but_solved():
    r = optimal_ldp_channel(absolute_loss(6), 1)
    assert not r.certified and r.exact_value is None and "irrational" in r.details["failed"]
    assert abs(r.value - scipy_lp_value(absolute_loss(6).to_float(), float(np.e), [1 / 6] * 6)) < 1e-7


def test_brr_is_not_the_optimum_for_n12():
    """brr §1 claims BRR is optimal "in a reasonable global sense": on N = 12, |x−y|, ε = log 3,
    both the uniform-prior and the worst-case optimum are strictly below BRR (exact)."""
    lm = absolute_loss(12)
    brr = BipartiteRR(lm, "log(3)").channel("exact")
    opt = optimal_ldp_channel(lm, "log(3)")
    wc = optimal_ldp_channel(lm, "log(3)", objective="worst-case")
    assert opt.certified and wc.certified
    assert Fraction(str(brr.global_error().value)) > opt.exact_value
    assert max(Fraction(str(v)) for v in brr.local_errors()) > wc.exact_value


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": 1, "objective": "median"}, "objective"),
        ({"epsilon": 1, "prior": [1, 0]}, "prior"),
    ],
)
def test_bad_lp_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        optimal_ldp_channel(absolute_loss(4), **kwargs)


def test_lp_size_guard():
    with pytest.raises(ValueError, match="MAX_LP_DOMAIN"):
        optimal_ldp_channel(absolute_loss(41), 1)
