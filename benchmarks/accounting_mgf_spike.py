"""Feasibility measurement, NOT a certified accountant: ε(δ) of a T-fold Poisson-subsampled Gaussian (remove
direction) by numerical inversion of the composed moment generating function, in floats, beside the certified v12
intervals of the DP-SGD table.

Why: the grid route's bracket closes like h² (grid-supported dominating pairs), so σ = 2, q = 1/1000 needs steps of
2^-16…2^-20 and stays 25–75× slower than dp_accounting. Here the composition is exact (M_T = m^T, no grid), so the
only errors are those of a quadrature, an aliasing sum and a truncation — each of which has a known rigorous bound.
This script measures what such a route would cost and whether it lands inside the certified intervals; the bounds
themselves are not implemented (ARCHITECTURE.md, "Accountant", says what a certified version needs).

Formula (Bromwich inversion of a two-sided Laplace transform; Abate & Whitt 1992, "The Fourier-series method for
inverting transforms of probability distributions", Queueing Systems 10): with f(u) = (1 − e^{−u})₊, whose
transform is ∫ f(u) e^{−zu} du = 1/(z(z+1)) for Re z > 0, and ν the law of the composed loss restricted to the bulk
(one step's x <= x_cut, whose excluded mass T·q·P(N(1, σ²) > x_cut) is set to 1e-9·δ),

    δ_ν(ε) = (1/π) ∫₀^∞ Re[ m(c + it)^T e^{−(c+it)ε} / ((c + it)(c + 1 + it)) ] dt,   m(z) = E[e^{zL}; x <= x_cut].

The trapezoidal rule with step Δ = 2π/P equals Σ_k e^{ckP} δ_ν(ε + kP) (Poisson summation): the k = 0 term is δ_ν(ε),
every other term is >= 0 and small when c·P and (c* − c)·P are large (c* the saddle point), so c = c*/2, P = 80/c.
m(z) is computed by Gauss–Legendre quadrature over x in [−12σ, x_cut]; the sum stops when |m^T| has fallen e^{−45}
below its value at t = 0 (a certified version needs a decay bound |m(c + it)| <= V/t for the nodes it leaves out:
V = |g(a)| + |g(b)| + TV(g), g = p·e^{cL}/L', by one integration by parts — reported here as the nodes that bound
would require).

Usage: python benchmarks/accounting_mgf_spike.py [ROWS.jsonl]   (default: the v12 table rows)
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

NX = 400  # Gauss–Legendre nodes in x (doubling them moves no ε below in its 11th digit)


def _bulk(sigma: float, q: float, T: int, delta: float):
    """The bulk's quadrature nodes: losses L(x) and weights w·p(x)."""
    target = math.log(1e-9 * delta / (T * q))
    xcut = brentq(lambda x: log_ndtr(-(x - 1) / sigma) - target, 1.0, 400.0)
    g, w = np.polynomial.legendre.leggauss(NX)
    a = -12 * sigma
    x = (xcut - a) / 2 * g + (xcut + a) / 2
    w = (xcut - a) / 2 * w
    s2 = 2 * sigma**2
    lx = np.log1p(q * np.expm1((2 * x - 1) / s2))
    wp = w * ((1 - q) * np.exp(-x**2 / s2) + q * np.exp(-(x - 1) ** 2 / s2)) / (sigma * math.sqrt(2 * math.pi))
    return xcut, x, lx, wp


def _decay_nodes(sigma: float, q: float, c: float, xcut: float, T: int, dt: float) -> int:
    """Nodes a certified truncation by |m(c + it)| <= V/t would need: t >= V·e^{45/T}/m(c) (float estimate of V)."""
    x = np.linspace(-12 * sigma, xcut, 200001)
    s2 = 2 * sigma**2
    e = np.exp((2 * x - 1) / s2)
    lx = np.log1p(q * (e - 1))
    p = ((1 - q) * np.exp(-x**2 / s2) + q * np.exp(-(x - 1) ** 2 / s2)) / (sigma * math.sqrt(2 * math.pi))
    dl = (q * e / s2 * 2) / (1 + q * (e - 1))
    g = p * np.exp(c * lx) / dl
    m_c = float(np.sum(p * np.exp(c * lx)) * (x[1] - x[0]))
    V = abs(g[0]) + abs(g[-1]) + float(np.abs(np.diff(g)).sum())
    return math.ceil(V / m_c * math.exp(45 / T) / dt)


