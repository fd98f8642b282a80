"""Scan (not a test): every registered mechanism at extreme ε and score spreads, on float, mp and ball.

Usage:
    python benchmarks/extremes_scan.py [--mechanisms em,pf] [--timeout 10] [--json out.json] [--quick]

For every (mechanism, ε, score vector) the float, mp and ball pmfs are computed (each under a
``--timeout`` alarm). The ball pmf is the reference (rigorous); it is itself checked: its
total must contain 1 and, for n <= 3 and rational ε on mechanisms with an exact backend, it
must contain the exact pmf. When mp and ball disagree beyond both statements, ball:256 is
computed to decide which is wrong. Counted per backend:

* ``nan``        — a returned value or bound is NaN / inf;
* ``outside``    — a value provably outside its own stated error bound (vs ball);
* ``unnormalised`` — the total provably differs from 1 by more than the stated bounds allow;
* ``error``      — a clear ValueError / TypeError / ArithmeticError (allowed);
* ``timeout``    — no answer within the alarm;
* ``crash``      — any other exception (a bug);
* ``ok``.

Prints one line per failure and a table of counts; ``--json`` writes every record.
"""

from __future__ import annotations

import argparse
import signal
import time
from collections import Counter
from typing import Any

import numpy as np
import sympy


import dpexact
from dpexact.numbers.pmf_compare import (
    ball_is_normalised,
    bound_violations,
    is_finite,
    normalisation_violation,
)

#: parameters a mechanism needs to be built (the rest take their defaults)
REQUIRED = {"err": {"p": "1/2"}, "err-naive": {"p": "1/2"}, "err-alg3": {"p": "1/2"}}
HAS_EXACT = {"em", "pf", "grr", "err", "err-naive", "err-alg3", "gem", "mgem", "combined-gem", "rnm-global"}

EPSILONS: list[tuple[str, Any]] = [
    ("1e-300", 1e-300), ("1e-12", 1e-12), ("1e-3", 1e-3), ("1", 1), ("1e3", 1e3),
    ("1e20", 1e20), ("1e300", 1e300), ("exp(1000)", sympy.exp(1000)),
]


def score_vectors(quick: bool) -> list[tuple[str, list[float]]]:
    out = [
        ("n1", [0.0]),
        ("n2 gap1", [1.0, 0.0]),
        ("n2 tie", [0.0, 0.0]),
        ("n3 gap1", [1.0, 0.0, 0.0]),
        ("n3 tie", [0.0, 0.0, 0.0]),
        ("n3 spread1e-12", [0.0, -1e-12, -2e-12]),
        ("n3 spread1e7", [0.0, 0.0, -1e7]),
        ("n3 spread1e300", [1e300, 0.0, -1e300]),
        ("n3 offset1e10", [1e10, 1e10 - 1, 1e10 - 1]),
    ]
    if not quick:
        out += [
            ("n50 tie", [0.0] * 50),
            ("n50 spread1", np.linspace(0.0, -1.0, 50).tolist()),
            ("n50 spread1e7", [0.0] * 25 + [-1e7] * 25),
        ]
    return out


class Timeout(Exception):
    pass


_FIRED = [False]


def _alarm(signum: int, frame: Any) -> None:
    _FIRED[0] = True
    raise Timeout()


def run(fn: Any, timeout: float) -> tuple[str, Any, float]:
    signal.signal(signal.SIGALRM, _alarm)
    _FIRED[0] = False
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    try:
        return "value", fn(), time.perf_counter() - t0
    except Timeout:
        return "timeout", None, time.perf_counter() - t0
    except (ValueError, TypeError, ArithmeticError) as exc:
        msg = str(exc)
        kind = "error" if "\n" not in msg and msg else "crash"
        return kind, f"{type(exc).__name__}: {msg[:160]}", time.perf_counter() - t0
    except Exception as exc:  # noqa: BLE001 - everything else is a bug to report
        if _FIRED[0]:  # the alarm fired inside a C callback (acb.integral re-raises it as SystemError)
            return "timeout", None, time.perf_counter() - t0
        return "crash", f"{type(exc).__name__}: {str(exc)[:160]}", time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _overlaps_exact(ball: Any, exact: Any) -> bool:
    """Whether every ball overlaps a (prec + 128)-bit enclosure of the exact value (a rigorous
    ball that does not is certainly wrong)."""
    from dpexact.numbers.real import Real

    return all(b.overlaps(Real.of(e).to_arb(256)) for b, e in zip(ball.values, exact.values))


