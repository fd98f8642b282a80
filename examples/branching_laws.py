"""Selection laws of your own that branch on the scores, defined through ``define_mechanism``.

Three of them break ε-DP only where a grid of score vectors never looks; two are correct:

* ``em_at_037`` — EM whose exponent doubles when some score **equals** 37/100 (a one-point bug);
* ``em_gap18`` — EM whose exponent doubles once "the score spread" reaches 18 Δ — computed as
  ``max + min`` (a planted bug kept on purpose): it is therefore **not** shift-invariant although it
  declares so. ``dpexact conform`` refuses the declaration with a certified witness pair
  (q and q + c·1 with different pmfs), and no proof uses it (the branch-and-bound screens declared
  premises first: :mod:`dpexact.verification.decide.premises`);
* ``em_spread18`` — the corrected sibling: the spread ``max − min``, truly shift-invariant;
* ``grr_argmax`` — GRR on the best candidate, ties shared (brr eq. 6): ε-DP, level exactly ε;
* ``top1_ties`` — each best candidate (ties included) gets weight b = e^{ε/2}, the others 1: ε-DP,
  its level log(b((n−1)b + 1)/(b + n − 1)) (0.664 at n = 3, ε = 1) — a unique top against the
  same output outside a tie of the n − 1 others.

    python -m dpexact verify -m examples/branching_laws.py:em_at_037 -e 1 --n 3    # violated at q' = 0.37
    python -m dpexact verify -m examples/branching_laws.py:top1_ties -e 1 --n 3    # private (every real score vector)

The branch-and-bound runs each law along every branch it takes on a box of scores (the
comparisons are the backend's certified ones), and splits a box *at* a constant a score is
compared with, so the slice ``q'_a = 37/100`` is a box of its own.
"""

from __future__ import annotations

import dpexact

_SYMMETRIC = dict(symmetric=True)
_SYMMETRIC_SHIFT = dict(symmetric=True, shift_invariant=True)


def _softmax(q, c, ops):
    top = ops.max(q)
    w = [ops.exp(c * (x - top)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


def em_at_037_pmf(q, p, ops):
    """EM with c = ε/2Δ, but 2c when some score equals 37/100 (exactly)."""
    c = p.epsilon / (2 * p.sensitivity)
    if any(ops.eq(x, ops.num("37/100")) for x in q):
        c = 2 * c
    return _softmax(q, c, ops)


def em_gap18_pmf(q, p, ops):
    """EM with c = ε/2Δ, but 2c once max q + min q >= 18 Δ (meant: max - min; the declared shift
    invariance is false, on purpose)."""
    c = p.epsilon / (2 * p.sensitivity)
    if ops.compare(ops.max(q) - ops.max([-x for x in q]), 18 * p.sensitivity) >= 0:
        c = 2 * c
    return _softmax(q, c, ops)


def em_spread18_pmf(q, p, ops):
    """EM with c = ε/2Δ, but 2c once max q - min q >= 18 Δ (shift-invariant, level 2ε)."""
    c = p.epsilon / (2 * p.sensitivity)
    if ops.compare(ops.max(q) + ops.max([-x for x in q]), 18 * p.sensitivity) >= 0:
        c = 2 * c
    return _softmax(q, c, ops)


def grr_argmax_pmf(q, p, ops):
    """GRR on the argmax, ties shared: (e^ε + k - 1) / (k (e^ε + n - 1)) to each of k maximisers."""
    top = ops.argmax(q)
    e, n, k = ops.exp(p.epsilon), len(q), len(top)
    return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]


def top1_ties_pmf(q, p, ops):
    """Weight e^{ε/2} to each maximiser, 1 to the others (level: module docstring)."""
    top = ops.argmax(q)
    b = ops.exp(p.epsilon / 2)
    w = [b if r in top else ops.from_int(1) for r in range(len(q))]
    s = ops.sum(w)
    return [v / s for v in w]


em_at_037 = dpexact.define_mechanism("em-at-037", em_at_037_pmf, epsilon=1, properties=_SYMMETRIC)
em_gap18 = dpexact.define_mechanism("em-gap18", em_gap18_pmf, epsilon=1, properties=_SYMMETRIC_SHIFT)
em_spread18 = dpexact.define_mechanism("em-spread18", em_spread18_pmf, epsilon=1, properties=_SYMMETRIC_SHIFT)
grr_argmax = dpexact.define_mechanism("grr-argmax", grr_argmax_pmf, epsilon=1, properties=_SYMMETRIC_SHIFT)
top1_ties = dpexact.define_mechanism("top1-ties", top1_ties_pmf, epsilon=1, properties=_SYMMETRIC_SHIFT)
