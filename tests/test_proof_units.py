"""The one ordered list of proof units (dpexact.verification.proofs.PROOFS): one interface, and the two ways a claim
names its neighbours (a score neighbourhood object, a query relation name) each reach only the units stated
for them — which is what lets one list replace the former relation / selection / verdict lists."""

from __future__ import annotations

import pytest

import dpexact
from dpexact.mechanisms.neighbourhoods import LInfBox, MonotoneBox
from dpexact.verification.bracket import Proof
from dpexact.verification.proofs import PROOFS, ProofUnit, VerdictUnit, first_proof, verdict_units
from dpexact.verification.proofs.lattice_noisy_max import LatticeNoisyMax
from dpexact.verification.proofs.law_identity import LawIdentity
from dpexact.verification.proofs.selection_bnb import SelectionBnB
from dpexact.verification.proofs.selection_theorems import THEOREMS, TheoremProof

RELATIONS = (None, "all-differ", "one-differ", "monotone")
MECHANISMS = [("pf", {}), ("em", {}), ("grr", {}), ("rnm-laplace", {}), ("rnm-exp", {}), ("svt1", {"threshold": 1}),
              ("noisy-max-value", {}), ("truncated-geometric", {"n": 4}), ("laplace", {})]


def _build(name, kw):
    try:
        return dpexact.mechanism(name, epsilon="1/2", **kw)
    except (TypeError, ValueError, KeyError) as exc:  # a name this registry does not hold: say so, do not hide it
        pytest.fail(f"{name}: {exc}")


def test_every_unit_offers_the_one_interface():
    assert PROOFS and all(isinstance(u, ProofUnit) for u in PROOFS)
    assert len({u.name for u in PROOFS}) == len(PROOFS)
    assert [u.name for u in verdict_units()] == ["threshold-shift coupling", "closed form"]
    assert all(isinstance(u, VerdictUnit) for u in verdict_units())


def test_the_order_is_theorems_then_branch_and_bound_then_relation_units_then_verdict_units():
    names = [u.name for u in PROOFS]
    assert names[:len(THEOREMS)] == [t.name for t in THEOREMS]
    # a theorem first; then a law stated as integer noisy max (every integer score vector); then a law identical
    # to a registered one; else the compact
    # branch-and-bound over every real score vector; else the box's
    assert isinstance(PROOFS[len(THEOREMS)], LatticeNoisyMax)
    # a law proved identical to a registered one goes through that one's theorem before any branch-and-bound
    assert isinstance(PROOFS[len(THEOREMS) + 1], LawIdentity)
    assert PROOFS[len(THEOREMS) + 2].name == "compact-branch-and-bound"
    assert isinstance(PROOFS[len(THEOREMS) + 3], SelectionBnB)
    assert names[-2:] == ["threshold-shift coupling", "closed form"]


def test_grr_theorem_needs_the_neighbourhood_guard():
    """GRR's level is ε "for every relation": without the Neighbourhood guard its theorem would claim a query
    relation name and then fail on it (a name has no describe()). The guard refuses the name, not the box."""
    grr = dpexact.mechanism("grr", epsilon="1/2")
    t = next(t for t in THEOREMS if isinstance(t, TheoremProof) and t.law_level(grr, 3, "all-differ") is not None)
    assert not t.supports(grr, 3, "all-differ")
    assert t.supports(grr, 3, LInfBox(1))
    p = first_proof(grr, 3, LInfBox(1))[1]
    assert isinstance(p, Proof) and p.method == "theorem" and p.upper == "1/2"


@pytest.mark.parametrize("name, kw", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_each_form_of_neighbours_reaches_only_its_units(name, kw):
    m = _build(name, kw)
    for nb in (LInfBox(1), MonotoneBox(1)):
        for u in PROOFS:
            if u.supports(m, 3, nb):  # a neighbourhood object: the selection theorems, the branch-and-bound,
                # or a verdict unit (which proves nothing before the search)
                assert u in THEOREMS or isinstance(u, SelectionBnB) or isinstance(u, VerdictUnit), (name, u.name)
                assert not isinstance(u, VerdictUnit) or u.prove(m, 3, nb) is None
    for rel in RELATIONS:
        for u in PROOFS:
            assert not (u.supports(m, 3, rel) and (u in THEOREMS or isinstance(u, SelectionBnB))), (name, rel, u.name)


def test_first_proof_on_a_relation_is_the_relation_units_answer():
    """Report noisy max on a relation name: the symbolic noisy-max coupling (a relation unit), not a theorem."""
    unit, p = first_proof(dpexact.mechanism("rnm-laplace", epsilon="1/10"), 5, "all-differ")
    assert unit.name == "noisy-max coupling (symbolic, every n)" and p.method == "coupling"
    unit, p = first_proof(dpexact.mechanism("rnm-laplace", epsilon="1/10"), 5, LInfBox(1))
    assert unit in THEOREMS and p.method == "theorem"
