"""The public API at the top of the package (dpexact.verify / optimal / delta / epsilon / pmf): a registry
name, PATH.py:OBJECT or an object, the CLI's option names as keywords; results checked against the library
route they wrap, closed forms, or exact arithmetic."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import dpexact

REPO = Path(__file__).resolve().parents[1]
OWN = f"{REPO / 'examples' / 'geometric_noisy_max.py'}:GeometricNoisyMax"


def test_verify_by_name_matches_verify_of_the_built_object():
    """A registry name and the object it builds take the same plan: same verdict, same scope."""
    v = dpexact.verify("pf", epsilon=1, n=3)
    ref = dpexact.verify(dpexact.mechanism("pf", epsilon="1"), n=3, name="pf")
    assert v.verdict == ref.verdict == "private"
    assert v.as_dict()["scope"] == ref.as_dict()["scope"]


def test_verify_an_own_mechanism_file_and_object_agree():
    by_spec = dpexact.verify(OWN, epsilon=1, n=3)
    by_object = dpexact.verify(dpexact.mechanism(OWN, epsilon=1), n=3)
    assert by_spec.verdict == by_object.verdict
    assert by_spec.worst_log_ratio == by_object.worst_log_ratio
    assert by_spec.verdict in ("private", "private-within-scope")


def test_verify_refutes_a_misclaimed_epsilon():
    """EM calibrated to Δ = 1 loses up to 2ε on neighbours 2 apart (box:2): its claimed ε is refuted."""
    v = dpexact.verify("em", epsilon=1, n=3, neighbourhood="box:2")
    assert v.verdict == "violated" and v.counterexample is not None


def test_verify_is_a_function_whatever_is_imported_first():
    """dpexact.verify is the verb (a function help() and type checkers see), the package is dpexact.verification:
    importing the package's modules first does not shadow the function."""
    code = ("import dpexact.verification.router, dpexact, inspect; "
            "assert inspect.isfunction(dpexact.verify) and dpexact.verify is dpexact.verification.router.verify; "
            "from dpexact import verify; assert verify is dpexact.verify; "
            "print(dpexact.verify('pf', epsilon=1, n=3).verdict)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "private"


@pytest.mark.parametrize("call, err, text", [
    (lambda: dpexact.verify(dpexact.mechanism("pf", epsilon=1), epsilon=1), ValueError, "epsilon"),
    (lambda: dpexact.verify("pf", epsilon=1, param={"epsilon": 2}), ValueError, "epsilon"),
    (lambda: dpexact.verify("pf", epsilon=1, param=["epsilon=2"]), TypeError, "param"),
    (lambda: dpexact.verify("pf", epsilon=1, relation="sideways"), ValueError, "relation"),
    (lambda: dpexact.verify(object()), TypeError, "mechanism"),
    (lambda: dpexact.pmf("pf", "1,0", epsilon=1), TypeError, "scores"),
    (lambda: dpexact.delta(epsilon=1), ValueError, "exactly one mechanism"),
])
def test_bad_input_is_a_one_line_error_naming_the_argument(call, err, text):
    with pytest.raises(err, match=text) as info:
        call()
    assert "\n" not in str(info.value)


def test_pmf_exact_sums_to_one_and_matches_the_mechanism():
    p = dpexact.pmf("pf", [2, 1, 0], epsilon="2*log(2)", backend="exact")
    ref = dpexact.mechanism("pf", epsilon="2*log(2)").pmf([2, 1, 0], backend="exact")
    assert [str(v) for v in p.values] == [str(v) for v in ref.values]
    total = sum(Fraction(int(v.p), int(v.q)) if type(v).__name__ == "fmpq" else Fraction(str(v)) for v in p.values)
    assert total == 1


def test_delta_and_epsilon_of_laplace_against_the_closed_form():
    """Laplace(b) on sensitivity Δ: δ(ε) = 1 − exp((ε − Δ/b)/2), ε(δ) = Δ/b + 2 log(1 − δ) (adp §2)."""
    d = dpexact.delta(laplace=1, epsilon="1/2")
    assert d.lower <= 1 - math.exp(-0.25) <= d.upper and d.upper - d.lower < 1e-12
    e = dpexact.epsilon(laplace=1, delta="1/10")
    assert e.lower <= 1 + 2 * math.log(0.9) <= e.upper and e.upper - e.lower < 1e-9


def test_optimal_ratios_are_at_least_one():
    out = dpexact.optimal(3, 2, "1/2", mechanisms="pf,em")
    assert set(out.ratios) == {"pf", "em"}
    lo, hi = out.optimal_total_error_bounds
    assert lo <= out.optimal_total_error <= hi
    assert all(r >= 1 - 1e-9 for r in out.ratios.values())
    # typed like the other results; to_dict() is the CLI's --json record, key for key
    from dpexact.lp.optimal_result import OptimalResult
    from dpexact.lp.summary import optimal_summary

    assert isinstance(out, OptimalResult)
    cli = optimal_summary(3, 2, "1/2", mechanisms=["pf", "em"])
    drop = lambda d: {k: v for k, v in d.items() if not k.endswith("seconds")}  # noqa: E731
    assert drop(out.to_dict()) == drop(cli)


def test_verify_takes_a_path_object_as_the_spec_string():
    by_path = dpexact.verify(Path(OWN), epsilon=1, n=3)
    by_spec = dpexact.verify(OWN, epsilon=1, n=3)
    assert by_path.verdict == by_spec.verdict
    # the searched scope is the same; the bracket's notes count the time-budgeted maximiser's evaluations
    drop = lambda d: {k: v for k, v in d["scope"].items() if k != "notes"}  # noqa: E731
    assert drop(by_path.as_dict()) == drop(by_spec.as_dict())


def test_pmf_of_an_own_file_by_spec_path_and_object_is_one_law():
    """The three ways to name a mechanism give the same exact law, and its ball enclosure of Σ contains 1."""
    from flint import arb

    obj = dpexact.mechanism(OWN, epsilon=1)
    laws = [dpexact.pmf(m, [2, 1, 0], **kw, backend="exact")
            for m, kw in ((OWN, {"epsilon": 1}), (Path(OWN), {"epsilon": 1}), (obj, {}))]
    assert [str(v) for v in laws[0].values] == [str(v) for v in laws[1].values] == [str(v) for v in laws[2].values]
    ball = dpexact.pmf(obj, [2, 1, 0], backend="ball:128")
    assert (sum(ball.values, arb(0)) - 1).contains(0)


def test_optimal_takes_objects_and_files_with_the_ratio_of_the_name():
    em = dpexact.mechanism("em", epsilon="1/2")
    by_name = dpexact.optimal(3, 2, "1/2", mechanisms=["em", OWN])
    by_object = dpexact.optimal(3, 2, "1/2", mechanisms=[em, Path(OWN)])
    assert by_object.ratios["em"] == by_name.ratios["em"]
    assert by_object.ratios[OWN] == by_name.ratios[OWN]
    assert by_object.ratios["em"] > 1  # EM is not optimal on Q(3, 2) (pf Theorem 2: PF is)


def test_optimal_refuses_an_object_at_another_epsilon_before_solving():
    with pytest.raises(ValueError, match="mechanisms: em has ε = 1") as info:
        dpexact.optimal(3, 2, "1/2", mechanisms=[dpexact.mechanism("em", epsilon=1)])
    assert "\n" not in str(info.value)


def test_delta_takes_the_clis_pmf_names_against_the_exact_value():
    """P = (1/2, 1/2), Q = (1/4, 3/4): δ(ε) = max over both orders of Σ_y max(0, P(y) − e^ε Q(y))
    = 1/2 − e^{1/2}/4 at ε = 1/2 (the other order gives 0)."""
    d = dpexact.delta(epsilon="1/2", p_pmf=["1/2", "1/2"], q_pmf=["1/4", "3/4"])
    exact = 0.5 - math.exp(0.5) / 4
    assert d.lower <= exact <= d.upper and d.upper - d.lower < 1e-12
    assert dpexact.delta(epsilon="1/2", p=["1/2", "1/2"], q=["1/4", "3/4"]).exact == d.exact
    e = dpexact.epsilon(delta=d.upper, p_pmf=["1/2", "1/2"], q_pmf=["1/4", "3/4"])
    assert e.lower <= 0.5 + 1e-9 and e.upper >= 0.5 - 1e-9
    with pytest.raises(ValueError, match="p_pmf: given twice"):
        dpexact.delta(epsilon=1, p_pmf=["1"], p=["1"], q_pmf=["1"])


def test_the_claim_verdict_has_its_own_name():
    """The catalogue's verdict (holds / refuted / inconclusive of a paper's claim) is ClaimVerdict, a class apart
    from the privacy Verdict, and refuses the privacy vocabulary."""
    from dpexact.verification.verdict import Verdict
    from proofs_checks.catalogue import ClaimVerdict

    assert ClaimVerdict is not Verdict and ClaimVerdict.__name__ == "ClaimVerdict" and Verdict.__name__ == "Verdict"
    assert ClaimVerdict("holds", True, "scope", {}).verdict == "holds"
    with pytest.raises(ValueError, match="verdict must be one of"):
        ClaimVerdict("private", True, "scope", {})
