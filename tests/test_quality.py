"""Quality functions: mode and median (pf §6) against brute force and their sensitivity."""

from __future__ import annotations

import itertools
import math
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpexact.quality import median_distance, median_quality, mode_quality


# ---------------------------------------------------------------------------------------------
# independent reference: breadth-first search over add/remove-one-record sequences
def _median_bin(hist: tuple[int, ...], which: str) -> int | None:
    records = [b for b, c in enumerate(hist) for _ in range(c)]  # sorted by construction
    n = len(records)
    if n == 0:
        return None
    pos = math.ceil(n / 2) if which == "lower" else n // 2 + 1  # 1-based
    return records[pos - 1]


def _brute_force_distance(hist: tuple[int, ...], which: str) -> list[int]:
    n = len(hist)
    dist: list[int | None] = [None] * n
    seen = {hist}
    frontier = deque([(hist, 0)])
    while frontier and any(d is None for d in dist):
        state, d = frontier.popleft()
        m = _median_bin(state, which)
        if m is not None and dist[m] is None:
            dist[m] = d
        for b in range(n):
            for delta in (1, -1):
                if state[b] + delta < 0:
                    continue
                nxt = state[:b] + (state[b] + delta,) + state[b + 1 :]
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append((nxt, d + 1))
    return [int(d) for d in dist]  # type: ignore[arg-type]


@pytest.mark.parametrize("which", ["lower", "upper"])
def test_median_distance_matches_brute_force_exhaustively(which: str) -> None:
    for hist in itertools.product(range(3), repeat=3):
        assert median_distance(list(hist), which=which).tolist() == _brute_force_distance(hist, which), hist


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=4), st.sampled_from(["lower", "upper"]))
def test_median_distance_matches_brute_force_random(hist: list[int], which: str) -> None:
    assert median_distance(hist, which=which).tolist() == _brute_force_distance(tuple(hist), which)


def test_median_quality_is_negated_distance_with_zero_at_median() -> None:
    x = np.array([3, 0, 2, 5, 1])  # N = 11, median record (6th) lies in bin 3
    q = median_quality(x)
    assert q.tolist() == (-median_distance(x)).tolist()
    assert int(np.argmax(q)) == 3 and q.max() == 0
    assert np.count_nonzero(q == 0) == 1


def test_median_bin_is_np_median_bin_for_odd_totals() -> None:
    # for odd N both conventions put the median in the bin of the middle record; the scores
    # of other bins may differ (the datasets reached by additions have either parity)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(60):
        x = rng.integers(0, 20, size=int(rng.integers(1, 30)))
        if x.sum() % 2 == 1:
            middle = int(np.median(np.repeat(np.arange(x.size), x)))
            for which in ("lower", "upper"):
                q = median_quality(x, which=which)
                assert q[middle] == 0 and np.count_nonzero(q == 0) == 1
            checked += 1
    assert checked > 10


def _neighbours(x: np.ndarray):
    for b in range(x.size):
        up = x.copy()
        up[b] += 1
        yield up
        if x[b] > 0:
            down = x.copy()
            down[b] -= 1
            yield down


hist_strategy = st.lists(st.integers(0, 50), min_size=1, max_size=12).map(np.array)


@settings(max_examples=150, deadline=None)
@given(hist_strategy, st.sampled_from(["lower", "upper"]))
def test_median_quality_has_sensitivity_one(x: np.ndarray, which: str) -> None:
    q = median_quality(x, which=which)
    for y in _neighbours(x):
        assert np.max(np.abs(median_quality(y, which=which) - q)) <= 1


@settings(max_examples=150, deadline=None)
@given(hist_strategy)
def test_mode_quality_has_sensitivity_one_and_is_monotone(x: np.ndarray) -> None:
    q = mode_quality(x)
    for y in _neighbours(x):
        d = mode_quality(y) - q
        assert np.max(np.abs(d)) <= 1
        # pf Remark 1: adding a record never decreases a score, removing never increases one
        assert np.all(d >= 0) if y.sum() > x.sum() else np.all(d <= 0)


def test_median_quality_is_not_monotone() -> None:
    x = np.array([1, 0, 1])
    y = np.array([1, 0, 2])  # one record added
    assert np.any(median_quality(y) < median_quality(x))


def test_mode_conventions() -> None:
    x = [4, 0, 7, 1]
    assert mode_quality(x).tolist() == x
    assert mode_quality(x, convention="doubled").tolist() == [2 * v for v in x]
    assert mode_quality(np.array(x, dtype=np.uint8)).dtype == np.int64


@pytest.mark.parametrize(
    "bad, exc",
    [
        ([], ValueError),
        ([[1, 2], [3, 4]], ValueError),
        ([1, -1], ValueError),
        ([1.5, 2], ValueError),
        ([1.0, float("nan")], ValueError),
        ([1.0, float("inf")], ValueError),
        ("12", TypeError),
        ([True, False], TypeError),
        (["a", "b"], TypeError),
        (5, TypeError),
    ],
)
@pytest.mark.parametrize("func", [mode_quality, median_quality])
def test_bad_histograms_raise_naming_the_argument(func, bad, exc) -> None:
    with pytest.raises(exc, match="histogram"):
        func(bad)


def test_integral_floats_accepted_and_bad_options_rejected() -> None:
    assert median_quality([1.0, 2.0]).tolist() == median_quality([1, 2]).tolist()
    with pytest.raises(ValueError, match="convention"):
        mode_quality([1, 2], convention="twice")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="which"):
        median_quality([1, 2], which="middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="histogram"):
        mode_quality(np.array([2**62, 2**62], dtype=np.int64))
