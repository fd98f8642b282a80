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


def test_verify_by_name_matches_the_router():
    from dpexact.verify.router import verify_any

    v = dpexact.verify("pf", epsilon=1, n=3)
    ref = verify_any(dpexact.mechanism("pf", epsilon="1"), n=3, name="pf")
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


def test_the_callable_package_survives_importing_its_modules():
    code = ("import dpexact.verify.router, dpexact; import types; "
            "assert isinstance(dpexact.verify, types.ModuleType); "
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
    assert set(out["ratios"]) == {"pf", "em"}
    lo, hi = out["optimal_total_error_bounds"]
    assert lo <= out["optimal_total_error"] <= hi
    assert all(r >= 1 - 1e-9 for r in out["ratios"].values())
