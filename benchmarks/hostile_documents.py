"""The hostile document run: N seeded ``dpexact replay FILE`` / ``dpexact schema COMMAND --validate FILE`` cases.

    python benchmarks/hostile_documents.py --cases 1200 --seed 1 --json hostile_documents.json

Each case (``tests/support/hostile_documents.py``) is one file made from a real ``verify -o`` document or
replay record, changed by one family — names of code (canary files, ``module:OBJECT``), relabelled ε /
mechanism / blocks, nesting to 200 000 levels, sizes, terminal escapes, NaN / Infinity. Prints the counts
per outcome (code-run, hang, traceback, escape, exit, bad-json, ok) and per family, the exit codes, the CPU
time (total, largest case), and every case that is not ``ok``; exit status 1 if any case is not ``ok``.
Runs in this process, each case in a folder of its own.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.hostile_documents import DocWorkspace, random_doc_case, run_doc_case, summarise  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", dest="json_out", default=None, help="write the summary and the failing cases here")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="dpexact-hostile-documents-"))
    ws = DocWorkspace.make(root / "workspace")
    rng = random.Random(a.seed)
    t0, c0 = time.monotonic(), time.process_time()
    results = []
    for i in range(a.cases):
        case = random_doc_case(rng, ws)
        results.append(run_doc_case(case, root / f"case{i}"))
    summary = summarise(results)
    summary.update({"seed": a.seed, "wall_seconds": round(time.monotonic() - t0, 1),
                    "cpu_seconds": round(time.process_time() - c0, 1)})
    bad = [r for r in results if r.outcome != "ok"]
    print(json.dumps(summary, indent=1))
    for r in bad:
        print(f"{r.outcome}: exit {r.exit_code} {r.case.family} {r.case.args[:3]} {r.case.note!r}: {r.detail[:200]!r}")
    slow = sorted(results, key=lambda r: -r.cpu)[:5]
    print("slowest:", [(r.case.family, r.case.note[:40], round(r.cpu, 2)) for r in slow])
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({**summary, "failing": [
            {"outcome": r.outcome, "exit": r.exit_code, "family": r.case.family, "args": r.case.args, "note": r.case.note,
             "detail": r.detail} for r in bad]}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
