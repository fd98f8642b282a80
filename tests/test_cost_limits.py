"""Size guards: closed-form LP sizes against the built LP; refusals happen before heavy work."""

import tracemalloc

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.cost_limits import CostEstimate, CostLimitError, check_cost, default_max_memory
from dpexact.ldp import absolute_loss, optimal_ldp_channel
from dpexact.ldp.cost_model import estimate_channel_cost, estimate_optimal_ldp_cost
from dpexact.lp import build_regular_lp, solve_regular_lp
from dpexact.lp.cost_model import estimate_regular_lp_cost, regular_lp_size

runner = CliRunner()


@pytest.mark.parametrize("n, k", [(1, 0), (1, 4), (2, 0), (2, 3), (3, 5), (5, 2), (6, 6), (7, 3), (4, 9)])
def test_closed_form_size_matches_the_built_lp(n, k):
    lp = build_regular_lp(n, k, "1")
    assert regular_lp_size(n, k) == (len(lp.classes), lp.num_vars)


def test_check_cost_budgets():
    est = CostEstimate("x", memory_bytes=2e9, seconds=30.0, model="test")
    assert check_cost(est, max_seconds=60, max_memory=4e9) is est
    with pytest.raises(CostLimitError, match="time budget") as info:
        check_cost(est, max_seconds=10, max_memory=4e9)
    assert info.value.estimate is est and isinstance(info.value, ValueError)
    with pytest.raises(CostLimitError, match="memory budget"):
        check_cost(est, max_memory=1e9)
    check_cost(est, max_memory=None)  # the caller's risk
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="max_seconds"):
            check_cost(est, max_seconds=bad)
    with pytest.raises(TypeError, match="max_seconds"):
        check_cost(est, max_seconds="10")
    assert default_max_memory() > 1e8


def test_build_refuses_before_allocating():
    """The peak of traced allocations (not a wall time, which a loaded machine changes) shows the refusal
    came before the 9 million variables: building them takes hundreds of MB."""
    tracemalloc.start()
    with pytest.raises(CostLimitError, match=r"Q\(12, 12\).*9111830 variables"):
        build_regular_lp(12, 12, "1", max_memory=1e9)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20e6


def test_solve_refuses_over_the_time_budget():
    lp = build_regular_lp(8, 8, "1/4")
    with pytest.raises(CostLimitError, match="hipo"):
        solve_regular_lp(lp, method="hipo", max_seconds=1)
    # the same LP at a large ε goes through generation well within the budget
    sol = solve_regular_lp(build_regular_lp(4, 4, "2"), max_seconds=60)
    assert sol.bounds.lower <= sol.optimal_total_error <= sol.bounds.upper


def test_estimates_grow_with_size():
    small, big = estimate_regular_lp_cost(6, 6, "1"), estimate_regular_lp_cost(11, 11, "1")
    assert big.seconds > 50 * small.seconds and big.memory_bytes > 10 * small.memory_bytes
    assert estimate_regular_lp_cost(8, 8, "0.05", method="generation").seconds > estimate_regular_lp_cost(8, 8, "1", method="generation").seconds
    assert estimate_regular_lp_cost(12, 12, "1", mechanisms=2).parts["ratios"] > 0
    assert estimate_channel_cost("em", 2000, "ball").seconds > estimate_channel_cost("em", 200, "ball").seconds * 50
    assert estimate_channel_cost("em", 30, "exact").seconds > estimate_channel_cost("grr", 30, "exact").seconds
    with pytest.raises(ValueError, match="mechanism"):
        estimate_channel_cost("xyz", 10)
    with pytest.raises(ValueError, match="method"):
        estimate_regular_lp_cost(3, 3, "1", method="nosuch")


def test_optimal_ldp_channel_budget():
    with pytest.raises(CostLimitError, match="optimal-ldp N = 30"):
        optimal_ldp_channel(absolute_loss(30), "log(3)", max_seconds=0.01)
    assert estimate_optimal_ldp_cost(40).seconds < 60


@pytest.mark.parametrize("args, words", [
    (["optimal", "--n", "12", "--k", "12", "-e", "1"], ["Q(12, 12)", "estimated", "time budget"]),
    (["optimal", "--n", "10", "--k", "10", "-e", "0.25"], ["Q(10, 10)", "memory budget"]),
    (["ldp", "-m", "em", "-N", "2000", "-e", "1"], ["N = 2000", "estimated", "--max-seconds"]),
    (["ldp", "-m", "em", "-N", "40", "-e", "1", "-b", "exact"], ["exact", "estimated"]),
])
def test_cli_refuses_with_the_estimate(args, words, monkeypatch):
    """Refused from the estimate before the work: no unit of it (loss matrix, channel, LP build, solve) is
    started, and the ratios' pilot (optimal) evaluates at most BATCH_ROWS + 2 members per mechanism — a bounded
    fraction of the sum it costs. Counted by guards on those functions, not timed, so the machine's load
    cannot change the outcome."""
    from dpexact.lp.optimal_mechanism import BATCH_ROWS

    started, pilot = _guard_the_work(monkeypatch)
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output and all(w in res.output for w in words), res.output
    assert started == []
    mechanisms = 2  # optimal's default --mechanisms pf,em
    assert pilot[0] <= mechanisms * (BATCH_ROWS + 2)
    if args[0] == "optimal" and pilot[0]:
        assert pilot[0] < mechanisms * regular_lp_size(int(args[2]), int(args[4]))[0] / 100


