"""Grouped ball pmfs (dpexact.mechanisms.heterogeneous.grouped) against the mechanisms' own ball
pmfs on the expanded candidate vectors (a different code path: one integral per candidate)."""

import pytest

import dpexact
from dpexact.mechanisms.heterogeneous.grouped import rnm_exp_groups_ball, rs_groups_ball

SCORES = [0, 0, -1, -1, -1]
SENS = ["1", "1", "1/2", "1/2", "1/2"]


def _group_sums(values):
    return [values[0] + values[1], values[2] + values[3] + values[4]]


def test_rnmh_groups_match_the_expanded_pmf():
    grouped = rnm_exp_groups_ball([(0, 2, 2), (-1, 1, 3)])  # Exp noise of mean 2Δ_a/ε, ε = 1
    expanded = _group_sums(dpexact.mechanism("rnmh", epsilon=1, sensitivities=SENS).pmf(SCORES, backend="ball").values)
    for g, e in zip(grouped, expanded):
        assert g.overlaps(e) and float(g.rad()) < 1e-12


def test_rs_gamma_groups_match_the_expanded_pmf():
    grouped = rs_groups_ball([(0, 3, 2), (-1, "3/2", 3)], "1/20")  # Lap(3Δ_a/ε), γ = 1/20
    m = dpexact.mechanism("rs-gamma", epsilon=1, sensitivities=SENS, gamma="1/20")
    expanded = _group_sums(m.pmf(SCORES, backend="ball").values)
    for g, e in zip(grouped, expanded):
        assert g.overlaps(e) and float(g.rad()) < 1e-12
    assert float(sum(grouped).mid()) == pytest.approx(1, abs=1e-14)


def test_non_dyadic_scores_are_refused():
    with pytest.raises(ValueError, match="groups"):
        rs_groups_ball([(0, 3, 2), ("-1/3", 3, 3)], "1/20")
