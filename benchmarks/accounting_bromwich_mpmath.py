"""An independent high-precision check of δ(ε) for T Poisson-subsampled Gaussians (remove direction): the Bromwich
integral δ(ε) = (1/π)∫₀^∞ Re[m(c + it)^T e^{−(c+it)ε}/((c + it)(c + 1 + it))] dt evaluated by mpmath quadrature at 40
digits, m(z) = E_P[e^{zL}] of the *whole* law (no window, no grid, no float) by mpmath quadrature too. Not a proof (the
quadratures' errors are estimated, not bounded) but independent of both certified routes; minutes per value.

    python benchmarks/accounting_bromwich_mpmath.py SIGMA Q T C EPS [EPS ...]

Measured (2026-12-07): σ = 163/100, q = 8989/10000, T = 2824, c = 0.2815: δ(683.7288804) = 1.00000392e-17,
δ(683.7289078) = 0.99999607e-17, δ(683.7291118) = 0.99993769e-17 — so ε(1e-17) ∈ (683.7288804, 683.7289078), the MGF
route's interval; the grid route's lower end was 683.7291118 before the suffix sums counted their underflow.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import mpmath as mp


def main(sigma: str, q: str, T: int, c: str, eps: list[str]) -> None:
    mp.mp.dps = 40
    s, r = Fraction(sigma), Fraction(q)
    mu = 1 / mp.mpf(s.numerator) * s.denominator
    rr = mp.mpf(r.numerator) / r.denominator

    def m(z: mp.mpc) -> mp.mpc:
        def f(y: mp.mpf) -> mp.mpc:
            p = (1 - rr) * mp.npdf(y) + rr * mp.npdf(y - mu)
            return p * mp.e ** (z * mp.log(1 - rr + rr * mp.e ** (mu * y - mu ** 2 / 2)))
        return mp.quad(f, [-mp.inf, -10, -5, 0, 5, 10, 20, 40, mp.inf])

    cc = mp.mpf(c)
    for e in eps:
        ee = mp.mpf(e)

        def g(t: mp.mpf, ee: mp.mpf = ee) -> mp.mpf:
            z = cc + 1j * t
            return mp.re(m(z) ** T * mp.e ** (-z * ee) / (z * (z + 1)))
        print(e, mp.nstr(mp.quad(g, [0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6]) / mp.pi, 20), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit("usage: accounting_bromwich_mpmath.py SIGMA Q T C EPS [EPS ...]")
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:])
