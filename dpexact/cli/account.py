"""``dpexact account SPEC``: certified δ(ε) or ε(δ) of a composition of events
(:class:`dpexact.accounting.accountant.Accountant`).

    dpexact account spec.toml -e 1 --json
    dpexact account spec.toml -d 1e-5 --tolerance 1e-6

SPEC is a TOML file of ``[[event]]`` tables or a JSON list of event objects (:mod:`dpexact.accounting.events`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional

import typer

from .common import emit_json, output_option, prepare_output

__all__ = ["register"]

#: largest SPEC file read (bytes)
MAX_SPEC_BYTES = 10 * 2**20
RELATION = ("add/remove neighbours: x′ is x with one record removed; 'remove' is H(M(x)‖M(x′)), 'add' is "
            "H(M(x′)‖M(x)); Poisson rate q turns a pair (P, Q) into (qP + (1−q)Q, Q) (remove) and (Q, qP + (1−q)Q) "
            "(add) (Zhu, Dong & Wang 2022, Thm 11); sampling without replacement at γ = m/n (replace-one "
            "neighbours) uses the same mixture (Zhu, Dong & Wang 2022, Thm 10; Balle, Barthe & Gaboardi 2018); "
            "composition, adaptive included, convolves the PLDs of each direction (Zhu, Dong & Wang 2022, Thm 10)")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def read_spec(path: str) -> Any:
    """Parse SPEC (TOML by default, JSON for ``.json``); ValueError names the file on any problem."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"SPEC: no such file: {path}")
    if p.stat().st_size > MAX_SPEC_BYTES:
        raise ValueError(f"SPEC: {p.stat().st_size} bytes, at most {MAX_SPEC_BYTES}")
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"SPEC: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"SPEC: not valid TOML ({exc})") from None


def _end(x: float, upper: bool) -> Any:
    if math.isinf(x):
        return None if upper else 1.7976931348623157e308  # ε = ∞: upper null, lower the largest float
    return x


def account(
    spec_path: str = typer.Argument(..., metavar="SPEC", help="TOML file of [[event]] tables, or a JSON list of events"),
    epsilon: Optional[str] = typer.Option(None, "--epsilon", "-e", help="ε (exact string): print the certified δ(ε)"),
    delta: Optional[str] = typer.Option(None, "--delta", "-d", help="δ in (0, 1] (exact string): print the certified ε(δ)"),
    tolerance: Optional[float] = typer.Option(None, "--tolerance", help="relative width (upper − lower)/upper at which the grid refinement stops (default 1e-4)"),
    direction: str = typer.Option("both", "--direction", help="neighbouring direction: both (max, default), remove or add"),
    max_seconds: float = typer.Option(60.0, "--max-seconds", help="CPU budget; an accounting estimated above it is refused"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
) -> None:
    """Certified accounting of a composition: δ(ε) or ε(δ) as a proved interval (exact where the laws are rational)."""
    from ..accounting.accountant import DEFAULT_TOLERANCE, Accountant
    from ..accounting.events import events_from_spec

    target = prepare_output(output)
    try:
        if (epsilon is None) == (delta is None):
            raise ValueError("give exactly one of --epsilon/-e and --delta/-d")
        tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
        if not 0 < tol < 1:
            raise ValueError(f"--tolerance must be in (0, 1), got {tol}")
        if direction not in ("both", "remove", "add"):
            raise ValueError(f"--direction must be both, remove or add, got {direction!r}")
        if not 0 < max_seconds <= 86400:
            raise ValueError(f"--max-seconds must be in (0, 86400], got {max_seconds}")
        events = events_from_spec(read_spec(spec_path))
        acc = Accountant(events, direction=direction, max_seconds=max_seconds)
        if epsilon is not None:
            enc = acc.delta_for_epsilon(epsilon, tol)
            name, given = "delta", ("epsilon", epsilon)
        else:
            enc = acc.epsilon_for_delta(delta, tol)
            name, given = "epsilon", ("delta", delta)
    except (ValueError, TypeError, ArithmeticError) as exc:
        _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return
    detail = dict(enc.detail)
    out: dict[str, Any] = {
        "events": [e.as_dict() for e in events],
        "direction": direction,
        "relation": RELATION,
        given[0]: given[1],
        name: {"lower": _end(enc.lower, False), "upper": _end(enc.upper, True)},
    }
    if enc.exact is not None:
        out[name + "_exact"] = enc.exact
    out["route"] = detail.get("route", "closed form")
    out["method"] = enc.method
    out["tolerance"] = tol
    out["tolerance_met"] = bool(detail.get("tolerance_met", True))
    from ..schemas.numbers import free_form

    out["detail"] = free_form(detail)  # a non-finite float is null, its text in the sibling NAME_exact
    emit_json(out, as_json, target, command="account")
    if as_json:
        return
    sym = "δ" if name == "delta" else "ε"
    lo = f"{enc.lower:.17g}"
    hi = "inf" if math.isinf(enc.upper) else f"{enc.upper:.17g}"
    typer.echo(f"{sym}({given[1]}) ∈ [{lo}, {hi}]  ({out['route']}; {enc.method})")
    if enc.exact is not None:
        typer.echo(f"exact: {enc.exact}")
    if not out["tolerance_met"]:
        typer.echo(f"note: relative width above --tolerance {tol:g} within the budget (the interval is still proved)")


def register(app: typer.Typer) -> None:
    app.command("account")(account)
