"""(ε, δ)-DP over a scope: the verifier's worst δ(ε) against a brute-force exact maximum of the
hockey-stick divergence over the same pairs, refutations re-checked, and agreement with the pure-DP
verifiers at δ = 0."""

import json
from fractions import Fraction

import pytest
import sympy
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.verification.search.approx_dp import verify_approx
from dpexact.verification.search.patterns import pattern_pairs
from dpexact.verification.search.selection import verify


def _exact_profile(m, pairs, eps):
    """max over ordered pairs of Σ_y max(0, P(y) − e^ε Q(y)), from exact pmfs, written out here."""
    E = sympy.exp(sympy.nsimplify(eps))
    best = sympy.Integer(0)
    for a, b in pairs:
        P = [sympy.sympify(str(v)) for v in m.pmf(list(a), backend="exact").values]
        Q = [sympy.sympify(str(v)) for v in m.pmf(list(b), backend="exact").values]
        for X, Y in ((P, Q), (Q, P)):
            h = sum((x - E * y for x, y in zip(X, Y) if sympy.N(x - E * y, 50) > 0), sympy.Integer(0))
            if sympy.N(h - best, 50) > 0:
                best = h
    return best


@pytest.fixture(scope="module")
def svt4_case():
    m = dpexact.mechanism("svt4", epsilon=Fraction(1, 10), threshold=1, cutoff=1)
    pairs, _, _ = pattern_pairs(m, 3, "all-differ")
    return m, pairs, _exact_profile(m, pairs, Fraction(1, 10))


def test_worst_delta_is_the_exact_maximum_over_the_scope(svt4_case):
    m, pairs, true_max = svt4_case
    t = float(sympy.N(true_max, 30))
    assert t > 0  # svt4 is not 0.1-DP: a positive δ is needed at ε = 0.1
    v = verify_approx(m, Fraction(1, 10), n=3)
    assert v.verdict == "private-within-scope" and v.certified and v.scope.pairs == len(pairs)
    assert t <= v.worst_delta <= t + 1e-15
    below = Fraction(t) * Fraction(999, 1000)  # just under the profile: refuted on the pair that attains it
    w = verify_approx(m, below, n=3)
    assert w.verdict == "violated" and w.certified and w.recheck.proved
    assert float(below) < w.worst_delta <= t + 1e-15
    above = Fraction(t) * Fraction(1001, 1000)
    assert verify_approx(m, above, n=3).verdict == "private-within-scope"


@pytest.mark.parametrize("name, kw", [("pf", {}), ("em", {}), ("rnmh", {"sensitivities": [1, 4, 1]})])
def test_delta_zero_agrees_with_the_pure_dp_verifier_on_selection(name, kw):
    m = dpexact.mechanism(name, epsilon=1, **kw)
    a = verify_approx(m, 0)
    p = verify(m, searches=("grid", "structured"))
    assert a.verdict == p.verdict and a.certified == p.certified


@pytest.mark.parametrize("name", ["svt1", "svt4", "svt6"])
def test_delta_zero_agrees_with_the_pure_dp_verifier_on_patterns(name):
    m = dpexact.mechanism(name, epsilon=Fraction(1, 10), threshold=1, cutoff=1)
    a = verify_approx(m, 0, n=4)
    p = dpexact.verify(m, n=4)
    # same direction: the pure verifier may also prove the level for every n ("private"), the
    # (ε, 0) scope search only holds on its pairs ("private-within-scope")
    holds = {"private", "private-within-scope"}
    assert a.verdict == p.verdict or (a.verdict in holds and p.verdict in holds), (a.verdict, p.verdict)


