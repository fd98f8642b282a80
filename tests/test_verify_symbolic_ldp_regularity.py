"""Symbolic lattice checks (t = e^{-ε/L}), LDP channel levels and regularity (pf Def. 3)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from flint import fmpq

import dpexact
from dpexact.verify.decide.counterexample import Counterexample
from dpexact.verify.search.ldp_channel import ldp_level
from dpexact.verify.neighbourhoods import LInfBox
from dpexact.verify.decide.regularity import check_regularity
from dpexact.numbers.exp_lattice import is_identically_zero
from dpexact.verify.proofs.symbolic_lattice import ratio_on_interval


def test_pf_prop2_equality_is_an_identity_in_t():
    # pf Thm 1 proof: for q_r <= q* - 2Δ, P(q + 2Δe_r)_r = e^ε P(q)_r for every ε
    res = ratio_on_interval("pf", [0, 0], [0, -2], 1, "1/100", 20)
    assert res.tight and res.holds


def test_em_box_pair_holds_for_all_eps():
    res = ratio_on_interval("em", [0, 0, 0], [-1, 1, 1], 0, "1/10", 10)
    assert res.holds is True and not res.tight and res.L == 1
    odd = ratio_on_interval("em", [1, 0], [0, 1], 0, "1/10", 10)  # exponents ±ε/2: t = e^{-ε/2}
    assert odd.holds is True and odd.L == 2


def test_monotone_em_on_box_fails_with_an_exact_witness():
    res = ratio_on_interval("em", [0, 0], [-1, 1], 0, "1/10", 3, {"monotone": True})
    assert res.holds is False and res.witness_epsilon is not None
    m = dpexact.mechanism("em", epsilon=res.witness_epsilon, monotone=True)
    eps = float(sympy.sympify(res.witness_epsilon))
    assert 0.1 <= eps <= 3
    cx = Counterexample(m, LInfBox(1), (Fraction(0), Fraction(0)), (Fraction(-1), Fraction(1)), 0, 0, 0)
    assert cx.recheck("ball").proved


def test_is_identically_zero():
    e = sympy.E * sympy.exp(sympy.Rational(-1, 2)) - sympy.exp(sympy.Rational(1, 2))
    assert is_identically_zero(e) is True
    assert is_identically_zero(e + sympy.Rational(1, 10**40)) is False
    assert is_identically_zero(sympy.sqrt(2) - 1) is None


def test_ldp_level_exact_and_float():
    e3 = [[fmpq(3, 5), fmpq(1, 5), fmpq(1, 5)], [fmpq(1, 5), fmpq(3, 5), fmpq(1, 5)], [fmpq(1, 5), fmpq(1, 5), fmpq(3, 5)]]
    lv = ldp_level(e3)  # GRR with e^ε = 3 (brr eq. 6): level exactly log 3
    assert lv.ratio == 3 and lv.epsilon == pytest.approx(math.log(3), rel=1e-15)
    f = ldp_level(np.array([[0.75, 0.25], [0.25, 0.75]]))
    assert abs(f.ratio - 3) <= 3 * f.rel_error
    assert ldp_level([["1/2", "1/2"], [1, 0]]).ratio == math.inf


def test_ldp_level_of_grr_mechanism_over_all_inputs():
    if "grr" not in dpexact.available():
        pytest.fail("grr must be registered for this test")  # pragma: no cover
    m = dpexact.mechanism("grr", epsilon="log(4)")
    inputs = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    K = [list(m.pmf(q, "exact").values) for q in inputs]
    assert ldp_level(K).ratio == 4


def test_ldp_bad_inputs():
    with pytest.raises(ValueError, match="sum"):
        ldp_level([["1/2", "1/3"]])
    with pytest.raises(ValueError, match="channel"):
        ldp_level(np.array([[0.5, np.nan]]))
    with pytest.raises(ValueError, match=">= 0"):
        ldp_level([["3/2", "-1/2"]])


def test_pf_is_regular_exactly_on_samples():
    m = dpexact.mechanism("pf", epsilon="2*log(3)")
    rep = check_regularity(m, [[0, 1, -1], [0, 0, 2]], backend="exact")
    assert rep.regular_within_scope and rep.proved_exact == rep.checked["symmetry"] + rep.checked["shift"]


def test_heterogeneous_scales_break_symmetry():
    # RNMH (hetsel eq. 4) is not symmetric: candidate-wise noise scales follow the index
    m = dpexact.mechanism("rnm-gumbel", epsilon=1, scales=[1, 3])
    rep = check_regularity(m, [[0, 1]], shifts=())
    assert any(v.property == "symmetry" for v in rep.violations)
