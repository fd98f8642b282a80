"""Certified privacy curves (dpexact.curves): closed forms, the real mechanisms' laws, brute force, mutations."""

from __future__ import annotations

import itertools
import json
import math
import random

import mpmath
import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.accounting.hockey_stick import hockey_stick
from dpexact.cli.main import app
from dpexact.curves import families as F
from dpexact.curves.compose import binary_k_fold_delta, witness_epsilon_lower
from dpexact.curves.curve import privacy_curve
from dpexact.schemas import validate

EPS = ["0.1", "0.5", "1", "2", "4"]


def _mp_pmf(name, eps, scores):
    """The real mechanism's law (ball backend) as mpmath floats."""
    m = dpexact.mechanism(name, epsilon=eps)
    return [mpmath.mpf(float(v.mid())) for v in m.pmf([str(s) for s in scores], backend="ball").values]


def _renyi(P, Q, a):
    return mpmath.log(sum(p ** a * q ** (1 - a) for p, q in zip(P, Q))) / (a - 1)


def _kl(P, Q):
    return sum(p * mpmath.log(p / q) for p, q in zip(P, Q) if p > 0)


def _delta(P, Q, e):
    return sum(max(0, p - mpmath.e ** e * q) for p, q in zip(P, Q))


# -- Harrison–Manurangsi closed forms ---------------------------------------------------------------


@pytest.mark.parametrize("eps", EPS)
def test_laplace_rho_is_harrison_manurangsi_closed_form(eps):
    e = float(eps)
    p = privacy_curve("laplace", eps).zcdp(tol=1e-13)
    exact = e + math.expm1(-e)  # ε + e^{−ε} − 1
    assert p.lower - 1e-15 <= exact <= p.upper + 1e-15
    assert p.upper - p.lower <= 1e-12


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_k_rr_rho_is_the_kl_divergence_for_k_at_most_6(k):
    for eps in EPS:
        e = float(eps)
        p = privacy_curve("grr", eps, k=k).zcdp(tol=1e-13)
        kl = e * math.expm1(e) / (math.exp(e) + k - 1)  # KL of the two rows: ε(e^ε − 1)/(e^ε + k − 1)
        assert p.lower - 1e-14 <= kl <= p.upper + 1e-14 and p.upper - p.lower <= 1e-12, (k, eps)


@mpmath.workdps(40)  # D_α near α = 1 cancels: log(1 + O(α − 1))/(α − 1)
def test_k_rr_beyond_6_and_rappor_brackets_are_narrow_and_contain_a_dense_grid_value():
    for k, eps in [(7, "4"), (20, "1"), (50, "0.5"), (50, "4")]:
        p = privacy_curve("grr", eps, k=k).zcdp(tol=1e-9)
        assert p.upper - p.lower <= 1e-8
        e = mpmath.mpf(eps)
        Z = mpmath.e ** e + k - 1
        P = [mpmath.e ** e / Z, 1 / Z] + [1 / Z] * (k - 2)
        Q = [1 / Z, mpmath.e ** e / Z] + [1 / Z] * (k - 2)
        f = lambda a: _renyi(P, Q, a) / a  # noqa: E731
        al = [mpmath.mpf(1) + mpmath.mpf(j) / 4 for j in range(1, 60)]
        j = max(range(len(al)), key=lambda i: f(al[i]))
        lo, hi = max(al[j] - mpmath.mpf(1) / 4, mpmath.mpf(1) + mpmath.mpf(10) ** -12), al[j] + mpmath.mpf(1) / 4
        for _ in range(50):  # golden section around the best grid order (D_α/α is unimodal here)
            m1, m2 = hi - (hi - lo) * 0.618, lo + (hi - lo) * 0.618
            lo, hi = (m1, hi) if f(m1) < f(m2) else (lo, m2)
        grid = max(_kl(P, Q), f(al[j]), f((lo + hi) / 2))
        assert grid <= p.upper + 1e-15 and grid >= p.lower - 1e-12
    # RAPPOR: two bits differ, each kept with probability e^{ε/2}/(1 + e^{ε/2}); outputs 00, 01, 10, 11
    for eps in EPS:
        p = privacy_curve("rappor", eps).zcdp(tol=1e-9)
        assert p.upper - p.lower <= 1e-8
        h = mpmath.e ** (mpmath.mpf(eps) / 2)
        keep = h / (1 + h)
        b = {1: keep, 0: 1 - keep}
        P = [b[x] * b[1 - y] for x, y in itertools.product((0, 1), repeat=2)]
        Q = [b[1 - x] * b[y] for x, y in itertools.product((0, 1), repeat=2)]
        assert _kl(P, Q) <= p.upper + 1e-15
        assert max(_renyi(P, Q, mpmath.mpf(a)) / a for a in (1.01, 1.5, 2, 3)) <= p.upper + 1e-15


