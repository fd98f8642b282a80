"""Benchmark (not a test): cost of the exact backend against n, per mechanism, and the n that fits ~10 s.

Usage:
    python benchmarks/exact_cost.py [--mechanisms em,pf] [--budget 10] [--stop 4]

For each mechanism with an exact backend and two kinds of ε — ``rational`` weights
(ε = 2 log 2 on integer scores: e^{c(q_r - q*)} are powers of 1/2, ``flint.fmpq`` arithmetic)
and ``irrational`` weights (ε = 1: sympy expressions) — the pmf of distinct integer scores
``q = (0, -1, ..., -(n-1))`` (every weight distinct: the worst case for grouping) is timed for
growing n until one run takes more than ``--stop`` seconds. A power law ``t = a n^k`` fitted to
the last three points gives the n at which the estimate reaches ``--budget`` seconds; those
numbers set ``exact_limit`` / ``exact_symbolic_limit`` in the mechanisms (with the fitted
constants, so that a refusal can quote its estimate).
"""

from __future__ import annotations

import argparse
import math
import time


import dpexact

MECHS = {
    "em": {}, "pf": {}, "grr": {}, "err": {"p": "1/2"}, "err-naive": {"p": "1/2"}, "err-alg3": {"p": "1/2"},
    "gem": {}, "mgem": {}, "combined-gem": {}, "rnm-global": {},
}
EPS = {"rational": "2*log(2)", "irrational": 1}


def measure(name: str, eps: object, stop: float, n_max: int = 20_000) -> list[tuple[int, float]]:
    m = dpexact.mechanism(name, epsilon=eps, **MECHS[name])
    # measure past the current guards (this script is what sets them)
    for cls in type(m).__mro__:
        if "exact_limit" in vars(cls) or "exact_symbolic_limit" in vars(cls):
            cls.exact_limit = cls.exact_symbolic_limit = 10**6
    out: list[tuple[int, float]] = []
    n = 4
    while n <= n_max:
        q = [-i for i in range(n)]
        t0 = time.perf_counter()
        try:
            m.pmf(q, backend="exact")
        except ValueError as exc:
            print(f"  {name} n={n}: refused ({str(exc)[:90]})", flush=True)
            break
        dt = time.perf_counter() - t0
        out.append((n, dt))
        print(f"  {name} {eps} n={n}: {dt:.3f} s", flush=True)
        if dt > stop:
            break
        n = int(n * 1.6) + 1
    return out


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares ``log t = log a + k log n`` over the last three points."""
    pts = [(math.log(n), math.log(max(t, 1e-6))) for n, t in points[-3:]]
    if len(pts) < 2:
        return math.nan, math.nan
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    k = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return math.exp(my - k * mx), k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mechanisms", default=",".join(MECHS))
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--stop", type=float, default=4.0)
    a = ap.parse_args()
    rows = []
    for name in a.mechanisms.split(","):
        for kind, eps in EPS.items():
            pts = measure(name, eps, a.stop)
            coef, k = fit(pts)
            n_budget = (a.budget / coef) ** (1 / k) if k and k > 0 and math.isfinite(coef) else math.nan
            rows.append((name, kind, pts[-1] if pts else None, coef, k, n_budget))
    print("\nmechanism\tweights\tlast (n, s)\ta\tk\tn at budget")
    for name, kind, last, coef, k, nb in rows:
        print(f"{name}\t{kind}\t{last}\t{coef:.3g}\t{k:.2f}\t{nb:.0f}")


if __name__ == "__main__":
    main()
