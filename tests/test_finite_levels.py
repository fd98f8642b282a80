"""Exact levels of finite-domain mechanisms as proofs (verification/proofs/finite_levels.py), and bench-peers' bracket columns."""

from __future__ import annotations

import json
import math
from fractions import Fraction

from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.verification.proofs.finite_levels import RapporLevel, TruncatedGeometricLevel


def test_truncated_geometric_bracket_closes_at_log_9_8():
    """DP-Sniper's coding at ε = 1/10 takes k = 3: level ln(1 + 2^-3) = ln(9/8) (Balcer & Vadhan Thm 4.7)."""
    m = dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10))
    v = dpexact.verify(m)
    assert v.verdict == "violated"
    assert v.bracket.upper.upper == "log(9/8)" and v.bracket.lower.lower == "log(9/8)"
    assert v.bracket.lower_float <= math.log(9 / 8) <= v.bracket.upper_float
    assert v.bracket.upper_float - v.bracket.lower_float < 1e-12


def test_truncated_geometric_private_reading():
    m = dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10), log_base=2)  # k = 5: ln(33/32) < 1/10
    v = dpexact.verify(m)
    assert v.verdict == "private" and v.bracket.upper.upper == "log(33/32)"


def test_rappor_level_is_the_papers_epsilon():
    """Erlingsson et al.'s ε = h·log(q*(1-p*)/(p*(1-q*))) for disjoint filters; the exact level over every pair equals it here."""
    for name in ("rappor", "one-time-rappor"):
        m = dpexact.mechanism(name)
        p = RapporLevel().prove(m, None, None)
        assert abs(p.upper_float - float(m.paper_epsilon().to_float())) < 1e-12
        v = dpexact.verify(m)
        assert v.verdict == "private"


def test_mutated_truncated_geometric_pmf_changes_the_level():
    from dpexact.mechanisms.truncated_geometric import TruncatedGeometric
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Off(TruncatedGeometric):
        def exact_pmf(self, queries):
            p = list(super().exact_pmf(queries))
            if self._count(queries) == 0:  # one probability moved by 1/1000 of itself (mass to the last output)
                p[0], p[-1] = p[0] * Fraction(1001, 1000), p[-1] - p[0] / 1000
            return p

    base = TruncatedGeometricLevel().prove(dpexact.mechanism("truncated-geometric", epsilon=Fraction(1, 10), log_base=2), None, None)
    off = TruncatedGeometricLevel().prove(Off(epsilon=Fraction(1, 10), log_base=2), None, None)
    assert off.upper_float > base.upper_float


def test_bench_peers_bracket_columns():
    r = CliRunner().invoke(app, ["bench-peers", "--json", "--name", "iSVT3", "--name", "LaplaceMechanism",
                                 "--name", "TruncatedGeometricMechanism", "--name", "SVT"])
    rows = json.loads(r.output)
    rows = rows["rows"] if "rows" in rows else rows["data"]["rows"]
    by = {d["name"]: d for d in rows}
    assert by["iSVT3"]["verdict"] == "violated" and by["iSVT3"]["upper"] == "7/40"
    assert 0.1 < by["iSVT3"]["epsilon_bracket"]["lower_float"] <= 7 / 40
    assert by["LaplaceMechanism"]["verdict"] == "private" and by["LaplaceMechanism"]["proof"].startswith("density-ratio")
    assert by["SVT"]["verdict"] == "private" and "n every" in by["SVT"]["proof"]
    assert by["TruncatedGeometricMechanism"]["upper"] == "log(9/8)"


def test_svt4_level_is_lyu_bound_to_six_digits():
    """The maximised two-level witness reaches Lyu et al.'s (1+6c)/4·ε = 7/40 (the coupling's bound) to 6 digits;
    its ratio re-computed in the exact backend agrees (an independent arithmetic)."""
    from dpexact.numbers.exp_sum import ExpSum
    from dpexact.verification.search.pattern_level import pattern_level

    m = dpexact.mechanism("svt4", epsilon="1/10", threshold=1, cutoff=1)
    w = pattern_level(m, 10, "all-differ")
    assert 0.174999 <= w.lower_float <= 7 / 40
    q, q2 = [Fraction(x) for x in w.scores], [Fraction(x) for x in w.neighbour_scores]
    assert all(abs(a - b) <= 1 for a, b in zip(q, q2))  # an ALL_DIFFER pair
    a, b = m.exact_pattern_value(q, w.output), m.exact_pattern_value(q2, w.output)
    assert (a - ExpSum.exp(Fraction(w.lower_float).limit_denominator(10**15) - Fraction(1, 10**12)) * b).sign() > 0
