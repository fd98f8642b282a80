"""A seeded sample of the hostile document run (``benchmarks/hostile_documents.py`` runs >= 1 000 cases):
``dpexact replay`` and ``dpexact schema --validate`` on files that name code, relabel the evidence, nest
deeply, are large, carry terminal escapes or NaN. Every case: no code run, no hang, no traceback, no raw
escape printed, a usage error on one line with exit 2, ``--json`` output that follows its schema."""

from __future__ import annotations

import random

import pytest
from support.hostile_documents import FAMILIES, DocWorkspace, random_doc_case, run_doc_case


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return DocWorkspace.make(tmp_path_factory.mktemp("hostile-documents"))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_seeded_sample_of_hostile_documents(workspace, family, tmp_path):
    rng = random.Random(f"documents-{family}")
    for i in range(10 if family == "sizes" else 20):
        res = run_doc_case(random_doc_case(rng, workspace, family), tmp_path / f"c{i}")
        assert res.outcome == "ok", (res.outcome, res.exit_code, res.case.args, res.case.note, res.detail)


def test_the_run_detects_code_run_when_a_record_is_trusted(workspace, tmp_path, monkeypatch):
    """Mutation: replay trusting the record's mechanism again (the old behaviour) -> the canary is seen."""
    import dpexact.verification.replay_record as rr

    monkeypatch.setattr(rr, "trusted_spec", lambda recorded, user, digest=None: recorded)
    rng = random.Random(5)
    outcomes = set()
    for i in range(40):
        case = random_doc_case(rng, workspace, "names")
        if case.args[0] == "replay" and "canary.py" in case.content.decode("utf-8", "replace") and "-m" not in case.args:
            outcomes.add(run_doc_case(case, tmp_path / f"c{i}").outcome)
    assert "code-run" in outcomes
