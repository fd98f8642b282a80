"""Soundness benchmark and the verify CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.suites.soundness import ChannelEntry, catalogue, run_benchmark

CHEAP = ("em", "pf")


def _cheap(e):
    return not any(w in e.label for w in ("rnm", "RNMH", "grr ε", "rs-gamma", "gem (PF"))


def test_catalogue_size_and_citations():
    cat = catalogue()
    assert len(cat) >= 15
    assert {e.truth for e in cat} == {"private", "not-private"}
    assert all(e.citation for e in cat)


def test_cheap_catalogue_entries_are_sound_and_flagged():
    rows = run_benchmark([e for e in catalogue() if _cheap(e)])
    assert len(rows) >= 18
    assert sum(isinstance(e, ChannelEntry) for e in catalogue()) >= 5  # LDP channels (GRR, BRR) are in it
    for r in rows:
        assert r.sound, r
        assert r.bracket is not None, r  # every row carries its ε bracket
        if r.truth == "not-private":
            assert r.verdict == "violated" and r.certified, r
            assert r.worst_log_ratio > r.epsilon
            assert r.bracket["lower_float"] > r.epsilon, r
        else:
            # a proof above (theorem / exact channel ratio / branch-and-bound) makes it private; else the scope's verdict
            assert r.verdict in ("private", "private-within-scope") and r.worst_log_ratio <= r.epsilon + 1e-15, r
            assert r.bracket["lower_float"] <= r.epsilon, r
            if r.verdict == "private":
                # upper_float is rounded up, epsilon to nearest: equal levels differ by an ulp
                assert r.bracket["upper"] is not None and r.bracket["upper_float"] <= r.epsilon * (1 + 2**-50), r


@pytest.mark.slow
def test_full_benchmark_sound():
    rows = run_benchmark()
    assert all(r.sound for r in rows)
    assert all(r.verdict == "violated" and r.certified for r in rows if r.truth == "not-private")


def test_cli_verify_json():
    res = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "1", "--monotone", "--neighbourhood", "box", "--json"])
    assert res.exit_code == 1, res.output  # violated
    d = json.loads(res.output)
    assert d["verdict"] == "violated" and d["certified"] is True
    assert set(d["counterexample"]) >= {"scores", "neighbour_scores", "output", "ratio"}
    res2 = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "1", "--search", "grid", "--n", "2", "--values", "0,1", "--json"])
    d2 = json.loads(res2.output)
    # the searched scope holds and EM's theorem proves ε for every n: private, with the bracket's proof
    assert d2["verdict"] == "private" and d2["counterexample"] is None and res2.exit_code == 0
    assert d2["epsilon_bracket"]["upper"]["method"] == "theorem" and d2["epsilon_bracket"]["upper_float"] <= 1


def test_cli_verify_bad_input():
    res = CliRunner().invoke(app, ["verify", "-m", "em", "-e", "-1"])
    assert res.exit_code != 0 and "epsilon" in res.output
