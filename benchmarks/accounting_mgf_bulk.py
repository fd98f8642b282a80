"""CPU of one certified bulk MGF call (dpexact.accounting.mgf_bulk) on the MGF route's benchmark case: μ = 0.5,
r = 1e-3, remove, window (−12, 11], c = 150, t = 0, 23, …, 23·659; the largest E/|m(c)|, and the actual error
against python-flint's acb.integral at a few t (E / actual error: how loose the bound is).

Usage: python benchmarks/accounting_mgf_bulk.py"""
from __future__ import annotations

import time

import numpy as np

from dpexact.accounting.mgf_bulk import BulkLaw, bulk_mgf


def main() -> None:
    from flint import acb, arb, ctx

    law, c, t = BulkLaw(0.5, 1e-3, True, -12.0, 11.0), 150.0, np.arange(660) * 23.0
    bulk_mgf(law, c, t[:2])  # warm-up: gl_rule from arb, numpy's first calls
    cpu = []
    for _ in range(5):
        t0 = time.process_time()
        v, E = bulk_mgf(law, c, t)
        cpu.append(time.process_time() - t0)
    m0 = abs(v[0])
    print(f"cpu: min {min(cpu) * 1e3:.1f} ms, median {sorted(cpu)[2] * 1e3:.1f} ms; max E/m(c) {(E / m0).max():.3g}")
    ctx.prec = 128
    M, R = arb(law.mu), arb(law.r)
    norm = 1 / (2 * arb.pi()).sqrt()
    worst = 0.0
    for i in range(0, 660, 33):
        z = acb(c, float(t[i]))
        ref = acb.integral(lambda y, an, z=z: norm * (-(y * y) / 2 + (1 + z) * (1 - R + R * (M * y - M * M / 2).exp())
                                                      .log(analytic=an)).exp(), arb(law.a), arb(law.b))
        err = abs(v[i] - complex(float(ref.real.mid()), float(ref.imag.mid())))
        worst = max(worst, err)
        print(f"t = {t[i]:7.0f}: |m| = {abs(v[i]):.3e}, actual error {err:.2e}, E {E[i]:.2e}")
    print(f"max E / max actual error: {E.max() / worst:.3g}")


if __name__ == "__main__":
    main()
