"""Goodness of fit of every mechanism's sampler (``rvs``) against its ball pmf.

Each case draws N = 40,000 outputs with a seeded Generator and runs Pearson's chi-square test
(scipy.stats.chisquare) against the rigorous ``ball`` pmf; cells with expected count < 5 are
pooled. A case fails at p < 1e-4.

False-alarm rate: under a correct sampler the p-value is (asymptotically) uniform, so each case
fails with probability 1e-4 for a random seed; over the ~25 cases below the family-wise rate is
<= 25 * 1e-4 = 0.25% (union bound). The seeds are fixed, so the run is reproducible.
Power: :func:`test_gof_rejects_a_wrong_pmf` shows the same test rejecting wrong pmfs that are
close enough to be plausible (EM vs PF, Laplace-RNM vs Gumbel-RNM).

To cover a new mechanism, append ``(label, factory)`` to ``MECHANISMS``.
"""

from collections.abc import Callable

import numpy as np
import pytest
from scipy.stats import chisquare

import dpexact
from dpexact.mechanisms.report_noisy_max import ReportNoisyMax

N = 40_000
ALPHA = 1e-4

MECHANISMS: list[tuple[str, Callable[[], object]]] = [
    ("em", lambda: dpexact.mechanism("em", epsilon=1)),
    ("pf", lambda: dpexact.mechanism("pf", epsilon=1)),
    ("pf-monotone", lambda: dpexact.mechanism("pf", epsilon="1/2", monotone=True)),
    ("rnm-exp", lambda: dpexact.mechanism("rnm-exp", epsilon=1)),
    ("rnm-gumbel", lambda: dpexact.mechanism("rnm-gumbel", epsilon=1)),
    ("rnm-laplace", lambda: dpexact.mechanism("rnm-laplace", epsilon=1)),
]
#: mechanisms whose noise depends on the candidate (scales must match len(scores) = 4)
HETEROGENEOUS: list[tuple[str, Callable[[], object]]] = [
    (f"rnmh-{noise}", lambda noise=noise: ReportNoisyMax(epsilon=1, noise=noise, scales=(1, "1/2", 3, "3/2")))
    for noise in ("exponential", "laplace", "gumbel")
]

SCORES = [
    [3, 1, 1, 0],
    [0, 0, 0, -1, -2, -2, -5, "-1/2"],  # n = 8, three-way tie at the top
    [2, 2],
    ["1/3", 0, -1, "-7/3", "1/2"],
]


def _chisquare_p(counts: np.ndarray, probs: np.ndarray) -> float:
    """Pearson chi-square p-value; cells with expected count < 5 are pooled into one."""
    expected = probs * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if counts.size < 2:
        raise AssertionError("chi-square test needs at least two cells")
    expected = expected * (counts.sum() / expected.sum())  # remove float rounding of the total
    return float(chisquare(counts, expected).pvalue)


def _draw(mech, q, seed: int) -> np.ndarray:
    return np.bincount(mech.rvs(q, size=N, random_state=np.random.default_rng(seed)), minlength=len(q))


@pytest.mark.parametrize("label,factory", MECHANISMS, ids=[m[0] for m in MECHANISMS])
@pytest.mark.parametrize("qi", range(len(SCORES)))
def test_sampler_matches_pmf(label, factory, qi):
    mech, q = factory(), SCORES[qi]
    probs = mech.pmf(q, backend="ball").to_float()
    counts = _draw(mech, q, seed=1000 * qi + sum(map(ord, label)))
    assert _chisquare_p(counts, probs) >= ALPHA


@pytest.mark.parametrize("label,factory", HETEROGENEOUS, ids=[m[0] for m in HETEROGENEOUS])
def test_heterogeneous_sampler_matches_pmf(label, factory):
    mech, q = factory(), [0, 1, "1/2", "-1/3"]
    probs = mech.pmf(q, backend="ball").to_float()
    assert _chisquare_p(_draw(mech, q, seed=sum(map(ord, label))), probs) >= ALPHA


def test_gof_rejects_a_wrong_pmf():
    """The test has power: a sampler is rejected against another mechanism's pmf."""
    q = [1, 0, 0, 0, 0, 0]
    pf, em = dpexact.mechanism("pf", epsilon=2), dpexact.mechanism("em", epsilon=2)
    counts = _draw(pf, q, seed=5)
    assert _chisquare_p(counts, pf.pmf(q, backend="ball").to_float()) >= ALPHA
    assert _chisquare_p(counts, em.pmf(q, backend="ball").to_float()) < ALPHA
    # Laplace vs Gumbel noise on (c, c, 0), c = -10: Pr[a c] is 1.0% vs 0.7% (pf App. F)
    q = [-10, -10, 0]
    lap, gum = dpexact.mechanism("rnm-laplace", epsilon=1), dpexact.mechanism("rnm-gumbel", epsilon=1)
    counts = _draw(lap, q, seed=6)
    assert _chisquare_p(counts, lap.pmf(q, backend="ball").to_float()) >= ALPHA
    assert _chisquare_p(counts, gum.pmf(q, backend="ball").to_float()) < ALPHA
