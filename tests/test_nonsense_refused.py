"""Nonsense arguments are refused (exit 2, one line) and a correct mechanism is not called
non-conforming at tiny ε: counts that cannot be counts, budgets of zero, a ball containment that
one fixed-precision enclosure cannot decide."""

from __future__ import annotations

import pytest
import sympy
from flint import arb, fmpq
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.numbers.pmf import _ball_contains

runner = CliRunner()


def usage(args, *fragments):
    r = runner.invoke(app, args)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.output
    assert "Traceback" not in r.output
    for f in fragments:
        assert f in r.stderr, r.stderr


@pytest.mark.parametrize("mech", ["grr", "pf"])
def test_conform_max_seconds_zero_is_refused_for_every_mechanism(mech):
    usage(["conform", mech, "-e", "1", "--draws", "200", "--max-seconds", "0"], "--max-seconds")
    usage(["conform", mech, "-e", "1", "--draws", "200", "--max-seconds", "nan"], "--max-seconds")


def test_tiny_epsilon_ball_containment_is_decided_exactly():
    # GRR at ε = 10^-100 on 2 outputs: Pr = e^ε / (1 + e^ε) = 1/2 + 2.5·10^-101 (+ O(ε^3)); the ball's radius
    # is about 2.5·10^-101, narrower than a (prec + 128)-bit enclosure of the closed form
    m = dpexact.mechanism("grr", epsilon=sympy.Rational(1, 10**100))
    e, b = m.pmf([1, 0], backend="exact"), m.pmf([1, 0], backend="ball")
    assert b.contains(e.values)
    # mutation: the exact values moved by 10^-90 (far outside the radius) are not contained
    assert not b.contains([v + sympy.Rational(1, 10**90) for v in e.values])
    # a closed ball contains its endpoint, not the dyadic just past it (decided exactly)
    ball = arb(fmpq(1, 2)) + arb(0, 2.0**-300)
    assert _ball_contains(ball, fmpq(1, 2) + fmpq(1, 2**300), 64)
    assert not _ball_contains(ball, fmpq(1, 2) + fmpq(1, 2**299), 64)
    assert not _ball_contains(ball, fmpq(1, 2) - fmpq(3, 2**300), 64)


def test_conform_grr_at_tiny_epsilon_conforms():
    r = runner.invoke(app, ["conform", "grr", "-e", "1e-100", "--draws", "200", "--json"])
    assert r.exit_code == 0, r.output


BIG = "9" * 80


@pytest.mark.parametrize("args", [["--n", BIG, "--k", "5"], ["--n", BIG, "--k", "1"], ["--n", "3", "--k", BIG],
                                  ["--n", "2", "--k", "1", "-e", "5e9"]])
def test_optimal_out_of_range_arguments_are_usage_errors(args):
    r = runner.invoke(app, ["optimal", *(args if "-e" in args else [*args, "-e", "1"])])
    last = r.stderr.strip().splitlines()[-1]  # after the LP's header (stderr), when the LP was built
    assert r.exit_code == 2 and last.startswith("error: ") and "Traceback" not in r.output, r.output


def test_lp_size_logs_have_no_cancellation_at_huge_n():
    import math

    from dpexact.lp.cost_model import _log_comb

    # independent: the exact binomial's log (Python ints), where lgamma differences cancel catastrophically
    for a, b in [(10**80 + 4, 5), (10**80 + 2, 10**80), (10**6, 300), (10**6, 3000), (40, 20), (7, 0)]:
        exact = math.log(math.comb(a, b)) if min(b, a - b) < 5000 else None
        assert exact is not None and math.isclose(_log_comb(a, b), exact, rel_tol=1e-12, abs_tol=1e-12), (a, b)


@pytest.mark.parametrize("args, option", [(["--n=-5"], "--n"), (["--n", "0"], "--n"), (["--steps=-5"], "--steps"),
                                          (["--steps", "0"], "--steps"), (["--steps", "1000"], "--steps")])
def test_verify_counts_that_are_not_counts_are_refused(args, option):
    # --n=-5 and --n 0 once answered "private" (exit 0)
    usage(["verify", "-m", "em", "-e", "1", *args], option)
    with pytest.raises(ValueError, match=option.lstrip("-")):
        dpexact.verify(dpexact.mechanism("em", epsilon=1), **{"n": int(args[-1].split("=")[-1])} if option == "--n"
                                                          else {"steps": int(args[-1].split("=")[-1])})


@pytest.mark.parametrize("mech, n, what", [("em", "1000000000", "memory budget"), ("em", "1000000", "time budget"),
                                           ("laplace", "1000000", "time budget"), ("noisy-hist", "1000000", "time budget"),
                                           ("pf", "200000", "time budget")])
def test_verify_scopes_beyond_the_budget_are_refused_before_work(mech, n, what):
    # em --n 10^9 grew to 6.5 GB in 30 s; --n 10^6 ran over a minute (em, laplace, noisy-hist)
    extra = ["--max-seconds", "1"] if n == "200000" else []  # under the default budget, refused under a 1 s one
    usage(["verify", "-m", mech, "-e", "1", "--n", n, *extra], "--n: ", "estimated", what)


LONG = "a" * 5000


@pytest.mark.parametrize("args", [["replay", LONG + ".json"], ["schema", "verify", "--validate", LONG + ".json"],
                                  ["check", "--catalogue", LONG + ".py"], ["pmf", "-m", LONG + ".py:X", "-e", "1", "-q", "1,0"],
                                  ["verify", "-m", LONG + ".py:X", "-e", "1"], ["data", "fetch", "dpbench", "--dir", LONG],
                                  ["pmf", "-m", "pf", "-e", "1", "-q", "1,0", "-o", LONG + ".json"]])
def test_a_5000_character_file_name_is_a_usage_error(args):
    r = runner.invoke(app, args)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.output
    assert len(r.stderr) < 400 and "Traceback" not in r.output
