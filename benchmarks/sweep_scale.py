"""Sweep benchmarks (reported, never asserted).

* ``speedup``: one LP grid (Q(n, n), n in {6, 7}, five ε values) solved serially in this process
  and on a 2-worker local Dask cluster, in the same run; prints both wall times and their ratio
  (with and without the cluster's start-up, which includes importing the LP stack on each worker;
the serial run imports it before its clock starts). Each run uses a fresh store, so nothing is
skipped. On a shared machine the ratio measures the machine's load as much as the executor:
the output carries the load average.
* ``figure2``: a pf-Figure-2-style grid, the optimality ratio of PF and EM against ε, for
  (n, k) in {(3, 4), (4, 4), (5, 4), (6, 4), (8, 8)} over ``--eps`` values of ε in [1/10, 2]
  (default 20), on a local cluster; prints the wall time and writes the figure.

    python benchmarks/sweep_scale.py speedup [--workers 2]
    python benchmarks/sweep_scale.py figure2 [--store DIR] [--png FILE] [--eps 20] [--workers 2]

The figure2 store is resumable: re-running the command computes only what is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from dpexact.sweep import ResultStore, dask_client, parse_spec, run_sweep
from dpexact.sweep.report import plot_ratios

SPEEDUP_GRID = {"task": "optimal", "mechanisms": ["pf", "em"], "n": [6, 7], "k": [6, 7],
                "epsilon": ["1/2", "3/4", "1", "3/2", "2"]}


def _warm() -> None:
    """Import the LP stack and solve a tiny LP, so that neither mode's timing includes imports."""
    from dpexact.lp.summary import optimal_summary

    optimal_summary(3, 3, "1")


def speedup(workers: int) -> dict:
    spec = parse_spec(SPEEDUP_GRID)
    _warm()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        serial = run_sweep(spec, ResultStore(Path(tmp) / "serial"), workers=0)
        t_serial = time.perf_counter() - t0
        t0 = time.perf_counter()
        with dask_client(workers=workers) as client:
            client.wait_for_workers(workers)
            client.run(_warm)
            t_start = time.perf_counter() - t0
            t1 = time.perf_counter()
            dist = run_sweep(spec, ResultStore(Path(tmp) / "dist"), client=client)
            t_dist = time.perf_counter() - t1
        t_total = time.perf_counter() - t0
    same = {k: r.result["ratios"] for k, r in serial.rows.items()} == {k: r.result["ratios"] for k, r in dist.rows.items()}
    out = {
        "points": len(serial.points), "workers": workers, "serial_s": round(t_serial, 2),
        "cluster_start_s": round(t_start, 2), "distributed_s": round(t_dist, 2), "distributed_with_start_s": round(t_total, 2),
        "speedup": round(t_serial / t_dist, 2), "speedup_with_start": round(t_serial / t_total, 2),
        "identical_ratios": same,
        "task_seconds_serial": round(sum(r.seconds for r in serial.rows.values()), 2),
        "task_seconds_distributed": round(sum(r.seconds for r in dist.rows.values()), 2), "load_average": os.getloadavg(),
    }
    return out


def figure2(store: Path, png: Path, count: int, workers: int) -> dict:
    pairs = [(3, 4), (4, 4), (5, 4), (6, 4), (8, 8)]
    points_specs = [parse_spec({"task": "optimal", "mechanisms": ["pf", "em"], "n": n, "k": k,
                                "epsilon": {"linspace": ["1/10", "2", count]}}) for n, k in pairs]
    t0 = time.perf_counter()
    rows, points, computed, failed = {}, [], 0, 0
    with dask_client(workers=workers) as client:
        for s in points_specs:  # one client for all panels; each panel resumes independently
            rep = run_sweep(s, ResultStore(store), client=client)
            rows.update(rep.rows)
            points += rep.points
            computed += len(rep.computed)
            failed += len(rep.failed)
    wall = time.perf_counter() - t0
    plot_ratios(points, rows, png, title=f"optimality ratio vs ε, {count} values in [1/10, 2]")
    slowest = sorted(((r.seconds, r.grid["n"], r.grid["k"], r.grid["epsilon"], r.result["method"] if r.result else None)
                      for r in rows.values()), reverse=True)[:5]
    return {"points": len(points), "computed": computed, "failed": failed, "wall_s": round(wall, 1),
            "task_seconds_sum": round(sum(r.seconds for r in rows.values()), 1), "slowest": slowest,
            "figure": str(png), "load_average": os.getloadavg()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("speedup")
    a.add_argument("--workers", type=int, default=2)
    b = sub.add_parser("figure2")
    b.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "dpexact-figure2-store")
    b.add_argument("--png", type=Path, default=Path(__file__).with_name("sweep_figure2.png"))
    b.add_argument("--eps", type=int, default=20)
    b.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.cmd == "speedup":
        print(json.dumps(speedup(args.workers)))
    else:
        print(json.dumps(figure2(args.store, args.png, args.eps, args.workers)))


if __name__ == "__main__":
    main()