class _WorkStarted(Exception):
    """Raised by a guarded unit of work: the command went past its cost check."""


def _guard_the_work(monkeypatch) -> tuple[list[str], list[int]]:
    """Replaces every unit of work `optimal` and `ldp` spend after their cost check by a guard that records
    its name and raises, and counts the members the ratios' pilot evaluates (passed through). Returns the
    list of the guards reached and a one-element list holding the pilot's member count."""
    from importlib import import_module

    # modules by name: dpexact.lp exports functions named like some of its modules
    ldp, optimal_mechanism, regular_lp, solver = (import_module(f"dpexact.{m}") for m in (
        "ldp", "lp.optimal_mechanism", "lp.regular_lp", "lp.solver"))
    started: list[str] = []
    pilot = [0]

    def guard(name):
        def work(*args, **kwargs):
            started.append(name)
            raise _WorkStarted(name)
        return work

    for owner, name in ((ldp, "loss_by_name"), (ldp.GeneralizedRR, "channel"), (ldp.ExponentialChannel, "channel"),
                        (ldp.BipartiteRR, "channel"), (regular_lp, "build_regular_lp"), (solver, "solve_regular_lp")):
        monkeypatch.setattr(owner, name, guard(f"{getattr(owner, '__name__', owner)}.{name}"))

    batched, one = optimal_mechanism._float_total_batched, optimal_mechanism._class_error

    def count_batched(mechanism, members, n, k):
        members = list(members)
        pilot[0] += len(members)
        return batched(mechanism, members, n, k)

    def count_one(mechanism, levels, be):
        pilot[0] += 1
        return one(mechanism, levels, be)

    monkeypatch.setattr(optimal_mechanism, "_float_total_batched", count_batched)
    monkeypatch.setattr(optimal_mechanism, "_class_error", count_one)
    return started, pilot


@pytest.mark.parametrize("args, first", [
    (["optimal", "--n", "3", "--k", "3", "-e", "1"], "dpexact.lp.regular_lp.build_regular_lp"),
    (["ldp", "-m", "em", "-N", "12", "-e", "1"], "dpexact.ldp.loss_by_name"),
    (["ldp", "-m", "em", "-N", "12", "-e", "1", "-b", "exact"], "dpexact.ldp.loss_by_name"),
])
def test_the_guards_see_the_work_of_an_accepted_problem(args, first, monkeypatch):
    """The guards above are where the commands spend their work: an accepted problem reaches the first one
    after its pilot (so an empty record in the refusal test means the refusal came first, not that the
    guards are elsewhere)."""
    started, pilot = _guard_the_work(monkeypatch)
    res = runner.invoke(app, args)
    assert started[:1] == [first], (started, res.output)
    assert (pilot[0] > 0) == (args[0] == "optimal")


def test_cli_max_seconds_raises_the_budget():
    res = runner.invoke(app, ["ldp", "-m", "em", "-N", "25", "-e", "1", "-b", "exact", "--max-seconds", "0.5"])
    assert res.exit_code == 2 and "0.5 s" in res.output
    res = runner.invoke(app, ["ldp", "-m", "grr", "-N", "12", "-e", "1", "--max-seconds", "30", "--json"])
    assert res.exit_code == 0, res.output


_SLOW_PF = '''
import time
from dataclasses import dataclass
from dpexact.mechanisms.permute_and_flip.mechanism import PermuteAndFlip


@dataclass(frozen=True)
class SlowPF(PermuteAndFlip):
    """PF whose every pmf burns 5 ms of CPU (a quadrature-heavy mechanism, say)."""

    def pmf(self, scores, backend="float", method=None):
        t = time.process_time()
        while time.process_time() - t < 0.005:
            pass
        return super().pmf(scores, backend=backend, method=method)
'''


def test_optimality_ratios_are_costed_by_a_pilot_of_the_mechanism(tmp_path):
    """The ratios' estimate is measured on the mechanism itself: Q(8, 8) has 6435 classes, so a
    5 ms pmf costs ≥ 32 s of ratios (refused under a 10 s budget) where PF's model says ~3 s."""
    from dpexact.lp.summary import optimal_summary

    (tmp_path / "slow_pf.py").write_text(_SLOW_PF)
    slow = f"{tmp_path / 'slow_pf.py'}:SlowPF"
    with pytest.raises(CostLimitError, match=r"ratios (3\d|[4-9]\d)\.?\d* s|ratios \d+\.?\d* min"):
        optimal_summary(8, 8, "1", mechanisms=[slow], max_seconds=10)
    assert estimate_regular_lp_cost(8, 8, "1", mechanisms=1).parts["ratios"] < 10
    assert optimal_summary(6, 6, "1", mechanisms=["pf", "em"], max_seconds=60)["ratios"]["pf"] >= 1 - 1e-9
