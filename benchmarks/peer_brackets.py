"""The ε bracket of every peer-suite row (`dpexact bench-peers`) as a Markdown table, with the closed count.

    python benchmarks/peer_brackets.py [--output benchmarks/results/peer_brackets.md] [--json rows.json]

Columns: suite, peer name, dpexact mechanism, claimed ε, verdict, bracket [lower, upper] (the upper end's
exact expression where it has one), relative width (upper - lower)/upper ("0" for an unbounded witness:
the level is ∞ and attained), the proof's method and domain, seconds. A row is *closed* when its relative
width is at most 1e-6 under a proof over the whole domain, or its witness is unbounded (issue 31). The
footer gives the closed count, the run's CPU and wall-clock seconds and the load average before and
after (the wall clock depends on the load; CPU time hardly). Results are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import time


def _end(x, exact=None, down: bool = False) -> str:
    """An end: its exact expression where short, else 12 significant digits rounded outward (a lower end
    down, an upper end up), so the printed bracket still contains the level."""
    import math

    if x is None:  # an infinite end is null beside its exact text "inf" (one number type per JSON field)
        return "∞" if exact == "inf" else "—"
    if exact and len(exact) <= 16:
        return exact
    if not x:
        return "0"
    q = 10 ** (11 - math.floor(math.log10(abs(x))))
    return f"{(math.floor if down else math.ceil)(x * q) / q:.12g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main() -> None:
    from dpexact.suites.peers import run_suites, summary

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", help="write the Markdown table here (default: print it)")
    ap.add_argument("--json", help="also write the rows (with their brackets) as JSON")
    a = ap.parse_args()
    load0 = os.getloadavg()
    c0, w0 = time.process_time(), time.perf_counter()
    rows = run_suites()
    counts = summary(rows, time.process_time() - c0, time.perf_counter() - w0)
    load1 = os.getloadavg()
    lines = ["| suite | peer name | mechanism | claimed ε | verdict | bracket [lower, upper] | relative width | proof "
             "(method; domain) | s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r.epsilon_bracket or {}
        cols = r.bracket_columns()
        up = b.get("upper") or {}
        lo = b.get("lower") or {}
        width = cols["relative_width"]
        wtxt = "—" if width is None else (f"{width:.1e}" if width else "0")
        proof = "—" if not up else f"{up['method']}; {up.get('domain_text', '')}"
        lower = "∞" if lo.get("unbounded") else _end(b.get("lower_float"), lo.get("lower"), down=True)
        upper = "—" if not up else _end(b.get("upper_float"), up.get("upper"))
        lines.append(f"| {r.suite} | {r.name} | {r.mechanism or '—'} | {r.claimed_epsilon} | {r.verdict} | "
                     f"[{lower}, {upper}] | {wtxt}{' closed' if cols['closed'] else ' open'} | {_cell(proof)} | {r.seconds:.2f} |")
    lines.append("")
    lines.append(f"closed brackets: {counts['closed']} of {counts['rows']} (relative width <= {counts['closed_width']:g}, "
                 f"or an unbounded witness){'; open: ' + ', '.join(counts['open']) if counts['open'] else ''}")
    lines.append(f"run: {counts['cpu_seconds']:.1f} CPU s, {counts['wall_seconds']:.1f} s wall; load average "
                 f"{load0[0]:.2f} before, {load1[0]:.2f} after (2 cores); rows of one law share its verdict and time")
    text = "\n".join(lines) + "\n"
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(f"# bench-peers: ε brackets of the peer suites ({time.strftime('%Y-%m-%d')})\n\n"
                    f"Made by `python benchmarks/peer_brackets.py --output {a.output}`.\n\n" + text)
    else:
        print(text, end="")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"rows": [r.as_dict() | r.bracket_columns() for r in rows], "summary": counts}, f, indent=1,
                      default=str)


if __name__ == "__main__":
    main()
