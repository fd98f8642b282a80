"""Textbook selection mechanisms written by hand with ``define_mechanism`` (a pmf in backend operations).

Each law is the mechanism's own formula, not a registry object, so no theorem names it directly: the
verifier first tries to prove the law *identical* to a registered law at the stated n (exact rational
identity on every branch path of every chart, then that law's theorem: ``proofs/law_identity.py``),
else it bounds its level over every real score vector with the compact branch-and-bound (compactified
score gaps, exact faces at infinity):

* ``em`` — exponential mechanism, P_r ∝ exp(ε q_r / 2Δ) (McSherry & Talwar 2007): level ε on the ℓ∞
  box, approached as one score gap grows; ``em_half`` is the same law with ε/2 (level ε/2);
* ``pf`` — permute-and-flip (pf Algorithm 1): with p_a = exp(ε (q_a − max q) / 2Δ), candidates are
  visited in a uniformly random order and a is accepted with probability p_a, so
  P_r = p_r Σ_{S ⊆ others} |S|! (n − 1 − |S|)! / n! · Π_{a ∈ S} (1 − p_a)  (level ε); ``pf_half`` with ε/2;
* ``rnm_exponential`` — report-noisy-max with Exp(rate ε/2Δ) noise: integrating the density of the
  winner's noisy score against the others' cdfs from max q upwards gives
  P_r = Σ_{S ⊆ others} (−1)^{|S|} / (1 + |S|) · p_r Π_{a ∈ S} p_a  (level ε; the same law as PF,
  Ding et al. 2021, written another way);
* ``grr`` — GRR on the best candidate with ties shared (brr eq. 6), the README's example (level ε).

    python -m dpexact verify -m examples/hand_written_selection.py:em -e 1 --n 3     # private, [1, 1]
    python -m dpexact verify -m examples/hand_written_selection.py:pf -e 1 --n 2     # private, [1, 1]
    python -m dpexact verify -m examples/hand_written_selection.py:pf -e 1 --n 3     # private, [1, 1]
    python -m dpexact verify -m examples/hand_written_selection.py:pf -e 1 --n 4     # private, [1, 1]
    python -m dpexact verify -m examples/hand_written_selection.py:pf -e 1 --n 5     # private, [1, 1] (law = PF's, pf Thm 1)
"""

from __future__ import annotations

from itertools import combinations
from math import factorial

import dpexact

_PROPS = dict(symmetric=True, shift_invariant=True)


def _scaled(q, p, ops, c):
    """p_a = exp(c·ε (q_a − max q) / Δ), the acceptance probabilities of PF and RNM (each <= 1)."""
    top = ops.max(q)
    return [ops.exp(ops.num(c) * p.epsilon * (x - top) / p.sensitivity) for x in q]


def _em(c):
    def pmf(q, p, ops):
        w = [ops.exp(ops.num(c) * p.epsilon * x / p.sensitivity) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]
    return pmf


def _pf(c):
    def pmf(q, p, ops):
        w = _scaled(q, p, ops, c)
        n = len(q)
        out = []
        for r in range(n):
            others = [a for a in range(n) if a != r]
            total = ops.from_int(0)
            for k in range(n):
                weight = ops.num(f"{factorial(k) * factorial(n - 1 - k)}/{factorial(n)}")
                for s in combinations(others, k):
                    term = weight
                    for a in s:
                        term = term * (1 - w[a])
                    total = total + term
            out.append(w[r] * total)
        return out
    return pmf


def _rnm_exponential(c):
    def pmf(q, p, ops):
        w = _scaled(q, p, ops, c)
        n = len(q)
        out = []
        for r in range(n):
            others = [a for a in range(n) if a != r]
            total = ops.from_int(0)
            for k in range(n):
                for s in combinations(others, k):
                    term = ops.num(f"{(-1) ** k}/{k + 1}") * w[r]
                    for a in s:
                        term = term * w[a]
                    total = total + term
            out.append(total)
        return out
    return pmf


def grr_pmf(q, p, ops):
    top = ops.argmax(q)
    e, n, k = ops.exp(p.epsilon), len(q), len(top)
    return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]


em = dpexact.define_mechanism("hand-em", _em("1/2"), epsilon=1, properties=_PROPS)
em_half = dpexact.define_mechanism("hand-em-half", _em("1/4"), epsilon=1, properties=_PROPS)
pf = dpexact.define_mechanism("hand-pf", _pf("1/2"), epsilon=1, properties=_PROPS)
pf_half = dpexact.define_mechanism("hand-pf-half", _pf("1/4"), epsilon=1, properties=_PROPS)
rnm_exponential = dpexact.define_mechanism("hand-rnm-exponential", _rnm_exponential("1/2"), epsilon=1, properties=_PROPS)
grr = dpexact.define_mechanism("hand-grr", grr_pmf, epsilon=1, properties=_PROPS)
