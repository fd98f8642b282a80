"""The DP-SGD accounting table: dpexact's certified ε interval beside dp_accounting (PLD, default
discretisation) and prv_accountant, with CPU-time ratios measured in the same run.

Rows: σ × q × T × δ (the Poisson-subsampled Gaussian composed T times, both neighbouring directions).
For each row: dpexact's ``Accountant.epsilon_for_delta`` with the target relative width (1e-6 for
T <= 1000, 1e-4 above) within ``--max-seconds`` CPU; dp_accounting's ``PLDAccountant`` at its default
``value_discretization_interval`` (1e-4); prv_accountant's ``PRVAccountant`` (eps_error 1e-2 or
``--prv-eps-error``) with its (lower, estimate, upper) bracket. Opacus is not run (it pulls torch).

    python benchmarks/accounting_table.py --subset --out benchmarks/accounting_table_results.json
    python benchmarks/accounting_table.py --full --ratio 10 --jsonl benchmarks/accounting_table_rows.jsonl
    python benchmarks/accounting_table.py --markdown benchmarks/accounting_table_rows.jsonl   # the README table

Times are CPU seconds of this process (``time.process_time``); the machine load is recorded.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FULL = {"sigma": ["0.5", "0.8", "1", "2"], "q": ["1/1000", "1/100", "1/10"], "T": [100, 1000, 10000],
        "delta": ["1e-5", "1e-10", "1e-18"]}
#: a representative subset: both noise regimes, the middle rate, the two shorter runs, a moderate and a tiny δ
SUBSET = {"sigma": ["0.8", "2"], "q": ["1/100"], "T": [100, 1000], "delta": ["1e-5", "1e-10"]}


def _cpu(f):
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def row(sigma: str, q: str, T: int, delta: str, budget: float, prv_eps_error: float, ratio: float | None = None) -> dict:
    """One row. dp_accounting runs first; with ``ratio`` dpexact's CPU budget is ratio × its CPU time (so the
    row shows how narrow a certified interval fits in that budget), else ``budget`` seconds."""
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    from dpexact.accounting.accountant import Accountant
    from dpexact.numbers.real import Real

    tol = 1e-6 if T <= 1000 else 1e-4
    rec: dict = {"sigma": sigma, "q": q, "T": T, "delta": delta, "target_rel_width": tol}
    qf, sf, df = Real.of(q).to_float(), float(sigma), float(delta)

    def dpa():
        a = pld_privacy_accountant.PLDAccountant()
        a.compose(dp_event.PoissonSampledDpEvent(qf, dp_event.GaussianDpEvent(sf)), T)
        return a.get_epsilon(df)

    g, t_dpa = _cpu(dpa)
    rec.update(dp_accounting=g, dp_accounting_cpu=t_dpa)
    if ratio is not None:
        budget = min(budget, ratio * t_dpa)
    rec["dpexact_budget"] = budget
    acc = Accountant([{"kind": "gaussian", "sigma": sigma, "poisson": q, "count": T}], max_seconds=budget)
    try:
        e, t_ours = _cpu(lambda: acc.epsilon_for_delta(delta, tol))
        rec.update(lower=e.lower, upper=e.upper, rel_width=(e.upper - e.lower) / e.upper if e.upper else 0.0,
                   tolerance_met=bool(e.detail.get("tolerance_met", True)), h=e.detail.get("h"),
                   passes=e.detail.get("passes"), dpexact_cpu=t_ours)
    except ValueError as exc:  # the cost guard: recorded, not hidden
        rec.update(error=str(exc).splitlines()[0], dpexact_cpu=None)
    try:
        import prv_accountant as prv

        def prv_run():
            a = prv.PRVAccountant(prvs=[prv.PoissonSubsampledGaussianMechanism(noise_multiplier=sf, sampling_probability=qf)],
                                  max_self_compositions=[T], eps_error=prv_eps_error, delta_error=df / 1000)
            return a.compute_epsilon(delta=df, num_self_compositions=[T])

        (plo, pest, phi), t_prv = _cpu(prv_run)
        rec.update(prv_lower=plo, prv_estimate=pest, prv_upper=phi, prv_cpu=t_prv)
    except Exception as exc:  # a peer's crash is a finding of the benchmark
        rec.update(prv_error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    if "lower" in rec:
        lo, hi = rec["lower"], rec["upper"]
        rec["dp_accounting_outside"] = not (lo <= g <= hi)
        if "prv_estimate" in rec:
            rec["prv_estimate_outside"] = not (lo <= rec["prv_estimate"] <= hi)
            rec["prv_bracket_misses"] = rec["prv_upper"] < lo or rec["prv_lower"] > hi
        rec["cpu_ratio"] = t_ours / t_dpa if t_dpa > 0 else math.inf
    return rec


def _g(x, d: int = 9) -> str:
    return "—" if x is None else ("inf" if x == math.inf else f"{x:.{d}g}")


def markdown(path: str, old: str | None = None) -> str:
    """The README table and summary of a rows file (every number read from it); ``old``: a previous rows file
    whose relative widths are shown beside."""
    rows = [_inf_width(json.loads(x)) for x in Path(path).read_text().splitlines() if x.strip()]
    prev = {}
    if old:
        for x in Path(old).read_text().splitlines():
            if x.strip():
                r = _inf_width(json.loads(x))
                prev[(r["sigma"], r["q"], r["T"], r["delta"])] = r.get("rel_width")
    key = lambda r: (float(r["sigma"]), -Real_of(r["q"]), r["T"], -float(r["delta"]))  # noqa: E731
    out = ["| σ | q | T | δ | dpexact ε interval | rel. width (target) | before | dpexact CPU s (budget) | dp_accounting ε (CPU s) "
           "| ratio | prv (lower, est., upper) or error | dp_acc. / prv est. vs interval |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=key):
        k = (r["sigma"], r["q"], r["T"], r["delta"])
        if "lower" in r:
            lo, hi = r["lower"], r["upper"]
            iv = f"[{_g(lo)}, {_g(hi)}]"
            w = f"{r['rel_width']:.2g} ({r['target_rel_width']:g}, {'met' if r['tolerance_met'] else 'missed'})"

            def pos(x):
                return "—" if x is None else ("below" if x < lo else "above" if x > hi else "in")
        else:
            iv, w = r.get("error", "?")[:40], "—"

            def pos(x):
                return "—"
        pv = prev.get(k)
        before = "—" if pv is None else f"{pv:.2g}"
        prv = f"({_g(r['prv_lower'], 6)}, {_g(r['prv_estimate'], 6)}, {_g(r['prv_upper'], 6)})" if "prv_estimate" in r \
            else "crash: " + r.get("prv_error", "?")[:40]
        capped = "*" if _capped(r) else ""
        cpu = f"{r['dpexact_cpu']:.2f} ({r['dpexact_budget']:.2f}{capped})" if r.get("dpexact_cpu") is not None else "—"
        ratio = f"{r['cpu_ratio']:.1f}×" if "cpu_ratio" in r else "—"
        out.append(f"| {r['sigma']} | {r['q']} | {r['T']} | {r['delta']} | {iv} | {w} | {before} | {cpu} | "
                   f"{_g(r['dp_accounting'])} ({r['dp_accounting_cpu']:.2f}) | {ratio} | {prv} | "
                   f"{pos(r['dp_accounting'])} / {pos(r.get('prv_estimate'))} |")
    ratios = [r["cpu_ratio"] for r in rows if "cpu_ratio" in r]
    met = [r for r in rows if r.get("tolerance_met")]
    out.append("")
    out.append(f"Rows: {len(rows)}; width target met: {len(met)}; median CPU ratio "
               f"{statistics.median(ratios):.2f}× (min {min(ratios):.2f}, max {max(ratios):.2f}); rows <= 10×: "
               f"{sum(x <= 10 for x in ratios)}; load average {min(r['load'] for r in rows):.1f}–{max(r['load'] for r in rows):.1f}.")
    for q in ("1/1000", "1/100", "1/10"):
        sub = [r for r in rows if r["q"] == q and "rel_width" in r]
        if sub:
            out.append(f"q = {q}: {len(sub)} rows, met {sum(bool(r['tolerance_met']) for r in sub)}, median rel. width "
                       f"{statistics.median(r['rel_width'] for r in sub):.2g}"
                       + _before(sub, prev) + ".")
    free = [r for r in rows if "rel_width" in r and not _capped(r)]
    if free:
        out.append(f"Rows whose budget was 10× dp_accounting's CPU (not cut by --max-seconds, * above): {len(free)}, met "
                   f"{sum(bool(r['tolerance_met']) for r in free)}, median rel. width "
                   f"{statistics.median(r['rel_width'] for r in free):.2g}" + _before(free, prev) + ".")
    below = sum(1 for r in rows if "lower" in r and r["dp_accounting"] < r["lower"])
    above = sum(1 for r in rows if "lower" in r and r["dp_accounting"] > r["upper"])
    crashes = sum(1 for r in rows if "prv_error" in r)
    out.append(f"dp_accounting below the interval: {below}, above: {above}; prv estimate outside: "
               f"{sum(1 for r in rows if r.get('prv_estimate_outside'))}, prv bracket misses: "
               f"{sum(1 for r in rows if r.get('prv_bracket_misses'))}, prv crashes: {crashes}; dpexact errors: "
               f"{sum(1 for r in rows if 'error' in r)}.")
    return "\n".join(out)


def _inf_width(r: dict) -> dict:
    """An interval [x, ∞) has relative width (∞ − x)/∞ = nan in the rows file: it is ∞ (a nan would make every
    median meaningless)."""
    w = r.get("rel_width")
    if w is not None and w != w:
        r["rel_width"] = math.inf
    return r


def _capped(r: dict) -> bool:
    """The row's budget was cut by --max-seconds below 10× dp_accounting's CPU."""
    return r["dpexact_budget"] < 10 * r["dp_accounting_cpu"] * (1 - 1e-9)


def _before(sub: list, prev: dict) -> str:
    """The median width of the same rows in the previous file (only rows in both)."""
    pairs = [(r["rel_width"], prev[(r["sigma"], r["q"], r["T"], r["delta"])]) for r in sub
             if prev.get((r["sigma"], r["q"], r["T"], r["delta"])) is not None]
    if not pairs:
        return ""
    return (f" (on the {len(pairs)} rows also run before: now {statistics.median(a for a, _ in pairs):.2g}, before "
            f"{statistics.median(b for _, b in pairs):.2g}; narrower on {sum(a < b for a, b in pairs)})")


def Real_of(q: str) -> float:
    a, _, b = q.partition("/")
    return float(a) / float(b or 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--full", action="store_true", help="all 108 rows")
    g.add_argument("--subset", action="store_true", help="the representative subset (default)")
    ap.add_argument("--max-seconds", type=float, default=120.0, help="dpexact's CPU budget per row (a cap with --ratio)")
    ap.add_argument("--ratio", type=float, default=None,
                    help="dpexact's budget = RATIO × dp_accounting's CPU time on the row (the issue's 10×)")
    ap.add_argument("--spread", action="store_true", help="run the rows in a stride order (coverage if cut short)")
    ap.add_argument("--jsonl", default=None, help="append each row here as it finishes; rows already in it are skipped")
    ap.add_argument("--prv-eps-error", type=float, default=1e-2)
    ap.add_argument("--sigma", action="append", help="only these σ (repeatable)")
    ap.add_argument("--q", action="append", help="only these sampling rates, e.g. 1/100 (repeatable)")
    ap.add_argument("--out", default="benchmarks/accounting_table_results.json")
    ap.add_argument("--markdown", default=None, help="print the README table of this rows file and exit")
    ap.add_argument("--before", default=None, help="with --markdown: a previous rows file, its widths shown beside")
    a = ap.parse_args()
    if a.markdown:
        print(markdown(a.markdown, a.before))
        return
    grid = dict(FULL if a.full else SUBSET)
    if a.sigma:
        grid["sigma"] = a.sigma
    if a.q:
        grid["q"] = a.q
    rows = []
    done = {}
    if a.jsonl and Path(a.jsonl).exists():
        for line in Path(a.jsonl).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done[(r["sigma"], r["q"], r["T"], r["delta"])] = r
    load0 = os.getloadavg()
    order = list(itertools.product(grid["sigma"], grid["q"], grid["T"], grid["delta"]))
    if a.spread and len(order) > 1:  # a stride through the grid, so that a run cut short still covers every σ, q, T, δ
        stride = next(k for k in range(int(len(order) * 0.38), len(order)) if math.gcd(k, len(order)) == 1)
        order = [order[(i * stride) % len(order)] for i in range(len(order))]
    for sigma, q, T, delta in order:
        if (sigma, q, T, delta) in done:
            rows.append(done[(sigma, q, T, delta)])
            continue
        r = row(sigma, q, T, delta, a.max_seconds, a.prv_eps_error, a.ratio)
        r["load"] = os.getloadavg()[0]
        rows.append(r)
        print(json.dumps(r), flush=True)
        if a.jsonl:
            with open(a.jsonl, "a") as f:
                f.write(json.dumps(r) + "\n")
    ratios = [r["cpu_ratio"] for r in rows if "cpu_ratio" in r]
    widths = [r["rel_width"] for r in rows if "rel_width" in r]
    summary = {"rows": len(rows), "load_start": load0, "load_end": os.getloadavg(),
               "median_cpu_ratio": statistics.median(ratios) if ratios else None,
               "rows_within_10x": sum(1 for x in ratios if x <= 10),
               "median_rel_width": statistics.median(widths) if widths else None,
               "rows_tolerance_met": sum(1 for r in rows if r.get("tolerance_met")),
               "dp_accounting_outside": sum(1 for r in rows if r.get("dp_accounting_outside")),
               "prv_estimate_outside": sum(1 for r in rows if r.get("prv_estimate_outside")),
               "prv_bracket_misses": sum(1 for r in rows if r.get("prv_bracket_misses")),
               "grid": grid}
    Path(a.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
