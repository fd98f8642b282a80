"""``dpexact curve``: certified privacy curves of a selection mechanism over every neighbouring input
(:mod:`dpexact.curves`).

    dpexact curve -m em -e 1 --n 10 --delta-of-epsilon 0,0.5,1 --json
    dpexact curve -m pf -e 1 --n 2 --zcdp
    dpexact curve -m grr -e 1 -p k=4 --renyi 2,4,8 --plot grr.png
"""

from __future__ import annotations

import time
from typing import Any, Optional

import typer

from ..schemas.numbers import free_form, with_exact
from .common import STRICT_INT, emit_json, output_option, prepare_output

__all__ = ["register"]


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _list(text: str, name: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}")
    return items


def curve(
    mechanism: str = typer.Option(..., "--mechanism", "-m", help="em, pf, rnm-exp, rnm-gumbel, grr, rappor or laplace"),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="the mechanism's ε (exact: 1/2, log(2), 0.1)"),
    n: Optional[int] = typer.Option(None, "--n", parser=STRICT_INT, help="number of candidates (em, pf, rnm-*; grr's k)"),
    param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="k=K for grr"),
    delta_of_epsilon: Optional[str] = typer.Option(None, "--delta-of-epsilon", help="ε' values (comma-separated): certified δ(ε')"),
    renyi: Optional[str] = typer.Option(None, "--renyi", help="α values > 1 (comma-separated): certified D_α"),
    zcdp: bool = typer.Option(False, "--zcdp", help="certified tight zCDP ρ = sup_α D_α/α"),
    plot: Optional[str] = typer.Option(None, "--plot", help="draw the curve beside the one accountants use today (PNG/PDF/SVG)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
) -> None:
    """Certified δ(ε'), Rényi D_α or zCDP ρ of a mechanism, as an upper envelope over all neighbouring inputs
    with a witness below it."""
    from ..curves.curve import privacy_curve

    target = prepare_output(output)
    try:
        if sum([delta_of_epsilon is not None, renyi is not None, zcdp]) != 1:
            raise ValueError("give exactly one of --delta-of-epsilon, --renyi and --zcdp")
        k = None
        for item in param or []:
            name, sep, value = item.partition("=")
            if name.strip() != "k" or not sep:
                raise ValueError(f"--param: only k=K (grr) is accepted, got {item!r}")
            if k is not None:
                raise ValueError("--param: k given twice")
            try:
                k = int(value.strip())
            except ValueError:
                raise ValueError(f"--param: k must be an integer, got {value!r}") from None
        plot_path = None
        if plot is not None:
            from ..io import check_writable

            plot_path = check_writable(plot, "--plot")
            if plot_path.suffix.lower() not in (".png", ".pdf", ".svg"):
                raise ValueError(f"--plot: the file must end in .png, .pdf or .svg, got {plot!r}")
        c = privacy_curve(mechanism, epsilon, n, k)
        t0 = time.process_time()
        out: dict[str, Any] = {"mechanism": mechanism, "epsilon": _ef(c),
                               "epsilon_exact": c.epsilon, "n": c.n, "tight": c.tight, "scope": c.scope}
        if delta_of_epsilon is not None:
            pts = c.delta(_list(delta_of_epsilon, "--delta-of-epsilon"))
            out["delta"] = [_row("epsilon", p) for p in pts]
        elif renyi is not None:
            pts = c.renyi(_list(renyi, "--renyi"))
            out["renyi"] = [_row("alpha", p) for p in pts]
        else:
            p = c.zcdp()
            out["rho"] = {**with_exact("lower", p.lower), **with_exact("upper", p.upper), "witness": free_form(p.witness)}
            if c.today_rho() is not None:
                out["rho_today"] = c.today_rho()
        out["cpu_seconds"] = time.process_time() - t0
    except (ValueError, TypeError, ArithmeticError) as exc:
        _fail(str(exc))
        return
    if plot_path is not None:
        from ..curves.plot import draw

        draw(c, out, plot_path)
    emit_json(out, as_json, target, command="curve")
    if as_json:
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=escape(f"{mechanism}, ε = {c.epsilon}" + (f", n = {c.n}" if c.n else "") + " — certified over every input"))
    if "rho" in out:
        t.add_column("ρ lower")
        t.add_column("ρ upper")
        t.add_row(_end(out["rho"], "lower"), _end(out["rho"], "upper"))
    else:
        key, rows = ("epsilon", out["delta"]) if "delta" in out else ("alpha", out["renyi"])
        t.add_column("ε'" if key == "epsilon" else "α")
        t.add_column("lower")
        t.add_column("upper")
        for r in rows:
            t.add_row(escape(r[key + "_exact"]), _end(r, "lower"), _end(r, "upper"))
    Console(highlight=False).print(t)
    typer.echo(f"scope: {c.scope}")


def _ef(c: Any) -> float:
    from ..numbers.real import Real

    return Real.of(c.epsilon).to_float()


def _end(r: dict[str, Any], side: str) -> str:
    # a float end, or its exact text where the float is null (infinite: D_α = ∞ above α's range)
    return f"{r[side]:.12g}" if r[side] is not None else str(r.get(f"{side}_exact", "-"))


def _row(key: str, p: Any) -> dict[str, Any]:
    # an infinite end is null with its text in lower_exact / upper_exact (one number type per field)
    r = {key: p.at, key + "_exact": p.at_text, **with_exact("lower", p.lower), **with_exact("upper", p.upper),
         "witness": free_form(p.witness)}
    if p.lower == p.upper == 0.0 and p.witness.get("exact"):
        r["lower_exact"] = r["upper_exact"] = "0"
    return r


def register(app: typer.Typer) -> None:
    app.command("curve")(curve)
