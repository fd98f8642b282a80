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
    from dpexact.verification.router import verify_any

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
