"""Benchmark (not a test): size and solve time of the optimal-regular-mechanism LP (pf App. D).

Usage:
    .venv/bin/python benchmarks/lp_scale.py scale   [--n 8 --k 8 --eps 0.05,0.25,0.5,1,2] [--method hipo] [--no-crossover]
    .venv/bin/python benchmarks/lp_scale.py sweep   [--n 8 --k 8 --eps 2,1,0.5,0.25,0.1,0.05]
    .venv/bin/python benchmarks/lp_scale.py figure2
    .venv/bin/python benchmarks/lp_scale.py targets [--eps 0.05,0.25,...] [--eps10 2,1,0.25] [--pdlp-seconds 540]

``scale``: one cold solve per ε (build + HiGHS via row/column generation), printing LP sizes,
times and the optimum. ``sweep``: the same ε list solved in order, each warm-started from
the previous solution's active set. ``figure2``: pf Figure 2's optimality ratios of PF and EM
as a table over ε for several (n, k), plus the exact dual-feasibility threshold.
"""

from __future__ import annotations

import argparse
import os
import time

import dpexact
from dpexact.lp import (
    LEMMA7_THRESHOLD,
    build_regular_lp,
    dual_feasibility_threshold,
    optimality_ratio,
    solve_regular_lp,
)
from dpexact.lp.solver import AUTO_GENERATION_EPSILON


def run(n: int, k: int, eps_list: list[str], warm: bool, method: str, crossover: bool) -> None:
    prev = None
    print(f"# Q({n},{k}) method={method} warm={warm} crossover={crossover}")
    print("eps\tvars\tconstraints\tbuild_s\tsolve_s\ttotal_s\tcpu_s\tload\trounds\titers\tvertex\t"
          "proven_lower\tproven_upper\trel_width\tprimal_viol")
    for eps in eps_list:
        t0 = time.perf_counter()
        c0 = time.process_time()  # CPU seconds of every thread: what a loaded machine does not inflate
        lp = build_regular_lp(n, k, eps)
        tb = time.perf_counter() - t0
        sol = solve_regular_lp(lp, method=method, warm_start=prev if warm else None,  # type: ignore[arg-type]
                               crossover=crossover)
        tt = time.perf_counter() - t0
        cpu = time.process_time() - c0
        b = sol.bounds
        print(f"{eps}\t{lp.num_vars}\t{lp.num_constraints}\t{tb:.2f}\t{sol.seconds:.2f}\t{tt:.2f}\t{cpu:.2f}\t"
              f"{os.getloadavg()[0]:.1f}\t{sol.rounds}\t"
              f"{sol.iterations}\t{sol.is_vertex}\t{b.lower:.12g}\t{b.upper:.12g}\t{b.relative_width:.1e}\t"
              f"{sol.primal_infeasibility:.1e}", flush=True)
        prev = sol


def targets(eps8: list[str], eps10: list[str], pdlp_seconds: float) -> None:
    """Issue 5's scale targets: Q(8, 8) at any ε in <= 30 s, Q(10, 10) within 10 minutes.

    ``method="auto"`` without crossover (a vertex where generation runs, else HiPO's interior
    point); every line carries the proven interval around the optimum. For Q(10, 10) below
    auto's generation range, PDLP under a time limit (HiPO's factor would not fit in memory).
    ``met``: within the time target *and* the optimum proven to relative width <= 1e-6.
    """
    print("n\tk\teps\tvars\trows\troute\tstatus\ttotal_s\ttarget_s\tmet\tvertex\tproven_lower\tproven_upper\trel_width")
    for n, eps_list, target in ((8, eps8, 30.0), (10, eps10, 600.0)):
        for eps in eps_list:
            t0 = time.perf_counter()
            lp = build_regular_lp(n, n, eps)
            big_small_eps = n == 10 and float(eps) < AUTO_GENERATION_EPSILON
            if big_small_eps:
                sol = solve_regular_lp(lp, method="pdlp", crossover=False, time_limit=pdlp_seconds)
            else:
                sol = solve_regular_lp(lp, method="auto", crossover=False)
            tt = time.perf_counter() - t0
            b = sol.bounds
            print(f"{n}\t{n}\t{eps}\t{lp.num_vars}\t{lp.num_constraints}\t{sol.method}\t{sol.status}\t{tt:.1f}\t"
                  f"{target:.0f}\t{tt <= target and b.relative_width <= 1e-6}\t{sol.is_vertex}\t{b.lower:.12g}\t{b.upper:.12g}\t{b.relative_width:.1e}",
                  flush=True)


def figure2() -> None:
    eps_grid = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95", "1", "1.5", "2", "3", "5"]
    print(f"Lemma 7 threshold log((3+sqrt5)/2) = {LEMMA7_THRESHOLD.to_float():.6f}")
    for n, k in [(2, 4), (3, 4), (4, 4), (5, 4), (6, 4), (4, 2), (4, 6), (4, 8), (6, 6)]:
        th = dual_feasibility_threshold(n, k) if n * k <= 36 else None
        ths = "none" if th is None or th.epsilon_star is None else f"{float(th.epsilon_star.mid()):.6f}"
        print(f"\n# n={n} k={k}  dual recurrence feasible for eps > {ths}")
        print("eps\tratio_PF\tratio_EM\tbound")
        for eps in eps_grid:
            sol = solve_regular_lp(build_regular_lp(n, k, eps))
            pf = optimality_ratio(dpexact.mechanism("pf", epsilon=eps), sol)
            em = optimality_ratio(dpexact.mechanism("em", epsilon=eps), sol)
            print(f"{eps}\t{pf.as_float:.9f}\t{em.as_float:.6f}\t{max(pf.error_bound, em.error_bound):.1e}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["scale", "sweep", "figure2", "targets"])
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--eps", default=None)
    ap.add_argument("--method", default="generation")
    ap.add_argument("--no-crossover", action="store_true", help="interior-point routes: stop at the interior solution")
    ap.add_argument("--eps10", default="2,1,0.75,0.25", help="targets: ε list for Q(10, 10)")
    ap.add_argument("--pdlp-seconds", type=float, default=540.0, help="targets: PDLP time limit for Q(10, 10)")
    a = ap.parse_args()
    if a.mode == "figure2":
        figure2()
        return
    if a.mode == "targets":
        eps8 = [e for e in (a.eps if a.eps is not None else "0.05,0.1,0.25,0.4,0.5,0.6,0.75,1,2").split(",") if e]
        targets(eps8, [e for e in a.eps10.split(",") if e], a.pdlp_seconds)
        return
    default = "0.05,0.25,0.5,1,2" if a.mode == "scale" else "2,1,0.5,0.25,0.1,0.05"
    run(a.n, a.k, (a.eps or default).split(","), a.mode == "sweep", a.method, not a.no_crossover)


if __name__ == "__main__":
    main()
