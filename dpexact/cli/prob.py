"""``dpexact prob``: the probability of an output set — a box of released real values — for the
mechanisms whose outputs are real (``interval``, ``continuous``, ``mixed``; dpexact.protocols).

``Pr[M(q) ∈ B]`` with ``B = Π [lo_i, hi_i]`` (in the mechanism's box coordinates), for a ``mixed``
mechanism together with its finite part (``--output``: a ⊤/⊥ pattern or an index). Bounds are
read by the exact grammar; the value is a rigorous ball (``ball[:bits]``) or exact (``exact``).
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .common import emit_json, output_option, prepare_output

__all__ = ["register", "parse_box"]


def parse_box(text: str) -> list[tuple[str, str]]:
    """``lo:hi,lo:hi,...`` -> ``[(lo, hi), ...]`` as strings (numbers are parsed exactly later)."""
    from ..numbers.parse import excerpt

    out = []
    for part in text.split(","):
        lo, sep, hi = part.partition(":")
        if not sep or not lo.strip() or not hi.strip() or ":" in hi:
            raise ValueError(f"--box must be lo:hi intervals separated by commas, got {excerpt(text)}")
        out.append((lo.strip(), hi.strip()))
    return out


def _value(v: Any) -> tuple[str, float]:
    """A ball or exact value as (text, float)."""
    if type(v).__name__ == "arb":
        return v.str(20, radius=True), float(v.mid())
    from ..numbers.exp_sum import ExpSum

    if isinstance(v, ExpSum):  # exact in Q[exp(Q)]
        return str(v.to_sympy()), float(v.to_arb(128).mid())
    return str(v), float(v)


def register(app: typer.Typer) -> None:
    @app.command("prob")
    def prob_cmd(
        mechanism: str = typer.Option(..., "--mechanism", "-m", help="registry name or PATH.py:OBJECT / module:OBJECT with real outputs (naming a file or module imports (runs) it: use code you trust)"),
        epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 0.1, 1/3, 2*log(3)"),
        scores: str = typer.Option(..., "--scores", "-q", help="comma-separated queries / scores"),
        box: str = typer.Option(..., "--box", help="lo:hi per released value, comma-separated, e.g. 0:1,-1/2:3"),
        output_part: Optional[str] = typer.Option(None, "--pattern", "--output-part", help="the finite part of a mixed output (a ⊤/⊥ pattern such as FTT, or an index)"),
        sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (default 1)"),
        backend: str = typer.Option("ball", "--backend", "-b", help="ball[:bits] | exact"),
        param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="mechanism parameter name=value"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Probability that the released real values fall in a box (rigorous ball or exact)."""
        from ..mechanisms.registry import mechanism as build
        from ..protocols import BoxCoordinates
        from ..verify.kinds import kind_of
        from .main import dedicated_params, fail, merge_params, parse_params, parse_scores

        target = prepare_output(output)
        try:
            q = parse_scores(scores)
            b = parse_box(box)
            params = merge_params(dedicated_params(epsilon, sensitivity, False), parse_params(param))
            mech = build(mechanism, **params)
            kind = kind_of(mech)
            part: Any = None
            if output_part is not None and not kind.parts:  # an option that cannot apply is refused, not ignored
                raise ValueError(f"--pattern: {mechanism} has {kind.name} outputs (no finite part); it applies to mixed outputs only")
            if kind.event is None:
                raise ValueError(f"mechanism {mechanism!r} has {kind.name} outputs: use `dpexact pmf` for their probabilities")
            if output_part is not None:  # the finite part of a mixed output
                outs = {str(o): o for o in mech.outputs(len(q))}
                if output_part.strip() not in outs:
                    shown = ", ".join(list(outs)[:8]) + (", …" if len(outs) > 8 else "")
                    raise ValueError(f"--pattern: {output_part.strip()[:40]!r} is not an output for {len(q)} queries ({shown})")
                part = outs[output_part.strip()]
            lower, upper = kind.event(mech, q, b, part, backend, mechanism)
        except (ValueError, TypeError) as exc:
            fail(str(exc))
            return
        lo_t, lo_f = _value(lower)
        hi_t, hi_f = _value(upper)
        single = lower is upper or lo_t == hi_t  # a closed form; else certified bounds of the probability
        record = {"mechanism": mechanism, "params": mech.params(), "scores": q, "output_part": None if part is None else str(part),
                  "box": [list(x) for x in b], "backend": backend, "probability": lo_t if single else None,
                  "float": lo_f if single else None, "lower": lo_t, "upper": hi_t, "lower_float": lo_f, "upper_float": hi_f,
                  # the box is stated in the mechanism's box_coordinates(y) where it defines them (dpexact.protocols)
                  "coordinates": "box_coordinates" if isinstance(mech, BoxCoordinates) else "values"}
        emit_json(record, as_json, target, command="prob", default=str)
        if as_json:
            return
        values = "box coordinates of the values" if record["coordinates"] == "box_coordinates" else "values"
        where = f"{part} and {values} in" if part is not None else f"{values} in"
        event = f"Pr[{mechanism}(q) ∈ {{{where} {' × '.join(f'[{lo}, {hi}]' for lo, hi in b)}}}]"
        typer.echo(f"{event} = {lo_t}" if single else f"{event} ∈ [{lo_t}, {hi_t}]  (certified bounds)")
