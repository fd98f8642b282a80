"""Q(n, k) and its symmetry classes, checked against brute-force enumeration."""

import itertools
import math

import pytest

from dpexact.lp.lattice import (
    LatticeClass,
    class_members,
    class_of_levels,
    count_classes,
    count_vectors,
    lattice_classes,
    lattice_vectors,
)


def brute(n, k):
    return [v for v in itertools.product(range(k + 1), repeat=n) if min(v) == 0]


@pytest.mark.parametrize("n,k", [(1, 0), (1, 3), (2, 0), (2, 3), (3, 2), (4, 3), (5, 2)])
def test_vectors_and_classes_match_brute_force(n, k):
    vs = brute(n, k)
    assert sorted(lattice_vectors(n, k)) == sorted(vs)
    assert count_vectors(n, k) == len(vs)
    sorted_vs = {tuple(sorted(v)) for v in vs}
    classes = list(lattice_classes(n, k))
    assert len(classes) == count_classes(n, k) == len(sorted_vs)
    assert {c.levels() for c in classes} == sorted_vs
    assert sum(c.multiplicity for c in classes) == len(vs)


def test_class_members_are_distinct_permutations():
    cls = LatticeClass((2, 0, 1, 2))
    members = list(class_members(cls))
    assert len(members) == len(set(members)) == cls.multiplicity == math.factorial(5) // (2 * 1 * 2)
    assert set(members) == set(itertools.permutations(cls.levels()))
    assert all(class_of_levels(m, 3) == cls for m in members)


@pytest.mark.parametrize("bad,exc", [((0, 1), ValueError), ((2, -1), ValueError), ((True, 1), TypeError), ((2.0, 1), TypeError)])
def test_bad_sizes(bad, exc):
    with pytest.raises(exc, match="n|k"):
        count_classes(*bad)


def test_class_of_levels_rejects_off_lattice():
    with pytest.raises(ValueError, match="levels"):
        class_of_levels((1, 2), 3)  # no level 0
    with pytest.raises(ValueError, match="levels"):
        class_of_levels((0, 4), 3)


def test_float_range_guard_matches_the_float64_limit():
    import sys

    from dpexact.lp.lattice import check_float_sums

    # the guard refuses exactly when 2k·|Q(n, k)| exceeds the largest float64 (exact comparison)
    for n, k in ((1022, 1), (1023, 1), (644, 2), (645, 2), (8, 8)):
        too_big = 2 * k * ((k + 1) ** n - k**n) > int(sys.float_info.max)
        if too_big:
            with pytest.raises(ValueError, match=r"n, k: Q\("):
                check_float_sums(n, k)
        else:
            check_float_sums(n, k)
    from dpexact.lp import build_regular_lp

    with pytest.raises(ValueError, match="float64"):
        build_regular_lp(10_000, 1, 1)
