"""Verifiers on the peers' mechanisms: refutations re-checked exactly, private scopes, bench-peers rows."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.numbers.exp_sum import ExpSum
from dpexact.verification.search.boxes import verify_boxes
from dpexact.verification.search.patterns import verify_patterns
from dpexact.mechanisms.neighbourhoods import MonotoneBox
from dpexact.mechanisms.query_neighbourhoods import OneDiffer, all_differ, query_pairs

EPS = Fraction(1, 10)


@pytest.mark.parametrize("name", ["svt4", "svt5", "svt6"])
def test_not_private_svt_refuted_and_rechecked_exactly(name):
    m = dpexact.mechanism(name, epsilon=EPS, threshold=1)
    v = verify_patterns(m, 10, certify_all=False)
    assert v.verdict == "violated" and v.certified
    cx = v.counterexample
    assert all_differ(1).contains(cx.scores, cx.neighbour_scores)
    # independent re-check: the exact pattern probabilities in Q[exp(Q)]
    a = m.exact_pattern_value(list(cx.scores), cx.output)
    b = m.exact_pattern_value(list(cx.neighbour_scores), cx.output)
    assert (a - ExpSum.exp(EPS) * b).sign() == 1


def test_svt4_worst_ratio_below_lyu_bound():
    m = dpexact.mechanism("svt4", epsilon=EPS, threshold=1, cutoff=1)
    v = verify_patterns(m, 10, certify_all=False)
    assert EPS < v.worst_log_ratio <= float(m.true_epsilon().to_float())


def test_svt1_private_within_scope():
    m = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=1)
    v = verify_patterns(m, 4)
    assert v.verdict == "private-within-scope" and v.scope.undecided == 0
    assert v.worst_log_ratio <= 0.1 and v.scope.triples == 2 * v.scope.pairs * len(m.outputs(4))


@pytest.mark.parametrize("name", ["svt3", "bad-gap-svt"])
def test_released_values_refuted_on_a_box(name):
    m = dpexact.mechanism(name, epsilon=EPS, threshold=1, cutoff=1)
    v = verify_boxes(m, 10)
    assert v.verdict == "violated" and v.certified
    cx = v.counterexample
    lo1, _ = m.part_box_probability(list(cx.scores), cx.output, list(cx.box), "exact")
    _, hi2 = m.part_box_probability(list(cx.neighbour_scores), cx.output, list(cx.box), "exact")
    assert (lo1 - ExpSum.exp(EPS) * hi2).sign() == 1


def test_query_neighbourhoods():
    nb = OneDiffer(1)
    assert nb.contains([0, 0, 0], [0, 1, 0]) and not nb.contains([0, 0, 0], [1, 1, 0])
    assert not nb.contains([0, 0], [0, 2])
    pairs = query_pairs(5, 1, 0, 20, "one-differ")
    assert all(nb.contains(a, b) for a, b in pairs)
    with pytest.raises(ValueError, match="relation"):
        query_pairs(5, 1, 0, 20, "some")
    mono = query_pairs(5, 1, 0, 20, "monotone")
    assert mono and all(MonotoneBox(1).contains(a, b) for a, b in mono)
    # the all-differ family has pairs outside the monotone relation (queries moving both ways)
    assert not all(MonotoneBox(1).contains(a, b) for a, b in query_pairs(5, 1, 0, 20, "all-differ"))


def test_monotone_svt1_private_for_monotone_queries_only():
    """Halved query noise (Lyu et al., monotonic queries): private under the monotone relation (CheckDP
    INCREASING / DECREASING), violated under ALL_DIFFER with a counterexample re-checked exactly."""
    m = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=1, monotone=True)
    v = dpexact.verify(m, n=6)  # the mechanism's own claim: the monotone relation, proved for every n
    assert v.verdict == "private" and v.certified and v.worst_log_ratio <= 0.1
    assert verify_patterns(m, 6, "monotone").verdict == "private-within-scope"
    assert "monotone" in v.scope.neighbourhood
    bad = verify_patterns(m, 10, "all-differ", certify_all=False)
    assert bad.verdict == "violated" and bad.certified
    cx = bad.counterexample
    assert all_differ(1).contains(cx.scores, cx.neighbour_scores)
    assert not MonotoneBox(1).contains(cx.scores, cx.neighbour_scores)
    a = m.exact_pattern_value(list(cx.scores), cx.output)
    b = m.exact_pattern_value(list(cx.neighbour_scores), cx.output)
    assert (a - ExpSum.exp(EPS) * b).sign() == 1
    # the same counterexample does not refute Algorithm 1 with its full noise 4cΔ/ε
    full = dpexact.mechanism("svt1", epsilon=EPS, threshold=1, cutoff=1)
    a = full.exact_pattern_value(list(cx.scores), cx.output)
    b = full.exact_pattern_value(list(cx.neighbour_scores), cx.output)
    assert (a - ExpSum.exp(EPS) * b).sign() == -1


def test_bench_peers_json_rows():
    r = CliRunner().invoke(app, ["bench-peers", "--json", "--name", "iSVT3", "--name", "histogram_eps", "--name", "svt_increasing",
                                 "--name", "svt_decreasing"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["rows"]
    keys = {"suite", "name", "mechanism", "params", "claimed_epsilon", "truth", "verdict", "certified", "worst_log_ratio",
            "seconds", "peer_seconds"}
    assert all(keys <= set(d) for d in rows)
    by = {d["name"]: d for d in rows}
    assert by["iSVT3"]["verdict"] == "violated" and by["iSVT3"]["certified"]
    # Algorithm 4's level is bracketed: a certified violation below, the coupling's proof (Lyu et al.'s
    # ((1+6c)/4)·ε, computed from the law's factors, not from the paper) above
    assert 0.1 < by["iSVT3"]["worst_log_ratio"] <= Fraction(by["iSVT3"]["coupling_bound"]) == Fraction(7, 40)
    assert by["histogram_eps"]["verdict"] == "violated"
    for nm in ("svt_increasing", "svt_decreasing"):  # CheckDP's monotone SVT: Lyu et al. Algorithm 1, halved query noise
        assert by[nm]["verdict"] == "private" and by[nm]["certified"] and by[nm]["params"]["monotone"] is True
        assert by[nm]["worst_log_ratio"] <= 0.1


def test_cli_errors_are_one_line():
    r = CliRunner().invoke(app, ["verify", "-m", "svt1", "-e", "1/10", "--n", "10", "-p", "cutoff=-1"])
    assert r.exit_code == 2 and "cutoff" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["bench-peers", "--suite", "Nope"])
    assert r.exit_code == 2 and "--suite" in r.output


def test_svt34_parallel_refuted_through_a_component():
    v = dpexact.verify(dpexact.mechanism("svt34-parallel", epsilon=EPS), n=10)
    assert v.verdict == "violated" and v.certified and v.worst_log_ratio > 0.1


def test_selection_ties_on_peer_pairs_are_decided_exactly():
    """rnm-exp's ratio equals e^ε exactly on some peer pairs: balls straddle, the exact backend decides."""
    from dpexact.verification.routes import _unit_or_kind_search as _search_mechanism

    assert dpexact.verify(dpexact.mechanism("rnm-exp", epsilon="1/10"), n=3, relation="all-differ").verdict == "private"
    v = _search_mechanism(dpexact.mechanism("rnm-exp", epsilon="1/10"), 3, "all-differ")  # the search alone
    assert v.verdict == "private-within-scope" and v.certified
    assert v.scope.decided_exact > 0 and v.scope.undecided == 0