def epsilon(sigma: float, q: float, T: int, delta: float) -> dict:
    t0 = time.process_time()
    xcut, _, lx, wp = _bulk(sigma, q, T, delta)
    lmax = float(lx.max())

    def cumulants(c: float):
        e = wp * np.exp(c * (lx - lmax))
        s = e.sum()
        m1 = (e * lx).sum() / s
        return T * (math.log(s) + c * lmax), T * m1, T * ((e * lx**2).sum() / s - m1**2)

    def log_saddle_delta(c: float) -> float:  # Lugannani–Rice-like leading term, a choice of tilt only
        k, k1, k2 = cumulants(c)
        return k - c * k1 - math.log(c * math.sqrt(2 * math.pi * k2))

    c_star = brentq(lambda c: log_saddle_delta(c) - math.log(delta), 0.05, 5000.0)
    c = c_star / 2
    P = 80 / c
    dt = 2 * math.pi / P
    blocks, n0 = [], 0
    while True:
        t = np.arange(n0, n0 + 16) * dt
        z = c + 1j * t
        lp = T * (np.log(np.exp(np.outer(z, lx - lmax)) @ wp) + z * lmax)
        blocks.append((t, lp))
        n0 += 16
        if (lp.real - blocks[0][1][0].real).max() < -45 or n0 > 20000:
            break
    t = np.concatenate([b[0] for b in blocks])
    logm = np.concatenate([b[1] for b in blocks])
    z = c + 1j * t
    wts = np.full(len(t), dt)
    wts[0] = dt / 2

    def delta_at(eps: float) -> tuple[float, float]:
        terms = np.real(np.exp(logm - z * eps) / (z * (z + 1))) * wts / math.pi
        return float(terms.sum()), float(np.abs(terms).sum())

    k1, sd = cumulants(c_star)[1], math.sqrt(cumulants(c_star)[2])
    lo, hi = k1 - 4 * sd, k1 + 4 * sd
    try:
        eps = brentq(lambda e: math.log(max(delta_at(e)[0], 1e-300)) - math.log(delta), lo, hi, xtol=1e-15, rtol=1e-14)
        value, absum = delta_at(eps)
        cancel = absum / value
    except ValueError:
        eps, cancel = float("nan"), float("inf")
    cpu = time.process_time() - t0
    return {"epsilon": eps, "cpu": cpu, "nodes": len(t), "c": c, "xcut": xcut, "cancellation": cancel, "dt": dt,
            "decay_nodes": _decay_nodes(sigma, q, c, xcut, T, dt)}


def _acb_node_seconds(sigma: float, q: float, c: float, xcut: float, t: float) -> float:
    """CPU of one rigorous m(c + it) by python-flint's acb.integral at 64 bits (what a certified node costs today;
    oscillation makes it grow with t, so the caller asks at the middle of its node range)."""
    from flint import acb, arb, ctx

    ctx.prec = 64
    s, qq = arb(sigma), arb(q)
    s2 = 2 * s**2
    norm = 1 / (s * (2 * arb.pi()).sqrt())
    z = acb(c, t)

    def f(x, analytic):
        L = (1 + qq * (((2 * x - 1) / s2).exp() - 1)).log(analytic=analytic)
        p = ((1 - qq) * (-(x * x) / s2).exp() + qq * (-((x - 1) ** 2) / s2).exp()) * norm
        return p * (z * L).exp()

    t0 = time.process_time()
    acb.integral(f, -12 * sigma, xcut)
    return time.process_time() - t0


def main(path: str) -> None:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    epsilon(1.0, 0.01, 100, 1e-5)  # warm-up: numpy's and scipy's first calls
    print("sigma q T delta | float eps: position in v12 interval (0..1 inside) | cpu, dp_accounting cpu | nodes, "
          "nodes for a decay bound | cancellation | est. certified cpu (acb nodes)")
    inside = applicable = 0
    for r in rows:
        s, T, d = float(r["sigma"]), int(r["T"]), float(r["delta"])
        num, den = r["q"].split("/")
        q = int(num) / int(den)
        out = epsilon(s, q, T, d)
        pos = (out["epsilon"] - r["lower"]) / (r["upper"] - r["lower"])
        ok = 0 <= pos <= 1
        inside += ok
        applicable += out["cancellation"] < 1e6
        n = max(out["nodes"], out["decay_nodes"])
        per = _acb_node_seconds(s, q, out["c"], out["xcut"], out["dt"] * n / 2)  # a node in the middle of the range
        est = per * n
        print(f"{r['sigma']} {r['q']} {T} {r['delta']} | {out['epsilon']:.12g}: {pos:.3g} {'in' if ok else 'OUT'} | "
              f"{out['cpu']:.4f}, {r['dp_accounting_cpu']:.4f} | {out['nodes']}, {out['decay_nodes']} | "
              f"{out['cancellation']:.3g} | {est:.3f} ({per * 1e3:.1f} ms/node)", flush=True)
    print(f"inside the certified v12 interval: {inside} of {len(rows)}; cancellation < 1e6: {applicable}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).with_name("accounting_table_rows_v12.jsonl")))
