"""``dpexact verify`` (certified pure-DP check of one mechanism) and ``dpexact bench-verifier``."""

from __future__ import annotations

import math
from typing import Any, Optional

import typer

from ..cost_limits import DEFAULT_CLI_MAX_SECONDS
from .common import EXIT_FAIL, EXIT_OK, STRICT_INT, VERDICT_EXIT, Progress, emit_json, exit_with, output_option, prepare_output
from .text import report_lines

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("verify")
    def verify_cmd(
        mechanism: str = typer.Option(..., "--mechanism", "-m", help="registry name (pf, em, rnm-exp; see `dpexact mechanisms`) or PATH.py:OBJECT or module:OBJECT (naming a file or module imports (runs) it: use code you trust)"),
        epsilon: Optional[str] = typer.Option(None, "--epsilon", "-e", help="claimed ε, exact: 1, 1/3, 2*log(3) (required unless the mechanism states its own, as RAPPOR does)"),
        sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (default 1)"),
        monotone: bool = typer.Option(False, "--monotone", help="monotone quality (ε/Δ exponent, pf Remark 1)"),
        param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="mechanism parameter name=value"),
        neighbourhood: str = typer.Option("default", "--neighbourhood", help="default | box[:Δ] | box:Δ1,Δ2,.. | monotone[:Δ] | add-remove | replace"),
        search: Optional[list[str]] = typer.Option(None, "--search", help="grid | structured | random | local (repeatable)"),
        n: Optional[int] = typer.Option(None, "--n", "-n", parser=STRICT_INT, help="number of candidates of the grid/random families"),
        values: Optional[str] = typer.Option(None, "--values", help="grid score values, comma-separated"),
        steps: int = typer.Option(1, "--steps", parser=STRICT_INT, help="box lattice resolution (1: vertices and face centres)"),
        delta: Optional[str] = typer.Option(None, "--delta", "-d", help="verify (ε, δ)-DP instead of pure ε-DP: δ in [0, 1), exact"),
        relation: Optional[str] = typer.Option(None, "--relation", help="the peers' query relation: all-differ | one-differ | monotone (default: the mechanism's claim; for a selection mechanism it replaces --neighbourhood by the query-pair families)"),
        tolerance: Optional[float] = typer.Option(None, "--tolerance", help="width asked of the ε bracket of a selection mechanism (default 1e-6: a violated level to 6 digits)"),
        max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds", help="refuse (with the estimate) an --n whose search would take longer"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Certified check of pure ε-DP, or (ε, δ)-DP with --delta, over a finite scope (violations re-checked in ball/exact).
        Exit 0 private (proved over the whole input domain), 1 violated, 3 undecided / inconclusive /
        private-within-scope (e.g. proved on a score box only)."""
        from ..api import verify
        from ..mechanisms.registry import mechanism as build
        from ..verification.replay import evidence_record
        from ..verification.kinds import kind_of
        from ..verification.scope_cost import check_scope_cost, check_scope_counts
        from ..numbers.parse import excerpt
        from .main import dedicated_params, fail, merge_params, parse_params, parse_scores

        if not (math.isfinite(max_seconds) and max_seconds > 0):
            fail(f"--max-seconds must be a positive number of seconds, got {max_seconds!r}")
        target = prepare_output(output)
        params = merge_params(dedicated_params(epsilon, sensitivity, monotone), parse_params(param))
        if "epsilon" not in params:
            from ..mechanisms.registry import available, info

            if mechanism in available() and any(p["name"] == "epsilon" and p["required"] for p in info(mechanism)["parameters"]):
                fail(f"-e/--epsilon is required: {excerpt(mechanism)} states no claimed ε of its own")
        vals = parse_scores(values, "--values") if values is not None else None
        try:
            check_scope_counts(n, steps)  # a count that is not a count is refused before anything is built
            mech = build(mechanism, **params)
            check_scope_cost(kind_of(mech).name, n, max_seconds)  # estimated before the search, refused over budget
            with Progress() as progress:
                v = verify(mech, neighbourhood=neighbourhood, search=search or None, n=n, values=vals, steps=steps,
                           relation=relation, delta=delta, name=mechanism, progress=progress.report,
                           tolerance=tolerance)
            d = v.as_dict()
            record = evidence_record(v, mechanism, params)
        except (ValueError, TypeError) as exc:
            fail(str(exc))
            return
        if record is not None:  # `dpexact replay FILE` re-checks it without a search
            d["replay"] = record
        _report(d, mechanism, as_json, target)

    def _report(d: dict, mechanism: str, as_json: bool, target: Any = None) -> None:
        emit_json(d, as_json, target, command="verify", default=str)
        if not as_json:
            for line in report_lines(d, mechanism):
                typer.echo(line)
        exit_with(VERDICT_EXIT[d["verdict"]])

    @app.command("bench-verifier")
    def bench_verifier_cmd(
        as_json: bool = typer.Option(False, "--json", help="print JSON rows"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Soundness benchmark: the verifier on mechanisms with known ground truth. Exit 1 if a verdict is unsound or a
        non-private mechanism is not flagged."""
        from ..suites.soundness import run_benchmark

        target = prepare_output(output)
        rows = run_benchmark()
        from ..schemas.numbers import with_exact

        emit_json({"rows": [{**r.__dict__, **with_exact("worst_log_ratio", r.worst_log_ratio), "sound": r.sound} for r in rows]},
                  as_json, target, command="bench-verifier", default=str)
        unsound = [r.label for r in rows if not r.sound]
        missed = [r.label for r in rows if r.truth == "not-private" and r.verdict != "violated"]
        code = EXIT_FAIL if unsound or missed else EXIT_OK
        if as_json:
            exit_with(code)
            return
        from rich.table import Table

        from .text import table_console, width

        wide = width() >= 140  # the ground-truth citation; --json has it
        t = Table(title="verifier soundness benchmark")
        cols = ("mechanism", "truth", "verdict", "certified", "worst log-ratio", "ε", "time (s)") + (("ground truth",) if wide else ())
        for col in cols:
            t.add_column(col, overflow="fold")
        for r in rows:
            w = r.worst_log_ratio
            t.add_row(r.label, r.truth, r.verdict, str(r.certified), f"{w:.6g}" if math.isfinite(w) else str(w),
                      f"{r.epsilon:.6g}", f"{r.seconds:.2f}", *((r.citation,) if wide else ()))
        c = table_console()
        c.print(t)
        if not wide:
            c.print("ground-truth citations: at COLUMNS >= 140, or --json")
        c.print(f"unsound: {unsound or 'none'}; non-private not flagged: {missed or 'none'}")
        exit_with(code)
