"""Hostile command lines for every option of every ``dpexact`` command (a seeded generator).

A case is one command line: a quick valid base run of a command with one or two of its options
(or its argument) replaced by a value drawn from the pool of that option's family — counts,
exact numbers, score lists and boxes, choices, file paths (FIFOs, device nodes, directories,
names too long), mechanism names (registry names and ``module:OBJECT`` names of non-mechanism
callables such as ``os:system``, ``shutil:rmtree``, ``subprocess:run``, ``builtins:exec``) and
``-p`` keywords that would make those callables act. Its outcome is

* ``code-run``  — a sentinel file appeared, the victim directory lost its file, the sentinel
  environment variable was set, or a FIFO / device node given as a path is no longer one;
* ``hang``      — the case used more than :data:`HANG_SECONDS` of CPU time, or waited more than
  :data:`WALL_SECONDS` of wall time (blocked: a FIFO without writer, a socket). CPU time, because
  the machine is shared: wall time there measures the neighbours (``seconds`` records it anyway);
* ``traceback`` — a Python traceback in the output, or an exception other than ``SystemExit``;
* ``multi-line`` — a non-zero exit whose own ``error:`` message spans several lines;
* ``internal``  — ``error: internal error`` (a defect reported cleanly, counted separately);
* ``long-valid`` — a valid ``check`` of many claims (``--claim '*'``, ``--paper pf``): minutes of
  requested work, stopped at the limit and counted apart from hangs;
* ``ok``        — anything else (a result, or a one-line refusal).

Used by ``tests/test_cli_hostile_options.py`` (a seeded sample) and
``benchmarks/hostile_cli.py`` (the full run). Paths are all made inside the case's own
temporary folder: no system file or device is ever named.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Case", "Workspace", "BASE", "LONG", "options", "random_case", "run_case", "HANG_SECONDS", "WALL_SECONDS"]

#: a case using more CPU seconds than this is a hang
HANG_SECONDS = 20.0
#: a case waiting longer than this (wall clock) is a hang even without using CPU
WALL_SECONDS = 120.0
SENTINEL = "SENTINEL_hostile"

#: quick valid runs of each command; ``{spec}`` and ``{store}`` are filled in per workspace
BASE: dict[str, list[str]] = {
    "pmf": ["pmf", "-m", "pf", "-e", "1", "-q", "1,0"],
    "verify": ["verify", "-m", "em", "-e", "1", "--search", "grid", "--n", "2", "--values", "0,1"],
    "optimal": ["optimal", "--n", "2", "--k", "1", "-e", "1", "--max-seconds", "10"],
    "ldp": ["ldp", "-m", "grr", "-N", "3", "-e", "1", "--max-seconds", "10"],
    "optimal-ldp": ["optimal-ldp", "-N", "3", "-e", "1", "--max-seconds", "10"],
    "delta": ["delta", "--gaussian", "1", "-e", "1"],
    "curve": ["curve", "-m", "grr", "-e", "1", "-p", "k=3", "--renyi", "2"],
    "account": ["account", "{acc}", "-e", "1"],
    "prob": ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1"],
    "conform": ["conform", "em", "-e", "1", "--draws", "200", "--max-seconds", "10"],
    "check": ["check", "--quick", "--claim", "pf.lemma.7"],
    "sweep": ["sweep", "{spec}", "--store", "{store}", "--workers", "0"],
    "mechanisms": ["mechanisms"],
    "bench-peers": ["bench-peers", "--name", "noisy_max_v1a"],
    "replay": ["replay", "{witness}"],
    "schema": ["schema", "verify"],
    "bench": ["bench", "--quick"],
    "bench-verifier": ["bench-verifier"],
    "data": ["data", "--help"],  # a group: its fetch downloads, so no fetch is ever fuzzed here
    "audit": ["audit", "--help"],  # a group: its subcommands draw from installed libraries
    "bench-audit": ["bench-audit"],
}
#: commands whose base run is a whole benchmark: only values refused before any work are tried
LONG = {"bench", "bench-verifier"}

_HOSTILE = [
    f"__import__('os').system('touch {SENTINEL}')", f"$(touch {SENTINEL})", f"`touch {SENTINEL}`",
    "().__class__.__bases__[0].__subclasses__()", f"exec(\"open('{SENTINEL}', 'w')\")", "lambda: 1", "[1,2]",
    "1/0", "10**10**10", "9**9**9**9", "factorial(10**9)", "1e999999999", "0x10", "nan", "-inf", "inf", "x", "log(0)",
    "exp(10**6)", "\x00", "1" * 5000, "(" * 300 + "1" + ")" * 300, "-" * 3000 + "1", "", " ", "é", "\u202e1", "%s%n",
    "{0}", "${HOME}", "../../x", "--help", "-e", ",,,", "1:2", "a=b", "1e308", "-1e-308", "9" * 40, "1/3", "0.1",
    "2*log(3)", "exp(1000)", "-1", "0",
]
_COUNTS = ["0", "-1", "1", "2", "7", "100", "10000", "1000000", "1000000000", "1000000000000", "9" * 30, "10**9",
           "1e3", "3.5", "", "0x10", "\u0663", "1_000", " 5", "+3"]
_NUMBERS = ["1", "0", "-1", "1e-300", "1e300", "10**100", "2*log(3)", "nan", "inf", "1/0", "exp(1000)", "0.1", "1e-20",
            "1000", "3/7", "sqrt(2)", "pi"]
_SCORES = ["1,0", "", ",", "1e308,-1e308", "nan,1", "1/3,2/3", "0," * 5000 + "1", "1" * 5000, "0,1,2,3,4,5,6,7",
           "1", "-inf,0", "2*log(3),0", "10**100,0", "1e-320,0", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"]
_BOXES = ["0:1", "", ":", "1:", "1:0", "-inf:inf", "0:1e308", "0:1,1:2", "nan:1", "0:1," * 2000 + "0:1", "1/3:2/3",
          "-1e-300:1e-300", "0:0", "a:b"]
_CALLABLES = ["os:system", "shutil:rmtree", "subprocess:run", "subprocess:Popen", "subprocess:check_output",
              "builtins:exec", "builtins:eval", "builtins:open", "os:remove", "os:environ.update", "os:_exit", "sys:exit",
              "time:sleep", "os:makedirs", "shutil:copy", "pathlib:Path", "pathlib:Path.touch", "importlib:import_module",
              "functools:partial", "os:kill", "signal:raise_signal", "builtins:print", "os:environ", "os:path",
              "dpexact:mechanism", "dpexact.io:atomic_write_text", "dpexact.mechanisms.loader:load_mechanism"]
_REGISTRY = ["pf", "em", "rnm-exp", "laplace", "grr", "svt1", "gap-svt", "no-such", "PF", "pf,em", ":", "a:", ":b",
             "x.py:Y", "/nonexistent/x.py:Y"]
_CHOICES: dict[str, list[str]] = {
    "--backend": ["float", "mp", "ball", "exact", "ball:100000000", "mp:0", "ball:-1", "mp:10000000", "exact:3"],
    "--method": ["quadrature", "recurrence", "auto", "generation", "hipo", "simplex", "ipm", "pdlp", "nope"],
    "--neighbourhood": ["box:2", "garbage:xyz", "box:1e308", "hist:", "linf-box", "box:0", "box:-1", "replace"],
    "--search": ["grid", "structured", "random", "local", "x", "grid,random"],
    "--relation": ["one", "any", "box", "nope"],
    "--boundary": ["clip", "wrap", "nope"],
    "--loss": ["absolute", "squared", "zero-one", "nope"],
    "--objective": ["worst", "average", "nope"],
    "--reading": ["probability", "nope"],
    "--m-rule": ["optimal", "nope"],
    "--verdict": ["holds", "refuted", "inconclusive", "x"],
    "--severity": ["false-statement", "wrong-number", "erratum", "not-reproducible", "x", ""],
    "--paper": ["pf", "adp", "err", "brr", "hetsel", "x", "*"],
    "--claim": ["pf.lemma.7", "*", "pf.*", "no-such", "../*", "pf.lemma.7*"],
    "--suite": ["StatDP", "DP-Sniper", "CheckDP", "DP-Auditorium", "x"],
    "--name": ["noisy_max_v1a", "x", "*"],
    "--output-part": ["FTT", "0", "-1", "99", "x"],
    "--scheduler": ["garbage", "", "tcp://", "inproc://x", "tcp://256.1.1.1:99999"],
}
_PARAMS = [f"command=touch {SENTINEL}", "path={victim}", f"args=touch {SENTINEL}", f"source=open('{SENTINEL}','w')",
           "status=3", "seconds=30", "name={sentinel}", "gamma=__import__('os')", "epsilon=1000", "x", "=", "a=b=c",
           "self=1", "p=1/2", "gamma=1/2", "file={sentinel}", "shell=true"]
_PATH_KINDS = ["fifo", "null-device", "zero-device", "directory", "empty", "long-name", "deep", "missing-parent",
               "file-as-parent", "regular", "symlink-to-file", "dangling-symlink"]
COUNT_OPTIONS = {"--n", "--k", "--domain", "--draws", "--seed", "--steps", "--workers", "--compositions", "--prec",
                 "--brr-m", "--max-seconds"}
NUMBER_OPTIONS = {"--epsilon", "--sensitivity", "--delta", "--gaussian", "--laplace"}
SCORE_OPTIONS = {"--scores", "--values", "--p", "--q", "--p-pmf", "--q-pmf"}
PATH_OPTIONS = {"--output", "--report", "--plot", "--store", "--data", "--catalogue", "spec_path", "file", "--validate"}
MECHANISM_OPTIONS = {"--mechanism", "--mechanisms", "mechanism_arg"}
INPUT_OPTIONS = {"--data", "--catalogue", "spec_path", "file", "--validate"}
#: arguments (positional), by parameter name: a value replaces the base's own at position 1
POSITIONAL = {"mechanism_arg", "spec_path", "file", "command"}


@dataclass
class Case:
    """One command line; ``paths`` maps placeholder kinds to the nodes the case makes."""

    command: str
    option: str
    value: str
    args: list[str]
    fifos: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    case: Case
    kind: str
    seconds: float
    exit_code: int | None
    message: str


def options() -> list[tuple[str, str, bool]]:
    """(command, option, is_flag) for every parameter of every command (arguments by name)."""
    import typer.main

    from dpexact.cli.main import app

    group = typer.main.get_command(app)
    out = []
    for name, cmd in sorted(group.commands.items()):
        for p in cmd.params:
            out.append((name, max(p.opts, key=len) if p.opts else p.name, bool(getattr(p, "is_flag", False))))
    return out


class Workspace:
    """A folder with a victim directory, a spec, and fresh nodes (FIFOs, device copies) per case."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.victim = root / "victim"
        self.spec = root / "spec.toml"
        self.spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = "1"\nscores = "1,0"\n')
        self.acc = root / "account.toml"  # an accounting spec (exact route: fast)
        self.acc.write_text('[[event]]\nkind = "randomized-response"\nepsilon = "log(3)"\ncount = 4\n')
        self.count = 0
        self.nodes: list[tuple[Path, str]] = []
        self.witness = root / "witness.json"  # a verify document, for replay
        from typer.testing import CliRunner

        from dpexact.cli.main import app

        CliRunner().invoke(app, ["verify", "-m", "pf", "-e", "1/2", "--n", "2", "--values", "0,1", "--search", "grid",
                                 "-p", "monotone=true", "-o", str(self.witness)])
        self.reset()

    @property
    def sentinel(self) -> Path:
        return self.root / SENTINEL

    def reset(self) -> None:
        self.victim.mkdir(exist_ok=True)
        (self.victim / "keep.txt").write_text("keep")

    def path(self, kind: str) -> tuple[str, list[str]]:
        """A path of ``kind`` made for one case (and the FIFOs that need a reader)."""
        self.count += 1
        d = self.root / f"c{self.count}"
        d.mkdir()
        if kind == "fifo":
            p = d / "out.fifo"
            os.mkfifo(p)
            self.nodes.append((p, "fifo"))
            return str(p), [str(p)]
        if kind in ("null-device", "zero-device"):
            p = d / kind
            try:
                os.mknod(p, stat.S_IFCHR | 0o666, os.makedev(1, 3 if kind == "null-device" else 5))
            except (PermissionError, OSError):  # not root: a FIFO stands in
                os.mkfifo(p)
                self.nodes.append((p, "fifo"))
                return str(p), [str(p)]
            self.nodes.append((p, "chr"))
            return str(p), []
        if kind == "directory":
            return str(d), []
        if kind == "empty":
            return "", []
        if kind == "long-name":
            return str(d / ("x" * 300 + ".json")), []
        if kind == "deep":
            return str(d.joinpath(*["sub"] * 40, "f.json")), []
        if kind == "missing-parent":
            return str(d / "a" / "b" / "out.json"), []
        if kind == "file-as-parent":
            (d / "f").write_text("x")
            return str(d / "f" / "out.json"), []
        if kind == "regular":
            (d / "r.json").write_text("{}")
            return str(d / "r.json"), []
        if kind == "symlink-to-file":
            (d / "t.json").write_text("{}")
            (d / "l.json").symlink_to(d / "t.json")
            return str(d / "l.json"), []
        (d / "dangling").symlink_to(d / "nowhere" / "x.json")
        return str(d / "dangling"), []

    def violations(self) -> list[str]:
        """What a case must never do (module docstring: ``code-run``)."""
        out = []
        if self.sentinel.exists():
            out.append(f"{SENTINEL} was created")
        if not (self.victim / "keep.txt").exists():
            out.append("the victim directory was emptied")
        if SENTINEL in os.environ:
            out.append(f"${SENTINEL} was set")
        for p, kind in self.nodes:
            try:
                mode = os.lstat(p).st_mode
            except FileNotFoundError:
                out.append(f"{p} was removed")
                continue
            if not (stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)):
                out.append(f"{p} is no longer a {kind}")
        return out


