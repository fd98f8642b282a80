"""The joint law of report-noisy-max's index and value, in closed form.

Noisy max adds i.i.d. noise ``Z_j`` of scale b to every query and releases ``I = argmax_j (q_j + Z_j)``
and ``V = q_I + Z_I``. Given ``V = v`` for index i, every other noisy query lies below v, so

    Pr[I = i, V ∈ [lo, hi]] = ∫_lo^hi f(v - q_i) Π_{j≠i} F(v - q_j) dv

with f, F the noise density and cdf (Ding et al. CCS 2018, the noisy-max variants that also
release the value; pf Appendix F for the index alone). Summed over i it is the law of V
(:class:`~dpexact.mechanisms.noisy_max_value.NoisyMaxValue`), over v the law of I (report noisy max).

* **Laplace** (``f = e^{-|x|/b}/(2b)``): in ``u = (v - q_i)/b`` the integrand is
  ``½e^{-|u|} Π_{j≠i} F(u - δ_j)``, ``δ_j = (q_j - q_i)/b`` — the threshold integral of
  :func:`~.sparse_vector.threshold_integral.laurent_segment` with ``k = 1`` and ⊥ factors (as in
  :mod:`.rnm_laplace_closed_form`), truncated above: the interval is the difference of the
  integrals up to ``(hi - q_i)/b`` and ``(lo - q_i)/b``.
* **exponential** (``f = e^{-x/b}/b``, ``F = 1 - e^{-x/b}`` for x >= 0): the integrand is zero
  below ``M = max_j q_j``; with ``w = e^{-(v - M)/b}`` and ``y_j = e^{(q_j - M)/b}``,

      Pr[I = i, V ∈ [lo, hi]] = y_i Σ_m c_m (w_A^{m+1} - w_B^{m+1})/(m + 1),
      Σ_m c_m w^m = Π_{j≠i} (1 - y_j w),   A = max(lo, M), B = hi   (0 if B <= A),

  every term ``c·e^{r}``: exact in ``Q[exp(Q)]`` for rational inputs.

Both are exact (:class:`~dpexact.numbers.exp_sum.ExpSum`) with :func:`~.sparse_vector.threshold_integral.exact_ops`
and rigorous arb balls with ``ball_ops``; the differences cancel, so the ball path doubles its
precision until the relative radius is small (:func:`joint_ball`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..numbers.backends import ball_context
from ..numbers.real import Real
from .sparse_vector.threshold_integral import Ops, ball_ops, laurent_segment

__all__ = ["joint_probability", "joint_ball", "EXACT_EXPONENTIAL_LIMIT"]

#: the exact exponential form has up to 2^(n-1) distinct exponents (subset sums of the queries)
EXACT_EXPONENTIAL_LIMIT = 16
TARGET_BITS = 60
MAX_PREC = 4096


def joint_probability(noise: str, q: list[Real], i: int, lo: Real, hi: Real, b: Real, ops: Ops) -> Any:
    """``Pr[I = i, V ∈ [lo, hi]]`` in the number system ``ops`` (module docstring); inputs validated by the caller."""
    if noise == "laplace":
        fac = [((q[j] - q[i]) / b, False) for j in range(len(q)) if j != i]
        upper = laurent_segment(ops, Fraction(1), fac, (hi - q[i]) / b)
        lower = laurent_segment(ops, Fraction(1), fac, (lo - q[i]) / b)
        return upper - lower
    M = max(q)
    A = lo if lo > M else M
    if not A < hi:
        return ops.const(0)
    coef = [ops.const(1)]  # Π_{j≠i} (1 - y_j w), lowest degree first
    for j in range(len(q)):
        if j == i:
            continue
        y = ops.exp((q[j] - M) / b)
        new = coef + [ops.const(0)]
        for m in range(1, len(new)):
            new[m] = new[m] - y * coef[m - 1]
        coef = new
    total = ops.const(0)
    for m, c in enumerate(coef):
        k = m + 1
        term = (ops.exp(-(A - M) * k / b) - ops.exp(-(hi - M) * k / b)) * ops.const(Fraction(1, k))
        total = total + c * term
    return ops.exp((q[i] - M) / b) * total


def joint_ball(noise: str, q: list[Real], i: int, lo: Real, hi: Real, b: Real, prec: int) -> Any:
    """A rigorous ball of :func:`joint_probability`, precision doubled (up to 4096 bits) until its
    relative radius is below ``2^-60`` or it is exactly 0."""
    p = prec
    while True:
        with ball_context(p):
            v = joint_probability(noise, q, i, lo, hi, b, ball_ops(p))
            ok = v.is_exact() or (abs(v.mid()) > 0 and v.rad() <= abs(v.mid()) * 2.0**-TARGET_BITS)
        if ok or p >= MAX_PREC:
            return v
        p *= 2
