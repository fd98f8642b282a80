"""``dpexact ldp`` and ``dpexact optimal-ldp``: local-DP channels on the equidistant domain {1..N}.

    dpexact ldp --mechanism brr --domain 20 --epsilon 2 --json
    dpexact optimal-ldp --domain 12 --epsilon "log(3)" --loss abs --json

Q_g is brr eq. 11 under the uniform prior, QLoss brr eq. 12; for ``--loss jaccard`` they are
expected *similarities* (larger is better, brr §5.2).
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from .common import STRICT_INT, deprecated_alias, emit_json, output_option, prepare_output

from ..cost_limits import DEFAULT_CLI_MAX_SECONDS

__all__ = ["register"]


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        from ..numbers.parse import excerpt

        _fail(f"{option} must be one of {', '.join(allowed)}, got {excerpt(value)}")


def _value_json(v: Any) -> dict[str, Any]:
    out = {"value": v.as_float, "error_bound": v.error_bound, "error_kind": v.error_kind}
    if v.error_kind == "exact":
        out["value_exact"] = str(v.value)
    return out


def ldp(
    mechanism: str = typer.Option(..., "--mechanism", "-m", help="grr | brr | em"),
    domain: int = typer.Option(..., "--domain", "-N", parser=STRICT_INT, help="N, the number of equidistant points"),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 1, 1/2, log(3)"),
    m: Optional[int] = typer.Option(None, "--brr-m", parser=STRICT_INT,
                                    help="BRR: fixed number m of e^ε-weighted outputs (not -m, the mechanism)"),
    m_old: Optional[int] = typer.Option(None, "--m", hidden=True, parser=STRICT_INT, help="former name of --brr-m"),
    m_rule: str = typer.Option("search", "--m-rule", help="BRR: search (Alg. 2) | closed-form (Alg. 3)"),
    reading: str = typer.Option("pseudocode", "--reading", help="BRR local search: pseudocode | text"),
    loss: str = typer.Option("abs", "--loss", help="abs | jaccard"),
    backend: str = typer.Option("ball", "--backend", "-b", help="exact | ball[:bits] | float"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
    max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds", help="refuse problems estimated to take longer"),
) -> None:
    """Q_g and QLoss of GRR, BRR or EM as an LDP channel (brr equations 11 and 12)."""
    from ..cost_limits import check_cost
    from ..ldp import BipartiteRR, ExponentialChannel, GeneralizedRR, closed_form_m, global_search, loss_by_name
    from ..ldp.cost_model import estimate_channel_cost

    m = deprecated_alias("--brr-m", m, "--m", m_old)
    target = prepare_output(output)
    out: dict[str, Any] = {"mechanism": mechanism, "domain": domain, "epsilon": epsilon, "loss": loss}
    _choice("--m-rule", m_rule, ("search", "closed-form"))  # refused even where unused (grr, em)
    _choice("--reading", reading, ("pseudocode", "text"))
    if mechanism != "brr":  # BRR's own options are refused for the others, never ignored
        for flag, given in (("--brr-m", m is not None), ("--m-rule", m_rule != "search"), ("--reading", reading != "pseudocode")):
            if given:
                _fail(f"{flag}: a BRR option; -m {mechanism} does not use it")
                return
    try:
        check_cost(estimate_channel_cost(mechanism, domain, backend), max_seconds=max_seconds)
        lm = loss_by_name(loss, domain)
        if mechanism == "grr":
            ch = GeneralizedRR(domain, epsilon).channel(backend, loss=lm)
        elif mechanism == "em":
            em = ExponentialChannel(lm, epsilon)
            ch = em.channel(backend)
            out["sensitivity"] = str(em.sensitivity)
        elif mechanism == "brr":
            brr = BipartiteRR(lm, epsilon, m=m, m_rule=m_rule, reading=reading)
            out["m_search"] = global_search(lm, epsilon, reading).m  # type: ignore[arg-type]
            out["m_closed_form"] = closed_form_m(domain, epsilon).m if loss == "abs" else None
            out["m"] = brr.resolved_m()
            out["reading"] = reading
            ch = brr.channel(backend)
        else:
            raise ValueError(f"mechanism must be grr, brr or em, got {mechanism!r}")
        qg, ql = ch.global_error(), ch.qloss()
        ratio = ch.max_column_ratio()
    except (ValueError, TypeError) as exc:
        _fail(str(exc))
        return
    exact = {f"{k}_exact": str(v.value) for k, v in (("global_error", qg), ("qloss", ql)) if v.error_kind == "exact"}
    out.update({"backend": ch.backend, "global_error": qg.as_float, "qloss": ql.as_float, **exact,
                "global_error_detail": _value_json(qg), "qloss_detail": _value_json(ql),
                "ldp_epsilon": ratio.as_float})
    emit_json(out, as_json, target, command="ldp")
    if as_json:
        return
    _print_fields({k: v for k, v in out.items() if not k.endswith("_detail")}
                  | {"Q_g bound": f"± {qg.error_bound:.3g} ({qg.error_kind})"})


def optimal_ldp(
    domain: int = typer.Option(..., "--domain", "-N", parser=STRICT_INT, help="N (<= 40)"),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε; log(rational) gives an exact certificate"),
    loss: str = typer.Option("abs", "--loss", help="abs | jaccard"),
    objective: str = typer.Option("prior", "--objective", help="prior (uniform Q_g) | worst-case (max_k Q^(k))"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
    max_seconds: float = typer.Option(DEFAULT_CLI_MAX_SECONDS, "--max-seconds", help="refuse problems estimated to take longer"),
) -> None:
    """Optimal ε-LDP channel (LP, HiGHS + exact certificate) and the ratios of GRR and BRR to it."""
    from ..ldp import BipartiteRR, GeneralizedRR, loss_by_name, optimal_ldp_channel
    from ..schemas.numbers import free_form

    target = prepare_output(output)
    try:
        lm = loss_by_name(loss, domain)
        opt = optimal_ldp_channel(lm, epsilon, objective=objective, max_seconds=max_seconds)  # type: ignore[arg-type]
        grr = GeneralizedRR(domain, epsilon).channel("ball", loss=lm)
        brr = BipartiteRR(lm, epsilon)
        bch = brr.channel("ball")
    except (ValueError, TypeError, RuntimeError) as exc:
        _fail(str(exc))
        return

    def score(ch: Any) -> float:
        if objective == "prior":
            return ch.global_error().as_float
        loc = [float(v.mid()) for v in ch.local_errors()]
        return max(loc) if lm.kind == "loss" else min(loc)

    best = float(opt.exact_value) if opt.certified else opt.value
    g, b = score(grr), score(bch)
    out = {"domain": domain, "epsilon": epsilon, "loss": loss, "objective": objective,
           "optimum": best, "optimum_exact": str(opt.exact_value) if opt.certified else None,
           "certified": opt.certified, "grr": g, "brr": b, "brr_m": brr.resolved_m(),
           "grr_ratio": g / best, "brr_ratio": b / best,
           "highs_primal_infeasibility": opt.primal_infeasibility, "details": free_form(opt.details)}
    emit_json(out, as_json, target, command="optimal-ldp")
    if as_json:
        return
    _print_fields(out)


def _print_fields(fields: dict[str, Any]) -> None:
    """``name: value`` lines, names right-aligned, values written plainly and wrapped to COLUMNS."""
    from .text import value, width, wrap

    pad = max(len(k) for k in fields)
    for k, v in fields.items():
        for line in wrap(f"{k:>{pad}}: {value(v, 16)}", width(), hang=" " * (pad + 2)):
            typer.echo(line)


def register(app: typer.Typer) -> None:
    app.command("ldp")(ldp)
    app.command("optimal-ldp")(optimal_ldp)
