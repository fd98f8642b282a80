"""``dpexact conform MECHANISM``: does a mechanism do what it declares? (dpexact.conformance.checks)"""

from __future__ import annotations

import math
from typing import Any, Optional

import typer

from ..cost_limits import DEFAULT_CLI_MAX_SECONDS
from .common import STRICT_INT, emit_json, output_option, prepare_output

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("conform")
    def conform_cmd(
        mechanism_arg: Optional[str] = typer.Argument(None, metavar="MECHANISM", help="registry name or PATH.py:OBJECT or module:OBJECT (naming a file or module imports (runs) it: use code you trust)"),
        mechanism_opt: Optional[str] = typer.Option(None, "--mechanism", "-m", help="the same, as an option (as in pmf and verify)"),
        epsilon: str = typer.Option("1", "--epsilon", "-e", help="ε, exact"),
        sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (default: the mechanism's own, 1 for most)"),
        param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="mechanism parameter name=value"),
        draws: int = typer.Option(20_000, "--draws", parser=STRICT_INT, help="seeded sampler draws per vector"),
        seed: int = typer.Option(0, "--seed", parser=STRICT_INT, help="seed of the sampler check"),
        max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds",
                                          help="refuse (with the estimate) draws whose sampler checks would take longer"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Conformance checks: pmf sums to one, ball encloses exact, float within bound, sampler fits the pmf,
        declared symmetry / shift invariance / monotonicity, clear errors on bad input. Exit 1 if one fails."""
        from ..mechanisms.registry import mechanism as build
        from ..conformance.checks import conform
        from .main import fail, parse_params

        if (mechanism_arg is None) == (mechanism_opt is None):
            fail("give the mechanism once: as the argument MECHANISM or as --mechanism/-m")
        mechanism = mechanism_arg if mechanism_arg is not None else mechanism_opt
        assert mechanism is not None
        if not (math.isfinite(max_seconds) and max_seconds > 0):  # for every mechanism, with or without a sampler pilot
            fail(f"--max-seconds must be a positive number of seconds, got {max_seconds!r}")
        target = prepare_output(output)
        params: dict[str, Any] = {"epsilon": epsilon}
        if sensitivity is not None:  # LDP channels (rappor) have no Δ parameter
            params["sensitivity"] = sensitivity
        params.update(parse_params(param))
        try:
            mech = build(mechanism, **params)
            rep = conform(mech, draws=draws, seed=seed, max_seconds=max_seconds)
        except (ValueError, TypeError) as exc:
            fail(str(exc))
            return
        emit_json(rep.as_dict(), as_json, target, command="conform", default=str)
        if not as_json:
            from rich.console import Console
            from rich.markup import escape

            from .text import value, width, wrap

            c = Console()
            params_text = ", ".join(f"{k} = {value(v)}" for k, v in rep.params.items()) if isinstance(rep.params, dict) \
                else str(rep.params)
            c.print(f"[bold]{escape(mechanism)}[/bold] {escape(params_text)}")
            for ch in rep.checks:
                mark = {True: "[green]pass[/green]", False: "[red]FAIL[/red]", None: "[dim]n/a[/dim]"}[ch.passed]
                # "  pass  " takes 8 columns; continuation lines start under the message
                first, *rest = wrap(f"{ch.name:<20} {ch.message}", cols=width() - 8, hang=" " * 21)
                c.print(f"  {mark}  {escape(first)}")
                for line in rest:
                    c.print(" " * 8 + escape(line))
            c.print("conforms" if rep.passed else f"does not conform: {', '.join(f.name for f in rep.failures)}")
        if not rep.passed:
            raise typer.Exit(code=1)
