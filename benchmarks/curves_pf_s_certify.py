"""Certify statement S (docs/curves.md; issue 34) over its whole domain at one ε: rows appended as it goes.

S: for every ρ > 0 and x ∈ [κ, 1] some λ >= 0 has ψ − λφ <= 0 on the n = 3 family (ρ, 1, c) → (ρ, κ, s c).
The domain is covered by three zones of ρ (``dpexact/curves/pf_separation.py``: ρ = κt, ρ = κ^{1−t}, 1/ρ = t,
t ∈ [0, 1], so ρ = 0 and ρ = ∞ are included as limits) times x = κ + (1 − κ)u, u ∈ [0, 1]. Each initial box is
proved (split into four up to ``--depth`` times) with a λ chosen by a float screen at the box (the proof does not
depend on how λ was chosen) or, next to the diagonal ρ = x, with λ = λ₂(ρ, x) (Lemma T). One jsonl row per
initial box (its proved leaves with their λ, failures, evaluations, CPU-s); a rerun skips the boxes already in the
file (resumable). ``--summary`` prints the totals: S is certified at ε iff every initial box is proved. A finished
file is committed as ``gzip -n -9`` and entered in ``dpexact/curves/pf_s_certified.py`` (hash, strip, leaves, CPU-s);
``--max-cpu`` bounds a run's cost (it stops between boxes and resumes later).

    nice python benchmarks/curves_pf_s_certify.py --eps 1 --out benchmarks/pf_s_certificate/eps_1.jsonl
    python benchmarks/curves_pf_s_certify.py --eps 1 --out benchmarks/pf_s_certificate/eps_1.jsonl --summary
    python benchmarks/curves_pf_s_certify.py --eps 4 --out benchmarks/pf_s_certificate/eps_4_corner.jsonl.gz --recheck --prec 128

Next to the lower corner (κ, κ) pass ``--band 0`` (ε = 4's corner strip: ``--nu 3 --u-range 0.0125,0.05 --depth 14
--band 0``): with a band, boxes near but off ρ = x are tried in the tangency mode only, which there needs the
diagonal's (x − κ)²-small widths (one box: 42.6 CPU-s with the default band, 9.6 without).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
from curves_pf_separation import margins
from flint import arb, ctx

from dpexact.curves.pf_separation import Box, check_box

ZONES = ("small", "mid", "large")


def rho_float(zone: str, t: float, eps: float) -> float:
    if zone == "small":
        return math.exp(-eps) * max(t, 1e-12)
    if zone == "mid":
        return math.exp(-eps * (1 - t))
    return 1 / max(t, 1e-12)


_SCREEN: dict = {}  # (ε, zone, t, u) -> the screen's (L, U) scaled; children share their parents' corners


def _screen(eps: float, zone: str, t: float, u: float) -> tuple:
    k = (eps, zone, t, u)
    if k not in _SCREEN:
        kap = math.exp(-eps)
        beta = np.concatenate([[0.0], np.logspace(-7, 7, 120)])
        rho, x = rho_float(zone, t, eps), kap + (1 - kap) * u
        r = margins(eps, rho, x, beta, np.linspace(kap, 1, 7))
        scale = 1.0 if zone == "mid" else rho
        _SCREEN[k] = (max(r["L"], 0.0) * scale, r["U"] * scale)
    return _SCREEN[k]


def choose_lambda(eps: float, box: Box, geometric: bool = False) -> float | None:
    """ρλ (small, large) or λ (mid) in the middle of the screen's feasible interval at the box's corners/centre
    (arithmetic mean; ``geometric``: the geometric mean, for when the screen's grid misses the binding c)."""
    lo, hi = 0.0, math.inf
    for t in (box.t0, (box.t0 + box.t1) / 2, box.t1):
        for u in (box.u0, box.u1):
            a, b = _screen(eps, box.zone, t, u)
            lo, hi = max(lo, a), min(hi, b)
    if not lo <= hi:
        return None
    if not math.isfinite(hi):
        return 2 * lo + 1e-3
    return math.sqrt(lo * hi) if geometric and lo > 0 else (lo + hi) / 2


def near_diagonal(eps: float, box: Box, band: float) -> bool:
    if box.zone != "mid":
        return False
    kap = math.exp(-eps)
    r0, r1 = rho_float("mid", box.t0, eps), rho_float("mid", box.t1, eps)
    x0, x1 = kap + (1 - kap) * box.u0, kap + (1 - kap) * box.u1
    w = band * min(x0, 1 - kap)  # relative to the width of [κ, 1] too: at small ε everything is "near" otherwise
    return r1 >= x0 - w and r0 <= x1 + w


def prove(eps: float, kappa, box: Box, depth: int, args) -> tuple[list, list, int]:
    """Leaves proved [(box, mode, λ, evals)], leaves failed [(box, note)], evaluations."""
    proved, failed, evals = [], [], 0
    _SCREEN.clear()
    todo = [(box, 0, None)]
    while todo:
        b, d, parent_lam = todo.pop()
        if near_diagonal(eps, b, 0.0):
            modes = ["n2"]  # the box meets ρ = x: a constant λ cannot work there (the member pins λ = λ₂ from both sides)
        elif near_diagonal(eps, b, args.band):
            modes = ["n2"] if d < args.depth - 2 else ["n2", "const"]  # the screen's λ is the costly part
        else:
            modes = ["const", "n2"] if b.zone == "mid" else ["const"]
        done = False
        tried = []
        for mode in modes:
            lams = [0.0] if mode == "n2" else [parent_lam, "mid", "geo"]
            for lam in lams:
                if mode == "const":
                    lam = choose_lambda(eps, b, lam == "geo") if lam in ("mid", "geo") else lam
                    if lam is None or lam in tried:
                        continue
                    tried.append(lam)
                r = check_box(b, kappa, lam, mode, args.budget)
                if r is not None:
                    proved.append((b, mode, lam, r["evals"]))
                    evals += r["evals"]
                    done = True
                    break
            if done:
                break
        if done:
            continue
        if d >= depth:
            failed.append(b)
            continue
        tm, um = (b.t0 + b.t1) / 2, (b.u0 + b.u1) / 2
        todo += [(Box(b.zone, t0, t1, u0, u1), d + 1, tried[-1] if tried else None)
                 for t0, t1 in ((b.t0, tm), (tm, b.t1)) for u0, u1 in ((b.u0, um), (um, b.u1))]
    return proved, failed, evals


def initial_boxes(args) -> list[Box]:
    ua, ub = map(float, args.u_range.split(","))
    us = [ua + (ub - ua) * m / args.nu for m in range(args.nu)] + [ub]
    out = []
    for zone in ZONES:
        nt = args.nt_mid if zone == "mid" else args.nt
        for k in range(nt):
            for m in range(args.nu):
                out.append(Box(zone, k / nt, (k + 1) / nt, us[m], us[m + 1]))
    return out


def key(eps: str, b: Box) -> tuple:
    return (eps, b.zone, b.t0, b.t1, b.u0, b.u1)


def recheck(args, kappa) -> None:
    """Every leaf of a certificate re-proved with its stored mode and λ (e.g. at 128 bits; the runs use 64)."""
    import gzip

    opener = gzip.open if args.out.endswith(".gz") else open
    with opener(args.out, "rt") as f:
        leaves = [lf for line in f for row in [json.loads(line)] if row.get("kind") == "box" for lf in row["leaves"]]
    t0 = time.process_time()
    bad = [lf for lf in leaves if check_box(Box(*lf[:5]), kappa, lf[6], lf[5], args.budget) is None]
    print(json.dumps({"leaves": len(leaves), "reproved": len(leaves) - len(bad), "prec": args.prec,
                      "cpu": round(time.process_time() - t0, 1), "not_reproved": bad[:20]}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eps", required=True, help="ε (decimal text; κ = e^{−ε} as a ball)")
    ap.add_argument("--out", required=True, help="jsonl file, appended (resumable)")
    ap.add_argument("--nt", type=int, default=4, help="initial boxes in t per end zone")
    ap.add_argument("--nt-mid", type=int, default=16, help="initial boxes in t, mid zone")
    ap.add_argument("--nu", type=int, default=16, help="initial boxes in u (x)")
    ap.add_argument("--u-range", default="0,1", help="u-range a,b (x = κ + (1 − κ)u): the strip certified")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--budget", type=int, default=400, help="evaluations per one-dimensional check")
    ap.add_argument("--band", type=float, default=0.15, help="relative distance to ρ = x where λ₂ is tried first")
    ap.add_argument("--prec", type=int, default=64)
    ap.add_argument("--max-cpu", type=float, default=math.inf, help="stop (resumable) after this many CPU-s")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--recheck", action="store_true",
                    help="re-prove every stored leaf of --out (.jsonl or .jsonl.gz) at --prec; prints the count")
    args = ap.parse_args()
    ctx.prec = args.prec
    eps = float(args.eps)
    kappa = (-arb(args.eps)).exp()
    if args.recheck:
        recheck(args, kappa)
        return
    seen = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                row = json.loads(line)
                if row.get("kind") == "box":
                    seen[(row["eps"], *row["box"])] = row
    boxes = initial_boxes(args)
    if args.summary:
        rows = [seen.get(key(args.eps, b)) for b in boxes]
        done = [r for r in rows if r is not None]
        print(json.dumps({"eps": args.eps, "initial_boxes": len(boxes), "done": len(done),
                          "proved": sum(1 for r in done if not r["failed"]),
                          "failed_leaves": sum(len(r["failed"]) for r in done),
                          "leaves": sum(len(r["leaves"]) for r in done), "evals": sum(r["evals"] for r in done),
                          "cpu": round(sum(r["cpu"] for r in done), 1),
                          "certified": len(done) == len(boxes) and all(not r["failed"] for r in done),
                          "failed_where": [f for r in done for f in r["failed"]][:20]}))
        return
    t_start = time.process_time()
    for b in boxes:
        if key(args.eps, b) in seen:
            continue
        if time.process_time() - t_start > args.max_cpu:
            print(json.dumps({"stopped": "max-cpu", "cpu": time.process_time() - t_start}), flush=True)
            return
        t0 = time.process_time()
        proved, failed, evals = prove(eps, kappa, b, args.depth, args)
        row = {"kind": "box", "eps": args.eps, "box": [b.zone, b.t0, b.t1, b.u0, b.u1],
               "leaves": [[p.zone, p.t0, p.t1, p.u0, p.u1, mode, lam] for p, mode, lam, _ in proved],
               "failed": [[p.zone, p.t0, p.t1, p.u0, p.u1] for p in failed], "evals": evals,
               "cpu": round(time.process_time() - t0, 3), "load": round(os.getloadavg()[0], 2),
               "prec": args.prec, "budget": args.budget, "depth": args.depth, "band": args.band}
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps({k: row[k] for k in ("box", "evals", "cpu")} | {"leaves": len(proved), "failed": len(failed)}),
              flush=True)


if __name__ == "__main__":
    main()