def _value(rng: random.Random, command: str, option: str, ws: Workspace) -> tuple[str, list[str]]:
    if option in PATH_OPTIONS:
        # a long command runs its whole benchmark on a valid path: only paths refused before any work
        kinds = [k for k in _PATH_KINDS if command not in LONG or k in ("directory", "long-name", "file-as-parent")
                 or (k == "empty" and option != "--data")]
        path, fifos = ws.path(rng.choice(kinds))
        return path, ([] if option in INPUT_OPTIONS else fifos)  # an input FIFO gets no writer: it must not wait
    if option in MECHANISM_OPTIONS:
        pool = _CALLABLES if rng.random() < 0.7 else _REGISTRY
        v = rng.choice(pool)
        if option == "--mechanisms" and rng.random() < 0.5:
            v = f"pf,{v}"
        return v, []
    if option == "--param":
        return rng.choice(_PARAMS).format(victim=ws.victim, sentinel=ws.sentinel), []
    if option == "--workers":  # 0 runs serially; a valid count above 1 starts a Dask cluster, timed elsewhere
        return rng.choice(["0", "1", "-1", "100000", "9" * 30, "", "x", "1e3", "1_000"]), []
    if option in COUNT_OPTIONS:
        return rng.choice(_COUNTS + _HOSTILE[:12]), []
    if option in NUMBER_OPTIONS:
        return rng.choice(_NUMBERS + _HOSTILE), []
    if option in SCORE_OPTIONS:
        return rng.choice(_SCORES + _HOSTILE), []
    if option == "--box":
        return rng.choice(_BOXES + _HOSTILE), []
    if option in _CHOICES:
        return rng.choice(_CHOICES[option] + _HOSTILE[:10]), []
    return rng.choice(_HOSTILE), []


