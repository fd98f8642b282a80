"""err: §II: background."""

from __future__ import annotations

import functools
from fractions import Fraction

from .._common import dpbench_directory
from ..catalogue import Verdict, claim
from ._helpers import _em, _lattice, _xpmf


@claim("err.text.scores-bounded-by-sensitivity", "A quality score function q(·) assigns to each candidate r a score q_r, "
       "'which is bounded above by the sensitivity Δ of q(·)'.", "err §II-C, first paragraph",
       expected="refuted",
       severity="erratum",
       explanation="Δ bounds the change of a score between neighbours (Definition 2), not the score itself",
       scope_quick="integer mode scores (Δ = 1): the paper's example (5,3,1) and DPBench mode histograms",
       scope_full="integer mode scores (Δ = 1): the paper's example (5,3,1) and DPBench mode histograms")
def scores_bounded(quick: bool) -> Verdict:
    rows = {}
    d = dpbench_directory()
    if d is not None:
        from dpexact.data import load_dpbench
        from dpexact.quality import mode_quality

        for name in ("HEPTH", "PATENT"):
            rows[name] = int(mode_quality(load_dpbench(name, d)).max())
    # the paper's own example histogram (§III-A) with Δ = 1 for the mode
    ex = {"(5,3,1)": 5}
    bad = {**ex, **{f"{k} mode": v for k, v in rows.items()}}
    return Verdict("refuted" if any(v > 1 for v in bad.values()) else "holds", True, "integer mode scores (Δ = 1): the paper's example (5,3,1) and DPBench mode histograms",
                   {"max score vs Δ = 1": bad,
                    "condition": "what Δ bounds is the change |q_r(D) − q_r(D')| between neighbours (Definition 2), not q_r itself"})


@claim("err.algorithm.1", "Algorithm 1 (repeat r ~ Uniform[R] until Bernoulli(exp(ε(q_r − q*)/(2Δ)))) samples M_EM "
       "(Definition 3: p_r ∝ exp(ε q_r/(2Δ))).", "err §II-C, Algorithm 1",
       expected="holds",
       scope_quick="exact (fmpq): 35 integer vectors, n ≤ 4, ε = 2 log 2; law of the rejection loop (geometric series) vs the exponential mechanism",
       scope_full="exact (fmpq): 126 integer vectors, n ≤ 6, ε = 2 log 2; law of the rejection loop (geometric series) vs the exponential mechanism")
def algorithm_1(quick: bool) -> Verdict:
    checked, bad = 0, []
    for n in range(1, (4 if quick else 6) + 1):
        for q in _lattice(n, 3):
            acc = _em(q)  # unnormalised acceptance 2^(q_r − q*) ... normalised below
            top = max(q)
            a = [Fraction(1, 2 ** (top - x)) for x in q]
            # one round: Pr[return r] = a_r/n, Pr[repeat] = 1 − Σ a/n; geometric series
            law = [(x / n) / (sum(a) / n) for x in a]
            lib = _xpmf("em", q)
            checked += 1
            if list(lib) != law or law != acc:
                bad.append({"q": q})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {checked} integer vectors, n ≤ {4 if quick else 6}, ε = 2 log 2; "
                   "law of the rejection loop (geometric series) vs the exponential mechanism",
                   {"checked": checked, "mismatches": bad[:3]})


def _pf_sequential(a: list[Fraction]) -> list[Fraction]:
    """Algorithm 1 with 'R = R∖r' after line 4: condition on the first draw of the remaining set."""

    @functools.lru_cache(maxsize=None)
    def P(r: int, S: frozenset) -> Fraction:
        if r not in S:
            return Fraction(0)
        tot = a[r]
        for s in S:
            if s != r:
                tot += (1 - a[s]) * P(r, S - {s})
        return tot / len(S)

    S = frozenset(range(len(a)))
    return [P(r, S) for r in range(len(a))]


@claim("err.text.pf-is-alg1-without-replacement", "M_PF's rejection sampler is Algorithm 1 with 'R = R∖r' added after "
       "line 4 (sampling without replacement).", "err §II-C, Permute-and-Flip paragraph",
       expected="holds",
       scope_quick="exact (fmpq): 34 integer vectors, n ≤ 4, ε = 2 log 2; the without-replacement loop's law (recursion on the remaining set) vs dpexact's PF",
       scope_full="exact (fmpq): 69 integer vectors, n ≤ 5, ε = 2 log 2; the without-replacement loop's law (recursion on the remaining set) vs dpexact's PF")
def pf_without_replacement(quick: bool) -> Verdict:
    checked, bad = 0, []
    for n in range(2, (4 if quick else 5) + 1):
        for q in _lattice(n, 3):
            top = max(q)
            a = [Fraction(1, 2 ** (top - x)) for x in q]
            law = _pf_sequential(a)
            checked += 1
            if list(_xpmf("pf", q)) != law:
                bad.append({"q": q})
    return Verdict("refuted" if bad else "holds", True, f"exact (fmpq): {checked} integer vectors, n ≤ {4 if quick else 5}, ε = 2 log 2; "
                   "the without-replacement loop's law (recursion on the remaining set) vs dpexact's PF",
                   {"checked": checked, "mismatches": bad[:3], "note": "removing r before the coin of line 5 makes the loop terminate (the top coin is 1)"})
