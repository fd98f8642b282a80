"""The box branch-and-bound's budget once a whole-domain unit applied and gave up
(dpexact.verification.proofs.selection_bracket.BOX_SECONDS_AFTER_WHOLE): a short box search, said in the proof
and the verdict's reason; the full budget when the whole-domain unit declined the law (outside its forms)."""

from __future__ import annotations

import dpexact
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import selection_bracket
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.selection_bnb import SelectionBnB

SI = {"symmetric": True, "shift_invariant": True}


def _em(q, p, ops):
    w = [ops.exp(p.epsilon * x / (2 * p.sensitivity)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


def _em_log(q, p, ops):
    # the same law through a log of a score expression: outside the compact forms (the unit declines)
    w = [ops.exp(p.epsilon * ops.log(ops.exp(x)) / (2 * p.sensitivity)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


def _budgets(monkeypatch) -> list:
    seen = []
    real = SelectionBnB.prove

    def spy(self, mechanism, n, relation, tolerance=1e-6):
        seen.append(self.seconds)
        return real(self, mechanism, n, relation, tolerance)
    monkeypatch.setattr(SelectionBnB, "prove", spy)
    return seen


def _without_law_identity(monkeypatch) -> None:
    # these laws are EM's, which the law-identity unit proves before the compact unit runs: the policy under
    # test is between the compact unit and the box search
    from dpexact.verification import proofs
    from dpexact.verification.proofs.law_identity import LawIdentity

    monkeypatch.setattr(proofs, "PROOFS", [u for u in proofs.PROOFS if not isinstance(u, LawIdentity)])


def test_box_search_is_short_after_the_whole_domain_unit_gave_up(monkeypatch):
    seen = _budgets(monkeypatch)
    _without_law_identity(monkeypatch)
    monkeypatch.setattr(CompactBnB, "_budget", lambda self, n: 0.0)  # the whole-domain run gives up at once
    m = dpexact.define_mechanism("budget-em", _em, epsilon=1, properties=SI)
    nb = parse_neighbourhood("box", m)
    assert CompactBnB().gave_up(m, 2, nb)
    proof = selection_bracket._selection_proof(m, 2, nb)
    assert seen == [selection_bracket.BOX_SECONDS_AFTER_WHOLE]
    assert proof is not None and not proof.whole_domain and "not tried" in proof.details["budget"]
    notes = selection_bracket._reason_notes("private-within-scope", proof, _Bracket(), m, nb,
                                            None, False, 1e-6, "")
    assert "a longer box search was not tried" in notes


def test_box_search_keeps_its_budget_when_the_whole_domain_unit_declines(monkeypatch):
    seen = _budgets(monkeypatch)
    _without_law_identity(monkeypatch)
    m = dpexact.define_mechanism("budget-em-log", _em_log, epsilon=1, properties=SI)
    nb = parse_neighbourhood("box", m)
    assert not CompactBnB().gave_up(m, 2, nb)
    selection_bracket._selection_proof(m, 2, nb)
    assert seen == [SelectionBnB().seconds]


class _Bracket:
    lower = None
    width = float("inf")