def _replace(base: list[str], option: str, value: str, aliases: dict[str, tuple[str, ...]]) -> list[str]:
    names = aliases.get(option, (option,))
    out, i = [], 0
    while i < len(base):
        if base[i] in names:
            i += 2
            continue
        out.append(base[i])
        i += 1
    return out


def random_case(rng: random.Random, ws: Workspace, table: list[tuple[str, str, bool]],
                aliases: dict[tuple[str, str], tuple[str, ...]]) -> Case:
    """One case: a command, one option replaced (a second one in a fifth of the cases)."""
    command, option, flag = rng.choice([t for t in table if not (t[0] in LONG and t[1] not in PATH_OPTIONS)])
    base = [a.format(spec=ws.spec, store=ws.root / "store", witness=ws.witness, acc=ws.acc) for a in BASE.get(command, [command])]
    fifos: list[str] = []
    picks = [(option, flag)]
    if rng.random() < 0.2 and command not in LONG:
        picks.append(rng.choice([(o, f) for c, o, f in table if c == command]))
    args = base
    shown = []
    for opt, is_flag in picks:
        if is_flag:
            args = args + [opt]
            shown.append(opt)
            continue
        value, new_fifos = _value(rng, command, opt, ws)
        fifos += new_fifos
        if opt in POSITIONAL:  # replaces the base's own
            args = args[:1] + [value] + args[2:]
        else:
            if command == "conform" and opt == "--mechanism" and args[1:2] == ["em"]:
                args = args[:1] + args[2:]  # the mechanism given once, as the option
            args = _replace(args, opt, value, {opt: aliases.get((command, opt), (opt,))}) + [opt, value]
            if opt in ("--mechanism", "mechanism_arg") and rng.random() < 0.6:  # the keywords that make callables act
                args += ["--param", rng.choice(_PARAMS).format(victim=ws.victim, sentinel=ws.sentinel)]
        shown.append(f"{opt}={value[:60]!r}")
    return Case(command, " ".join(shown), "", args, fifos)


