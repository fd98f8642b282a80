"""Every count a user gives is bounded, with an estimate, before the work starts, and estimating
is itself cheap: what used to hang or crash is now a one-line refusal.

Each case runs under an alarm (:data:`LIMIT` seconds, generous for a loaded 2-core machine): a
regression to the old behaviour (a 600 000-digit ``math.comb``, reading ``/dev/zero``, a billion
sampler draws) trips it instead of hanging the suite.
"""

import math
import signal
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app

runner = CliRunner()
LIMIT = 20.0


class _Hang(BaseException):
    pass


@contextmanager
def _alarm(seconds=LIMIT):
    def on_alarm(signum, frame):
        raise _Hang(f"ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _one_line_refusal(args, *needles, code=2):
    with _alarm():
        res = runner.invoke(app, args)
    lines = [ln for ln in res.output.splitlines() if ln.strip()]  # progress notes may come first
    errors = [ln for ln in lines if ln.startswith("error")]
    assert res.exit_code == code and errors == lines[-1:] and lines[-1].startswith("error: "), (args, res.output)
    assert "Traceback" not in res.output and "internal error" not in res.output
    for needle in needles:
        assert needle in lines[-1], (needle, lines[-1])
    return lines[-1]


@pytest.mark.parametrize("n, k", [(1_000_000, 1_000_000), (1000, 1000), (10**9, 3), (3, 10**9)])
def test_optimal_on_huge_lattices_is_refused_with_an_estimate(n, k):
    _one_line_refusal(["optimal", "--n", str(n), "--k", str(k), "-e", "1"], "variables", "estimated", "memory budget")


def test_the_log_size_agrees_with_the_exact_binomials():
    from dpexact.lp.cost_model import regular_lp_log_size, regular_lp_size

    for n in range(1, 25):
        for k in range(0, 25):
            classes, v = regular_lp_size(n, k)
            log_c, log_v = regular_lp_log_size(n, k)
            assert math.isclose(log_c, math.log(classes), rel_tol=1e-12, abs_tol=1e-12), (n, k)
            assert math.isclose(log_v, math.log(v), rel_tol=1e-12, abs_tol=1e-12), (n, k)
    with pytest.raises(ValueError, match="variables"):
        regular_lp_size(10**6, 10**6)


def test_optimal_at_a_huge_epsilon_gives_a_reason_not_a_division_by_zero():
    # an ε outside the range the float64 bounds exist in is an argument out of range: a usage error (2)
    line = _one_line_refusal(["optimal", "--n", "3", "--k", "2", "-e", "1000"], "epsilon", code=2)
    assert "division by zero" not in line


def test_sweep_reads_at_most_the_size_limit(tmp_path):
    from dpexact.sweep.spec import MAX_SPEC_BYTES

    _one_line_refusal(["sweep", "/dev/zero", "--store", str(tmp_path / "st")], "larger than", str(MAX_SPEC_BYTES))
    big = tmp_path / "big.toml"
    big.write_text('task = "pmf"\n' + "# padding\n" * (MAX_SPEC_BYTES // 10 + 1))
    _one_line_refusal(["sweep", str(big), "--store", str(tmp_path / "st")], "larger than")


@pytest.mark.parametrize("nest", ["[" * 5000 + "]" * 5000, "{a = " * 5000 + "1" + "}" * 5000, "[" * 20 + "]" * 20])
def test_deeply_nested_specs_are_one_line(tmp_path, nest):
    spec = tmp_path / "deep.toml"
    spec.write_text(f'task = "pmf"\nx = {nest}\n')
    _one_line_refusal(["sweep", str(spec), "--store", str(tmp_path / "st")], "nests arrays or tables")


def test_binary_spec_is_one_line(tmp_path):
    spec = tmp_path / "bin.toml"
    spec.write_bytes(b"task = \xff\xfe\n")
    _one_line_refusal(["sweep", str(spec), "--store", str(tmp_path / "st")], "not UTF-8")


@pytest.mark.parametrize("draws, needle", [("1000000000", "give fewer draws"), ("10000000000", "draws must be in 1..1000000000"),
                                           ("0", "draws must be in")])
def test_conform_draws_are_refused_with_an_estimate(draws, needle):
    _one_line_refusal(["conform", "pf", "-e", "1", "--draws", draws], needle)


def test_conform_time_budget_is_an_estimate_from_a_pilot():
    from dpexact.cost_limits import CostLimitError
    from dpexact.conformance.checks import conform

    with _alarm(), pytest.raises(CostLimitError, match=r"estimated .* \[pilot of 2000 draws") as info:
        conform(dpexact.mechanism("pf", epsilon=1), draws=50_000_000, max_seconds=1.0)
    assert info.value.estimate.seconds > 1.0


@pytest.mark.parametrize("command", [["check", "--quick", "--claim", "pf.lemma.7"], ["sweep", "SPEC"]])
def test_local_workers_are_bounded_by_the_cpus(command, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = "1"\nscores = "1,0"\n')
    args = [str(spec) if a == "SPEC" else a for a in command]
    if args[0] == "sweep":
        args += ["--store", str(tmp_path / "st")]
    _one_line_refusal(args + ["--workers", "100000"], "--workers", "worker processes", "at most")


def test_local_workers_are_bounded_by_their_memory(monkeypatch):
    import dpexact.sweep.executor as executor
    from dpexact.cost_limits import CostLimitError

    monkeypatch.setattr(executor, "default_workers", lambda: 10**6)  # a machine with CPUs enough: memory decides
    with _alarm(), pytest.raises(CostLimitError, match=r"--workers: .*100000 worker processes.*memory budget"):
        with executor.dask_client(workers=100_000):
            pass


def test_a_python_float_epsilon_warns_with_its_exact_value():
    with pytest.warns(UserWarning, match=r'epsilon=0\.1 .* 3602879701896397/36028797018963968, not 1/10; pass the string "0\.1"'):
        m = dpexact.mechanism("pf", epsilon=0.1)
    assert str(m.epsilon) != "1/10"
    with pytest.warns(UserWarning, match="epsilon=0.3"):
        dpexact.define_mechanism("mine", lambda q, p, ops: [ops.from_int(1) / len(q)] * len(q), epsilon=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(dpexact.mechanism("pf", epsilon="0.1").epsilon) == "1/10"
        dpexact.mechanism("pf", epsilon=0.5)  # an exact decimal: nothing to warn about
        dpexact.mechanism("pf", epsilon=1)
        dpexact.mechanism("pf", epsilon=np.float64(0.5))  # numpy floats are floats too (their repr is not)
    with pytest.warns(UserWarning, match=r'epsilon=0\.1 .* pass the string "0\.1"'):
        dpexact.mechanism("pf", epsilon=np.float64(0.1))


def test_documents_read_back_are_bounded_and_fifos_do_not_block(tmp_path):
    import os

    fifo = tmp_path / "doc.fifo"
    os.mkfifo(fifo)  # no writer: must read as empty, not wait
    _one_line_refusal(["schema", "verify", "--validate", str(fifo)], "--validate")
    _one_line_refusal(["schema", "verify", "--validate", "/dev/zero"], "larger than")  # read only: /dev/zero is safe
    _one_line_refusal(["sweep", str(fifo), "--store", str(tmp_path / "st")], "task")
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate((64 << 20) + 1)  # sparse: no disk used
    _one_line_refusal(["replay", str(big)], "FILE")  # refused after reading 64 MiB + 1 bytes, not all of it