# -- the families against the real mechanisms' laws -------------------------------------------------


def test_em_witness_scores_reproduce_the_lower_end_with_the_real_mechanism():
    c = privacy_curve("em", "1", 5)
    pt = c.delta(["0.3"])[0]
    t = pt.witness["family_parameter_t"]
    # the family member at t, built from scores: output 0 probability q0 of EM(x, 0) at n = 2
    x = pt.witness["x_for_n2"]
    P = _mp_pmf("em", "1", [x + 1, -1])
    Q = _mp_pmf("em", "1", [x, 0])
    d = _delta(P, Q, mpmath.mpf("0.3"))
    assert abs(d - pt.lower) < 1e-9 and pt.lower <= pt.upper
    # the same member at n = 5: scores (x, 0, 0, 0, 0) -> (x + Δ, −Δ, ...) with x shifted for n − 1 zeros
    q0 = math.expm1(t) / math.expm1(1)
    x5 = 2 * math.log(4 * q0 / (1 - q0))
    P5 = _mp_pmf("em", "1", [x5 + 1, -1, -1, -1, -1])
    Q5 = _mp_pmf("em", "1", [x5, 0, 0, 0, 0])
    assert abs(_delta(P5, Q5, mpmath.mpf("0.3")) - pt.lower) < 1e-9


def _random_neighbours(rng, n):
    q = [rng.uniform(-6, 6) for _ in range(n)]
    return q, [v + rng.choice([-1, 1, rng.uniform(-1, 1)]) for v in q]


@pytest.mark.parametrize("name,n", [("em", 3), ("em", 4), ("pf", 2), ("rnm-exp", 2), ("rnm-gumbel", 4)])
def test_random_neighbours_of_the_real_mechanism_stay_below_the_upper_end(name, n):
    rng = random.Random(7)
    c = privacy_curve(name, "1", n)
    eps_p, al = ["0", "0.4"], ["2", "5"]
    dup = [p.upper for p in c.delta(eps_p)]
    rup = [p.upper for p in c.renyi(al, tol=1e-9)]
    kup = c.kl().upper
    for _ in range(12 if name == "rnm-gumbel" else 40):
        q, q2 = _random_neighbours(rng, n)
        P, Q = _mp_pmf(name, "1", q), _mp_pmf(name, "1", q2)
        for e, u in zip(eps_p, dup):
            assert _delta(P, Q, mpmath.mpf(e)) <= u + 1e-12
        for a, u in zip(al, rup):
            assert _renyi(P, Q, mpmath.mpf(a)) <= u + 1e-12
        assert _kl(P, Q) <= kup + 1e-12


def _pf_refutation(eps_list):
    for eps in eps_list:
        c = privacy_curve("pf", eps, 2)
        r = c.zcdp(tol=1e-9)
        e = float(eps)
        assert r.upper - r.lower <= 1e-8
        assert r.lower > e * e / 8  # "PF under zCDP costs ε²/8" is false
        # the witness with the real permute-and-flip law: KL of the witness pair > ε²/8
        w = r.witness
        g = w["g"] if w.get("g") is not None else 40.0
        P, Q = _mp_pmf("pf", eps, [g, 0]), _mp_pmf("pf", eps, [g + 1, -1])
        if w["direction"] == "Q||P":
            P, Q = Q, P
        assert _kl(P, Q) > e * e / 8
        assert abs(_kl(P, Q) - r.lower) < 1e-6  # the witness θ is a float: the law is that of θ's scores


def test_pf_n2_family_is_the_real_law_at_its_witness_and_refutes_eps_squared_over_8():
    _pf_refutation(["1"])


@pytest.mark.slow
def test_pf_n2_tight_rho_on_the_whole_epsilon_grid():
    _pf_refutation(EPS)


