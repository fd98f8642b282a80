"""Width of the proven optimum interval vs time for the LP routes on Q(n, k), and the n = k = 10 figure.

    python benchmarks/lp_forest.py run --n 8 --k 8 --eps 0.25 --method forest-ipm [--time-limit S]
                                       [--ratios] [--out results.jsonl]
    python benchmarks/lp_forest.py figure --data results.jsonl --out benchmarks/lp_forest_n10.png

``run`` appends one JSON line per solve: route, status, iterations, wall and CPU seconds, load
average (the machine is shared), peak RSS, the proven interval of Σ_q E[err(M*, q)] and its
relative width, and with ``--ratios`` the PF and EM optimality ratios with their proven error
bounds (:func:`dpexact.lp.optimal_mechanism.optimality_ratio`) and proven ratio intervals that
also use PF's total error as an upper bound on the optimum (PF is feasible for the LP). ``figure`` plots the ratios vs ε
at n = k = 10 from those lines (error bars = the proven bounds).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def run(n: int, k: int, eps: str, method: str, time_limit: float | None, ratios: bool, out: str | None) -> dict:
    from dpexact import mechanism as build
    from dpexact.lp.optimal_mechanism import optimality_ratio
    from dpexact.lp.regular_lp import build_regular_lp
    from dpexact.lp.solver import solve_regular_lp

    c0, t0, load0 = time.process_time(), time.perf_counter(), os.getloadavg()[0]

    def note(kind: str, text: str) -> None:
        print(f"  {text} (cpu {time.process_time() - c0:.1f} s, load {os.getloadavg()[0]:.1f})", flush=True)

    lp = build_regular_lp(n, k, eps)
    sol = solve_regular_lp(lp, method=method, time_limit=time_limit, progress=note)  # type: ignore[arg-type]
    b = sol.bounds
    rec = {"n": n, "k": k, "epsilon": eps, "method": sol.method, "status": sol.status, "iterations": sol.iterations,
           "wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - c0, 2),
           "load_start": load0, "load_end": os.getloadavg()[0], "vertex": sol.is_vertex,
           "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
           "lower": b.lower, "upper": b.upper, "relative_width": b.relative_width}
    if ratios:
        nums = {}
        for name in ("pf", "em"):
            r = optimality_ratio(build(name, epsilon=eps), sol)
            rec[f"ratio_{name}"], rec[f"ratio_{name}_bound"] = r.as_float, r.error_bound
            num = r.details["numerator"]
            nums[name] = (num.as_float - num.error_bound, num.as_float + num.error_bound)
            rec[f"total_{name}"] = [nums[name][0], nums[name][1]]
        # PF is feasible for the LP (a regular ε-DP mechanism), so its proven total error is an
        # upper bound on the optimum too; the ratio intervals use the smaller of the two
        opt_hi = min(b.upper, nums["pf"][1])
        rec["optimum_upper_with_pf"] = opt_hi
        for name in ("pf", "em"):
            rec[f"ratio_{name}_interval"] = [nums[name][0] / opt_hi * (1 - 2**-50), nums[name][1] / b.lower * (1 + 2**-50)]
        rec["ratios_cpu_s"] = round(time.process_time() - c0 - rec["cpu_s"], 2)
    print(json.dumps(rec), flush=True)
    if out:
        with open(out, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
    return rec


def figure(data: str, out: str, n: int = 10) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(line) for line in open(data) if line.strip()]
    rows = [r for r in rows if r["n"] == n and r["k"] == n and "ratio_pf" in r]
    best: dict[float, dict] = {}
    for r in rows:  # the narrowest interval per ε
        e = float(r["epsilon"])
        if e not in best or r["relative_width"] < best[e]["relative_width"]:
            best[e] = r
    eps = sorted(best)
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
    for name, marker in (("pf", "o"), ("em", "s")):
        lo, hi, mid = [], [], []
        for e in eps:
            r = best[e]
            a, z = r.get(f"ratio_{name}_interval", (r[f"ratio_{name}"] - r[f"ratio_{name}_bound"],
                                                     r[f"ratio_{name}"] + r[f"ratio_{name}_bound"]))
            m = (a + z) / 2
            mid.append(m)
            lo.append(m - a)
            hi.append(z - m)
        tight = [i for i, e in enumerate(eps) if lo[i] + hi[i] <= 1e-6]
        wide = [i for i in range(len(eps)) if i not in tight]
        line = ax.plot([eps[i] for i in tight], [mid[i] for i in tight], marker=marker, label=name.upper())[0]
        if wide:  # an interval only: drawn as a bar, no point
            ax.errorbar([eps[i] for i in wide], [mid[i] for i in wide], yerr=[[lo[i] for i in wide], [hi[i] for i in wide]],
                        fmt="none", capsize=4, elinewidth=2, color=line.get_color())
    ax.set_xlabel("ε")
    ax.set_ylabel("Σ E[err(M)] / Σ E[err(M*)]")
    ax.set_title(f"optimality ratios on Q({n}, {n}); bars: proven intervals only", fontsize=10)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}: ε = {eps}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--n", type=int, required=True)
    r.add_argument("--k", type=int, required=True)
    r.add_argument("--eps", required=True)
    r.add_argument("--method", default="auto")
    r.add_argument("--time-limit", type=float, default=None)
    r.add_argument("--ratios", action="store_true")
    r.add_argument("--out", default=None)
    f = sub.add_parser("figure")
    f.add_argument("--data", required=True)
    f.add_argument("--out", default="benchmarks/lp_forest_n10.png")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.n, a.k, a.eps, a.method, a.time_limit, a.ratios, a.out)
    else:
        figure(a.data, a.out)


if __name__ == "__main__":
    main()
