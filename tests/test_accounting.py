"""(ε, δ) accounting against independent oracles: brute-force products of the pmfs (exact),
the closed forms in float (scipy), and dp_accounting's PLD, whose pessimistic and optimistic
discretisations are upper and lower bounds on the true value."""

import itertools
import math
import time
from fractions import Fraction as F

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.cost_limits import CostLimitError
from dpexact.accounting.delta_epsilon import (GaussianMechanism, LaplaceMechanism, PmfPair, delta_for_epsilon,
                                       epsilon_for_delta, privacy_loss_distribution)
from dpexact.accounting.privacy_profiles import gaussian_profile, laplace_profile

from dp_accounting.pld import privacy_loss_distribution as pld  # the "test" extra (pyproject.toml)

runner = CliRunner()

# an asymmetric pair with a zero in Q (so the two directions differ and one has an infinite loss)
P = (F(1, 2), F(1, 4), F(1, 8), F(1, 8))
Q = (F(1, 8), F(1, 4), F(5, 8), F(0))


def brute_delta(p, q, k, w):
    """max over both orders of Σ_y max(0, P^k(y) − w Q^k(y)) by enumerating all outputs (w rational)."""
    best = F(0)
    for a, b in ((p, q), (q, p)):
        tot = F(0)
        for ys in itertools.product(range(len(a)), repeat=k):
            pa, qb = F(1), F(1)
            for y in ys:
                pa *= a[y]
                qb *= b[y]
            tot += max(F(0), pa - w * qb)
        best = max(best, tot)
    return best


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("eps, w", [("0", F(1)), ("log(2)", F(2)), ("log(3/2)", F(3, 2)), ("log(5)", F(5))])
def test_pmf_pair_composition_equals_brute_force(k, eps, w):
    d = delta_for_epsilon(PmfPair(P, Q), eps, compositions=k)
    assert F(d.exact) == brute_delta(P, Q, k, w)
    assert d.lower <= float(F(d.exact)) <= d.upper


def _dpa_pair(p, q, pessimistic):
    lp = {i: math.log(x) for i, x in enumerate(p) if x}
    lq = {i: math.log(x) for i, x in enumerate(q) if x}
    return pld.from_two_probability_mass_functions(lq, lp, pessimistic_estimate=pessimistic, symmetric=False)


@pytest.mark.parametrize("k", [1, 5, 20])
def test_pmf_pair_against_dp_accounting(k):
    p, q = (F(3, 5), F(1, 5), F(1, 5)), (F(1, 5), F(1, 5), F(3, 5))
    hi, lo = _dpa_pair(p, q, True).self_compose(k), _dpa_pair(p, q, False).self_compose(k)
    for eps in ("0.5", "1", "2.5"):
        d = delta_for_epsilon(PmfPair(p, q), eps, compositions=k)
        assert lo.get_delta_for_epsilon(float(eps)) - 1e-12 <= d.lower <= d.upper <= hi.get_delta_for_epsilon(float(eps)) + 1e-12
    for delta in ("1e-6", "1e-3"):
        e = epsilon_for_delta(PmfPair(p, q), delta, compositions=k)
        assert lo.get_epsilon_for_delta(float(delta)) - 1e-9 <= e.lower <= e.upper <= hi.get_epsilon_for_delta(float(delta)) + 1e-9


def test_pmf_inverse_is_exact():
    pair = PmfPair(P, Q)
    d = delta_for_epsilon(PmfPair((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4))), "log(2)", compositions=3)
    e = epsilon_for_delta(PmfPair((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4))), d.exact, compositions=3)
    assert e.exact == "log(2)"
    # P puts 1/8 where Q is 0: no finite ε reaches δ < 1/8; δ = 1/8 is reached
    assert epsilon_for_delta(pair, "1/9").upper == math.inf
    assert math.isfinite(epsilon_for_delta(pair, "1/8").upper)
    assert epsilon_for_delta(pair, 1).exact == "0"


@pytest.mark.parametrize("sigma, sens, k", [(1, 1, 1), ("0.5", 1, 1), (2, 1, 16), (3, "2", 5)])
def test_gaussian_closed_form_and_dp_accounting(sigma, sens, k):
    g = GaussianMechanism(sigma, sens)
    s, dlt = float(F(str(sigma))), float(F(str(sens)))
    hi = pld.from_gaussian_mechanism(s, sensitivity=dlt, pessimistic_estimate=True).self_compose(k)
    lo = pld.from_gaussian_mechanism(s, sensitivity=dlt, pessimistic_estimate=False).self_compose(k)
    for eps in ("0", "0.5", "2"):
        d = delta_for_epsilon(g, eps, compositions=k)
        closed = gaussian_profile(float(eps), s, dlt * math.sqrt(k))  # scipy float: a few ulp
        assert abs(d.mid - closed) <= 1e-12 * max(closed, 1e-300) + 1e-15
        assert d.upper - d.lower <= 1e-15
        assert lo.get_delta_for_epsilon(float(eps)) - 1e-12 <= d.lower <= d.upper <= hi.get_delta_for_epsilon(float(eps)) + 1e-12
    e = epsilon_for_delta(g, "1e-5", compositions=k)
    assert e.upper - e.lower <= 1e-12 * e.upper
    assert lo.get_epsilon_for_delta(1e-5) - 1e-9 <= e.lower <= e.upper <= hi.get_epsilon_for_delta(1e-5) + 1e-9
    # the inverse inverts: δ(ε_upper) <= 1e-5 <= δ(ε_lower)
    assert delta_for_epsilon(g, F(e.upper), k).upper <= 1e-5 <= delta_for_epsilon(g, F(e.lower), k).lower


