"""RAPPOR channels: the factorised loss against brute force over every output, and simulation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import dpexact


@pytest.mark.parametrize("name", ["rappor", "one-time-rappor"])
def test_factorised_loss_equals_brute_force_over_all_outputs(name):
    m = dpexact.mechanism(name, n_hashes=2, filter_size=6, lo=0, hi=4)
    worst = -math.inf
    for v in range(0, 5):
        for w in range(0, 5):
            if v == w:
                continue
            for o in itertools.product((0, 1), repeat=6):
                a = float(m.output_probability(v, o).mid())
                b = float(m.output_probability(w, o).mid())
                worst = max(worst, math.log(a / b))
    v = dpexact.verify(m)
    assert abs(v.worst_log_ratio - worst) < 1e-12
    # the paper's claim 2h·log(q*/p*) is never exceeded: proved over the whole finite input domain,
    # and the proof's level is the brute-force maximum
    assert v.verdict == "private" and v.bracket is not None and v.bracket.upper is not None
    assert abs(v.bracket.upper.upper_float - worst) < 1e-9


def test_product_law_matches_simulation():
    m = dpexact.mechanism("rappor")
    o = tuple(int(x) for x in m.rvs(3, random_state=1))
    draws = m.rvs(3, size=100000, random_state=2)
    bits = draws[:, :3]
    target = np.array(o[:3])
    frac = np.mean(np.all(bits == target, axis=1))
    # marginal of the first three bits from the product law
    qs, ps = m.bit_probabilities()
    ref = 1.0
    for b, x in zip(m.bloom(3)[:3], o[:3]):
        p1 = float(qs if b else ps)
        ref *= p1 if x else 1 - p1
    assert abs(frac - ref) < 5 * math.sqrt(ref * (1 - ref) / 100000)


def test_claim_below_level_is_refuted_and_bad_parameters():
    v = dpexact.verify(dpexact.mechanism("one-time-rappor", epsilon=Fraction(1, 2)))
    assert v.verdict == "violated" and v.certified
    with pytest.raises(ValueError, match="f"):
        dpexact.mechanism("rappor", f=2)
    with pytest.raises(ValueError):
        dpexact.mechanism("rappor", lo=3, hi=1)


def test_default_rappor_is_too_large_to_enumerate_and_conform_says_so():
    """2^20 reports: the privacy verdict needs no enumeration; conformance (which enumerates) refuses
    with a cost error naming the parameter, not a protocol failure."""
    from typer.testing import CliRunner

    from dpexact.cli.main import app
    from dpexact.cost_limits import CostLimitError
    from dpexact.conformance.checks import conform

    m = dpexact.mechanism("rappor")
    assert dpexact.verify(m).certified
    with pytest.raises(CostLimitError, match="filter_size"):
        conform(m)
    r = CliRunner().invoke(app, ["conform", "rappor"])
    assert r.exit_code == 2 and "give smaller parameters" in r.output and "Traceback" not in r.output
    assert conform(dpexact.mechanism("rappor", filter_size=6, n_hashes=2, lo=0, hi=2), draws=4000).passed