def test_cli_delta_reports_the_profile_and_refuses_bad_delta():
    runner = CliRunner()
    r = runner.invoke(app, ["verify", "-m", "svt4", "-e", "1/10", "-p", "threshold=1", "-p", "cutoff=1", "--n", "3",
                            "--delta", "1/10", "--json"])
    assert r.exit_code == 3, r.output  # private-within-scope: no proof
    d = json.loads(r.stdout)
    assert d["delta"] == "1/10" and d["verdict"] == "private-within-scope" and 0 < d["worst_delta"] < 0.1
    for bad in ("1", "-1/2", "nan", "x"):
        r = runner.invoke(app, ["verify", "-m", "pf", "-e", "1", "--delta", bad])
        assert r.exit_code == 2 and "delta" in r.output and "Traceback" not in r.output
    # Laplace at n = 1 is ε-DP (closed form): a pure-ε proof for every input gives (ε, δ) for every δ
    r = runner.invoke(app, ["verify", "-m", "laplace", "-e", "1", "--n", "1", "--delta", "1/100", "--json"])
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["verdict"] == "private" and d["worst_delta"] == 0 and d["delta"] == "1/100"
    assert "Dwork" in d["reason"] and d["epsilon_bracket"]["upper"] is not None
    # at n = 3 its level is 3ε: no pure proof of ε, and the (ε, δ) search refutes it
    r = runner.invoke(app, ["verify", "-m", "laplace", "-e", "1", "--n", "3", "--delta", "1/1000000", "--json"])
    assert r.exit_code == 1 and json.loads(r.stdout)["verdict"] == "violated"
    r = runner.invoke(app, ["verify", "-m", "svt34-parallel", "-e", "1", "--delta", "0"])
    assert r.exit_code == 2 and "offers neither" in r.output


def test_finite_input_domain_every_pair_and_the_exact_profile():
    """Truncated geometric on counts 0..5: every adjacent pair; the worst δ(ε) against the
    rational pmfs (Balcer & Vadhan's integer cdf) summed at 50 digits."""
    import mpmath

    m = dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10))
    with mpmath.workdps(50):
        E = mpmath.exp(mpmath.mpf(1) / 10)
        ref = max(sum(max(mpmath.mpf(0), mpmath.mpf(x.numerator) / x.denominator - E * mpmath.mpf(y.numerator) / y.denominator)
                      for x, y in zip(m.exact_pmf([a]), m.exact_pmf([b])))
                  for c in range(5) for a, b in ((c, c + 1), (c + 1, c)))
    v = verify_approx(m, Fraction(1, 100))
    assert v.scope.pairs == 5 and v.verdict == "private-within-scope"
    assert abs(v.worst_delta - float(ref)) < 1e-15
    assert verify_approx(m, Fraction(1, 1000)).verdict == "violated"


def test_interval_output_at_delta_zero_agrees_with_the_interval_verifier():
    """noisy max releasing its value (StatDP v1b) at the peers' setting: refuted for pure DP by the
    interval search, and for (ε, 0) by the box-and-tail search, both certified."""
    m = dpexact.mechanism("noisy-max-value", epsilon=Fraction(1, 10))
    pure = dpexact.verify(m, n=5)
    approx = verify_approx(m, 0, n=5)
    assert pure.verdict == approx.verdict == "violated" and pure.certified and approx.certified
    assert approx.recheck.proved and approx.worst_delta > 0


def test_integer_score_mechanism_keeps_to_integer_vectors():
    """The example geometric noisy max is defined on integer scores: its (ε, 0) verdict and scope
    are the pure-DP verifier's."""
    from conftest import REPO

    m = dpexact.mechanism(f"{REPO / 'examples' / 'geometric_noisy_max.py'}:GeometricNoisyMax", epsilon=1)
    a = verify_approx(m, 0)
    p = verify(m, searches=("grid", "structured"))
    assert a.verdict == p.verdict == "private-within-scope" and a.scope.pairs == p.scope.pairs
    assert "integer score vectors" in a.scope.neighbourhood


@pytest.mark.parametrize("name", ["pf", "em", "rnm-exp"])
def test_a_pure_theorem_proves_every_delta(name):
    """ε-DP proved by a theorem for every input is (ε, δ)-DP for every δ: private, δ(ε) = 0."""
    v = dpexact.verify(name, epsilon=1, n=3, delta="1/1000000")
    assert v.verdict == "private" and v.worst_delta == 0 and v.bracket.upper is not None
    assert v.scope.pairs == 0  # no search: the proof covers every input


def test_an_em_built_with_twice_epsilon_is_not_proved_for_delta():
    """Mutation: EM run at 2ε but claimed ε-DP has no pure proof of ε; the (ε, δ) search refutes it."""
    from dpexact.suites.soundness import _misclaimed

    v = dpexact.verify(_misclaimed("em", 2, 1)(), n=3, delta="1/1000000")
    assert v.verdict == "violated" and v.worst_delta > 1e-6
