"""``dpexact optimal``: the optimal regular mechanism on Q(n, k) (pf App. D) and optimality ratios."""

from __future__ import annotations

from typing import Any, Optional

import typer

from ..cost_limits import DEFAULT_CLI_MAX_SECONDS
from .common import STRICT_INT, Progress, emit_json, output_option, prepare_output


def register(app: typer.Typer) -> None:
    @app.command()
    def optimal(
        n: int = typer.Option(..., "--n", "-n", parser=STRICT_INT, help="number of candidates"),
        k: int = typer.Option(..., "--k", parser=STRICT_INT, help="lattice depth: scores 0, -2Δ, …, -2Δk"),
        epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 0.5, log(2), log(3/2)"),
        sensitivity: str = typer.Option("1", "--sensitivity", help="Δ"),
        mechanisms: str = typer.Option("pf,em", "--mechanisms", "--mechanism", "-m", help="comma-separated registry names or PATH.py:OBJECT / module:OBJECT, for ratios (naming a file or module imports (runs) it: use code you trust)"),
        boundary: str = typer.Option("clip", "--boundary", help="clip | drop: q' outside Q(n,k)"),
        method: str = typer.Option("auto", "--method", help="auto | generation | simplex | ipm | hipo (needs dpexact[hipo]) | pdlp | forest-ipm | forest-cg"),
        crossover: Optional[bool] = typer.Option(None, "--crossover/--no-crossover",
                                                 help="hipo, pdlp, ipm: turn the interior solution into a vertex "
                                                      "(default: only with --certify, whose certificate needs one; "
                                                      "otherwise the interior solution with its proven interval)"),
        certify: bool = typer.Option(False, "--certify", help="exact certificate (e^-ε rational) or ball enclosure"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
        max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds",
                                          help="budget in CPU seconds (this process, all threads): problems estimated to "
                                               "need more are refused, and HiGHS stops once the solve has spent it "
                                               "(checked every iteration; pdlp and the forest routes: a wall-clock limit). A loaded machine "
                                               "makes a solve slower, not a failure"),
    ) -> None:
        """Solve the LP for the optimal regular mechanism and print optimality ratios (>= 1; 1 = optimal)."""
        from ..lp.summary import optimal_summary
        from .text import unbroken, wrap

        if not crossover and method in ("simplex", "generation"):  # an option that cannot apply is refused
            typer.echo(f"error: --no-crossover: the {method} route returns a vertex already (crossover applies to "
                       "ipm, hipo, pdlp and auto)", err=True)
            raise typer.Exit(code=2)
        target = prepare_output(output)
        names = [s.strip() for s in mechanisms.split(",") if s.strip()]
        try:
            with Progress() as progress:
                out = optimal_summary(n, k, epsilon, sensitivity=sensitivity, mechanisms=names, boundary=boundary,
                                      method=method, crossover=crossover, certify=certify, max_seconds=max_seconds,
                                      progress=progress.report)
        except (ValueError, TypeError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2)
        except (RuntimeError, ArithmeticError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1)
        emit_json(out, as_json, target, command="optimal")
        if as_json:
            return
        from rich.console import Console
        from rich.table import Table

        c = Console(markup=False, highlight=False)
        lo, hi = out["optimal_total_error_bounds"]
        ratios, ratio_bounds, exact_ratios = out["ratios"], out["ratio_error_bounds"], out.get("ratios_exact", {})
        # the LP's size was noted on stderr while it was built (and is in --json): the header is said once
        c.print(f"Q({n}, {k}), ε = {epsilon}, Δ = {sensitivity}, boundary = {boundary}")
        for line in wrap(f"solved by {'dpexact' if out['method'].startswith('forest') else 'HiGHS'} ({out['method']}"
                         f"{'' if out['vertex'] else ', interior point'}) in {out['seconds']:.3f} s (solver time); "
                         f"optimum {unbroken('Σ_q E[err(M*, q)] = ' + format(out['optimal_total_error'], '.15g'))}, "
                         f"proven in {unbroken(f'[{lo:.15g}, {hi:.15g}]')}"):
            c.print(line)
        if "ratios_exact" in out:
            exact = out["optimal_total_error_exact"]
            c.print(f"exact certificate: {'OK, optimum = ' + exact if exact is not None else out['certificate_failure']}")
        enclosure = out.get("optimal_total_error_enclosure")
        if enclosure is not None:
            c.print(f"rigorous enclosure of the optimum: [{enclosure[0]:.17g}, {enclosure[1]:.17g}]")
        for line in wrap(f"optimality ratio {unbroken('Σ E[err(M)] / Σ E[err(M*)]')} (>= 1, 1 = optimal):"):
            c.print(line)
        t = Table()
        t.add_column("mechanism")
        t.add_column("ratio")
        t.add_column("± bound")
        for name in names:
            t.add_row(name, f"{ratios[name]:.15g}" + (f"  (exact {exact_ratios[name]})" if name in exact_ratios and len(exact_ratios[name]) < 40 else ""),
                      f"{ratio_bounds[name]:.2g}")
        c.print(t)
