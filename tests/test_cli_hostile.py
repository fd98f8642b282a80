"""Hostile strings in every string option of every subcommand: a one-line error, never a traceback,
never code execution, never a hang."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.numbers.parse import parse_real

#: per-invocation time bound (seconds), generous for a loaded 2-core machine
PER_CASE = 15.0
SENTINEL = "SENTINEL_cli_hostile"

#: quick, valid arguments for each subcommand; the option under test is replaced or added
BASE = {
    "pmf": ["-m", "rs-gamma", "-e", "1", "-q", "1,0", "--param", "gamma=1/2"],
    "verify": ["-m", "em", "-e", "1", "--search", "grid", "--n", "2", "--values", "0,1"],
    "optimal": ["--n", "2", "--k", "1", "-e", "1"],
    "ldp": ["-m", "grr", "-N", "3", "-e", "1"],
    "optimal-ldp": ["-N", "3", "-e", "1"],
    "check": ["--claim", "no-such-claim"],
}
#: options naming files or directories: any text is a valid path, so they are not fuzzed here
PATH_OPTIONS = {"--json", "--report", "--data", "--output", "--store", "--plot", "--catalogue"}
#: commands whose base run is long (whole benchmarks); only their non-path options are fuzzed
LONG = {"bench", "bench-verifier"}

HOSTILE = [
    f"__import__('os').system('touch {SENTINEL}')",
    f'__import__("os").system("touch {SENTINEL}")',
    "().__class__.__bases__[0].__subclasses__()",
    f"().__class__.__base__.__subclasses__()[0].__init__.__globals__['sys'].modules['os'].system('touch {SENTINEL}')",
    f"exec(\"open('{SENTINEL}', 'w')\")",
    f"open('{SENTINEL}', 'w')",
    f"$(touch {SENTINEL})",
    f"`touch {SENTINEL}`",
    "lambda: 1",
    "[1,2]",
    "1/0",
    "10**10**10",
    "9**9**9**9",
    "factorial(10**9)",
    "1e999999999",
    "0x10",
    "nan",
    "-inf",
    "x",
    "log(0)",
    "exp(10**6)",
    "\x00",
    "1" * 5000,
    "(" * 300 + "1" + ")" * 300,
    "-" * 3000 + "1",
]


def _string_options() -> list[tuple[str, str]]:
    """(command, option) for every non-flag option of every registered subcommand."""
    group = typer.main.get_command(app)
    out = []
    for name, cmd in sorted(group.commands.items()):
        for p in cmd.params:
            if getattr(p, "is_flag", False) or not p.opts:
                continue
            opt = max(p.opts, key=len)
            if opt in PATH_OPTIONS:
                continue
            out.append((name, opt))
    return out


OPTIONS = _string_options()


def _args(command: str, option: str, value: str) -> list[str]:
    base = list(BASE.get(command, []))
    group = typer.main.get_command(app)
    aliases = next(p.opts for p in group.commands[command].params if option in p.opts)
    i = 0
    while i < len(base):  # drop the option (any alias) from the base arguments
        if base[i] in aliases:
            del base[i : i + 2]
        else:
            i += 1
    if option == "--param":
        value = f"gamma={value}"
    return [command, *base, option, value]


def _is_integer(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


class _Hang(BaseException):
    """Raised by the alarm: a case ran longer than PER_CASE (not an Exception, so nothing swallows it)."""


def _run(args: list[str], cwd: Path):
    def on_alarm(signum, frame):
        raise _Hang(f"{args} ran longer than {PER_CASE} s")

    old = os.getcwd()
    os.chdir(cwd)
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, PER_CASE)
    try:
        t0 = time.perf_counter()
        result = CliRunner().invoke(app, args)
        return result, time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(old)


def _assert_clean_failure(args: list[str], cwd: Path, may_succeed: bool = False) -> None:
    """No side effect, no hang, no traceback; a non-zero exit with one message unless ``may_succeed``."""
    result, seconds = _run(args, cwd)
    text = result.output
    assert seconds < PER_CASE, (args, seconds)
    assert not (cwd / SENTINEL).exists(), args
    assert "Traceback" not in text, (args, text)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    if may_succeed and result.exit_code == 0:
        return
    assert result.exit_code not in (0, None), (args, text)
    # a deprecation note (an old option name) may precede the one-line error
    lines = [ln for ln in result.stderr.splitlines() if ln.strip() and not ln.startswith("note: ")]
    if lines and lines[0].startswith("error:"):
        assert len(lines) == 1, (args, lines)  # our handler: exactly one line
    else:  # typer's own usage error (an integer option given text): its boxed message
        assert result.exit_code == 2 and ("Invalid value" in text or "Error" in text), (args, text)


def test_every_subcommand_is_covered():
    group = typer.main.get_command(app)
    commands = set(group.commands)
    assert {"pmf", "verify", "optimal", "ldp", "optimal-ldp"} <= commands
    fuzzed = {c for c, _ in OPTIONS}
    assert {"pmf", "verify", "optimal", "ldp", "optimal-ldp", "check"} <= fuzzed


@pytest.mark.parametrize("command", sorted(BASE))
def test_base_arguments_are_valid(command, tmp_path):
    if command == "check":
        return  # an unknown claim id is itself an error; check's options are fuzzed below
    result, _ = _run([command, *BASE[command]], tmp_path)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command, option", [o for o in OPTIONS if o[0] not in LONG])
def test_fixed_hostile_corpus(command, option, tmp_path):
    for value in HOSTILE:
        _assert_clean_failure(_args(command, option, value), tmp_path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from([o for o in OPTIONS if o[0] not in LONG]),
    # integers ("99", " 9 ", and "9_9" without the "_" token) are valid sizes for --n, -N, --steps: not hostile
    # text, and a large one legitimately runs long
    st.lists(st.sampled_from(["__import__", "('os')", ".system(", f"'touch {SENTINEL}'", ")", "[0]", "**", "9", "e",
                              "1e9999", "(", "log(", ",", "'", "/0", "lambda", ":", "0x", " "]),
             min_size=1, max_size=12).map("".join).filter(lambda v: not _is_integer(v)),
)
def test_random_hostile_strings(tmp_path_factory, option, value):
    command, opt = option
    # some token joins are valid numbers ("9**9", "e"): those may run; the grammar is the oracle
    _assert_clean_failure(_args(command, opt, value), tmp_path_factory.mktemp("cli"), may_succeed=_is_number(value))


def _is_number(text: str) -> bool:
    try:
        parse_real(text)
    except (ValueError, TypeError):
        return False
    return True


REPRODUCERS = [
    ["pmf", "-m", "em", "-e", "1/0", "-q", "1,0"],
    ["pmf", "-m", "em", "-e", "[1,2]", "-q", "1,0"],
    ["verify", "-m", "em", "-e", "1", "--values", "1e300,0", "--search", "grid"],
    ["pmf", "-m", "em", "-e", "1", "-q", "0x10,0"],
    ["pmf", "-m", "em", "-e", "1", "-q", "1,0", "--param", "epsilon=1000"],
    ["pmf", "-m", "em", "-e", "1", "-q", "1,0", "--sensitivity", "2", "--param", "sensitivity=3"],
    ["verify", "-m", "em", "-e", "1", "--values", ""],
    ["pmf", "-m", "gem", "-e", "1", "-q", "1,0"],
    ["pmf", "-m", "em", "-e", "1", "-q", "1,0", "-b", "mp:10000000"],
    ["pmf", "-m", "em", "-e", "1", "-q", "1,0", "-b", "ball:100000000"],
]


@pytest.mark.parametrize("args", REPRODUCERS, ids=[" ".join(a)[:60] for a in REPRODUCERS])
def test_reproducers_through_python_m(args, tmp_path):
    """The real entry point (``python -m dpexact``): one ``error:`` line, exit status 2."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "dpexact", *args], capture_output=True, text=True, cwd=tmp_path,
                       env=env, timeout=60)
    assert time.perf_counter() - t0 < 60
    assert "Traceback" not in p.stderr + p.stdout
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (p.returncode, p.stderr)


