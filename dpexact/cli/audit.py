"""``dpexact audit sampler LIB:CALL``, ``dpexact audit map LIB:CONSTRUCTOR`` and ``dpexact bench-audit``
(:mod:`dpexact.audit`, :mod:`dpexact.suites.audit`).

Exit statuses: ``audit sampler`` 0 conforms, 1 does not conform, 3 underpowered; ``audit map`` 0
when no point is anti-conservative, 1 otherwise; ``bench-audit`` 1 when a buggy row is not
detected or a correct row is flagged; 2 for bad input or a library that is not installed.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import typer

from .common import STRICT_INT, EXIT_FAIL, EXIT_OK, EXIT_UNDECIDED, EXIT_USAGE, emit_json, exit_with, output_option, prepare_output

__all__ = ["register"]

_NUM = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[a-z_][a-z0-9_]{0,31}")


def _value(text: str, name: str) -> Any:
    """A parameter value: a decimal number, or a comma list of numbers in brackets (no evaluation)."""
    t = text.strip()
    if t.startswith("[") and t.endswith("]"):
        return [_value(x, name) for x in t[1:-1].split(",") if x.strip()]
    if not _NUM.fullmatch(t):
        raise ValueError(f"--param {name}: expected a number or [n1, n2, ...], got {t[:40]!r}")
    return int(t) if re.fullmatch(r"[+-]?[0-9]+", t) else float(t)


def _params(items: Optional[list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for it in items or []:
        name, sep, val = it.partition("=")
        if not sep or not _NAME.fullmatch(name.strip()):
            raise ValueError(f"--param: expected NAME=VALUE, got {it[:40]!r}")
        out[name.strip()] = _value(val, name.strip())
    return out


def _missing(exc: Exception) -> None:
    typer.echo(f"error: {' '.join(str(exc).split())[:300]}", err=True)
    raise typer.Exit(code=EXIT_USAGE)


def is_map_witness_document(doc: Any) -> bool:
    """A map-witness record (``kind: map-witness``) or an ``audit map --json`` document."""
    return isinstance(doc, dict) and (doc.get("kind") == "map-witness" or doc.get("command") == "audit")


def replay_map_witnesses(doc: Any, file: str, as_json: bool, output: Optional[str]) -> None:
    """Re-check every map witness of ``doc`` from the record alone (no library imported) and exit:
    0 if every one holds, 1 if not; a document without witnesses is a usage error (ValueError)."""
    from ..audit.maps import recheck

    recs = [p["witness"] for p in doc.get("points", []) if isinstance(p, dict) and "witness" in p] \
        if isinstance(doc, dict) and doc.get("command") == "audit" else [doc]
    if not recs:
        raise ValueError(f"FILE: {file} holds no map witness")
    target_path = prepare_output(output)
    held = [recheck(r) for r in recs]
    emit_json({"mode": "replay", "target": file, "witnesses": len(held), "holding": sum(held),
               "verdict": "holds" if all(held) else "does not hold"}, as_json, target_path, command="audit")
    if not as_json:
        typer.echo(f"{sum(held)} of {len(held)} witnesses re-checked: the certified level exceeds the claim")
    exit_with(EXIT_OK if all(held) else EXIT_FAIL)


def register(app: typer.Typer) -> None:
    audit = typer.Typer(help="Audit deployed DP libraries: samplers against exact laws, privacy maps against certified levels.",
                        no_args_is_help=True)

    @audit.command("sampler")
    def sampler_cmd(
        target: list[str] = typer.Argument(..., metavar="LIB:CALL...",
                                           help="registered samplers, e.g. opendp:make_laplace:int (several: Holm across them)"),
        param: Optional[list[str]] = typer.Option(None, "--param", help="NAME=VALUE for the call (repeatable; one target only)"),
        draws: Optional[int] = typer.Option(None, "--draws", parser=STRICT_INT, help="N (default: the smallest N reaching --power)"),
        alpha: float = typer.Option(0.01, "--alpha", help="false-alarm rate (family-wise with several targets)"),
        tv: float = typer.Option(0.02, "--tv", help="total variation the power refers to"),
        power: float = typer.Option(0.95, "--power", help="power wanted against every law at TV >= --tv"),
        seed: int = typer.Option(0, "--seed", parser=STRICT_INT, help="seed (libraries that accept one, and the Monte Carlo critical value; always reported)"),
        max_seconds: float = typer.Option(120.0, "--max-seconds", help="time budget per sampler: refuse N whose estimate exceeds it"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Audit library samplers against dpexact's exact laws (exit 0 all conform, 1 one does not, 3 underpowered).

        With several targets each is planned at the Bonferroni level α/m (its power is stated there) and the
        verdicts come from Holm's step-down over their p-values at family-wise α."""
        from ..audit.adapters import MissingLibrary, parse_target
        from ..audit.gof import holm
        from ..audit.sampler import audit_sampler

        target_path = prepare_output(output)
        p = _params(param)
        if p and len(target) > 1:
            raise ValueError("--param: applies to one target only; give one LIB:CALL")
        if not 0 < alpha < 1:
            raise ValueError(f"--alpha must be in (0, 1), got {alpha}")
        tgts = [parse_target(t, "sampler") for t in target]  # every name checked before any library is imported
        m = len(tgts)
        say = (lambda s: typer.echo(f"plan: {s}", err=True)) if not as_json else None
        results = []
        try:
            for t in tgts:
                results.append(audit_sampler(t, p, draws=draws, alpha=alpha / m, tv=tv, power=power, seed=seed,
                                             max_seconds=max_seconds, announce=say))
        except MissingLibrary as exc:
            _missing(exc)
            return
        if m > 1:
            rej = holm([r.p_value if r.p_value is not None else 1.0 for r in results], alpha)
            for r, h in zip(results, rej):
                r.verdict = "does not conform" if h else ("conforms" if r.plan.power >= power else "underpowered")
            doc: dict[str, Any] = {"mode": "samplers", "target": " ".join(str(t) for t in tgts), "family_alpha": alpha,
                                   "correction": "Holm (plans at Bonferroni α/m)", "results": [r.as_dict() for r in results]}
        else:
            doc = {"mode": "sampler", **results[0].as_dict()}
        emit_json(doc, as_json, target_path, command="audit")
        if not as_json:
            for r in results:
                typer.echo(f"{r.target} ({r.law}): {r.verdict}; X² = {r.statistic:.4g}, p = {r.p_value:.3g}, N = {r.plan.draws}, "
                           f"seed {r.seed}{'' if r.seedable else ' (the library draws from its own unseeded RNG)'}")
                for f in r.failing[:8]:
                    typer.echo(f"  failing cell {f['cell']}: observed {f['observed']}, expected {f['expected']:.1f}")
                if r.floating:
                    typer.echo("  covers the shape of the real law (quantile cells wider than float spacing), not float-level leakage")
        verdicts = {r.verdict for r in results}
        exit_with(EXIT_FAIL if "does not conform" in verdicts else (EXIT_UNDECIDED if "underpowered" in verdicts else EXIT_OK))

    @audit.command("map")
    def map_cmd(
        target: str = typer.Argument(..., metavar="LIB:CONSTRUCTOR", help="a registered map, e.g. opendp:make_zCDP_to_approxDP"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Evaluate a library's privacy map on its grid against the certified level (exit 1 if anti-conservative)."""
        from ..audit.adapters import MissingLibrary
        from ..audit.maps import audit_map

        target_path = prepare_output(output)
        try:
            r = audit_map(target)
        except MissingLibrary as exc:
            _missing(exc)
            return
        d = r.as_dict()
        emit_json({"mode": "map", **d}, as_json, target_path, command="audit")
        if not as_json:
            typer.echo(f"{r.target}: {r.verdict}; {d['counts']}")
            for p in r.points:
                if p.status != "conservative":
                    typer.echo(f"  {p.status}: {p.params} claimed {p.claim} = {p.claimed!r}, level in [{p.level_lower!r}, {p.level_upper!r}]")
        exit_with(EXIT_FAIL if r.verdict == "anti-conservative" else EXIT_OK)

    @audit.command("replay")
    def replay_cmd(
        file: str = typer.Argument(..., metavar="FILE", help="a map witness record, or an `audit map --json` document"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Re-check map witnesses from the record alone (no library imported): exit 0 if every one holds, 1 if not."""
        import json
        from pathlib import Path

        from ..io import read_bounded_text
        from .schema import MAX_DOCUMENT_BYTES

        path = Path(file)
        if not path.is_file():
            raise ValueError(f"FILE: {file} is not a readable file")
        try:
            doc = json.loads(read_bounded_text(path, MAX_DOCUMENT_BYTES, "FILE"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ValueError(f"FILE: {file} is not JSON ({str(exc)[:80]})") from None
        replay_map_witnesses(doc, file, as_json, output)

    app.add_typer(audit, name="audit")

    @app.command("bench-audit")
    def bench_audit_cmd(
        seed: int = typer.Option(0, "--seed", parser=STRICT_INT, help="seed of the sampler rows"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        output: Optional[str] = output_option(),
    ) -> None:
        """Re-create historical DP-library bugs next to their correct versions and audit both (exit 1 if a bug is missed or a correct version flagged)."""
        from ..suites.audit import SUITE_ALPHA, SUITE_POWER, SUITE_TV, run_suite

        if not 0 <= seed < 2**63:
            raise ValueError(f"--seed must be in 0..2^63-1, got {str(seed)[:40]}")
        target_path = prepare_output(output)
        rows = run_suite(seed)
        ok = all(r["detected"] == r["buggy"] for r in rows)
        emit_json({"alpha": SUITE_ALPHA, "tv": SUITE_TV, "power": SUITE_POWER, "seed": seed, "ok": ok, "rows": rows},
                  as_json, target_path, command="bench-audit")
        if not as_json:
            for r in rows:
                typer.echo(f"{r['name']:30s} {'buggy  ' if r['buggy'] else 'correct'} {r['kind']:7s} {r['verdict']:18s} "
                           f"detected={r['detected']!s:5s} power={r['power']:.3f} N={r['draws']}")
        exit_with(EXIT_OK if ok else EXIT_FAIL)
