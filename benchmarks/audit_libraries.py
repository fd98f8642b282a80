"""Audit of the current releases of OpenDP, diffprivlib, python-dp and Opacus: every registered sampler
(Pearson χ² at α with the power stated before drawing; Holm across the samplers) and every
registered privacy map on its grid against dpexact's certified level.

Run: python benchmarks/audit_libraries.py [TV]   (default TV 0.03; writes benchmarks/results/audit_libraries_tv<TV>.json)
Budget: each sampler audit refuses an N whose pilot estimate exceeds 120 s; the whole run is
stated at the end (CPU seconds, max RSS).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import resource
import sys
import time

from dpexact.audit.adapters import targets
from dpexact.audit.gof import holm
from dpexact.audit.maps import audit_map
from dpexact.audit.sampler import audit_sampler

ALPHA, POWER = 0.01, 0.95


def main(tv: float) -> dict:
    t0 = time.process_time()
    versions = {d: md.version(d) for d in ("opendp", "diffprivlib", "python-dp", "opacus", "torch")}
    samplers = []
    for i, t in enumerate(targets("sampler")):
        r = audit_sampler(t, alpha=ALPHA, tv=tv, power=POWER, seed=100 + i)
        samplers.append(r.as_dict())
        print(f"{str(t):38s} {r.verdict:17s} p={r.p_value:.3g} N={r.plan.draws} power={r.plan.power:.3f} {r.seconds:.1f}s", flush=True)
    rej = holm([s["p_value"] for s in samplers], ALPHA)
    for s, h in zip(samplers, rej):
        s["holm_rejected"] = h
    maps = []
    for t in targets("map"):
        m = audit_map(t)
        maps.append(m.as_dict())
        print(f"{str(t):38s} {m.verdict:17s} {m.as_dict()['counts']}", flush=True)
    out = {"versions": versions, "alpha": ALPHA, "tv": tv, "power": POWER, "family_wise": "Holm over the samplers",
           "samplers": samplers, "maps": maps, "sampler_count": len(samplers),
           "map_points": sum(len(m["points"]) for m in maps), "load": os.getloadavg()[0],
           "cpu_seconds": time.process_time() - t0, "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    print(f"{out['sampler_count']} samplers, Holm rejections {sum(rej)}; {out['map_points']} map points; "
          f"cpu {out['cpu_seconds']:.0f} s, max RSS {out['max_rss_mb']:.0f} MB, load {out['load']:.2f}")
    return out


if __name__ == "__main__":
    tv = float(sys.argv[1]) if len(sys.argv) > 1 else 0.03
    res = main(tv)
    os.makedirs("benchmarks/results", exist_ok=True)
    with open(f"benchmarks/results/audit_libraries_tv{tv:g}.json", "w") as f:
        json.dump(res, f, indent=1, default=str)
