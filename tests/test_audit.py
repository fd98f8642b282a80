"""dpexact.audit: the power statement, the exact laws, the target grammar, the bug-replay suite,
the real libraries' adapters (opendp, diffprivlib, python-dp; no mocks) and the JSON schemas."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.stats import chi2, ncx2

from dpexact.audit import gof, laws
from dpexact.audit.adapters import parse_target
from dpexact.audit.maps import (
    MapPoint,
    evaluate_point,
    recheck,
    renyi_discrete_gaussian,
)
from dpexact.schemas import validate
from dpexact.suites.audit import BUGS, analytic_gaussian_sigma, run_bug


def test_discrete_laplace_law_matches_closed_form_and_sums_to_one():
    law = laws.discrete_laplace(Fraction(5, 2))
    with mpmath.workdps(60):
        r = mpmath.exp(-mpmath.mpf(2) / 5)
        assert abs(law.pmf(0) - (1 - r) / (1 + r)) < mpmath.mpf(10) ** -55
        assert abs(law.pmf(3) - (1 - r) / (1 + r) * r**3) < mpmath.mpf(10) ** -55
        assert abs(law.mass() - 1) < mpmath.mpf(10) ** -55


def test_convolution_variance_adds():
    a = laws.discrete_laplace(1.5)
    s = laws.convolve(a, a)
    with mpmath.workdps(60):
        var = lambda l: mpmath.fsum((l.lo + i) ** 2 * p for i, p in enumerate(l.probs))  # noqa: E731
        r = mpmath.exp(-1 / mpmath.mpf(1.5))
        assert abs(var(a) - 2 * r / (1 - r) ** 2) < mpmath.mpf(10) ** -40  # closed form of the discrete Laplace
        assert abs(var(s) - 2 * var(a)) < mpmath.mpf(10) ** -40


def test_rounded_laplace_mass_at_zero_is_0393_not_0462():
    assert float(laws.discrete_laplace(1).pmf(0)) == pytest.approx(math.tanh(0.5), abs=1e-15)
    assert round(math.tanh(0.5), 3) == 0.462 and round(1 - math.exp(-0.5), 3) == 0.393


def test_power_is_a_lower_bound_at_the_least_favourable_alternative():
    # cells of equal mass: the alternative d ∝ p on two halves attains λ = 4 N t² exactly
    k, n, t, alpha = 10, 2000, 0.05, 0.01
    p = np.full(k, 0.1)
    d = np.where(np.arange(k) < 5, t * p / 0.5, -t * p / 0.5)
    lam = n * np.sum(d**2 / p)
    assert lam == pytest.approx(4 * n * t * t)
    cells = gof.Cells(tuple(str(i) for i in range(k)), tuple(p), tuple(range(k)), tuple(range(1, k + 1)))
    pl = gof.plan(cells, n, alpha, t)
    assert pl.power == pytest.approx(ncx2.sf(chi2.isf(alpha, k - 1), k - 1, lam))
    # any other alternative at the same TV has λ >= 4 N t² (moving t between two cells: 2 N t²/0.1·... larger)
    d2 = np.zeros(k); d2[0], d2[1] = t, -t
    assert n * np.sum(d2**2 / p) >= lam
    assert gof.draws_for_power(k, alpha, t, pl.power) <= n


def test_merge_keeps_exact_mass_and_expected_counts():
    law = laws.discrete_gaussian(3.0)
    cells = laws.cells_for(law, 1000)
    assert sum(cells.probs) == pytest.approx(1.0, abs=1e-14)
    assert min(cells.probs) * 1000 >= gof.MIN_EXPECTED
    assert cells.lows[0] == -math.inf and cells.highs[-1] == math.inf


def test_holm_step_down():
    assert gof.holm([0.001, 0.02, 0.04], 0.05) == [True, True, True]
    assert gof.holm([0.001, 0.03, 0.04], 0.05) == [True, False, False]


@pytest.mark.parametrize("text", ["os:system", "opendp:__import__", "opendp:make_laplace;rm", "opendp", "pydp:LaplaceMechanism()"])
def test_target_grammar_refuses_unregistered_names(text):
    with pytest.raises(ValueError):
        parse_target(text, "sampler")


def test_every_bug_detected_and_every_correct_version_passes():
    for bug in BUGS:
        good, bad = run_bug(bug, False, seed=3), run_bug(bug, True, seed=3)
        assert not good["detected"], bug.name
        assert bad["detected"], bug.name
        if bug.kind == "sampler" and bad["bug_tv"] is not None:
            assert bad["bug_tv"] >= bad["tv"], bug.name  # the bug lies inside the stated power's reach


def test_bug_tv_matches_the_issue_numbers():
    # rounded Laplace at scale 1 against the discrete Laplace: TV >= |0.462 - 0.393| / 2
    bug = next(b for b in BUGS if b.name == "geometric-as-rounded-laplace")
    row = run_bug(bug, True, seed=0)
    assert row["bug_tv"] >= (math.tanh(0.5) - (1 - math.exp(-0.5))) / 2


def test_map_mutation_sign_error_is_found_and_correct_sigma_is_conservative():
    for eps, delta in ((1.0, 1e-6), (0.5, 1e-3)):
        good = MapPoint({}, "delta", delta, "gaussian", {"sigma": analytic_gaussian_sigma(eps, delta, 1.0), "sensitivity": 1}, epsilon=eps)
        bad = MapPoint({}, "delta", delta, "gaussian", {"sigma": analytic_gaussian_sigma(eps, delta, 1.0, True), "sensitivity": 1}, epsilon=eps)
        assert evaluate_point(good, "t").status == "conservative"
        r = evaluate_point(bad, "t")
        assert r.status == "anti-conservative" and recheck(r.witness)


def test_float_rounding_of_epsilon_is_compared_exactly():
    # 0.7 / 0.1 and 1 / 0.3 are inexact in floats; the claim 1/0.3 (rounded to nearest) sits below 1/0.3's exact rational or not
    e = 1.0 / 0.3
    pt = MapPoint({}, "epsilon-exact", e, "laplace", {"scale": 0.3, "sensitivity": 1.0})
    exact = Fraction(1) / Fraction(0.3)
    assert (evaluate_point(pt, "t").status == "anti-conservative") == (Fraction(e) < exact)
    up = math.nextafter(e, math.inf) if Fraction(e) < exact else e
    assert evaluate_point(MapPoint({}, "epsilon-exact", up, "laplace", {"scale": 0.3, "sensitivity": 1.0}), "t").status == "conservative"


def test_renyi_of_discrete_gaussian_below_continuous_and_close():
    # cks20: D_α(N_Z(0,σ²)||N_Z(1,σ²)) <= α/(2σ²), equal up to e^{-2π²σ²}-small terms at σ = 2
    d = renyi_discrete_gaussian(2.0, 1, 3)
    assert d <= mpmath.mpf(3) / 8 and abs(d - mpmath.mpf(3) / 8) < mpmath.mpf(10) ** -30


def test_real_libraries_small_runs():
    """The real libraries (no mocks): a small sampler audit per library and one map each."""
    import opendp  # noqa: F401  (a real library, in the test extra: missing it fails)

    from dpexact.audit.maps import audit_map
    from dpexact.audit.sampler import audit_sampler

    for t in ("opendp:make_laplace:int", "diffprivlib:Geometric", "pydp:GeometricDistribution"):
        r = audit_sampler(t, tv=0.1, alpha=0.001, seed=5)
        assert r.verdict == "conforms", (t, r.p_value)
        doc = {"schema_version": "1.0", "command": "audit", "mode": "sampler", **r.as_dict()}
        validate("audit", json.loads(json.dumps(doc)))
    m = audit_map("opendp:make_laplace:int")
    assert m.verdict == "conservative" and len(m.points) == 30
    validate("audit", json.loads(json.dumps({"schema_version": "1.0", "command": "audit", "mode": "map", **m.as_dict()})))


def test_cli_audit_exit_codes_and_schema(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "dpexact", *args], capture_output=True, text=True)

    r = run("audit", "sampler", "opendp:not_a_call")
    assert r.returncode == 2 and r.stderr.startswith("error:") and "Traceback" not in r.stderr
    r = run("audit", "sampler", "pydp:GeometricDistribution", "--tv", "0.1", "--draws", "50000", "--max-seconds", "0.0001")
    assert r.returncode == 2 and "time budget" in r.stderr
    r = run("audit", "sampler", "pydp:GeometricDistribution", "diffprivlib:Geometric", "--tv", "0.1", "--json")
    doc = json.loads(r.stdout)
    validate("audit", doc)
    assert doc["mode"] == "samplers" and all(x["plan"]["alpha"] == pytest.approx(0.005) for x in doc["results"])
    assert r.returncode == (1 if any(x["verdict"] == "does not conform" for x in doc["results"]) else 0)
    r = run("audit", "map", "diffprivlib:GaussianAnalytic", "--json")
    doc = json.loads(r.stdout)
    validate("audit", doc)
    assert r.returncode == (1 if doc["verdict"] == "anti-conservative" else 0)
    if doc["verdict"] == "anti-conservative":  # its witnesses replay from the saved document alone
        f = tmp_path / "map.json"
        f.write_text(r.stdout)
        rr = run("audit", "replay", str(f), "--json")
        assert rr.returncode == 0
        validate("audit", json.loads(rr.stdout))
        rr = run("replay", str(f), "--json")  # the general replay verb reads map witnesses too
        assert rr.returncode == 0 and json.loads(rr.stdout)["holding"] == json.loads(rr.stdout)["witnesses"] > 0
        rr = run("replay", str(f), "-m", "em")
        assert rr.returncode == 2 and rr.stderr.startswith("error:") and "--mechanism" in rr.stderr
        w = next(p["witness"] for p in doc["points"] if "witness" in p)
        w["claimed"] = "1"  # a claim above any δ: the witness no longer holds
        f.write_text(json.dumps(w))
        assert run("audit", "replay", str(f)).returncode == 1
        assert run("replay", str(f)).returncode == 1


def test_cli_bench_audit_contract():
    r = subprocess.run([sys.executable, "-m", "dpexact", "bench-audit", "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    validate("bench-audit", doc)
    assert r.returncode == 0 and doc["ok"] and len({row["name"] for row in doc["rows"]}) >= 8


def test_monte_carlo_critical_value_keeps_the_exact_false_alarm_rate():
    """Two cells: the false-alarm probability of the planned test computed exactly from the binomial law."""
    from scipy.stats import binom

    from dpexact.audit.sampler import plan_sampler

    cells, pl = plan_sampler(laws.bernoulli(Fraction(2, 3)), 0.01, 0.05, 0.95, None, seed=0)
    n, p = pl.draws, 2 / 3
    o = np.arange(n + 1)
    x2 = (o - n * p) ** 2 / (n * p * (1 - p))
    exact = binom.pmf(o[x2 > pl.critical], n, p).sum()
    # the Monte Carlo quantile's own error: 3 standard deviations of a proportion near α over 20,000 draws
    assert exact <= 0.01 + 3 * math.sqrt(0.01 * 0.99 / 20_000)
    assert pl.as_dict()["critical_method"] == "monte-carlo"


def test_missing_library_is_one_line_naming_the_extra():
    code = ("import sys; sys.modules['opendp'] = None; sys.modules['opendp.prelude'] = None\n"
            "from dpexact.cli.main import app; app(['audit', 'sampler', 'opendp:make_laplace:int'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error:") and "dpexact[audit]" in r.stderr


def test_finite_rho_witness_pf_above_em_claim_and_records_are_checked():
    """Permute-and-flip's exact Rényi divergences exceed the exponential mechanism's ρ = ε²/8 (the OpenDP
    zCDP noisy-max bug seen through its map); EM itself stays below; a record naming other code is refused."""
    from dpexact.audit.maps import level

    lp = {"mechanism_params": {"epsilon": "1"}, "scores": [0, 1], "neighbour_scores": [1, 0]}
    pf = evaluate_point(MapPoint({}, "rho", 1 / 8, "finite", {"mechanism": "pf", **lp}), "t")
    em = evaluate_point(MapPoint({}, "rho", 1 / 8, "finite", {"mechanism": "em", **lp}), "t")
    assert pf.status == "anti-conservative" and recheck(pf.witness)
    assert em.status == "conservative"
    # KL(EM(q) || EM(q')) for two candidates is the Bernoulli KL, computed here independently
    a, b = 1 / (1 + math.exp(0.5)), 1 / (1 + math.exp(-0.5))
    kl = a * math.log(a / b) + b * math.log(b / a)
    lo, _, _, _, _ = level(MapPoint({}, "rho", 1 / 8, "finite", {"mechanism": "em", **lp}))
    assert float(lo) >= kl / 1.01 * 0.99  # the α grid starts at 1.01, near KL
    bad = dict(pf.witness, law_params=dict(pf.witness["law_params"], mechanism="os:system"))
    with pytest.raises(ValueError):
        recheck(bad)
    far = dict(pf.witness, law_params=dict(pf.witness["law_params"], neighbour_scores=[3, 0]))
    with pytest.raises(ValueError):
        recheck(far)


def test_mixture_law_is_the_mixed_bernoulli():
    m = laws.mixture([Fraction(3, 10), Fraction(7, 10)], [laws.bernoulli(Fraction(3, 4)), laws.bernoulli(Fraction(1, 4))])
    with mpmath.workdps(60):
        assert abs(m.pmf(1) - mpmath.mpf(2) / 5) < mpmath.mpf(10) ** -55  # 0.3·3/4 + 0.7·1/4
        assert abs(m.mass() - 1) < mpmath.mpf(10) ** -55
