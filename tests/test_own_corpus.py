"""The soundness corpus of hand-written selection laws (tests/support/own_corpus.py).

Default tier: the corpus's own derivations are checked against the laws — each law written with
the backend operations agrees with its independent mpmath reference at its witness (ball arithmetic
at 256 bits must enclose the 60-digit reference), each witness's log-ratio lies in its derived level
interval, and each broken law's witness exceeds the claimed ε. Slow tier: the verifier on every entry
gives no unsound verdict (``private`` for a law whose level exceeds ε, ``violated`` for one whose
level is at most ε).
"""

from __future__ import annotations

import math

import mpmath
import pytest

import dpexact
from support.own_corpus import CORPUS, EPS, Entry, reference_log_ratio

IDS = [e.name for e in CORPUS]


def test_corpus_shape():
    """At least 40 laws, half of them with branches or violations only at large or unusual scores,
    correct and broken ones both present."""
    assert len(CORPUS) >= 40 and len({e.name for e in CORPUS}) == len(CORPUS)
    assert 2 * sum(e.unusual for e in CORPUS) >= len(CORPUS)
    truths = [e.truth for e in CORPUS]
    assert truths.count("private") >= 15 and truths.count("not-private") >= 15


@pytest.mark.parametrize("e", CORPUS, ids=IDS)
def test_law_agrees_with_its_reference_at_the_witness(e: Entry):
    """The user's law (ball, 256 bits) encloses the independent reference (mpmath, 60 digits) at both
    points of the witness, and so does its log-ratio."""
    from flint import arb, ctx

    q, q2, r = e.witness
    old = ctx.prec
    try:
        ctx.prec = 256
        pa = e.mechanism.pmf(list(q), backend="ball:256").values[r]
        pb = e.mechanism.pmf(list(q2), backend="ball:256").values[r]
        lr = pa.log() - pb.log()
        ref = reference_log_ratio(e)
        assert float(lr.rad()) < 1e-30
        assert lr.overlaps(arb(mpmath.nstr(ref, 50), "1e-45")), (e.name, lr, ref)  # 60 digits vs 256 bits
    finally:
        ctx.prec = old


@pytest.mark.parametrize("e", CORPUS, ids=IDS)
def test_witness_lies_in_the_derived_level(e: Entry):
    """The witness's reference log-ratio is inside [level_lo, level_hi] (a witness above a derived
    upper end would refute the derivation), and a broken law's witness exceeds ε."""
    lr = float(reference_log_ratio(e))
    assert e.level_lo <= lr <= e.level_hi + 1e-12
    if e.truth == "not-private":
        assert e.level_lo > EPS
    else:
        assert e.level_hi <= EPS


@pytest.mark.slow
@pytest.mark.parametrize("e", CORPUS, ids=IDS)
def test_verifier_is_sound_on_the_corpus(e: Entry):
    """No unsound verdict: never ``private`` above ε, never ``violated`` at or below ε; a ``private``
    verdict's upper end is at least the derived level's lower end, a ``violated`` one's witness at
    most its upper end."""
    v = dpexact.verify(e.mechanism, n=3)
    assert not (v.verdict == "private" and e.truth == "not-private"), (e.name, v.reason)
    assert not (v.verdict == "violated" and e.level_hi <= EPS), (e.name, v.reason)
    b = v.bracket
    if b is not None and b.lower is not None:
        assert b.lower_float <= e.level_hi + 1e-9
    if b is not None and b.upper is not None and b.upper.whole_domain and math.isfinite(b.upper_float):
        assert b.upper_float >= e.level_lo - 1e-9
