"""The savings table: "ε at δ = 1e-6 after k selections" for EM and PF (docs/curves.md, benchmarks/README.md).

Columns per (mechanism, n, ε₀, k):
  dpexact_lower / dpexact_upper — certified: dpexact_upper = min(dpexact_pld, dpexact_rdp, exact_rr_kfold), each
      route certified on its own (dpexact.curves.compose.certified_epsilon); dpexact_upper_route names the one
      that gave it; the lower end is the k-fold of a witness pair (exact binomial law, arb);
  dpexact_pld — the curve's dominating pair (PrivacyCurve.dominating_pld, grid 0.01) as exact rational
      distributions (masses rounded down, deficits on a P-only and a Q-only atom) composed k times by the
      certified accountant (dpexact.accounting grid route; Zhu, Dong & Wang 2022, Thm 10); pld_pair_lower is the
      accountant's lower end for that pair (not a bound for the mechanism), pld_cpu_seconds its CPU;
  dpexact_rdp — the certified Rényi curve composed additively, converted by Canonne-Kamath-Steinke 2020 Prop. 12;
  exact_rr_kfold — the exact binomial k-fold of ε₀-RR, certified for any ε₀-DP mechanism (Kairouz, Oh &
      Viswanath 2015);
  dpexact_pld_fft — the same dominating pair exported (to_dp_accounting, grid 0.01) and composed by dp_accounting's
      FFT (float; the round trip);
  dp_acc_em_rr — the ε₀-DP dominating pair (ε-randomised response PLD, `from_privacy_parameters`), what
      an accountant that treats EM by its pure-DP label uses;
  dp_acc_pf_laplace — Laplace(1/ε₀) PLD (`from_laplace_mechanism`), the "PF is Laplace" event;
  zcdp_em — ρ = ε₀²/8 per step (Cesar & Rogers 2021), k·ρ converted with the same CKS formula;
  basic — k·ε₀;
  checks: bracket_ok (lower <= upper), fft_ge_lower (the round trip is never below dpexact's lower end).

    PYTHONPATH=. nice python benchmarks/curves_savings.py --out benchmarks/curves_savings_v2.jsonl
    python benchmarks/curves_savings.py --markdown /tmp/t.md --rows benchmarks/curves_savings_v2.jsonl \\
        --before benchmarks/curves_savings.jsonl

(PYTHONPATH=.: the script's directory comes first on sys.path, so without it the installed dpexact is used.)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

DELTA = 1e-6


def cks(rho_alpha, k: int, delta: float) -> float:
    best = math.inf
    for j in range(1, 400):
        a = 1 + j / 40
        best = min(best, k * rho_alpha(a) + math.log1p(-1 / a) - (math.log(delta) + math.log(a)) / (a - 1))
    return max(best, 0.0)


def run(args: argparse.Namespace) -> None:
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    from dpexact.curves.compose import (DEFAULT_ALPHAS, pld_epsilon, pure_dp_epsilon, rdp_epsilon_from_points,
                                        witness_epsilon_lower)
    from dpexact.curves.curve import privacy_curve

    ks = [int(x) for x in args.ks.split(",")]
    ns = [int(x) for x in args.ns.split(",")]
    with open(args.out, "a" if args.append else "w") as fh:
        for mech in args.mechs.split(","):
            for eps in args.eps.split(","):
                e0 = float(eps)
                rr = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, 0.0), value_discretization_interval=1e-3)
                lap = pld.from_laplace_mechanism(1 / e0, sensitivity=1.0, value_discretization_interval=1e-3)
                cache: dict = {}
                for n in ns:
                    # EM: the same curve for every n >= 2; PF: n = 2 tight, n >= 3 one curve for all n (its families
                    # do not depend on n; only the witness's inputs_at_n does)
                    key = "all" if mech == "em" else ("2" if n == 2 else ">=3")
                    t0 = time.process_time()
                    if key not in cache:
                        c = privacy_curve(mech, eps, n)
                        pts = c.renyi(list(DEFAULT_ALPHAS), tol=1e-9)
                        dom = c.dominating_pld(args.interval)
                        exp = c.to_dp_accounting(args.interval)
                        cache[key] = (c, pts, dom, exp, {})
                    c, pts, dom, exp, per_k = cache[key]
                    for k in ks:
                        if k not in per_k:
                            rdp = rdp_epsilon_from_points(pts, k, DELTA).upper
                            kov = pure_dp_epsilon(e0, k, DELTA).upper
                            tp = time.process_time()
                            try:
                                pp = pld_epsilon(c, k, DELTA, args.interval, max_seconds=args.pld_seconds, pld=dom)
                                pl, plo, refused = pp.upper, pp.witness["pair_lower"], None
                            except ValueError as exc:  # CostLimitError is a ValueError: keep the other routes
                                pl, plo, refused = None, None, str(exc)
                            pcpu = time.process_time() - tp
                            lo = witness_epsilon_lower(c, k, DELTA, grid=8, refine=args.refine_lower).lower
                            fft = float(exp.self_compose(k).get_epsilon_for_delta(DELTA))
                            routes = {"renyi": rdp, "pure": kov, **({"pld": pl} if pl is not None else {})}
                            best = min(routes, key=lambda r: routes[r])
                            per_k[k] = dict(dpexact_lower=lo, dpexact_upper=routes[best], dpexact_upper_route=best,
                                            dpexact_pld=pl, pld_pair_lower=plo, pld_refused=refused,
                                            pld_cpu_seconds=pcpu, dpexact_pld_fft=fft, dpexact_rdp=rdp, exact_rr_kfold=kov)
                        r = per_k[k]
                        row = {"mechanism": mech, "n": n, "eps0": e0, "k": k, "delta": DELTA, **r,
                               "dp_acc_em_rr": float(rr.self_compose(k).get_epsilon_for_delta(DELTA)),
                               "dp_acc_pf_laplace": float(lap.self_compose(k).get_epsilon_for_delta(DELTA)),
                               "zcdp_em": cks(lambda a: a * e0 * e0 / 8, k, DELTA) if mech == "em" else None,
                               "basic": k * e0, "tight_family": c.tight, "scope": c.scope,
                               "bracket_ok": r["dpexact_lower"] <= r["dpexact_upper"],
                               "fft_ge_lower": r["dpexact_pld_fft"] >= r["dpexact_lower"],
                               "cpu_seconds": time.process_time() - t0, "load": os.getloadavg()[0]}
                        fh.write(json.dumps(row) + "\n")
                        fh.flush()
                        print(json.dumps(row), flush=True)


def relower(args: argparse.Namespace) -> None:
    """Recompute only the lower end of the rows in ``--lower-from`` (witness grid 8 + ``--refine-lower`` golden-section
    steps on θ), keeping every other column; the previous lower end stays in ``dpexact_lower_grid8``."""
    from dpexact.curves.compose import witness_epsilon_lower
    from dpexact.curves.curve import privacy_curve

    rows = [json.loads(l) for l in open(args.lower_from)]
    cache: dict = {}
    for r in rows:
        key = (r["mechanism"], r["eps0"], r["k"], r["mechanism"] == "em" or r["n"] == 2)
        if key not in cache:
            t0 = time.process_time()
            c = privacy_curve(r["mechanism"], repr(r["eps0"]).rstrip("0").rstrip(".") if r["eps0"] != int(r["eps0"]) else str(int(r["eps0"])), r["n"])
            cache[key] = (witness_epsilon_lower(c, r["k"], DELTA, grid=8, refine=args.refine_lower).lower,
                          time.process_time() - t0, os.getloadavg()[0])
        lo, cpu, load = cache[key]
        r.setdefault("dpexact_lower_grid8", r["dpexact_lower"])
        r.update(dpexact_lower=max(lo, r["dpexact_lower_grid8"]), lower_refine_steps=args.refine_lower,
                 lower_cpu_seconds=cpu, lower_load=load)
        r["bracket_ok"] = r["dpexact_lower"] <= r["dpexact_upper"]
        r["fft_ge_lower"] = r["dpexact_pld_fft"] >= r["dpexact_lower"]
    with open(args.out, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")


def _g(x: float | None) -> str:
    return "—" if x is None else f"{x:.4g}"


def markdown(rows_path: str, before_path: str) -> str:
    """The README tables of the v2 rows, with the v1 bracket beside each cell (grouping identical n)."""
    rows = [json.loads(l) for l in open(rows_path)]
    old = {(r["mechanism"], r["n"], r["eps0"], r["k"]): r for r in map(json.loads, open(before_path))}
    out = []
    for mech in ("em", "pf"):
        out.append(f"**{mech.upper()}**\n")
        out.append("| n | ε₀ | k | dpexact certified [lower, upper] | upper's route | accountant (dominating pair) | "
                   "Rényi route | ε₀-RR k-fold | before (v1) [lower, upper] | width v2 / v1 | dp_accounting EM event "
                   "(ε-RR) | dp_accounting PF event (Laplace) | zCDP ε²/8 | basic kε₀ | exported PLD via "
                   "dp_accounting FFT | pair route CPU s |")
        out.append("|" + "---|" * 16)
        groups: dict = {}
        for r in rows:
            if r["mechanism"] != mech:
                continue
            sig = (r["eps0"], r["k"], r["dpexact_lower"], r["dpexact_upper"], r["dpexact_pld_fft"])
            o = old.get((mech, r["n"], r["eps0"], r["k"]))
            groups.setdefault((sig, None if o is None else (o["dpexact_lower"], o["dpexact_upper"])), []).append((r, o))
        for (_, _), items in groups.items():
            r, o = items[0]
            ns = [x["n"] for x, _ in items]
            nt = str(ns[0]) if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
            w2 = r["dpexact_upper"] - r["dpexact_lower"]
            w1 = None if o is None else o["dpexact_upper"] - o["dpexact_lower"]
            ratio = "—" if not w1 else f"{w2 / w1:.3f}"
            before = "—" if o is None else f"[{_g(o['dpexact_lower'])}, {_g(o['dpexact_upper'])}]"
            out.append(f"| {nt} | {r['eps0']:g} | {r['k']} | [{_g(r['dpexact_lower'])}, {_g(r['dpexact_upper'])}] | "
                       f"{r['dpexact_upper_route']} | {_g(r['dpexact_pld'])} | {_g(r['dpexact_rdp'])} | "
                       f"{_g(r['exact_rr_kfold'])} | {before} | {ratio} | {_g(r['dp_acc_em_rr'])} | "
                       f"{_g(r['dp_acc_pf_laplace'])} | {_g(r['zcdp_em'])} | {_g(r['basic'])} | "
                       f"{_g(r['dpexact_pld_fft'])} | {r['pld_cpu_seconds']:.2f} |")
        out.append("")
    for mech in ("em", "pf"):
        for label, sel in (("n = 2", lambda n: n == 2), ("n = 5, 10, 100", lambda n: n > 2)):
            ratios = sorted((r["dpexact_upper"] - r["dpexact_lower"]) /
                            (old[(mech, r["n"], r["eps0"], r["k"])]["dpexact_upper"] - old[(mech, r["n"], r["eps0"], r["k"])]["dpexact_lower"])
                            for r in rows if r["mechanism"] == mech and sel(r["n"]) and (mech, r["n"], r["eps0"], r["k"]) in old
                            and old[(mech, r["n"], r["eps0"], r["k"])]["dpexact_upper"] > old[(mech, r["n"], r["eps0"], r["k"])]["dpexact_lower"])
            if ratios:
                routes = sorted({r["dpexact_upper_route"] for r in rows if r["mechanism"] == mech and sel(r["n"])})
                out.append(f"{mech.upper()} {label}: bracket width v2 / v1 median {ratios[len(ratios) // 2]:.3f}, smallest "
                           f"{ratios[0]:.3f}, largest {ratios[-1]:.3f} over {len(ratios)} rows; upper end's routes: {', '.join(routes)}.")
    cells = {(r["mechanism"], r["eps0"], r["k"], r["tight_family"]): r for r in rows}.values()  # one per curve and k
    inside = [r for r in cells if r["dpexact_pld"] is not None
              and r["pld_pair_lower"] - 1e-9 <= r["dpexact_pld_fft"] <= r["dpexact_pld"] + 1e-9]
    dev = max((abs(r["dpexact_pld_fft"] - r["dpexact_pld"]) / r["dpexact_pld"] for r in cells if r["dpexact_pld"]), default=0)
    out.append(f"dp_accounting's FFT of the exported pair inside the accountant's certified interval for the same pair: "
               f"{len(inside)} of {len(cells)} (curve, k) cells; largest |FFT − certified upper| / upper {dev:.1e}.")
    cpu = sum(r["cpu_seconds"] for r in rows)
    loads = [r["load"] for r in rows]
    if any("lower_cpu_seconds" in r for r in rows):
        lows = {(r["mechanism"], r["eps0"], r["k"], r["mechanism"] == "em" or r["n"] == 2): r for r in rows}.values()
        out.append(f"Lower ends recomputed with {rows[0].get('lower_refine_steps')} golden-section steps on θ (--lower-from): "
                   f"{sum(r['lower_cpu_seconds'] for r in lows):.0f} CPU-s for {len(lows)} (curve, k) cells, load average "
                   f"{min(r['lower_load'] for r in lows):.1f}–{max(r['lower_load'] for r in lows):.1f}.")
    out.append(f"Rows: {len(rows)}; bracket_ok on {sum(r['bracket_ok'] for r in rows)}, fft_ge_lower on "
               f"{sum(r['fft_ge_lower'] for r in rows)}; total CPU {cpu:.0f} s; load average "
               f"{min(loads):.1f}–{max(loads):.1f}.")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/curves_savings_v2.jsonl")
    ap.add_argument("--eps", default="0.1,0.5,1,2")
    ap.add_argument("--ks", default="10,100,1000")
    ap.add_argument("--ns", default="2,5,10,100")
    ap.add_argument("--interval", type=float, default=1e-2)
    ap.add_argument("--pld-seconds", type=float, default=300.0, help="CPU budget of one accountant query")
    ap.add_argument("--mechs", default="em,pf")
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--refine-lower", type=int, default=14, help="golden-section steps on the witness θ (0: grid only)")
    ap.add_argument("--lower-from", help="recompute only the lower end of these rows (written to --out)")
    ap.add_argument("--markdown", help="write the README tables of --rows (with --before's brackets) to this file")
    ap.add_argument("--rows", default="benchmarks/curves_savings_v2.jsonl")
    ap.add_argument("--before", default="benchmarks/curves_savings.jsonl")
    args = ap.parse_args()
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(markdown(args.rows, args.before))
        return
    if args.lower_from:
        relower(args)
        return
    run(args)


if __name__ == "__main__":
    main()
