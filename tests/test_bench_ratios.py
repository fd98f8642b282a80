"""The benchmark's ratio machinery (not timings): interleaved rounds, per-round ratios, medians."""

import pytest

import dpexact.benchmarks as benchmarks


def test_interleaved_medians_and_per_round_ratios():
    calls = []
    m = benchmarks.interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeat=5, inner=2)
    assert calls == ["a", "b"] + ["a", "a", "b", "b"] * 5  # one untimed call each, then in turn
    assert set(m["seconds"]) == {"a", "b"} and all(len(v) == 5 for v in m["rounds"].values())
    assert len(m["load"]) == 2
    fake = {"rounds": {"a": [2.0, 4.0, 6.0], "b": [1.0, 1.0, 2.0]}}
    assert benchmarks._ratio(fake, "a", "b") == 3.0  # median of 2, 4, 3 — not 4 / 1


def test_fewer_than_five_rounds_is_refused():
    with pytest.raises(ValueError, match="repeat"):
        benchmarks.run_pmf_benchmark(quick=True, repeat=3, echo=lambda s: None)
