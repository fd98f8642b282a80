"""The vectorised brr search on the equidistant domain (dpexact.ldp.brr_equidistant) against the
exact one-row-at-a-time library search (dpexact.ldp.local_search / global_search)."""

import pytest

from dpexact.ldp import global_search, local_search
from dpexact.ldp.brr_equidistant import exp_sign, global_m_equidistant, local_ms, sorted_distance_rows
from dpexact.ldp.losses import absolute_loss


@pytest.mark.parametrize("eps", ["log(11/10)", "log(3)", "log(3/2)", "1", "1/4", "3"])
@pytest.mark.parametrize("reading", ["pseudocode", "text"])
def test_every_row_matches_the_exact_local_search(eps, reading):
    b = exp_sign(eps)
    for n in range(2, 13):
        rows = sorted_distance_rows(n)
        ms = local_ms(b, rows, reading)
        for k in range(n):
            assert int(ms[k]) == local_search([int(x) for x in rows[k]], eps, reading).m
        if reading == "pseudocode":
            assert min(int(m) for m in ms) == global_m_equidistant(b, n) == global_search(absolute_loss(n), eps).m


def test_exact_sign_on_ties():
    b = exp_sign("log(3)")  # a = 3: 3·1 − 3 = 0 exactly; float alone cannot tell a tie from a rounding
    import numpy as np

    assert list(b.sign(np.array([1, 1, -2]), np.array([-3, -2, 7]))) == [0, 1, 1]
