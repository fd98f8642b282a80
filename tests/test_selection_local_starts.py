"""The local search's starts (dpexact.verification.search.selection._top_triples) on a law with an output of
probability 0: no RuntimeWarning (−inf − −inf), and the starts ranked by the float log-ratio of the outputs
that have one, recomputed here in mpmath from the law's formula.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath

import dpexact
from dpexact.verification.decide.certified_ratio import PmfCache
from dpexact.verification.neighbourhoods import LInfBox
from dpexact.verification.search.selection import _top_triples


def _never_last(q, p, ops):
    """EM over every candidate but the last, which is never chosen (probability exactly 0)."""
    c = p.epsilon / (2 * p.sensitivity)
    w = [ops.exp(c * x) for x in q[:-1]]
    s = ops.sum(w)
    return [v / s for v in w] + [ops.from_int(0)]


def _log_ratio(q, q2, r, c=Fraction(1, 2)):
    """log P(q)_r − log P(q')_r of the law above, in mpmath at 50 digits (independent of dpexact)."""
    with mpmath.workdps(50):
        def logp(v):
            xs = [mpmath.mpf(x.numerator) / x.denominator for x in v[:-1]]
            return c * xs[r] - mpmath.log(mpmath.fsum(mpmath.exp(c * x) for x in xs))
        return float(logp(q) - logp(q2))


def test_top_triples_skip_zero_outputs_without_warning():
    m = dpexact.define_mechanism("never-last", _never_last, epsilon=1)
    nb = LInfBox(Fraction(1))
    vecs = [tuple(Fraction(x) for x in v) for v in ((0, 0, 0), (0, 1, 2), (2, 0, 1))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # mutation: without the errstate, −inf − −inf warns here
        starts = _top_triples(PmfCache(m), vecs, nb, 1, 3)
    assert len(starts) == 3
    # the best start over every pair and every output of positive probability, computed independently
    best = max((_log_ratio(q, q2, r), q, q2, r) for q in vecs for q2 in nb.candidates(q, 1) for r in range(2))
    q, q2, r = starts[0]
    assert r != 2  # never the zero output (its float log-ratio is −inf, not nan)
    assert abs(_log_ratio(q, q2, r) - best[0]) < 1e-12
