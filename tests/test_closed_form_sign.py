"""The exact sign (numbers/closed_form_sign.py), against mpmath at 60 digits; the numbers modules stay small."""

from __future__ import annotations

from pathlib import Path

import mpmath
import pytest
import sympy
from flint import ctx, fmpq

from dpexact.numbers.backends import ExactBackend
from dpexact.numbers.closed_form_sign import closed_form_sign

R = sympy.Rational
CASES = [
    sympy.exp(R(1, 3)) - R(7, 5),                  # exp sum: 1.3956... - 1.4
    sympy.exp(R(1, 3)) - R(139, 100),              # 1.3956... - 1.39
    sympy.log(2) - R(693147, 1000000),             # closed form decided by arb
    sympy.sqrt(2) * sympy.pi - R(444288, 100000),  # 4.442882... - 4.44288
    R(1, 3) - R(2, 7),
]


def _mp_sign(e) -> int:
    with mpmath.workdps(60):
        v = mpmath.mpf(sympy.N(e, 60))
    return int(v > 0) - int(v < 0)


@pytest.mark.parametrize("e", CASES, ids=str)
def test_sign_of_closed_forms_matches_mpmath(e):
    assert closed_form_sign(e) == _mp_sign(e)
    assert ExactBackend().try_sign(e) == _mp_sign(e)


def test_ties_and_rationals():
    assert closed_form_sign(fmpq(-2, 3)) == -1 and closed_form_sign(fmpq(0)) == 0
    assert closed_form_sign(sympy.exp(R(1, 2)) ** 2 - sympy.E) == 0          # exp(1/2)^2 = e, by the exp-sum rule
    assert closed_form_sign(sympy.sqrt(8) - 2 * sympy.sqrt(2)) == 0           # sympy simplifies to 0
    tie = sympy.log(6) - sympy.log(2) - sympy.log(3)
    assert closed_form_sign(tie, zero_test=lambda e: False) is None          # caller says "not zero": undecided
    assert closed_form_sign(tie, zero_test=lambda e: True) == 0


def test_precision_restored():
    old = ctx.prec
    closed_form_sign(sympy.sqrt(2) * sympy.pi - R(444288, 100000))
    assert ctx.prec == old


def test_numbers_modules_stay_under_600_lines():
    folder = Path(__file__).resolve().parents[1] / "dpexact" / "numbers"
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert max(sizes.values()) <= 600, sizes
