"""``dpexact bench-peers``: the peer verifiers' benchmark suites, verified exactly, beside the peers' times."""

from __future__ import annotations

import json
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_OK, exit_with

__all__ = ["register"]

_KEYS = ("suite", "name", "mechanism", "params", "claimed_epsilon", "truth", "verdict", "certified", "worst_log_ratio",
         "worst_log_ratio_exact", "relative_width_exact", "seconds", "peer_seconds")


def _end(d: dict, key: str) -> str:
    """A bracket end for the table: exact where short, else 9 significant digits (lower rounded down, upper up)."""
    import math

    v = d[key]
    if v is None:
        return ""
    if v == "inf":
        return "unbounded"
    if len(v) <= 12:
        return v
    f = (d["epsilon_bracket"] or {}).get(f"{key}_float")
    if not isinstance(f, float):
        return v[:12]
    q = 10 ** (8 - math.floor(math.log10(abs(f)))) if f else 1
    return f"{(math.floor if key == 'lower' else math.ceil)(f * q) / q:.9g}"


def _width(d: dict) -> str:
    """The bracket's relative width (upper - lower)/upper for the table: 0 for an unbounded witness, "-" for
    no bracket or an open end, and "closed" or "open" beside it."""
    w = d.get("relative_width")
    if w is None:  # no bracket, or an open end (relative_width_exact "inf")
        return "-"
    return f"{w:.1e} {'closed' if d.get('closed') else 'open'}" if w else f"0 {'closed' if d.get('closed') else 'open'}"


def register(app: typer.Typer) -> None:
    @app.command("bench-peers")
    def bench_peers_cmd(
        as_json: bool = typer.Option(False, "--json", help="print a JSON list of rows"),
        suite: Optional[list[str]] = typer.Option(None, "--suite", help="StatDP | DP-Sniper | CheckDP | DP-Auditorium (repeatable)"),
        name: Optional[list[str]] = typer.Option(None, "--name", help="only this peer entry (repeatable)"),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="also write the full rows (with evidence) to this JSON file"),
    ) -> None:
        """Every entry of StatDP, DP-Sniper, CheckDP and DP-Auditorium: exact verdict, worst log-ratio, time, peer time.
        Exit 1 if a row is wrong (a private entry flagged, or a not-private one not refuted)."""
        from ..suites.peers import PEER_SUITES, run_suites
        from .main import fail

        known = sorted({e.suite for e in PEER_SUITES})
        bad = [s for s in suite or [] if s not in known]
        if bad:
            fail(f"--suite: unknown {bad}; choose from {known}")
            return
        if output is not None:
            from ..io import check_writable

            try:
                check_writable(output, "--output")
            except (ValueError, OSError) as exc:
                fail(str(exc))
                return
        import time

        t_cpu, t_wall = time.process_time(), time.perf_counter()
        try:
            rows = run_suites(list(suite) if suite else None, list(name) if name else None)
        except (ValueError, TypeError) as exc:
            fail(str(exc))
            return
        from ..schemas import document
        from ..suites.peers import summary

        counts = summary(rows, time.process_time() - t_cpu, time.perf_counter() - t_wall)
        full = [r.as_dict() | r.bracket_columns() for r in rows]
        wrong = [d["name"] for d in full if d["truth"] == "private" and d["verdict"] == "violated"]
        missed = [d["name"] for d in full if d["truth"] == "not-private" and d["verdict"] not in ("violated", "not-implemented")]
        code = EXIT_FAIL if wrong or missed else EXIT_OK
        if output is not None:
            from ..io import atomic_write_json

            atomic_write_json(output, document("bench-peers", {"rows": full, "summary": counts}), name="--output", indent=1,
                              default=str)
        if as_json:
            short = [{k: d[k] for k in _KEYS if k in d} | {"level": d["level"], "coupling_bound": d["coupling_bound"],
                                                 "lower": d["lower"], "upper": d["upper"], "proof": d["proof"],
                                                 "relative_width": d["relative_width"], "closed": d["closed"],
                                                 **({"level_every_n": d["level_every_n"]} if "level_every_n" in d else {}),
                                                 "epsilon_bracket": d["epsilon_bracket"],
                                                 "truth_source": d["truth_source"], "peer_source": d["peer_source"],
                                                 "note": d["note"]} for d in full]
            typer.echo(json.dumps(document("bench-peers", {"rows": short, "summary": counts}), default=str, allow_nan=False))
            exit_with(code)
            return
        from rich.table import Table

        from .text import table_console, width

        wide = width() >= 160  # the mechanism, certified and level columns; --json has every field
        t = Table(title="peer suites: dpexact exact verdicts (ε claimed) vs the peers' published times")
        cols = ["suite", "peer name"] + (["dpexact"] if wide else []) + ["truth", "verdict"] + (["cert."] if wide else []) \
            + ["lower", "upper", "width"] + (["proof"] if wide else []) + ["s", "peer s"]
        for col in cols:
            t.add_column(col, overflow="fold")
        for d in full:
            cells = {"suite": d["suite"], "peer name": d["name"], "dpexact": d["mechanism"] or "-", "truth": d["truth"],
                     "verdict": d["verdict"], "cert.": str(d["certified"]), "lower": _end(d, "lower"),
                     "upper": _end(d, "upper"), "width": _width(d), "proof": d["proof"] or "", "s": f"{d['seconds']:.2f}",
                     "peer s": "" if d["peer_seconds"] is None else f"{d['peer_seconds']:.0f}"}
            t.add_row(*(cells[c] for c in cols))
        c = table_console()
        if wide:
            c.print(t)
        else:  # one wrapped line per entry: a table of 8 columns would cut every word at 80 columns
            from .text import wrap

            for d in full:
                line = (f"{d['suite']} / {d['name']}: {d['verdict']} (truth {d['truth']}); ε bracket "
                        f"[{_end(d, 'lower') or '-'}, {_end(d, 'upper') or '-'}] (relative width {_width(d)})"
                        + (f" ({d['proof']})" if d["proof"] else "")
                        + ("; level over every n ∞ (witness family)" if d.get("level_every_n") else "")
                        + f"; {d['seconds']:.2f} s" + ("" if d["peer_seconds"] is None else f" (peer {d['peer_seconds']:.0f} s)"))
                for part in wrap(line):
                    c.print(part)
            c.print("the table with the mechanism, certified and proof columns: at COLUMNS >= 160, or --json")
        c.print(f"private entries flagged: {wrong or 'none'}; not-private entries not refuted: {missed or 'none'}")
        c.print(f"closed brackets: {counts['closed']} of {counts['rows']} (relative width <= {counts['closed_width']:g}, or an "
                f"unbounded witness){'; open: ' + ', '.join(counts['open']) if counts['open'] else ''}; "
                f"{counts['cpu_seconds']:.1f} CPU s, {counts['wall_seconds']:.1f} s wall")
        fam = [d["name"] for d in full if d.get("level_every_n")]
        if fam:
            c.print(f"unbounded in n (a witness family proves the level over every n is ∞; the bracket is the stated n's): "
                    f"{len(fam)} rows: {', '.join(fam)}")
        c.print("lower: a certified witness's log-ratio (unbounded: an output impossible under the neighbour); upper: a "
                "proved bound for every input of the proof's domain (method, n it covers, theorem); --json: epsilon_bracket")
        c.print("peer times (s): DP-Sniper rows from its reference log, StatDP rows as measured by the DP-Sniper authors, "
                "CheckDP its 70 s bound; sources per row in --json (peer_source)")
        exit_with(code)
