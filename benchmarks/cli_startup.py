"""CLI start-up: the wall and CPU time of short ``python -m dpexact`` calls, against a floor
measured in the same run (``python -c pass`` and ``python -c "import typer"``), with the load.

    python benchmarks/cli_startup.py [--rounds 5]

Each command runs ``--rounds`` times, interleaved with the floors, after one untimed run; the
table gives the median wall and CPU (user + system of the child) seconds and the ratio of CPU to
the ``import typer`` floor. Bytecode is cached as after an install (``PYTHONDONTWRITEBYTECODE`` is
dropped for the children: with it set, every call recompiles every dpexact module it imports,
~0.1 s more for ``verify``); ``--no-bytecode`` keeps it. ``-X importtime`` shows where a command's
imports go:

    python -X importtime -m dpexact --version 2>&1 | sort -t'|' -k2 -n | tail
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "floor: python -c pass": [sys.executable, "-c", "pass"],
    "floor: import typer": [sys.executable, "-c", "import typer"],
    "dpexact --version": [sys.executable, "-m", "dpexact", "--version"],
    "dpexact schema list": [sys.executable, "-m", "dpexact", "schema", "list"],
    "dpexact verify -m pf -e 1": [sys.executable, "-m", "dpexact", "verify", "-m", "pf", "-e", "1"],
    "dpexact -h": [sys.executable, "-m", "dpexact", "-h"],
}


def _one(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE (recompile every call)")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    for cmd in COMMANDS.values():  # untimed: writes the bytecode caches
        _one(cmd, env)
    load0 = os.getloadavg()
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in COMMANDS}
    for _ in range(args.rounds):  # interleaved: a load change hits every command alike
        for name, cmd in COMMANDS.items():
            runs[name].append(_one(cmd, env))
    load1 = os.getloadavg()
    floor = statistics.median(c for _, c in runs["floor: import typer"])
    cache = "recompiled every call" if args.no_bytecode else "bytecode cached"
    print(f"load average {load0[0]:.2f} -> {load1[0]:.2f}; {args.rounds} rounds; medians; {cache}")
    print(f"{'command':<30} {'wall s':>7} {'cpu s':>7} {'cpu / typer floor':>18}")
    for name, rs in runs.items():
        wall = statistics.median(w for w, _ in rs)
        cpu = statistics.median(c for _, c in rs)
        print(f"{name:<30} {wall:7.3f} {cpu:7.3f} {cpu / floor:18.2f}")


if __name__ == "__main__":
    main()