def test_unexpected_exception_is_one_line_with_its_type(monkeypatch):
    """A defect (not bad input) is reported with its type and exit status 1, still without a traceback."""
    import dpexact.utility

    def broken(*args, **kwargs):
        raise KeyError("internal")

    monkeypatch.setattr(dpexact.utility, "expected_error", broken)
    result = CliRunner().invoke(app, ["pmf", "-m", "em", "-e", "1", "-q", "1,0"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: internal error (KeyError): 'internal'"


@pytest.mark.parametrize("args", [["pmf", "-m", "em", "-e", "1e400", "-q", "1,0"],
                                  ["pmf", "-m", "rs-gamma", "-e", "1", "-q", "1,0", "--param", "gamma=1e-300"]])
def test_former_tracebacks_are_now_answers_within_their_bound(args, tmp_path):
    """Extreme but valid parameters: the float answer agrees with the rigorous ball answer."""
    import json

    out = {}
    for backend in ("float", "ball"):
        result, _ = _run([*args, "-b", backend, "--json"], tmp_path)
        assert result.exit_code == 0, result.output
        out[backend] = json.loads(result.stdout)
    bound = out["float"]["error_bound"] + out["ball"]["error_bound"]
    for f, b in zip(out["float"]["probabilities"], out["ball"]["probabilities"]):
        assert abs(f - b) <= max(bound, 1e-12), (f, b)