def test_pf_at_n_3_is_a_bracket_with_the_n2_curve_below_and_eps_rr_above():
    # ε = 3/4 has no certificate of statement S (curves/pf_s_certified.py; ε = 1 has one since issue 34's S run)
    c2, c3 = privacy_curve("pf", "3/4", 2), privacy_curve("pf", "3/4", 3)
    assert not c3.tight
    p2, p3 = c2.delta(["0.2"])[0], c3.delta(["0.2"])[0]
    assert p3.lower == p2.lower and p3.upper >= p2.upper
    rr = (math.exp(0.75) - math.exp(0.2)) / (1 + math.exp(0.75))
    assert abs(p3.upper - rr) < 1e-12


def test_em_rho_is_below_eps_squared_over_8_and_tight():
    for eps in ["2", "4"]:
        r = privacy_curve("em", eps, 10).zcdp(tol=1e-9)
        assert r.upper - r.lower <= 1e-8 and r.upper <= float(eps) ** 2 / 8


# -- composition: brute force over output tuples ----------------------------------------------------


@pytest.mark.parametrize("name,n,k", [("em", 2, 2), ("em", 3, 3), ("em", 4, 2), ("pf", 2, 3)])
def test_brute_force_composition_over_output_tuples(name, n, k):
    from flint import arb

    eps, e1 = "1", mpmath.mpf("0.7")
    c = privacy_curve(name, eps, n)
    pld = c.dominating_pld(0.05)
    rng = random.Random(n * 10 + k)
    pairs = [_random_neighbours(rng, n) for _ in range(k)]
    laws = [(_mp_pmf(name, eps, a), _mp_pmf(name, eps, b)) for a, b in pairs]
    brute = 0
    for ys in itertools.product(range(n), repeat=k):
        p = mpmath.fprod(laws[i][0][y] for i, y in enumerate(ys))
        q = mpmath.fprod(laws[i][1][y] for i, y in enumerate(ys))
        brute += max(0, p - mpmath.e ** e1 * q)
    # the k-fold composition of the dominating pair, by brute force over its support
    items = list(pld.pmf.items())
    dom = pld.infinity_mass * 0
    for combo in itertools.product(items, repeat=k):
        loss = sum(i for i, _ in combo) * pld.interval
        if loss > e1:
            dom += mpmath.fprod(p for _, p in combo) * (1 - mpmath.e ** (e1 - loss))
    dom += 1 - (1 - pld.infinity_mass) ** k
    assert brute <= dom + 1e-12
    # the binomial formula of the witness lower end against brute force over the member's outputs
    if name == "em":
        t = arb("0.37")
        (q1, l1), (q0, l0) = F.em_family(arb(eps), 1.0).groups(t)
        p1 = q1 * l1.exp()
        P = [float((q1 * l1.exp()).mid()), float((q0 * l0.exp()).mid())]
        Q = [float(q1.mid()), float(q0.mid())]
        bf = sum(max(0, mpmath.fprod(P[y] for y in ys) - mpmath.e ** e1 * mpmath.fprod(Q[y] for y in ys))
                 for ys in itertools.product(range(2), repeat=k))
        assert abs(bf - float(binary_k_fold_delta(p1, l1, l0, k, arb("0.7")).mid())) < 1e-12


def test_composition_bracket_contains_the_witness_and_beats_basic_composition():
    c = privacy_curve("em", "1", 10)
    up = c.compose_epsilon(10, 1e-6, alphas=["1.5", "2", "3", "5", "8"])
    lo = witness_epsilon_lower(c, 10, 1e-6)
    assert 0 < lo.lower <= up.upper < 10


# -- export ----------------------------------------------------------------------------------------


def test_dp_accounting_round_trip_and_composability():
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    c = privacy_curve("pf", "1", 2)
    d = c.dominating_pld(0.05)
    pld = c.to_dp_accounting(0.05)
    for e in [0.0, 0.13, 0.5, 0.77]:
        pt = c.delta([repr(e)])[0]
        got = float(pld.get_delta_for_epsilon(e))
        assert got >= pt.lower - 1e-15  # never below dpexact's lower end
        assert got <= pt.upper + d.rounding_bound(e) + 1e-12
        assert abs(got - d.delta(e)) < 1e-12
    g = pld_lib.from_gaussian_mechanism(3.0, value_discretization_interval=0.05)
    both = pld.compose(g)
    assert both.get_epsilon_for_delta(1e-6) > pld.get_epsilon_for_delta(1e-6)


