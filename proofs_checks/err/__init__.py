"""Claims of err (Munilla Garrido & Matthes, *Exponential Randomized Response*) and their checks.

Conventions. EM weights ``w_r = exp(ε(q_r − q*)/(2Δ))`` (err Definition 3); the ERR pmf is
err Lemma 1 (``p/m + (1−p) EM_r`` on the set T, ``(1−p) EM_r`` off it). The set T is defined
twice in the paper and the two definitions disagree (see ``err.text.chain-is-interval``):

* ``chain`` — err Algorithm 3 lines 1–4 (consecutive sorted gaps ≤ Δ from the top); this is
  the reading of the paper's own examples and experiments (§V-C switches from eq. 15 to
  eq. 16 at v = −Δ) and the library default;
* ``interval`` — err Lemma 1's text, ``T = {r : q_r ∈ [q* − cΔ, q* + Δ]}`` with c ∈ N+ such
  that widening by Δ adds nothing; c is not unique, the library takes the smallest.

Every privacy verdict is checked in both readings. Neighbours: err Definition 2 (ℓ1
sensitivity Δ); with Δ = 1 and integer scores the ℓ1 ball is the add/remove-one histogram
relation ``q' = q ± e_a`` — the smallest neighbourhood the paper admits (a violation there
is a violation under ℓ1, ℓ∞ and monotone neighbours alike). Exact checks use ε = 2 log 2
(``w_r = 2^(q_r − q*)`` on integer scores: fmpq); other ε run in arb balls. Error
``E = q* − q_M`` (err §V). p values: 1/4, 1/2, 3/4 (the ones the text names, §V, Fig. 7).
"""

from . import (
    background,
    naive_err,
    complete_err,
    privacy,
    disclosure,
    utility,
    worst_case_em,
    improvement,
    synthetic,
    dpbench,
)

#: the section modules in paper order (the order of the claims)
SECTIONS = (
    "background",
    "naive_err",
    "complete_err",
    "privacy",
    "disclosure",
    "utility",
    "worst_case_em",
    "improvement",
    "synthetic",
    "dpbench",
)
