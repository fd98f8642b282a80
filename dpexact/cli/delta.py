"""``dpexact delta``: certified δ(ε) and ε(δ) for a pmf pair, the Gaussian or Laplace mechanism,
and k-fold composition (:mod:`dpexact.accounting.delta_epsilon`).

    dpexact delta --p 3/4,1/4 --q 1/4,3/4 -e "log(2)" -k 10 --json
    dpexact delta --gaussian 2 --delta 1e-5 -k 16
    dpexact delta --laplace 1 -e 0,1/2,1
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .common import STRICT_INT, emit_json, output_option, prepare_output

__all__ = ["register"]

_MAX_VALUES = 100


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _list(text: str, name: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}")
    if len(items) > _MAX_VALUES and name not in ("--p", "--q"):
        raise ValueError(f"{name}: at most {_MAX_VALUES} values, got {len(items)}")
    return items


def delta(
    p: Optional[str] = typer.Option(None, "--p", help="pmf P = M(x), comma-separated rationals (with --q)"),
    q: Optional[str] = typer.Option(None, "--q", help="pmf Q = M(x') on the same outputs"),
    gaussian: Optional[str] = typer.Option(None, "--gaussian", help="Gaussian mechanism with this σ"),
    laplace: Optional[str] = typer.Option(None, "--laplace", help="Laplace mechanism with this scale b"),
    sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (Gaussian, Laplace; default 1)"),
    epsilon: Optional[str] = typer.Option(None, "--epsilon", "-e", help="ε values (comma-separated): print δ(ε)"),
    delta_: Optional[str] = typer.Option(None, "--delta", "-d", help="δ values (comma-separated): print ε(δ)"),
    compositions: int = typer.Option(1, "--compositions", "-k", parser=STRICT_INT, help="k-fold composition of identical mechanisms"),
    prec: int = typer.Option(128, "--prec", parser=STRICT_INT, help="ball precision in bits (32..4096)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
) -> None:
    """Certified (ε, δ): δ(ε) or the inverse ε(δ), as an interval, with the exact value when known."""
    from ..accounting.delta_epsilon import GaussianMechanism, LaplaceMechanism, PmfPair, delta_for_epsilon, epsilon_for_delta

    target = prepare_output(output)
    try:
        given = [x is not None for x in ((p or q), gaussian, laplace)]
        if sum(given) != 1:
            raise ValueError("give exactly one mechanism: --p and --q, --gaussian SIGMA or --laplace B")
        if (p is None) != (q is None):
            raise ValueError("--p and --q go together")
        if (epsilon is None) == (delta_ is None):
            raise ValueError("give exactly one of --epsilon and --delta")
        if not 32 <= prec <= 4096:
            raise ValueError(f"--prec must be in [32, 4096], got {prec}")
        if p is not None:
            if sensitivity is not None:  # an option that cannot apply is refused, not ignored
                raise ValueError("--sensitivity: a pmf pair (--p, --q) has no sensitivity; it applies to --gaussian and --laplace")
            mech: Any = PmfPair(_list(p, "--p"), _list(q or "", "--q"))
        elif gaussian is not None:
            mech = GaussianMechanism(gaussian, sensitivity or "1")
        else:
            mech = LaplaceMechanism(laplace, sensitivity or "1")
        rows = []
        if epsilon is not None:
            for e in _list(epsilon, "--epsilon"):
                rows.append({"epsilon": e, "delta": delta_for_epsilon(mech, e, compositions, prec).as_dict()})
        else:
            for d in _list(delta_ or "", "--delta"):
                rows.append({"delta": d, "epsilon": epsilon_for_delta(mech, d, compositions, prec).as_dict()})
    except (ValueError, TypeError, ArithmeticError) as exc:
        _fail(str(exc))
        return
    out = {"mechanism": mech.name, "compositions": compositions, "prec": prec, "results": rows}
    emit_json(out, as_json, target, command="delta")
    if as_json:
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    solve_delta = epsilon is not None
    t = Table(title=escape(f"{mech.name}, {compositions}-fold: " + ("δ(ε)" if solve_delta else "ε(δ)")
                           + "  (certified interval)"))
    t.add_column("ε" if solve_delta else "δ")
    t.add_column("lower")
    t.add_column("upper")
    t.add_column("exact")
    for r in rows:
        v = r["delta"] if solve_delta else r["epsilon"]
        t.add_row(escape(r["epsilon"] if solve_delta else r["delta"]), f"{v['lower']:.17g}" if v["lower"] != "inf" else "inf",
                  f"{v['upper']:.17g}" if v["upper"] != "inf" else "inf", escape(str(v["exact"] or "")))
    Console(highlight=False).print(t)


def register(app: typer.Typer) -> None:
    app.command("delta")(delta)
