"""Benchmark (not a test): where the time of the HiPO route goes, and what each HiGHS lever changes.

Usage:
    .venv/bin/python benchmarks/lp_hipo_levers.py [--n 8 --k 8 --eps 0.25] [--threads 2] [--lever NAME ...]
    .venv/bin/python benchmarks/lp_hipo_levers.py --one '{"form": "dual", "options": {...}}'   (one solve; used internally)

Each lever is one solve of the dual LP by HiPO in a fresh process (HiGHS keeps one thread pool per
process), exactly as :func:`dpexact.lp.solver.solve_regular_lp` does it, with HiPO's own log on
(``log_dev_level=1``) so that its summary can be read: analysis time, factorisations, factor
nonzeros and flops, factorisation and solve times. One JSON line per lever: wall and CPU seconds
(``time.process_time``, every thread) of build, solve and proven bounds, the 1-minute load average
before and after, IPM iterations and the proven interval (:mod:`dpexact.lp.tree_bounds`).
Levers: ``default`` (today's route), ``hipo-choose`` (HiPO's own choice of system and ordering),
``unscaled-cost`` (costs as built: 3e-7 … 6e-3 at n = k = 8), ``presolve-off``, ``primal`` (the
primal LP), ``block-64`` / ``block-256``, ``parallel-tree`` / ``parallel-node``, ``blas-1`` (the
BLAS inside HiPO on one thread: ``OPENBLAS_NUM_THREADS=1``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

LEVERS: dict[str, dict] = {
    "default": {},
    "hipo-choose": {"options": {"hipo_system": "choose", "hipo_ordering": "choose"}},
    "unscaled-cost": {"unscaled_cost": True},
    "presolve-off": {"options": {"presolve": "off"}},
    "primal": {"form": "primal"},
    "block-64": {"options": {"hipo_block_size": 64}},
    "block-256": {"options": {"hipo_block_size": 256}},
    "parallel-tree": {"options": {"hipo_parallel_type": "tree"}},
    "parallel-node": {"options": {"hipo_parallel_type": "node"}},
    "blas-1": {"env": {"OPENBLAS_NUM_THREADS": "1"}},
}

SUMMARY = {"analyse_s": r"^Analyse time:\s+(\S+)", "factorisations": r"^Factorisations:\s+(\S+)",
           "factor_nnz": r"^Nnz:\s+(\S+)", "factor_flops": r"^Flops:\s+(\S+)",
           "factorise_s": r"^Factorisation time:\s+(\S+)", "solves_s": r"^Solve time:\s+(\S+)",
           "presolve_s": r"^Time Pre\s+:\s+(\S+)"}


def one(n: int, k: int, eps: str, threads: int, spec: dict) -> dict:
    """One HiPO solve as the default route does it, with the lever ``spec`` applied."""
    import numpy as np
    import scipy.sparse as sp

    from dpexact.lp import build_regular_lp
    from dpexact.lp.highs_model import _new_highs, _pass_dual_model, _pass_model
    from dpexact.lp.tree_bounds import optimum_bounds

    t0, c0 = time.perf_counter(), time.process_time()
    lp = build_regular_lp(n, k, eps)
    d = lp.float_arrays(True)
    scale = 1.0 if spec.get("unscaled_cost") else 1.0 / float(d["cost"].max())
    d = {**d, "cost": d["cost"] * scale}
    build = (time.perf_counter() - t0, time.process_time() - c0)
    options = {"run_crossover": "off", "hipo_system": "normaleq", "hipo_ordering": "metis", "log_dev_level": 1,
               **spec.get("options", {})}
    h = _new_highs("hipo", None, threads, options)
    h.setOptionValue("output_flag", True)  # HiPO's summary goes to the console only
    h.setOptionValue("log_to_console", True)
    n_eq = d["A_eq"].shape[0]
    if spec.get("form", "dual") == "dual":
        _pass_dual_model(h, d)
    else:
        import highspy

        a = sp.vstack([d["A_eq"], d["A_ub"]]).tocsc()
        nr = a.shape[0]
        _pass_model(h, d["cost"], a, np.concatenate([np.ones(n_eq), np.zeros(nr - n_eq)]),
                    np.concatenate([np.ones(n_eq), np.full(nr - n_eq, highspy.kHighsInf)]))
    t1, c1 = time.perf_counter(), time.process_time()
    h.run()
    solve = (time.perf_counter() - t1, time.process_time() - c1)
    sol = h.getSolution()
    t2, c2 = time.perf_counter(), time.process_time()
    if spec.get("form", "dual") == "dual":
        w, u = -np.asarray(sol.row_dual), np.asarray(sol.col_value)[:n_eq]
    else:
        w, u = np.asarray(sol.col_value), np.asarray(sol.row_dual)[:n_eq]
    b = optimum_bounds(lp, w * d["colscale"], u / scale)
    bounds = (time.perf_counter() - t2, time.process_time() - c2)
    return {"status": h.modelStatusToString(h.getModelStatus()), "iterations": int(h.getInfo().ipm_iteration_count),
            "build_wall": build[0], "build_cpu": build[1], "solve_wall": solve[0], "solve_cpu": solve[1],
            "bounds_wall": bounds[0], "bounds_cpu": bounds[1], "lower": b.lower, "upper": b.upper,
            "rel_width": b.relative_width}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--eps", default="0.25")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--lever", action="append", choices=sorted(LEVERS))
    p.add_argument("--one", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one is not None:
        print("RESULT " + json.dumps(one(a.n, a.k, a.eps, a.threads, json.loads(a.one))), flush=True)
        return
    for name in a.lever or list(LEVERS):
        spec = LEVERS[name]
        env = {**os.environ, **spec.get("env", {})}
        load0 = os.getloadavg()[0]
        out = subprocess.run([sys.executable, __file__, "--n", str(a.n), "--k", str(a.k), "--eps", a.eps,
                              "--threads", str(a.threads), "--one", json.dumps(spec)],
                             env=env, capture_output=True, text=True, check=False).stdout
        row = {"lever": name, "n": a.n, "k": a.k, "eps": a.eps, "threads": a.threads, "load_before": load0,
               "load_after": os.getloadavg()[0]}
        for key, pattern in SUMMARY.items():
            m = re.search(pattern, out, re.M)
            row[key] = float(m.group(1)) if m else None
        res = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        row.update(json.loads(res[-1][7:]) if res else {"status": "failed"})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
