"""Every claim's verdict against its record (``expected`` / ``expected_quick`` in the catalogue):
a changed verdict fails here and shows up as a diff of the record. The quick scope runs by
default, the full scope under ``-m slow``."""

import pytest

import proofs_checks.catalogue as cat
from claim_runs import quick_outcome

CLAIMS = cat.catalogue()


def test_every_claim_has_a_complete_record():
    for c in CLAIMS:
        assert c.expected is not None, c.id
        assert c.scope_quick and c.scope_full, c.id
        refuted = "refuted" in (c.expected, c.expected_quick)
        assert (c.severity is not None) == refuted, c.id


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_quick_verdict_matches_the_record(claim):
    o = quick_outcome(claim.id)
    assert not o.crashed, o.verdict.evidence
    assert (o.verdict.verdict, o.verdict.scope) == (claim.expected_verdict(quick=True), claim.scope_quick)


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_full_verdict_matches_the_record(claim):
    o = cat.run_claim(claim, quick=False)
    assert not o.crashed, o.verdict.evidence
    assert (o.verdict.verdict, o.verdict.scope) == (claim.expected_verdict(quick=False), claim.scope_full)
