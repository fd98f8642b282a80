"""The split route's schedule with the one-end shares of its route (:func:`dpexact.accounting.grid_cost.end_shares`):
an end last refined at a coarser step may be refined at the other end's step, and no pass is chosen when none fits."""

from __future__ import annotations

from dpexact.accounting import grid_accounting as ga
from dpexact.accounting.grid_cost import END_SHARE_SHIFTED

H = 2.0**-18
# the lower end refined at 2^-16 and 2^-18, the upper end at 2^-13 and 2^-16 (a lower pass at 2^-18 was the last)
TRACK = {"lower": [(2.0**-16, 0.30355), (H, 0.303553)], "upper": [(2.0**-13, 0.3036), (2.0**-16, 0.303555)]}
COSTS = [(2.0**-16, 3.0), (H, 13.0)]  # full-pass units


def test_lagging_end_is_refined_at_the_other_ends_step():
    """No pass at 2^-19 fits 19 s (full 13 × 2.6, lower share 0.5, safety 1.3: 22 s), the upper end at 2^-18 does
    (13 × 0.8 × 1.3 = 13.5 s): it is chosen, not a pass that would overrun the budget."""
    assert ga._choose_pass(TRACK, H, 6.5, COSTS, 19.0, 0.0, END_SHARE_SHIFTED) == ("upper", H)


def test_no_pass_when_none_fits():
    assert ga._choose_pass(TRACK, H, 6.5, COSTS, 12.0, 0.0, END_SHARE_SHIFTED) is None


def test_mutation_without_the_lag_no_upper_pass_at_h(monkeypatch):
    """Mutation: the upper end's last step taken as h (no lag): its only candidate is 2^-19, which does not fit — the
    schedule would stop (None) with the upper end left at 2^-16."""
    track = {"lower": TRACK["lower"], "upper": [(2.0**-16, 0.3036), (H, 0.303555)]}
    assert ga._choose_pass(track, H, 6.5, COSTS, 19.0, 0.0, END_SHARE_SHIFTED) is None
