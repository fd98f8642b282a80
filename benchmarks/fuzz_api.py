"""Fuzz corpus (not a test): hostile and extreme API inputs across every registered mechanism.

Usage:
    python benchmarks/fuzz_api.py [--cases 2000] [--seed 16] [--timeout 10] [--no-strings]

Draws a fixed-seed corpus of cases (``random_case`` of tests/support/api_fuzz.py: odd ε,
parameters, score vectors and backends; every registered mechanism appears), runs each with a
per-case time limit and prints the counts of clear errors, correct results and wrong results,
then the wrong cases (target: 0 wrong).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import dpexact
from dpexact.mechanisms.registry import _factory
# the fuzz oracle is test support (tests/support/api_fuzz.py), not part of the library
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.api_fuzz import random_case, run_case  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--no-strings", action="store_true", help="leave out numeric strings (the exact parser's domain)")
    a = ap.parse_args()
    # the score-vector selection mechanisms: the oracle checks a pmf over candidates 0..n-1
    names = [n for n in dpexact.available() if getattr(_factory(n), "output_kind", "selection") == "selection"]
    rng = random.Random(a.seed)
    counts: Counter = Counter()
    per_mech: dict[str, Counter] = {n: Counter() for n in names}
    wrong = []
    t0 = time.perf_counter()
    for i in range(a.cases):
        # every mechanism in turn, the rest of the case at random
        case = random_case(rng, [names[i % len(names)]], strings=not a.no_strings)
        out = run_case(case, timeout=a.timeout)
        counts[out.kind] += 1
        per_mech[case.mechanism][out.kind] += 1
        if out.kind == "wrong":
            wrong.append((case, out))
            print(f"WRONG {case}: {out.reason}", flush=True)
    print(f"\n{a.cases} cases, seed {a.seed}, {time.perf_counter() - t0:.0f} s")
    print("mechanism\tclear-error\tcorrect\twrong")
    for n in names:
        c = per_mech[n]
        print(f"{n}\t{c['clear-error']}\t{c['correct']}\t{c['wrong']}")
    print(f"TOTAL\t{counts['clear-error']}\t{counts['correct']}\t{counts['wrong']}")


if __name__ == "__main__":
    main()
