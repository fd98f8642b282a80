"""Twenty heterogeneous accounting rows (Gaussian, Laplace, randomized response, permute-and-flip at given
scores, subsampled steps): certified δ(ε) intervals, their widths and CPU seconds. Rows with a closed form
(Gaussian k-fold = one Gaussian with Δ√k; randomized response k-fold = a binomial sum in rationals) are
checked against it, computed here independently of the accountant.

    python benchmarks/accounting_mixes.py --out benchmarks/accounting_mixes_results.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

G = lambda s, k=1, **kw: {"kind": "gaussian", "sigma": s, "count": k, **kw}  # noqa: E731
L = lambda b, k=1, **kw: {"kind": "laplace", "scale": b, "count": k, **kw}  # noqa: E731
RR = lambda e, n=1, **kw: {"kind": "randomized-response", "epsilon": e, "count": n, **kw}  # noqa: E731
PF = {"kind": "mechanism", "name": "pf", "params": {"epsilon": "1/2"}, "x": ["0", "1", "2"], "x_prime": ["1", "1", "2"]}

ROWS = [
    ("gauss 3 events (closed form)", [G("1", 10), G("2", 4, sensitivity="2"), G("4", 16)], "1"),
    ("gauss 100-fold (closed form)", [G("5", 100)], "1/2"),
    ("gauss + gauss Δ≠1 (closed form)", [G("3", 9, sensitivity="1/2"), G("1/2")], "3"),
    ("RR 200-fold (3/4,1/4) exact", [RR("log(3)", 200)], "190*log(3)"),
    ("RR 50-fold e^ε = 2 exact", [RR("log(2)", 50)], "10"),
    ("RR + RR k=4 exact", [RR("log(3)", 20), RR("log(2)", 10, k=4)], "5"),
    ("RR subsampled q=1/10 exact", [RR("log(4)", 30, poisson="1/10")], "1"),
    ("gauss + laplace", [G("2", 5), L("4", 3)], "1"),
    ("gauss + RR", [G("2", 5), RR("1/2", 4)], "1"),
    ("laplace + RR", [L("2", 4), RR("log(3)", 3)], "2"),
    ("gauss + laplace + RR", [G("3", 4), L("5", 2), RR("1/4", 3)], "1"),
    ("pf selection 2-fold", [{**PF, "count": 2}], "1/2"),
    ("pf + gauss", [PF, G("2", 3)], "1"),
    ("pf + laplace + RR", [PF, L("3"), RR("1/2")], "1"),
    ("subsampled gauss 100 + laplace", [G("1", 100, poisson="1/100"), L("10")], "1"),
    ("subsampled gauss 10 + RR", [G("1", 10, poisson="1/10"), RR("1/2", 2)], "1"),
    ("discrete laplace + gauss", [{"kind": "discrete-laplace", "scale": "2", "count": 3}, G("2", 2)], "1"),
    ("discrete gauss + laplace", [{"kind": "discrete-gaussian", "sigma": "2", "count": 2}, L("4")], "1"),
    ("laplace 10-fold", [L("5", 10)], "1"),
    ("all kinds", [G("3", 2), L("6"), RR("1/3"), PF, {"kind": "discrete-laplace", "scale": "3"}], "2"),
]


def closed_form(name: str, events: list, eps: str):
    """The independent closed form of the rows that have one (None otherwise)."""
    import sympy

    from dpexact.accounting.privacy_profiles import gaussian_profile_ball
    from dpexact.numbers.real import Real

    if all(e["kind"] == "gaussian" and "poisson" not in e for e in events):
        mu2 = sum(e["count"] * (Real.of(e.get("sensitivity", "1")).to_sympy() / Real.of(e["sigma"]).to_sympy()) ** 2 for e in events)
        return float(gaussian_profile_ball(eps, 1, Real.of(sympy.sqrt(mu2)), 256).mid())
    if len(events) == 1 and events[0]["kind"] == "randomized-response" and events[0].get("k", 2) == 2 and "poisson" not in events[0]:
        E = Real.of(sympy.exp(Real.of(events[0]["epsilon"]).to_sympy()))
        if not E.is_rational:
            return None
        a = E.value
        p = a / (a + 1)
        n = events[0]["count"]
        Ee = sympy.exp(Real.of(eps).to_sympy())
        total = 0
        for i in range(n + 1):
            ratio = a ** (2 * i - n)
            if sympy.Rational(ratio.numerator, ratio.denominator) > Ee:
                total += comb(n, i) * p**i * (1 - p) ** (n - i) * (1 - Ee / sympy.Rational(ratio.numerator, ratio.denominator))
        return float(sympy.N(total, 30))
    return None


def main() -> None:
    from dpexact.accounting.accountant import Accountant

    ap = argparse.ArgumentParser()
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    ap.add_argument("--out", default="benchmarks/accounting_mixes_results.json")
    a = ap.parse_args()
    rows = []
    for name, events, eps in ROWS:
        acc = Accountant(events, max_seconds=a.max_seconds)
        t = time.process_time()
        d = acc.delta_for_epsilon(eps, a.tolerance)
        cpu = time.process_time() - t
        cf = closed_form(name, events, eps)
        rec = {"row": name, "epsilon": eps, "lower": d.lower, "upper": d.upper, "width": d.upper - d.lower,
               "rel_width": (d.upper - d.lower) / d.upper if d.upper else 0.0, "exact": d.exact,
               "route": d.detail.get("route"), "cpu": round(cpu, 2), "closed_form": cf,
               "contains_closed_form": None if cf is None else d.lower <= cf <= d.upper, "load": os.getloadavg()[0]}
        rows.append(rec)
        print(json.dumps(rec), flush=True)
    Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