def test_opendp_measurement_carries_the_certified_renyi_curve():
    import opendp.prelude as dp

    c = privacy_curve("em", "1", 4)
    m = c.to_opendp(alphas=["2", "4"])
    up = {p.at: p.upper for p in c.renyi(["2", "4"], tol=1e-9)}
    assert m.map(1)(2.0) == up[2.0] and m.map(1)(3.0) == up[4.0]
    comp = dp.c.make_composition([m, m])
    assert abs(comp.map(1)(2.0) - 2 * up[2.0]) < 1e-12


# -- mutation: a wrong family is caught by the real mechanism ---------------------------------------


def test_mutated_em_family_is_caught_by_the_real_mechanism(monkeypatch):
    original = F.em_family

    def shrunk(eps, eps_float):  # bounded range η = 0.9ε instead of ε
        return original(eps * 9 / 10, eps_float * 0.9)

    monkeypatch.setattr(F, "em_family", shrunk)
    c = privacy_curve("em", "1", 2)
    u = c.delta(["0"])[0].upper
    worst = 0
    for x in [i / 10 for i in range(-40, 41)]:
        P, Q = _mp_pmf("em", "1", [x + 1, -1]), _mp_pmf("em", "1", [x, 0])
        worst = max(worst, _delta(P, Q, 0))
    assert worst > u + 1e-6


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_json_validates_and_bad_input_is_one_line(tmp_path):
    r = CliRunner().invoke(app, ["curve", "-m", "em", "-e", "1", "--n", "3", "--delta-of-epsilon", "0,1/2,1", "--json",
                                 "--plot", str(tmp_path / "em.png")])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    validate("curve", doc)
    assert [x["epsilon"] for x in doc["delta"]] == [0.0, 0.5, 1.0] and doc["delta"][2]["upper_exact"] == "0"
    assert (tmp_path / "em.png").stat().st_size > 1000
    r = CliRunner().invoke(app, ["curve", "-m", "laplace", "-e", "1", "--renyi", "2", "--json"])
    doc = json.loads(r.stdout)
    validate("curve", doc)
    e = 1.0
    mir = math.log(2 / 3 * math.exp(e) + 1 / 3 * math.exp(-2 * e))  # Mironov's D_2 of Laplace
    assert doc["renyi"][0]["lower"] - 1e-12 <= mir <= doc["renyi"][0]["upper"] + 1e-12
    for args, word in [(["-m", "svt1", "-e", "1", "--zcdp"], "mechanism"), (["-m", "grr", "-e", "1", "--zcdp"], "k"),
                       (["-m", "em", "-e", "1", "--n", "3", "--renyi", "1"], "alpha"),
                       (["-m", "em", "-e", "1", "--n", "3", "--zcdp", "--renyi", "2"], "--zcdp"),
                       (["-m", "laplace", "-e", "1", "--n", "3", "--zcdp"], "--n")]:
        r = CliRunner().invoke(app, ["curve", *args])
        assert r.exit_code == 2 and word in r.output and "Traceback" not in r.output, (args, r.output)


@pytest.mark.slow
def test_acceptance_grid_grr_k_up_to_50_and_rappor_brackets_at_most_1e_8():
    for eps in EPS:
        for k in range(2, 51):
            p = privacy_curve("grr", eps, k=k).zcdp(tol=1e-9)
            assert p.upper - p.lower <= 1e-8, (k, eps)
        p = privacy_curve("rappor", eps).zcdp(tol=1e-9)
        assert p.upper - p.lower <= 1e-8


def test_mutated_box_bound_stops_proving_the_real_em_maximum(monkeypatch):
    from dpexact.curves import supremum as S

    good = privacy_curve("em", "1", 2).delta(["0.3"])[0]
    x = good.witness["x_for_n2"]
    real = _delta(_mp_pmf("em", "1", [x + 1, -1]), _mp_pmf("em", "1", [x, 0]), mpmath.mpf("0.3"))
    assert real <= good.upper + 1e-12
    # drop the derivative term of the mean-value form: a box is bounded by its midpoint's value only
    monkeypatch.setattr(S, "box_upper", lambda gx, gc, X, mid: S.up(gc))
    bad = privacy_curve("em", "1", 2).delta(["0.3"])[0]
    assert real > bad.upper + 1e-9
