"""A broken top-1 selection defined through ``define_mechanism``: the level is 2ε, not ε.

"Biased-coin top-1": the top candidate is chosen by a coin whose bias is the logistic function
of the score gap — with two candidates ``Pr[0] = 1 / (1 + e^{-c (q_0 - q_1)})`` and, for n
candidates, the softmax ``Pr[r] ∝ e^{c q_r}``. Built with ``c = 2ε/(2Δ)`` (the exponent of a
2ε mechanism) while it claims ε: its true level on the ℓ∞ box of radius Δ is
``c · 2Δ = 2ε``, approached (never reached) as one score gap grows — so a verifier that reports
the first violation on a small grid understates it.

    python -m dpexact verify -m examples/biased_coin_top1.py:biased_coin -e 1 --n 3
"""

from __future__ import annotations

import dpexact


def coin_pmf(q, p, ops):
    """``Pr[r] = e^{c q_r} / Σ_s e^{c q_s}`` with the doubled exponent ``c = 2ε/(2Δ)`` (the bug)."""
    top = q[0]
    for x in q[1:]:
        top = x if ops.backend.compare(x, top) > 0 else top
    w = [ops.exp(2 * p.epsilon * (x - top) / (2 * p.sensitivity)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


biased_coin = dpexact.define_mechanism("biased-coin-top1", coin_pmf, epsilon=1,
                                       properties=dict(symmetric=True, shift_invariant=True, monotone=True))
