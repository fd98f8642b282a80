"""The hostile command-line run: N seeded cases over every option of every command.

    python benchmarks/hostile_cli.py --cases 2000 --seed 1 --json hostile.json

Each case (``tests/support/hostile_cli.py``) is one command line with one or two options replaced by
hostile values — counts, numbers, score lists, boxes, choices, FIFOs / device nodes / long names as
paths, ``module:OBJECT`` names of non-mechanism callables with the ``-p`` keywords that would make them
act. Prints the counts per outcome (code-run, hang, traceback, multi-line, internal, long-valid, ok), the slowest
cases, and every case that is not ``ok``; exit status 1 if any case ran code, hung or printed a
traceback. Runs in this process (a case is ~0.1–5 s); ``--from`` / ``--cases`` split a run.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.hostile_cli import HANG_SECONDS, Workspace, aliases_table, options, random_case, run_case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None, help="write every outcome to this file")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    table, aliases = options(), aliases_table()
    counts: collections.Counter = collections.Counter()
    bad, times, rows = [], [], []
    slow = 0
    per_option: collections.Counter = collections.Counter()
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dpexact-hostile-") as tmp:
        ws = Workspace(Path(tmp))
        for i in range(args.cases):
            case = random_case(rng, ws, table, aliases)
            out = run_case(case, ws)
            counts[out.kind] += 1
            per_option[(case.command, case.option.split("=")[0])] += 1
            times.append((out.seconds, case.args))
            slow += out.seconds > HANG_SECONDS
            rows.append({"i": i, "command": case.command, "option": case.option, "args": case.args, "kind": out.kind,
                         "exit_code": out.exit_code, "seconds": round(out.seconds, 3), "message": out.message})
            if out.kind != "ok":
                bad.append(rows[-1])
                print(f"[{i}] {out.kind}: {' '.join(a[:80] for a in case.args)} -> {out.message}", flush=True)
            if (i + 1) % 100 == 0:
                print(f"{i + 1} cases, {dict(counts)}, {time.perf_counter() - t_start:.0f} s", flush=True)
    times.sort(key=lambda t: -t[0])
    covered = {(c, o) for c, o, _ in table}
    print(f"\n{args.cases} cases in {time.perf_counter() - t_start:.0f} s (load {os.getloadavg()[0]:.1f}): {dict(counts)}")
    print(f"wall time over {HANG_SECONDS} s (not hangs: CPU under it; the machine is shared): {slow} cases")
    print(f"options covered: {len({k for k in per_option})} option picks over {len(covered)} (command, option) pairs")
    print("slowest:", [(round(s, 1), " ".join(a)[:100]) for s, a in times[:5]])
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": counts, "hang_seconds": HANG_SECONDS, "cases": rows}, indent=1))
    return 1 if counts["code-run"] or counts["hang"] or counts["traceback"] else 0


if __name__ == "__main__":
    sys.exit(main())
