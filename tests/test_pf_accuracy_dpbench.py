"""Acceptance: PF float pmf vs rigorous balls on DPBench mode/median and on near-ties."""

import pytest

from dpexact.benchmarks import run_pf_accuracy


def _check(rows):
    for r in rows:
        assert r["ball_max_rel_radius"] < 1e-25, r  # the reference is sharp
        assert r["max_rel_error"] <= 1e-12, r
        assert r["max_rel_error"] <= r["stated_bound"], r
        assert r["max_log_error_tiny"] <= 1e-12, r
        assert r["sum_minus_1"] <= 1e-14, r


def test_pf_accuracy_hepth(dpbench_path):
    _check(run_pf_accuracy(str(dpbench_path), epsilons=("0.001", "1"), datasets=("HEPTH",), echo=lambda s: None))


@pytest.mark.slow
def test_pf_accuracy_all_datasets(dpbench_path):
    rows = run_pf_accuracy(str(dpbench_path), echo=lambda s: None)
    assert len(rows) == (5 * 2 + 1) * 5
    _check(rows)
