"""``dpexact delta``: certified δ(ε) and ε(δ) for a pmf pair, the Gaussian or Laplace mechanism,
and k-fold composition (:mod:`dpexact.accounting.delta_epsilon`).

    dpexact delta --p-pmf 3/4,1/4 --q-pmf 1/4,3/4 -e "log(2)" --compositions 10 --json
    dpexact delta --gaussian 2 --delta 1e-5 --compositions 16
    dpexact delta --laplace 1 -e 0,1/2,1
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .common import STRICT_INT, deprecated_alias, emit_json, output_option, prepare_output

__all__ = ["register"]

_MAX_VALUES = 100


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _list(text: str, name: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}")
    if len(items) > _MAX_VALUES and name not in ("--p-pmf", "--q-pmf"):
        raise ValueError(f"{name}: at most {_MAX_VALUES} values, got {len(items)}")
    return items


def delta(
    p: Optional[str] = typer.Option(None, "--p-pmf", help="pmf P = M(x), comma-separated rationals (with --q-pmf)"),
    q: Optional[str] = typer.Option(None, "--q-pmf", help="pmf Q = M(x') on the same outputs"),
    p_old: Optional[str] = typer.Option(None, "--p", hidden=True, help="former name of --p-pmf"),
    q_old: Optional[str] = typer.Option(None, "--q", hidden=True, help="former name of --q-pmf (-q is scores in pmf and prob)"),
    gaussian: Optional[str] = typer.Option(None, "--gaussian", help="Gaussian mechanism with this σ"),
    laplace: Optional[str] = typer.Option(None, "--laplace", help="Laplace mechanism with this scale b"),
    sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (Gaussian, Laplace; default 1)"),
    epsilon: Optional[str] = typer.Option(None, "--epsilon", "-e", help="ε values (comma-separated): print δ(ε)"),
    delta_: Optional[str] = typer.Option(None, "--delta", "-d", help="δ values (comma-separated): print ε(δ)"),
    compositions: Optional[int] = typer.Option(None, "--compositions", parser=STRICT_INT, help="k-fold composition of identical mechanisms (default 1): pmf pairs and the Gaussian (a composed Laplace: give a discretised Laplace as a pmf pair)"),
    k_old: Optional[int] = typer.Option(None, "-k", hidden=True, parser=STRICT_INT, help="former name of --compositions (--k is the lattice depth in optimal)"),
    prec: int = typer.Option(128, "--prec", parser=STRICT_INT, help="ball precision in bits (32..4096)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
) -> None:
    """Certified (ε, δ): δ(ε) or the inverse ε(δ), as an interval, with the exact value when known."""
    from ..accounting.delta_epsilon import GaussianMechanism, LaplaceMechanism, PmfPair, delta_for_epsilon, epsilon_for_delta

    p = deprecated_alias("--p-pmf", p, "--p", p_old)
    q = deprecated_alias("--q-pmf", q, "--q", q_old)
    compositions = deprecated_alias("--compositions", compositions, "-k", k_old)
    compositions = 1 if compositions is None else compositions
    target = prepare_output(output)
    try:
        given = [x is not None for x in ((p or q), gaussian, laplace)]
        if sum(given) != 1:
            raise ValueError("give exactly one mechanism: --p-pmf and --q-pmf, --gaussian SIGMA or --laplace B")
        if (p is None) != (q is None):
            raise ValueError("--p-pmf and --q-pmf go together")
        if (epsilon is None) == (delta_ is None):
            raise ValueError("give exactly one of --epsilon and --delta")
        if not 32 <= prec <= 4096:
            raise ValueError(f"--prec must be in [32, 4096], got {prec}")
        if p is not None:
            if sensitivity is not None:  # an option that cannot apply is refused, not ignored
                raise ValueError("--sensitivity: a pmf pair (--p-pmf, --q-pmf) has no sensitivity; it applies to --gaussian "
                                 "and --laplace")
            mech: Any = PmfPair(_list(p, "--p-pmf"), _list(q or "", "--q-pmf"))
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
        ends = [f"{v[k]:.17g}" if v[k] is not None else str(v.get(f"{k}_exact", "-")) for k in ("lower", "upper")]
        t.add_row(escape(r["epsilon"] if solve_delta else r["delta"]), *ends, escape(str(v["exact"] or "")))
    Console(highlight=False).print(t)


def register(app: typer.Typer) -> None:
    app.command("delta")(delta)
