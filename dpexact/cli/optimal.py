"""``dpexact optimal``: the optimal regular mechanism on Q(n, k) (pf App. D) and optimality ratios."""

from __future__ import annotations

import time
from typing import Any, Optional

import typer

from ..cost_limits import DEFAULT_CLI_MAX_SECONDS
from .common import STRICT_INT, emit_json, output_option, prepare_output


class _Progress:
    """A spinner with elapsed time on stderr (stdout stays clean for ``--json``), plus
    one-line notes (LP size, solve time) printed on stderr whether or not it is a terminal."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True, markup=False, highlight=False)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                 console=self.console, transient=True)
        self.task: Any = None

    def __enter__(self) -> "_Progress":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def step(self, description: str) -> None:
        if self.task is None:
            self.task = self.progress.add_task(description, total=None)
        else:
            self.progress.update(self.task, description=description)

    def note(self, line: str) -> None:
        self.progress.console.print(line, soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def optimal(
        n: int = typer.Option(..., "--n", "-n", parser=STRICT_INT, help="number of candidates"),
        k: int = typer.Option(..., "--k", parser=STRICT_INT, help="lattice depth: scores 0, -2Δ, …, -2Δk"),
        epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 0.5, log(2), log(3/2)"),
        sensitivity: str = typer.Option("1", "--sensitivity", help="Δ"),
        mechanisms: str = typer.Option("pf,em", "--mechanisms", "--mechanism", "-m", help="comma-separated registry names or PATH.py:OBJECT / module:OBJECT, for ratios"),
        boundary: str = typer.Option("clip", "--boundary", help="clip | drop: q' outside Q(n,k)"),
        method: str = typer.Option("auto", "--method", help="auto | generation | simplex | ipm | hipo (needs dpexact[hipo]) | pdlp"),
        crossover: bool = typer.Option(True, "--crossover/--no-crossover",
                                       help="hipo, pdlp, ipm: turn the interior solution into a vertex"),
        certify: bool = typer.Option(False, "--certify", help="exact certificate (e^-ε rational) or ball enclosure"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
        max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds",
                                          help="refuse problems estimated to take longer; HiGHS's time limit"),
    ) -> None:
        """Solve the LP for the optimal regular mechanism and print optimality ratios (>= 1; 1 = optimal)."""
        from .. import mechanism as build
        from ..lp import build_regular_lp, certify_exact, enclose_optimum, optimality_ratio, solve_regular_lp

        from ..cost_limits import check_cost
        from ..lp.cost_model import estimate_regular_lp_cost

        target = prepare_output(output)
        try:
            names = [s.strip() for s in mechanisms.split(",") if s.strip()]
            if not names:
                raise ValueError("--mechanisms: give at least one mechanism name")
            # built before the LP so that a typo is reported at once, not after the solve
            mechs = {name: build(name, epsilon=epsilon, sensitivity=sensitivity) for name in names}
            check_cost(estimate_regular_lp_cost(n, k, epsilon, method=method, mechanisms=len(names)), max_seconds=max_seconds)
            with _Progress() as progress:
                t0 = time.perf_counter()
                progress.step(f"building the LP for Q({n}, {k})")
                lp = build_regular_lp(n, k, epsilon, sensitivity=sensitivity, boundary=boundary)  # type: ignore[arg-type]
                build_s = time.perf_counter() - t0
                progress.note(f"LP for Q({n}, {k}): {lp.num_vars} variables, {lp.num_constraints} constraints, "
                              f"{len(lp.classes)} classes, {lp.num_vectors} vectors (built in {build_s:.2f} s)")
                progress.step(f"solving the LP (method {method})")
                t1 = time.perf_counter()
                sol = solve_regular_lp(lp, method=method, crossover=crossover, max_seconds=max_seconds)  # type: ignore[arg-type]
                progress.note(f"solved ({sol.method}) in {time.perf_counter() - t1:.2f} s; "
                              f"computing the ratios of {', '.join(names)}")
                progress.step("certifying and computing ratios" if certify else "computing ratios")
                cert = None
                certified: Any = False
                enclosure = None
                if certify:
                    if lp.rho.is_rational:
                        cert = certify_exact(sol)
                        certified = "exact" if cert.certified else False
                    elif sol.is_vertex:
                        enc = enclose_optimum(sol)
                        enclosure = [float(enc.lower.lower()), float(enc.upper.upper())]
                        certified = "enclosure"
                    else:  # no basis to enclose from: the solution's proven float64 interval
                        enclosure = [sol.bounds.lower, sol.bounds.upper]
                        certified = "enclosure"
                ratios: dict[str, Any] = {}
                ratio_bounds: dict[str, float] = {}
                exact_ratios: dict[str, str] = {}
                for name in names:
                    mech = mechs[name]
                    if cert is not None and cert.certified:
                        r = optimality_ratio(mech, sol, backend="exact", certificate=cert)
                        exact_ratios[name] = str(r.value)
                    else:
                        r = optimality_ratio(mech, sol)
                    ratios[name] = r.as_float
                    ratio_bounds[name] = r.error_bound
        except (ValueError, TypeError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2)
        except (RuntimeError, ArithmeticError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1)
        out: dict[str, Any] = {
            "n": n,
            "k": k,
            "epsilon": epsilon,
            "sensitivity": sensitivity,
            "boundary": boundary,
            "method": sol.method,
            "variables": lp.num_vars,
            "constraints": lp.num_constraints,
            "classes": len(lp.classes),
            "vectors": lp.num_vectors,
            "build_seconds": build_s,
            "seconds": sol.seconds,
            "optimal_total_error": sol.optimal_total_error,
            "optimal_total_error_bounds": [sol.bounds.lower, sol.bounds.upper],
            "vertex": sol.is_vertex,
            "ratios": ratios,
            "ratio_error_bounds": ratio_bounds,
            "certified": certified,
        }
        if cert is not None:
            out["optimal_total_error_exact"] = str(cert.optimum) if cert.certified else None
            out["ratios_exact"] = exact_ratios
            if not cert.certified:
                out["certificate_failure"] = cert.failure
        if enclosure is not None:
            out["optimal_total_error_enclosure"] = enclosure
        emit_json(out, as_json, target)
        if as_json:
            return
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        c = Console(markup=False, highlight=False)
        c.print(f"Q({n}, {k}), ε = {epsilon}, Δ = {sensitivity}, boundary = {boundary}: "
                f"{lp.num_vars} variables, {lp.num_constraints} constraints ({len(lp.classes)} classes, {lp.num_vectors} vectors)")
        c.print(f"solved by HiGHS ({sol.method}{'' if sol.is_vertex else ', interior point'}) in {sol.seconds:.3f} s; "
                f"optimum Σ_q E[err(M*, q)] = {sol.optimal_total_error:.15g}, "
                f"proven in [{sol.bounds.lower:.15g}, {sol.bounds.upper:.15g}]")
        if cert is not None:
            c.print(f"exact certificate: {'OK, optimum = ' + str(cert.optimum) if cert.certified else cert.failure}")
        if enclosure is not None:
            c.print(f"rigorous enclosure of the optimum: [{enclosure[0]:.17g}, {enclosure[1]:.17g}]")
        t = Table(title=escape("optimality ratio Σ E[err(M)] / Σ E[err(M*)]  (>= 1, 1 = optimal)"))
        t.add_column("mechanism")
        t.add_column("ratio")
        t.add_column("± bound")
        for name in names:
            t.add_row(name, f"{ratios[name]:.15g}" + (f"  (exact {exact_ratios[name]})" if name in exact_ratios and len(exact_ratios[name]) < 40 else ""),
                      f"{ratio_bounds[name]:.2g}")
        c.print(t)