class _Hang(BaseException):
    """Raised by the alarm (not an Exception, so nothing swallows it)."""


def _drain(path: str, stop: threading.Event) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        while not stop.is_set():
            try:
                if not os.read(fd, 1 << 16):
                    time.sleep(0.01)
            except BlockingIOError:
                time.sleep(0.01)
    finally:
        os.close(fd)


def run_case(case: Case, ws: Workspace, hang_seconds: float = HANG_SECONDS) -> Outcome:
    """Run ``case`` in-process (typer's CliRunner) under an alarm; classify it (module docstring)."""
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    stop = threading.Event()
    readers = [threading.Thread(target=_drain, args=(f, stop), daemon=True) for f in case.fifos]
    for r in readers:
        r.start()

    def on_alarm(signum: int, frame: Any) -> None:
        raise _Hang()

    old_cwd = os.getcwd()
    os.chdir(ws.root)
    previous = signal.signal(signal.SIGALRM, on_alarm), signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
    signal.setitimer(signal.ITIMER_PROF, hang_seconds)  # this process's CPU time (all its threads)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        result = CliRunner().invoke(app, case.args)
        hung = False
    except _Hang:
        result, hung = None, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, previous[0])
        signal.signal(signal.SIGPROF, previous[1])
        os.chdir(old_cwd)
        stop.set()
        for r in readers:
            r.join(timeout=2)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    bad = ws.violations()
    os.environ.pop(SENTINEL, None)
    ws.reset()
    if ws.sentinel.is_dir() and not ws.sentinel.is_symlink():
        import shutil

        shutil.rmtree(ws.sentinel)
    elif ws.sentinel.exists() or ws.sentinel.is_symlink():
        ws.sentinel.unlink()
    if bad:
        return Outcome(case, "code-run", seconds, None, "; ".join(bad))
    if hung or cpu > hang_seconds:
        if _whole_catalogue(case.args):  # a valid request for minutes of work (the README's first command)
            return Outcome(case, "long-valid", seconds, None, "a valid run of many claims, stopped at the limit")
        return Outcome(case, "hang", seconds, None, f"more than {hang_seconds} CPU s or {WALL_SECONDS} wall s")
    text = result.output
    if "Traceback" in text or (result.exception is not None and not isinstance(result.exception, SystemExit)):
        return Outcome(case, "traceback", seconds, result.exit_code, repr(result.exception)[:300] + text[-300:])
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()] if result.exit_code else []
    errors = [ln for ln in lines if ln.startswith("error:")]
    if errors and "internal error" in errors[-1]:
        return Outcome(case, "internal", seconds, result.exit_code, errors[-1][:300])
    if errors and (len(errors) > 1 or lines[-1] != errors[0]):  # our message: one line, the last one
        return Outcome(case, "multi-line", seconds, result.exit_code, "\n".join(lines[-3:])[:300])
    return Outcome(case, "ok", seconds, result.exit_code, (errors[-1] if errors else "")[:400])


def _whole_catalogue(args: list[str]) -> bool:
    """``check`` selecting many claims: ``--claim`` with a wildcard, or ``--paper`` of a known paper."""
    if args[:1] != ["check"]:
        return False
    values = {(a, b) for a, b in zip(args, args[1:])}
    return any(o == "--claim" and v.endswith("*") for o, v in values) or any(
        o == "--paper" and v in ("pf", "adp", "err", "brr", "hetsel") for o, v in values) and not any(
        o == "--claim" and not v.endswith("*") for o, v in values)


def aliases_table() -> dict[tuple[str, str], tuple[str, ...]]:
    """Every spelling of each option, so that the base's own value is dropped before the new one."""
    import typer.main

    from dpexact.cli.main import app

    group = typer.main.get_command(app)
    out = {}
    for name, cmd in group.commands.items():
        for p in cmd.params:
            if p.opts:
                out[(name, max(p.opts, key=len))] = tuple(p.opts)
    return out
