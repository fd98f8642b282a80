"""Independent reference values for the accounting tests (imported by them; not a test module)."""

from __future__ import annotations

import mpmath


@mpmath.workdps(30)  # its own precision, the global one untouched (other tests read it)
def two_step_remove(mu: mpmath.mpf, q: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """δ(ε) of two Poisson-subsampled Gaussian steps, remove direction, by nested quadrature:
    δ₂(ε) = ∫ p′(y) δ₁(ε − L(y)) dy with δ₁(e) = P′(L > e) − e^e Q′(L > e) in closed form (Φ̄ at the threshold)."""
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
    sf = lambda z: mpmath.ncdf(-z)  # noqa: E731

    def d1(e):
        t = mpmath.exp(e) - 1 + q
        if t <= 0:
            return 1 - mpmath.exp(e)
        ys = (mpmath.log(t / q) + mu * mu / 2) / mu
        return q * sf(ys - mu) + (1 - q) * sf(ys) - mpmath.exp(e) * sf(ys)

    L = lambda y: mpmath.log(1 - q + q * mpmath.exp(mu * y - mu * mu / 2))  # noqa: E731
    f = lambda y: (q * phi(y - mu) + (1 - q) * phi(y)) * d1(eps - L(y))  # noqa: E731
    # the kink: ε − L(y) = log(1 − q), where δ₁ switches form (a breakpoint, else the rule loses 4e-5 relative)
    lk = eps - mpmath.log(1 - q)
    yk = (mpmath.log((mpmath.exp(lk) - 1 + q) / q) + mu * mu / 2) / mu
    return mpmath.quad(f, sorted([-40, -5, 0, 3, 6, 9, 12, 40, yk]), maxdegree=10)


@mpmath.workdps(40)
def one_step_remove(sig: float, r: float, eps: float) -> float:
    """δ(ε) of one Poisson-subsampled Gaussian step (noise σ = sig, rate r), remove direction, by mpmath quadrature
    (40 digits): ∫_{x₀}^∞ (r·φ_σ(x − 1) + (1 − r)·φ_σ(x) − e^ε φ_σ(x)) dx, x₀ where the integrand changes sign."""
    S, R, E = mpmath.mpf(sig), mpmath.mpf(r), mpmath.mpf(eps)
    A = lambda x: R * mpmath.npdf(x, 1, S) + (1 - R) * mpmath.npdf(x, 0, S)  # noqa: E731
    Q = lambda x: mpmath.npdf(x, 0, S)  # noqa: E731
    x0 = S**2 * mpmath.log((mpmath.exp(E) - 1 + R) / R) + mpmath.mpf(1) / 2
    return float(mpmath.quad(lambda x: A(x) - mpmath.exp(E) * Q(x), [x0, x0 + 5 * S, x0 + 20 * S, mpmath.inf]))
