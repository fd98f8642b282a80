"""Conformance checks for the real-valued output kinds (``interval``, ``continuous``, the values of
``mixed``), where the law is given by probabilities of intervals / boxes (dpexact.protocols).

The law is probed on finite partitions of a wide window ``[c − R, c + R]``, R = 200 noise scales
beyond the scores (the one rule :func:`~dpexact.protocols.noise_unit`: ``noise_scale()``, else 2Δ/ε):

=======================  ===========================================================================
check                    passes when
=======================  ===========================================================================
``sums-to-one``          the ball probabilities of every partition's cells sum to a ball meeting
                         ``[1 − 1e-9, 1]`` (the mass outside the window is far below 1e-9)
``ball-encloses-exact``  the 128-bit ball of a cell encloses the exact closed form of that cell
``sampler-agrees``       seeded draws from ``rvs``, binned on cells chosen from a separate pilot run,
                         fit the cells' probabilities: chi-square p-value > 1e-6 on every partition
``box-marginal``         (``mixed``) for every pattern, ``Pr[pattern, values in the window]`` is at
                         most ``Pr[pattern]`` and within 1e-9 of it
=======================  ===========================================================================

For ``continuous`` mechanisms boxes are stated in the mechanism's box coordinates
(``box_coordinates(y)`` where the mechanism defines it — the noisy values behind prefix sums, the
independent coordinates ``C y`` of SmartSum — else ``y`` itself), and the draws are mapped into them.
Every coordinate gets its own partition (the others range over the window), and one *joint*
partition — the orthants around the pilot medians of the first ``JOINT_MAX`` coordinates — tests
the dependence between coordinates, which the marginals cannot see. A density-only continuous
mechanism (no ``box_probability``) gets these checks as not applicable: integrating its density is
not done here, and nothing is reported as passed. ``float-within-bound`` is not applicable to these
kinds: their laws are served on ball and exact only.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from ..numbers.exp_sum import ExpSum
from ..numbers.real import Real
from ..protocols import AnyMechanism, BoxCoordinates, box_law, noise_unit
from ..verify.kinds import kind_of

__all__ = ["real_checks", "box_marginal"]

TAIL = 1e-9
CELLS = 12
JOINT_MAX = 6

Box = list  # one (lo, hi) per box coordinate


def _scale(m: AnyMechanism) -> Fraction:
    s = noise_unit(m)
    return s.to_fraction() if s.is_rational else Fraction(s.to_float()).limit_denominator(10**6)


def _window(m: AnyMechanism, q: Sequence[Fraction]) -> tuple[Fraction, Fraction]:
    r = sum(abs(x) for x in q) + 200 * _scale(m)
    return -r, r


def _law(m: AnyMechanism, q: Sequence[Fraction]) -> Callable[[Box, str], Any] | None:
    """``(box, backend) -> Pr[box coordinates of M(q) in box]``, or None (density only)."""
    qs = [str(x) for x in q]
    law = box_law(m)  # an interval law as a one-box law, else the box law
    return None if law is None else (lambda box, be: law(qs, list(box), backend=be))


def _coordinates(m: AnyMechanism, out: Any) -> np.ndarray:
    """Draws as a (draws, k) float array in the box coordinates."""
    a = np.asarray(out, dtype=float)
    a = a.reshape(len(a), -1)
    return np.asarray(m.box_coordinates(a), dtype=float).reshape(len(a), -1) if isinstance(m, BoxCoordinates) else a


def _rat(v: float) -> Fraction:
    return Fraction(float(v)).limit_denominator(1000)


def _partitions(m: AnyMechanism, q: Sequence[Fraction], seed: int) -> list[tuple[str, list[Box], Callable[[np.ndarray], np.ndarray]]]:
    """``(name, cells, cell_index)``: per-coordinate partitions, and the joint orthants (k ≥ 2).
    ``cell_index(x)`` maps draws (box coordinates) to cell numbers, ``-1`` outside every cell. Cells
    are read as half-open ``[lo, hi)`` where a law has atoms (its box_probability says so)."""
    lo, hi = _window(m, q)
    pilot = _coordinates(m, m.rvs([float(x) for x in q], size=2000, random_state=seed + 10_000))
    k = pilot.shape[1]
    out = []
    for j in range(k):
        qs = np.quantile(pilot[:, j], np.linspace(0, 1, CELLS + 1)[1:-1])
        edges = [lo] + [e for e in sorted({_rat(v) for v in qs}) if lo < e < hi] + [hi]
        cells = [[(lo, hi)] * j + [(a, b)] + [(lo, hi)] * (k - j - 1) for a, b in zip(edges, edges[1:])]
        fe = np.array([float(e) for e in edges])
        idx = lambda x, j=j, fe=fe: np.where((x[:, j] >= fe[0]) & (x[:, j] <= fe[-1]),  # noqa: E731
                                             np.clip(np.searchsorted(fe, x[:, j], side="right") - 1, 0, len(fe) - 2), -1)
        out.append((f"coordinate {j}" if k > 1 else "the line", cells, idx))
    if k >= 2:
        d = min(k, JOINT_MAX)
        med = [_rat(np.median(pilot[:, j])) for j in range(d)]
        med = [c if lo < c < hi else Fraction(0) for c in med]
        cells = [[(lo, med[j]) if s == 0 else (med[j], hi) for j, s in enumerate(bits)] + [(lo, hi)] * (k - d)
                 for bits in itertools.product((0, 1), repeat=d)]
        fm = np.array([float(c) for c in med])

        def idx(x: np.ndarray, d: int = d, fm: np.ndarray = fm) -> np.ndarray:
            inside = np.all((x >= float(lo)) & (x <= float(hi)), axis=1)
            code = ((x[:, :d] >= fm) * (1 << np.arange(d - 1, -1, -1))).sum(axis=1)
            return np.where(inside, code, -1)

        out.append((f"joint orthants of coordinates 0..{d - 1}", cells, idx))
    return out


def _chi_square(counts: np.ndarray, outside: int, p: np.ndarray, draws: int) -> tuple[float | None, str | None]:
    """p-value of the counts against the cell probabilities (cells with < 5 expected pooled), or a
    failure message when draws land where the law puts no mass."""
    from scipy.stats import chisquare

    obs, ex = list(counts) + [outside], list(draws * p) + [draws * max(0.0, 1 - p.sum())]
    keep = [j for j, v in enumerate(ex) if v >= 5]
    rest = [j for j in range(len(ex)) if j not in keep]
    o2 = [obs[j] for j in keep] + ([sum(obs[j] for j in rest)] if rest else [])
    e2 = [ex[j] for j in keep] + ([sum(ex[j] for j in rest)] if rest else [])
    if rest and e2[-1] < 1e-12:
        if o2[-1] > 0:
            return None, f"{o2[-1]} draws fell where the law puts no mass"
        o2, e2 = o2[:-1], e2[:-1]
    if len(o2) < 2:
        return 1.0, None
    return float(chisquare(o2, np.array(e2) * (sum(o2) / sum(e2))).pvalue), None


def real_checks(m: AnyMechanism, vecs: list, draws: int, seed: int) -> list:
    """``sums-to-one``, ``ball-encloses-exact``, ``float-within-bound``, ``sampler-agrees`` for a real-valued kind."""
    from flint import arb

    from .report import ConformanceCheck, cx as _cx, safe as _safe

    row = kind_of(m)
    kind = row.name
    na_float = ConformanceCheck("float-within-bound", None, f"output_kind {kind!r}: the law is served on ball and exact only")
    if _safe(lambda: _law(m, vecs[0]))[0] is None:
        why = f"output_kind {kind!r} with a density only (no box_probability): its integrals are not checked here"
        return [ConformanceCheck("sums-to-one", None, why), ConformanceCheck("ball-encloses-exact", None, why), na_float,
                ConformanceCheck("sampler-agrees", None, why)]
    sums = enc = samp = None
    worst, n_exact, n_parts = 1.0, 0, 0
    names: list[str] = []
    for i, q in enumerate(vecs):
        law = _law(m, q)
        parts, err = _safe(lambda: _partitions(m, q, seed + i))
        if parts is None:
            samp = ConformanceCheck("sampler-agrees", False, f"sampler failed: {err}", _cx(q))
            break
        out, err = _safe(lambda: m.rvs([float(x) for x in q], size=draws, random_state=seed + i))
        xs, err2 = (None, err) if out is None else _safe(lambda: _coordinates(m, out))
        if xs is None:
            samp = ConformanceCheck("sampler-agrees", False, f"sampler failed: {err or err2}", _cx(q))
            break
        for what, cells, index in parts:
            names.append(what)
            probs, err = _safe(lambda: [law(c, "ball") for c in cells])
            if probs is None:
                sums = ConformanceCheck("sums-to-one", False, f"ball probability failed ({what}): {err}", _cx(q))
                break
            tot = sum(probs, arb(0))
            if tot > 1 or tot < 1 - TAIL:  # certainly outside [1 − TAIL, 1]
                sums = ConformanceCheck("sums-to-one", False, f"the {len(cells)} cells of the partition of {what} sum to "
                                        f"{tot}, not within {TAIL} below 1, on scores {list(map(str, q))}", _cx(q))
                break
            if sum(map(abs, q)) <= 10 and enc is None:
                for c in cells[:: max(1, len(cells) // 4)]:
                    ex, err = _safe(lambda: law(c, "exact"))
                    if ex is None:
                        enc = ConformanceCheck("ball-encloses-exact", None, f"no exact box law ({err})")
                        break
                    e = ex.to_arb(256) if isinstance(ex, (ExpSum, Real)) else arb(str(ex))
                    bl = law(c, "ball")
                    if not bl.contains(e):
                        box = [[str(a), str(b)] for a, b in c]
                        enc = ConformanceCheck("ball-encloses-exact", False, f"the ball {bl} of the box {box} misses the "
                                               f"exact value {e} on scores {list(map(str, q))}", _cx(q, box=box))
                        break
                    n_exact += 1
            cell = index(xs)
            counts = np.bincount(cell[cell >= 0], minlength=len(cells))
            p = np.array([float(c.mid()) for c in probs])
            pv, bad = _chi_square(counts, int((cell < 0).sum()), p, draws)
            if bad is not None:
                samp = ConformanceCheck("sampler-agrees", False, f"{bad} ({what}, scores {list(map(str, q))})", _cx(q))
                break
            worst = min(worst, pv)
            n_parts += 1
            if pv < 1e-6:
                samp = ConformanceCheck("sampler-agrees", False, f"sampler disagrees with the {'interval' if row.interval else 'box'} law on {what}: chi-square "
                                        f"p-value {pv:.2g} on scores {list(map(str, q))} (counts {counts.tolist()}, "
                                        f"expected {np.round(draws * p, 1).tolist()})", _cx(q))
                break
        if sums or samp or (enc and enc.passed is False):
            break
    joint = any(w.startswith("joint") for w in names)
    what = (f"{n_parts} partitions (every coordinate{', and joint orthants' if joint else ''}), " if row.density
            else "")
    return [sums or ConformanceCheck("sums-to-one", True, f"{what}{CELLS}-cell partitions of a 200-scale window sum to 1 "
                                     f"within {TAIL} (ball)"),
            enc or ConformanceCheck("ball-encloses-exact", True if n_exact else None,
                                    f"{n_exact} cells" if n_exact else "no vector small enough for the exact law"),
            na_float,
            samp or ConformanceCheck("sampler-agrees", True, f"{what}{draws} seeded draws per vector binned on each "
                                     f"partition; smallest p-value {worst:.3g}")]


def box_marginal(m: AnyMechanism, vecs: list) -> Any:
    """``mixed``: ``Pr[pattern, values in the window]`` (part_box_probability) against ``Pr[pattern]`` (ball pmf)."""
    from ..protocols import value_count
    from .report import ConformanceCheck, cx as _cx, safe as _safe

    count = 0
    for q in vecs:
        qs = [str(x) for x in q]
        lo, hi = _window(m, q)
        pmf, err = _safe(lambda: m.pmf(qs, backend="ball"))
        if pmf is None:
            return ConformanceCheck("box-marginal", None, f"no ball pmf ({err})")
        for pat, p in zip(m.outputs(len(q)), pmf.values):
            box = [(lo, hi)] * value_count(m, pat)
            b, err = _safe(lambda: m.part_box_probability(qs, pat, box, backend="ball"))
            if b is None:
                return ConformanceCheck("box-marginal", False, f"part_box_probability failed on pattern {pat}: {err}", _cx(q, pattern=pat))
            low, up = b  # certified bounds of Pr[pattern, values in box]
            if low > p or p - up > TAIL:
                return ConformanceCheck("box-marginal", False, f"Pr[{pat}] = {p} but Pr[{pat}, values in the window] ∈ [{low}, {up}] "
                                        f"(scores {qs})", _cx(q, pattern=pat))
            count += 1
    return ConformanceCheck("box-marginal", True, f"{count} patterns: the released values' box law integrates to the pattern law")
