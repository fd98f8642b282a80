"""RNM-Laplace closed form against the independent quadrature (acb.integral) and simulation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import dpexact


@pytest.mark.parametrize("q", [[0, 1, Fraction(1, 2), 3, -2], [0, 0, 0], [5, -5], [Fraction(7, 3), 0, 1, 1]])
def test_closed_form_inside_quadrature_ball_and_exact_inside_closed_form(q):
    m = dpexact.mechanism("rnm-laplace", epsilon=Fraction(1, 2))
    cf = m.pmf(q, "ball:128")
    quad = m.pmf(q, "ball:128", method="quadrature")
    ex = m.pmf(q, "exact")
    assert cf.method == "closed-form" and quad.method == "quadrature"
    assert cf.contains(list(ex.values))
    for a, b in zip(cf.values, quad.values):
        assert a.overlaps(b)
    assert abs(float(sum(float(v.mid()) for v in cf.values)) - 1) < 1e-15


def test_closed_form_matches_simulation():
    m = dpexact.mechanism("rnm-laplace", epsilon=1)
    q = [0.0, 1.0, 0.5, -1.0]
    p = m.pmf(q)
    # float scores are exact: the ball midpoints with the radius as a rigorous bound (no input rounding)
    assert p.error_kind == "rigorous" and p.rel_error < 1e-12 and "input_rounding" not in p.details
    r = m.pmf(["0", "1", "1/2", "-1.1"])  # exact scores: the bound adds their rounding (SelectionMechanism.pmf)
    assert r.details["input_rounding"]["log_shift"] > 0 and r.rel_error < 1e-12
    draws = m.rvs(q, size=40000, random_state=2)
    from scipy.stats import chisquare

    assert chisquare(np.bincount(draws, minlength=4), np.asarray(p.values) * 40000).pvalue > 1e-3


def test_closed_form_needs_common_scale():
    m = dpexact.mechanism("rnmh-laplace", epsilon=1, sensitivities=[1, 2])
    with pytest.raises(ValueError):
        m.pmf([0, 1], "ball", method="closed-form")