def classify(p: Any, ball: Any) -> tuple[str, str]:
    if not is_finite(p):
        return "nan", f"values {p.to_float()} abs_error {p.abs_error}"
    if p.backend.startswith("ball"):
        if not ball_is_normalised(p):
            return "unnormalised", f"ball total {sum(p.to_float())} does not contain 1"
        return "ok", ""
    if ball is not None:
        v = bound_violations(p, ball)
        if v:
            return "outside", f"{v[0]} ({p.error_kind})"
    ex = normalisation_violation(p)
    if ex > 0:
        return "unnormalised", f"total {float(np.sum(p.to_float()))!r}, bound {p.abs_error:.3g}, excess {ex:.3g}"
    return "ok", ""


def scan(mechs: list[str], timeout: float, quick: bool) -> list[dict]:
    records = []
    for name in mechs:
        for eps_label, eps in EPSILONS:
            built = run(lambda: dpexact.mechanism(name, epsilon=eps, **REQUIRED.get(name, {})), timeout)
            if built[0] != "value":
                records.append(dict(mechanism=name, eps=eps_label, scores="-", backend="-", status=built[0],
                                    note=str(built[1])))
                continue
            m = built[1]
            for q_label, q in score_vectors(quick):
                res = {be: run(lambda be=be: m.pmf(q, backend=be), timeout) for be in ("float", "mp", "ball")}
                ball = res["ball"][1] if res["ball"][0] == "value" and is_finite(res["ball"][1]) else None
                ball_note = ""
                if ball is not None and name in HAS_EXACT and len(q) <= 3 and not isinstance(eps, sympy.Basic):
                    ex = run(lambda: m.pmf(q, backend="exact"), timeout)
                    if ex[0] == "value" and not _overlaps_exact(ball, ex[1]):
                        ball_note = "ball misses the exact pmf"
                for be, (kind, val, secs) in res.items():
                    status, note = (kind, str(val) if val is not None else "") if kind != "value" else classify(val, ball)
                    if be == "ball" and ball_note:
                        status, note = "outside", ball_note
                    if be == "mp" and status == "outside" and ball is not None:
                        # decide between mp and ball with a finer ball
                        fine = run(lambda: m.pmf(q, backend="ball:256"), timeout)
                        if fine[0] == "value" and bound_violations(ball, fine[1]):
                            status, note = "ok", "ball:128 was wrong (see ball)"
                    records.append(dict(mechanism=name, eps=eps_label, scores=q_label, backend=be, status=status,
                                        note=note, seconds=round(secs, 3)))
                    if status not in ("ok", "error"):
                        print(f"{status:12s} {name:13s} eps={eps_label:9s} {q_label:15s} {be:5s} {note}", flush=True)
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mechanisms", default=",".join(dpexact.available()))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true", help="skip the n = 50 vectors")
    a = ap.parse_args()
    if a.json:
        from dpexact.io import check_writable

        check_writable(a.json)
    t0 = time.perf_counter()
    recs = scan(a.mechanisms.split(","), a.timeout, a.quick)
    counts: dict[str, Counter] = {}
    for r in recs:
        counts.setdefault(r["backend"], Counter())[r["status"]] += 1
    statuses = ["ok", "error", "nan", "outside", "unnormalised", "timeout", "crash"]
    print("\nbackend\t" + "\t".join(statuses))
    for be, c in sorted(counts.items()):
        print(be + "\t" + "\t".join(str(c.get(s, 0)) for s in statuses))
    print(f"# {len(recs)} records in {time.perf_counter() - t0:.0f} s")
    if a.json:
        from dpexact.io import atomic_write_json

        atomic_write_json(a.json, recs)


if __name__ == "__main__":
    main()
