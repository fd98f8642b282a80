"""The ``dpexact`` command line (typer). Subcommands live in sibling modules that expose
``register(app)``; this module only assembles them. Every subcommand is built on the
mechanism registry (:func:`dpexact.mechanism`)."""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any, Optional

import typer

from .. import __version__

app = typer.Typer(
    help="dpexact: exact analysis of differentially private selection mechanisms.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # help strings are printed literally: "dpexact[hipo]" or "ball[:bits]" are not rich markup
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="print the dpexact version and exit"),
) -> None:
    """dpexact: exact analysis of differentially private selection mechanisms."""


#: sibling modules that add subcommands (each defines ``register(app)``)
SUBCOMMAND_MODULES: list[str] = [
    "dpexact.cli.bench",
    "dpexact.cli.ldp",
    "dpexact.cli.check",
    "dpexact.cli.verify",
    "dpexact.cli.optimal",
    "dpexact.cli.delta",
    "dpexact.cli.sweep",
]


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``--param name=value``: ``a,b,c`` -> list of strings; ``true``/``false`` -> bool; else string.

    Values stay strings so that mechanisms parse numbers exactly (``0.1`` means 1/10).
    """
    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise typer.BadParameter(f"--param expects name=value, got {item!r}")
        value = value.strip()
        if value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        elif "," in value:
            out[name] = [v.strip() for v in value.split(",")]
        else:
            out[name] = value
    return out


def parse_scores(text: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise typer.BadParameter(f"--scores must be a comma-separated list of numbers, got {text!r}")
    return items


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


@app.command()
def pmf(
    mechanism: str = typer.Option(..., "--mechanism", "-m", help="registry name, e.g. pf, em, rnm-exp"),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 0.1, 1/3, 2*log(3)"),
    scores: str = typer.Option(..., "--scores", "-q", help="comma-separated scores, e.g. 3,2,0"),
    sensitivity: str = typer.Option("1", "--sensitivity", help="Δ"),
    monotone: bool = typer.Option(False, "--monotone", help="monotone quality (ε/Δ exponent, pf Remark 1)"),
    backend: str = typer.Option("float", "--backend", "-b", help="float | mp[:digits] | ball[:bits] | exact"),
    method: Optional[str] = typer.Option(None, "--method", help="algorithm (mechanism-specific)"),
    param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="mechanism parameter name=value"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Probability mass function of a mechanism on one score vector."""
    from .. import mechanism as build
    from ..utility import expected_error

    q = parse_scores(scores)
    params: dict[str, Any] = {"epsilon": epsilon, "sensitivity": sensitivity}
    if monotone:
        params["monotone"] = True
    params.update(parse_params(param))
    try:
        mech = build(mechanism, **params)
        ee = expected_error(mech, q, backend=backend, method=method)
    except (ValueError, TypeError) as exc:
        fail(str(exc))
        return
    if as_json:
        from ..utility.summary import pmf_record

        typer.echo(json.dumps(pmf_record(mechanism, mech, q, ee)))
        return
    p = ee.pmf
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{mechanism} on {len(q)} scores — backend {p.backend}, method {p.method}")
    t.add_column("r", justify="right")
    t.add_column("score")
    t.add_column("Pr[M(q)=r]")
    for i, (s, v) in enumerate(zip(q, p.values)):
        t.add_row(str(i), s, _format_value(v))
    c = Console(markup=False, highlight=False)  # scores and names are printed literally
    c.print(t)
    c.print(f"expected error {ee.as_float:.17g} (± {ee.error_bound:.3g}, {p.error_kind})")


def _format_value(v: Any) -> str:
    """Show a ball with its own radius (not rounded to the 53-bit display context)."""
    if type(v).__name__ == "arb":
        return v.str(20, radius=True)
    if type(v).__name__ == "mpf":
        import mpmath

        return mpmath.nstr(v, 25)
    return str(v)


@app.command()
def version() -> None:
    """Print the dpexact version."""
    typer.echo(__version__)


def _register_subcommands() -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_subcommands()


def run() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
