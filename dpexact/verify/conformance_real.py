"""Conformance checks for the real-valued output kinds (``interval``, ``continuous``, the values of
``mixed``), where the law is given by probabilities of intervals / boxes (dpexact.protocols).

The law is probed on a finite partition of a wide window ``[c − R, c + R]``, R = 200 noise scales
beyond the scores (``noise_scale()`` when the mechanism has one, else 2Δ/ε):

=======================  ===========================================================================
check                    passes when
=======================  ===========================================================================
``sums-to-one``          the ball probabilities of the partition's cells sum to a ball meeting
                         ``[1 − 1e-9, 1]`` (the mass outside the window is far below 1e-9)
``ball-encloses-exact``  the 128-bit ball of a cell encloses the exact closed form of that cell
``sampler-agrees``       seeded draws from ``rvs``, binned on cells chosen from a separate pilot run,
                         fit the cells' probabilities: chi-square p-value > 1e-6
``box-marginal``         (``mixed``) for every pattern, ``Pr[pattern, values in the window]`` is at
                         most ``Pr[pattern]`` and within 1e-9 of it
=======================  ===========================================================================

For ``continuous`` mechanisms the partition is of the *first* noisy-value coordinate (the others
range over the window): ``box_probability`` is stated in the noisy-value coordinates, and the first
output equals the first noisy value for every registered additive mechanism (a prefix sum starts
with it). A density-only continuous mechanism (no ``box_probability``) gets these checks as not
applicable: integrating its density is not done here, and nothing is reported as passed.
``float-within-bound`` is not applicable to these kinds: their laws are served on ball and exact only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from ..numbers.real import Real

__all__ = ["real_checks", "box_marginal"]

TAIL = 1e-9
CELLS = 12


def _scale(m: Any) -> Fraction:
    s = m.noise_scale() if callable(getattr(m, "noise_scale", None)) else Real.of(m.sensitivity) * 2 / Real.of(m.epsilon)
    s = Real.of(s)
    return s.to_fraction() if s.is_rational else Fraction(s.to_float()).limit_denominator(10**6)


def _window(m: Any, q: Sequence[Fraction]) -> tuple[Fraction, Fraction]:
    r = sum(abs(x) for x in q) + 200 * _scale(m)
    return -r, r


def _law(m: Any, q: Sequence[Fraction]) -> Callable[[Fraction, Fraction, str], Any] | None:
    """``(lo, hi, backend) -> Pr[first coordinate in [lo, hi]]`` (others over the window), or None."""
    qs = [str(x) for x in q]
    if m.output_kind == "interval":
        return lambda lo, hi, be: m.interval_probability(qs, lo, hi, backend=be)
    if callable(getattr(m, "box_probability", None)):
        lo_w, hi_w = _window(m, q)
        k = len(np.atleast_1d(m.rvs([float(x) for x in q], random_state=0)))
        return lambda lo, hi, be: m.box_probability(qs, [(lo, hi)] + [(lo_w, hi_w)] * (k - 1), backend=be)
    return None


def _first(x: Any) -> float:
    a = np.atleast_1d(np.asarray(x, dtype=float))
    return float(a[0])


def _edges(m: Any, q: Sequence[Fraction], seed: int) -> list[Fraction]:
    lo, hi = _window(m, q)
    pilot = m.rvs([float(x) for x in q], size=2000, random_state=seed + 10_000)
    xs = np.array([_first(x) for x in pilot])
    inner = sorted({Fraction(float(v)).limit_denominator(1000) for v in np.quantile(xs, np.linspace(0, 1, CELLS + 1)[1:-1])})
    return [lo] + [e for e in inner if lo < e < hi] + [hi]


def real_checks(m: Any, vecs: list, draws: int, seed: int) -> list:
    """``sums-to-one``, ``ball-encloses-exact``, ``float-within-bound``, ``sampler-agrees`` for a real-valued kind."""
    from flint import arb
    from scipy.stats import chisquare

    from .conformance import ConformanceCheck, _cx, _safe

    kind = m.output_kind
    na_float = ConformanceCheck("float-within-bound", None, f"output_kind {kind!r}: the law is served on ball and exact only")
    if _safe(lambda: _law(m, vecs[0]))[0] is None:
        why = f"output_kind {kind!r} with a density only (no box_probability): its integrals are not checked here"
        return [ConformanceCheck("sums-to-one", None, why), ConformanceCheck("ball-encloses-exact", None, why), na_float,
                ConformanceCheck("sampler-agrees", None, why)]
    sums = enc = samp = None
    worst, n_exact = 1.0, 0
    for i, q in enumerate(vecs):
        law = _law(m, q)
        edges, err = _safe(lambda: _edges(m, q, seed + i))
        if edges is None:
            samp = ConformanceCheck("sampler-agrees", False, f"sampler failed: {err}", _cx(q))
            break
        cells, err = _safe(lambda: [law(a, b, "ball") for a, b in zip(edges, edges[1:])])
        if cells is None:
            sums = ConformanceCheck("sums-to-one", False, f"ball probability failed: {err}", _cx(q))
            break
        tot = sum(cells, arb(0))
        if tot > 1 or tot < 1 - TAIL:  # certainly outside [1 − TAIL, 1]
            sums = ConformanceCheck("sums-to-one", False, f"the cells of [{edges[0]}, {edges[-1]}] sum to {tot}, not within "
                                    f"{TAIL} below 1, on scores {list(map(str, q))}", _cx(q))
            break
        if sum(map(abs, q)) <= 10 and enc is None:
            for a, b in list(zip(edges, edges[1:]))[:: max(1, len(edges) // 4)]:
                ex, err = _safe(lambda: law(a, b, "exact"))
                if ex is None:
                    enc = ConformanceCheck("ball-encloses-exact", None, f"no exact interval law ({err})")
                    break
                e = ex.to_arb(256) if hasattr(ex, "to_arb") else arb(str(ex))
                bl = law(a, b, "ball")
                if not bl.contains(e):
                    enc = ConformanceCheck("ball-encloses-exact", False, f"the ball {bl} of [{a}, {b}] misses the exact value "
                                           f"{e} on scores {list(map(str, q))}", _cx(q, lo=str(a), hi=str(b)))
                    break
                n_exact += 1
        out, err = _safe(lambda: m.rvs([float(x) for x in q], size=draws, random_state=seed + i))
        if out is None:
            samp = ConformanceCheck("sampler-agrees", False, f"sampler failed: {err}", _cx(q))
            break
        xs = np.array([_first(x) for x in out])
        counts = np.histogram(xs, bins=[float(e) for e in edges])[0]
        outside = draws - counts.sum()
        p = np.array([float(c.mid()) for c in cells])
        exp = draws * p
        obs, ex = list(counts) + [outside], list(exp) + [draws * max(0.0, 1 - p.sum())]
        keep = [j for j, v in enumerate(ex) if v >= 5]
        rest = [j for j in range(len(ex)) if j not in keep]
        o2 = [obs[j] for j in keep] + ([sum(obs[j] for j in rest)] if rest else [])
        e2 = [ex[j] for j in keep] + ([sum(ex[j] for j in rest)] if rest else [])
        if rest and e2[-1] < 1e-12:
            if o2[-1] > 0:
                samp = ConformanceCheck("sampler-agrees", False, f"{o2[-1]} draws fell where the law puts no mass "
                                        f"(scores {list(map(str, q))})", _cx(q))
                break
            o2, e2 = o2[:-1], e2[:-1]
        pv = float(chisquare(o2, np.array(e2) * (sum(o2) / sum(e2))).pvalue)
        worst = min(worst, pv)
        if pv < 1e-6:
            samp = ConformanceCheck("sampler-agrees", False, f"sampler disagrees with the interval law: chi-square p-value {pv:.2g} "
                                    f"on scores {list(map(str, q))} (counts {counts.tolist()}, expected "
                                    f"{np.round(exp, 1).tolist()})", _cx(q))
            break
    what = "first coordinate, " if kind == "continuous" else ""
    return [sums or ConformanceCheck("sums-to-one", True, f"{what}{CELLS}-cell partitions of a 200-scale window sum to 1 "
                                     f"within {TAIL} (ball)"),
            enc or ConformanceCheck("ball-encloses-exact", True if n_exact else None,
                                    f"{n_exact} cells" if n_exact else "no vector small enough for the exact law"),
            na_float,
            samp or ConformanceCheck("sampler-agrees", True, f"{what}{draws} seeded draws per vector binned on the partition; "
                                     f"smallest p-value {worst:.3g}")]


def box_marginal(m: Any, vecs: list) -> Any:
    """``mixed``: ``Pr[pattern, values in the window]`` (box_probability) against ``Pr[pattern]`` (ball pmf)."""
    from ..protocols import value_count
    from .conformance import ConformanceCheck, _cx, _safe

    count = 0
    for q in vecs:
        qs = [str(x) for x in q]
        lo, hi = _window(m, q)
        pmf, err = _safe(lambda: m.pmf(qs, backend="ball"))
        if pmf is None:
            return ConformanceCheck("box-marginal", None, f"no ball pmf ({err})")
        for pat, p in zip(m.outputs(len(q)), pmf.values):
            box = [(lo, hi)] * value_count(m, pat)
            b, err = _safe(lambda: m.box_probability(qs, pat, box, backend="ball"))
            if b is None:
                return ConformanceCheck("box-marginal", False, f"box_probability failed on pattern {pat}: {err}", _cx(q, pattern=pat))
            low, up = b  # certified bounds of Pr[pattern, values in box]
            if low > p or p - up > TAIL:
                return ConformanceCheck("box-marginal", False, f"Pr[{pat}] = {p} but Pr[{pat}, values in the window] ∈ [{low}, {up}] "
                                        f"(scores {qs})", _cx(q, pattern=pat))
            count += 1
    return ConformanceCheck("box-marginal", True, f"{count} patterns: the released values' box law integrates to the pattern law")
