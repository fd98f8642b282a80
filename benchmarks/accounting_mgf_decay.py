"""CPU of :func:`dpexact.accounting.mgf_decay.decay_constant` on the DP-SGD table's rows, with the window and tilt of
the MGF spike (``accounting_mgf_spike.py``: y in [−12, x_cut/σ], c = c*/2, μ = 1/σ, r = q), both directions, and the
proved V beside the spike's float estimate of the same quantity (200001-point grid; no claim).

Usage: python benchmarks/accounting_mgf_decay.py [ROWS.jsonl]   (default: the v12 table rows)
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import accounting_mgf_spike as spike

from dpexact.accounting.mgf_decay import decay_constant


def float_V(sigma: float, q: float, c: float, xcut: float) -> float:
    """The spike's float estimate of G(a) + G(b) + TV(G) (remove direction)."""
    x = np.linspace(-12 * sigma, xcut, 200001)
    s2 = 2 * sigma**2
    e = np.exp((2 * x - 1) / s2)
    p = ((1 - q) * np.exp(-x**2 / s2) + q * np.exp(-(x - 1) ** 2 / s2)) / (sigma * math.sqrt(2 * math.pi))
    g = p * np.exp(c * np.log1p(q * (e - 1))) / ((q * e / s2 * 2) / (1 + q * (e - 1)))
    return float(g[0] + g[-1] + np.abs(np.diff(g)).sum())


def main(path: str) -> None:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    decay_constant(1.0, 0.01, True, -12.0, 9.0, 5.0)  # warm-up: python-flint's first calls
    cpus = []
    print("sigma q T delta | c, b | V remove, float estimate | V add | CPU ms (remove + add, mean of 20)")
    for r in rows:
        s, T, d = float(r["sigma"]), int(r["T"]), float(r["delta"])
        num, den = r["q"].split("/")
        q = int(num) / int(den)
        out = spike.epsilon(s, q, T, d)
        c, b = out["c"], out["xcut"] / s
        try:
            t0 = time.process_time()
            for _ in range(20):
                v_rm = decay_constant(1 / s, q, True, -12.0, b, c)
                v_add = decay_constant(1 / s, q, False, -12.0, b, c)
            cpu = (time.process_time() - t0) / 20
        except OverflowError as e:
            print(f"{r['sigma']} {r['q']} {T} {r['delta']} | {c:.4g}, {b:.4g} | {e}")
            continue
        cpus.append(cpu)
        print(f"{r['sigma']} {r['q']} {T} {r['delta']} | {c:.4g}, {b:.4g} | {v_rm:.6g}, {float_V(s, q, c, out['xcut']):.6g}"
              f" | {v_add:.6g} | {cpu * 1e3:.2f}", flush=True)
    print(f"CPU ms per row (both directions): median {np.median(cpus) * 1e3:.2f}, max {max(cpus) * 1e3:.2f}, "
          f"rows {len(cpus)} of {len(rows)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).with_name("accounting_table_rows_v12.jsonl")))