@pytest.mark.parametrize("b, sens", [(1, 1), ("0.5", 1), (2, "3")])
def test_laplace_closed_form_and_dp_accounting(b, sens):
    m = LaplaceMechanism(b, sens)
    bf, sf = float(F(str(b))), float(F(str(sens)))
    hi = pld.from_laplace_mechanism(bf, sensitivity=sf, pessimistic_estimate=True)
    lo = pld.from_laplace_mechanism(bf, sensitivity=sf, pessimistic_estimate=False)
    for eps in ("0", "1/4", "1", "3"):
        d = delta_for_epsilon(m, eps)
        assert abs(d.mid - laplace_profile(float(F(eps)), bf, sf)) <= 1e-15
        assert lo.get_delta_for_epsilon(float(F(eps))) - 1e-12 <= d.lower <= d.upper <= hi.get_delta_for_epsilon(float(F(eps))) + 1e-12
    e = epsilon_for_delta(m, "0.01")
    assert abs(e.mid - max(0.0, sf / bf + 2 * math.log(0.99))) <= 1e-14
    assert delta_for_epsilon(m, F(sf) / F(str(b))).exact == "0"  # pure ε = Δ/b


def test_errors():
    with pytest.raises(ValueError, match="sum to 1"):
        PmfPair(["1/2", "1/3"], ["1/2", "1/2"])
    with pytest.raises(ValueError, match="same length"):
        PmfPair(["1"], ["1/2", "1/2"])
    with pytest.raises(ValueError, match="epsilon"):
        delta_for_epsilon(GaussianMechanism(1), -1)
    with pytest.raises(ValueError, match="delta"):
        epsilon_for_delta(GaussianMechanism(1), 2)
    with pytest.raises(ValueError, match="compositions"):
        delta_for_epsilon(LaplaceMechanism(1), 1, compositions=2)
    with pytest.raises(ValueError, match="compositions"):
        delta_for_epsilon(GaussianMechanism(1), 1, compositions=0)
    with pytest.raises(CostLimitError, match="distinct ratios"):
        privacy_loss_distribution([F(1, 64)] * 64, [F(i + 1, 2080) for i in range(64)], compositions=6, max_size=1000)
    # refused before any convolution: the lower bound on the table sizes already exceeds the budget
    t0 = time.perf_counter()
    with pytest.raises(CostLimitError, match="at least"):
        delta_for_epsilon(PmfPair(["3/4", "1/4"], ["1/4", "3/4"]), 1, compositions=5000)
    assert time.perf_counter() - t0 < 2


def test_pld_table_is_the_exact_composition():
    p, q = (F(1, 2), F(1, 3), F(1, 6)), (F(1, 6), F(1, 3), F(1, 2))
    table, inf_mass = privacy_loss_distribution(p, q, compositions=3)
    assert inf_mass == 0 and sum(a for a, _ in table.values()) == 1 and sum(b for _, b in table.values()) == 1
    for r, (a, b) in table.items():
        assert a == r * b  # every output grouped under its own likelihood ratio
    assert sorted(table) == sorted({F(3) ** i for i in range(-3, 4)})


def test_cli_json_and_errors():
    import json

    res = runner.invoke(app, ["delta", "--p-pmf", "3/4,1/4", "--q-pmf", "1/4,3/4", "-e", "log(2)", "--compositions", "3", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert F(out["results"][0]["delta"]["exact"]) == brute_delta((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4)), 3, F(2))
    res = runner.invoke(app, ["delta", "--gaussian", "1", "-d", "1e-5"])
    assert res.exit_code == 0 and "ε(δ)" in res.output
    for args in (["delta", "--gaussian", "1"], ["delta", "--gaussian", "1", "--laplace", "1", "-e", "1"],
                 ["delta", "--p-pmf", "1/2,1/2", "-e", "1"], ["delta", "--laplace", "1", "-e", "1", "--compositions", "2"],
                 ["delta", "--gaussian", "0", "-e", "1"], ["delta", "--gaussian", "1", "-e", "1", "--prec", "9"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and res.output.startswith("error:") and "Traceback" not in res.output, (args, res.output)
